//! CPU decoders of every bone-texture encoding (docs/design.md §3 "Bone texture") and of the
//! per-instance layer record (docs/design.md §4): the CPU twin of the WGSL shaders.
//!
//! Every function here is written the way a shader computes it — small steps, f32 arithmetic, in
//! the order a shader would do it — so the shader can be translated line by line and the CPU
//! fidelity report measures what the GPU draws. Matrices are column-major (glam); quaternions are
//! `Vec4(x, y, z, w)`; lengths in the asset's file units.
//!
//! Skinning methods:
//! - linear blend skinning (LBS): `p' = Σ_i w_i · S_{j_i} · p`; frames and layers are blended as
//!   matrices too (LBS is linear, so this equals blending positions);
//! - dual-quaternion skinning (DQS; Kavan, Collins, Žára, O'Sullivan 2007, "Skinning with dual
//!   quaternions", dual-quaternion linear blending): only with the `quat-*` encodings.

use glam::{Mat4, Vec3, Vec4, Vec4Swizzles};

use crate::error::DecodeError;
use crate::types::{BakedAsset, BakedPrimitive, BoneTexture, ClipInfo, Encoding, Layer, RowTaps};

/// Largest snorm16 integer: `v = max(q / 32767, −1)` (the WebGPU/D3D snorm rule).
pub const SNORM16_MAX: f32 = 32767.0;
/// Largest unorm16 integer: weights decode as `w = q / 65535`.
pub const UNORM16_MAX: f32 = 65535.0;

/// Decodes one signed-normalised 16-bit integer: `max(q / 32767, −1)`, so −32768 and −32767 both
/// give −1.
pub fn snorm16(q: i16) -> f32 {
    (q as f32 / SNORM16_MAX).max(-1.0)
}

/// Decodes one unorm16 influence weight: `q / 65535`.
pub fn unorm16(q: u16) -> f32 {
    q as f32 / UNORM16_MAX
}

fn le4(b: &[u8], i: usize) -> [u8; 4] {
    [b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]
}

fn le2(b: &[u8], i: usize) -> [u8; 2] {
    [b[2 * i], b[2 * i + 1]]
}

/// Texel `x` of frame-table `row`, as the shader's `textureLoad` sees it:
/// - `*-f32`: the four f32 as stored;
/// - `mat3x4-f16`: the four f16 widened to f32;
/// - `quat-snorm16`, `mat3x4-snorm16`: the four i16 as `max(q / 32767, −1)` — the translation
///   and scale ranges are *not* applied here (see [`quat_texels`], [`skin_matrix`]).
///
/// Texel `x` of row `r` starts at byte `(r · width + x) · bytes_per_texel` of
/// [`BoneTexture::data`], little-endian. (On the GPU, row `r` lives in array layer
/// `r / rows_per_layer`, y = `r % rows_per_layer`; the CPU keeps one flat table.)
pub fn fetch_texel(tex: &BoneTexture, x: u32, row: u32) -> Result<Vec4, DecodeError> {
    let width = tex.entries as u64 * tex.encoding.texels_per_entry() as u64;
    let bpt = tex.encoding.bytes_per_texel() as u64;
    let err = || DecodeError::TexelOutOfRange {
        x,
        row,
        width: width.min(u32::MAX as u64) as u32,
        rows: tex.rows,
        len: tex.data.len(),
    };
    if x as u64 >= width || row >= tex.rows {
        return Err(err());
    }
    let start = (row as u64 * width + x as u64) * bpt;
    let start = usize::try_from(start).map_err(|_| err())?;
    let b = tex.data.get(start..start + bpt as usize).ok_or_else(err)?;
    let v = match tex.encoding {
        Encoding::Mat4F32 | Encoding::Mat3x4F32 | Encoding::QuatF32 => {
            let f = |i| f32::from_le_bytes(le4(b, i));
            Vec4::new(f(0), f(1), f(2), f(3))
        }
        Encoding::Mat3x4F16 => {
            let f = |i| half::f16::from_bits(u16::from_le_bytes(le2(b, i))).to_f32();
            Vec4::new(f(0), f(1), f(2), f(3))
        }
        Encoding::QuatSnorm16 | Encoding::Mat3x4Snorm16 => {
            let f = |i| snorm16(i16::from_le_bytes(le2(b, i)));
            Vec4::new(f(0), f(1), f(2), f(3))
        }
    };
    Ok(v)
}

/// Column-major 4×4 from the three stored rows of an affine 3×4 (`mat3x4-*` texels and the anchor
/// texture); the implied last row is (0, 0, 0, 1).
pub fn affine_from_rows(r0: Vec4, r1: Vec4, r2: Vec4) -> Mat4 {
    Mat4::from_cols(
        Vec4::new(r0.x, r1.x, r2.x, 0.0),
        Vec4::new(r0.y, r1.y, r2.y, 0.0),
        Vec4::new(r0.z, r1.z, r2.z, 0.0),
        Vec4::new(r0.w, r1.w, r2.w, 1.0),
    )
}

