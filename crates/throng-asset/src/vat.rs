//! CPU decoder of vertex animation textures (docs/design.md §3 "VAT"): the twin of the WGSL VAT
//! vertex path. Per vertex the shader fetches its texel in the frame-table rows of each layer's
//! taps (two on a linear clip, four on a cubic one), sums them by tap weight, and sums the
//! layers by weight — positions and normals alike — then renormalises the normal. Positions in file units (model space), normals unit length.
//!
//! Normals use the octahedral mapping (Cigolle, Donow, Evangelakos, Mara, McGuire, Meyer 2014,
//! "A Survey of Efficient Representations for Independent Unit Vectors", JCGT 3(2), §3.1) stored
//! as two snorm16 (`max(q / 32767, −1)`), in an Rg16Sint texture so no filtering feature is needed.

use glam::{Vec2, Vec3};

use crate::decode::{layer_rows, snorm16, SNORM16_MAX};
use crate::error::DecodeError;
use crate::types::{BakedAsset, Layer, Vat, VatEncoding};

/// `+1` for `x ≥ 0` (including −0), else `−1` — WGSL's `select(-1.0, 1.0, x >= 0.0)`.
fn sign_nz(x: f32) -> f32 {
    if x >= 0.0 {
        1.0
    } else {
        -1.0
    }
}

/// Octahedral (u, v) ∈ [−1, 1]² of a unit vector (Cigolle et al. 2014, listing 1).
pub fn oct_wrap(n: Vec3) -> Vec2 {
    let s = n.x.abs() + n.y.abs() + n.z.abs();
    if s <= 0.0 || !s.is_finite() {
        return Vec2::ZERO;
    }
    let p = n / s;
    if p.z >= 0.0 {
        Vec2::new(p.x, p.y)
    } else {
        Vec2::new(
            (1.0 - p.y.abs()) * sign_nz(p.x),
            (1.0 - p.x.abs()) * sign_nz(p.y),
        )
    }
}

/// Unit vector of octahedral (u, v) ∈ [−1, 1]² (the inverse of [`oct_wrap`]), as the shader
/// computes it: `z = 1 − |u| − |v|`; where `z < 0` the lower half folds back; normalised.
pub fn oct_unwrap(e: Vec2) -> Vec3 {
    let z = 1.0 - e.x.abs() - e.y.abs();
    let (x, y) = if z < 0.0 {
        (
            (1.0 - e.y.abs()) * sign_nz(e.x),
            (1.0 - e.x.abs()) * sign_nz(e.y),
        )
    } else {
        (e.x, e.y)
    };
    Vec3::new(x, y, z).normalize_or_zero()
}

/// Decodes a stored normal texel: two snorm16, then [`oct_unwrap`].
pub fn oct_decode(q: [i16; 2]) -> Vec3 {
    oct_unwrap(Vec2::new(snorm16(q[0]), snorm16(q[1])))
}

/// Encodes a unit normal as two snorm16: of the four roundings (floor/ceil per component) of its
/// octahedral coordinates, the one that decodes closest to `n` (Cigolle et al. 2014 §3.1
/// "precise" variant). A zero or non-finite vector encodes as (0, 0) (decodes to +Z).
pub fn oct_encode(n: Vec3) -> [i16; 2] {
    let n = n.normalize_or_zero();
    if n == Vec3::ZERO {
        return [0, 0];
    }
    let e = oct_wrap(n) * SNORM16_MAX;
    let q = |x: f32| x.clamp(-SNORM16_MAX, SNORM16_MAX) as i16;
    let mut best = [q(e.x.round()), q(e.y.round())];
    let mut best_err = (oct_decode(best) - n).length_squared();
    for x in [e.x.floor(), e.x.ceil()] {
        for y in [e.y.floor(), e.y.ceil()] {
            let c = [q(x), q(y)];
            let err = (oct_decode(c) - n).length_squared();
            if err < best_err {
                best = c;
                best_err = err;
            }
        }
    }
    best
}

fn out_of_range(vat: &Vat, primitive: usize, vertex: u32, row: u32) -> DecodeError {
    DecodeError::VatOutOfRange {
        primitive,
        vertex,
        row,
        vertices: vat.vertices,
        rows: vat.rows,
    }
}

/// Flat texel index of vertex `v` at frame-table row `row`, checked against the VAT's size.
fn texel_index(vat: &Vat, primitive: usize, v: u32, row: u32) -> Result<usize, DecodeError> {
    if v >= vat.vertices || row >= vat.rows {
        return Err(out_of_range(vat, primitive, v, row));
    }
    let (x, y) = vat.texel_of(v, row);
    Ok(y as usize * vat.width as usize + x as usize)
}

