//! The bake: model → palette, frame table, sampled skin matrices, bone texture, influences,
//! primitives, materials and per-row bounds (docs/design.md §3). Deterministic: the same model and
//! options give an identical [`BakedAsset`] whatever the thread count (parallel work writes to
//! fixed slots; reductions are order-independent maxima).

use crate::anchors;
use crate::budget::{self, Placement, ReferenceSkin};
use crate::encode::{self, QuatFailure};
use crate::error::BakeError;
use crate::frames::{self, frame_count, frame_step, frame_time};
use crate::influences::{cut_vertex, merge_and_sort};
use crate::options::{BakeOptions, MaxError, Sampling, WEBGPU_DEFAULT_MAX_LAYERS};
use crate::palette::{self, Palette};
use crate::report::{BakeReport, ClipReport, ErrorParts, Fallback};
use crate::root_motion;
use glam::{Mat4, Vec3};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};
use throng_anim::{Influences, Model, Poser};
use throng_asset::{
    Aabb, AnchorTexture, BakeSettings, BakedAsset, BakedImage, BakedMaterial, BakedPrimitive,
    ClipEvent, ClipInfo, Encoding, LoopMode, TextureTransform,
};

/// Rows beyond this cannot be addressed exactly by the f32 row of the per-instance record
/// (the contract's limit).
pub const MAX_ROWS: u64 = throng_contract::MAX_ROWS as u64;

/// What a bake is busy with, for progress reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Choosing frame times under an error budget; progress counts milliseconds of clip time.
    Placing,
    /// Sampling the skin matrices of every frame-table row; progress counts rows.
    Sampling,
}

/// Progress callback: `(stage, done, total)`. Called from worker threads.
pub type Progress<'a> = &'a (dyn Fn(Stage, u64, u64) + Sync);

/// Bakes `model` with `options`. See [`bake_with_progress`].
pub fn bake(model: &Model, options: &BakeOptions) -> Result<(BakedAsset, BakeReport), BakeError> {
    bake_with_progress(model, options, None)
}

/// One frame-table row: which clip (None = rest), which frame, at what clip time (seconds).
#[derive(Debug, Clone, Copy)]
struct RowTime {
    clip: Option<usize>,
    frame: u32,
    time: f32,
}

/// Source influences of one baked primitive in palette space (all of them, for bounds).
#[derive(Clone)]
struct FullInfluences {
    offsets: Vec<u32>,
    entries: Vec<u16>,
    weights: Vec<f32>,
}

/// As [`bake`], calling `progress` while placing frames and sampling (the long parts of large
/// bakes).
///
/// Under [`Sampling::MaxError`] the frames of each clip are placed by [`budget::place`]; the
/// bake is then measured at its sample times ([`crate::verify`]), where the encoding and the
/// K-influence cut make their own error, and every clip whose two parts together exceed the
/// budget is placed again with that part taken off its budget (docs/design.md §3).
pub fn bake_with_progress(
    model: &Model,
    options: &BakeOptions,
    progress: Option<Progress<'_>>,
) -> Result<(BakedAsset, BakeReport), BakeError> {
    let file = options.source_name.as_str();
    check_options(options)?;
    let palette = palette::build(model, file)?;
    check_width(
        file,
        palette.entries.len(),
        options.encoding,
        options.max_texture_size,
    )?;
    check_clip_names(model, options, file)?;
    let prims = primitives(model, &palette, options, file)?;
    let Sampling::MaxError(budget) = options.sampling else {
        return bake_rows(model, options, &palette, prims, &[], progress, true);
    };
    let skin = reference_skin(&prims.0, &prims.1);
    let all: Vec<usize> = (0..model.clips.len()).collect();
    // The sampled matrices' own error, estimated on a coarse uniform bake, comes off each
    // clip's budget up front (with a margin: the final rows differ).
    let probe = BakeOptions {
        sampling: Sampling::Fixed(PROBE_FPS),
        vat: None,
        lods: Vec::new(),
        ..options.clone()
    };
    let (probe_asset, _) = bake_rows(model, &probe, &palette, prims.clone(), &[], None, false)?;
    let probe_errors = at_sample_errors(&probe_asset, model, budget)?;
    // A budget the sampled matrices already use up cannot be met by any spacing: say so now
    // rather than place thousands of frames chasing texel noise.
    if let Some((c, &e)) = probe_errors
        .iter()
        .enumerate()
        .find(|(_, &e)| e > 0.5 * budget_value(budget))
    {
        return Err(BakeError::BudgetBelowSampleError {
            file: options.source_name.clone(),
            clip: model.clips[c].name.clone(),
            at_samples: e,
            budget: budget.as_setting(),
            encoding: probe_asset.bone_texture.encoding.as_str(),
            influences: options.influences,
        });
    }
    let reserve: Vec<f64> = probe_errors.iter().map(|e| PROBE_MARGIN * e).collect();
    // The rows of `placed` baked, with each clip's error parts measured.
    let measure = |placed: &[Option<Placement>]| -> Result<_, BakeError> {
        let (asset, report) = bake_rows(
            model,
            options,
            &palette,
            prims.clone(),
            placed,
            progress,
            false,
        )?;
        let parts = error_parts(&asset, model, placed, budget)?;
        Ok((asset, report, parts))
    };
    // A measured bake as it is delivered: additive clips as deltas, the parts in the report.
    let deliver = |(asset, report, parts): (BakedAsset, BakeReport, Vec<Option<ErrorParts>>),
                   placed: &[Option<Placement>]| {
        let asset = with_additive(model, options, &palette, &prims, placed, asset)?;
        Ok(with_parts(asset, report, parts, budget, options.influences))
    };
    let mut placed = place_clips(
        model, options, &palette, &skin, budget, &all, &reserve, progress,
    );
    let (asset, report, parts) = measure(&placed)?;
    let over: Vec<usize> = parts
        .iter()
        .enumerate()
        .filter(|(_, p)| {
            p.as_ref()
                .is_some_and(|p| p.between + p.at_samples > budget_value(budget))
        })
        .map(|(c, _)| c)
        .collect();
    if over.is_empty() {
        return deliver((asset, report, parts), &placed);
    }
    let reserve: Vec<f64> = parts
        .iter()
        .zip(&reserve)
        .map(|(p, r)| {
            p.as_ref()
                .map_or(*r, |p| r.max(p.at_samples * PROBE_MARGIN))
        })
        .collect();
    let again = place_clips(
        model, options, &palette, &skin, budget, &over, &reserve, progress,
    );
    for (c, p) in again.into_iter().enumerate() {
        if over.contains(&c) {
            placed[c] = p;
        }
    }
    deliver(measure(&placed)?, &placed)
}

