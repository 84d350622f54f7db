//! Bone-texture encoders (docs/design.md §3 "Bone texture"); the decoders are
//! `throng_asset::decode`. Texels are RGBA, rows are frame-table rows, bytes little-endian:
//! - `mat4-f32`: texel 4j + c = column c of `S_j`;
//! - `mat3x4-f32` / `mat3x4-f16`: texel 3j + r = row r of the affine 3×4 of `S_j`;
//! - `quat-f32` / `quat-snorm16`: texel 2j = unit quaternion (x, y, z, w), kept in the hemisphere
//!   of the previous frame of the same clip; texel 2j + 1 = (tx, ty, tz, uniform scale).
//!   `quat-snorm16` stores `round(clamp(v, −1, 1) · 32767)` as i16, translation divided by
//!   `translation_range` (largest |translation component| of the bake) and scale by
//!   `scale_range` (largest scale);
//! - `mat3x4-snorm16`: as `mat3x4-f32` in i16, each row's (x, y, z) divided by `scale_range`
//!   (largest |linear entry| of the bake) and w by `translation_range` (largest |translation
//!   component|).

use glam::{Mat3, Mat4, Quat, Vec3, Vec4};
use rayon::prelude::*;
use throng_asset::{BoneTexture, Encoding};

/// Largest relative spread of the three column norms of a skin matrix's linear part that the
/// `quat-*` encodings accept as a uniform scale (docs/design.md §3).
pub const UNIFORM_SCALE_TOLERANCE: f32 = 1e-4;
/// Largest finite f16 (`mat3x4-f16` values beyond it would become infinite).
pub const F16_MAX: f32 = 65504.0;
/// snorm16 scale: `q = round(clamp(v, −1, 1) · 32767)`.
pub const SNORM16_MAX: f32 = 32767.0;

/// A skin matrix as rotation, translation and uniform scale (`S = T · R · s`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QuatParts {
    /// Unit quaternion (x, y, z, w).
    pub rotation: Vec4,
    /// File units.
    pub translation: Vec3,
    pub scale: f32,
}

/// Splits `m` for the `quat-*` encodings, or says why it cannot: a non-uniform scale (column
/// norm spread over [`UNIFORM_SCALE_TOLERANCE`] relative) or a mirror (negative determinant).
/// The scale is the mean column norm; a zero matrix is scale 0 with the identity rotation.
pub fn quat_parts(m: &Mat4) -> Result<QuatParts, String> {
    let lin = Mat3::from_mat4(*m);
    let norms = [
        lin.x_axis.length(),
        lin.y_axis.length(),
        lin.z_axis.length(),
    ];
    let max = norms[0].max(norms[1]).max(norms[2]);
    let min = norms[0].min(norms[1]).min(norms[2]);
    let translation = m.w_axis.truncate();
    if max == 0.0 {
        return Ok(QuatParts {
            rotation: Vec4::W,
            translation,
            scale: 0.0,
        });
    }
    let spread = (max - min) / max;
    if spread > UNIFORM_SCALE_TOLERANCE {
        return Err(format!(
            "non-uniform scale (column norms {:.6}, {:.6}, {:.6}: spread {spread:.2e} > {UNIFORM_SCALE_TOLERANCE:e})",
            norms[0], norms[1], norms[2]
        ));
    }
    if lin.determinant() < 0.0 {
        return Err("mirrored (negative determinant); a quaternion cannot hold a mirror".into());
    }
    let scale = (norms[0] + norms[1] + norms[2]) / 3.0;
    let q = Quat::from_mat3(&(lin * (1.0 / scale))).normalize();
    Ok(QuatParts {
        rotation: Vec4::from(q),
        translation,
        scale,
    })
}

/// Where a `quat-*` encoding failed first (row-major order): entry, row, reason.
#[derive(Debug, Clone, PartialEq)]
pub struct QuatFailure {
    pub entry: usize,
    pub row: usize,
    pub why: String,
}

