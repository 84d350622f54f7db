//! The far-field tier (docs/design.md §3 "Far tier"): small pictures of the character, a few
//! views per frame of a few frames per clip, shown on one camera-facing card per instance once
//! the instance covers fewer pixels than the pictures hold.
//!
//! Each picture (*tile*) is an orthographic view of the bounding sphere (`centre`, `radius`, model
//! space, file units): `tile × tile` texels spanning `2·radius` on each side. Two texels per
//! pixel, row-major from the top-left:
//! - `colour`: RGBA8 — base colour (the material's factor × its texture, sRGB-encoded, as a
//!   `Rgba8UnormSrgb` texture reads it), alpha the share of the texel the character covers
//!   (linear). Texels the character misses carry the nearest covered texel's colour so that
//!   filtering at the silhouette does not darken it.
//! - `surface`: RGBA8 — in R, G, B the mean of the covered samples' model-space normals (each
//!   facing the viewer), `n · 0.5 + 0.5`: shorter than 1 where they disagree, so a Lambert term
//!   of it is close to the mean of the samples' Lambert terms; A the primitive the texel shows
//!   (its material and variant slot; 254 for every primitive from 254 on; a texel the character
//!   misses carries a covered neighbour's, 255 where the tile shows nothing).
//! - Per material variant and primitive a [`FarVariantColour`]: how the variant's base colour
//!   follows from the stored one, so one set of pictures shows every variant.
//!
//! Tiles run clip by clip, frame by frame, view by view: tile `(clip_first + frame) · views +
//! view`, `views = azimuths · elevations.len()`, view `e · azimuths + a`.

use glam::{Vec2, Vec3, Vec4};
use serde::{Deserialize, Serialize};
use throng_contract::{Affine3x4, Appearance, LoopMode};

/// Bytes per texel of the two pictures together (`colour` and `surface`).
pub const FAR_TIER_BYTES_PER_TEXEL: usize = 8;

/// One clip's frames in the far tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FarClip {
    /// Index of the clip's first frame among all far-tier frames.
    pub first_frame: u32,
    /// Frames of the clip (≥ 1): frame k at `k · d / n` of a looping clip (the seam is frame 0
    /// again), `k · d / (n − 1)` of the others (one frame: the clip's start).
    pub frames: u32,
}

/// The far tier of one asset.
#[derive(Debug, Clone, PartialEq)]
pub struct FarTier {
    /// Texels per side of a tile.
    pub tile: u32,
    /// Views around +Y, evenly spaced from azimuth 0 (the viewer on +Z).
    pub azimuths: u32,
    /// Elevations of the views above the horizontal plane, radians, increasing.
    pub elevations: Vec<f32>,
    /// Centre of the sphere every tile frames (model space, file units).
    pub centre: Vec3,
    /// Its radius: half the side a tile spans.
    pub radius: f32,
    /// Per clip of the asset, in order.
    pub clips: Vec<FarClip>,
    /// `tiles · tile²` RGBA8 texels (see the module docs).
    pub colour: Vec<u8>,
    /// `tiles · tile²` RGBA8 texels (see the module docs).
    pub surface: Vec<u8>,
    /// Per material variant (variant number `v` at `v − 1`) the colour map of each primitive
    /// the `surface` pictures name (`min(primitives, 255)` of them); empty when the asset has
    /// no variants.
    pub variant_colours: Vec<Vec<FarVariantColour>>,
}

/// How a material variant recolours one primitive on the far tier's cards: the variant's
/// linear base colour where the tier stored `c` (the primitive's own) is
/// `clamp(M · c + b, 0, 1)`, `[M | b]` held as an affine 3×4 of colour (row r: `M[r][0..3]`,
/// `b[r]`). The bake fits it by least squares over every sample its tiles hold (the own colour
/// against the variant's at the same texture coordinate), so a factor change, a channel swap or
/// a solid replacement is exact and any other recolouring is its best affine fit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FarVariantColour(pub Affine3x4);

impl FarVariantColour {
    /// The map that changes nothing.
    pub const IDENTITY: FarVariantColour = FarVariantColour(Affine3x4::IDENTITY);

    /// The variant's colour where the tier stored `c` (linear), as WGSL `far_variant_colour`
    /// works it out (a dot product per row).
    pub fn apply(&self, c: Vec3) -> Vec3 {
        let r = self.0.rows.map(Vec4::from_array);
        let c = c.extend(1.0);
        Vec3::new(r[0].dot(c), r[1].dot(c), r[2].dot(c)).clamp(Vec3::ZERO, Vec3::ONE)
    }
}

