//! The render world: crowds drawn inside Bevy's main 3D pass.
//!
//! **Mechanism: non-mesh items in Bevy's opaque phase with a specialized render pipeline**
//! (the route of Bevy's `custom_phase_item` example). Each visible crowd is one
//! `BinnedRenderPhaseType::NonMesh` item in each camera's `Opaque3d` phase, drawn with Bevy's
//! opaque meshes (so before transparent ones, which blend over it as over any opaque mesh);
//! its draw command binds the crowd's buffers and issues one `draw_indexed` per primitive with
//! `instances = 0..n`, so draws per frame = primitives, whatever n. Bevy's binned phases keep
//! their items across frames, so each frame [`queue_crowds`] takes every crowd out of them and
//! puts the visible ones back ([`QueuedCrowds`]). The
//! pipeline is `MeshPipeline::specialize` for the view's key (so every view shader def Bevy's
//! PBR functions need — lights, shadow filtering, tonemapping, fog, MSAA — is set as for
//! Bevy's own meshes) with throng's vertex layout, bind group and shader swapped in.
//!
//! **Skinning: the palette path** (docs/design.md §5 "Skinning paths"). Before Bevy's render
//! graph runs, each crowd's palette pass — a compute dispatch of throng's `throng::pose`, one
//! invocation per (instance, palette entry) — writes every instance's blended skin matrices
//! into the crowd's palette buffer ([`dispatch_palettes`]); the vertex stage then reads one
//! matrix per influence (`throng::skin` with def `PALETTE`), as Bevy's own skinning reads
//! its joint matrices, instead of fetching and blending 2 frames × 4 layers per influence
//! from the bone texture. A crowd whose palette would exceed the device's storage-binding
//! limit (entries × capacity × 48 B, the capacity being the instance count rounded up to a
//! power of two; a million Fox instances need 1.2 GB, past wgpu's default 128 MiB and most
//! devices' limits) is drawn on the texture path instead, with a warning: the same
//! `throng::skin` without `PALETTE`, straight from the bone texture. Both are throng's shared
//! WGSL modules (`throng_asset::gpu`), composed by Bevy's naga_oil with the plugin's group and
//! binding numbers ([`bindings`]).
//!
//! Why not a material extension or Bevy's own mesh path: those draw one `Mesh` per entity
//! through Bevy's mesh uniforms and batching, and a skinned vertex would go through Bevy's
//! joint-matrix skinning; throng needs its own per-instance storage buffers, its own vertex
//! streams (8 influences as u16 + unorm16) and no entity per instance. (Until this version
//! the crowd was a `Transparent3d` item, sorted by its box's centre: a transparent object
//! farther than that centre but in front of some instances was drawn first and then
//! overdrawn.)
//!
//! Shadow maps and the depth, normal and motion-vector prepasses: [`crate::prepass`]. The
//! vertex stage of every pass is one WGSL function (`throng_bevy::crowd_vertex`).
//!
//! Not done: culling is per crowd (one world box against each view's frustum), not per
//! instance; skinning is linear blend skinning (no dual quaternions), with no LODs or VATs.

use std::ops::Range;
use std::sync::Arc;

use bevy::asset::AssetId;
use bevy::camera::primitives::{Aabb, Frustum};
use bevy::core_pipeline::core_3d::{Opaque3d, Opaque3dBatchSetKey, Opaque3dBinKey};
use bevy::core_pipeline::prepass::MotionVectorPrepass;
use bevy::ecs::system::lifetimeless::SRes;
use bevy::ecs::system::SystemParamItem;
use bevy::image::Image;
use bevy::light::NotShadowCaster;
use bevy::math::primitives::ViewFrustum;
use bevy::math::{Affine3A, Mat4, Vec3};
use bevy::mesh::{Mesh, MeshVertexBufferLayout, MeshVertexBufferLayoutRef, VertexBufferLayout};
use bevy::pbr::{
    MeshPipeline, MeshPipelineKey, SetMeshViewBindGroup, SetMeshViewBindingArrayBindGroup,
    SetMeshViewEmptyBindGroup, ViewKeyCache,
};
use bevy::platform::collections::{HashMap, HashSet};
use bevy::prelude::*;
use bevy::render::mesh::allocator::MeshSlabs;
use bevy::render::render_asset::RenderAssets;
use bevy::render::render_phase::{
    BinnedRenderPhaseType, DrawFunctions, InputUniformIndex, PhaseItem, RenderCommand,
    RenderCommandResult, SetItemPipeline, TrackedRenderPass, ViewBinnedRenderPhases,
};
use bevy::render::render_resource::*;
use bevy::render::renderer::{RenderDevice, RenderQueue};
use bevy::render::sync_world::{MainEntity, RenderEntity};
use bevy::render::texture::{FallbackImage, GpuImage};
use bevy::render::view::ExtractedView;
use bevy::render::Extract;
use bevy::shader::{Shader, ShaderDefVal};
use throng_asset::gpu::{palette_bytes, palette_workgroups, BoneParams, PALETTE_ENTRY_BYTES};
use throng_asset::{BakedAsset, Encoding};

use crate::asset::ThrongAsset;
use crate::crowd::{SkinPath, ThrongCrowd};
use throng_contract::names::Timing;
use throng_runtime::PlaybackControl;

/// Group of the crowd's bind group in the draw; 0 and 1 are Bevy's view groups, 2 Bevy's
/// empty group. The palette pass binds its own group at [`PALETTE_GROUP`].
pub const CROWD_GROUP: u32 = 3;
/// Group of the palette pass's bind group.
pub const PALETTE_GROUP: u32 = 0;