/// The measured bake again with its additive clips' rows stored as deltas (the measurement
/// compares poses with the source, so it runs on the poses; docs/design.md §4).
fn with_additive(
    model: &Model,
    options: &BakeOptions,
    palette: &Palette,
    prims: &Prims,
    placed: &[Option<Placement>],
    measured: BakedAsset,
) -> Result<BakedAsset, BakeError> {
    if options.additive.is_empty() {
        return Ok(measured);
    }
    let (asset, _) = bake_rows(model, options, palette, prims.clone(), placed, None, true)?;
    Ok(asset)
}

/// Replaces every additive clip's skin matrices by `Δ = S_ref⁻¹ · S` (docs/design.md §4
/// "Layer masks and additive layers"), `S_ref` sampled at the clip's reference time, and marks
/// the clip additive in the frame table.
fn make_additive(
    model: &Model,
    options: &BakeOptions,
    palette: &Palette,
    clip_infos: &mut [ClipInfo],
    matrices: &mut [Mat4],
) -> Result<(), BakeError> {
    let entries = palette.entries.len();
    for (name, &t_ref) in &options.additive {
        let Some(c) = model.clips.iter().position(|c| &c.name == name) else {
            continue; // check_clip_names reported it
        };
        let d = clip_duration(&model.clips[c]) as f32;
        let time = t_ref.min(d);
        let row = RowTime {
            clip: Some(c),
            frame: 0,
            time,
        };
        let (reference, _) = sample(model, palette, &[row], &[], None);
        let mut inverse = Vec::with_capacity(entries);
        for (j, s) in reference.iter().enumerate() {
            let det = s.determinant();
            if !(det.is_finite() && det.abs() > 1e-12) {
                return Err(BakeError::SingularReference {
                    file: options.source_name.clone(),
                    clip: name.clone(),
                    time,
                    entry: j,
                    node: palette.entries[j].name.clone(),
                });
            }
            inverse.push(s.inverse());
        }
        let info = &mut clip_infos[c];
        let (a, b) = (
            info.first_row as usize,
            (info.first_row + info.frames) as usize,
        );
        for r in a..b {
            for (m, inv) in matrices[r * entries..(r + 1) * entries]
                .iter_mut()
                .zip(&inverse)
            {
                *m = *inv * *m;
            }
        }
        info.additive = Some(time);
    }
    Ok(())
}

/// Rate of the coarse bake that estimates the error at sample times before placing frames.
const PROBE_FPS: f64 = 10.0;
/// The estimate times this comes off the budget.
const PROBE_MARGIN: f64 = 1.5;

/// Per clip, the largest error at the sample times of `asset` in the budget's unit.
fn at_sample_errors(
    asset: &BakedAsset,
    model: &Model,
    budget: MaxError,
) -> Result<Vec<f64>, BakeError> {
    let fid =
        crate::verify::verify_bone_texture(asset, model).map_err(|e| BakeError::InvalidModel {
            file: asset.source_name.clone(),
            what: format!("measuring the bake at its sample times: {e}"),
        })?;
    Ok(fid
        .iter()
        .map(|f| match budget {
            MaxError::Relative(_) => f.max_rel_samples,
            MaxError::Absolute(_) => f.max_abs_samples,
        })
        .collect())
}

/// The budget's number: a fraction of the diagonal or file units.
fn budget_value(b: MaxError) -> f64 {
    match b {
        MaxError::Relative(r) | MaxError::Absolute(r) => r,
    }
}

/// Every baked vertex with every source influence, for [`budget::place`].
fn reference_skin(prims: &[BakedPrimitive], full: &[FullInfluences]) -> ReferenceSkin {
    let mut skin = ReferenceSkin {
        positions: Vec::new(),
        offsets: vec![0],
        entries: Vec::new(),
        weights: Vec::new(),
    };
    for (p, f) in prims.iter().zip(full) {
        skin.positions.extend_from_slice(&p.positions);
        let base = skin.entries.len() as u32;
        skin.offsets.extend(f.offsets[1..].iter().map(|o| base + o));
        skin.entries.extend_from_slice(&f.entries);
        skin.weights.extend_from_slice(&f.weights);
    }
    skin
}