impl FarTier {
    /// Views per frame.
    pub fn views(&self) -> u32 {
        self.azimuths * self.elevations.len() as u32
    }

    /// Frames over every clip.
    pub fn frames(&self) -> u32 {
        self.clips.iter().map(|c| c.frames).sum()
    }

    /// Tiles in the tier.
    pub fn tiles(&self) -> u64 {
        self.frames() as u64 * self.views() as u64
    }

    /// Bytes of one clip's tiles (both pictures).
    pub fn clip_bytes(&self, clip: usize) -> u64 {
        self.clips.get(clip).map_or(0, |c| {
            c.frames as u64
                * self.views() as u64
                * (self.tile as u64).pow(2)
                * FAR_TIER_BYTES_PER_TEXEL as u64
        })
    }

    /// Direction from the centre towards the viewer of view `(elevation e, azimuth a)`, model
    /// space: azimuth 0 looks from +Z, azimuths turn towards +X.
    pub fn view_direction(&self, e: usize, a: u32) -> Vec3 {
        let az = std::f32::consts::TAU * a as f32 / self.azimuths.max(1) as f32;
        let el = self.elevations.get(e).copied().unwrap_or(0.0);
        Vec3::new(el.cos() * az.sin(), el.sin(), el.cos() * az.cos())
    }

    /// The view nearest to `toward_viewer` (model space, from the character towards the eye;
    /// any length): nearest azimuth, then nearest elevation. Returns the view index.
    pub fn nearest_view(&self, toward_viewer: Vec3) -> u32 {
        let d = toward_viewer.normalize_or(Vec3::Z);
        let n = self.azimuths.max(1);
        let a = (azimuth_coordinate(d, n).round() as u32) % n;
        e_of(&self.elevation_bounds(), d.y) * n + a
    }

    /// The frame of clip `clip` nearest to clip time `t` (seconds, reduced into the clip as the
    /// runtime shows it), as an index among all far-tier frames; `duration` and `mode` are the
    /// clip's. A looping clip's last gap closes on its first frame.
    pub fn nearest_frame(&self, clip: usize, duration: f64, mode: LoopMode, t: f64) -> u32 {
        let Some(c) = self.clips.get(clip) else {
            return 0;
        };
        let n = c.frames.max(1);
        let k = self.frame_coordinate(clip, duration, mode, t).round() as u32 % n;
        c.first_frame + k
    }

    /// The two views around `toward_viewer` (model space, from the character towards the eye)
    /// and their weights, summing to 1: the azimuths on either side, linear in the angle, at
    /// the nearest elevation.
    pub fn view_taps(&self, toward_viewer: Vec3) -> [(u32, f32); 2] {
        let d = toward_viewer.normalize_or(Vec3::Z);
        let n = self.azimuths.max(1);
        let x = azimuth_coordinate(d, n);
        let a0 = (x.floor() as u32) % n;
        let f = x - x.floor();
        let e = e_of(&self.elevation_bounds(), d.y);
        [(e * n + a0, 1.0 - f), (e * n + (a0 + 1) % n, f)]
    }

    /// Between successive elevations, the sine of their midpoint: a unit view direction whose
    /// y is above bound i is nearer elevation i + 1 than i (elevations increase).
    pub fn elevation_bounds(&self) -> Vec<f32> {
        self.elevations
            .windows(2)
            .map(|w| ((w[0] + w[1]) * 0.5).sin())
            .collect()
    }

    /// Clip `clip`'s frame coordinate at clip time `t` (seconds; `duration` and `mode` are the
    /// clip's): `t / d · n` of a looping clip (in [0, n), frame k at k), `t / d · (n − 1)`
    /// clamped to [0, n − 1] of the others; 0 for a clip of one frame.
    pub fn frame_coordinate(&self, clip: usize, duration: f64, mode: LoopMode, t: f64) -> f32 {
        let n = self.clips.get(clip).map_or(1, |c| c.frames.max(1));
        if n == 1 || duration <= 0.0 {
            0.0
        } else if mode == LoopMode::Loop {
            ((t / duration).rem_euclid(1.0) * n as f64) as f32
        } else {
            ((t / duration).clamp(0.0, 1.0) * (n - 1) as f64) as f32
        }
    }

