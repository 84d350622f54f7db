//! Rust twins of the WGSL structs in `shaders/common.wgsl` and `shaders/frame.wgsl`
//! (`#[repr(C)]` + bytemuck; a naga test checks that sizes and offsets agree).

/// The structs shared with throng-bevy ([`throng_asset::gpu`]): the skinning modules' bone
/// parameters, palette entry and palette job, the GPU-timed clock (WGSL `Timing`) and the material (WGSL
/// `Material`).
pub use throng_asset::gpu::{
    BoneParams, MaterialUniform, PaletteEntry, PaletteJob, TimingUniform, VatParams,
};

/// The per-instance contract (throng-contract's types, uploaded unchanged): the CPU-timed 64 B
/// record, the GPU-timed 56 B record, the 48 B instance transform and the clip table.
pub use throng_contract::{
    GpuClip, GpuInstanceRecord, GpuLayer, InstanceRecord, InstanceTransform,
};

/// A record that shows one clip frame with full weight: layer 0 = (1, frac, row, clip).
pub fn single_layer(row: u32, frac: f32, clip: u32) -> InstanceRecord {
    InstanceRecord::single(throng_contract::FrameRef { row, frac }, clip)
}

/// Per-frame uniform (WGSL `FrameUniform`), 304 B.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct FrameUniform {
    /// Column-major clip-from-world matrix (wgpu clip space, depth 0..1).
    pub view_proj: [[f32; 4]; 4],
    /// Column-major clip-from-world matrix of the shadow camera (orthographic, depth 0..1).
    pub light_view_proj: [[f32; 4]; 4],
    /// Unit direction the light travels, world space.
    pub light_dir: [f32; 4],
    /// Linear RGB light colour, ambient strength in w.
    pub light: [f32; 4],
    /// Ground: centre x, height y, centre z, half extent (file units).
    pub ground: [f32; 4],
    /// x: checker cell size (file units).
    pub ground_cell: [f32; 4],
    /// x: 1 with a shadow map, y: its texel size in uv units, z: depth bias (shadow clip depth).
    pub shadow: [f32; 4],
    /// x: debug view (0 none, 1 weights, 2 palette, 3 row, 4 LOD, 5 motion), y: joint of the
    /// weights view (`u32::MAX`: 1 − largest weight).
    pub debug: [u32; 4],
    /// Motion vectors: column-major clip-from-world matrix of the previous frame's camera
    /// (this frame's when there is none).
    pub prev_view_proj: [[f32; 4]; 4],
    /// Motion vectors: x, y the target's size in pixels, z the motion the motion debug view
    /// shows at full brightness (pixels).
    pub motion: [f32; 4],
    /// The camera's position (world) and, in w, the pixels a length of 1 covers at a distance
    /// of 1 ([`CullParams::eye`]): for the far tier's crossfade
    /// (`throng_asset::far_tier::card_share`).
    pub eye: [f32; 4],
}

/// Per-draw uniform (WGSL `DrawParams`), 64 B, stored at a 256 B stride and bound with a
/// dynamic offset: one per (pass, LOD) — or, for multi-draws over every LOD with first
/// instances, one per pass with `lod` = [`DrawParams::ALL_LODS`].
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DrawParams {
    /// First visible id of this (pass, LOD) in the visible-id list (0 with first instances).
    pub id_base: u32,
    /// Influences per vertex used (the strongest, renormalised); 8 = all.
    pub influences: u32,
    pub lod: u32,
    /// 0 main pass, 1 shadow pass.
    pub pass_index: u32,
    /// Ids per (pass, LOD) list (multi-draws derive the LOD from the instance index).
    pub segment: u32,
    pub lod_count: u32,
    /// Multi-draws: influences at LOD 0, 1, 2 and 3+ in bytes 0–3.
    pub lod_influences: u32,
    pub _pad: u32,
    /// The far tier's crossfade (docs/design.md §5 "Far tier";
    /// `throng_asset::far_tier::card_share`): the tier's sphere (model centre, radius), and
    /// in `far_fade` x its texel (the far level's error, model units; 0: no crossfade, the
    /// meshes draw whole), y the pixels a texel covers where the card starts to show
    /// (`lod_bias`), z how many fewer where it shows alone; w unused.
    pub far_sphere: [f32; 4],
    pub far_fade: [f32; 4],
}

