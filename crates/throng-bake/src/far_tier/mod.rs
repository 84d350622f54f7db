//! The far-field tier's bake (docs/design.md §3 "Far tier"): per clip a few frames, per frame a
//! few views, each a small tile of the skinned character as the baked rows show it (so the tier
//! shows what the mesh tier shows), drawn by [`raster`] and stored as two RGBA8 pictures
//! (`throng_asset::far_tier`), with a colour map per material variant ([`variants`]).

pub mod raster;
pub mod variants;

use crate::engines::frames::{layer_at, pose};
use crate::BakeError;
use glam::{Vec2, Vec3};
use rayon::prelude::*;
use throng_asset::far_tier::srgb_encode;
use throng_asset::{Aabb, BakedAsset, FarClip, FarTier, FAR_TIER_BYTES_PER_TEXEL};
use throng_contract::LoopMode;

/// Samples per texel side: 4 × 4 samples give coverage in steps of 1/16.
pub const SAMPLES_PER_TEXEL: u32 = 4;

/// How the far tier is baked.
#[derive(Debug, Clone, PartialEq)]
pub struct FarTierSettings {
    /// Texels per tile side; the tier is meant for instances whose bounding sphere covers at
    /// most this many pixels across.
    pub tile: u32,
    /// Views around +Y per elevation.
    pub azimuths: u32,
    /// View elevations above the horizontal, degrees, increasing, within ±89.
    pub elevations_deg: Vec<f32>,
    /// Frames per second of clip time (a clip gets `round(d · rate)`, at least 1).
    pub frames_per_second: f32,
    /// Most frames of one clip.
    pub max_frames: u32,
    /// Most bytes of one clip's tiles: a clip whose frames would take more gets fewer frames
    /// (with a warning).
    pub max_clip_bytes: u64,
}

/// The defaults: 16 views around the character at 30° above the horizon, 16 × 16 texel tiles,
/// up to 8 frames a clip at 8 per second: 32 KiB a frame, at most 256 KiB a clip. Chosen by
/// `tests/far_tier.rs` at equal bytes: 16 azimuths at one elevation beat 8 azimuths at two
/// (15° and 45°) and 16 at two with 4 frames or with 12-texel tiles (docs/design.md §3 "Far
/// tier" has the figures).
impl Default for FarTierSettings {
    fn default() -> Self {
        FarTierSettings {
            tile: 16,
            azimuths: 16,
            elevations_deg: vec![30.0],
            frames_per_second: 8.0,
            max_frames: 8,
            max_clip_bytes: 256 * 1024,
        }
    }
}

/// `KEY=VALUE` pairs separated by commas, each key at most once, over the defaults: `tile`,
/// `azimuths`, `elevations` (degrees separated by `/`, e.g. `15/45`), `fps`, `frames` (most
/// per clip) and `clip-bytes` (most per clip); an empty string is the defaults.
impl std::str::FromStr for FarTierSettings {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let mut out = FarTierSettings::default();
        let mut seen = Vec::new();
        for pair in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let Some((key, value)) = pair.split_once('=') else {
                return Err(format!(
                    "{pair:?} is not KEY=VALUE (keys: tile, azimuths, elevations, fps, frames, clip-bytes)"
                ));
            };
            let (key, value) = (key.trim(), value.trim());
            if seen.contains(&key) {
                return Err(format!("{key} is given twice"));
            }
            seen.push(key);
            let int = |v: &str| {
                v.parse::<u64>()
                    .map_err(|_| format!("{key}={v}: not a whole number"))
            };
            match key {
                "tile" => out.tile = int(value)?.min(u32::MAX as u64) as u32,
                "azimuths" => out.azimuths = int(value)?.min(u32::MAX as u64) as u32,
                "frames" => out.max_frames = int(value)?.min(u32::MAX as u64) as u32,
                "clip-bytes" => out.max_clip_bytes = int(value)?,
                "fps" => {
                    out.frames_per_second = value
                        .parse()
                        .map_err(|_| format!("fps={value}: not a number"))?
                }
                "elevations" => {
                    out.elevations_deg = value
                        .split('/')
                        .map(|d| {
                            d.trim()
                                .parse::<f32>()
                                .map_err(|_| format!("elevations={value}: {d:?} is not a number of degrees"))
                        })
                        .collect::<Result<_, _>>()?
                }
                _ => {
                    return Err(format!(
                        "unknown key {key:?} (keys: tile, azimuths, elevations, fps, frames, clip-bytes)"
                    ))
                }
            }
        }
        Ok(out)
    }
}