/// Places the frames of the clips in `which` under `budget` less each clip's `reserve` (in the
/// budget's unit); the others (and clips with a per-clip fps, or of zero length) get `None`.
#[allow(clippy::too_many_arguments)]
fn place_clips(
    model: &Model,
    options: &BakeOptions,
    palette: &Palette,
    skin: &ReferenceSkin,
    budget: MaxError,
    which: &[usize],
    reserve: &[f64],
    progress: Option<Progress<'_>>,
) -> Vec<Option<Placement>> {
    let durations: Vec<f64> = model.clips.iter().map(clip_duration).collect();
    let total_ms: u64 = which.iter().map(|&c| (durations[c] * 1e3) as u64).sum();
    let mut done_ms = 0u64;
    let mut out = vec![None; model.clips.len()];
    for &c in which {
        let clip = &model.clips[c];
        let fixed = options.clip_settings.get(&clip.name).and_then(|s| s.fps);
        if fixed.is_some() || durations[c] <= 0.0 {
            continue;
        }
        let full = budget_value(budget);
        // The sampled matrices' own error comes off the budget, but never more than half
        // (check_options made `full` positive).
        let left = (full - reserve[c]).max(0.5 * full);
        let job = budget::Job {
            model,
            palette,
            skin,
            clip: c,
            duration: durations[c],
            budget: match budget {
                MaxError::Relative(_) => MaxError::Relative(left),
                MaxError::Absolute(_) => MaxError::Absolute(left),
            },
        };
        let base = done_ms;
        let tick = |placed_s: f64| {
            if let Some(p) = progress {
                p(Stage::Placing, base + (placed_s * 1e3) as u64, total_ms);
            }
        };
        out[c] = Some(budget::place(&job, &tick));
        done_ms += (durations[c] * 1e3) as u64;
    }
    out
}

/// Per clip, the two parts of a budgeted bake's error in the budget's unit: between samples
/// (the placement's re-check) and at the samples (encoding and influence cut, measured by
/// [`crate::verify`]). `None` for clips that were not placed.
fn error_parts(
    asset: &BakedAsset,
    model: &Model,
    placed: &[Option<Placement>],
    budget: MaxError,
) -> Result<Vec<Option<ErrorParts>>, BakeError> {
    let at = at_sample_errors(asset, model, budget)?;
    Ok(placed
        .iter()
        .zip(at)
        .map(|(p, at_samples)| {
            p.as_ref().map(|p| {
                let between = match budget {
                    MaxError::Relative(_) => p.max_rel,
                    MaxError::Absolute(_) => p.max_abs,
                };
                ErrorParts {
                    between,
                    at_samples,
                    budget: budget_value(budget),
                    in_file_units: matches!(budget, MaxError::Absolute(_)),
                    unmet: p.unmet.clone(),
                }
            })
        })
        .collect())
}

/// Puts the error parts into the report, with a warning per clip that misses the budget.
fn with_parts(
    asset: BakedAsset,
    mut report: BakeReport,
    parts: Vec<Option<ErrorParts>>,
    budget: MaxError,
    influences: u32,
) -> (BakedAsset, BakeReport) {
    for (c, p) in report.clips.iter_mut().zip(parts) {
        if let Some(p) = &p {
            let full = budget_value(budget);
            if p.at_samples > 0.5 * full {
                report.warnings.push(format!(
                    "clip '{}': the error at the sample times alone is {:.2e} (the encoding's and the {influences}-influence cut's), more than {} the budget {}; bake with --influences 8 or a finer encoding to leave room between frames",
                    c.name,
                    p.at_samples,
                    if p.at_samples > full { "all of" } else { "half of" },
                    budget.as_setting(),
                ));
            }
            for &(a, b, e) in &p.unmet {
                report.warnings.push(format!(
                    "clip '{}': between {a:.4} s and {b:.4} s the motion jumps (a step key or a discontinuity in the source); no frame spacing meets the budget there (error {e:.3e} file units)",
                    c.name
                ));
            }
        }
        c.error = p;
    }
    (asset, report)
}

/// Duration of a clip in seconds as the frame table uses it (0 for a non-finite or negative
/// one).
fn clip_duration(clip: &throng_anim::Clip) -> f64 {
    if clip.duration.is_finite() && clip.duration > 0.0 {
        clip.duration as f64
    } else {
        0.0
    }
}

type Prims = (Vec<BakedPrimitive>, Vec<FullInfluences>, InfluenceStats);

