//! Fidelity of a bake (docs/design.md §7): per clip, the distance between baked vertices — decoded on
//! the CPU by `throng_asset::decode`, the twin of the shaders — and full-rate reference linear
//! blend skinning of the source (throng-anim, every influence), at the bake's sample times and
//! between them (halfway, or at n spread times per gap: [`BetweenSamples`]). Errors are given in file units and relative to the
//! bounding diagonal: the diagonal of the AABB of all reference-skinned vertices at the time
//! measured.

use crate::reference::ReferenceSkin;
use glam::{Mat4, Vec3};
use rayon::prelude::*;
use serde::Serialize;
use throng_anim::{
    binding_influences, binding_matrices, skin_lbs, Influences, MeshBinding, Model, Poser,
    SkinnedVertices,
};
use throng_asset::decode::{
    affine_mul, blend_matrix, layer_rows, lbs_point, skin_positions, taps_matrix, unorm16, Skinning,
};
use throng_asset::vat::vat_vertices;
use throng_asset::{BakedAsset, DecodeError, Layer, Vat};

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum VerifyError {
    #[error("{file}: baked primitive {primitive} (node {node}, mesh {mesh}, primitive {source_primitive}) has no match in the source; verify against the file it was baked from")]
    NoSourcePrimitive {
        file: String,
        primitive: usize,
        node: usize,
        mesh: usize,
        source_primitive: usize,
    },
    #[error("{file}: baked primitive {primitive} has {baked} vertices, the source has {source_count}; verify against the file it was baked from")]
    VertexCount {
        file: String,
        primitive: usize,
        baked: usize,
        source_count: usize,
    },
    #[error("{file}: palette entry {entry} is node {node} '{name}', which the source does not have under that name; use the file it was baked from")]
    NoSourceJoint {
        file: String,
        entry: usize,
        node: usize,
        name: String,
    },
    #[error("{file}: baked clip '{clip}' has no clip of that name (or index) in the source; verify with the same animation files bound as for the bake")]
    NoSourceClip { file: String, clip: String },
    #[error("{file}: decoding baked primitive {primitive} in clip '{clip}': {source}")]
    Decode {
        file: String,
        primitive: usize,
        clip: String,
        #[source]
        source: DecodeError,
    },
}

/// Fidelity of one clip of one bake. Relative values are fractions of the bounding diagonal;
/// absolute values are in file units. The `*_mid` values are measured between samples, where
/// [`BetweenSamples`] says (halfway by default); a one-frame clip has none, so they are 0.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClipFidelity {
    pub clip: String,
    pub encoding: String,
    /// The clip's sample rate (frames per second; the mean rate of a frame-time list).
    pub fps: f64,
    /// Frames of the clip, and the bytes they take in the bone texture (for the `vat-*` rows,
    /// in the VATs).
    pub frames: u32,
    pub clip_bytes: usize,
    pub max_rel_samples: f64,
    pub p99_rel_samples: f64,
    pub max_rel_mid: f64,
    pub p99_rel_mid: f64,
    pub max_abs_samples: f64,
    pub p99_abs_samples: f64,
    pub max_abs_mid: f64,
    pub p99_abs_mid: f64,
    /// Largest bounding diagonal seen over the measured times (file units).
    pub diagonal: f64,
    /// Bone-texture bytes per palette entry and row; for the `vat-*` rows, VAT bytes per
    /// vertex and row (position texel + normal texel).
    pub bytes_per_entry_frame: u32,
    pub texture_bytes: usize,
    /// The clip's bytes per palette entry ("bone") per second of clip:
    /// `frames · bytes_per_entry_frame / duration` (0 for a zero-length clip; for the `vat-*`
    /// rows per vertex). The measure of ACL's tables.
    pub bytes_per_bone_second: f64,
    /// How the clip's rows are interpolated (`linear`, `catmull-rom`).
    pub interpolation: String,
    /// Error on a virtual shell around every palette entry's joint (ACL's measure): the six
    /// points [`SHELL_DISTANCE`] file units from the joint along its local axes, each moved by
    /// the decoded skin matrix against the source's, at the sample and the mid-sample times
    /// together; largest and 99th percentile, file units. 0 for the `vat-*` rows (no joints).
    pub max_shell: f64,
    pub p99_shell: f64,
    /// Times measured inside every gap for the `*_mid` figures: 1 halfway, more spread over
    /// the gap ([`BetweenSamples`]).
    pub between_per_gap: u32,
}