/// One `quat-*` entry-row decoded: `S = T(translation) · R(rotation) · scale` (uniform scale).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QuatTransform {
    /// Unit quaternion (x, y, z, w).
    pub rotation: Vec4,
    /// File units.
    pub translation: Vec3,
    /// Uniform scale factor.
    pub scale: f32,
}

/// Decodes the two `quat-*` texels of palette `entry` at `row`:
/// 1. texel 2j = quaternion (x, y, z, w); texel 2j+1 = (tx, ty, tz, scale);
/// 2. `quat-snorm16`: translation × `translation_range`, scale × `scale_range`;
/// 3. the quaternion is normalised (16-bit components sit up to ~3e-5 off the unit sphere; a
///    zero quaternion in a damaged texture becomes the identity instead of NaN).
pub fn quat_texels(tex: &BoneTexture, entry: u32, row: u32) -> Result<QuatTransform, DecodeError> {
    check_entry(tex, entry)?;
    let q = fetch_texel(tex, 2 * entry, row)?;
    let ts = fetch_texel(tex, 2 * entry + 1, row)?;
    let (translation, scale) = match tex.encoding {
        Encoding::QuatSnorm16 => (ts.xyz() * tex.translation_range, ts.w * tex.scale_range),
        _ => (ts.xyz(), ts.w),
    };
    Ok(QuatTransform {
        rotation: q.normalize_or(Vec4::W),
        translation,
        scale,
    })
}

/// The affine matrix of a [`QuatTransform`]: columns 0–2 = rotation matrix × scale, column 3 =
/// translation (the standard unit-quaternion → matrix formula, as `glam::Mat3::from_quat`).
pub fn quat_transform_matrix(t: &QuatTransform) -> Mat4 {
    let [x, y, z, w] = t.rotation.to_array();
    let (x2, y2, z2) = (x + x, y + y, z + z);
    let (xx, xy, xz) = (x * x2, x * y2, x * z2);
    let (yy, yz, zz) = (y * y2, y * z2, z * z2);
    let (wx, wy, wz) = (w * x2, w * y2, w * z2);
    let s = t.scale;
    Mat4::from_cols(
        Vec4::new(1.0 - (yy + zz), xy + wz, xz - wy, 0.0) * s,
        Vec4::new(xy - wz, 1.0 - (xx + zz), yz + wx, 0.0) * s,
        Vec4::new(xz + wy, yz - wx, 1.0 - (xx + yy), 0.0) * s,
        t.translation.extend(1.0),
    )
}

fn check_entry(tex: &BoneTexture, entry: u32) -> Result<(), DecodeError> {
    // The second test keeps `texels_per_entry · entry + 3` inside u32 for any texture.
    let last_texel = (entry as u64 + 1) * tex.encoding.texels_per_entry() as u64;
    if entry >= tex.entries || last_texel > u32::MAX as u64 {
        return Err(DecodeError::EntryOutOfRange {
            entry,
            entries: tex.entries,
        });
    }
    Ok(())
}

/// Skin matrix `S_j` of palette `entry` at frame-table `row`, for every encoding:
/// - `mat4-f32`: texel 4j + c = column c;
/// - `mat3x4-*`: texel 3j + r = row r of the affine 3×4 (`mat3x4-snorm16`: (x, y, z) ×
///   `scale_range`, w × `translation_range`, as the WGSL `decode_mat3x4_snorm16`);
/// - `quat-*`: rotation · uniform scale + translation ([`quat_texels`], [`quat_transform_matrix`]).
pub fn skin_matrix(tex: &BoneTexture, entry: u32, row: u32) -> Result<Mat4, DecodeError> {
    check_entry(tex, entry)?;
    match tex.encoding {
        Encoding::Mat4F32 => {
            let x = 4 * entry;
            Ok(Mat4::from_cols(
                fetch_texel(tex, x, row)?,
                fetch_texel(tex, x + 1, row)?,
                fetch_texel(tex, x + 2, row)?,
                fetch_texel(tex, x + 3, row)?,
            ))
        }
        Encoding::Mat3x4F32 | Encoding::Mat3x4F16 => {
            let x = 3 * entry;
            Ok(affine_from_rows(
                fetch_texel(tex, x, row)?,
                fetch_texel(tex, x + 1, row)?,
                fetch_texel(tex, x + 2, row)?,
            ))
        }
        Encoding::Mat3x4Snorm16 => {
            let x = 3 * entry;
            let (s, t) = (tex.scale_range, tex.translation_range);
            let row_of = |v: Vec4| Vec4::new(v.x * s, v.y * s, v.z * s, v.w * t);
            Ok(affine_from_rows(
                row_of(fetch_texel(tex, x, row)?),
                row_of(fetch_texel(tex, x + 1, row)?),
                row_of(fetch_texel(tex, x + 2, row)?),
            ))
        }
        Encoding::QuatF32 | Encoding::QuatSnorm16 => {
            Ok(quat_transform_matrix(&quat_texels(tex, entry, row)?))
        }
    }
}

