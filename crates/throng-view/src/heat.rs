//! The error heat map: per vertex, the distance between the bake's CPU decoder (the twin of the
//! shaders) and the source skinned on the CPU at the same clip time, drawn by the reference path
//! with a colour ramp as the base-colour texture (u = error / scale). The scale is the default
//! error budget, 1e-3 of the asset's bounding diagonal: red is a vertex at the budget or past it.

use glam::Vec2;
use throng_anim::SkinnedPart;
use throng_asset::decode::{skin_vertices, SkinnedVertices};
use throng_asset::{BakedAsset, TextureTransform};
use throng_contract::{InstanceRecord, Skinning};
use throng_render::gpu_types::MaterialUniform;
use throng_render::image::{Rgba, RgbaImage};
use throng_render::{InstanceTransform, PropMesh, ReferenceMesh};

/// Texels of the colour ramp.
const RAMP: u32 = 256;

/// The ramp's colour at `x` in 0..=1: blue, cyan, green, yellow, red (sRGB).
pub fn ramp(x: f32) -> [u8; 3] {
    let stops: [[f32; 3]; 5] = [
        [0.10, 0.20, 0.90],
        [0.00, 0.80, 0.90],
        [0.10, 0.85, 0.20],
        [0.95, 0.85, 0.10],
        [0.90, 0.10, 0.10],
    ];
    let t = x.clamp(0.0, 1.0) * (stops.len() - 1) as f32;
    let i = (t.floor() as usize).min(stops.len() - 2);
    let f = t - i as f32;
    let c = |k: usize| ((stops[i][k] * (1.0 - f) + stops[i + 1][k] * f) * 255.0).round() as u8;
    [c(0), c(1), c(2)]
}

/// The ramp as a PNG, `RAMP` × 1 texels, for the reference path's texture.
pub fn ramp_png() -> anyhow::Result<Vec<u8>> {
    let img = RgbaImage::from_fn(RAMP, 1, |x, _| {
        let [r, g, b] = ramp((x as f32 + 0.5) / RAMP as f32);
        Rgba([r, g, b, 255])
    });
    throng_scene::encode_png(&img)
}

/// What the colours mean.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Legend {
    /// The error drawn red, file units (1e-3 of the diagonal).
    pub scale: f32,
    /// The asset's bounding diagonal, file units.
    pub diagonal: f32,
    /// The largest error now, file units.
    pub worst: f32,
}

/// Decoded vertices of every instance and primitive with their heat coordinates.
pub struct HeatField {
    /// Per instance, per primitive.
    decoded: Vec<Vec<(SkinnedVertices, Vec<Vec2>)>>,
    pub legend: Legend,
}

impl HeatField {
    /// `records[i]` drawn by the decoder against `source[i]` (instance i's source parts).
    pub fn new(
        asset: &BakedAsset,
        records: &[InstanceRecord],
        source: &[Vec<SkinnedPart>],
        skinning: Skinning,
    ) -> anyhow::Result<HeatField> {
        let diagonal = asset.pose_bounds().diagonal().max(1e-9);
        let scale = 1e-3 * diagonal;
        let mut worst = 0.0f32;
        let mut decoded = Vec::with_capacity(records.len());
        for (r, parts) in records.iter().zip(source) {
            let mut per = Vec::with_capacity(asset.primitives.len());
            for (pi, bp) in asset.primitives.iter().enumerate() {
                let sv = skin_vertices(asset, pi, &r.layers, skinning)?;
                let src = parts.iter().find(|p| {
                    p.node == bp.node_index && p.mesh == bp.mesh && p.primitive == bp.primitive
                });
                let half = 0.5 / RAMP as f32;
                let uvs = sv
                    .positions
                    .iter()
                    .enumerate()
                    .map(|(v, a)| {
                        let e = src
                            .and_then(|s| s.vertices.positions.get(v))
                            .map_or(0.0, |b| a.distance(*b));
                        worst = worst.max(e);
                        Vec2::new((e / scale).clamp(half, 1.0 - half), 0.5)
                    })
                    .collect();
                per.push((sv, uvs));
            }
            decoded.push(per);
        }
        Ok(HeatField {
            decoded,
            legend: Legend {
                scale,
                diagonal,
                worst,
            },
        })
    }

    /// The meshes to draw: instance i at `transforms[i]`, textured with the ramp.
    pub fn meshes<'a>(
        &'a self,
        asset: &'a BakedAsset,
        transforms: &'a [InstanceTransform],
        ramp_png: &'a [u8],
    ) -> Vec<ReferenceMesh<'a>> {
        let mut out = Vec::new();
        for (per, t) in self.decoded.iter().zip(transforms) {
            for ((sv, uvs), bp) in per.iter().zip(&asset.primitives) {
                let mesh = PropMesh {
                    positions: &sv.positions,
                    normals: &sv.normals,
                    indices: &bp.indices,
                    uvs: Some(uvs),
                    material: MaterialUniform::new([1.0; 4], &TextureTransform::default()),
                    texture: Some(ramp_png),
                };
                let transforms = std::slice::from_ref(t);
                out.push(ReferenceMesh { mesh, transforms });
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ramp_runs_blue_to_red() {
        assert_eq!(ramp(0.0), [26, 51, 230]);
        assert_eq!(ramp(1.0), [230, 26, 26]);
        assert_eq!(ramp(-1.0), ramp(0.0));
        assert_eq!(ramp(2.0), ramp(1.0));
    }
}