/// Distance of the virtual shell points from each joint, file units: 3 cm where the file is in
/// metres, as glTF's are (glTF 2.0 §3.5.4) — the distance ACL's error metric puts its virtual
/// vertices at for ordinary bones (Frechette, "Animation Compression Library", error metric).
pub const SHELL_DISTANCE: f32 = 0.03;

/// Errors of one set of times, absolute and relative to each time's diagonal, gathered in
/// bounded memory (a long clip of a big character has billions of (time, vertex) errors), and
/// the largest diagonal.
#[derive(Default)]
struct Errors {
    abs: Histogram,
    rel: Histogram,
    /// The shell points' errors (file units).
    shell: Histogram,
    diagonal: f64,
}

/// The maximum and nearest-rank percentiles of a stream of errors (≥ 0) in fixed memory: a
/// count per bin of 1/256 of an octave (the exponent and top 8 mantissa bits of the f64), so a
/// percentile is the upper edge of its bin — at most 0.4 % above the exact value, never
/// below — capped by the exact maximum. Values under 2^-80 count as 0, over 2^48 as 2^48 (the
/// maximum stays exact).
#[derive(Clone)]
struct Histogram {
    bins: Vec<u64>,
    zeros: u64,
    count: u64,
    max: f64,
}

const HIST_LO: u64 = (1023 - 80) << 8;
const HIST_HI: u64 = (1023 + 48) << 8;

impl Default for Histogram {
    fn default() -> Histogram {
        Histogram {
            bins: Vec::new(),
            zeros: 0,
            count: 0,
            max: 0.0,
        }
    }
}

impl Histogram {
    fn add(&mut self, x: f64) {
        if self.bins.is_empty() {
            self.bins = vec![0; (HIST_HI - HIST_LO + 1) as usize];
        }
        self.count += 1;
        // NaN (a broken frame) ranks above everything, as `f64::total_cmp` puts it
        let x = if x.is_nan() { f64::INFINITY } else { x };
        self.max = self.max.max(x);
        if x < f64::from_bits(HIST_LO << 44) {
            self.zeros += 1;
            return;
        }
        let b = (x.to_bits() >> 44).clamp(HIST_LO, HIST_HI) - HIST_LO;
        self.bins[b as usize] += 1;
    }

    /// Adds every count of `other` (the same bins): the histogram of both streams.
    fn merge(&mut self, other: &Histogram) {
        if other.count == 0 {
            return;
        }
        if self.bins.is_empty() {
            self.bins = vec![0; other.bins.len()];
        }
        for (a, b) in self.bins.iter_mut().zip(&other.bins) {
            *a += b;
        }
        self.zeros += other.zeros;
        self.count += other.count;
        self.max = self.max.max(other.max);
    }

    /// Nearest-rank percentile `p` ∈ (0, 1]; 0 when empty.
    fn percentile(&self, p: f64) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        let rank = ((p * self.count as f64).ceil() as u64).clamp(1, self.count);
        if rank <= self.zeros {
            return 0.0;
        }
        let mut seen = self.zeros;
        for (b, &n) in self.bins.iter().enumerate() {
            seen += n;
            if seen >= rank {
                let upper = f64::from_bits((HIST_LO + b as u64 + 1) << 44);
                return upper.min(self.max);
            }
        }
        self.max
    }
}

/// Nearest-rank percentile `p` ∈ (0, 1] of `v` (reordered in place, in linear time); 0 for an
/// empty list.
pub fn percentile(v: &mut [f64], p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let rank = ((p * v.len() as f64).ceil() as usize).clamp(1, v.len());
    *v.select_nth_unstable_by(rank - 1, f64::total_cmp).1
}

fn stats(e: Errors) -> (f64, f64, f64, f64, f64) {
    let p99_rel = e.rel.percentile(0.99);
    let p99_abs = e.abs.percentile(0.99);
    (e.rel.max, p99_rel, e.abs.max, p99_abs, e.diagonal)
}

/// The source side of each baked primitive: binding and its full (repaired) influences.
struct SourcePrim<'a> {
    binding: MeshBinding,
    prim: &'a throng_anim::Primitive,
    influences: Influences,
}

