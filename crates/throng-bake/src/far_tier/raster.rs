//! A small CPU rasteriser for the far tier: orthographic views of one skinned pose, several
//! samples per texel, nearest surface kept (docs/design.md §3 "Far tier"). It draws a few
//! thousand triangles into tiles of a few dozen texels, so a scanline-free edge-function loop
//! over each triangle's box is all it needs; no GPU, so the bake stays byte-identical on every
//! machine.

use glam::{Vec2, Vec3, Vec4};
use throng_asset::far_tier::srgb_decode as srgb_to_linear;
use throng_asset::gpu::MaterialUniform;
use throng_asset::{BakedAsset, BakedMaterial};

/// A decoded base-colour texture, linear RGBA (sRGB decoded; alpha as stored).
pub struct Texture {
    width: u32,
    height: u32,
    texels: Vec<Vec4>,
}

impl Texture {
    fn decode(bytes: &[u8]) -> Option<Texture> {
        let img = image::load_from_memory(bytes).ok()?.to_rgba8();
        let texels = img
            .pixels()
            .map(|p| {
                Vec4::new(
                    srgb_to_linear(p[0]),
                    srgb_to_linear(p[1]),
                    srgb_to_linear(p[2]),
                    p[3] as f32 / 255.0,
                )
            })
            .collect();
        Some(Texture {
            width: img.width(),
            height: img.height(),
            texels,
        })
    }

    /// Bilinear, repeat addressing (what the renderer's sampler does, without mipmaps).
    fn sample(&self, uv: Vec2) -> Vec4 {
        let (w, h) = (self.width as i64, self.height as i64);
        let x = uv.x * w as f32 - 0.5;
        let y = uv.y * h as f32 - 0.5;
        let (x0, y0) = (x.floor(), y.floor());
        let (fx, fy) = (x - x0, y - y0);
        let at = |i: i64, j: i64| self.texels[(j.rem_euclid(h) * w + i.rem_euclid(w)) as usize];
        let (i, j) = (x0 as i64, y0 as i64);
        let top = at(i, j).lerp(at(i + 1, j), fx);
        let bottom = at(i, j + 1).lerp(at(i + 1, j + 1), fx);
        top.lerp(bottom, fy)
    }
}

/// One primitive's material as the rasteriser reads it.
struct Surface {
    uniform: MaterialUniform,
    texture: Option<usize>,
}

/// What the rasteriser draws of an asset: per primitive its material and the textures, decoded
/// once; and per material variant each primitive's material in it. An image that does not
/// decode is drawn as its material's factor alone.
pub struct Materials {
    surfaces: Vec<Option<Surface>>,
    /// Variant number v at `v − 1`, per primitive.
    variants: Vec<Vec<Option<Surface>>>,
    textures: Vec<Option<Texture>>,
}

impl Materials {
    /// The primitives' own materials of `asset`.
    pub fn new(asset: &BakedAsset) -> Materials {
        let textures = asset
            .images
            .iter()
            .map(|i| Texture::decode(&i.bytes))
            .collect();
        let surface = |m: &BakedMaterial| Surface {
            uniform: MaterialUniform::new(m.base_color_factor, &m.texture_transform),
            texture: m.base_color_texture,
        };
        let surfaces = asset
            .primitives
            .iter()
            .map(|p| p.material.and_then(|m| asset.materials.get(m)).map(surface))
            .collect();
        let variants = (1..=asset.variants.len() as u32)
            .map(|v| {
                (0..asset.primitives.len())
                    .map(|p| {
                        asset
                            .variant_material(v, p)
                            .and_then(|m| asset.materials.get(m))
                            .map(surface)
                    })
                    .collect()
            })
            .collect();
        Materials {
            surfaces,
            variants,
            textures,
        }
    }

    /// Material variants of the asset.
    pub fn variants(&self) -> usize {
        self.variants.len()
    }

    /// Linear base colour of primitive `prim` at texture coordinate `uv` in material variant
    /// `variant` (0: its own material; white without a material, the factor alone without a
    /// texture).
    pub fn albedo_in(&self, variant: usize, prim: usize, uv: Option<Vec2>) -> Vec3 {
        let surfaces = variant
            .checked_sub(1)
            .and_then(|v| self.variants.get(v))
            .unwrap_or(&self.surfaces);
        let Some(Some(s)) = surfaces.get(prim) else {
            return Vec3::ONE;
        };
        let factor = Vec4::from_array(s.uniform.base_color);
        let tex = match (s.texture.and_then(|t| self.textures.get(t)), uv) {
            (Some(Some(t)), Some(uv)) => {
                let u3 = uv.extend(1.0);
                let r0 = Vec4::from_array(s.uniform.uv_row0).truncate();
                let r1 = Vec4::from_array(s.uniform.uv_row1).truncate();
                t.sample(Vec2::new(r0.dot(u3), r1.dot(u3)))
            }
            _ => Vec4::ONE,
        };
        (factor * tex).truncate()
    }
}

/// An orthographic view of the square of side `2·radius` around `centre`, perpendicular to
/// `toward_viewer`, `size` samples per side, first row at the top.
#[derive(Debug, Clone, Copy)]
pub struct View {
    pub centre: Vec3,
    pub radius: f32,
    pub toward_viewer: Vec3,
    pub size: u32,
}