/// The bake once its frame times are known: `placed[c]`, when given, holds clip c's frame times.
fn bake_rows(
    model: &Model,
    options: &BakeOptions,
    palette: &Palette,
    prims: Prims,
    placed: &[Option<Placement>],
    progress: Option<Progress<'_>>,
    additive: bool,
) -> Result<(BakedAsset, BakeReport), BakeError> {
    let file = options.source_name.as_str();
    let entries = palette.entries.len();
    let masks = crate::masks::build(model, palette, &options.masks, file)?;
    let (clip_infos, clip_reports, rows) = frame_table(model, options, placed, file)?;
    let row_count = rows.len();

    // Anchors and the motion root: nodes whose model-space transform is sampled with each row.
    let anchor_list = anchors::resolve(model, &options.anchors, file)?;
    let motion_root = root_motion::motion_root(model, palette, &options.root_motion, file)?;
    let mut extra_nodes: Vec<usize> = anchor_list.iter().map(|a| a.node).collect();
    extra_nodes.extend(motion_root);

    // Sample every row's skin matrices in parallel (one Poser per worker).
    let (mut matrices, extra) = sample(model, palette, &rows, &extra_nodes, progress);
    check_finite(model, palette, &rows, &matrices, file)?;
    let k = extra_nodes.len();
    let mut clip_infos = clip_infos;
    let corrections = motion_root.is_some().then(|| {
        let root: Vec<Mat4> = (0..row_count).map(|r| extra[r * k + k - 1]).collect();
        remove_root_motion(&root, &mut clip_infos, &mut matrices, entries)
    });
    let anchor_texture = (!anchor_list.is_empty())
        .then(|| anchor_table(&anchor_list, &extra, k, corrections.as_deref(), row_count));

    let (primitives, full, infl_stats) = prims;
    let mut warnings = influence_warnings(&infl_stats, options.influences);
    warnings.extend(static_mesh_warning(model));
    // Bounds per row: reference LBS with every source influence and the sampled matrices.
    let row_bounds = row_bounds(&matrices, entries, &primitives, &full);
    for c in &mut clip_infos {
        let (a, b) = (c.first_row as usize, (c.first_row + c.frames) as usize);
        c.bounds = row_bounds[a..b]
            .iter()
            .fold(Aabb::EMPTY, |acc, r| acc.union(r));
    }
    // Additive clips: deltas in the bone texture; LODs and VATs keep the poses.
    let poses = (additive && !options.additive.is_empty()).then(|| matrices.clone());
    if poses.is_some() {
        make_additive(model, options, palette, &mut clip_infos, &mut matrices)?;
    }
    let encoded = bone_texture(model, palette, &rows, &matrices, options)?;
    warnings.extend(encoded.warnings);
    let bone_texture = encoded.texture;
    let layers = bone_texture.layers();

    // LODs and vertex animation textures from the final matrices (lod.rs, vat.rs).
    let primitives = crate::vat::attach_extras(
        model,
        poses.as_deref().unwrap_or(&matrices),
        entries,
        primitives,
        options,
    )?;
    let (primitives, materials, images) = materials(model, primitives);
    let report = BakeReport {
        palette_size: entries,
        rigid_entries: palette.entries.iter().filter(|e| e.rigid).count(),
        primitives: primitives.len(),
        rows: row_count as u32,
        layers,
        encoding: encoded.encoding,
        fallback: encoded.fallback,
        clips: clip_reports,
        texture_bytes: bone_texture.byte_len(),
        max_dropped_weight: infl_stats.max_dropped,
        vertices_lost_weight: infl_stats.lost,
        zero_weight_vertices: infl_stats.zero,
        renormalised_vertices: infl_stats.renormalised,
        warnings,
    };
    let asset = BakedAsset {
        source_name: options.source_name.clone(),
        settings: BakeSettings {
            fps: options.sampling.as_setting(),
            requested_encoding: options.encoding,
            influences: options.influences,
            max_texture_size: options.max_texture_size,
            root_motion: motion_root.is_some(),
            motion_root,
        },
        palette: palette.entries.clone(),
        clips: clip_infos,
        row_bounds,
        bone_texture,
        primitives,
        materials,
        images,
        anchors: anchor_texture,
        masks,
    };
    Ok((asset, report))
}

/// Every sampled skin matrix must be finite: the error names the first entry and frame that is
/// not.
fn check_finite(
    model: &Model,
    palette: &Palette,
    rows: &[RowTime],
    matrices: &[Mat4],
    file: &str,
) -> Result<(), BakeError> {
    let entries = palette.entries.len().max(1);
    match matrices.par_iter().position_first(|m| !m.is_finite()) {
        None => Ok(()),
        Some(i) => {
            let (e, r) = (i % entries, i / entries);
            Err(BakeError::NonFinite {
                file: file.to_string(),
                entry: e,
                node: palette.entries[e].name.clone(),
                clip: row_clip_name(model, &rows[r]),
                frame: rows[r].frame,
            })
        }
    }
}

/// Root motion (docs/design.md §2): each clip's curve from the motion root's transform per row,
/// and `G⁻¹` per row applied to every skin matrix (hence bounds, the bone texture and VATs, which
/// derive from them). Returns the per-row corrections for the anchors.
fn remove_root_motion(
    root: &[Mat4],
    clip_infos: &mut [ClipInfo],
    matrices: &mut [Mat4],
    entries: usize,
) -> Vec<Mat4> {
    let (curves, corr) = root_motion::extract(root, clip_infos);
    for (c, curve) in clip_infos.iter_mut().zip(curves) {
        c.root_motion = Some(curve);
    }
    matrices
        .par_chunks_mut(entries.max(1))
        .zip(corr.par_iter())
        .for_each(|(m, g)| m.iter_mut().for_each(|x| *x = *g * *x));
    corr
}

/// A warning naming the meshes nothing animates (no skin, not under a joint or an animated
/// node): the bake holds only what moves, so they are not in the asset.
fn static_mesh_warning(model: &Model) -> Option<String> {
    let moved: Vec<usize> = model.mesh_bindings().iter().map(|b| b.node).collect();
    let still: Vec<String> = model
        .nodes
        .iter()
        .enumerate()
        .filter(|(i, n)| n.mesh.is_some() && !moved.contains(i))
        .map(|(i, n)| n.display_name(i))
        .collect();
    if still.is_empty() {
        return None;
    }
    let shown: Vec<&str> = still.iter().take(5).map(String::as_str).collect();
    Some(format!(
        "{} mesh node(s) that nothing animates are not baked (no skin, not under a joint or an animated node): {}{}; draw them as ordinary static meshes",
        still.len(),
        shown.join(", "),
        if still.len() > 5 { ", …" } else { "" }
    ))
}

/// The warnings of the influence repairs (docs/design.md §2).
fn influence_warnings(s: &InfluenceStats, influences: u32) -> Vec<String> {
    let mut w = Vec::new();
    if s.zero > 0 {
        w.push(format!(
            "{} vertices had all-zero weights and were bound to their skin's first joint",
            s.zero
        ));
    }
    if s.renormalised > 0 {
        w.push(format!(
            "{} vertices had weights not summing to 1 (worst sum {:.4}); renormalised",
            s.renormalised, s.worst_sum
        ));
    }
    if s.lost > 0 {
        w.push(format!(
            "{} vertices have more than {influences} influences; the largest weight dropped is {:.4} (bake with 8 influences per vertex to keep more)",
            s.lost, s.max_dropped
        ));
    }
    w
}