fn source_prims<'a>(
    asset: &BakedAsset,
    model: &'a Model,
) -> Result<Vec<SourcePrim<'a>>, VerifyError> {
    let bindings = model.mesh_bindings();
    asset
        .primitives
        .iter()
        .enumerate()
        .map(|(i, bp)| {
            let missing = || VerifyError::NoSourcePrimitive {
                file: asset.source_name.clone(),
                primitive: i,
                node: bp.node_index,
                mesh: bp.mesh,
                source_primitive: bp.primitive,
            };
            let b = bindings
                .iter()
                .find(|b| b.node == bp.node_index && b.mesh == bp.mesh)
                .ok_or_else(missing)?;
            let prim = model
                .meshes
                .get(b.mesh)
                .and_then(|m| m.primitives.get(bp.primitive))
                .ok_or_else(missing)?;
            if prim.vertex_count() != bp.vertex_count() {
                return Err(VerifyError::VertexCount {
                    file: asset.source_name.clone(),
                    primitive: i,
                    baked: bp.vertex_count(),
                    source_count: prim.vertex_count(),
                });
            }
            Ok(SourcePrim {
                binding: *b,
                prim,
                influences: binding_influences(b, prim).0,
            })
        })
        .collect()
}

/// Whether `model` can be the source `asset` was baked from: every palette entry names a node
/// of the source by its index and name, and every baked primitive has its source primitive with
/// as many vertices. Cheap (no skinning); [`verify`] also measures.
pub fn check_source(asset: &BakedAsset, model: &Model) -> Result<(), VerifyError> {
    for (entry, p) in asset.palette.iter().enumerate() {
        let same = model
            .nodes
            .get(p.node)
            .is_some_and(|n| n.display_name(p.node) == p.name);
        if !same {
            return Err(VerifyError::NoSourceJoint {
                file: asset.source_name.clone(),
                entry,
                node: p.node,
                name: p.name.clone(),
            });
        }
    }
    source_prims(asset, model).map(|_| ())
}

/// Where between consecutive samples a clip is measured (the `*_mid` figures of
/// [`ClipFidelity`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BetweenSamples {
    /// Halfway between every two samples.
    #[default]
    Halfway,
    /// `n` times in every gap, at the fractions of the golden-ratio sequence (gap k's j-th at
    /// `frac((k·n + j + 1) / φ)`, φ = (1 + √5) / 2): spread over the open gap, different in
    /// every gap, and the same on every run — quasi-random times without a seed. `n` ≤ 1 is
    /// [`BetweenSamples::Halfway`].
    PerGap(u32),
}

impl BetweenSamples {
    /// Times measured in every gap.
    pub fn per_gap(&self) -> u32 {
        match *self {
            BetweenSamples::Halfway => 1,
            BetweenSamples::PerGap(n) => n.max(1),
        }
    }

    /// The fractions of gap `k` to measure at, each in (0, 1).
    pub fn fractions(&self, k: u32) -> Vec<f64> {
        match *self {
            BetweenSamples::Halfway | BetweenSamples::PerGap(0 | 1) => vec![0.5],
            BetweenSamples::PerGap(n) => {
                let inv_phi = (5f64.sqrt() - 1.0) / 2.0;
                (0..n as u64)
                    .map(|j| ((k as u64 * n as u64 + j + 1) as f64 * inv_phi).fract())
                    .map(|f| f.clamp(1e-6, 1.0 - 1e-6))
                    .collect()
            }
        }
    }
}

/// Measures every clip of `asset` against `model` (the source it was baked from; clips are
/// matched by name, else by index): one row per clip for the bone texture, and one more per clip
/// for the VATs when every primitive has one. Between samples: halfway.
pub fn verify(asset: &BakedAsset, model: &Model) -> Result<Vec<ClipFidelity>, VerifyError> {
    verify_with(asset, model, true, BetweenSamples::Halfway)
}

/// As [`verify`], measured between samples where `between` says.
pub fn verify_between(
    asset: &BakedAsset,
    model: &Model,
    between: BetweenSamples,
) -> Result<Vec<ClipFidelity>, VerifyError> {
    verify_with(asset, model, true, between)
}

/// As [`verify`], the bone texture only: one row per clip, in clip order.
pub fn verify_bone_texture(
    asset: &BakedAsset,
    model: &Model,
) -> Result<Vec<ClipFidelity>, VerifyError> {
    verify_with(asset, model, false, BetweenSamples::Halfway)
}

