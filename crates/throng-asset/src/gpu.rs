//! The GPU side of a baked asset, shared by every WGSL embedding (throng-render's wgpu
//! passes, throng-bevy's plugin): the WGSL modules that fetch, blend and skin from a baked
//! asset, and the Rust twins of their structs (`#[repr(C)]` + bytemuck; the naga tests of
//! throng-render and throng-bevy check sizes and offsets against the WGSL each composes).
//!
//! | module | file | what |
//! |---|---|---|
//! | `throng::decode` | `shaders/decode.wgsl` | bone-texture and VAT decoders, LBS, DQ (pure functions) |
//! | `throng::bone` | `shaders/bone.wgsl` | bone texture, clip table bindings, fetch by encoding |
//! | `throng::instances` | `shaders/instances.wgsl` | transforms, CPU/GPU-timed layers, visible ids |
//! | `throng::palette` | `shaders/palette.wgsl` | the palette path's buffer of blended skin matrices |
//! | `throng::skin` | `shaders/skin.wgsl` | one vertex skinned (LBS or DQ), per-entry blends |
//! | `throng::pose` | `shaders/pose.wgsl` | one palette entry's pose: base blend, then masked and additive layers |
//! | `throng::vat` | `shaders/vat.wgsl` | one vertex's position and normal from a VAT (bindings at `G_VAT`, `B_VAT_*`) |
//! | `throng::cull` | `shaders/cull.wgsl` | culling and LOD rules: instance boxes, frustum and shadow tests, LOD choice ([`cull`]: the tables they read) |
//! | `throng::vertex` | `shaders/vertex.wgsl` | the vertex stream's input ([`GpuVertex`] at its locations) and its influences decoded, cut to an LOD's count |
//! | `throng::material` | `shaders/material.wgsl` | a primitive's material slots (own material, then each variant's) and the slot an instance's variant draws ([`material`]: the slots and texture layers of a primitive) |
//!
//! The layouts both embeddings upload, each defined once here: [`BoneParams`],
//! [`PaletteEntry`], the palette pass's [`PaletteJob`], the clock uniform [`TimingUniform`],
//! the material [`MaterialUniform`] and a draw's material slots [`MaterialSet`], a VAT's [`VatParams`], the vertex stream [`GpuVertex`] with its attributes
//! ([`vertex`]), and the texel format of every texture ([`TexelFormat`], [`texel`]) — the last
//! two without a graphics API type, so that throng-render (wgpu 30) and throng-bevy (Bevy's
//! wgpu 29) each convert them in one function.
//! (The 48 B affine of transforms and skin matrices is the contract's
//! `throng_contract::Affine3x4`.)
//!
//! Every binding is `@group(#{G_SKIN}) @binding(#{B_*})`: the embedding supplies the numbers
//! as shader defs (throng-render's `bindings`, throng-bevy's `render::bindings`), so one text
//! serves a wgpu pipeline at group 0 and a Bevy pipeline whose groups 0–2 are Bevy's.

use throng_contract::wgsl::Module;

use crate::{BoneTexture, TextureTransform};

pub mod cull;
pub mod far;
pub mod material;
pub mod texel;
pub mod vertex;

pub use material::{MaterialSet, MAX_MATERIAL_SLOTS};
pub use texel::{SampleKind, TexelFormat};
pub use vertex::{GpuVertex, VertexAttribute, VertexFormat, GPU_INFLUENCES};

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

/// Clock uniform of the GPU-timed path (WGSL `Timing`, throng::instances), 16 B.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct TimingUniform {
    /// Low 32 bits of the runtime's tick count (2^20 ticks per second).
    pub clock: u32,
    pub _pad: [u32; 3],
}

impl TimingUniform {
    /// The uniform of the runtime's clock `clock` (`GpuRuntime::gpu_clock`).
    pub const fn new(clock: u32) -> TimingUniform {
        TimingUniform {
            clock,
            _pad: [0; 3],
        }
    }
}

/// A primitive's material as the mesh draws read it, 48 B: WGSL `Material` of
/// `throng::material`, one per slot of a [`MaterialSet`].
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct MaterialUniform {
    /// Linear RGBA base colour factor.
    pub base_color: [f32; 4],
    /// Texture transform rows (uv' = M · (u, v, 1)), w unused.
    pub uv_row0: [f32; 4],
    pub uv_row1: [f32; 4],
}

impl MaterialUniform {
    /// A material of `base_color` (linear RGBA) with the KHR_texture_transform `t`:
    /// M = T(offset) · R(rotation) · S(scale), with R = [[cos, sin], [−sin, cos]] as the
    /// extension specifies (rotation in radians, counter-clockwise in UV space).
    pub fn new(base_color: [f32; 4], t: &TextureTransform) -> MaterialUniform {
        let (s, c) = t.rotation.sin_cos();
        let [sx, sy] = t.scale;
        let [ox, oy] = t.offset;
        MaterialUniform {
            base_color,
            uv_row0: [c * sx, s * sy, ox, 0.0],
            uv_row1: [-s * sx, c * sy, oy, 0.0],
        }
    }

