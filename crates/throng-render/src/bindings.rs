//! Bind groups and binding numbers of every program, written once: the bind group layouts
//! ([`crate::layouts`]) and the bind groups use these constants, and the WGSL reads the same
//! numbers as shader defs (`@group(#{G_DRAW}) @binding(#{B_DRAW_PARAMS})`, see
//! [`crate::shaders`]).

/// Declares binding constants and the list of their shader-def names (`<PREFIX><NAME>`).
macro_rules! numbers {
    ($list:ident, $prefix:literal, $( $(#[$m:meta])* $name:ident = $v:expr; )+) => {
        $( $(#[$m])* pub const $name: u32 = $v; )+
        /// Every number above as (shader-def name, value).
        pub(crate) const $list: &[(&str, u32)] = &[$( (concat!($prefix, stringify!($name)), $v) ),+];
    };
}

/// Bind groups.
pub mod group {
    numbers! {
        DEFS, "G_",
        /// The asset, the crowd's instances, the frame, and the job of a compute program.
        SKIN = 0;
        /// A mesh draw's material.
        MATERIAL = 1;
        /// A primitive's vertex animation textures (VAT draws).
        VAT = 2;
        /// The per-draw uniform (dynamic offset), the crowd's appearances and, in the main pass,
        /// the shadow map.
        DRAW = 3;
        /// Where the contract's `throng::playback` finds the frame-time table: beside the
        /// clip table, in group 0.
        FRAME_TIMES = 0;
    }
}

numbers! {
    DEFS, "B_",
    // ---- group 0 (SKIN): the asset ----
    /// Bone texture (2D array; Rgba32Float, Rgba16Float or Rgba16Sint by encoding).
    BONE_TEXTURE = 0;
    /// `BoneParams` uniform.
    BONE_PARAMS = 1;
    /// Clip table, `array<Clip>` (throng_contract::GpuClip).
    CLIPS = 2;
    /// Frame-time lists of the clip table, `array<u32>` (throng_contract::FrameTimeTable).
    FRAME_TIMES = 15;
    // ---- group 0: the crowd ----
    /// `array<InstanceTransform>`.
    INSTANCE_TRANSFORMS = 3;
    /// CPU-timed records, `array<InstanceRecord>`.
    CPU_RECORDS = 4;
    /// `FrameUniform`.
    FRAME = 5;
    /// GPU-timed: the clock uniform.
    CLOCK = 9;
    /// GPU-timed records, `array<GpuInstanceRecord>`.
    GPU_RECORDS = 14;
    // ---- group 0: compute jobs ----
    SKIN_INPUTS = 6;
    SKIN_OUTPUTS = 7;
    SKIN_JOB = 8;
    /// Layers written by the layers job.
    LAYERS_OUT = 10;
    /// Culling: `CullParams`, the visible-id lists (written by culling, read by culled draws) and
    /// the indirect draw arguments.
    CULL_PARAMS = 11;
    VISIBLE_IDS = 12;
    DRAW_ARGS = 13;
    /// Culling: every frame-table row's bounds, `array<vec4<f32>>` (min, max per row).
    ROW_BOUNDS = 16;
    /// Occlusion culling: the depth pyramid's `DepthPyramid` uniform and its texels
    /// (`array<f32>`, written by the pyramid build, read by culling); the build's per-level
    /// `PyramidStep` (dynamic offset) and the main pass's depth target it reads.
    PYRAMID_PARAMS = 17;
    PYRAMID = 18;
    PYRAMID_STEP = 19;
    PYRAMID_DEPTH = 20;
    /// Occlusion culling: every instance's box, LOD and whether it is in view, written by the
    /// culling pass for the second phase (`array<vec4<f32>>`, two per instance).
    CULL_BOXES = 21;
    // ---- group 0: props (docs/design.md §5 "Props") ----
    /// Every frame-table row's anchor affines, `array<AnchorAffine>`
    /// (crate::gpu_types::AnchorAffine): anchor a of row r at `r · anchor_count + a`.
    ANCHORS = 22;
    /// `PropParams`: the anchor a prop draw (or the anchors job) places by.
    PROP_PARAMS = 23;
    /// The anchors job's output: one world `AnchorAffine` per instance.
    ANCHORS_OUT = 24;
    // ---- group 0: GPU-timed uploads (docs/design.md §5 "Uploads") ----
    /// A frame's changed records, `array<GpuRecordWrite>`, and the scatter's `ScatterParams`
    /// (the scatter writes `GPU_RECORDS`).
    RECORD_WRITES = 30;
    SCATTER_PARAMS = 31;
    // ---- group 0: the palette path (docs/design.md §5 "Skinning paths") ----
    /// Every drawn instance's blended skin matrices, `array<PaletteEntry>`
    /// (throng_asset::gpu::PaletteEntry), written by the palette pass, read by the draws.
    PALETTE = 25;
    /// `PaletteJob` (crate::gpu_types::PaletteJob).
    PALETTE_JOB = 26;
    /// Culled: the culling pass's argument buffer read as words (the palette list's length).
    PALETTE_COUNT = 27;
    /// The asset's layer masks, `array<f32>` (mask m's weight of entry j at
    /// `(m − 1) · entries + j`), read by the palette pass.
    MASKS = 28;
    /// Motion vectors (docs/design.md §5 "Motion vectors"): the previous frame's palette
    /// (`array<PaletteEntry>`) and instance transforms (`array<InstanceTransform>`), read by
    /// the main pass's palette draw.
    PREV_PALETTE = 29;
    PREV_TRANSFORMS = 32;
    // ---- group 0: the far tier (docs/design.md §3 "Far tier") ----
    /// Its two atlases (`Rgba8Unorm`: colour sRGB-encoded, and the surface), `FarParams`, its
    /// clips (`array<FarClip>`) and every frame-table row's frame coordinate (`array<f32>`).
    FAR_COLOUR = 33;
    FAR_SURFACE = 34;
    FAR_PARAMS = 35;
    FAR_CLIPS = 36;
    FAR_ROWS = 37;
    /// Its material variants' colour maps (`Rgba32Float`, throng_asset::gpu::far::FarAtlas).
    FAR_VARIANTS = 38;
    /// Per tile, the texels a card covers (`array<u32>`, throng_asset::gpu::far::tile_rects);
    /// the downlevel mode reads them from the clip table (`FAR_CLIPS`).
    FAR_RECTS = 39;
    // ---- group 1 (MATERIAL) ----
    MATERIAL = 0;
    BASE_TEXTURE = 1;
    BASE_SAMPLER = 2;
    // ---- group 2 (VAT) ----
    VAT_PARAMS = 0;
    VAT_POSITIONS_FLOAT = 1;
    VAT_POSITIONS_UINT = 2;
    VAT_NORMALS = 3;
    // ---- group 3 (DRAW) ----
    DRAW_PARAMS = 0;
    SHADOW_MAP = 1;
    SHADOW_SAMPLER = 2;
    /// Every instance's `Appearance` (throng_contract), one texel of an `Rgba32Uint` texture
    /// ([`crate::appearance`]); both passes.
    APPEARANCES = 3;
}

/// The bind group entry of a whole buffer at `binding`.
pub(crate) fn buffer_entry(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: buffer.as_entire_binding(),
    }
}