/// The bone texture and what went into it.
struct EncodedBones {
    texture: throng_asset::BoneTexture,
    /// The encoding used (the one asked for, or mat3x4-f32 after a fallback).
    encoding: Encoding,
    fallback: Option<Fallback>,
    warnings: Vec<String>,
}

/// Encodes the sampled matrices, falling back from a `quat-*` encoding to `mat3x4-f32` (unless
/// strict) when one cannot hold them (docs/design.md §3 "Bone texture").
fn bone_texture(
    model: &Model,
    palette: &Palette,
    rows: &[RowTime],
    matrices: &[Mat4],
    options: &BakeOptions,
) -> Result<EncodedBones, BakeError> {
    let file = options.source_name.as_str();
    let entries = palette.entries.len();
    let continues: Vec<bool> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| i > 0 && r.clip.is_some() && r.frame > 0)
        .collect();
    let mut encoding = options.encoding;
    let mut fallback = None;
    let mut quats = None;
    let mut warnings = Vec::new();
    if encoding.is_quat() {
        match encode::quat_table(matrices, entries, &continues) {
            Ok(q) => quats = Some(q),
            Err(QuatFailure { entry, row, why }) => {
                let pe = &palette.entries[entry];
                let clip = row_clip_name(model, &rows[row]);
                if options.strict {
                    return Err(BakeError::EncodingUnsupported {
                        file: file.to_string(),
                        encoding,
                        entry,
                        node: pe.name.clone(),
                        clip,
                        frame: rows[row].frame,
                        why,
                    });
                }
                warnings.push(format!(
                    "{} cannot hold palette entry {entry} (node '{}') in clip '{clip}' frame {}: {why}; fell back to mat3x4-f32",
                    encoding.as_str(),
                    pe.name,
                    rows[row].frame
                ));
                fallback = Some(Fallback {
                    requested: encoding,
                    used: Encoding::Mat3x4F32,
                    entry,
                    node: pe.node,
                    node_name: pe.name.clone(),
                    clip,
                    frame: rows[row].frame,
                    why,
                });
                encoding = Encoding::Mat3x4F32;
                check_width(file, entries, encoding, options.max_texture_size)?;
            }
        }
    }
    let texture = encode::encode(
        encoding,
        matrices,
        quats.as_deref(),
        entries,
        rows.len(),
        options.max_texture_size,
    )
    .map_err(|(entry, row)| BakeError::EncodingUnsupported {
        file: file.to_string(),
        encoding,
        entry,
        node: palette.entries[entry].name.clone(),
        clip: row_clip_name(model, &rows[row]),
        frame: rows[row].frame,
        why: format!("a value exceeds the f16 range (±{})", encode::F16_MAX),
    })?;
    let layers = texture.layers();
    if layers > WEBGPU_DEFAULT_MAX_LAYERS {
        warnings.push(format!(
            "the bone texture needs {layers} array layers of {} rows, more than WebGPU's default limit of {WEBGPU_DEFAULT_MAX_LAYERS}; it needs an adapter with a higher maxTextureArrayLayers",
            options.max_texture_size
        ));
    }
    Ok(EncodedBones {
        texture,
        encoding,
        fallback,
        warnings,
    })
}

fn check_options(o: &BakeOptions) -> Result<(), BakeError> {
    let bad = |what: String| BakeError::InvalidOption {
        file: o.source_name.clone(),
        what,
    };
    if o.influences != 4 && o.influences != 8 {
        return Err(bad(format!(
            "influences per vertex must be 4 or 8, not {}",
            o.influences
        )));
    }
    if o.max_texture_size == 0 {
        return Err(bad("the maximum texture size must be at least 1".into()));
    }
    if !o.additive.is_empty() && o.root_motion != crate::RootMotion::None {
        return Err(bad(
            "additive clips cannot be baked with root-motion extraction (the delta would carry the removed motion); bake them without it".into(),
        ));
    }
    for (clip, t) in &o.additive {
        if !(t.is_finite() && *t >= 0.0) {
            return Err(bad(format!(
                "additive clip {clip:?}: the reference time must be a finite number of seconds >= 0, not {t}"
            )));
        }
    }
    match o.sampling {
        Sampling::Fixed(f) if !(f.is_finite() && f > 0.0) => {
            return Err(bad(format!("fps must be a positive number, not {f}")));
        }
        Sampling::MaxError(MaxError::Relative(r)) if !(r.is_finite() && r > 0.0 && r < 1.0) => {
            return Err(bad(format!(
                "--max-error must be a fraction of the bounding diagonal between 0 and 1, not {r}"
            )));
        }
        Sampling::MaxError(MaxError::Absolute(a)) if !(a.is_finite() && a > 0.0) => {
            return Err(bad(format!(
                "--max-error must be a positive length, not {a} file units"
            )));
        }
        _ => {}
    }
    Ok(())
}

fn check_width(file: &str, entries: usize, enc: Encoding, max: u32) -> Result<(), BakeError> {
    let width = entries as u64 * enc.texels_per_entry() as u64;
    if width > max as u64 {
        return Err(BakeError::TextureTooWide {
            file: file.to_string(),
            entries,
            texels: enc.texels_per_entry(),
            encoding: enc.as_str(),
            width,
            max,
        });
    }
    Ok(())
}

fn row_clip_name(model: &Model, r: &RowTime) -> String {
    match r.clip {
        None => "rest".to_string(),
        Some(c) => model.clips[c].name.clone(),
    }
}