/// The largest error of the bone texture at every clip's sample times, relative to the
/// bounding diagonal and in file units, in clip order: what [`verify_bone_texture`] gives as
/// `max_rel_samples` and `max_abs_samples` (up to f32 rounding), without the mid-sample times
/// and percentiles. The bake's own measure (`crate::timing`): the reference is `reference`, the
/// bake's reference skin of the same vertices in the same order (every source influence, in
/// palette space), skinned with the source's skin matrices of the asset's palette.
pub fn max_at_samples(
    asset: &BakedAsset,
    model: &Model,
    reference: &ReferenceSkin,
) -> Result<Vec<(f64, f64)>, VerifyError> {
    let mut out = Vec::with_capacity(asset.clips.len());
    for ci in 0..asset.clips.len() {
        let m = ClipMeasure {
            asset,
            model,
            sources: &[],
            clip: ci,
            src_clip: source_clip(asset, model, ci)?,
            between: BetweenSamples::Halfway,
        };
        let clip = &asset.clips[ci];
        let frames: Vec<u32> = (0..clip.frames.max(1)).collect();
        let poser = skinning_poser(asset, model);
        let per_time: Vec<Result<(f64, f64), VerifyError>> = frames
            .par_iter()
            .map_init(
                || (poser.clone(), m.reference_pose()),
                |(poser, s_ref), &k| {
                    let t = clip.frame_time(k);
                    let ms = poser.pose(model, Some(m.src_clip), t as f32);
                    let source: Vec<Mat4> = asset
                        .palette
                        .iter()
                        .map(|e| {
                            ms.get(e.node).copied().unwrap_or(Mat4::IDENTITY)
                                * e.inverse_bind_matrix
                        })
                        .collect();
                    let layer = Layer {
                        weight: 1.0,
                        frac: 0.0,
                        row: (clip.first_row + k) as f32,
                        clip: ci as u32,
                    };
                    let decode_err = |primitive: usize, source: DecodeError| VerifyError::Decode {
                        file: asset.source_name.clone(),
                        primitive,
                        clip: clip.name.clone(),
                        source,
                    };
                    let entry_mats = m
                        .entry_matrices(layer, s_ref.as_deref())
                        .map_err(|e| decode_err(0, e))?;
                    let motion = crate::root_motion::motion_at(clip, k, 0.0);
                    let mut bb = throng_asset::Aabb::EMPTY;
                    let mut abs = 0.0f32;
                    let mut v = 0;
                    for pi in 0..asset.primitives.len() {
                        let baked =
                            skin_baked(asset, pi, &entry_mats).map_err(|e| decode_err(pi, e))?;
                        for b in baked {
                            let b = motion.map_or(b, |g| g.transform_point3(b));
                            let r = reference.vertex(&source, v);
                            bb.extend(r);
                            abs = abs.max((r - b).length());
                            v += 1;
                        }
                    }
                    let diag = if bb.is_empty() {
                        0.0
                    } else {
                        bb.diagonal() as f64
                    };
                    let abs = abs as f64;
                    Ok((if diag > 0.0 { abs / diag } else { 0.0 }, abs))
                },
            )
            .collect();
        let mut worst = (0.0f64, 0.0f64);
        for r in per_time {
            let (rel, abs) = r?;
            worst = (worst.0.max(rel), worst.1.max(abs));
        }
        out.push(worst);
    }
    Ok(out)
}

/// The source clip of baked clip `ci`: by name, else by index.
fn source_clip(asset: &BakedAsset, model: &Model, ci: usize) -> Result<usize, VerifyError> {
    let clip = &asset.clips[ci];
    // the same index first: a file baked before names were made unique may repeat one
    let same_index = model.clips.get(ci).is_some_and(|c| c.name == clip.name);
    same_index
        .then_some(ci)
        .or_else(|| model.clips.iter().position(|c| c.name == clip.name))
        .or_else(|| (ci < model.clips.len()).then_some(ci))
        .ok_or_else(|| VerifyError::NoSourceClip {
            file: asset.source_name.clone(),
            clip: clip.name.clone(),
        })
}

