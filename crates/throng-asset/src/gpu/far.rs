//! What a renderer uploads of the far tier (docs/design.md §3 "Far tier") for WGSL
//! `throng::far` (`shaders/far.wgsl`): its parameters, its clips and its tiles packed into two
//! atlases, made once for every embedding.

use crate::far_tier::FarTier;

/// A card's index buffer: two triangles over its four corners (vertex index bit 0: right,
/// bit 1: top), as every embedding's card vertex stage reads the corner.
pub const CARD_INDICES: [u32; 6] = [0, 1, 2, 2, 1, 3];

/// The indices (first, count) the indirect argument entry of primitive `primitive` at the far
/// tier's LOD level draws: the card's ([`CARD_INDICES`], its own index buffer) for primitive 0
/// and nothing for the others — the meshes never draw that level.
pub fn entry_indices(primitive: usize) -> (u32, u32) {
    if primitive == 0 {
        (0, CARD_INDICES.len() as u32)
    } else {
        (0, 0)
    }
}

/// WGSL `FarParams` (64 B).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct FarParams {
    /// Centre (model space, file units) and radius of the sphere every tile frames.
    pub sphere: [f32; 4],
    /// Texels per tile side, azimuths, elevations, tiles per atlas row.
    pub grid: [u32; 4],
    /// Between elevations i and i + 1: the sine of their midpoint
    /// ([`FarTier::elevation_bounds`]).
    pub elevation_bounds: [f32; 8],
}

/// WGSL `FarClip` (16 B): a clip's first frame among the tier's, its frames, and 1 when its
/// frames close on the first.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct FarClipWords {
    pub first_frame: u32,
    pub frames: u32,
    pub looped: u32,
    pub pad: u32,
}

/// Most elevations `FarParams` holds.
pub const MAX_FAR_ELEVATIONS: usize = 8;

/// The tier's tiles in two atlases of `columns` tiles a row: tile k at column `k % columns`,
/// row `k / columns`; RGBA8 rows of `width` texels, top first.
#[derive(Debug, Clone, PartialEq)]
pub struct FarAtlas {
    pub params: FarParams,
    pub width: u32,
    pub height: u32,
    pub colour: Vec<u8>,
    pub surface: Vec<u8>,
    /// The variants' colour maps as an `Rgba32Float` texture of `variant_size` texels: the map
    /// of variant v and primitive p in row `v − 1`, texels `3p .. 3p + 3` its rows
    /// ([`crate::FarVariantColour`]); one zero texel when the tier has none (then no variant
    /// is recoloured: WGSL `far_variant_colour` finds no map).
    pub variant_size: [u32; 2],
    pub variant_colours: Vec<f32>,
}

/// Packs `tier` for a device whose 2D textures are at most `max_dimension` texels a side; an
/// error says what does not fit (more than 8 elevations, or more tiles than the device holds).
pub fn atlas(tier: &FarTier, max_dimension: u32) -> Result<FarAtlas, String> {
    if tier.elevations.len() > MAX_FAR_ELEVATIONS {
        return Err(format!(
            "the far tier has {} elevations; a renderer shows at most {MAX_FAR_ELEVATIONS}",
            tier.elevations.len()
        ));
    }
    let n = tier.tile.max(1);
    let tiles = tier.tiles().max(1);
    let columns = ((max_dimension / n).max(1) as u64).min(tiles) as u32;
    let rows = tiles.div_ceil(columns as u64);
    let width = columns * n;
    let height = rows * n as u64;
    if width > max_dimension || height > max_dimension as u64 {
        return Err(format!(
            "the far tier's {tiles} tiles of {n}² texels need a {width} × {height} atlas, more than the device's {max_dimension} texels a side; bake it with fewer views, frames or texels"
        ));
    }
    let height = height as u32;
    let mut colour = vec![0u8; width as usize * height as usize * 4];
    let mut surface = colour.clone();
    let side = n as usize * 4;
    for k in 0..tier.tiles() {
        let range = tier.tile_bytes(k);
        let (Some(c), Some(s)) = (tier.colour.get(range.clone()), tier.surface.get(range)) else {
            break;
        };
        let x0 = (k % columns as u64) as usize * n as usize;
        let y0 = (k / columns as u64) as usize * n as usize;
        for y in 0..n as usize {
            let at = ((y0 + y) * width as usize + x0) * 4;
            colour[at..at + side].copy_from_slice(&c[y * side..(y + 1) * side]);
            surface[at..at + side].copy_from_slice(&s[y * side..(y + 1) * side]);
        }
    }
    let per = tier.variant_colours.first().map_or(0, Vec::len);
    let variant_size = if per == 0 {
        [1, 1]
    } else {
        [3 * per as u32, tier.variant_colours.len() as u32]
    };
    if variant_size[0] > max_dimension || variant_size[1] > max_dimension {
        return Err(format!(
            "the far tier's colour maps of {} variants × {per} primitives need a {} × {} texture, more than the device's {max_dimension} texels a side",
            tier.variant_colours.len(),
            variant_size[0],
            variant_size[1]
        ));
    }
    let mut variant_colours = vec![0.0f32; (variant_size[0] * variant_size[1] * 4) as usize];
    if per > 0 {
        for (row, maps) in tier.variant_colours.iter().enumerate() {
            for (p, m) in maps.iter().take(per).enumerate() {
                let at = (row * per + p) * 12;
                variant_colours[at..at + 12].copy_from_slice(&m.0.rows.concat());
            }
        }
    }
    let mut elevation_bounds = [0.0f32; 8];
    for (d, e) in elevation_bounds.iter_mut().zip(tier.elevation_bounds()) {
        *d = e;
    }
    Ok(FarAtlas {
        params: FarParams {
            sphere: tier.centre.extend(tier.radius).to_array(),
            grid: [n, tier.azimuths, tier.elevations.len() as u32, columns],
            elevation_bounds,
        },
        width,
        height,
        colour,
        surface,
        variant_size,
        variant_colours,
    })
}