impl FarTierSettings {
    fn check(&self, file: &str) -> Result<(), BakeError> {
        let bad = |what: String| {
            Err(BakeError::InvalidOption {
                file: file.to_string(),
                what: format!("far tier: {what}"),
            })
        };
        if !(1..=256).contains(&self.tile) {
            return bad(format!("tile {} texels (1..=256)", self.tile));
        }
        if !(1..=64).contains(&self.azimuths) {
            return bad(format!("{} azimuths (1..=64)", self.azimuths));
        }
        let e = &self.elevations_deg;
        if e.is_empty()
            || e.len() > 8
            || !e.iter().all(|d| d.is_finite() && d.abs() <= 89.0)
            || !e.windows(2).all(|w| w[0] < w[1])
        {
            return bad(format!(
                "elevations {e:?}: 1 to 8 increasing angles within ±89°"
            ));
        }
        if !(self.frames_per_second.is_finite() && self.frames_per_second > 0.0) {
            return bad(format!(
                "{} frames per second (must be positive)",
                self.frames_per_second
            ));
        }
        if !(1..=256).contains(&self.max_frames) {
            return bad(format!(
                "{} frames per clip at most (1..=256)",
                self.max_frames
            ));
        }
        Ok(())
    }

    /// Bytes of one frame's tiles.
    fn frame_bytes(&self) -> u64 {
        self.azimuths as u64
            * self.elevations_deg.len() as u64
            * (self.tile as u64).pow(2)
            * FAR_TIER_BYTES_PER_TEXEL as u64
    }
}

/// The far tier of `asset`, with a warning per clip whose frames the byte limit cut.
pub fn build(
    asset: &BakedAsset,
    settings: &FarTierSettings,
) -> Result<(FarTier, Vec<String>), BakeError> {
    let file = &asset.source_name;
    settings.check(file)?;
    let frame_bytes = settings.frame_bytes();
    if frame_bytes > settings.max_clip_bytes {
        return Err(BakeError::InvalidOption {
            file: file.clone(),
            what: format!(
                "far tier: one frame's tiles take {frame_bytes} B, more than the {} B a clip may take; use fewer views or smaller tiles",
                settings.max_clip_bytes
            ),
        });
    }
    let mut warnings = Vec::new();
    let mut clips = Vec::with_capacity(asset.clips.len());
    let mut next = 0u32;
    for c in &asset.clips {
        let wanted = (c.duration * settings.frames_per_second as f64).round() as u32
            + u32::from(c.loop_mode != LoopMode::Loop);
        let mut frames = wanted.clamp(1, settings.max_frames);
        let fit = (settings.max_clip_bytes / frame_bytes) as u32;
        if frames > fit {
            warnings.push(format!(
                "far tier: clip '{}' gets {fit} frames instead of {frames} to stay within {} B",
                c.name, settings.max_clip_bytes
            ));
            frames = fit;
        }
        clips.push(FarClip {
            first_frame: next,
            frames,
        });
        next += frames;
    }
    let (centre, radius) = sphere(asset);
    let mut tier = FarTier {
        tile: settings.tile,
        azimuths: settings.azimuths,
        elevations: settings
            .elevations_deg
            .iter()
            .map(|d| d.to_radians())
            .collect(),
        centre,
        radius,
        clips,
        colour: Vec::new(),
        surface: Vec::new(),
        variant_colours: Vec::new(),
    };
    let materials = raster::Materials::new(asset);
    // One task per frame: pose once, then every view.
    let frames: Vec<(usize, u32)> = tier
        .clips
        .iter()
        .enumerate()
        .flat_map(|(ci, c)| (0..c.frames).map(move |k| (ci, k)))
        .collect();
    let primitives = asset.primitives.len();
    let tiles: Vec<(Vec<EncodedTile>, variants::VariantFits)> = frames
        .par_iter()
        .map(|&(ci, k)| -> Result<_, BakeError> {
            let clip = &asset.clips[ci];
            let t = tier.frame_time(ci, clip.duration, clip.loop_mode, k);
            let shown =
                pose(asset, &[layer_at(asset, ci, t)]).map_err(|e| BakeError::InvalidModel {
                    file: file.clone(),
                    what: format!("far tier: posing clip '{}' at {t} s: {e}", clip.name),
                })?;
            let mut out = Vec::with_capacity(tier.views() as usize);
            let mut fits = variants::VariantFits::new(materials.variants(), primitives);
            for e in 0..tier.elevations.len() {
                for a in 0..tier.azimuths {
                    let view = raster::View {
                        centre: tier.centre,
                        radius: tier.radius,
                        toward_viewer: tier.view_direction(e, a),
                        size: tier.tile * SAMPLES_PER_TEXEL,
                    };
                    let samples = raster::rasterize(
                        asset,
                        &materials,
                        raster::PoseRef {
                            positions: &shown.positions,
                            normals: &shown.normals,
                        },
                        view,
                    );
                    fits.add(&materials, &samples);
                    out.push(encode_tile(&samples, tier.tile));
                }
            }
            Ok((out, fits))
        })
        .collect::<Result<_, _>>()?;
    let mut all = variants::VariantFits::new(materials.variants(), primitives);
    // Frame by frame in order: the sums, and so the maps, are the same on every machine.
    for (frame, fits) in tiles {
        all.merge(&fits);
        for (colour, surface) in frame {
            tier.colour.extend(colour);
            tier.surface.extend(surface);
        }
    }
    if materials.variants() > 0 {
        tier.variant_colours = all.solve();
    }
    Ok((tier, warnings))
}