fn verify_with(
    asset: &BakedAsset,
    model: &Model,
    with_vat: bool,
    between: BetweenSamples,
) -> Result<Vec<ClipFidelity>, VerifyError> {
    let sources = source_prims(asset, model)?;
    let tex = &asset.bone_texture;
    // VAT rows (encoding `vat-<storage>`) when every primitive has a VAT.
    let vats: Vec<&Vat> = asset
        .primitives
        .iter()
        .filter_map(|p| p.vat.as_ref())
        .collect();
    let vat = match vats.first() {
        Some(first) if with_vat && vats.len() == asset.primitives.len() => Some(first.encoding),
        _ => None,
    };
    let mut out = Vec::with_capacity(asset.clips.len());
    for (ci, clip) in asset.clips.iter().enumerate() {
        let src_clip = source_clip(asset, model, ci)?;
        let m = ClipMeasure {
            asset,
            model,
            sources: &sources,
            clip: ci,
            src_clip,
            between,
        };
        out.push(m.row(&Storage {
            vat: false,
            encoding: tex.encoding.as_str().to_string(),
            bytes_per_entry_frame: tex.encoding.bytes_per_entry_frame(),
            texture_bytes: tex.byte_len(),
            clip_bytes: clip.frames as usize
                * asset.palette.len()
                * tex.encoding.bytes_per_entry_frame() as usize,
        })?);
        if let Some(encoding) = vat {
            // Per vertex-frame: position texel + normal texel.
            let per = encoding.bytes_per_texel() + throng_asset::VAT_NORMAL_BYTES_PER_TEXEL;
            let vertices: usize = asset.primitives.iter().map(|p| p.vertex_count()).sum();
            out.push(m.row(&Storage {
                vat: true,
                encoding: format!("vat-{}", encoding.as_str()),
                bytes_per_entry_frame: per,
                texture_bytes: vats.iter().map(|v| v.byte_len()).sum(),
                clip_bytes: clip.frames as usize * vertices * per as usize,
            })?);
        }
    }
    Ok(out)
}

/// What a result row measures — the bone texture or the VATs — and what it costs.
struct Storage {
    /// Decode the primitives' VATs (`throng_asset::vat`) instead of the bone texture.
    vat: bool,
    encoding: String,
    bytes_per_entry_frame: u32,
    texture_bytes: usize,
    clip_bytes: usize,
}

/// One baked clip and its source clip, measured.
struct ClipMeasure<'a> {
    asset: &'a BakedAsset,
    model: &'a Model,
    sources: &'a [SourcePrim<'a>],
    /// The baked clip's index, and its source clip's.
    clip: usize,
    src_clip: usize,
    between: BetweenSamples,
}

/// A time to measure at: clip time in seconds, the frame, and the fraction towards the next.
type At = (f64, u32, f32);