/// Every clip name in the settings must exist (so a typo does not silently do nothing).
fn check_clip_names(model: &Model, o: &BakeOptions, file: &str) -> Result<(), BakeError> {
    for name in o.clip_settings.keys().chain(o.additive.keys()) {
        if !model.clips.iter().any(|c| &c.name == name) {
            let names: Vec<&str> = model.clips.iter().map(|c| c.name.as_str()).collect();
            return Err(BakeError::InvalidOption {
                file: file.to_string(),
                what: format!(
                    "clip settings name clip {name:?}, which the file does not have (clips: {})",
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ),
            });
        }
    }
    Ok(())
}

/// Loop mode and events of one clip: the settings' when given, else the source's. Checks the
/// rate and that every event lies within the clip `[0, d]` seconds; events sorted by time.
fn clip_playback(
    clip: &throng_anim::Clip,
    set: Option<&crate::settings::ClipSettings>,
    fps: f64,
    d: f64,
    file: &str,
) -> Result<(LoopMode, Vec<ClipEvent>), BakeError> {
    let bad = |what: String| BakeError::InvalidOption {
        file: file.to_string(),
        what: format!("clip {:?}: {what}", clip.name),
    };
    if !(fps.is_finite() && fps > 0.0) {
        return Err(bad(format!("fps must be a positive number, not {fps}")));
    }
    let mode = set.and_then(|s| s.loop_mode).unwrap_or(clip.loop_mode);
    let mut events: Vec<ClipEvent> = match set.and_then(|s| s.events.as_ref()) {
        Some(ev) => {
            let mut out = Vec::with_capacity(ev.len());
            for e in ev {
                let t = e.time as f64;
                // 1 µs of slack for times written with fewer digits than the duration.
                if !(t.is_finite() && (-1e-6..=d + 1e-6).contains(&t)) {
                    return Err(bad(format!(
                        "event {:?} at {} s lies outside the clip (0 to {d} s)",
                        e.name, e.time
                    )));
                }
                if e.name.is_empty() {
                    return Err(bad(format!("the event at {} s has an empty name", e.time)));
                }
                out.push(ClipEvent {
                    time: e.time.clamp(0.0, d as f32),
                    name: e.name.clone(),
                });
            }
            out
        }
        None => clip
            .events
            .iter()
            .map(|e| ClipEvent {
                time: e.time,
                name: e.name.clone(),
            })
            .collect(),
    };
    events.sort_by(|a, b| a.time.total_cmp(&b.time));
    Ok((mode, events))
}

type FrameTable = (Vec<ClipInfo>, Vec<ClipReport>, Vec<RowTime>);

/// Frame times of one clip: uniform `(frames, fps)` or an explicit increasing list.
enum ClipTimes {
    Uniform(u64, f64),
    Listed(Vec<f32>),
}

/// Row 0 = rest, then each clip's frames (docs/design.md §3): uniform at a rate, on the source's
/// keys, or at the times `placed` gives.
fn frame_table(
    model: &Model,
    o: &BakeOptions,
    placed: &[Option<Placement>],
    file: &str,
) -> Result<FrameTable, BakeError> {
    let mut rows = vec![RowTime {
        clip: None,
        frame: 0,
        time: 0.0,
    }];
    let mut infos = Vec::with_capacity(model.clips.len());
    let mut reports = Vec::with_capacity(model.clips.len());
    let mut total: u64 = 1;
    for (ci, clip) in model.clips.iter().enumerate() {
        let set = o.clip_settings.get(&clip.name);
        let d = clip_duration(clip);
        let key_rate = frames::key_rate(clip);
        let (times, sampling) = match (set.and_then(|s| s.fps), o.sampling, placed.get(ci)) {
            (Some(f), _, _) => (
                ClipTimes::Uniform(frame_count(d, f), f),
                format!("{f} fps (clip setting)"),
            ),
            (None, Sampling::Fixed(f), _) => {
                (ClipTimes::Uniform(frame_count(d, f), f), format!("{f} fps"))
            }
            (None, Sampling::SourceKeys, _) => {
                let t = frames::key_times(clip, d);
                let n = t.len() as u64;
                let what = "source keys".to_string();
                if frames::is_uniform(&t) {
                    // The nominal key rate when it gives this count (30, not 30.0000014).
                    let fps = match key_rate {
                        Some(r) if frame_count(d, r) == n => r,
                        _ if d > 0.0 => (n - 1) as f64 / d,
                        _ => crate::options::DEFAULT_FPS,
                    };
                    (ClipTimes::Uniform(n, fps), what)
                } else {
                    (ClipTimes::Listed(t), what)
                }
            }
            (None, Sampling::MaxError(e), Some(Some(p))) => (
                ClipTimes::Listed(p.times.clone()),
                format!("max-error {}", e.as_setting()),
            ),
            // A zero-length clip under a budget: one frame.
            (None, Sampling::MaxError(e), _) => (
                ClipTimes::Uniform(1, crate::options::DEFAULT_FPS),
                format!("max-error {}", e.as_setting()),
            ),
        };
        let fps = match &times {
            ClipTimes::Uniform(_, f) => *f,
            ClipTimes::Listed(t) => (t.len() - 1) as f64 / d,
        };
        let (loop_mode, events) = clip_playback(clip, set, fps, d, file)?;
        let n = match &times {
            ClipTimes::Uniform(n, _) => *n,
            ClipTimes::Listed(t) => t.len() as u64,
        };
        if total + n > MAX_ROWS {
            return Err(BakeError::TooManyRows {
                file: file.to_string(),
                rows: total + n,
            });
        }
        let first_row = total as u32;
        for k in 0..n {
            let time = match &times {
                ClipTimes::Uniform(..) => frame_time(k, n, d) as f32,
                ClipTimes::Listed(t) => t[k as usize],
            };
            rows.push(RowTime {
                clip: Some(ci),
                frame: k as u32,
                time,
            });
        }
        total += n;
        let listed = match times {
            ClipTimes::Listed(t) => Some(t),
            ClipTimes::Uniform(..) => None,
        };
        let (min_step, max_step) = step_range(listed.as_deref(), n, d);
        infos.push(ClipInfo {
            times: listed,
            name: clip.name.clone(),
            first_row,
            frames: n as u32,
            fps,
            step: frame_step(n, d),
            duration: d,
            loop_mode,
            events,
            root_motion: None,
            bounds: Aabb::EMPTY,
            additive: None,
        });
        reports.push(ClipReport {
            name: clip.name.clone(),
            fps,
            key_rate,
            sampling,
            frames: n as u32,
            first_row,
            duration: d,
            min_step,
            max_step,
            error: None,
        });
    }
    Ok((infos, reports, rows))
}