/// Position of vertex `v` at frame-table `row` as the shader's `textureLoad` + decode gives it
/// (file units): f32/f16 as stored (xyz), unorm16 as `min + (q / 65535) · (max − min)`.
pub fn fetch_position(vat: &Vat, primitive: usize, v: u32, row: u32) -> Result<Vec3, DecodeError> {
    let t = texel_index(vat, primitive, v, row)?;
    let bpt = vat.encoding.bytes_per_texel() as usize;
    let b = vat
        .positions
        .get(t * bpt..(t + 1) * bpt)
        .ok_or_else(|| out_of_range(vat, primitive, v, row))?;
    let c = |i: usize, size: usize| &b[i * size..(i + 1) * size];
    Ok(match vat.encoding {
        VatEncoding::F32 => {
            let f = |i| {
                let s = c(i, 4);
                f32::from_le_bytes([s[0], s[1], s[2], s[3]])
            };
            Vec3::new(f(0), f(1), f(2))
        }
        VatEncoding::F16 => {
            let f = |i| {
                let s = c(i, 2);
                half::f16::from_le_bytes([s[0], s[1]]).to_f32()
            };
            Vec3::new(f(0), f(1), f(2))
        }
        VatEncoding::Unorm16 => {
            let f = |i| {
                let s = c(i, 2);
                u16::from_le_bytes([s[0], s[1]]) as f32
            };
            let q = Vec3::new(f(0), f(1), f(2));
            vat.min + (q / 65535.0) * (vat.max - vat.min)
        }
    })
}

/// Unit normal of vertex `v` at frame-table `row` (decoded octahedral texel).
pub fn fetch_normal(vat: &Vat, primitive: usize, v: u32, row: u32) -> Result<Vec3, DecodeError> {
    let t = texel_index(vat, primitive, v, row)?;
    let q = vat
        .normals
        .get(2 * t..2 * t + 2)
        .ok_or_else(|| out_of_range(vat, primitive, v, row))?;
    Ok(oct_decode([q[0], q[1]]))
}

/// VAT-animated positions and unit normals of primitive `prim_index` for a per-instance layer
/// record (docs/design.md §4): per vertex `Σ_l weight_l · Σ_k w_k x(row_k)` over each layer's
/// taps (on a linear clip `mix(x(row_l), x(next_l), frac_l)`) for
/// positions and normals, the normal then normalised (zero where the blend cancels). An empty
/// `layers` (or all weights 0) shows the rest row.
pub fn vat_vertices(
    asset: &BakedAsset,
    prim_index: usize,
    layers: &[Layer],
) -> Result<(Vec<Vec3>, Vec<Vec3>), DecodeError> {
    let prim = crate::decode::primitive(asset, prim_index)?;
    let vat = prim.vat.as_ref().ok_or(DecodeError::NoVat {
        primitive: prim_index,
    })?;
    let rows = layer_rows(layers, &asset.clips)?;
    let n = vat.vertices;
    let mut pos = Vec::with_capacity(n as usize);
    let mut nrm = Vec::with_capacity(n as usize);
    for v in 0..n {
        let (mut p, mut q) = (Vec3::ZERO, Vec3::ZERO);
        for l in &rows {
            let (mut lp, mut lq) = (Vec3::ZERO, Vec3::ZERO);
            for (row, w) in l.taps.iter() {
                lp += fetch_position(vat, prim_index, v, row)? * w;
                lq += fetch_normal(vat, prim_index, v, row)? * w;
            }
            p += lp * l.weight;
            q += lq * l.weight;
        }
        pos.push(p);
        nrm.push(q.normalize_or_zero());
    }
    Ok((pos, nrm))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Octahedral round trip over a sphere of directions: the snorm16 grid spacing is 2/32767
    /// in (u, v), so the chord error |n − decode(encode(n))| (≈ the angle in radians; `acos`
    /// near 1 is too coarse in f32 to measure it) stays well below 1e-4.
    #[test]
    fn oct_round_trip() {
        let mut worst = 0.0f32;
        for i in 0..64 {
            for j in 0..128 {
                let th = std::f32::consts::PI * (i as f32 + 0.5) / 64.0;
                let ph = std::f32::consts::TAU * j as f32 / 128.0;
                let n = Vec3::new(th.sin() * ph.cos(), th.sin() * ph.sin(), th.cos());
                let d = oct_decode(oct_encode(n));
                worst = worst.max((n - d).length());
            }
        }
        for n in [Vec3::X, Vec3::Y, Vec3::Z, -Vec3::X, -Vec3::Y, -Vec3::Z] {
            worst = worst.max((n - oct_decode(oct_encode(n))).length());
        }
        assert!(worst < 1e-4, "worst chord {worst}");
        assert_eq!(oct_encode(Vec3::ZERO), [0, 0]);
    }
}