impl ClipMeasure<'_> {
    /// The clip's result row for `storage`: at the samples and between them.
    fn row(&self, storage: &Storage) -> Result<ClipFidelity, VerifyError> {
        let clip = &self.asset.clips[self.clip];
        let n = clip.frames.max(1);
        // Frame times from the clip's own list when it has one (docs/design.md §3).
        let samples: Vec<At> = (0..n).map(|k| (clip.frame_time(k), k, 0.0)).collect();
        // Frames one f32 step apart (the two around a STEP key) have no clip time between them.
        // Time and frac are in proportion inside a gap (the time rules, docs/design.md §3).
        let mids: Vec<At> = (0..n.saturating_sub(1))
            .filter(|&k| (clip.frame_time(k + 1) as f32) > (clip.frame_time(k) as f32).next_up())
            .flat_map(|k| {
                let (a, b) = (clip.frame_time(k), clip.frame_time(k + 1));
                self.between
                    .fractions(k)
                    .into_iter()
                    .map(move |f| (a + (b - a) * f, k, f as f32))
            })
            .collect();
        let (at_samples, at_mids) = (
            self.errors(&samples, storage.vat)?,
            self.errors(&mids, storage.vat)?,
        );
        let mut shell = at_samples.shell.clone();
        shell.merge(&at_mids.shell);
        let (max_rel_s, p99_rel_s, max_abs_s, p99_abs_s, diag_s) = stats(at_samples);
        let (max_rel_m, p99_rel_m, max_abs_m, p99_abs_m, diag_m) = stats(at_mids);
        let bytes_per_bone_second = if clip.duration > 0.0 {
            clip.frames as f64 * storage.bytes_per_entry_frame as f64 / clip.duration
        } else {
            0.0
        };
        Ok(ClipFidelity {
            clip: clip.name.clone(),
            encoding: storage.encoding.clone(),
            fps: clip.fps,
            frames: clip.frames,
            clip_bytes: storage.clip_bytes,
            max_rel_samples: max_rel_s,
            p99_rel_samples: p99_rel_s,
            max_rel_mid: max_rel_m,
            p99_rel_mid: p99_rel_m,
            max_abs_samples: max_abs_s,
            p99_abs_samples: p99_abs_s,
            max_abs_mid: max_abs_m,
            p99_abs_mid: p99_abs_m,
            diagonal: diag_s.max(diag_m),
            bytes_per_entry_frame: storage.bytes_per_entry_frame,
            texture_bytes: storage.texture_bytes,
            bytes_per_bone_second,
            interpolation: clip.interpolation.as_str().to_string(),
            max_shell: shell.max,
            p99_shell: shell.percentile(0.99),
            between_per_gap: self.between.per_gap(),
        })
    }

    /// The errors at every time of `times`, in parallel (one `Poser` per worker).
    /// Measured a batch of times at a time and folded into histograms, so memory follows the
    /// batch, not the clip's length (a 35 k-vertex character over thousands of times held
    /// gigabytes of per-vertex errors).
    fn errors(&self, times: &[At], vat: bool) -> Result<Errors, VerifyError> {
        let batch = 8 * rayon::current_num_threads().max(1);
        let mut e = Errors::default();
        for chunk in times.chunks(batch) {
            let per_time: Vec<Result<TimeErrors, VerifyError>> = chunk
                .par_iter()
                .map_init(
                    || self.scratch(),
                    |scratch, &at| self.errors_at(scratch, at, vat),
                )
                .collect();
            for r in per_time {
                let (errs, diag, shell) = r?;
                e.diagonal = e.diagonal.max(diag);
                let inv = if diag > 0.0 { 1.0 / diag } else { 0.0 };
                for x in errs {
                    e.abs.add(x);
                    e.rel.add(x * inv);
                }
                for x in shell {
                    e.shell.add(x);
                }
            }
        }
        Ok(e)
    }

    fn scratch(&self) -> Scratch {
        Scratch {
            poser: skinning_poser(self.asset, self.model),
            mats: Vec::new(),
            skinned: SkinnedVertices::default(),
            reference_pose: self.reference_pose(),
        }
    }

    /// An additive clip's reference pose: the source's skin matrices at its reference time.
    /// An additive clip's rows are deltas `Δ = S_ref⁻¹ · S`; it is measured as it plays on top
    /// of that pose (`S_ref · Δ`, docs/design.md §4), the one pose where it should show the
    /// source clip.
    fn reference_pose(&self) -> Option<Vec<Mat4>> {
        let t_ref = self.asset.clips[self.clip].additive?;
        let mut poser = skinning_poser(self.asset, self.model);
        let ms = poser.pose(self.model, Some(self.src_clip), t_ref);
        Some(
            self.asset
                .palette
                .iter()
                .map(|e| ms.get(e.node).copied().unwrap_or(Mat4::IDENTITY) * e.inverse_bind_matrix)
                .collect(),
        )
    }

    /// Every palette entry's decoded skin matrix for one layer on this clip, as the palette
    /// path computes it (`throng_asset::decode::blend_matrix`; for an additive clip on top of
    /// its reference pose, `affine_mul(S_ref, Δ)`).
    fn entry_matrices(
        &self,
        layer: Layer,
        reference: Option<&[Mat4]>,
    ) -> Result<Vec<Mat4>, DecodeError> {
        let tex = &self.asset.bone_texture;
        let entries = tex.entries;
        match reference {
            None => {
                let rows = layer_rows(&[layer], &self.asset.clips)?;
                (0..entries).map(|j| blend_matrix(tex, j, &rows)).collect()
            }
            Some(s_ref) => {
                let row = layer.row as u32;
                let clip = &self.asset.clips[self.clip];
                let next = (row + 1).min(clip.first_row + clip.frames.max(1) - 1);
                let taps = clip.taps(row, next, layer.frac);
                (0..entries)
                    .map(|j| {
                        let x = taps_matrix(tex, j, &taps)?;
                        let base = s_ref.get(j as usize).copied().unwrap_or(Mat4::IDENTITY);
                        Ok(affine_mul(&base, &x))
                    })
                    .collect()
            }
        }
    }

    /// Per vertex the distance between the reference and the decoded bake at one time, the
    /// reference's bounding diagonal there, and the shell points' errors ([`SHELL_DISTANCE`]).
    fn errors_at(
        &self,
        scratch: &mut Scratch,
        (t, k, frac): At,
        vat: bool,
    ) -> Result<TimeErrors, VerifyError> {
        let (asset, model) = (self.asset, self.model);
        let clip = &asset.clips[self.clip];
        let ms = scratch
            .poser
            .pose(model, Some(self.src_clip), t as f32)
            .to_vec();
        let layer = Layer {
            weight: 1.0,
            frac,
            row: (clip.first_row + k) as f32,
            clip: self.clip as u32,
        };
        let decode_err = |primitive: usize, source: DecodeError| VerifyError::Decode {
            file: asset.source_name.clone(),
            primitive,
            clip: clip.name.clone(),
            source,
        };
        // The bone texture's matrices once per time, for every primitive.
        let entry_mats = match vat {
            true => Vec::new(),
            false => self
                .entry_matrices(layer, scratch.reference_pose.as_deref())
                .map_err(|e| decode_err(0, e))?,
        };
        let mut reference: Vec<Vec3> = Vec::new();
        let mut baked: Vec<Vec3> = Vec::new();
        for (pi, s) in self.sources.iter().enumerate() {
            binding_matrices(model, &s.binding, &ms, &mut scratch.mats);
            skin_lbs(s.prim, &s.influences, &scratch.mats, &mut scratch.skinned);
            reference.extend_from_slice(&scratch.skinned.positions);
            let b = if vat {
                vat_vertices(asset, pi, &[layer])
                    .map(|v| v.0)
                    .map_err(|e| decode_err(pi, e))?
            } else {
                skin_baked(asset, pi, &entry_mats).map_err(|e| decode_err(pi, e))?
            };
            // Extracted root motion goes back on before comparing (docs/design.md §2).
            match crate::root_motion::motion_at(clip, k, frac) {
                Some(g) => baked.extend(b.iter().map(|p| g.transform_point3(*p))),
                None => baked.extend_from_slice(&b),
            }
        }
        let mut bb = throng_asset::Aabb::EMPTY;
        for p in &reference {
            bb.extend(*p);
        }
        let diag = if bb.is_empty() {
            0.0
        } else {
            bb.diagonal() as f64
        };
        let errs = reference
            .iter()
            .zip(&baked)
            .map(|(a, b)| (*a - *b).length() as f64)
            .collect();
        let motion = crate::root_motion::motion_at(clip, k, frac);
        let shell = shell_errors(&asset.palette, &ms, &entry_mats, motion);
        Ok((errs, diag, shell))
    }
}

