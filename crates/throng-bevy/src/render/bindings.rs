//! The plugin's bind groups and binding numbers, written once: the bind group layouts and
//! bind groups use these constants, and throng's WGSL modules read the same numbers as shader
//! defs (`binding_defs`).

use bevy::shader::ShaderDefVal;

/// Group of the crowd's bind group in the draw; 0 and 1 are Bevy's view groups, 2 Bevy's
/// empty group. The palette pass binds its own group at [`PALETTE_GROUP`].
pub const CROWD_GROUP: u32 = 3;
/// Group of the palette pass's bind group.
pub const PALETTE_GROUP: u32 = 0;
/// Group of the culling pass's bind group.
pub const CULL_GROUP: u32 = 0;

/// Declares binding constants and their shader-def names (`B_<NAME>`).
macro_rules! numbers {
    ($( $(#[$m:meta])* $name:ident = $v:expr; )+) => {
        $( $(#[$m])* pub const $name: u32 = $v; )+
        /// Every number above as (shader-def name, value).
        pub(crate) const DEFS: &[(&str, u32)] = &[$( (concat!("B_", stringify!($name)), $v) ),+];
    };
}

// Binding numbers of the crowd's groups (the draw's at CROWD_GROUP, the palette pass's at
// PALETTE_GROUP): throng's WGSL modules read them as shader defs (`@binding(#{B_BONE_PARAMS})`).
// They start at 100 to stay clear of `bevy_pbr::pbr_bindings`, which Bevy's PBR functions
// import at group 3.
numbers! {
    /// `BoneParams` uniform (throng_asset::gpu::BoneParams).
    BONE_PARAMS = 100;
    /// Clip table, `array<Clip>`.
    CLIPS = 101;
    /// Frame-time lists of the clip table, `array<u32>`.
    FRAME_TIMES = 102;
    /// Bone texture (2D array; Rgba32Float, Rgba16Float or Rgba16Sint by encoding).
    BONE_TEXTURE = 103;
    /// `array<InstanceTransform>`.
    INSTANCE_TRANSFORMS = 104;
    /// CPU-timed records, `array<InstanceRecord>`, or GPU-timed ones,
    /// `array<GpuInstanceRecord>` (a crowd has one kind).
    CPU_RECORDS = 105;
    GPU_RECORDS = 105;
    /// The primitive's `DrawParams` uniform.
    DRAW = 106;
    /// The sampler of the base colour texture array (`BASE_COLOR_LAYERS`). (107, the single
    /// base colour texture before material variants, is no longer bound.)
    SAMPLER = 108;
    /// GPU-timed: the clock uniform (low 32 bits of the runtime's ticks).
    CLOCK = 109;
    /// The palette, `array<PaletteEntry>` (throng_asset::gpu::PaletteEntry).
    PALETTE = 110;
    /// Layer masks, `array<f32>` (throng_asset::gpu::mask_words).
    MASKS = 111;
    /// The palette pass's `PaletteJob` uniform.
    PALETTE_JOB = 112;
    /// Per-instance culling (def CULLED; `render::cull`): the culling pass's visible-id lists,
    /// read by the draws' vertex stage and the palette pass.
    VISIBLE_IDS = 113;
    /// Motion vectors: the previous frame's `array<InstanceTransform>` and palette.
    PREV_TRANSFORMS = 114;
    PREV_PALETTE = 115;
    /// Per-instance culling (`render::cull`, group CULL_GROUP): each frame-table row's box
    /// (throng::cull), the pass's `CullJob` uniform, its `array<CullView>`, the visible-id
    /// lists it writes and the indirect arguments it counts into.
    ROW_BOUNDS = 116;
    CULL_JOB = 117;
    CULL_VIEWS = 118;
    CULL_IDS = 119;
    CULL_ARGS = 120;
    /// The palette pass after culling: the indirect arguments as words (the palette list's
    /// length is one of them).
    PALETTE_COUNT = 121;
    /// The VAT path (`crate::render::vat`): the primitive's `VatParams` uniform
    /// (throng_asset::gpu::VatParams), its positions (float or unorm16 texture; the other
    /// binding gets a placeholder) and its octahedral normals, read by `throng::vat`.
    VAT_PARAMS = 122;
    VAT_POSITIONS_FLOAT = 123;
    VAT_POSITIONS_UINT = 124;
    VAT_NORMALS = 125;
    /// The instances' appearances, an `Rgba32Uint` texture (`crate::render::appearance`).
    APPEARANCES = 126;
    /// The primitive's material slots, a `MaterialSet` uniform (`throng::material`,
    /// throng_asset::gpu::MaterialSet: its own material, then each variant's), and its base
    /// colour texture array (one layer per distinct image of its slots;
    /// `crate::render::materials`).
    MATERIALS = 127;
    BASE_COLOR_LAYERS = 128;
    /// The far tier (`crate::render::far`, an asset baked with one), read by `throng::far` and
    /// `throng_bevy::crowd_far`: its two pictures (`Rgba8Unorm` atlases), its variants' colour
    /// maps (`Rgba32Float`), its `FarParams` uniform, its clips (`array<FarClip>`) and every
    /// frame-table row's frame coordinate (`array<f32>`).
    FAR_COLOUR = 129;
    FAR_SURFACE = 130;
    FAR_VARIANTS = 131;
    FAR_PARAMS = 132;
    FAR_CLIPS = 133;
    FAR_ROWS = 134;
    /// Per tile, the texels a card covers (`throng_asset::gpu::far::tile_rects`), `array<u32>`.
    FAR_RECTS = 135;
}

/// The group and binding shader defs of a pipeline whose crowd group is `group`.
pub(crate) fn binding_defs(group: u32) -> Vec<ShaderDefVal> {
    let mut defs = vec![
        ShaderDefVal::UInt("G_SKIN".into(), group),
        ShaderDefVal::UInt("G_FRAME_TIMES".into(), group),
        ShaderDefVal::UInt("G_VAT".into(), group),
    ];
    defs.extend(DEFS.iter().map(|&(k, v)| ShaderDefVal::UInt(k.into(), v)));
    defs
}