/// One tile's two pictures (`colour`, `surface`).
type EncodedTile = (Vec<u8>, Vec<u8>);

/// The sphere every tile frames: around the box of every baked row (each row's box already
/// holds the pose shown between rows), or of the rest pose's vertices when there are none.
fn sphere(asset: &BakedAsset) -> (Vec3, f32) {
    let mut b = Aabb::EMPTY;
    for r in &asset.row_bounds {
        if !r.is_empty() {
            b.min = b.min.min(r.min);
            b.max = b.max.max(r.max);
        }
    }
    if b.is_empty() {
        for p in asset.primitives.iter().flat_map(|p| &p.positions) {
            b.min = b.min.min(*p);
            b.max = b.max.max(*p);
        }
    }
    if b.is_empty() {
        return (Vec3::ZERO, 1.0);
    }
    let centre = (b.min + b.max) * 0.5;
    let radius = ((b.max - b.min).length() * 0.5).max(1e-6);
    (centre, radius)
}

/// One tile's two pictures from its samples: per texel the covered share, the mean colour and
/// normal of the covered samples and the primitive of its nearest one; texels the
/// character misses take their colour and normal from covered neighbours (grown outwards
/// ring by ring) so that bilinear filtering at the silhouette blends like colours, and the
/// primitive of the first of them, so a variant's colour map recolours the filler alike.
fn encode_tile(s: &raster::Samples, tile: u32) -> EncodedTile {
    let n = tile as usize;
    let k = SAMPLES_PER_TEXEL as usize;
    let mut cover = vec![0f32; n * n];
    let mut albedo = vec![Vec3::ZERO; n * n];
    let mut normal = vec![Vec3::ZERO; n * n];
    let mut prim = vec![255u8; n * n];
    for ty in 0..n {
        for tx in 0..n {
            let t = ty * n + tx;
            let mut hits = 0;
            let mut nearest = f32::NEG_INFINITY;
            for sy in 0..k {
                for sx in 0..k {
                    let i = (ty * k + sy) * s.size as usize + tx * k + sx;
                    if !s.hit[i] {
                        continue;
                    }
                    hits += 1;
                    albedo[t] += s.albedo[i];
                    normal[t] += s.normal[i];
                    if s.depth[i] > nearest {
                        nearest = s.depth[i];
                        prim[t] = s.prim[i];
                    }
                }
            }
            if hits > 0 {
                cover[t] = hits as f32 / (k * k) as f32;
                albedo[t] /= hits as f32;
                normal[t] /= hits as f32;
            }
        }
    }
    // Dilation: each ring of empty texels takes the mean of its filled 8-neighbours.
    let mut filled: Vec<bool> = cover.iter().map(|&c| c > 0.0).collect();
    if filled.iter().any(|&f| f) {
        while filled.iter().any(|&f| !f) {
            let before = filled.clone();
            for y in 0..n {
                for x in 0..n {
                    let t = y * n + x;
                    if before[t] {
                        continue;
                    }
                    let mut c = Vec3::ZERO;
                    let mut m = Vec3::ZERO;
                    let mut count = 0;
                    let mut first = 255u8;
                    for (dx, dy) in NEIGHBOURS {
                        let (u, v) = (x as i64 + dx, y as i64 + dy);
                        if u < 0 || v < 0 || u >= n as i64 || v >= n as i64 {
                            continue;
                        }
                        let q = v as usize * n + u as usize;
                        if before[q] {
                            c += albedo[q];
                            m += normal[q];
                            if count == 0 {
                                first = prim[q];
                            }
                            count += 1;
                        }
                    }
                    if count > 0 {
                        albedo[t] = c / count as f32;
                        normal[t] = m / count as f32;
                        prim[t] = first;
                        filled[t] = true;
                    }
                }
            }
        }
    }
    let mut colour = Vec::with_capacity(n * n * 4);
    let mut surface = Vec::with_capacity(n * n * 4);
    for t in 0..n * n {
        let a = albedo[t];
        colour.extend([
            srgb_encode(a.x),
            srgb_encode(a.y),
            srgb_encode(a.z),
            unorm8(cover[t]),
        ]);
        let m = if filled[t] { normal[t] } else { Vec3::Z } * 0.5 + 0.5;
        surface.extend([unorm8(m.x), unorm8(m.y), unorm8(m.z), prim[t]]);
    }
    (colour, surface)
}

const NEIGHBOURS: [(i64, i64); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];

fn unorm8(x: f32) -> u8 {
    (x.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// A tile's pixel grid position `(x, y)` of `size` per side as the tile's 0..1 coordinates of
/// the pixel's centre.
pub fn pixel_uv(x: u32, y: u32, size: u32) -> Vec2 {
    Vec2::new(
        (x as f32 + 0.5) / size as f32,
        (y as f32 + 0.5) / size as f32,
    )
}