/// One [`FarClipWords`] per clip of the tier; `looped[c]`: clip c's frames close on its first
/// (its baked loop mode is `loop`).
pub fn clip_words(tier: &FarTier, looped: impl Fn(usize) -> bool) -> Vec<FarClipWords> {
    tier.clips
        .iter()
        .enumerate()
        .map(|(i, c)| FarClipWords {
            first_frame: c.first_frame,
            frames: c.frames,
            looped: looped(i) as u32,
            pad: 0,
        })
        .collect()
}

/// Per tile of `tier`, the texels a card must cover to show everything the tile shows, packed
/// in a word as `x0 | y0 << 8 | x1 << 16 | y1 << 24` (inclusive texel columns and rows, from the
/// top-left): the texels of nonzero coverage grown by one on every side, since bilinear
/// filtering reaches a covered texel from up to a texel and a half away, and clamped to the
/// tile. An empty tile has `x0 > x1`; a tile over 256 texels a side is all of it. A card
/// drawn over the union of its taps' rects (not the whole sphere's square) shows the same
/// pixels with fewer fragments: outside it every tap's filtered coverage is 0.
pub fn tile_rects(tier: &FarTier) -> Vec<u32> {
    let n = tier.tile.max(1) as usize;
    let pack =
        |x0: usize, y0: usize, x1: usize, y1: usize| pack_rect([x0, y0, x1, y1].map(|v| v as u32));
    (0..tier.tiles())
        .map(|k| {
            if n > 256 {
                return pack(0, 0, 255, 255);
            }
            let Some(colour) = tier.colour.get(tier.tile_bytes(k)) else {
                return pack(1, 0, 0, 0);
            };
            let (mut x0, mut y0, mut x1, mut y1) = (n, n, 0, 0);
            for (i, texel) in colour.chunks_exact(4).enumerate() {
                if texel[3] != 0 {
                    let (x, y) = (i % n, i / n);
                    x0 = x0.min(x);
                    y0 = y0.min(y);
                    x1 = x1.max(x);
                    y1 = y1.max(y);
                }
            }
            if x0 > x1 {
                return pack(1, 0, 0, 0);
            }
            pack(
                x0.saturating_sub(1),
                y0.saturating_sub(1),
                (x1 + 1).min(n - 1),
                (y1 + 1).min(n - 1),
            )
        })
        .collect()
}

/// A rect of [`tile_rects`] in its word: `[x0, y0, x1, y1]`, each below 256.
fn pack_rect([x0, y0, x1, y1]: [u32; 4]) -> u32 {
    x0 | y0 << 8 | x1 << 16 | y1 << 24
}