/// One active layer resolved to frame-table rows: the pose is
/// `weight · Σ_k taps.weights[k] · pose(taps.rows[k])` over the taps with a weight — on a
/// linear clip `weight · mix(pose(row), pose(next), frac)` (docs/design.md §3 "Row
/// interpolation").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LayerRows {
    pub weight: f32,
    pub frac: f32,
    pub row: u32,
    /// `min(row + 1, last row of the layer's clip)`: interpolation never leaves the clip.
    pub next: u32,
    /// The rows the pose sums and their weights ([`throng_contract::row_taps`]).
    pub taps: RowTaps,
}

impl LayerRows {
    /// The rest row alone, weight 1.
    const REST: LayerRows = LayerRows {
        weight: 1.0,
        frac: 0.0,
        row: 0,
        next: 0,
        taps: RowTaps {
            rows: [0; 4],
            weights: [0.0, 1.0, 0.0, 0.0],
        },
    };
}

/// Skin matrix of `entry` interpolated over `taps`: `Σ_k weights[k] · S(rows[k])` over the taps
/// with a weight, summed in tap order from zero (the WGSL `taps_affine` of throng::bone).
pub fn taps_matrix(tex: &BoneTexture, entry: u32, taps: &RowTaps) -> Result<Mat4, DecodeError> {
    let mut m = Mat4::ZERO;
    for (row, w) in taps.iter() {
        m += skin_matrix(tex, entry, row)? * w;
    }
    Ok(m)
}

/// Resolves the *base* layers of a per-instance layer record (docs/design.md §4) against the
/// clip table:
/// - layers with weight 0 are unused and skipped (their row and clip are not read);
/// - overlay layers (a mask, or an additive clip) are skipped: [`overlay_rows`] resolves them,
///   and only the palette path's LBS blend ([`pose_matrix`]) applies them;
/// - `row` is an f32 holding an integer; like the shader's `u32(x)` it truncates; the clip is
///   the clip word's bits 0..23;
/// - `next = min(row + 1, first_row + frames − 1)` of the layer's clip, and the taps the
///   clip's interpolation reads around them ([`ClipInfo::taps`]);
/// - when no base layer has a weight (or there are no layers) the instance shows the rest row:
///   one entry `{weight 1, frac 0, row 0, next 0}`.
///
/// Weights are used as given (the runtime makes the base weights sum to 1).
pub fn layer_rows(layers: &[Layer], clips: &[ClipInfo]) -> Result<Vec<LayerRows>, DecodeError> {
    let mut out = Vec::with_capacity(layers.len());
    for (i, l) in layers.iter().enumerate() {
        if l.weight == 0.0 {
            continue;
        }
        let (rows, overlay) = resolve_layer(i, l, clips)?;
        if overlay.is_none() {
            out.push(rows);
        }
    }
    if out.is_empty() {
        out.push(LayerRows::REST);
    }
    Ok(out)
}

/// What makes a layer an overlay: its mask number (0 = none) and whether its clip is additive.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Overlay {
    pub mask: u32,
    pub additive: bool,
}

/// One layer checked and resolved to rows, and its overlay kind (`None` for a base layer).
fn resolve_layer(
    i: usize,
    l: &Layer,
    clips: &[ClipInfo],
) -> Result<(LayerRows, Option<Overlay>), DecodeError> {
    if !l.weight.is_finite() || !(0.0..=1.0).contains(&l.frac) {
        return Err(DecodeError::BadLayerValue {
            layer: i,
            weight: l.weight,
            frac: l.frac,
        });
    }
    let ci = l.clip_index() as usize;
    let clip = clips.get(ci).ok_or(DecodeError::BadClip {
        layer: i,
        clip: l.clip_index(),
        clips: clips.len(),
    })?;
    let first = clip.first_row;
    let last = first.saturating_add(clip.frames.max(1) - 1);
    if l.row.is_nan() || l.row < 0.0 || (l.row as u32) < first || (l.row as u32) > last {
        return Err(DecodeError::BadRow {
            layer: i,
            row: l.row,
            clip: ci,
            first,
            last,
        });
    }
    let row = l.row as u32;
    let next = (row + 1).min(last);
    let rows = LayerRows {
        weight: l.weight,
        frac: l.frac,
        row,
        next,
        taps: clip.taps(row, next, l.frac),
    };
    let overlay = Overlay {
        mask: l.mask(),
        additive: clip.additive.is_some(),
    };
    let is_overlay = overlay.mask != 0 || overlay.additive;
    Ok((rows, is_overlay.then_some(overlay)))
}