impl DrawParams {
    /// `lod` of a multi-draw over every LOD.
    pub const ALL_LODS: u32 = u32::MAX;
}

/// Byte stride of [`DrawParams`] entries (the largest uniform offset alignment wgpu allows).
pub const DRAW_PARAMS_STRIDE: u64 = 256;

/// One vertex of the compute skinning job (WGSL `SkinInput`), 112 B.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SkinInput {
    pub position: [f32; 4],
    pub normal: [f32; 4],
    pub tangent: [f32; 4],
    pub joints: [u32; 8],
    /// unorm16 integers.
    pub weights: [u32; 8],
}

/// One skinned vertex written by the compute job (WGSL `SkinOutput`), 48 B; model space.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SkinOutput {
    pub position: [f32; 4],
    pub normal: [f32; 4],
    pub tangent: [f32; 4],
}

/// Compute job size (WGSL `SkinJob`), 16 B.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SkinJob {
    pub vertex_count: u32,
    pub instance_count: u32,
    pub _pad: [u32; 2],
}

/// Culling and LOD parameters (WGSL `CullParams`), 384 B.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct CullParams {
    /// Frustum planes, normals pointing inside: inside when `dot(n, p) + w ≥ 0` (world space).
    pub planes: [[f32; 4]; 6],
    /// The shadow camera's frustum planes (used when `shadows` is 1).
    pub shadow_planes: [[f32; 4]; 6],
    /// Model-space bounds for the rest pose and for clips without bounds (file units).
    pub fallback_min: [f32; 4],
    pub fallback_max: [f32; 4],
    /// Camera position (world, file units); w: (image height / 2) / tan(fov_y / 2).
    pub eye: [f32; 4],
    /// Simplification error per LOD level in model units (file units), [0] = 0.
    pub lod_error: [f32; 8],
    /// Unit direction the light travels (world); w: how far shadows reach along it (file
    /// units). A caster is kept when its box swept that far meets the view frustum.
    pub light: [f32; 4],
    pub instance_count: u32,
    pub primitive_count: u32,
    pub lod_count: u32,
    /// Visible ids of (pass, LOD) start at `(pass · lod_count + LOD) · segment`.
    pub segment: u32,
    /// Largest projected simplification error allowed, pixels (≤ 0: LOD 0 only).
    pub lod_bias: f32,
    pub shadows: u32,
    /// Margin added to each frame-table row's box (file units): dual-quaternion skinning and
    /// the encodings' rounding put vertices a little off the bake's bounds, which were measured
    /// with linear blend skinning of the source matrices.
    pub row_pad: f32,
    /// 1: boxes from the rows each layer shows; 0: from the layers' clips.
    pub row_bounds: u32,
    /// Shadow LOD: x = shadow-map texels per world unit (file units), y = the rule (0 texel
    /// size, 1 coarsest LOD, 2 the main view's LOD), zw unused.
    pub shadow_lod: [f32; 4],
    /// Lists per LOD: 2 (main, shadow) or 3 (occlusion culling's second phase as pass 2).
    pub pass_count: u32,
    /// Occlusion culling: the first word of the visibility history in the visible-id buffer
    /// (one word per instance after every list; 1 = visible at the last second phase).
    pub history_base: u32,
    /// The palette path (docs/design.md §5): the first word of the palette list in the
    /// visible-id buffer (every instance in view or casting a shadow, once); its length is the
    /// `instance_count` of the argument entry after every draw's, and the entry after that the
    /// palette pass's indirect dispatch. 0: no palette list.
    pub palette_base: u32,
    /// The palette path: the first of the palette state words in the visible-id buffer (one
    /// per instance, after the palette list; `throng_contract::live`), kept across frames.
    pub palette_state: u32,
    /// This frame's number for the palette state (`throng_contract::next_palette_frame`).
    pub frame: u32,
    /// The far tier's LOD level (0: the asset has none, or it is not drawn) and its sphere's
    /// diameter (model units): a far caster whose sphere covers less than one shadow-map texel
    /// casts nothing.
    pub far_level: u32,
    pub far_diameter: f32,
    /// The far tier's crossfade band, pixels: the card starts to show where one of its texels
    /// covers `lod_bias` pixels and shows alone `far_band` pixels below that (0: a hard switch;
    /// `throng_asset::far_tier::card_share`).
    pub far_band: f32,
    /// Update-rate LOD: an instance at LOD l computes its palette every `refresh[min(l, 3)]`-th
    /// frame (`RenderOptions::palette_refresh`).
    pub refresh: [u32; 4],
    /// The main camera's clip-from-world matrix (column-major) and the target's size in pixels
    /// (x, y): a far card whose screen box holds no pixel centre is not listed; z 1.0: one whose
    /// box holds one pixel centre is drawn as one point ([`crate::RenderOptions::far_dots`]);
    /// w unused.
    pub view_proj: [[f32; 4]; 4],
    pub viewport: [f32; 4],
    /// The far tier's sphere: model centre (xyz) and radius (w); a far card is the sphere's
    /// square facing the camera.
    pub far_sphere: [f32; 4],
}