    /// The two frames of clip `clip` around frame coordinate `x` ([`Self::frame_coordinate`])
    /// and their weights, summing to 1, as indices among all far-tier frames: `floor(x)` and the
    /// next, the next of a looping clip's last frame being its first (`looped`).
    pub fn frame_taps_at(&self, clip: usize, looped: bool, x: f32) -> [(u32, f32); 2] {
        let Some(c) = self.clips.get(clip) else {
            return [(0, 1.0), (0, 0.0)];
        };
        let n = c.frames.max(1);
        let x = x.clamp(0.0, n as f32);
        let k = (x.floor() as u32).min(n - 1);
        let f = (x - k as f32).clamp(0.0, 1.0);
        let next = if looped {
            (k + 1) % n
        } else {
            (k + 1).min(n - 1)
        };
        [(c.first_frame + k, 1.0 - f), (c.first_frame + next, f)]
    }

    /// [`Self::frame_taps_at`] of clip time `t`.
    pub fn frame_taps(
        &self,
        clip: usize,
        duration: f64,
        mode: LoopMode,
        t: f64,
    ) -> [(u32, f32); 2] {
        let x = self.frame_coordinate(clip, duration, mode, t);
        self.frame_taps_at(clip, mode == LoopMode::Loop, x)
    }

    /// The clip time of clip `clip`'s frame `k` (see [`FarClip::frames`]).
    pub fn frame_time(&self, clip: usize, duration: f64, mode: LoopMode, k: u32) -> f64 {
        let n = self.clips.get(clip).map_or(1, |c| c.frames.max(1));
        if n == 1 {
            0.0
        } else if mode == LoopMode::Loop {
            duration * k as f64 / n as f64
        } else {
            duration * k as f64 / (n - 1) as f64
        }
    }

    /// The colour map of material variant `variant` (0: the own materials) on the texels
    /// showing primitive `prim` (the `surface` pictures' A); `None` where nothing changes: the
    /// own materials, a variant past the asset's, or a primitive the tier holds no map for.
    pub fn variant_colour(&self, variant: u32, prim: u8) -> Option<&FarVariantColour> {
        self.variant_colours
            .get(variant.checked_sub(1)? as usize)?
            .get(prim as usize)
    }

    /// Texel range of tile `tile` in `colour` and `surface`.
    pub fn tile_bytes(&self, tile: u64) -> std::ops::Range<usize> {
        let n = (self.tile as usize).pow(2) * 4;
        let start = tile as usize * n;
        start..start + n
    }
}

/// What a far-tier tile shows at one point, filtered as a GPU's bilinear sampler would.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FarTexel {
    /// Linear base colour.
    pub albedo: Vec3,
    /// Share of the point the character covers.
    pub coverage: f32,
    /// Mean model-space normal of the covered samples, facing the tile's viewer (length ≤ 1).
    pub normal: Vec3,
}

impl FarTier {
    /// Tile `tile` at `uv` (0..1 across, from the top-left) as an instance of appearance
    /// `look` shows it, bilinear with clamped edges: each texel's colour decoded from sRGB and
    /// recoloured by its primitive's [`Self::variant_colour`] in the look's material variant,
    /// and its coverage 0 where the look's part mask hides that primitive, before filtering (a
    /// `Rgba8UnormSrgb` and a `Rgba8Unorm` texture sample the stored texels alike). `None` past
    /// the tiles.
    pub fn sample(&self, tile: u64, uv: Vec2, look: Appearance) -> Option<FarTexel> {
        let n = self.tile as i64;
        let range = self.tile_bytes(tile);
        let colour = self.colour.get(range.clone())?;
        let surface = self.surface.get(range)?;
        let x = uv.x * n as f32 - 0.5;
        let y = uv.y * n as f32 - 0.5;
        let (x0, y0) = (x.floor(), y.floor());
        let (fx, fy) = (x - x0, y - y0);
        let texel = |i: i64, j: i64| -> (Vec4, Vec3) {
            let k = ((j.clamp(0, n - 1) * n + i.clamp(0, n - 1)) * 4) as usize;
            let c = &colour[k..k + 4];
            let s = &surface[k..k + 4];
            let own = Vec3::new(srgb_decode(c[0]), srgb_decode(c[1]), srgb_decode(c[2]));
            let albedo = self
                .variant_colour(look.variant, s[3])
                .map_or(own, |m| m.apply(own));
            let coverage = if look.shows_part(s[3] as usize) {
                c[3] as f32 / 255.0
            } else {
                0.0
            };
            (
                albedo.extend(coverage),
                Vec3::new(s[0] as f32, s[1] as f32, s[2] as f32) / 127.5 - 1.0,
            )
        };
        let (i, j) = (x0 as i64, y0 as i64);
        let (a, b, c, d) = (
            texel(i, j),
            texel(i + 1, j),
            texel(i, j + 1),
            texel(i + 1, j + 1),
        );
        let colour = a.0.lerp(b.0, fx).lerp(c.0.lerp(d.0, fx), fy);
        let normal = a.1.lerp(b.1, fx).lerp(c.1.lerp(d.1, fx), fy);
        Some(FarTexel {
            albedo: colour.truncate(),
            coverage: colour.w,
            normal,
        })
    }
}