/// What one measured time gives: per vertex errors, the bounding diagonal, shell errors.
type TimeErrors = (Vec<f64>, f64, Vec<f64>);

/// The six shell points of every palette entry ([`SHELL_DISTANCE`] along the joint's local
/// axes, taken to bind space by the inverse of its inverse bind matrix), each moved by the
/// decoded skin matrix (root motion `motion` put back) and by the source's `ms[node] · IBM`:
/// their distances. Empty when `decoded` is (the VAT rows).
fn shell_errors(
    palette: &[throng_asset::PaletteEntry],
    ms: &[Mat4],
    decoded: &[Mat4],
    motion: Option<Mat4>,
) -> Vec<f64> {
    let d = SHELL_DISTANCE;
    let axes = [
        Vec3::X * d,
        -Vec3::X * d,
        Vec3::Y * d,
        -Vec3::Y * d,
        Vec3::Z * d,
        -Vec3::Z * d,
    ];
    let mut out = Vec::with_capacity(decoded.len() * axes.len());
    for (e, b) in palette.iter().zip(decoded) {
        let source = ms.get(e.node).copied().unwrap_or(Mat4::IDENTITY) * e.inverse_bind_matrix;
        let to_bind = e.inverse_bind_matrix.inverse();
        for q in axes {
            let p = to_bind.transform_point3(q);
            let moved = lbs_point(b, p);
            let moved = motion.map_or(moved, |g| g.transform_point3(moved));
            out.push((source.transform_point3(p) - moved).length() as f64);
        }
    }
    out
}

/// A poser of what a measurement reads: the source's skinning nodes and the baked palette's
/// (a file's other nodes, however many, are not posed at each measured time).
fn skinning_poser(asset: &BakedAsset, model: &Model) -> Poser {
    let palette = asset.palette.iter().map(|e| e.node);
    Poser::of_nodes(model, model.skinning_nodes().into_iter().chain(palette))
}