    /// A material of `base_color` and no texture transform.
    pub fn color(base_color: [f32; 4]) -> MaterialUniform {
        Self::new(base_color, &TextureTransform::default())
    }
}

/// The palette pass's job (WGSL `PaletteJob`, throng::palette with def `PALETTE_WRITE`), 16 B:
/// which instances an invocation index covers.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PaletteJob {
    /// Not culled: every instance 0..instances is written (0 when culled).
    pub instances: u32,
    /// Culled: the palette list's first word in the visible-id buffer (throng-render's
    /// `CullParams::palette_base`).
    pub list_base: u32,
    /// Culled: the word of the argument buffer holding the list's length.
    pub count_word: u32,
    pub _pad: u32,
}

impl PaletteJob {
    /// Every instance `0..instances` (no culling).
    pub const fn all(instances: u32) -> PaletteJob {
        PaletteJob {
            instances,
            list_base: 0,
            count_word: 0,
            _pad: 0,
        }
    }
}

/// Bytes of one palette entry of one instance.
pub const PALETTE_ENTRY_BYTES: u64 = std::mem::size_of::<PaletteEntry>() as u64;

/// Bytes of the palette buffer of `instances` instances of an asset of `entries` palette
/// entries.
pub fn palette_bytes(instances: u64, entries: u32) -> u64 {
    instances * entries.max(1) as u64 * PALETTE_ENTRY_BYTES
}

/// Largest workgroup count per dispatch dimension (WebGPU's default
/// `max_compute_workgroups_per_dimension`).
pub const MAX_WORKGROUPS: u32 = 65_535;

/// Workgroups (x, y) of a palette pass covering `invocations` at 64 per workgroup, in rows of
/// at most [`MAX_WORKGROUPS`]: the Rust twin of `throng::palette::palette_invocation`, which
/// reads an invocation's index as `(y · groups_x + x) · 64 + lane`.
pub fn palette_workgroups(invocations: u64) -> (u32, u32) {
    let g = invocations.div_ceil(64);
    let x = g.min(MAX_WORKGROUPS as u64) as u32;
    let y = g.div_ceil(MAX_WORKGROUPS as u64) as u32;
    (x, y)
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

/// VAT description of one primitive (WGSL `VatParams` of `throng::vat`), 48 B.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct VatParams {
    /// 0 f32, 1 f16, 2 unorm16 ([`crate::VatEncoding::code`]).
    pub encoding: u32,
    /// Texels per texture row, W.
    pub width: u32,
    /// Texture rows per frame-table row, R = ceil(V / W).
    pub rows_per_frame: u32,
    /// Texture rows per array layer of the uploaded texture.
    pub rows_per_layer: u32,
    /// unorm16 range (file units), w unused.
    pub min: [f32; 4],
    pub max: [f32; 4],
}

impl VatParams {
    /// The parameters of `vat` uploaded in array layers of `rows_per_layer` texture rows.
    pub fn new(vat: &crate::Vat, rows_per_layer: u32) -> VatParams {
        VatParams {
            encoding: vat.encoding.code(),
            width: vat.width.max(1),
            rows_per_frame: vat.rows_per_frame(),
            rows_per_layer: rows_per_layer.max(1),
            min: vat.min.extend(0.0).into(),
            max: vat.max.extend(0.0).into(),
        }
    }
}

/// The palette pass's program (`shaders/palette_pass.wgsl`: entry point `cs_palette`), as
/// both embeddings compose it with the modules of [`wgsl_modules`]: its file (for messages)
/// and text.
pub const PALETTE_PASS: (&str, &str) = (
    "crates/throng-asset/shaders/palette_pass.wgsl",
    include_str!("../shaders/palette_pass.wgsl"),
);

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
        shader!("throng::vat", "vat.wgsl"),
        shader!("throng::far", "far.wgsl"),
        shader!("throng::cull", "cull.wgsl"),
        shader!("throng::material", "material.wgsl"),
        shader!("throng::vertex", "vertex.wgsl"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workgroups_cover_every_invocation_in_rows_of_the_limit() {
        assert_eq!(palette_workgroups(0), (0, 0));
        assert_eq!(palette_workgroups(1), (1, 1));
        assert_eq!(palette_workgroups(64), (1, 1));
        assert_eq!(palette_workgroups(65), (2, 1));
        let n = 64 * MAX_WORKGROUPS as u64 + 1;
        assert_eq!(palette_workgroups(n), (MAX_WORKGROUPS, 2));
        let (x, y) = palette_workgroups(n);
        assert!(x as u64 * y as u64 * 64 >= n);
    }

    #[test]
    fn palette_bytes_are_48_per_entry_and_instance() {
        assert_eq!(PALETTE_ENTRY_BYTES, 48);
        assert_eq!(palette_bytes(1000, 24), 1000 * 24 * 48);
        // Fox's 24 entries on a 128 MiB binding.
        assert_eq!((128u64 << 20) / palette_bytes(1, 24), 116_508);
    }
}
