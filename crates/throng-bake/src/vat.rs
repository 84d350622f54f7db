//! Vertex animation textures (docs/design.md §3 "VAT"): per primitive the skinned model-space
//! position and normal of every vertex at every frame-table row.
//!
//! Source of the values: the bake's own sampled skin matrices `S_j` (f32, before any bone-texture
//! encoding) applied by linear blend skinning with the primitive's *baked* K influences (the
//! unorm16 weights as `q / 65535`), exactly the `p' = Σ_i w_i · S_{j_i} · p` the texture path
//! draws with an exact bone texture; normals by the cofactor (inverse-transpose) of the blended
//! linear part, as `throng_asset::decode::lbs_normal`. So a VAT removes the bone texture's
//! quantisation but keeps the K-influence cut.
//!
//! Layout: width `W = min(V, max_texture_size)`; a frame-table row spans `R = ceil(V / W)`
//! texture rows; `rows_per_layer = max_texture_size` texture rows per array layer. LODs share the
//! vertex streams, so one VAT per primitive serves every LOD's index buffer.

use crate::error::BakeError;
use glam::{Mat4, Vec3};
use rayon::prelude::*;
use throng_asset::decode::{lbs_normal, lbs_point, unorm16};
use throng_asset::vat::oct_encode;
use throng_asset::{Aabb, BakedPrimitive, Vat, VatEncoding};

/// Skinned positions and normals of one primitive, row-major (`rows × V`).
struct Skinned {
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
}

/// LBS of every vertex of `p` at every row of `matrices` (`rows × entries`, row-major) with the
/// baked K influences.
fn skin_rows(matrices: &[Mat4], entries: usize, p: &BakedPrimitive) -> Skinned {
    let v = p.vertex_count();
    let k = p.influences as usize;
    let rows = matrices.len() / entries.max(1);
    let mut positions = vec![Vec3::ZERO; rows * v];
    let mut normals = vec![Vec3::ZERO; rows * v];
    positions
        .par_chunks_mut(v.max(1))
        .zip(normals.par_chunks_mut(v.max(1)))
        .zip(matrices.par_chunks(entries.max(1)))
        .for_each(|((pos, nrm), s)| {
            for i in 0..v {
                let mut m = Mat4::ZERO;
                for c in 0..k {
                    let w = unorm16(p.weights[i * k + c]);
                    if w > 0.0 {
                        m += s[p.joints[i * k + c] as usize] * w;
                    }
                }
                pos[i] = lbs_point(&m, p.positions[i]);
                nrm[i] = lbs_normal(&m, p.normals[i]);
            }
        });
    Skinned { positions, normals }
}

/// One VAT per primitive, in `encoding`, from the sampled skin matrices (`rows × entries`,
/// row-major). The unorm16 range is the box around every VAT position of the asset (all
/// primitives, all rows), recorded in every VAT. Errors when an f16 position overflows.
pub fn build(
    file: &str,
    node_names: &dyn Fn(usize) -> String,
    matrices: &[Mat4],
    entries: usize,
    prims: &[BakedPrimitive],
    encoding: VatEncoding,
    max_texture_size: u32,
) -> Result<Vec<Vat>, BakeError> {
    let rows = (matrices.len() / entries.max(1)) as u32;
    let skinned: Vec<Skinned> = prims
        .iter()
        .map(|p| skin_rows(matrices, entries, p))
        .collect();
    let mut bb = Aabb::EMPTY;
    for s in &skinned {
        for p in &s.positions {
            bb.extend(*p);
        }
    }
    if bb.is_empty() {
        bb = Aabb {
            min: Vec3::ZERO,
            max: Vec3::ZERO,
        };
    }
    let mut out = Vec::with_capacity(prims.len());
    for (p, s) in prims.iter().zip(&skinned) {
        let v = p.vertex_count() as u32;
        let width = v.clamp(1, max_texture_size.max(1));
        let mut vat = Vat {
            encoding,
            width,
            vertices: v,
            rows,
            rows_per_layer: max_texture_size.max(1),
            min: bb.min,
            max: bb.max,
            positions: Vec::new(),
            normals: Vec::new(),
        };
        let texels = vat.texture_rows() as usize * width as usize;
        let bpt = encoding.bytes_per_texel() as usize;
        vat.positions = vec![0; texels * bpt];
        vat.normals = vec![0; texels * 2];
        let range = bb.max - bb.min;
        for f in 0..rows {
            for i in 0..v {
                let src = (f * v + i) as usize;
                let (x, y) = vat.texel_of(i, f);
                let t = y as usize * width as usize + x as usize;
                let pos = s.positions[src];
                let dst = &mut vat.positions[t * bpt..(t + 1) * bpt];
                match encoding {
                    VatEncoding::F32 => {
                        for (c, x) in [pos.x, pos.y, pos.z, 1.0].iter().enumerate() {
                            dst[4 * c..4 * c + 4].copy_from_slice(&x.to_le_bytes());
                        }
                    }
                    VatEncoding::F16 => {
                        for (c, x) in [pos.x, pos.y, pos.z, 1.0].iter().enumerate() {
                            let h = half::f16::from_f32(*x);
                            if !h.is_finite() {
                                return Err(BakeError::BadPrimitive {
                                    file: file.to_string(),
                                    node: node_names(p.node_index),
                                    mesh: p.mesh,
                                    primitive: p.primitive,
                                    what: format!(
                                        "vertex {i} at frame-table row {f} has coordinate {x}, beyond the f16 range of VAT storage f16; store VAT positions as unorm16 or f32"
                                    ),
                                });
                            }
                            dst[2 * c..2 * c + 2].copy_from_slice(&h.to_le_bytes());
                        }
                    }
                    VatEncoding::Unorm16 => {
                        let q = |x: f32, lo: f32, r: f32| -> u16 {
                            if r > 0.0 {
                                ((x - lo) / r * 65535.0).round().clamp(0.0, 65535.0) as u16
                            } else {
                                0
                            }
                        };
                        let qs = [
                            q(pos.x, bb.min.x, range.x),
                            q(pos.y, bb.min.y, range.y),
                            q(pos.z, bb.min.z, range.z),
                            0,
                        ];
                        for (c, x) in qs.iter().enumerate() {
                            dst[2 * c..2 * c + 2].copy_from_slice(&x.to_le_bytes());
                        }
                    }
                }
                let n = oct_encode(s.normals[src]);
                vat.normals[2 * t] = n[0];
                vat.normals[2 * t + 1] = n[1];
            }
        }
        out.push(vat);
    }
    Ok(out)
}