/// Decomposes every skin matrix (`rows × entries`, row-major) for the `quat-*` encodings and
/// keeps each entry's quaternion in the hemisphere of its previous row when that row belongs to
/// the same clip (`continues[row]` is false for row 0 and each clip's first row).
pub fn quat_table(
    matrices: &[Mat4],
    entries: usize,
    continues: &[bool],
) -> Result<Vec<QuatParts>, QuatFailure> {
    // Decompose in parallel without allocating per matrix; only the first failure (in row-major
    // order) is decomposed again to get its message.
    let parts: Vec<Option<QuatParts>> = matrices.par_iter().map(|m| quat_parts(m).ok()).collect();
    if let Some(i) = parts.par_iter().position_first(|p| p.is_none()) {
        return Err(QuatFailure {
            entry: i % entries.max(1),
            row: i / entries.max(1),
            why: quat_parts(&matrices[i]).err().unwrap_or_default(),
        });
    }
    let mut out: Vec<QuatParts> = parts.into_iter().flatten().collect();
    for (row, &cont) in continues.iter().enumerate() {
        if !cont || row == 0 {
            continue;
        }
        for e in 0..entries {
            let prev = out[(row - 1) * entries + e].rotation;
            let cur = &mut out[row * entries + e].rotation;
            if cur.dot(prev) < 0.0 {
                *cur = -*cur;
            }
        }
    }
    Ok(out)
}

fn snorm16(v: f32) -> i16 {
    (v.clamp(-1.0, 1.0) * SNORM16_MAX).round() as i16
}

/// What each channel of texel `t` of a snorm16 encoding is divided by before rounding:
/// `quat-snorm16`'s quaternion texel as it is, its second texel's translation by
/// `translation_range` and scale by `scale_range`; every `mat3x4-snorm16` row's linear entries by
/// `scale_range` and its translation by `translation_range`.
fn snorm_ranges(enc: Encoding, t: usize, translation_range: f32, scale_range: f32) -> [f32; 4] {
    match (enc, t) {
        (Encoding::QuatSnorm16, 0) => [1.0; 4],
        (Encoding::QuatSnorm16, _) => [
            translation_range,
            translation_range,
            translation_range,
            scale_range,
        ],
        _ => [scale_range, scale_range, scale_range, translation_range],
    }
}

/// The four values of texel `t` (0..texels_per_entry) of one entry.
fn texel_values(enc: Encoding, m: &Mat4, q: Option<&QuatParts>, t: usize) -> [f32; 4] {
    match enc {
        Encoding::Mat4F32 => m.col(t).to_array(),
        Encoding::Mat3x4F32 | Encoding::Mat3x4F16 | Encoding::Mat3x4Snorm16 => {
            [m.x_axis[t], m.y_axis[t], m.z_axis[t], m.w_axis[t]]
        }
        Encoding::QuatF32 | Encoding::QuatSnorm16 => {
            let q = q.copied().unwrap_or(QuatParts {
                rotation: Vec4::W,
                translation: Vec3::ZERO,
                scale: 1.0,
            });
            if t == 0 {
                q.rotation.to_array()
            } else {
                q.translation.extend(q.scale).to_array()
            }
        }
    }
}