/// Shortest and longest interval between frames (seconds; 0 for one frame).
fn step_range(listed: Option<&[f32]>, n: u64, d: f64) -> (f64, f64) {
    match listed {
        Some(t) if t.len() > 1 => t.windows(2).fold((f64::INFINITY, 0.0f64), |(lo, hi), w| {
            let s = w[1] as f64 - w[0] as f64;
            (lo.min(s), hi.max(s))
        }),
        _ => {
            let s = frame_step(n, d);
            (s, s)
        }
    }
}

/// Skin matrices `S_j = W_j · IBM_j` of every palette entry at every row, row-major; and the
/// model-space transforms of `extra` nodes (anchors, motion root) at every row, row-major.
fn sample(
    model: &Model,
    palette: &Palette,
    rows: &[RowTime],
    extra: &[usize],
    progress: Option<Progress<'_>>,
) -> (Vec<Mat4>, Vec<Mat4>) {
    let entries = palette.entries.len();
    let mut out = vec![Mat4::IDENTITY; rows.len() * entries];
    // One slot per row even without extra nodes (chunks cannot be empty).
    let k = extra.len().max(1);
    let mut nodes = vec![Mat4::IDENTITY; rows.len() * k];
    let done = AtomicU64::new(0);
    let total = rows.len() as u64;
    out.par_chunks_mut(entries.max(1))
        .zip(nodes.par_chunks_mut(k))
        .zip(rows.par_iter())
        .for_each_init(
            || Poser::new(model),
            |poser, ((dst, dst_nodes), r)| {
                let ms = poser.pose(model, r.clip, r.time);
                for (d, e) in dst.iter_mut().zip(&palette.entries) {
                    *d = ms[e.node] * e.inverse_bind_matrix;
                }
                for (d, &n) in dst_nodes.iter_mut().zip(extra) {
                    *d = ms[n];
                }
                if let Some(p) = progress {
                    let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                    if n.is_multiple_of(256) || n == total {
                        p(Stage::Sampling, n, total);
                    }
                }
            },
        );
    (out, nodes)
}

/// The anchor texture (`mat3x4-f32`): per row and anchor the 3 rows of the affine part of
/// `G⁻¹ · M` (model space, root motion removed when `corrections` is given).
fn anchor_table(
    anchors: &[throng_asset::AnchorInfo],
    extra: &[Mat4],
    k: usize,
    corrections: Option<&[Mat4]>,
    rows: usize,
) -> AnchorTexture {
    let mut data = Vec::with_capacity(rows * anchors.len() * 12);
    for r in 0..rows {
        for a in 0..anchors.len() {
            let mut m = extra[r * k + a];
            if let Some(c) = corrections {
                m = c[r] * m;
            }
            for row in 0..3 {
                for col in 0..4 {
                    data.push(m.col(col)[row]);
                }
            }
        }
    }
    AnchorTexture {
        anchors: anchors.to_vec(),
        rows: rows as u32,
        data,
    }
}

#[derive(Default, Clone, Copy)]
struct InfluenceStats {
    zero: usize,
    renormalised: usize,
    worst_sum: f32,
    lost: usize,
    max_dropped: f32,
}

/// Baked primitives (materials still in source indices) and their full palette-space influences.
fn primitives(
    model: &Model,
    palette: &Palette,
    o: &BakeOptions,
    file: &str,
) -> Result<(Vec<BakedPrimitive>, Vec<FullInfluences>, InfluenceStats), BakeError> {
    let k = o.influences as usize;
    let mut out = Vec::new();
    let mut full_all = Vec::new();
    let mut stats = InfluenceStats {
        worst_sum: 1.0,
        ..Default::default()
    };
    for (bi, b) in palette.bindings.iter().enumerate() {
        let node_name = model.nodes[b.node].display_name(b.node);
        for (pi, prim) in model.meshes[b.mesh].primitives.iter().enumerate() {
            let bad = |what: String| BakeError::BadPrimitive {
                file: file.to_string(),
                node: node_name.clone(),
                mesh: b.mesh,
                primitive: pi,
                what,
            };
            let v = prim.vertex_count();
            if prim.normals.len() != v
                || prim.tangents.as_ref().is_some_and(|t| t.len() != v)
                || prim.uv0.as_ref().is_some_and(|t| t.len() != v)
            {
                return Err(bad("attribute counts differ from the position count".into()));
            }
            if let Some(i) = prim.indices.iter().find(|&&i| i as usize >= v) {
                return Err(bad(format!("index {i} is out of range ({v} vertices)")));
            }
            if prim.joint_sets.iter().any(|s| s.len() != v)
                || prim.weight_sets.iter().any(|s| s.len() != v)
            {
                return Err(bad("a JOINTS_n/WEIGHTS_n set has the wrong length".into()));
            }
            let (infl, rep) = throng_anim::binding_influences(b, prim);
            stats.zero += rep.zero_weight_vertices;
            stats.renormalised += rep.renormalised_vertices;
            if (rep.worst_sum - 1.0).abs() > (stats.worst_sum - 1.0).abs() {
                stats.worst_sum = rep.worst_sum;
            }
            let (full, joints, weights) =
                remap(&infl, palette, bi, k, &mut stats).map_err(|(vtx, j)| {
                    bad(format!(
                        "vertex {vtx} uses joint {j}, which its skin does not have"
                    ))
                })?;
            full_all.push(full);
            out.push(BakedPrimitive {
                node_index: b.node,
                mesh: b.mesh,
                primitive: pi,
                rigid: matches!(b.kind, throng_anim::BindingKind::Rigid),
                positions: prim.positions.clone(),
                normals: prim.normals.clone(),
                tangents: prim.tangents.clone(),
                uv0: prim.uv0.clone(),
                influences: k as u32,
                joints,
                weights,
                indices: prim.indices.clone(),
                material: prim.material,
                lods: Vec::new(),
                vat: None,
            });
        }
    }
    Ok((out, full_all, stats))
}