/// The part of a card that its taps show something in, as `[a0, b0, a1, b1]`: its lower-left
/// and upper-right corners, −1..1 along the card's right and up axes. `rects` are the four taps'
/// [`tile_rects`], `weights` their weights, `tile` the texels a tile side. The union of the rects
/// of the taps of nonzero weight (empty tiles left out); all zero, a point, where no tap shows
/// anything. CPU twin of WGSL `throng::far::far_taps_extent` (and of `adapter_far.glsl`'s).
pub fn taps_extent(rects: [u32; 4], weights: [f32; 4], tile: u32) -> [f32; 4] {
    let mut lo = [255u32; 2];
    let mut hi = [0u32; 2];
    for (r, w) in rects.into_iter().zip(weights) {
        let (x0, y0, x1, y1) = (r & 255, (r >> 8) & 255, (r >> 16) & 255, r >> 24);
        if w > 0.0 && x0 <= x1 {
            lo = [lo[0].min(x0), lo[1].min(y0)];
            hi = [hi[0].max(x1), hi[1].max(y1)];
        }
    }
    if lo[0] > hi[0] {
        return [0.0; 4];
    }
    let n = tile.max(1) as f32;
    let a = |texel: u32| (texel as f32 / n * 2.0 - 1.0).clamp(-1.0, 1.0);
    let b = |texel: u32| (1.0 - 2.0 * (texel as f32 / n)).clamp(-1.0, 1.0);
    [a(lo[0]), b(hi[1] + 1), a(hi[0] + 1), b(lo[1])]
}

/// Everything a renderer uploads of `asset`'s far tier `tier` for a device whose 2D textures
/// are at most `max_dimension` texels a side: the atlases, one [`FarClipWords`] per clip,
/// every frame-table row's frame coordinate ([`FarTier::row_coordinates`]), and what culling
/// reads — the far level's simplification error (one texel of a tile: the sphere's diameter
/// over the tile's texels, file units) and the sphere (model centre, radius). An error says
/// what does not fit ([`atlas`]).
pub fn upload(
    asset: &crate::BakedAsset,
    tier: &FarTier,
    max_dimension: u32,
) -> Result<FarUpload, String> {
    let looped = |c: usize| {
        asset
            .clips
            .get(c)
            .is_some_and(|c| c.loop_mode == crate::LoopMode::Loop)
    };
    Ok(FarUpload {
        atlas: atlas(tier, max_dimension)?,
        clips: clip_words(tier, looped),
        rows: tier.row_coordinates(&asset.clips, asset.bone_texture.rows.max(1)),
        rects: tile_rects(tier),
        error: 2.0 * tier.radius / tier.tile.max(1) as f32,
        sphere: tier.centre.extend(tier.radius).to_array(),
    })
}

impl FarUpload {
    /// The clips and the tiles' rects as one table of `[u32; 4]` records, for devices that read
    /// them from a data texture (throng-render's downlevel mode, the engine adapters' GLSL):
    /// record 0 the clip count (1 for a tier without clips, whose one clip is all zero), then a
    /// [`FarClipWords`] per clip, then the [`tile_rects`] four a record.
    pub fn clip_table(&self) -> Vec<[u32; 4]> {
        let zero = [FarClipWords::default()];
        let clips = if self.clips.is_empty() {
            &zero[..]
        } else {
            &self.clips[..]
        };
        std::iter::once([clips.len() as u32, 0, 0, 0])
            .chain(
                clips
                    .iter()
                    .map(|c| [c.first_frame, c.frames, c.looped, c.pad]),
            )
            .chain(self.rects.chunks(4).map(|r| {
                let mut t = [0u32; 4];
                t[..r.len()].copy_from_slice(r);
                t
            }))
            .collect()
    }
}

/// What [`upload`] makes.
#[derive(Debug, Clone, PartialEq)]
pub struct FarUpload {
    pub atlas: FarAtlas,
    pub clips: Vec<FarClipWords>,
    pub rows: Vec<f32>,
    /// [`tile_rects`].
    pub rects: Vec<u32>,
    /// The far level's simplification error, file units.
    pub error: f32,
    /// Model centre (xyz, file units) and radius (w) of the sphere every tile frames.
    pub sphere: [f32; 4],
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tier of `tiles` tiles of 4 × 4 texels, covered where `covered(tile, x, y)`.
    fn tier(tiles: u32, covered: impl Fn(u32, usize, usize) -> bool) -> FarTier {
        let mut colour = vec![0u8; tiles as usize * 64];
        for t in 0..tiles {
            for y in 0..4 {
                for x in 0..4 {
                    if covered(t, x, y) {
                        colour[t as usize * 64 + (y * 4 + x) * 4 + 3] = 255;
                    }
                }
            }
        }
        FarTier {
            tile: 4,
            azimuths: tiles,
            elevations: vec![0.5],
            centre: glam::Vec3::ZERO,
            radius: 1.0,
            clips: vec![crate::FarClip {
                first_frame: 0,
                frames: 1,
            }],
            surface: colour.clone(),
            colour,
            variant_colours: Vec::new(),
        }
    }