impl FarTier {
    /// What a card shows at `uv` of an instance playing clip `clip` (its index and the asset's
    /// [`crate::ClipInfo`] of it: duration and loop mode) at clip time `t` in appearance `look` (its
    /// material variant and part mask), seen from `toward_viewer` (model space):
    /// [`Self::shown_at`] of the clip's frame coordinate.
    pub fn shown(
        &self,
        (clip, info): (usize, &crate::ClipInfo),
        t: f64,
        toward_viewer: Vec3,
        uv: Vec2,
        look: Appearance,
    ) -> FarTexel {
        let mode = info.loop_mode;
        let x = self.frame_coordinate(clip, info.duration, mode, t);
        self.shown_at(clip, mode == LoopMode::Loop, x, toward_viewer, uv, look)
    }

    /// What a card shows at `uv` of clip `clip` at frame coordinate `x` (`looped`: the clip's
    /// frames close on its first) in appearance `look`, seen from `toward_viewer`: the four
    /// tiles of
    /// [`Self::frame_taps_at`] × [`Self::view_taps`] sampled ([`Self::sample`]) and blended
    /// with the taps' weights — coverage as it is, base colour and normal weighted by coverage
    /// too (so a tile the character misses there does not pull them towards its filler) and
    /// divided by the blended coverage. The GPU twin is WGSL `far_shown` of `throng::far`.
    pub fn shown_at(
        &self,
        clip: usize,
        looped: bool,
        x: f32,
        toward_viewer: Vec3,
        uv: Vec2,
        look: Appearance,
    ) -> FarTexel {
        let frames = self.frame_taps_at(clip, looped, x);
        let views = self.view_taps(toward_viewer);
        let (mut albedo, mut coverage, mut normal) = (Vec3::ZERO, 0.0, Vec3::ZERO);
        for (frame, wf) in frames {
            for (view, wv) in views {
                let w = wf * wv;
                if w == 0.0 {
                    continue;
                }
                let tile = frame as u64 * self.views() as u64 + view as u64;
                if let Some(s) = self.sample(tile, uv, look) {
                    albedo += s.albedo * (s.coverage * w);
                    normal += s.normal * (s.coverage * w);
                    coverage += s.coverage * w;
                }
            }
        }
        if coverage > 0.0 {
            albedo /= coverage;
            normal /= coverage;
        }
        FarTexel {
            albedo,
            coverage,
            normal,
        }
    }

    /// Every frame-table row's frame coordinate in its clip's far frames (row 0, the rest pose,
    /// and rows of clips past the tier: 0), so a renderer finds a layer's coordinate from its
    /// (row, frac) as `mix(x[row], x[row + 1], frac)` on the clip's rows without the clip's
    /// frame times.
    pub fn row_coordinates(&self, clips: &[crate::ClipInfo], rows: u32) -> Vec<f32> {
        let mut out = vec![0.0f32; rows as usize];
        for (ci, c) in clips.iter().enumerate() {
            let table = c.frames_table();
            for k in 0..c.frames {
                let row = (c.first_row + k) as usize;
                let t = table.frame_time(k);
                let n = self.clips.get(ci).map_or(1, |f| f.frames.max(1));
                let x = if n == 1 || c.duration <= 0.0 {
                    0.0
                } else if c.loop_mode == LoopMode::Loop {
                    // The clip's last row (t = d) closes the loop at n, not back at 0.
                    (t / c.duration * n as f64) as f32
                } else {
                    ((t / c.duration).clamp(0.0, 1.0) * (n - 1) as f64) as f32
                };
                if let Some(o) = out.get_mut(row) {
                    *o = x;
                }
            }
        }
        out
    }
}