/// Declares binding constants and their shader-def names (`B_<NAME>`).
macro_rules! numbers {
    ($( $(#[$m:meta])* $name:ident = $v:expr; )+) => {
        $( $(#[$m])* pub const $name: u32 = $v; )+
        /// Every number above as (shader-def name, value).
        pub(crate) const DEFS: &[(&str, u32)] = &[$( (concat!("B_", stringify!($name)), $v) ),+];
    };
}

/// Binding numbers of the crowd's groups (the draw's at [`CROWD_GROUP`], the palette pass's
/// at [`PALETTE_GROUP`]), written once: the layouts and bind groups use these constants and
/// throng's WGSL modules read them as shader defs (`@binding(#{B_BONE_PARAMS})`). They start
/// at 100 to stay clear of `bevy_pbr::pbr_bindings`, which Bevy's PBR functions import at
/// group 3.
pub mod bindings {
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
        /// Base colour texture and sampler.
        BASE_COLOR = 107;
        SAMPLER = 108;
        /// GPU-timed: the clock uniform (low 32 bits of the runtime's ticks).
        CLOCK = 109;
        /// The palette, `array<PaletteEntry>` (throng_asset::gpu::PaletteEntry).
        PALETTE = 110;
        /// Layer masks, `array<f32>` (throng_asset::gpu::mask_words).
        MASKS = 111;
        /// The palette pass's `PaletteJob` uniform.
        PALETTE_JOB = 112;
        /// Binding of throng's modules that the plugin never binds (culled ids): a number
        /// only, so that the modules compose.
        VISIBLE_IDS = 113;
        /// Motion vectors: the previous frame's `array<InstanceTransform>` and palette.
        PREV_TRANSFORMS = 114;
        PREV_PALETTE = 115;
    }
}

/// The group and binding shader defs of a pipeline whose crowd group is `group`.
fn binding_defs(group: u32) -> Vec<ShaderDefVal> {
    let mut defs = vec![
        ShaderDefVal::UInt("G_SKIN".into(), group),
        ShaderDefVal::UInt("G_FRAME_TIMES".into(), group),
    ];
    defs.extend(
        bindings::DEFS
            .iter()
            .map(|&(k, v)| ShaderDefVal::UInt(k.into(), v)),
    );
    defs
}

/// Bytes per vertex of the crowd's vertex buffer: position (3 f32), normal (3 f32), uv (2
/// f32), joints (8 u16), unorm16 weights (8 u16).
pub const VERTEX_BYTES: u64 = 64;

/// WGSL `DrawParams` (64 B): a primitive's material.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DrawParams {
    pub base_color: [f32; 4],
    pub uv_row0: [f32; 4],
    pub uv_row1: [f32; 4],
    /// x: unused; y: double-sided.
    pub misc: [u32; 4],
}

/// WGSL `PaletteJob` of `shaders/crowd_palette.wgsl` (16 B).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PaletteJob {
    pub instances: u32,
    pub pad: [u32; 3],
}

/// A primitive on the GPU.
pub struct GpuPrimitive {
    pub vertices: Buffer,
    pub indices: Buffer,
    pub index_count: u32,
    pub material: DrawParams,
    pub image: Option<AssetId<Image>>,
}

/// A baked asset on the GPU: bone texture, clip table, primitives.
pub struct GpuThrongAsset {
    pub baked: Arc<BakedAsset>,
    pub bone_params: Buffer,
    pub clips: Buffer,
    pub frame_times: Buffer,
    pub bone_view: TextureView,
    /// The layer masks (`throng_asset::gpu::mask_words`).
    pub masks: Buffer,
    pub primitives: Vec<GpuPrimitive>,
    pub double_sided: bool,
    /// Every primitive has at most 4 influences per vertex (def `INFLUENCES_4`).
    pub four_influences: bool,
}

impl bevy::render::render_asset::RenderAsset for GpuThrongAsset {
    type SourceAsset = ThrongAsset;
    type Param = (SRes<RenderDevice>, SRes<RenderQueue>);

    fn prepare_asset(
        source: ThrongAsset,
        _id: AssetId<ThrongAsset>,
        (device, queue): &mut SystemParamItem<Self::Param>,
        _previous: Option<&Self>,
    ) -> Result<Self, bevy::render::render_asset::PrepareAssetError<ThrongAsset>> {
        Ok(upload(&source, device, queue))
    }
}

fn storage_with(device: &RenderDevice, label: &str, bytes: &[u8]) -> Buffer {
    // wgpu rejects zero-sized storage bindings: an empty table gets one zero word.
    let zero = [0u8; 16];
    let contents = if bytes.is_empty() { &zero[..] } else { bytes };
    device.create_buffer_with_data(&BufferInitDescriptor {
        label: Some(label),
        contents,
        usage: BufferUsages::STORAGE | BufferUsages::COPY_DST,
    })
}

fn bone_format(e: Encoding) -> TextureFormat {
    match e {
        Encoding::Mat4F32 | Encoding::Mat3x4F32 | Encoding::QuatF32 => TextureFormat::Rgba32Float,
        Encoding::Mat3x4F16 => TextureFormat::Rgba16Float,
        Encoding::QuatSnorm16 => TextureFormat::Rgba16Sint,
    }
}

/// Uploads a loaded asset (throng-asset validated it on load, so sizes agree).
fn upload(source: &ThrongAsset, device: &RenderDevice, queue: &RenderQueue) -> GpuThrongAsset {
    let baked = &source.baked;
    let bones = &baked.bone_texture;
    let table = throng_asset::gpu_clip_table(&baked.clips);
    let rpl = bones.rows_per_layer.max(1);
    let height = bones.rows.clamp(1, rpl);
    // At least 2 layers: wgpu's GL backend gives a 1-layer texture the 2D target, which a
    // texture_2d_array binding cannot read.
    let layers = bones.layers().max(2);
    let texel = bones.encoding.bytes_per_texel() as usize;
    let width = bones.width().max(1);
    let mut data = bones.data.clone();
    data.resize(
        width as usize * texel * height as usize * layers as usize,
        0,
    );
    let texture = device.create_texture_with_data(
        queue,
        &TextureDescriptor {
            label: Some("throng bone texture"),
            size: Extent3d {
                width,
                height,
                depth_or_array_layers: layers,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: TextureDimension::D2,
            format: bone_format(bones.encoding),
            usage: TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        },
        TextureDataOrder::LayerMajor,
        &data,
    );
    let bone_view = texture.create_view(&TextureViewDescriptor {
        dimension: Some(TextureViewDimension::D2Array),
        ..default()
    });
    let params = BoneParams::new(bones, baked.clips.len());
    let bone_params = device.create_buffer_with_data(&BufferInitDescriptor {
        label: Some("throng bone params"),
        contents: bytemuck::bytes_of(&params),
        usage: BufferUsages::UNIFORM,
    });
    let clips = storage_with(
        device,
        "throng clips",
        bytemuck::cast_slice(table.clip_upload()),
    );
    let frame_times = storage_with(
        device,
        "throng frame times",
        bytemuck::cast_slice(table.frame_times.upload_words()),
    );
    let masks = storage_with(
        device,
        "throng layer masks",
        bytemuck::cast_slice(&throng_asset::gpu::mask_words(baked)),
    );
    let mut double_sided = false;
    let primitives = baked
        .primitives
        .iter()
        .map(|p| {
            let mat = p.material.and_then(|m| baked.materials.get(m));
            double_sided |= mat.is_some_and(|m| m.double_sided);
            let factor = mat.map_or([1.0; 4], |m| m.base_color_factor);
            let t = mat.map(|m| m.texture_transform).unwrap_or_default();
            let (s, c) = t.rotation.sin_cos();
            let [sx, sy] = t.scale;
            let [ox, oy] = t.offset;
            let image = mat
                .and_then(|m| m.base_color_texture)
                .and_then(|i| source.images.get(i).cloned().flatten())
                .map(|h| h.id());
            GpuPrimitive {
                vertices: device.create_buffer_with_data(&BufferInitDescriptor {
                    label: Some("throng vertices"),
                    contents: &vertex_bytes(p),
                    usage: BufferUsages::VERTEX,
                }),
                indices: device.create_buffer_with_data(&BufferInitDescriptor {
                    label: Some("throng indices"),
                    contents: bytemuck::cast_slice(&p.indices),
                    usage: BufferUsages::INDEX,
                }),
                index_count: p.indices.len() as u32,
                // KHR_texture_transform M = T · R · S, R = [[cos, sin], [−sin, cos]].
                material: DrawParams {
                    base_color: factor,
                    uv_row0: [c * sx, s * sy, ox, 0.0],
                    uv_row1: [-s * sx, c * sy, oy, 0.0],
                    misc: [0, mat.is_some_and(|m| m.double_sided) as u32, 0, 0],
                },
                image,
            }
        })
        .collect();
    GpuThrongAsset {
        baked: baked.clone(),
        bone_params,
        clips,
        frame_times,
        bone_view,
        masks,
        primitives,
        double_sided,
        four_influences: baked.primitives.iter().all(|p| p.influences <= 4),
    }
}

/// The interleaved vertex stream of a primitive ([`VERTEX_BYTES`] per vertex); K = 4
/// influences are padded to 8 with zero weights.
fn vertex_bytes(p: &throng_asset::BakedPrimitive) -> Vec<u8> {
    let n = p.vertex_count();
    let k = p.influences as usize;
    let mut out = Vec::with_capacity(n * VERTEX_BYTES as usize);
    for v in 0..n {
        let pos = p.positions.get(v).copied().unwrap_or_default();
        let nrm = p.normals.get(v).copied().unwrap_or(glam::Vec3::Y);
        let uv = p
            .uv0
            .as_ref()
            .and_then(|u| u.get(v).copied())
            .unwrap_or_default();
        for f in pos
            .to_array()
            .into_iter()
            .chain(nrm.to_array())
            .chain(uv.to_array())
        {
            out.extend_from_slice(&f.to_le_bytes());
        }
        let mut joints = [0u16; 8];
        let mut weights = [0u16; 8];
        for (i, (j, w)) in joints.iter_mut().zip(&mut weights).enumerate().take(k) {
            *j = p.joints.get(v * k + i).copied().unwrap_or(0);
            *w = p.weights.get(v * k + i).copied().unwrap_or(0);
        }
        for x in joints.into_iter().chain(weights) {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
    out
}

/// A crowd's per-instance buffers in the render world (kept across frames, rewritten when
/// the main world's generation counters move).
pub struct CrowdGpu {
    pub render_entity: Entity,
    pub asset: AssetId<ThrongAsset>,
    pub gpu_timed: bool,
    pub instances: u32,
    capacity: u64,
    record_bytes: u64,
    transforms: Option<Buffer>,
    records: Option<Buffer>,
    /// GPU-timed: the clock uniform (16 B; written every frame, read by the palette pass or,
    /// on the texture path, the vertex stage).
    clock_buffer: Option<Buffer>,
    /// The palette path's buffer, `capacity × entries` entries of 48 B; on the texture path a
    /// one-entry stand-in for the draw layout's palette binding. `None` until sized by the
    /// asset (again after the crowd grows or changes path).
    palette: Option<Buffer>,
    /// Motion vectors (some camera has Bevy's `MotionVectorPrepass`): the previous frame's
    /// transforms and palette, copied from the current ones before they are rewritten.
    /// Without motion vectors the bind groups bind the current buffers in their place.
    pub motion: bool,
    prev_transforms: Option<Buffer>,
    prev_palette: Option<Buffer>,
    /// The previous-frame buffers were just created: this frame they take this frame's data
    /// (no motion) instead of the stale content of the current buffers.
    prev_fresh: bool,
    /// The same for the previous palette: its first frame copies the palette after the
    /// palette pass instead of before.
    prev_palette_fresh: bool,
    /// The crowd casts into Bevy's shadow maps (its entity has no `NotShadowCaster`).
    pub casts_shadows: bool,
    /// The path the crowd asks for.
    pub skin_path: SkinPath,
    /// Whether the crowd is drawn on the palette path (asked for, and its palette fits the
    /// device).
    pub palette_path: bool,
    job: Option<Buffer>,
    /// One per primitive: the material uniform.
    draws: Vec<Buffer>,
    bind_groups: Vec<BindGroup>,
    palette_group: Option<BindGroup>,
    pub(crate) bind_groups_valid: bool,
    transforms_gen: u64,
    records_gen: u64,
    clock: u32,
    pub bounds: Option<(Vec3, Vec3)>,
    seen: bool,
}

/// Every crowd's GPU state, by main-world entity.
#[derive(Resource, Default)]
pub struct CrowdGpus(pub HashMap<Entity, CrowdGpu>);

/// What [`extract_crowds`] reads of a crowd entity.
type ExtractedCrowd = (
    Entity,
    &'static RenderEntity,
    &'static ThrongCrowd,
    Has<NotShadowCaster>,
);

/// Copies the crowds' transforms and records straight from the main world's runtime into
/// GPU buffers (`queue.write_buffer` stages them; no intermediate copy in the render world).
/// Transforms only when they changed; records every frame CPU-timed, on a change GPU-timed.
pub(crate) fn extract_crowds(
    crowds: Extract<Query<ExtractedCrowd>>,
    motion_views: Extract<Query<(), With<MotionVectorPrepass>>>,
    mut gpus: ResMut<CrowdGpus>,
    device: Res<RenderDevice>,
    queue: Res<RenderQueue>,
) {
    for g in gpus.0.values_mut() {
        g.seen = false;
    }
    let motion = !motion_views.is_empty();
    // Motion vectors: each crowd's transforms are copied to its previous-frame buffer by a
    // command submitted before this frame's transforms are written (queue writes land at the
    // start of the next submission, so the copy must be submitted first).
    let mut copies: Option<CommandEncoder> = None;
    for (main, render, crowd, not_caster) in &crowds {
        let Some(rt) = crowd.runtime() else {
            continue;
        };
        let timing = rt.timing();
        let gpu_timed = timing == Timing::Gpu;
        let g = gpus.0.entry(main).or_insert_with(|| CrowdGpu {
            render_entity: render.id(),
            asset: crowd.asset.id(),
            gpu_timed,
            instances: 0,
            capacity: 0,
            record_bytes: timing.record_bytes() as u64,
            transforms: None,
            records: None,
            clock_buffer: None,
            palette: None,
            motion: false,
            prev_transforms: None,
            prev_palette: None,
            prev_fresh: false,
            prev_palette_fresh: false,
            casts_shadows: true,
            skin_path: crowd.skin_path,
            palette_path: false,
            job: None,
            draws: Vec::new(),
            bind_groups: Vec::new(),
            palette_group: None,
            bind_groups_valid: false,
            transforms_gen: u64::MAX,
            records_gen: u64::MAX,
            clock: 0,
            bounds: None,
            seen: true,
        });
        g.seen = true;
        g.render_entity = render.id();
        g.bounds = crowd.bounds;
        g.casts_shadows = !not_caster;
        if g.motion != motion {
            g.motion = motion;
            g.prev_transforms = None;
            g.prev_palette = None;
            g.bind_groups_valid = false;
        }
        if g.skin_path != crowd.skin_path {
            g.skin_path = crowd.skin_path;
            g.palette = None;
            g.bind_groups_valid = false;
        }
        let n = rt.len() as u64;
        g.instances = n as u32;
        if n > g.capacity || g.transforms.is_none() {
            // Grow by doubling so a growing crowd does not reallocate every frame.
            let cap = n.max(64).next_power_of_two();
            g.capacity = cap;
            g.transforms = Some(device.create_buffer(&BufferDescriptor {
                label: Some("throng instance transforms"),
                size: cap * 48,
                usage: BufferUsages::STORAGE | BufferUsages::COPY_DST | BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }));
            g.prev_transforms = None;
            g.records = Some(device.create_buffer(&BufferDescriptor {
                label: Some("throng instance records"),
                size: cap * g.record_bytes,
                usage: BufferUsages::STORAGE | BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
            // The palette is sized by the asset's entries, in prepare_crowd_bind_groups.
            g.palette = None;
            g.bind_groups_valid = false;
            g.transforms_gen = u64::MAX;
            g.records_gen = u64::MAX;
        }
        if let crate::crowd::Runtime::Gpu(r) = rt {
            g.clock = r.gpu_clock();
        }
        if motion && g.prev_transforms.is_none() {
            g.prev_transforms = Some(device.create_buffer(&BufferDescriptor {
                label: Some("throng previous instance transforms"),
                size: g.capacity * 48,
                usage: BufferUsages::STORAGE | BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
            // The palette's twin is sized with the palette, in prepare_crowd_bind_groups.
            g.prev_palette = None;
            g.prev_fresh = true;
            g.bind_groups_valid = false;
        }
        if let (Some(tb), Some(prev), false) = (&g.transforms, &g.prev_transforms, g.prev_fresh) {
            if n > 0 {
                copies
                    .get_or_insert_with(|| {
                        device.create_command_encoder(&CommandEncoderDescriptor {
                            label: Some("throng previous transforms"),
                        })
                    })
                    .copy_buffer_to_buffer(tb, 0, prev, 0, n * 48);
            }
        }
    }
    if let Some(copies) = copies {
        queue.submit([copies.finish()]);
    }
    for (main, _, crowd, _) in &crowds {
        let (Some(g), Some(rt)) = (gpus.0.get_mut(&main), crowd.runtime()) else {
            continue;
        };
        if g.instances == 0 {
            continue;
        }
        if let (Some(tb), true) = (&g.transforms, g.transforms_gen != crowd.transforms_gen) {
            queue.write_buffer(tb, 0, bytemuck::cast_slice(rt.transforms()));
            g.transforms_gen = crowd.transforms_gen;
        }
        if let (Some(prev), true) = (&g.prev_transforms, g.prev_fresh) {
            queue.write_buffer(prev, 0, bytemuck::cast_slice(rt.transforms()));
            g.prev_fresh = false;
        }
        if let (Some(rb), true) = (&g.records, g.records_gen != crowd.records_gen) {
            queue.write_buffer(rb, 0, crowd.record_bytes());
            g.records_gen = crowd.records_gen;
        }
    }
    gpus.0.retain(|_, g| g.seen);
}

fn buffer_entry(
    binding: u32,
    visibility: ShaderStages,
    ty: BufferBindingType,
) -> BindGroupLayoutEntry {
    BindGroupLayoutEntry {
        binding,
        visibility,
        ty: BindingType::Buffer {
            ty,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

fn bone_texture_entry(visibility: ShaderStages, sint: bool) -> BindGroupLayoutEntry {
    BindGroupLayoutEntry {
        binding: bindings::BONE_TEXTURE,
        visibility,
        ty: BindingType::Texture {
            sample_type: if sint {
                TextureSampleType::Sint
            } else {
                TextureSampleType::Float { filterable: false }
            },
            view_dimension: TextureViewDimension::D2Array,
            multisampled: false,
        },
        count: None,
    }
}

/// The layout of the asset and the crowd's playback (bone texture, clip table, records,
/// clock), read by the palette pass or, on the texture path, by the vertex stage.
fn playback_entries(visibility: ShaderStages, sint: bool) -> [BindGroupLayoutEntry; 6] {
    let storage = BufferBindingType::Storage { read_only: true };
    [
        buffer_entry(
            bindings::BONE_PARAMS,
            visibility,
            BufferBindingType::Uniform,
        ),
        buffer_entry(bindings::CLIPS, visibility, storage),
        buffer_entry(bindings::FRAME_TIMES, visibility, storage),
        bone_texture_entry(visibility, sint),
        buffer_entry(bindings::CPU_RECORDS, visibility, storage),
        buffer_entry(bindings::CLOCK, visibility, BufferBindingType::Uniform),
    ]
}

/// The crowd draw's bind group layout (group [`CROWD_GROUP`]); `sint` for the quat-snorm16
/// bone texture. The same layout serves both paths: the palette path reads the palette, the
/// texture path the bone texture and records.
pub fn crowd_layout(sint: bool) -> BindGroupLayoutDescriptor {
    let vf = ShaderStages::VERTEX_FRAGMENT;
    let storage = BufferBindingType::Storage { read_only: true };
    let mut entries = playback_entries(vf, sint).to_vec();
    entries.extend([
        buffer_entry(bindings::INSTANCE_TRANSFORMS, vf, storage),
        buffer_entry(bindings::PALETTE, vf, storage),
        // Read with motion vectors (def MOTION); the current buffers stand in without.
        buffer_entry(bindings::PREV_TRANSFORMS, vf, storage),
        buffer_entry(bindings::PREV_PALETTE, vf, storage),
        buffer_entry(bindings::DRAW, vf, BufferBindingType::Uniform),
        BindGroupLayoutEntry {
            binding: bindings::BASE_COLOR,
            visibility: vf,
            ty: BindingType::Texture {
                sample_type: TextureSampleType::Float { filterable: true },
                view_dimension: TextureViewDimension::D2,
                multisampled: false,
            },
            count: None,
        },
        BindGroupLayoutEntry {
            binding: bindings::SAMPLER,
            visibility: vf,
            ty: BindingType::Sampler(SamplerBindingType::Filtering),
            count: None,
        },
    ]);
    BindGroupLayoutDescriptor::new("throng crowd", &entries)
}

/// The palette pass's bind group layout (group [`PALETTE_GROUP`]).
pub fn palette_layout(sint: bool) -> BindGroupLayoutDescriptor {
    let c = ShaderStages::COMPUTE;
    let mut entries = playback_entries(c, sint).to_vec();
    entries.extend([
        buffer_entry(
            bindings::MASKS,
            c,
            BufferBindingType::Storage { read_only: true },
        ),
        buffer_entry(
            bindings::PALETTE,
            c,
            BufferBindingType::Storage { read_only: false },
        ),
        buffer_entry(bindings::PALETTE_JOB, c, BufferBindingType::Uniform),
    ]);
    BindGroupLayoutDescriptor::new("throng palette pass", &entries)
}

fn uniform_buffer(device: &RenderDevice, label: &str, size: u64) -> Buffer {
    device.create_buffer(&BufferDescriptor {
        label: Some(label),
        size,
        usage: BufferUsages::UNIFORM | BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// Whether a crowd of `capacity` instances (its buffers' capacity: the instance count rounded up
/// to a power of two, at least 64) of `entries` palette entries can keep its palette in one
/// storage binding of the device (else it is drawn on the texture path, with a warning).
pub fn palette_fits(capacity: u64, entries: u32, limits: &WgpuLimits) -> bool {
    let bytes = palette_bytes(capacity, entries);
    bytes <= limits.max_storage_buffer_binding_size && bytes <= limits.max_buffer_size
}

/// (Re)creates the bind groups of crowds whose buffers changed (the palette sized by the
/// asset's entries), and writes the per-primitive draw uniforms, the clock and the palette
/// job.
#[allow(clippy::too_many_arguments)]
pub(crate) fn prepare_crowd_bind_groups(
    mut gpus: ResMut<CrowdGpus>,
    assets: Res<RenderAssets<GpuThrongAsset>>,
    images: Res<RenderAssets<GpuImage>>,
    fallback: Res<FallbackImage>,
    device: Res<RenderDevice>,
    queue: Res<RenderQueue>,
    pipeline_cache: Res<PipelineCache>,
) {
    for g in gpus.0.values_mut() {
        let Some(asset) = assets.get(g.asset) else {
            continue;
        };
        if g.draws.len() != asset.primitives.len() {
            g.draws = asset
                .primitives
                .iter()
                .map(|_| {
                    uniform_buffer(
                        &device,
                        "throng draw params",
                        size_of::<DrawParams>() as u64,
                    )
                })
                .collect();
            for (p, buf) in asset.primitives.iter().zip(&g.draws) {
                queue.write_buffer(buf, 0, bytemuck::bytes_of(&p.material));
            }
            g.bind_groups_valid = false;
        }
        let clock = g
            .clock_buffer
            .get_or_insert_with(|| uniform_buffer(&device, "throng clock", 16));
        queue.write_buffer(clock, 0, bytemuck::bytes_of(&[g.clock, 0, 0, 0]));
        let job = g
            .job
            .get_or_insert_with(|| uniform_buffer(&device, "throng palette job", 16));
        queue.write_buffer(
            job,
            0,
            bytemuck::bytes_of(&PaletteJob {
                instances: g.instances,
                pad: [0; 3],
            }),
        );
        let entries = asset.baked.bone_texture.entries.max(1);
        if g.palette.is_none() {
            let fits = palette_fits(g.capacity, entries, &device.limits());
            if g.skin_path == SkinPath::Palette && !fits {
                warn!(
                    "throng: a crowd of {} instances (capacity {}) × {entries} palette entries needs {} MB of palette, past the device's storage-binding limit of {} MB: drawn on the texture path",
                    g.instances,
                    g.capacity,
                    palette_bytes(g.capacity, entries) / 1_000_000,
                    device.limits().max_storage_buffer_binding_size / 1_000_000
                );
            }
            g.palette_path = g.skin_path == SkinPath::Palette && fits;
            // The texture path binds a one-entry stand-in at the palette's binding.
            let n = if g.palette_path {
                g.capacity * entries as u64
            } else {
                1
            };
            g.palette = Some(device.create_buffer(&BufferDescriptor {
                label: Some("throng palette"),
                size: n * PALETTE_ENTRY_BYTES,
                usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }));
            g.prev_palette = None;
            g.bind_groups_valid = false;
        }
        if g.motion && g.palette_path && g.prev_palette.is_none() {
            g.prev_palette = Some(device.create_buffer(&BufferDescriptor {
                label: Some("throng previous palette"),
                size: g.capacity * entries as u64 * PALETTE_ENTRY_BYTES,
                usage: BufferUsages::STORAGE | BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
            g.prev_palette_fresh = true;
            g.bind_groups_valid = false;
        }
        if g.bind_groups_valid {
            continue;
        }
        let (Some(tb), Some(rb), Some(pal), Some(clock), Some(job)) = (
            &g.transforms,
            &g.records,
            &g.palette,
            &g.clock_buffer,
            &g.job,
        ) else {
            continue;
        };
        let sint = asset.baked.bone_texture.encoding == Encoding::QuatSnorm16;
        let playback = [
            BindGroupEntry {
                binding: bindings::BONE_PARAMS,
                resource: asset.bone_params.as_entire_binding(),
            },
            BindGroupEntry {
                binding: bindings::CLIPS,
                resource: asset.clips.as_entire_binding(),
            },
            BindGroupEntry {
                binding: bindings::FRAME_TIMES,
                resource: asset.frame_times.as_entire_binding(),
            },
            BindGroupEntry {
                binding: bindings::BONE_TEXTURE,
                resource: BindingResource::TextureView(&asset.bone_view),
            },
            BindGroupEntry {
                binding: bindings::CPU_RECORDS,
                resource: rb.as_entire_binding(),
            },
            BindGroupEntry {
                binding: bindings::CLOCK,
                resource: clock.as_entire_binding(),
            },
        ];
        let mut groups = Vec::with_capacity(asset.primitives.len());
        let mut ready = true;
        let layout = pipeline_cache.get_bind_group_layout(&crowd_layout(sint));
        for (p, draw) in asset.primitives.iter().zip(&g.draws) {
            let image = match p.image {
                Some(id) => match images.get(id) {
                    Some(i) => i,
                    None => {
                        // The texture is still being prepared: try again next frame.
                        ready = false;
                        break;
                    }
                },
                None => &fallback.d2,
            };
            let mut entries = playback.to_vec();
            entries.extend([
                BindGroupEntry {
                    binding: bindings::INSTANCE_TRANSFORMS,
                    resource: tb.as_entire_binding(),
                },
                BindGroupEntry {
                    binding: bindings::PALETTE,
                    resource: pal.as_entire_binding(),
                },
                BindGroupEntry {
                    binding: bindings::PREV_TRANSFORMS,
                    resource: g.prev_transforms.as_ref().unwrap_or(tb).as_entire_binding(),
                },
                BindGroupEntry {
                    binding: bindings::PREV_PALETTE,
                    resource: g.prev_palette.as_ref().unwrap_or(pal).as_entire_binding(),
                },
                BindGroupEntry {
                    binding: bindings::DRAW,
                    resource: draw.as_entire_binding(),
                },
                BindGroupEntry {
                    binding: bindings::BASE_COLOR,
                    resource: BindingResource::TextureView(&image.texture_view),
                },
                BindGroupEntry {
                    binding: bindings::SAMPLER,
                    resource: BindingResource::Sampler(&image.sampler),
                },
            ]);
            groups.push(device.create_bind_group("throng crowd", &layout, &entries));
        }
        if !ready {
            continue;
        }
        let mut entries = playback.to_vec();
        entries.extend([
            BindGroupEntry {
                binding: bindings::MASKS,
                resource: asset.masks.as_entire_binding(),
            },
            BindGroupEntry {
                binding: bindings::PALETTE,
                resource: pal.as_entire_binding(),
            },
            BindGroupEntry {
                binding: bindings::PALETTE_JOB,
                resource: job.as_entire_binding(),
            },
        ]);
        g.palette_group = Some(device.create_bind_group(
            "throng palette pass",
            &pipeline_cache.get_bind_group_layout(&palette_layout(sint)),
            &entries,
        ));
        g.bind_groups = groups;
        g.bind_groups_valid = true;
    }
}

/// The crowd pipeline: Bevy's mesh pipeline for the view, with throng's vertex stage.
#[derive(Resource, Clone)]
pub struct ThrongPipeline {
    pub mesh_pipeline: MeshPipeline,
    pub shader: Handle<Shader>,
}

/// What a crowd's vertex stage varies by, in every pass that draws it (main, shadow, prepass).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CrowdKey {
    /// `throng_contract::Encoding::code`.
    pub encoding: u32,
    pub gpu_timed: bool,
    pub double_sided: bool,
    /// The palette path (def `PALETTE`), else the texture path.
    pub palette: bool,
    /// At most 4 influences per vertex (def `INFLUENCES_4`).
    pub four_influences: bool,
}

impl CrowdKey {
    /// The key of crowd `g` of `asset`.
    pub fn of(g: &CrowdGpu, asset: &GpuThrongAsset) -> Self {
        Self {
            encoding: asset.baked.bone_texture.encoding.code(),
            gpu_timed: g.gpu_timed,
            double_sided: asset.double_sided,
            palette: g.palette_path,
            four_influences: asset.four_influences,
        }
    }

    /// The bone texture holds integers (quat-snorm16).
    pub fn sint(&self) -> bool {
        self.encoding == Encoding::QuatSnorm16.code()
    }

    /// The shader defs of `throng_bevy::crowd_vertex` and the shared modules it imports,
    /// with the crowd's group at [`CROWD_GROUP`].
    pub fn shader_defs(&self) -> Vec<ShaderDefVal> {
        let mut defs = binding_defs(CROWD_GROUP);
        defs.extend(playback_defs(self.encoding, self.gpu_timed));
        defs.push(if self.palette {
            "PALETTE".into()
        } else {
            "BONE_TEXTURE".into()
        });
        if self.four_influences {
            defs.push("INFLUENCES_4".into());
        }
        defs
    }

    /// Back faces culled unless the asset has a double-sided material.
    pub fn cull_mode(&self) -> Option<Face> {
        (!self.double_sided).then_some(Face::Back)
    }
}

/// What a crowd's main-pass pipeline varies by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ThrongPipelineKey {
    pub mesh_key: MeshPipelineKey,
    pub crowd: CrowdKey,
}

/// The vertex layout of [`VERTEX_BYTES`] per vertex (shader locations 0..6).
pub fn vertex_layout() -> VertexBufferLayout {
    let a = |format, offset, shader_location| VertexAttribute {
        format,
        offset,
        shader_location,
    };
    VertexBufferLayout {
        array_stride: VERTEX_BYTES,
        step_mode: VertexStepMode::Vertex,
        attributes: vec![
            a(VertexFormat::Float32x3, 0, 0),
            a(VertexFormat::Float32x3, 12, 1),
            a(VertexFormat::Float32x2, 24, 2),
            a(VertexFormat::Uint16x4, 32, 3),
            a(VertexFormat::Uint16x4, 40, 4),
            a(VertexFormat::Uint16x4, 48, 5),
            a(VertexFormat::Uint16x4, 56, 6),
        ],
    }
}

/// The defs shared by both programs of a crowd: the asset's encoding and the timing.
fn playback_defs(encoding: u32, gpu_timed: bool) -> Vec<ShaderDefVal> {
    let mut defs = vec![ShaderDefVal::UInt("ENCODING".into(), encoding)];
    if gpu_timed {
        defs.push("GPU_TIMED".into());
    }
    defs
}

impl SpecializedRenderPipeline for ThrongPipeline {
    type Key = ThrongPipelineKey;

    fn specialize(&self, key: ThrongPipelineKey) -> RenderPipelineDescriptor {
        // Bevy's mesh pipeline wants a mesh layout to derive vertex defs from: the position,
        // normal and uv attributes of throng's stream stand in for a Bevy mesh.
        let stand_in = MeshVertexBufferLayoutRef(Arc::new(MeshVertexBufferLayout::new(
            vec![
                Mesh::ATTRIBUTE_POSITION.id,
                Mesh::ATTRIBUTE_NORMAL.id,
                Mesh::ATTRIBUTE_UV_0.id,
            ],
            VertexBufferLayout {
                array_stride: VERTEX_BYTES,
                step_mode: VertexStepMode::Vertex,
                attributes: vertex_layout().attributes[..3].to_vec(),
            },
        )));
        let mut d = match self.mesh_pipeline.specialize(key.mesh_key, &stand_in) {
            Ok(d) => d,
            Err(e) => {
                // Only a missing vertex attribute fails here, and the stand-in has them all.
                error!("throng: mesh pipeline specialisation failed: {e}");
                RenderPipelineDescriptor::default()
            }
        };
        let view_layout = self.mesh_pipeline.get_view_layout(key.mesh_key.into());
        d.layout = vec![
            view_layout.main_layout.clone(),
            view_layout.binding_array_layout.clone(),
            view_layout.empty_layout.clone(),
            crowd_layout(key.crowd.sint()),
        ];
        let mut defs = d.vertex.shader_defs.clone();
        defs.extend(key.crowd.shader_defs());
        defs.push(ShaderDefVal::UInt(
            "MATERIAL_BIND_GROUP".into(),
            CROWD_GROUP,
        ));
        // The camera has a prepass: its depth was written by crate::prepass's pipeline with
        // the same vertex function, and this pass's depth test must pass on exactly it.
        if key.mesh_key.intersects(
            MeshPipelineKey::DEPTH_PREPASS
                | MeshPipelineKey::NORMAL_PREPASS
                | MeshPipelineKey::MOTION_VECTOR_PREPASS,
        ) {
            defs.push("INVARIANT_POSITION".into());
        }
        d.label = Some("throng crowd pipeline".into());
        d.vertex.shader = self.shader.clone();
        d.vertex.shader_defs = defs.clone();
        d.vertex.buffers = vec![vertex_layout()];
        if let Some(f) = d.fragment.as_mut() {
            f.shader = self.shader.clone();
            f.shader_defs = defs;
        }
        d.primitive.cull_mode = key.crowd.cull_mode();
        d
    }
}

/// The palette pass's compute pipeline (`shaders/crowd_palette.wgsl`).
#[derive(Resource, Clone)]
pub struct PalettePipeline {
    pub shader: Handle<Shader>,
}

/// What a palette pass varies by: `(encoding code, GPU-timed)`.
pub type PaletteKey = (u32, bool);

impl SpecializedComputePipeline for PalettePipeline {
    type Key = PaletteKey;

    fn specialize(&self, (encoding, gpu_timed): PaletteKey) -> ComputePipelineDescriptor {
        let mut defs = binding_defs(PALETTE_GROUP);
        defs.extend(playback_defs(encoding, gpu_timed));
        defs.push("BONE_TEXTURE".into());
        defs.push("PALETTE_WRITE".into());
        ComputePipelineDescriptor {
            label: Some("throng palette pass".into()),
            layout: vec![palette_layout(encoding == Encoding::QuatSnorm16.code())],
            shader: self.shader.clone(),
            shader_defs: defs,
            entry_point: Some("cs_palette".into()),
            zero_initialize_workgroup_memory: false,
            ..default()
        }
    }
}

/// The crowd shaders' handles, set by the plugin: the draw and the palette pass.
#[derive(Resource, Clone)]
pub struct ThrongShader {
    pub draw: Handle<Shader>,
    pub palette: Handle<Shader>,
    /// Shadow maps and prepasses (`crate::prepass`).
    pub depth: Handle<Shader>,
}

/// Each crowd's palette pass pipeline, queued in [`queue_crowds`] and dispatched by
/// [`dispatch_palettes`].
#[derive(Resource, Default)]
pub struct PalettePipelines(pub HashMap<Entity, CachedComputePipelineId>);

/// The crowds [`queue_crowds`] put into cameras' `Opaque3d` phases last frame (render world):
/// Bevy's binned phases keep their items, so each frame these are taken out of every phase
/// before this frame's are put in.
#[derive(Resource, Default)]
pub struct QueuedCrowds(pub HashSet<Entity>);

/// `clip_from_world` of an extracted view.
pub fn clip_from_world(view: &ExtractedView) -> Mat4 {
    view.clip_from_world
        .unwrap_or_else(|| view.clip_from_view * view.world_from_view.to_matrix().inverse())
}

/// Whether the world box `[lo, hi]` meets the frustum of `clip_from_world`; without the near
/// plane when `near` is false (a directional light's cascade, whose casters in front of it
/// are clamped onto it).
pub fn box_in_frustum(clip_from_world: &Mat4, lo: Vec3, hi: Vec3, near: bool) -> bool {
    Frustum(ViewFrustum::from_clip_from_world(clip_from_world)).intersects_obb(
        &Aabb::from_min_max(lo, hi),
        &Affine3A::IDENTITY,
        near,
        true,
    )
}

/// Crowd `g`'s asset when the crowd has instances and bind groups and its world box meets the
/// frustum of `clip_from_world` (see [`box_in_frustum`] for `near`).
pub(crate) fn crowd_in_view<'a>(
    g: &CrowdGpu,
    assets: &'a RenderAssets<GpuThrongAsset>,
    clip_from_world: &Mat4,
    near: bool,
) -> Option<&'a GpuThrongAsset> {
    if g.instances == 0 || !g.bind_groups_valid {
        return None;
    }
    let (lo, hi) = g.bounds?;
    let asset = assets.get(g.asset)?;
    box_in_frustum(clip_from_world, lo, hi, near).then_some(asset)
}

/// The crowds that can be drawn this frame as far as the palette pass goes: texture-path
/// crowds, and palette-path crowds whose palette pass has compiled (a palette-path crowd is
/// drawn once its palette pass can run).
pub(crate) fn posed_crowds(
    gpus: &CrowdGpus,
    palette_ids: &PalettePipelines,
    pipeline_cache: &PipelineCache,
) -> HashSet<Entity> {
    gpus.0
        .iter()
        .filter(|(main, g)| {
            !g.palette_path
                || palette_ids
                    .0
                    .get(*main)
                    .is_some_and(|&id| pipeline_cache.get_compute_pipeline(id).is_some())
        })
        .map(|(main, _)| *main)
        .collect()
}

/// Queues each palette-path crowd's palette pass pipeline, and one non-mesh `Opaque3d` item
/// per crowd and camera whose frustum its world box meets. Pipelines are specialised (so
/// compiled) alongside the palette pass's, not after it; the item waits until the palette
/// pass can run.
#[allow(clippy::too_many_arguments)]
pub(crate) fn queue_crowds(
    draw_functions: Res<DrawFunctions<Opaque3d>>,
    mesh_pipeline: Res<MeshPipeline>,
    shader: Res<ThrongShader>,
    mut pipeline: Local<Option<(ThrongPipeline, PalettePipeline)>>,
    mut pipelines: ResMut<SpecializedRenderPipelines<ThrongPipeline>>,
    mut compute: ResMut<SpecializedComputePipelines<PalettePipeline>>,
    mut palette_ids: ResMut<PalettePipelines>,
    pipeline_cache: Res<PipelineCache>,
    gpus: Res<CrowdGpus>,
    assets: Res<RenderAssets<GpuThrongAsset>>,
    view_keys: Res<ViewKeyCache>,
    mut queued: ResMut<QueuedCrowds>,
    mut phases: ResMut<ViewBinnedRenderPhases<Opaque3d>>,
    views: Query<&ExtractedView>,
) {
    let draw = draw_functions.read().id::<DrawCrowd>();
    let (pipeline, palette_pipeline) = pipeline.get_or_insert_with(|| {
        (
            ThrongPipeline {
                mesh_pipeline: mesh_pipeline.clone(),
                shader: shader.draw.clone(),
            },
            PalettePipeline {
                shader: shader.palette.clone(),
            },
        )
    });
    palette_ids.0.clear();
    for (main, g) in &gpus.0 {
        let Some(asset) = assets.get(g.asset) else {
            continue;
        };
        if g.palette_path && g.bind_groups_valid {
            let key = (asset.baked.bone_texture.encoding.code(), g.gpu_timed);
            let id = compute.specialize(&pipeline_cache, palette_pipeline, key);
            palette_ids.0.insert(*main, id);
        }
    }
    let posed = posed_crowds(&gpus, &palette_ids, &pipeline_cache);
    let stale: Vec<Entity> = queued.0.drain().chain(gpus.0.keys().copied()).collect();
    for view in &views {
        let Some(phase) = phases.get_mut(&view.retained_view_entity) else {
            continue;
        };
        for e in &stale {
            phase.remove(MainEntity::from(*e));
        }
        let Some(view_key) = view_keys.get(&view.retained_view_entity).copied() else {
            continue;
        };
        let clip = clip_from_world(view);
        for (main, g) in &gpus.0 {
            let Some(asset) = crowd_in_view(g, &assets, &clip, true) else {
                continue;
            };
            let key = ThrongPipelineKey {
                mesh_key: view_key
                    | MeshPipelineKey::from_primitive_topology_and_strip_index(
                        PrimitiveTopology::TriangleList,
                        None,
                    ),
                crowd: CrowdKey::of(g, asset),
            };
            let id = pipelines.specialize(&pipeline_cache, pipeline, key);
            if !posed.contains(main) {
                continue;
            }
            phase.add(
                Opaque3dBatchSetKey {
                    pipeline: id,
                    draw_function: draw,
                    material_bind_group_index: None,
                    slabs: MeshSlabs::default(),
                    lightmap_slab: None,
                },
                Opaque3dBinKey {
                    asset_id: AssetId::<Mesh>::invalid().untyped(),
                },
                (g.render_entity, MainEntity::from(*main)),
                InputUniformIndex::default(),
                BinnedRenderPhaseType::NonMesh,
            );
            queued.0.insert(*main);
        }
    }
}

/// Runs every palette-path crowd's palette pass: one compute dispatch per crowd, submitted to
/// the queue after the frame's buffer writes and before Bevy's render graph, whose draws read
/// the palettes (queue order makes the writes visible to them). Every crowd is posed once a
/// frame, whatever the number of views.
pub(crate) fn dispatch_palettes(
    mut gpus: ResMut<CrowdGpus>,
    palette_ids: Res<PalettePipelines>,
    pipeline_cache: Res<PipelineCache>,
    assets: Res<RenderAssets<GpuThrongAsset>>,
    device: Res<RenderDevice>,
    queue: Res<RenderQueue>,
) {
    let mut encoder = None;
    for (main, g) in gpus.0.iter_mut() {
        let (Some(&id), Some(group), Some(asset)) = (
            palette_ids.0.get(main),
            &g.palette_group,
            assets.get(g.asset),
        ) else {
            continue;
        };
        if g.instances == 0 || !g.bind_groups_valid || !g.palette_path {
            continue;
        }
        let Some(pipeline) = pipeline_cache.get_compute_pipeline(id) else {
            continue;
        };
        let invocations = g.instances as u64 * asset.baked.bone_texture.entries.max(1) as u64;
        let (x, y) = palette_workgroups(invocations);
        let encoder = encoder.get_or_insert_with(|| {
            device.create_command_encoder(&CommandEncoderDescriptor {
                label: Some("throng palette passes"),
            })
        });
        // Motion vectors: last frame's palette becomes the previous one before it is
        // overwritten (on the previous palette's first frame, this frame's, so no motion).
        let copy = match (&g.palette, &g.prev_palette) {
            (Some(pal), Some(prev)) => Some((pal, prev, invocations * PALETTE_ENTRY_BYTES)),
            _ => None,
        };
        if let (Some((pal, prev, bytes)), false) = (copy, g.prev_palette_fresh) {
            encoder.copy_buffer_to_buffer(pal, 0, prev, 0, bytes);
        }
        {
            let mut pass = encoder.begin_compute_pass(&ComputePassDescriptor {
                label: Some("throng palette pass"),
                timestamp_writes: None,
            });
            pass.set_pipeline(pipeline);
            pass.set_bind_group(PALETTE_GROUP, group, &[]);
            pass.dispatch_workgroups(x, y, 1);
        }
        if let (Some((pal, prev, bytes)), true) = (copy, g.prev_palette_fresh) {
            encoder.copy_buffer_to_buffer(pal, 0, prev, 0, bytes);
            g.prev_palette_fresh = false;
        }
    }
    if let Some(encoder) = encoder {
        queue.submit([encoder.finish()]);
    }
}

/// The draw: Bevy's view groups, then per primitive the crowd's group, buffers and one
/// instanced draw.
pub type DrawCrowd = (
    SetItemPipeline,
    SetMeshViewBindGroup<0>,
    SetMeshViewBindingArrayBindGroup<1>,
    SetMeshViewEmptyBindGroup<2>,
    DrawCrowdPrimitives,
);

pub struct DrawCrowdPrimitives;

impl<P: PhaseItem> RenderCommand<P> for DrawCrowdPrimitives {
    type Param = (SRes<CrowdGpus>, SRes<RenderAssets<GpuThrongAsset>>);
    type ViewQuery = ();
    type ItemQuery = ();

    fn render<'w>(
        item: &P,
        _view: (),
        _entity: Option<()>,
        (gpus, assets): SystemParamItem<'w, '_, Self::Param>,
        pass: &mut TrackedRenderPass<'w>,
    ) -> RenderCommandResult {
        let (gpus, assets) = (gpus.into_inner(), assets.into_inner());
        let Some(g) = gpus.0.get(&item.main_entity().id()) else {
            return RenderCommandResult::Skip;
        };
        let Some(asset) = assets.get(g.asset) else {
            return RenderCommandResult::Skip;
        };
        let instances: Range<u32> = 0..g.instances;
        for (p, bg) in asset.primitives.iter().zip(&g.bind_groups) {
            pass.set_bind_group(CROWD_GROUP as usize, bg, &[]);
            pass.set_vertex_buffer(0, p.vertices.slice(..));
            pass.set_index_buffer(p.indices.slice(..), IndexFormat::Uint32);
            pass.draw_indexed(0..p.index_count, 0, instances.clone());
        }
        RenderCommandResult::Success
    }
}