/// The overlay layers of a record, in layer order, resolved to rows (see [`layer_rows`]); a
/// mask number past `masks` masks is an error.
pub fn overlay_rows(
    layers: &[Layer],
    clips: &[ClipInfo],
    masks: usize,
) -> Result<Vec<(LayerRows, Overlay)>, DecodeError> {
    let mut out = Vec::new();
    for (i, l) in layers.iter().enumerate() {
        if l.weight == 0.0 {
            continue;
        }
        if let (rows, Some(o)) = resolve_layer(i, l, clips)? {
            if o.mask as usize > masks {
                return Err(DecodeError::BadMask {
                    layer: i,
                    mask: o.mask,
                    masks,
                });
            }
            out.push((rows, o));
        }
    }
    Ok(out)
}

/// The affine product `a · b` of two skin matrices whose last rows are (0, 0, 0, 1), written as
/// the WGSL `affine_mul` of `shaders/palette_pass.wgsl` computes it: row i of the result is
/// `a[i].x · b_row0 + a[i].y · b_row1 + a[i].z · b_row2 + (0, 0, 0, a[i].w)`.
pub fn affine_mul(a: &Mat4, b: &Mat4) -> Mat4 {
    let br = [b.row(0), b.row(1), b.row(2)];
    let mut rows = [Vec4::ZERO; 3];
    for (i, r) in rows.iter_mut().enumerate() {
        let ar = a.row(i);
        *r = br[0] * ar.x + br[1] * ar.y + br[2] * ar.z + Vec4::new(0.0, 0.0, 0.0, ar.w);
    }
    affine_from_rows(rows[0], rows[1], rows[2])
}

/// The palette path's skin matrix of `entry` (docs/design.md §4 "Layer masks and additive
/// layers"), the CPU twin of `palette_joint_affine` in `shaders/palette_pass.wgsl`:
/// `S = blend_matrix(base)`, then per overlay layer in layer order, with `a = weight · m_j`
/// (`m_j` the entry's weight in the layer's mask, 1 without one; skipped when 0) and
/// `L = taps_matrix(taps)` (on a linear clip `mix(S(row), S(next), frac)`):
/// - an ordinary layer lies over what is below: `S ← mix(S, L, a)`;
/// - an additive layer (`L` a delta Δ) applies on top: `S ← mix(S, S · Δ, a)`.
pub fn pose_matrix(
    tex: &BoneTexture,
    masks: &[crate::types::LayerMask],
    base: &[LayerRows],
    overlays: &[(LayerRows, Overlay)],
    entry: u32,
) -> Result<Mat4, DecodeError> {
    let mut s = blend_matrix(tex, entry, base)?;
    for (l, o) in overlays {
        let a = l.weight * mask_weight(masks, o.mask, entry);
        if a == 0.0 {
            continue;
        }
        let x = taps_matrix(tex, entry, &l.taps)?;
        let target = if o.additive { affine_mul(&s, &x) } else { x };
        s = mix_mat4(&s, &target, a);
    }
    Ok(s)
}

/// Weight of palette `entry` in mask number `mask` (1 for 0, no mask; 0 past the masks).
fn mask_weight(masks: &[crate::types::LayerMask], mask: u32, entry: u32) -> f32 {
    match mask {
        0 => 1.0,
        k => masks
            .get(k as usize - 1)
            .and_then(|m| m.weights.get(entry as usize))
            .copied()
            .unwrap_or(0.0),
    }
}

/// A per-instance layer record's base layers ([`layer_rows`]) and overlays ([`overlay_rows`])
/// in `asset`'s clips and masks.
#[allow(clippy::type_complexity)]
fn record_rows(
    asset: &BakedAsset,
    layers: &[Layer],
) -> Result<(Vec<LayerRows>, Vec<(LayerRows, Overlay)>), DecodeError> {
    let base = layer_rows(layers, &asset.clips)?;
    let overlays = overlay_rows(layers, &asset.clips, asset.masks.len())?;
    Ok((base, overlays))
}

/// [`pose_matrix`] of a per-instance layer record: base layers, then overlays (masks,
/// additive clips). Without overlays it equals [`blended_skin_matrix`].
pub fn masked_skin_matrix(
    asset: &BakedAsset,
    layers: &[Layer],
    entry: u32,
) -> Result<Mat4, DecodeError> {
    let (base, overlays) = record_rows(asset, layers)?;
    pose_matrix(&asset.bone_texture, &asset.masks, &base, &overlays, entry)
}

/// `mix(a, b, f) = a · (1 − f) + b · f`, per component, as WGSL's `mix`.
pub fn mix_mat4(a: &Mat4, b: &Mat4, f: f32) -> Mat4 {
    *a * (1.0 - f) + *b * f
}

/// Skin matrix of `entry` blended over resolved layers: `Σ_l weight_l · taps_matrix(taps_l)`
/// (on linear clips `mix(S(row_l), S(next_l), frac_l)`), summed in layer order from zero.
pub fn blend_matrix(
    tex: &BoneTexture,
    entry: u32,
    rows: &[LayerRows],
) -> Result<Mat4, DecodeError> {
    let mut m = Mat4::ZERO;
    for l in rows {
        m += taps_matrix(tex, entry, &l.taps)? * l.weight;
    }
    Ok(m)
}