/// Levels a [`DepthPyramid`] may have: enough to reduce any 2D texture size wgpu allows
/// (level l has texels of 2^(l+1) pixels; 2^17 = 131,072).
pub const MAX_PYRAMID_LEVELS: usize = 16;

/// The depth pyramid's parameters (WGSL `DepthPyramid`, throng_render::depth_pyramid), 336 B.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DepthPyramid {
    /// The main camera's view-projection (world → clip, column-major) of the depth it holds.
    pub view_proj: [[f32; 4]; 4],
    /// Depth target width and height (pixels), number of levels, unused.
    pub size: [u32; 4],
    /// Per level: first texel in the pyramid buffer (f32s), width, height, unused.
    pub levels: [[u32; 4]; MAX_PYRAMID_LEVELS],
}

impl DepthPyramid {
    /// The levels of a `width` × `height` depth target: level 0 halves it (rounding up), each
    /// further level halves the one below, down to 1×1 (at most [`MAX_PYRAMID_LEVELS`]). Also
    /// returns the texels of all levels together.
    pub fn new(view_proj: [[f32; 4]; 4], width: u32, height: u32) -> (DepthPyramid, u32) {
        let mut levels = [[0u32; 4]; MAX_PYRAMID_LEVELS];
        let (mut w, mut h, mut at, mut n) = (width.max(1), height.max(1), 0u32, 0usize);
        while n < MAX_PYRAMID_LEVELS {
            w = w.div_ceil(2);
            h = h.div_ceil(2);
            levels[n] = [at, w, h, 0];
            at += w * h;
            n += 1;
            if w == 1 && h == 1 {
                break;
            }
        }
        let p = DepthPyramid {
            view_proj,
            size: [width, height, n as u32, 0],
            levels,
        };
        (p, at)
    }
}

/// The level one pyramid dispatch writes (WGSL `PyramidStep`), 16 B at a 256 B stride.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PyramidStep {
    pub level: u32,
    pub _pad: [u32; 3],
}

/// wgpu's `DrawIndexedIndirect` arguments (WGSL `DrawArgs`), 20 B: the culling code's, shared
/// with throng-bevy's culling pass.
pub use throng_asset::gpu::cull::DrawIndexedArgs;

/// One anchor's transform (WGSL `AnchorAffine`), 48 B: the 3 rows of the 3×4 affine `[L | t]`
/// (column vectors: `p' = L · p + t`), each row `(m_r0, m_r1, m_r2, t_r)`, file units — the
/// contract's GPU-facing affine ([`throng_contract::Affine3x4`]). The asset's anchors are stored
/// so per frame-table row (model space; 12 f32 per anchor in
/// `throng_asset::AnchorTexture::data`, [`throng_contract::Affine3x4::from_rows`]), and the
/// anchors job writes world transforms so.
pub type AnchorAffine = throng_contract::Affine3x4;

/// Which anchor a prop draw or the anchors job reads (WGSL `PropParams`), 16 B.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PropParams {
    /// Index into the asset's anchors (`GpuAsset::anchor_names`).
    pub anchor: u32,
    /// Anchors per frame-table row.
    pub anchor_count: u32,
    /// Instances of the crowd (the anchors job's thread count).
    pub instance_count: u32,
    pub _pad: u32,
}

/// Material slots of one draw (WGSL `MaterialSet` of `throng::material`), 848 B, and their
/// limit: throng-asset's, shared with throng-bevy ([`throng_asset::gpu::material`]).
pub use throng_asset::gpu::material::{MaterialSet, MAX_MATERIAL_SLOTS};