/// The azimuth of unit direction `d` in steps of `n` azimuths, in [0, n): azimuth 0 on +Z,
/// turning towards +X. Straight up or down it is 0 (every azimuth is the same view there, and
/// WGSL's atan2(0, 0) is undefined; `far_view_taps` reads it alike).
fn azimuth_coordinate(d: Vec3, n: u32) -> f32 {
    let az = if d.x.abs() + d.z.abs() > 1e-6 {
        d.x.atan2(d.z)
    } else {
        0.0
    };
    let az = if az < 0.0 {
        az + std::f32::consts::TAU
    } else {
        az
    };
    az / std::f32::consts::TAU * n as f32
}

/// The nearest elevation of a unit direction whose y is `y`, by [`FarTier::elevation_bounds`].
fn e_of(bounds: &[f32], y: f32) -> u32 {
    bounds.iter().filter(|&&b| y > b).count() as u32
}

/// The tier's sphere (`sphere`: model centre, radius) placed by an instance's affine `t`
/// (world from model): world centre (xyz) and radius (w, by the largest row length of
/// `L`, so it holds the placed character). WGSL twin: `throng::far::far_placed_sphere`.
pub fn placed_sphere(t: &Affine3x4, sphere: Vec4) -> Vec4 {
    let r = t.rows.map(Vec4::from_array);
    let c = sphere.truncate().extend(1.0);
    let centre = Vec3::new(r[0].dot(c), r[1].dot(c), r[2].dot(c));
    centre.extend(sphere.w * t.scale())
}

/// The share of an instance its far card shows while it crossfades with its coarsest mesh
/// (docs/design.md §5 "Far tier"): 0 all mesh, 1 all card. `t`: the instance's affine
/// `[L | t]` (world from model); `sphere`: the tier's (model centre, radius, file
/// units); `texel`: the far level's simplification error (2r / tile, model units); `eye`: the
/// camera (xyz, world; w the pixels a length of 1 covers at a distance of 1); `band`: the pixels
/// a texel covers where the card starts to show (x, the LOD bias) and how many fewer where it
/// shows alone (y; 0: a hard switch at x). The texel is grown by the largest row length of `L`
/// and seen from the nearest point of the placed sphere. WGSL twin: `throng::far::far_share`
/// (the same f32 operations in the same order).
pub fn card_share(t: &Affine3x4, sphere: Vec4, texel: f32, eye: Vec4, band: Vec2) -> f32 {
    let s = placed_sphere(t, sphere);
    let dist = ((s.truncate() - eye.truncate()).length() - s.w).max(1e-6);
    let pixels = texel * t.scale() * eye.w / dist;
    if band.y <= 0.0 {
        return if pixels <= band.x { 1.0 } else { 0.0 };
    }
    ((band.x - pixels) / band.y).clamp(0.0, 1.0)
}

/// The sRGB transfer function: an 8-bit code to linear.
pub fn srgb_decode(c: u8) -> f32 {
    let c = c as f32 / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// Linear to the nearest 8-bit sRGB code (the inverse of [`srgb_decode`]).
pub fn srgb_encode(l: f32) -> u8 {
    let l = l.clamp(0.0, 1.0);
    let c = if l <= 0.003_130_8 {
        l * 12.92
    } else {
        1.055 * l.powf(1.0 / 2.4) - 0.055
    };
    (c * 255.0).round() as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_view_and_frame_are_the_closest_ones() {
        let t = FarTier {
            tile: 4,
            azimuths: 8,
            elevations: vec![0.2, 0.8],
            centre: Vec3::ZERO,
            radius: 1.0,
            clips: vec![FarClip {
                first_frame: 0,
                frames: 4,
            }],
            colour: Vec::new(),
            surface: Vec::new(),
            variant_colours: Vec::new(),
        };
        for e in 0..2 {
            for a in 0..8 {
                let d = t.view_direction(e, a);
                assert_eq!(t.nearest_view(d), e as u32 * 8 + a);
            }
        }
        // Just short of half a step from azimuth 0 towards azimuth 7 (−X side).
        let d = Vec3::new(-(0.39f32).sin(), 0.1, (0.39f32).cos());
        assert_eq!(t.nearest_view(d), 0);
        assert_eq!(t.nearest_frame(0, 1.0, LoopMode::Loop, 0.9), 0);
        assert_eq!(t.nearest_frame(0, 1.0, LoopMode::Loop, 0.6), 2);
        assert_eq!(t.nearest_frame(0, 1.0, LoopMode::Once, 0.9), 3);
        assert_eq!(t.frame_time(0, 1.0, LoopMode::Loop, 3), 0.75);
    }
}