/// Skin matrix of `entry` for a per-instance layer record: [`layer_rows`] then
/// [`blend_matrix`]. All weights 0 → the rest row 0.
pub fn blended_skin_matrix(
    tex: &BoneTexture,
    clips: &[ClipInfo],
    layers: &[Layer],
    entry: u32,
) -> Result<Mat4, DecodeError> {
    blend_matrix(tex, entry, &layer_rows(layers, clips)?)
}

/// Hamilton product `a · b` of quaternions stored (x, y, z, w).
pub fn quat_mul(a: Vec4, b: Vec4) -> Vec4 {
    Vec4::new(
        a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
        a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
        a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
        a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
    )
}

/// A dual quaternion `real + ε · dual` plus a uniform scale applied before it
/// (`S = T · R · scale`). Unit when `|real| = 1` and `real · dual = 0`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DualQuat {
    /// Rotation quaternion (x, y, z, w).
    pub real: Vec4,
    /// `½ · (t, 0) · real`.
    pub dual: Vec4,
    pub scale: f32,
}

impl DualQuat {
    pub const IDENTITY: DualQuat = DualQuat {
        real: Vec4::W,
        dual: Vec4::ZERO,
        scale: 1.0,
    };

    /// Unit dual quaternion of rotation `q` then translation `t` (Kavan et al. 2007, §2):
    /// `dual = ½ · (t, 0) · q`.
    pub fn from_transform(t: &QuatTransform) -> DualQuat {
        DualQuat {
            real: t.rotation,
            dual: quat_mul(t.translation.extend(0.0), t.rotation) * 0.5,
            scale: t.scale,
        }
    }

    /// Translation `2 · (dual · conj(real)).xyz`, written out:
    /// `2 · (w_r · d − w_d · r + r × d)`.
    pub fn translation(&self) -> Vec3 {
        let (r, w) = (self.real.xyz(), self.real.w);
        let (d, dw) = (self.dual.xyz(), self.dual.w);
        2.0 * (w * d - dw * r + r.cross(d))
    }

    /// Rotates `v` by the (unit) real part: `v + 2 · r × (r × v + w · v)`.
    pub fn rotate(&self, v: Vec3) -> Vec3 {
        let (r, w) = (self.real.xyz(), self.real.w);
        v + 2.0 * r.cross(r.cross(v) + w * v)
    }

    /// Skins a point: scale, rotate, translate (Kavan et al. 2007, Algorithm 1).
    pub fn transform_point(&self, p: Vec3) -> Vec3 {
        self.rotate(p * self.scale) + self.translation()
    }

    /// Skins a normal: the rotation, negated when the scale is negative (a mirror; the
    /// inverse-transpose of `scale · R` is `R / scale`).
    pub fn transform_normal(&self, n: Vec3) -> Vec3 {
        self.rotate(n) * sign(self.scale)
    }

    /// Skins a tangent: direction by the linear part `scale · R` (normalised), w flipped when
    /// the determinant `scale³` is negative.
    pub fn transform_tangent(&self, t: Vec4) -> Vec4 {
        let s = sign(self.scale);
        (self.rotate(t.xyz()) * s).extend(t.w * s)
    }

    /// `other` applied first, then `self` (the matrix product `self · other` of two unit
    /// dual quaternions with their uniform scales): rotation `r_s · r_o`, scale `s_s · s_o`,
    /// translation `t_s + s_s · R_s · t_o` — `other`'s dual part is scaled by `s_s` before the
    /// dual-quaternion product `real_s · real_o + ε (real_s · dual_o + dual_s · real_o)`.
    pub fn then(&self, other: &DualQuat) -> DualQuat {
        DualQuat {
            real: quat_mul(self.real, other.real),
            dual: quat_mul(self.real, other.dual * self.scale) + quat_mul(self.dual, other.real),
            scale: self.scale * other.scale,
        }
    }

    /// The affine matrix of this (normalised) dual quaternion.
    pub fn to_matrix(&self) -> Mat4 {
        quat_transform_matrix(&QuatTransform {
            rotation: self.real,
            translation: self.translation(),
            scale: self.scale,
        })
    }
}

fn sign(x: f32) -> f32 {
    if x < 0.0 {
        -1.0
    } else {
        1.0
    }
}

/// Dual-quaternion linear blending (Kavan et al. 2007, §3 "DLB"): `Σ w_k · dq_k` with each
/// `dq_k` flipped into the hemisphere of the first one (the *pivot*: the first term of non-zero
/// weight), then normalised by `|Σ real|`. Scales are blended linearly with the same weights
/// (never flipped).
#[derive(Debug, Clone, Copy, Default)]
pub struct DqBlend {
    real: Vec4,
    dual: Vec4,
    scale: f32,
    pivot: Option<Vec4>,
}

