//! The bake: model → [`BakedAsset`] and [`BakeReport`] (docs/design.md §3), as a pipeline of
//! stages, each a module that takes its inputs and gives its outputs and keeps nothing:
//!
//! validate → palette → primitives → masks, anchors, motion root → timing → frame table →
//! sample → root motion → anchor texture → bounds → additive → bone texture → mesh extras →
//! materials → variants (their texture files are read and checked right after validation).
//!
//! Deterministic: the same model and options give an identical asset whatever the thread count
//! (parallel work writes to fixed slots; reductions are order-independent maxima).

use crate::error::BakeError;
use crate::frame_table::FrameTable;
use crate::options::{BakeOptions, Sampling};
use crate::primitives::Primitives;
use crate::progress::Progress;
use crate::report::BakeReport;
use crate::{
    additive, anchors, bone_texture, bounds, extras, frame_table, masks, materials, palette,
    primitives, root_motion, sample, timing, validate, variants,
};
use throng_anim::Model;
use throng_asset::BakedAsset;

pub use crate::frame_table::MAX_ROWS;

/// Bakes `model` with `options`. See [`bake_with_progress`].
pub fn bake(model: &Model, options: &BakeOptions) -> Result<(BakedAsset, BakeReport), BakeError> {
    bake_with_progress(model, options, None)
}

/// As [`bake`], calling `progress` while placing frames and sampling (the long parts of large
/// bakes).
pub fn bake_with_progress(
    model: &Model,
    options: &BakeOptions,
    progress: Option<Progress<'_>>,
) -> Result<(BakedAsset, BakeReport), BakeError> {
    let file = options.source_name.as_str();
    validate::options(options)?;
    variants::check_names(model, &options.texture_variants, file)?;
    let variant_textures =
        variants::load(&options.texture_variants, options.max_texture_size, file)?;
    let palette = palette::build(model, file)?;
    validate::against_model(model, &palette, options)?;
    timing::check_lengths(model, options)?;
    let mut chosen = options.clone();
    if chosen.auto_influences {
        chosen.influences = 4;
    }
    let mut prims = primitives::build(model, &palette, &chosen)?;
    // The nodes the options name, found before any long work so that a typo fails fast.
    let masks = masks::build(model, &palette, &options.masks, file)?;
    let anchor_list = anchors::resolve(model, &options.anchors, file)?;
    let motion_root = root_motion::motion_root(model, &palette, &options.root_motion, file)?;
    // Under an error budget, the probe of the sampled matrices' own error; with automatic
    // influences, 8 replace 4 where cutting to 4 crowds the budget and 8 do better.
    let mut probe = None;
    if let Sampling::MaxError(budget) = chosen.sampling {
        let four = timing::Probe::measure(
            &timing::Source::new(model, &chosen, &palette, &prims, motion_root),
            budget,
        )?;
        if chosen.auto_influences && four.crowded(budget).is_some() {
            let mut eight_options = chosen.clone();
            eight_options.influences = 8;
            let eight_prims = primitives::build(model, &palette, &eight_options)?;
            let eight = timing::Probe::measure(
                &timing::Source::new(model, &eight_options, &palette, &eight_prims, motion_root),
                budget,
            )?;
            if eight.worst() < four.worst() {
                (chosen, prims, probe) = (eight_options, eight_prims, Some(eight));
            }
        }
        probe = probe.or(Some(four));
    }
    let options = &chosen;
    let src = timing::Source::new(model, options, &palette, &prims, motion_root);
    let timing = timing::plan(&src, probe, progress)?;
    let mut table = frame_table::build(model, options, &timing.plans)?;
    // Each row also keeps the transforms of the anchors, then of the motion root.
    let tracked: Vec<usize> = anchor_list
        .iter()
        .map(|a| a.node)
        .chain(motion_root)
        .collect();
    let mut sampled = sample::rows(model, &palette, &table.rows, &tracked, file, progress)?;
    let (entries, clips) = (sampled.entries, &mut table.clips);
    let corrections = motion_root.map(|_| {
        let root = sampled.track(tracked.len() - 1);
        root_motion::remove(&root, clips, &mut sampled.matrices, entries)
    });
    let anchor_texture = anchors::texture(&anchor_list, &sampled, corrections.as_deref());
    // Bounds, LODs and VATs hold poses, so they come from the matrices before additive clips
    // turn theirs into deltas; the bone texture holds the deltas.
    let row_bounds = bounds::rows(&prims.reference, &sampled.matrices, entries, clips);
    let poses = additive::apply(model, options, &palette, clips, &mut sampled.matrices)?;
    let bones = bone_texture::encode(model, &palette, &table.rows, &sampled.matrices, options)?;
    let poses = poses.as_deref().unwrap_or(&sampled.matrices);
    let Primitives {
        baked,
        stats,
        mut warnings,
        ..
    } = prims;
    let baked = extras::attach(model, poses, entries, baked, options, &mut warnings)?;
    let (primitives, mut copied) = materials::copy(model, baked);
    let (variants, variant_warnings) =
        variants::build(model, &primitives, &mut copied, &variant_textures, file)?;

    let FrameTable {
        rows,
        clips,
        reports,
    } = table;
    let mut report = BakeReport {
        influences: options.influences,
        palette_size: entries,
        rigid_entries: palette.entries.iter().filter(|e| e.rigid).count(),
        primitives: primitives.len(),
        rows: rows.len() as u32,
        layers: bones.texture.layers(),
        encoding: bones.encoding,
        fallback: bones.fallback,
        clips: reports,
        texture_bytes: bones.texture.byte_len(),
        max_dropped_weight: stats.max_dropped,
        vertices_lost_weight: stats.lost,
        zero_weight_vertices: stats.zero,
        renormalised_vertices: stats.renormalised,
        // The bake's own, then the encoding's, then the budget's.
        warnings: [warnings, bones.warnings, timing.warnings, variant_warnings].concat(),
    };
    let mut asset = BakedAsset {
        source_name: options.source_name.clone(),
        settings: options.settings(motion_root),
        palette: palette.entries,
        clips,
        row_bounds,
        bone_texture: bones.texture,
        primitives,
        materials: copied.materials,
        images: copied.images,
        anchors: anchor_texture,
        masks,
        variants,
        far_tier: None,
    };
    // Drawn from the finished asset, so the far tier shows the rows the mesh tier shows.
    if let Some(settings) = &options.far_tier {
        let (tier, warnings) = crate::far_tier::build(&asset, settings)?;
        report.warnings.extend(warnings);
        asset.far_tier = Some(Box::new(tier));
    }
    Ok((asset, report))
}