/// Encodes `matrices` (`rows × entries`, row-major) into a bone texture. `quats` must be the
/// [`quat_table`] of the same matrices for the `quat-*` encodings. Returns the first entry/row
/// whose `mat3x4-f16` value overflows f16, if any.
pub fn encode(
    enc: Encoding,
    matrices: &[Mat4],
    quats: Option<&[QuatParts]>,
    entries: usize,
    rows: usize,
    rows_per_layer: u32,
) -> Result<BoneTexture, (usize, usize)> {
    let tpe = enc.texels_per_entry() as usize;
    let bpt = enc.bytes_per_texel() as usize;
    let row_bytes = entries * tpe * bpt;
    let (mut translation_range, mut scale_range) = (1.0f32, 1.0f32);
    if enc == Encoding::QuatSnorm16 {
        if let Some(qs) = quats {
            let t = qs
                .par_iter()
                .map(|q| q.translation.abs().max_element())
                .reduce(|| 0.0, f32::max);
            let s = qs.par_iter().map(|q| q.scale).reduce(|| 0.0, f32::max);
            translation_range = if t > 0.0 { t } else { 1.0 };
            scale_range = if s > 0.0 { s } else { 1.0 };
        }
    }
    if enc == Encoding::Mat3x4Snorm16 {
        let (t, s) = matrices
            .par_iter()
            .map(|m| {
                let linear = m.x_axis.truncate().abs().max(m.y_axis.truncate().abs());
                let linear = linear.max(m.z_axis.truncate().abs()).max_element();
                (m.w_axis.truncate().abs().max_element(), linear)
            })
            .reduce(|| (0.0, 0.0), |a, b| (a.0.max(b.0), a.1.max(b.1)));
        translation_range = if t > 0.0 { t } else { 1.0 };
        scale_range = if s > 0.0 { s } else { 1.0 };
    }
    let mut data = vec![0u8; row_bytes * rows];
    let overflow: Option<(usize, usize)> = data
        .par_chunks_mut(row_bytes.max(1))
        .enumerate()
        .map(|(row, out)| {
            let mut overflow = None;
            for e in 0..entries {
                let idx = row * entries + e;
                let m = &matrices[idx];
                let q = quats.map(|q| &q[idx]);
                for t in 0..tpe {
                    let v = texel_values(enc, m, q, t);
                    let base = (e * tpe + t) * bpt;
                    let dst = &mut out[base..base + bpt];
                    match enc {
                        Encoding::Mat4F32 | Encoding::Mat3x4F32 | Encoding::QuatF32 => {
                            for (c, x) in v.iter().enumerate() {
                                dst[4 * c..4 * c + 4].copy_from_slice(&x.to_le_bytes());
                            }
                        }
                        Encoding::Mat3x4F16 => {
                            for (c, x) in v.iter().enumerate() {
                                if x.abs() > F16_MAX && overflow.is_none() {
                                    overflow = Some((e, row));
                                }
                                let h = half::f16::from_f32(*x).to_bits();
                                dst[2 * c..2 * c + 2].copy_from_slice(&h.to_le_bytes());
                            }
                        }
                        Encoding::QuatSnorm16 | Encoding::Mat3x4Snorm16 => {
                            let k = snorm_ranges(enc, t, translation_range, scale_range);
                            for (c, (x, k)) in v.iter().zip(k).enumerate() {
                                dst[2 * c..2 * c + 2]
                                    .copy_from_slice(&snorm16(x / k).to_le_bytes());
                            }
                        }
                    }
                }
            }
            overflow
        })
        .reduce(
            || None,
            |a, b| match (a, b) {
                (Some(a), Some(b)) => Some(if (a.1, a.0) <= (b.1, b.0) { a } else { b }),
                (a, b) => a.or(b),
            },
        );
    if let Some(o) = overflow {
        return Err(o);
    }
    Ok(BoneTexture {
        encoding: enc,
        entries: entries as u32,
        rows: rows as u32,
        rows_per_layer,
        translation_range,
        scale_range,
        data,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quat_parts_accepts_uniform_and_rejects_non_uniform_and_mirrors() {
        let m = Mat4::from_scale_rotation_translation(
            Vec3::splat(2.0),
            Quat::from_rotation_y(0.7),
            Vec3::new(1.0, 2.0, 3.0),
        );
        let p = quat_parts(&m).expect("uniform");
        assert!((p.scale - 2.0).abs() < 1e-6);
        assert!(Vec4::from(Quat::from_rotation_y(0.7)).dot(p.rotation).abs() > 1.0 - 1e-6);
        assert_eq!(p.translation, Vec3::new(1.0, 2.0, 3.0));
        let n = Mat4::from_scale(Vec3::new(1.0, 1.001, 1.0));
        assert!(quat_parts(&n).unwrap_err().contains("non-uniform"));
        let r = Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0));
        assert!(quat_parts(&r).is_err());
        assert_eq!(quat_parts(&Mat4::ZERO).map(|p| p.scale), Ok(0.0));
    }

    #[test]
    fn hemisphere_follows_previous_frame_within_a_clip() {
        // Two rows, one entry; the second row's rotation is given in the other hemisphere
        // (glam may return either sign) and must come out with a positive dot product.
        let a = Mat4::from_quat(Quat::from_rotation_z(3.0));
        let b = Mat4::from_quat(Quat::from_rotation_z(3.2));
        let t = quat_table(&[a, b], 1, &[false, true]).expect("rigid");
        assert!(t[0].rotation.dot(t[1].rotation) > 0.0);
    }

    #[test]
    fn mat3x4_texels_are_rows_and_mat4_texels_columns() {
        let m = Mat4::from_cols_array(&[
            1.0, 2.0, 3.0, 0.0, 4.0, 5.0, 6.0, 0.0, 7.0, 8.0, 9.0, 0.0, 10.0, 11.0, 12.0, 1.0,
        ]);
        let floats = |e: Encoding| -> Vec<f32> {
            let tex = encode(e, &[m], None, 1, 1, 8192).expect("encode");
            tex.data
                .chunks(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect()
        };
        assert_eq!(
            floats(Encoding::Mat3x4F32),
            vec![1.0, 4.0, 7.0, 10.0, 2.0, 5.0, 8.0, 11.0, 3.0, 6.0, 9.0, 12.0]
        );
        assert_eq!(floats(Encoding::Mat4F32), m.to_cols_array().to_vec());
    }
}