impl DqBlend {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `w · dq` (terms of weight 0 are skipped and never become the pivot).
    pub fn add(&mut self, w: f32, dq: &DualQuat) {
        if w == 0.0 {
            return;
        }
        let pivot = *self.pivot.get_or_insert(dq.real);
        let ws = if dq.real.dot(pivot) < 0.0 { -w } else { w };
        self.real += dq.real * ws;
        self.dual += dq.dual * ws;
        self.scale += dq.scale * w;
    }

    /// The blend as summed, not normalised (the palette path stores this).
    pub fn sum(&self) -> DualQuat {
        DualQuat {
            real: self.real,
            dual: self.dual,
            scale: self.scale,
        }
    }

    /// The normalised blend: `real / |real|`, `dual / |real|`; the identity when nothing (or
    /// only cancelling terms) was added.
    pub fn finish(&self) -> DualQuat {
        let len = self.real.length();
        if len.is_nan() || len <= 0.0 {
            return DualQuat::IDENTITY;
        }
        let inv = 1.0 / len;
        DualQuat {
            real: self.real * inv,
            dual: self.dual * inv,
            scale: self.scale,
        }
    }
}

/// Dual quaternion of `entry` at `row` (`quat-*` encodings only).
pub fn dual_quat(tex: &BoneTexture, entry: u32, row: u32) -> Result<DualQuat, DecodeError> {
    if !tex.encoding.is_quat() {
        return Err(DecodeError::DqNeedsQuat(tex.encoding));
    }
    Ok(DualQuat::from_transform(&quat_texels(tex, entry, row)?))
}

/// The weighted dual quaternions that make up one entry's pose over resolved layers, in order:
/// per layer and tap with a weight `(weight · tap weight, dq(tap row))` — on a linear clip
/// `(weight · (1 − frac), dq(row))`, `(weight · frac, dq(next))`.
pub fn layer_dual_quats(
    tex: &BoneTexture,
    entry: u32,
    rows: &[LayerRows],
) -> Result<Vec<(f32, DualQuat)>, DecodeError> {
    let mut out = Vec::with_capacity(rows.len() * 4);
    for l in rows {
        for (row, w) in l.taps.iter() {
            out.push((l.weight * w, dual_quat(tex, entry, row)?));
        }
    }
    Ok(out)
}

/// The palette path's dual quaternion of `entry` under dual-quaternion skinning
/// (docs/design.md §4 "Layer masks and additive layers"), the CPU twin of `palette_joint_dq`
/// in `shaders/palette_pass.wgsl`, *not normalised* (as the palette stores it): the base
/// layers' [`DqBlend`] sum; then per overlay layer in layer order, with `a` as in
/// [`pose_matrix`], `B` that sum normalised and `L` the layer's two rows blended and
/// normalised: an ordinary layer gives `(1 − a) · B + a · L`, an additive one (`L` a delta Δ)
/// `(1 − a) · B + a · (B ∘ Δ)` ([`DualQuat::then`]: Δ first, as `S · Δ`); each sum aligned to
/// `B`'s hemisphere, scales mixed linearly. Without overlays its normalisation equals
/// [`blended_dual_quat`].
pub fn pose_dual_quat(
    tex: &BoneTexture,
    masks: &[crate::types::LayerMask],
    base: &[LayerRows],
    overlays: &[(LayerRows, Overlay)],
    entry: u32,
) -> Result<DualQuat, DecodeError> {
    let mut acc = DqBlend::new();
    for (w, dq) in layer_dual_quats(tex, entry, base)? {
        acc.add(w, &dq);
    }
    for (l, o) in overlays {
        let a = l.weight * mask_weight(masks, o.mask, entry);
        if a == 0.0 {
            continue;
        }
        let mut x = DqBlend::new();
        for (row, w) in l.taps.iter() {
            x.add(w, &dual_quat(tex, entry, row)?);
        }
        let b = acc.finish();
        let x = x.finish();
        let goal = if o.additive { b.then(&x) } else { x };
        acc = DqBlend::new();
        acc.add(1.0 - a, &b);
        acc.add(a, &goal);
    }
    Ok(acc.sum())
}

/// [`pose_dual_quat`] of a per-instance layer record (the palette path's dual quaternion of
/// `entry`, not normalised).
pub fn masked_dual_quat(
    asset: &BakedAsset,
    layers: &[Layer],
    entry: u32,
) -> Result<DualQuat, DecodeError> {
    let (base, overlays) = record_rows(asset, layers)?;
    pose_dual_quat(&asset.bone_texture, &asset.masks, &base, &overlays, entry)
}

/// Dual quaternion of `entry` blended over frames and layers (one [`DqBlend`]).
pub fn blended_dual_quat(
    tex: &BoneTexture,
    clips: &[ClipInfo],
    layers: &[Layer],
    entry: u32,
) -> Result<DualQuat, DecodeError> {
    let mut b = DqBlend::new();
    for (w, dq) in layer_dual_quats(tex, entry, &layer_rows(layers, clips)?)? {
        b.add(w, &dq);
    }
    Ok(b.finish())
}