/// Per-worker scratch of a measurement.
struct Scratch {
    poser: Poser,
    mats: Vec<Mat4>,
    skinned: SkinnedVertices,
    reference_pose: Option<Vec<Mat4>>,
}

/// Positions of baked primitive `pi` skinned with the decoded matrices `entry_mats` (one per
/// palette entry): `M = Σ_i w_i · B_{j_i}` summed in influence order from zero, then
/// `lbs_point`, the arithmetic of `throng_asset::decode::skin_vertices` (positions only).
fn skin_baked(
    asset: &BakedAsset,
    pi: usize,
    entry_mats: &[Mat4],
) -> Result<Vec<Vec3>, DecodeError> {
    let prim = asset.primitives.get(pi).ok_or(DecodeError::BadPrimitive {
        index: pi,
        count: asset.primitives.len(),
    })?;
    let k = prim.influences as usize;
    let v = prim.positions.len();
    if k == 0 || prim.joints.len() != v * k || prim.weights.len() != v * k {
        // The decoder's own checks name what is wrong.
        return skin_positions(asset, pi, &[], Skinning::Linear);
    }
    let mut out = Vec::with_capacity(v);
    for (vi, p) in prim.positions.iter().enumerate() {
        let mut m = Mat4::ZERO;
        for i in vi * k..vi * k + k {
            let j = prim.joints[i];
            let b = entry_mats.get(j as usize).ok_or(DecodeError::BadJoint {
                primitive: pi,
                vertex: vi,
                influence: i % k,
                entry: j,
                entries: entry_mats.len() as u32,
            })?;
            m += *b * unorm16(prim.weights[i]);
        }
        out.push(lbs_point(&m, *p));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::{percentile, BetweenSamples, Histogram};

    /// The histogram's percentiles against the exact nearest rank: never below it, at most
    /// one bin (1/256 of an octave) above; the maximum exact.
    #[test]
    fn histogram_percentiles_bound_the_exact_ones() {
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut v: Vec<f64> = (0..100_000)
            .map(|i| {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                if i % 97 == 0 {
                    0.0
                } else {
                    (rng >> 11) as f64 / (1u64 << 53) as f64 * 10f64.powi(i % 9 - 6)
                }
            })
            .collect();
        let mut h = Histogram::default();
        v.iter().for_each(|&x| h.add(x));
        for p in [0.5, 0.9, 0.99, 0.999, 1.0] {
            let exact = percentile(&mut v, p);
            let got = h.percentile(p);
            assert!(
                got >= exact && got <= exact * (1.0 + 1.0 / 256.0),
                "p{p}: {got} against {exact}"
            );
        }
        assert_eq!(h.max, v.iter().copied().fold(0.0, f64::max));
        assert_eq!(Histogram::default().percentile(0.99), 0.0);
    }

    #[test]
    fn spread_times_fill_each_gap_and_differ_between_gaps() {
        assert_eq!(BetweenSamples::Halfway.fractions(7), vec![0.5]);
        let n = 10;
        let gaps: Vec<Vec<f64>> = (0..50)
            .map(|k| BetweenSamples::PerGap(n).fractions(k))
            .collect();
        for (k, f) in gaps.iter().enumerate() {
            assert_eq!(f.len(), n as usize);
            assert!(f.iter().all(|&x| x > 0.0 && x < 1.0), "gap {k}: {f:?}");
            // spread: every tenth of the gap holds at most three of the ten
            let mut bins = [0u32; 10];
            for &x in f {
                bins[(x * 10.0) as usize] += 1;
            }
            assert!(bins.iter().all(|&b| b <= 3), "gap {k}: {f:?}");
        }
        assert_ne!(gaps[0], gaps[1]);
        assert_eq!(
            gaps[3],
            BetweenSamples::PerGap(n).fractions(3),
            "the same on every call"
        );
    }

    #[test]
    fn nearest_rank_percentile() {
        let mut v: Vec<f64> = (1..=100).map(|x| x as f64).collect();
        assert_eq!(percentile(&mut v, 0.99), 99.0);
        assert_eq!(percentile(&mut v, 1.0), 100.0);
        assert_eq!(percentile(&mut [], 0.99), 0.0);
        assert_eq!(percentile(&mut [5.0], 0.99), 5.0);
    }
}
