//! The GPU side of a baked asset, shared by every WGSL embedding (throng-render's wgpu
//! passes, throng-bevy's plugin): the WGSL modules that fetch, blend and skin from a baked
//! asset, and the Rust twins of their structs (`#[repr(C)]` + bytemuck; throng-render's naga
//! test checks sizes and offsets).
//!
//! | module | file | what |
//! |---|---|---|
//! | `throng::decode` | `shaders/decode.wgsl` | bone-texture and VAT decoders, LBS, DQ (pure functions) |
//! | `throng::bone` | `shaders/bone.wgsl` | bone texture, clip table bindings, fetch by encoding |
//! | `throng::instances` | `shaders/instances.wgsl` | transforms, CPU/GPU-timed layers, visible ids |
//! | `throng::palette` | `shaders/palette.wgsl` | the palette path's buffer of blended skin matrices |
//! | `throng::skin` | `shaders/skin.wgsl` | one vertex skinned (LBS or DQ), per-entry blends |
//! | `throng::pose` | `shaders/pose.wgsl` | one palette entry's pose: base blend, then masked and additive layers |
//!
//! Every binding is `@group(#{G_SKIN}) @binding(#{B_*})`: the embedding supplies the numbers
//! as shader defs (throng-render's `bindings`, throng-bevy's `render::bindings`), so one text
//! serves a wgpu pipeline at group 0 and a Bevy pipeline whose groups 0–2 are Bevy's.

use throng_contract::wgsl::Module;

use crate::BoneTexture;

/// Bone texture description (WGSL `BoneParams`), 32 B.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BoneParams {
    pub entries: u32,
    pub rows: u32,
    pub rows_per_layer: u32,
    pub clip_count: u32,
    pub translation_range: f32,
    pub scale_range: f32,
    pub _pad: [f32; 2],
}

impl BoneParams {
    pub fn new(bones: &BoneTexture, clip_count: usize) -> BoneParams {
        BoneParams {
            entries: bones.entries,
            rows: bones.rows,
            rows_per_layer: bones.rows_per_layer.clamp(1, bones.rows.max(1)),
            clip_count: clip_count as u32,
            translation_range: bones.translation_range,
            scale_range: bones.scale_range,
            _pad: [0.0; 2],
        }
    }
}

/// One palette entry of one instance (WGSL `PaletteEntry`, throng::palette), 48 B, at
/// `instance · palette entries + entry` of the palette buffer. Linear blend skinning: the rows
/// of the blended skin matrix's affine part `[L | t]` (model space from bind space, file
/// units). Dual quaternions: `a` = Σ real (x, y, z, w), `b` = Σ dual, `c[0]` = Σ uniform
/// scale — blended over the instance's frames and layers, hemisphere-aligned to the entry's
/// first term and not normalised.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PaletteEntry {
    pub a: [f32; 4],
    pub b: [f32; 4],
    pub c: [f32; 4],
}

/// The layer masks as `throng::pose` reads them (`array<f32>` at `B_MASKS`): mask number m's
/// weight of palette entry j at `(m − 1) · entries + j` (docs/design.md §4); one unused zero
/// word when the asset has none, since a GPU storage binding cannot be empty.
pub fn mask_words(asset: &crate::BakedAsset) -> Vec<f32> {
    let mut words: Vec<f32> = asset
        .masks
        .iter()
        .flat_map(|m| m.weights.iter().copied())
        .collect();
    if words.is_empty() {
        words.push(0.0);
    }
    words
}

/// A module of `shaders/`: its import path, file name and text.
macro_rules! shader {
    ($path:literal, $file:literal) => {
        Module {
            import_path: $path,
            file: concat!("crates/throng-asset/shaders/", $file),
            source: include_str!(concat!("../shaders/", $file)).to_string(),
        }
    };
}

/// The GPU twin of [`crate::decode`] and [`crate::vat`] (`throng::decode`): pure functions, no
/// bindings, for any WGSL composer.
pub fn decode_module() -> Module {
    shader!("throng::decode", "decode.wgsl")
}

/// Every module above, dependencies first (after throng-contract's
/// `throng_contract::wgsl::modules`, which they import).
pub fn wgsl_modules() -> Vec<Module> {
    vec![
        decode_module(),
        shader!("throng::bone", "bone.wgsl"),
        shader!("throng::instances", "instances.wgsl"),
        shader!("throng::palette", "palette.wgsl"),
        shader!("throng::skin", "skin.wgsl"),
        shader!("throng::pose", "pose.wgsl"),
    ]
}