/// LBS of a point by a blended matrix: `c0 · p.x + c1 · p.y + c2 · p.z + c3` (xyz).
pub fn lbs_point(m: &Mat4, p: Vec3) -> Vec3 {
    (m.x_axis * p.x + m.y_axis * p.y + m.z_axis * p.z + m.w_axis).xyz()
}

/// LBS of a normal: the inverse-transpose of the linear part `L = [c0 c1 c2]`, computed without a
/// division as the cofactor matrix `[c1×c2, c2×c0, c0×c1] = det(L) · L⁻ᵀ`, times `sign(det)`,
/// then normalised (zero when `L` is singular).
pub fn lbs_normal(m: &Mat4, n: Vec3) -> Vec3 {
    let (c0, c1, c2) = (m.x_axis.xyz(), m.y_axis.xyz(), m.z_axis.xyz());
    let (k0, k1, k2) = (c1.cross(c2), c2.cross(c0), c0.cross(c1));
    let det = c0.dot(k0);
    ((k0 * n.x + k1 * n.y + k2 * n.z) * sign(det)).normalize_or_zero()
}

/// LBS of a tangent: direction by the linear part (normalised), w flipped where `det(L) < 0`
/// (docs/design.md §2).
pub fn lbs_tangent(m: &Mat4, t: Vec4) -> Vec4 {
    let (c0, c1, c2) = (m.x_axis.xyz(), m.y_axis.xyz(), m.z_axis.xyz());
    let det = c0.dot(c1.cross(c2));
    let d = (c0 * t.x + c1 * t.y + c2 * t.z).normalize_or_zero();
    d.extend(t.w * sign(det))
}

/// Skinning method of [`skin_vertices`]: linear blend of matrices (every encoding) or
/// dual-quaternion linear blending (`quat-*` encodings).
pub use throng_contract::Skinning;

/// Skinned vertex streams of one primitive in model space (file units).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SkinnedVertices {
    pub positions: Vec<Vec3>,
    /// Unit length (zero where the skin matrix is singular).
    pub normals: Vec<Vec3>,
    pub tangents: Option<Vec<Vec4>>,
}

fn check_streams(index: usize, p: &BakedPrimitive) -> Result<usize, DecodeError> {
    let v = p.positions.len();
    let k = p.influences as usize;
    let bad = |what: String| DecodeError::BadStreams {
        primitive: index,
        what,
    };
    if k == 0 {
        return Err(bad("0 influences per vertex".into()));
    }
    if p.normals.len() != v {
        return Err(bad(format!("{} positions, {} normals", v, p.normals.len())));
    }
    if p.tangents.as_ref().is_some_and(|t| t.len() != v) {
        return Err(bad(format!(
            "{v} positions but a different number of tangents"
        )));
    }
    if p.joints.len() != v * k || p.weights.len() != v * k {
        return Err(bad(format!(
            "{v} vertices × {k} influences, but {} joints and {} weights",
            p.joints.len(),
            p.weights.len()
        )));
    }
    Ok(k)
}

/// Baked primitive `index`, or the decoders' error naming the count.
pub(crate) fn primitive(asset: &BakedAsset, index: usize) -> Result<&BakedPrimitive, DecodeError> {
    asset
        .primitives
        .get(index)
        .ok_or(DecodeError::BadPrimitive {
            index,
            count: asset.primitives.len(),
        })
}