impl View {
    /// The image plane's right and up axes and the unit direction towards the viewer: right =
    /// +Y × toward, so azimuth 0 (the viewer on +Z) sees +X on the right and +Y up.
    pub fn axes(&self) -> (Vec3, Vec3, Vec3) {
        let o = self.toward_viewer.normalize_or(Vec3::Z);
        let right = Vec3::Y.cross(o).try_normalize().unwrap_or(Vec3::X);
        let up = o.cross(right);
        (right, up, o)
    }
}

/// The samples of one view: per sample whether the character covers it and, where it does, the
/// nearest surface's linear base colour, unit normal facing the viewer, primitive (as the tier
/// stores it, and its index), texture coordinate and depth towards the viewer (file units from
/// the centre).
pub struct Samples {
    pub size: u32,
    pub hit: Vec<bool>,
    pub albedo: Vec<Vec3>,
    pub normal: Vec<Vec3>,
    pub prim: Vec<u8>,
    pub primitive: Vec<u32>,
    pub uv: Vec<Option<Vec2>>,
    pub depth: Vec<f32>,
}

/// Skinned vertex streams of every primitive of a pose (primitives in order, concatenated, as
/// `crate::engines::frames::pose` gives them).
pub struct PoseRef<'a> {
    pub positions: &'a [Vec3],
    pub normals: &'a [Vec3],
}

/// Draws `pose` of `asset` (LOD 0 of every primitive) into `view`'s samples, nearest surface
/// first. Faces are not culled (throng draws every material double-sided-lit); a face seen from
/// behind (clockwise on screen, glTF's fronts being counter-clockwise) shows its flipped normal,
/// as the main pass lights it.
pub fn rasterize(asset: &BakedAsset, materials: &Materials, pose: PoseRef, view: View) -> Samples {
    let n = view.size as usize;
    let mut s = Samples {
        size: view.size,
        hit: vec![false; n * n],
        albedo: vec![Vec3::ZERO; n * n],
        normal: vec![Vec3::ZERO; n * n],
        prim: vec![0; n * n],
        primitive: vec![0; n * n],
        uv: vec![None; n * n],
        depth: vec![f32::NEG_INFINITY; n * n],
    };
    let (right, up, o) = view.axes();
    let scale = n as f32 / (2.0 * view.radius);
    // Sample space: x right, y down, origin at the top-left corner.
    let project = |p: Vec3| -> Vec3 {
        let q = p - view.centre;
        Vec3::new(
            (q.dot(right) + view.radius) * scale,
            (view.radius - q.dot(up)) * scale,
            q.dot(o),
        )
    };
    let mut first = 0usize;
    for (pi, prim) in asset.primitives.iter().enumerate() {
        let count = prim.positions.len();
        let (Some(pos), Some(nrm)) = (
            pose.positions.get(first..first + count),
            pose.normals.get(first..first + count),
        ) else {
            break;
        };
        first += count;
        let projected: Vec<Vec3> = pos.iter().map(|&p| project(p)).collect();
        for tri in prim.indices.chunks_exact(3) {
            let [a, b, c] = [tri[0] as usize, tri[1] as usize, tri[2] as usize];
            let (Some(&pa), Some(&pb), Some(&pc)) =
                (projected.get(a), projected.get(b), projected.get(c))
            else {
                continue;
            };
            let area = edge(pa, pb, pc);
            // Degenerate, or NaN from a non-finite pose: nothing to draw.
            if area.is_nan() || area.abs() <= 1e-12 {
                continue;
            }
            // y points down: a face counter-clockwise as seen has a negative area here.
            let back = area > 0.0;
            let lo = pa.min(pb).min(pc);
            let hi = pa.max(pb).max(pc);
            let x0 = (lo.x - 0.5).ceil().max(0.0) as usize;
            let y0 = (lo.y - 0.5).ceil().max(0.0) as usize;
            let x1 = ((hi.x - 0.5).floor() as i64).min(n as i64 - 1);
            let y1 = ((hi.y - 0.5).floor() as i64).min(n as i64 - 1);
            if x1 < x0 as i64 || y1 < y0 as i64 {
                continue;
            }
            for y in y0..=y1 as usize {
                for x in x0..=x1 as usize {
                    let p = Vec3::new(x as f32 + 0.5, y as f32 + 0.5, 0.0);
                    let w0 = edge(pb, pc, p) / area;
                    let w1 = edge(pc, pa, p) / area;
                    let w2 = 1.0 - w0 - w1;
                    if w0 < 0.0 || w1 < 0.0 || w2 < 0.0 {
                        continue;
                    }
                    let z = w0 * pa.z + w1 * pb.z + w2 * pc.z;
                    let i = y * n + x;
                    if z <= s.depth[i] {
                        continue;
                    }
                    let mut normal = (nrm[a] * w0 + nrm[b] * w1 + nrm[c] * w2).normalize_or_zero();
                    if back {
                        normal = -normal;
                    }
                    let uv = prim
                        .uv0
                        .as_ref()
                        .and_then(|u| Some(*u.get(a)? * w0 + *u.get(b)? * w1 + *u.get(c)? * w2));
                    s.hit[i] = true;
                    s.depth[i] = z;
                    s.normal[i] = normal;
                    s.albedo[i] = materials.albedo_in(0, pi, uv);
                    s.prim[i] = pi.min(254) as u8;
                    s.primitive[i] = pi as u32;
                    s.uv[i] = uv;
                }
            }
        }
    }
    s
}

/// Twice the signed area of (a, b, p) in the xy plane.
fn edge(a: Vec3, b: Vec3, p: Vec3) -> f32 {
    (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x)
}
