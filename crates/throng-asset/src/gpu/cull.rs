//! What the culling and LOD rules (`throng::cull`, `shaders/cull.wgsl`) read of an asset, made
//! once for every embedding: the box of every frame-table row, the asset's fallback box, the
//! rows' margin, and each primitive's LOD index ranges with the LOD levels' simplification
//! errors (docs/design.md §5 "Cull").

use crate::{Aabb, BakedAsset, BakedPrimitive};
use glam::{Mat4, Vec2, Vec3, Vec4};

/// wgpu's `DrawIndexedIndirect` arguments (20 B; WGSL `DrawArgs` in both embeddings' culling
/// passes), as culling counts instances into them: the one Rust definition throng-render and
/// throng-bevy upload and read back.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DrawIndexedArgs {
    pub index_count: u32,
    pub instance_count: u32,
    pub first_index: u32,
    pub base_vertex: i32,
    pub first_instance: u32,
}

/// Margin of a frame-table row's box in culling, as a fraction of the asset's bounding
/// diagonal (WGSL `BoxRule::row_pad`): 1 %, far above the default error budget (0.1 %).
pub const ROW_PAD: f32 = 0.01;

/// LOD levels the culling rules select between (LOD 0 included; WGSL `LodRule::lod_error` holds
/// 8).
pub const MAX_LODS: usize = 8;

/// The asset's box for culling (model space, file units): the union of every pose and every
/// clip's box, or of the bind-pose vertices when it has neither; the box of a layer whose clip
/// has none, of the rest pose and of live poses. Every box WGSL `instance_box` finds lies in it
/// grown by the row pad, so `coarse_box` may reject an instance before its playback is read.
pub fn cull_bounds(asset: &BakedAsset) -> Aabb {
    let mut bounds = asset
        .clips
        .iter()
        .fold(asset.pose_bounds(), |a, c| a.union(&c.bounds));
    if bounds.is_empty() {
        for p in &asset.primitives {
            for &q in &p.positions {
                bounds.extend(q);
            }
        }
    }
    bounds
}

/// The pixel centres a sphere (`centre`, `radius`, world) seen through `view_proj` on a target
/// of `viewport` pixels may cover (`pixels_per_unit`: pixels a length of 1 covers at a distance
/// of 1): its screen box — the radius projected at the sphere's nearest depth, grown by half for
/// the stretch off the axis — holds the centres `(x + 0.5 + i, y + 0.5 + j)` for `i < z`,
/// `j < w` of the result (`z` or `w` 0: none, so with one sample a pixel nothing inside makes a
/// fragment); a sphere reaching behind the camera gives counts −1. The CPU twin of WGSL
/// `throng::cull::sphere_pixel_centres` (`shaders/cull.wgsl`).
pub fn sphere_pixel_centres(
    centre: Vec3,
    radius: f32,
    view_proj: &Mat4,
    viewport: Vec2,
    pixels_per_unit: f32,
) -> Vec4 {
    let c = *view_proj * centre.extend(1.0);
    if c.w - radius <= 1e-6 {
        return Vec4::new(0.0, 0.0, -1.0, -1.0);
    }
    let px = (c.x / c.w * 0.5 + 0.5) * viewport.x;
    let py = (0.5 - c.y / c.w * 0.5) * viewport.y;
    let pr = 1.5 * radius * pixels_per_unit / (c.w - radius);
    let lo = Vec2::new((px - pr - 0.5).ceil(), (py - pr - 0.5).ceil());
    let hi = Vec2::new((px + pr - 0.5).floor(), (py + pr - 0.5).floor());
    let n = (hi - lo + 1.0).max(Vec2::ZERO);
    Vec4::new(lo.x, lo.y, n.x, n.y)
}

/// One box per row of the bone texture, as the WGSL `row_bounds` binding reads them:
/// `(min, 0), (max, 0)` per row (a row without a box gets an empty one, min above max, and is
/// culled by its clip's box). Never empty when the texture has rows.
pub fn row_bound_words(asset: &BakedAsset) -> Vec<[f32; 4]> {
    (0..asset.bone_texture.rows as usize)
        .map(|r| asset.row_bounds.get(r).copied().unwrap_or(Aabb::EMPTY))
        .flat_map(|b| [b.min.extend(0.0).to_array(), b.max.extend(0.0).to_array()])
        .collect()
}