/// Skins primitive `prim_index` of `asset` for one per-instance layer record (docs/design.md §4).
///
/// Per vertex the influences are the baked palette indices `j_i` and unorm16 weights
/// `w_i = q_i / 65535`:
/// - [`Skinning::Linear`]: `M = Σ_i w_i · B_{j_i}` (summed in influence order from zero) with
///   `B_j` = [`pose_matrix`] of entry j (base layers, then masked and additive overlays: the
///   palette path's pose); position [`lbs_point`], normal [`lbs_normal`], tangent
///   [`lbs_tangent`];
/// - [`Skinning::DualQuat`]: one [`DqBlend`] over influences × layers × (row, next) with
///   weights `w_i · (weight_l · (1 − frac_l))` and `w_i · (weight_l · frac_l)`; then
///   [`DualQuat::transform_point`] / `transform_normal` / `transform_tangent`. With overlay
///   layers (masks, additive clips) as the palette path draws them instead: one
///   [`pose_dual_quat`] per palette entry, blended per vertex with the influences' weights
///   (hemisphere of the first) and normalised.
///
/// An empty `layers` (or all weights 0) gives the rest pose (row 0).
pub fn skin_vertices(
    asset: &BakedAsset,
    prim_index: usize,
    layers: &[Layer],
    mode: Skinning,
) -> Result<SkinnedVertices, DecodeError> {
    let prim = primitive(asset, prim_index)?;
    let k = check_streams(prim_index, prim)?;
    let tex = &asset.bone_texture;
    if mode == Skinning::DualQuat && !tex.encoding.is_quat() {
        return Err(DecodeError::DqNeedsQuat(tex.encoding));
    }
    let (rows, overlays) = record_rows(asset, layers)?;
    // The entries this primitive uses, checked against the palette once.
    let mut used = vec![false; tex.entries as usize];
    for (i, &j) in prim.joints.iter().enumerate() {
        match used.get_mut(j as usize) {
            Some(u) => *u = true,
            None => {
                return Err(DecodeError::BadJoint {
                    primitive: prim_index,
                    vertex: i / k,
                    influence: i % k,
                    entry: j,
                    entries: tex.entries,
                })
            }
        }
    }
    let v = prim.positions.len();
    let mut out = SkinnedVertices {
        positions: Vec::with_capacity(v),
        normals: Vec::with_capacity(v),
        tangents: prim.tangents.as_ref().map(|_| Vec::with_capacity(v)),
    };
    match mode {
        Skinning::Linear => {
            // B_j per used entry: the same arithmetic the shader does per influence.
            let mut blended = vec![Mat4::ZERO; used.len()];
            for (j, _) in used.iter().enumerate().filter(|(_, u)| **u) {
                blended[j] = pose_matrix(tex, &asset.masks, &rows, &overlays, j as u32)?;
            }
            for vi in 0..v {
                let mut m = Mat4::ZERO;
                for i in vi * k..vi * k + k {
                    m += blended[prim.joints[i] as usize] * unorm16(prim.weights[i]);
                }
                out.positions.push(lbs_point(&m, prim.positions[vi]));
                out.normals.push(lbs_normal(&m, prim.normals[vi]));
                if let (Some(t), Some(src)) = (out.tangents.as_mut(), prim.tangents.as_ref()) {
                    t.push(lbs_tangent(&m, src[vi]));
                }
            }
        }
        Skinning::DualQuat => {
            // Per entry its weighted terms: every (layer, frame) as the texture path blends
            // them, or with overlays the palette path's one pose per entry.
            let mut terms = vec![Vec::new(); used.len()];
            for (j, _) in used.iter().enumerate().filter(|(_, u)| **u) {
                terms[j] = match overlays.is_empty() {
                    true => layer_dual_quats(tex, j as u32, &rows)?,
                    false => vec![(
                        1.0,
                        pose_dual_quat(tex, &asset.masks, &rows, &overlays, j as u32)?,
                    )],
                };
            }
            for vi in 0..v {
                let mut b = DqBlend::new();
                for i in vi * k..vi * k + k {
                    let w = unorm16(prim.weights[i]);
                    for (wl, dq) in &terms[prim.joints[i] as usize] {
                        b.add(w * *wl, dq);
                    }
                }
                let dq = b.finish();
                out.positions.push(dq.transform_point(prim.positions[vi]));
                out.normals
                    .push(dq.transform_normal(prim.normals[vi]).normalize_or_zero());
                if let (Some(t), Some(src)) = (out.tangents.as_mut(), prim.tangents.as_ref()) {
                    t.push(dq.transform_tangent(src[vi]));
                }
            }
        }
    }
    Ok(out)
}

/// Skinned positions of one primitive (model space, file units); see [`skin_vertices`].
pub fn skin_positions(
    asset: &BakedAsset,
    prim_index: usize,
    layers: &[Layer],
    mode: Skinning,
) -> Result<Vec<Vec3>, DecodeError> {
    Ok(skin_vertices(asset, prim_index, layers, mode)?.positions)
}

/// Model-space transform of anchor `anchor` for a layer record, interpolated and blended exactly
/// like skin matrices (docs/design.md §4): `Σ_l weight_l · Σ_k w_k A(row_k)` over each layer's
/// row taps (on a linear clip `mix(A(row_l), A(next_l), frac_l)`).
pub fn blended_anchor_matrix(
    asset: &BakedAsset,
    anchor: usize,
    layers: &[Layer],
) -> Result<Option<Mat4>, DecodeError> {
    let Some(at) = asset.anchors.as_ref() else {
        return Ok(None);
    };
    if anchor >= at.anchors.len() {
        return Ok(None);
    }
    let stride = at.anchors.len() * 12;
    let fetch = |row: u32| -> Result<Mat4, DecodeError> {
        let base = row as usize * stride + anchor * 12;
        let r = at
            .data
            .get(base..base + 12)
            .ok_or(DecodeError::TexelOutOfRange {
                x: anchor as u32 * 3,
                row,
                width: at.anchors.len() as u32 * 3,
                rows: at.rows,
                len: at.data.len() * 4,
            })?;
        let v = |i: usize| Vec4::new(r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]);
        Ok(affine_from_rows(v(0), v(1), v(2)))
    };
    let mut m = Mat4::ZERO;
    for l in layer_rows(layers, &asset.clips)? {
        let mut a = Mat4::ZERO;
        for (row, w) in l.taps.iter() {
            a += fetch(row)? * w;
        }
        m += a * l.weight;
    }
    Ok(Some(m))
}