    fn unpack(w: u32) -> [u32; 4] {
        [w & 255, (w >> 8) & 255, (w >> 16) & 255, w >> 24]
    }

    #[test]
    fn tile_rects_hold_the_covered_texels_grown_by_one_and_clamped() {
        // tile 0: texel (2, 1) only; tile 1: nothing; tile 2: the corner (0, 0) and (3, 3).
        let t = tier(3, |t, x, y| match t {
            0 => (x, y) == (2, 1),
            2 => (x, y) == (0, 0) || (x, y) == (3, 3),
            _ => false,
        });
        let rects = tile_rects(&t);
        assert_eq!(unpack(rects[0]), [1, 0, 3, 2]);
        let [x0, _, x1, _] = unpack(rects[1]);
        assert!(x0 > x1, "an empty tile has an empty rect");
        assert_eq!(unpack(rects[2]), [0, 0, 3, 3]);
    }

    #[test]
    fn taps_extent_is_the_union_of_the_shown_taps_rects_in_card_coordinates() {
        let pack = |x0, y0, x1, y1| pack_rect([x0, y0, x1, y1]);
        let empty = pack(1, 0, 0, 0);
        // Tile of 4 texels: columns 1..=3 span a in [−0.5, 1]; rows 0..=2 span b in [−0.5, 1].
        let one = [pack(1, 0, 3, 2), empty, empty, empty];
        assert_eq!(
            taps_extent(one, [1.0, 0.0, 0.0, 0.0], 4),
            [-0.5, -0.5, 1.0, 1.0]
        );
        // A tap of no weight is left out, however large its rect.
        let two = [pack(1, 0, 3, 2), pack(0, 0, 3, 3), empty, empty];
        assert_eq!(
            taps_extent(two, [1.0, 0.0, 0.0, 0.0], 4),
            [-0.5, -0.5, 1.0, 1.0]
        );
        assert_eq!(
            taps_extent(two, [0.5, 0.5, 0.0, 0.0], 4),
            [-1.0, -1.0, 1.0, 1.0]
        );
        // Rows 2..=3 and columns 0..=0 of one tap, 3..=3 of another: b in [−1, 0].
        let apart = [pack(0, 2, 0, 3), pack(3, 3, 3, 3), empty, empty];
        assert_eq!(
            taps_extent(apart, [0.5, 0.5, 0.0, 0.0], 4),
            [-1.0, -1.0, 1.0, 0.0]
        );
        // Nothing shown: a point.
        assert_eq!(taps_extent([empty; 4], [0.25; 4], 4), [0.0; 4]);
    }

    #[test]
    fn the_clip_table_holds_the_count_the_clips_and_the_rects_four_a_record() {
        let up = FarUpload {
            atlas: FarAtlas {
                params: bytemuck::Zeroable::zeroed(),
                width: 0,
                height: 0,
                colour: Vec::new(),
                surface: Vec::new(),
                variant_size: [1, 1],
                variant_colours: Vec::new(),
            },
            clips: vec![
                FarClipWords {
                    first_frame: 0,
                    frames: 8,
                    looped: 1,
                    pad: 0,
                },
                FarClipWords {
                    first_frame: 8,
                    frames: 6,
                    looped: 0,
                    pad: 0,
                },
            ],
            rows: Vec::new(),
            rects: (10..15).collect(),
            error: 0.0,
            sphere: [0.0; 4],
        };
        assert_eq!(
            up.clip_table(),
            vec![
                [2, 0, 0, 0],
                [0, 8, 1, 0],
                [8, 6, 0, 0],
                [10, 11, 12, 13],
                [14, 0, 0, 0]
            ]
        );
        let none = FarUpload {
            clips: Vec::new(),
            rects: Vec::new(),
            ..up
        };
        assert_eq!(none.clip_table(), vec![[1, 0, 0, 0], [0, 0, 0, 0]]);
    }
}
