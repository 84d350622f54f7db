//! What a renderer uploads of the far tier (docs/design.md §3 "Far tier") for WGSL
//! `throng::far` (`shaders/far.wgsl`): its parameters, its clips and its tiles packed into two
//! atlases, made once for every embedding.

use crate::far_tier::FarTier;

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
        error: 2.0 * tier.radius / tier.tile.max(1) as f32,
        sphere: tier.centre.extend(tier.radius).to_array(),
    })
}

/// What [`upload`] makes.
#[derive(Debug, Clone, PartialEq)]
pub struct FarUpload {
    pub atlas: FarAtlas,
    pub clips: Vec<FarClipWords>,
    pub rows: Vec<f32>,
    /// The far level's simplification error, file units.
    pub error: f32,
    /// Model centre (xyz, file units) and radius (w) of the sphere every tile frames.
    pub sphere: [f32; 4],
}