type Remapped = (FullInfluences, Vec<u16>, Vec<u16>);

/// Remaps one primitive's influences into the palette, merging, sorting and cutting to K.
/// Errors with (vertex, joint) for a joint the skin does not have.
fn remap(
    infl: &Influences,
    palette: &Palette,
    binding: usize,
    k: usize,
    stats: &mut InfluenceStats,
) -> Result<Remapped, (usize, u16)> {
    let n = infl.vertex_count();
    let mut full = FullInfluences {
        offsets: Vec::with_capacity(n + 1),
        entries: Vec::new(),
        weights: Vec::new(),
    };
    full.offsets.push(0);
    let (mut joints, mut weights) = (Vec::with_capacity(n * k), Vec::with_capacity(n * k));
    let mut list = Vec::new();
    for v in 0..n {
        list.clear();
        for (j, w) in infl.of(v) {
            let e = palette.entry_of(binding, j).ok_or((v, j))?;
            list.push((e, w));
        }
        merge_and_sort(&mut list);
        for &(e, w) in &list {
            full.entries.push(e);
            full.weights.push(w);
        }
        full.offsets.push(full.entries.len() as u32);
        let (j, w, dropped) = cut_vertex(&list, k);
        if list.len() > k {
            stats.lost += 1;
            stats.max_dropped = stats.max_dropped.max(dropped);
        }
        joints.extend_from_slice(&j);
        weights.extend_from_slice(&w);
    }
    Ok((full, joints, weights))
}

/// Model-space AABB of every skinned vertex per row (reference LBS with all influences).
fn row_bounds(
    matrices: &[Mat4],
    entries: usize,
    prims: &[BakedPrimitive],
    full: &[FullInfluences],
) -> Vec<Aabb> {
    matrices
        .par_chunks(entries.max(1))
        .map(|s| {
            let mut bb = Aabb::EMPTY;
            for (p, f) in prims.iter().zip(full) {
                for (v, &pos) in p.positions.iter().enumerate() {
                    let (a, b) = (f.offsets[v] as usize, f.offsets[v + 1] as usize);
                    let mut q = Vec3::ZERO;
                    for i in a..b {
                        q += s[f.entries[i] as usize].transform_point3(pos) * f.weights[i];
                    }
                    bb.extend(q);
                }
            }
            bb
        })
        .collect()
}

/// A source material's base colour factor (linear RGBA) and its base colour texture's
/// KHR_texture_transform (identity without a texture), as the baked asset stores them.
pub fn material_factors(m: &throng_anim::Material) -> ([f32; 4], TextureTransform) {
    let transform = m
        .base_color_texture
        .as_ref()
        .map(|t| TextureTransform {
            offset: t.transform.offset.to_array(),
            rotation: t.transform.rotation,
            scale: t.transform.scale.to_array(),
        })
        .unwrap_or_default();
    (m.base_color_factor.to_array(), transform)
}

/// Copies the materials (and their images, still encoded) that the primitives use, renumbered in
/// order of first use.
fn materials(
    model: &Model,
    mut prims: Vec<BakedPrimitive>,
) -> (Vec<BakedPrimitive>, Vec<BakedMaterial>, Vec<BakedImage>) {
    let mut mat_map: Vec<Option<usize>> = vec![None; model.materials.len()];
    let mut img_map: Vec<Option<usize>> = vec![None; model.images.len()];
    let (mut mats, mut imgs) = (Vec::new(), Vec::new());
    for p in &mut prims {
        let Some(m) = p.material else { continue };
        let Some(src) = model.materials.get(m) else {
            p.material = None;
            continue;
        };
        if mat_map[m].is_none() {
            let tex = src.base_color_texture.as_ref();
            let image = tex.and_then(|t| {
                let img = model.images.get(t.image)?;
                Some(*img_map[t.image].get_or_insert_with(|| {
                    imgs.push(BakedImage {
                        mime_type: img.mime_type.clone(),
                        bytes: img.encoded.clone(),
                    });
                    imgs.len() - 1
                }))
            });
            let (base_color_factor, texture_transform) = material_factors(src);
            mats.push(BakedMaterial {
                name: src.name.clone(),
                base_color_factor,
                base_color_texture: image,
                texture_transform,
                double_sided: src.double_sided,
            });
            mat_map[m] = Some(mats.len() - 1);
        }
        p.material = mat_map[m];
    }
    (prims, mats, imgs)
}