/// A primitive's index buffer with every LOD: LOD 0's triangle list followed by each simplified
/// LOD's.
#[derive(Debug, Clone, PartialEq)]
pub struct LodRanges {
    /// Every LOD's indices, LOD 0 first.
    pub indices: Vec<u32>,
    /// (first index, index count) of each LOD in `indices`; `[0]` is LOD 0. A level whose
    /// simplification came out empty (or not a triangle list) repeats the coarser one before it.
    pub ranges: Vec<(u32, u32)>,
    /// Simplification error of each level in model units (file units): meshoptimizer's
    /// relative error × the primitive's largest extent, never below the level before; `[0]` = 0.
    pub errors: Vec<f32>,
}

impl LodRanges {
    /// Primitive `p`'s LODs, at most [`MAX_LODS`] levels.
    pub fn of(p: &BakedPrimitive) -> LodRanges {
        let mut indices = p.indices.clone();
        let mut ranges = vec![(0, p.indices.len() as u32)];
        let mut errors = vec![0.0f32];
        let mut extent = Aabb::EMPTY;
        for &q in &p.positions {
            extent.extend(q);
        }
        let size = if extent.is_empty() {
            0.0
        } else {
            (extent.max - extent.min).max_element()
        };
        for lod in p.lods.iter().take(MAX_LODS - 1) {
            let coarsest = *ranges.last().unwrap_or(&(0, 0));
            let err = errors.last().copied().unwrap_or(0.0);
            if lod.indices.is_empty() || lod.indices.len() % 3 != 0 {
                ranges.push(coarsest);
                errors.push(err);
                continue;
            }
            ranges.push((indices.len() as u32, lod.indices.len() as u32));
            indices.extend_from_slice(&lod.indices);
            errors.push((lod.error * size).max(err));
        }
        LodRanges {
            indices,
            ranges,
            errors,
        }
    }
}

/// The asset's LOD errors: per level the largest over the primitives (each primitive's
/// [`LodRanges::errors`]); the length is the asset's LOD count.
pub fn lod_errors<'a>(primitives: impl IntoIterator<Item = &'a [f32]>) -> Vec<f32> {
    let mut out: Vec<f32> = Vec::new();
    for errors in primitives {
        for (l, &e) in errors.iter().enumerate() {
            if l >= out.len() {
                out.push(e);
            } else {
                out[l] = out[l].max(e);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A camera at the origin looking down −Z, 90° vertical field of view, on 100 × 100
    /// pixels: a length of 1 at a distance of 1 covers 50 pixels.
    fn view() -> (Mat4, Vec2, f32) {
        // clip = (x, y, −z − 0.2, −z) for a view-space point (x, y, z): focal length 1; the
        // depth row does not take part.
        let proj = Mat4::from_cols(
            Vec4::X,
            Vec4::Y,
            Vec4::new(0.0, 0.0, -1.0, -1.0),
            Vec4::new(0.0, 0.0, -0.2, 0.0),
        );
        (proj, Vec2::splat(100.0), 50.0)
    }

    #[test]
    fn sphere_pixel_centres_counts_the_centres_of_the_screen_box() {
        let (vp, size, ppu) = view();
        // On the axis: the box spans 50 ± 0.075 pixels, between the centres 49.5 and 50.5.
        let tiny = sphere_pixel_centres(Vec3::new(0.0, 0.0, -10.0), 0.01, &vp, size, ppu);
        assert_eq!((tiny.z, tiny.w), (0.0, 0.0));
        // Moved right by a fiftieth of the distance: x = 50.5, on a centre (column 50); y still
        // between centres.
        let on = sphere_pixel_centres(Vec3::new(0.1, 0.0, -10.0), 0.01, &vp, size, ppu);
        assert_eq!((on.x, on.z, on.w), (50.0, 1.0, 0.0));
        // Larger: radius 0.2 at 10 projects to 1.5 · 0.2 · 50 / 9.8 ≈ 1.53 pixels either side of
        // 50, holding the centres 48.5 … 51.5 along each axis.
        let big = sphere_pixel_centres(Vec3::new(0.0, 0.0, -10.0), 0.2, &vp, size, ppu);
        assert_eq!(big, Vec4::new(48.0, 48.0, 4.0, 4.0));
        // Reaching behind the camera: unbounded.
        let behind = sphere_pixel_centres(Vec3::new(0.0, 0.0, -0.5), 1.0, &vp, size, ppu);
        assert_eq!((behind.z, behind.w), (-1.0, -1.0));
    }
}
