//! The render world: crowds drawn inside Bevy's main 3D pass.
//!
//! **Mechanism: a custom phase item with a specialized render pipeline** (the route of Bevy's
//! `custom_shader_instancing` example). Each visible crowd adds one `Transparent3d` item per
//! view; its draw command binds the crowd's buffers and issues one `draw_indexed` per
//! primitive with `instances = 0..n`, so draws per frame = primitives, whatever n. The
//! pipeline is `MeshPipeline::specialize` for the view's key (so every view shader def Bevy's
//! PBR functions need — lights, shadow filtering, tonemapping, fog, MSAA — is set as for
//! Bevy's own meshes) with throng's vertex layout, bind group and shader swapped in.
//!
//! Why not a material extension or Bevy's own mesh path: those draw one `Mesh` per entity
//! through Bevy's mesh uniforms and batching, and a skinned vertex would go through Bevy's
//! joint-matrix skinning; throng needs its own per-instance storage buffers, its own vertex
//! streams (8 influences as u16 + unorm16) and no entity per instance. Why `Transparent3d` and
//! not `Opaque3d`: the sorted phase takes arbitrary items (Bevy's binned opaque phase expects
//! Bevy mesh instances); the pipeline writes depth like an opaque one, so the picture is the
//! same, only drawn after Bevy's opaque meshes.
//!
//! Not done: Bevy's shadow and prepass phases (`Shadow`, `Opaque3dPrepass`) are binned phases
//! keyed by Bevy mesh instances, so throng crowds receive Bevy's shadows (the PBR fragment
//! samples the shadow maps) but do not cast into them, and are absent from depth/normal/motion
//! prepasses. Culling is per crowd (one world box against each view's frustum), not per
//! instance.

use std::ops::Range;
use std::sync::Arc;

use bevy::asset::AssetId;
use bevy::camera::primitives::{Aabb, Frustum};
use bevy::core_pipeline::core_3d::{Transparent3d, TransparentSortingInfo3d};
use bevy::ecs::system::lifetimeless::SRes;
use bevy::ecs::system::SystemParamItem;
use bevy::image::Image;
use bevy::math::primitives::ViewFrustum;
use bevy::math::{Mat4, Vec3};
use bevy::mesh::{Mesh, MeshVertexBufferLayout, MeshVertexBufferLayoutRef, VertexBufferLayout};
use bevy::pbr::{
    MeshPipeline, MeshPipelineKey, SetMeshViewBindGroup, SetMeshViewBindingArrayBindGroup,
    SetMeshViewEmptyBindGroup, ViewKeyCache,
};
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy::render::render_asset::RenderAssets;
use bevy::render::render_phase::{
    DrawFunctions, PhaseItem, PhaseItemExtraIndex, RenderCommand, RenderCommandResult,
    SetItemPipeline, TrackedRenderPass, ViewSortedRenderPhases,
};
use bevy::render::render_resource::*;
use bevy::render::renderer::{RenderDevice, RenderQueue};
use bevy::render::sync_world::{MainEntity, RenderEntity};
use bevy::render::texture::{FallbackImage, GpuImage};
use bevy::render::view::ExtractedView;
use bevy::render::Extract;
use bevy::shader::{Shader, ShaderDefVal};
use throng_asset::{BakedAsset, Encoding};

use crate::asset::ThrongAsset;
use crate::crowd::ThrongCrowd;

/// Group of the crowd's bind group; 0 and 1 are Bevy's view groups, 2 Bevy's empty group.
pub const CROWD_GROUP: u32 = 3;
/// Binding numbers inside [`CROWD_GROUP`] (shaders/crowd.wgsl). They start at 100 to stay
/// clear of `bevy_pbr::pbr_bindings`, which Bevy's PBR functions import at group 3.
pub mod bindings {
    pub const BONE_PARAMS: u32 = 100;
    pub const CLIPS: u32 = 101;
    pub const FRAME_TIMES: u32 = 102;
    pub const BONE_TEXTURE: u32 = 103;
    pub const TRANSFORMS: u32 = 104;
    pub const RECORDS: u32 = 105;
    pub const DRAW: u32 = 106;
    pub const BASE_COLOR: u32 = 107;
    pub const SAMPLER: u32 = 108;
}

/// Bytes per vertex of the crowd's vertex buffer: position (3 f32), normal (3 f32), uv (2
/// f32), joints (8 u16), unorm16 weights (8 u16).
pub const VERTEX_BYTES: u64 = 64;

/// WGSL `BoneParams` (32 B).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BoneParams {
    pub entries: u32,
    pub rows: u32,
    pub rows_per_layer: u32,
    pub clip_count: u32,
    pub translation_range: f32,
    pub scale_range: f32,
    pub pad: [f32; 2],
}

/// WGSL `DrawParams` (64 B): a primitive's material and the GPU-timed clock.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DrawParams {
    pub base_color: [f32; 4],
    pub uv_row0: [f32; 4],
    pub uv_row1: [f32; 4],
    /// x: clock; y: double-sided.
    pub misc: [u32; 4],
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
    pub primitives: Vec<GpuPrimitive>,
    pub double_sided: bool,
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
    let params = BoneParams {
        entries: bones.entries,
        rows: bones.rows,
        rows_per_layer: rpl,
        clip_count: baked.clips.len() as u32,
        translation_range: bones.translation_range,
        scale_range: bones.scale_range,
        pad: [0.0; 2],
    };
    let bone_params = device.create_buffer_with_data(&BufferInitDescriptor {
        label: Some("throng bone params"),
        contents: bytemuck::bytes_of(&params),
        usage: BufferUsages::UNIFORM,
    });
    let clips = storage_with(device, "throng clips", bytemuck::cast_slice(&table.clips));
    let frame_times = storage_with(
        device,
        "throng frame times",
        bytemuck::cast_slice(&table.frame_times.words),
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
        primitives,
        double_sided,
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
    /// One per primitive: the material + clock uniform.
    draws: Vec<Buffer>,
    bind_groups: Vec<BindGroup>,
    bind_groups_valid: bool,
    transforms_gen: u64,
    records_gen: u64,
    clock: u32,
    pub bounds: Option<(Vec3, Vec3)>,
    seen: bool,
}

/// Every crowd's GPU state, by main-world entity.
#[derive(Resource, Default)]
pub struct CrowdGpus(pub HashMap<Entity, CrowdGpu>);

/// Copies the crowds' transforms and records straight from the main world's runtime into
/// GPU buffers (`queue.write_buffer` stages them; no intermediate copy in the render world).
/// Transforms only when they changed; records every frame CPU-timed, on a change GPU-timed.
pub(crate) fn extract_crowds(
    crowds: Extract<Query<(Entity, &RenderEntity, &ThrongCrowd)>>,
    mut gpus: ResMut<CrowdGpus>,
    device: Res<RenderDevice>,
    queue: Res<RenderQueue>,
) {
    for g in gpus.0.values_mut() {
        g.seen = false;
    }
    for (main, render, crowd) in &crowds {
        let Some(rt) = crowd.runtime() else {
            continue;
        };
        let gpu_timed = matches!(rt, crate::crowd::Runtime::Gpu(_));
        let g = gpus.0.entry(main).or_insert_with(|| CrowdGpu {
            render_entity: render.id(),
            asset: crowd.asset.id(),
            gpu_timed,
            instances: 0,
            capacity: 0,
            record_bytes: if gpu_timed { 56 } else { 64 },
            transforms: None,
            records: None,
            draws: Vec::new(),
            bind_groups: Vec::new(),
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
        let n = rt.len() as u64;
        g.instances = n as u32;
        if n > g.capacity || g.transforms.is_none() {
            // Grow by doubling so a growing crowd does not reallocate every frame.
            let cap = n.max(64).next_power_of_two();
            g.capacity = cap;
            g.transforms = Some(device.create_buffer(&BufferDescriptor {
                label: Some("throng instance transforms"),
                size: cap * 48,
                usage: BufferUsages::STORAGE | BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
            g.records = Some(device.create_buffer(&BufferDescriptor {
                label: Some("throng instance records"),
                size: cap * g.record_bytes,
                usage: BufferUsages::STORAGE | BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
            g.bind_groups_valid = false;
            g.transforms_gen = u64::MAX;
            g.records_gen = u64::MAX;
        }
        if let crate::crowd::Runtime::Gpu(r) = rt {
            g.clock = r.gpu_clock();
        }
        if n == 0 {
            continue;
        }
        if let (Some(tb), true) = (&g.transforms, g.transforms_gen != crowd.transforms_gen) {
            queue.write_buffer(tb, 0, bytemuck::cast_slice(rt.transforms()));
            g.transforms_gen = crowd.transforms_gen;
        }
        if let (Some(rb), true) = (&g.records, g.records_gen != crowd.records_gen) {
            queue.write_buffer(rb, 0, crowd.record_bytes());
            g.records_gen = crowd.records_gen;
        }
    }
    gpus.0.retain(|_, g| g.seen);
}

/// The crowd bind group's layout: `sint` for the quat-snorm16 bone texture.
pub fn crowd_layout(sint: bool) -> BindGroupLayoutDescriptor {
    let vf = ShaderStages::VERTEX_FRAGMENT;
    let buf = |binding, ty| BindGroupLayoutEntry {
        binding,
        visibility: vf,
        ty: BindingType::Buffer {
            ty,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    };
    let storage = BufferBindingType::Storage { read_only: true };
    BindGroupLayoutDescriptor::new(
        "throng crowd",
        &[
            buf(bindings::BONE_PARAMS, BufferBindingType::Uniform),
            buf(bindings::CLIPS, storage),
            buf(bindings::FRAME_TIMES, storage),
            BindGroupLayoutEntry {
                binding: bindings::BONE_TEXTURE,
                visibility: vf,
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
            },
            buf(bindings::TRANSFORMS, storage),
            buf(bindings::RECORDS, storage),
            buf(bindings::DRAW, BufferBindingType::Uniform),
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
        ],
    )
}

/// (Re)creates the per-primitive bind groups of crowds whose buffers changed, and writes the
/// per-primitive draw uniforms (GPU-timed: the clock of this frame).
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
                    device.create_buffer(&BufferDescriptor {
                        label: Some("throng draw params"),
                        size: std::mem::size_of::<DrawParams>() as u64,
                        usage: BufferUsages::UNIFORM | BufferUsages::COPY_DST,
                        mapped_at_creation: false,
                    })
                })
                .collect();
            g.bind_groups_valid = false;
        }
        for (p, buf) in asset.primitives.iter().zip(&g.draws) {
            let mut d = p.material;
            d.misc[0] = g.clock;
            queue.write_buffer(buf, 0, bytemuck::bytes_of(&d));
        }
        if g.bind_groups_valid {
            continue;
        }
        let (Some(tb), Some(rb)) = (&g.transforms, &g.records) else {
            continue;
        };
        let layout = pipeline_cache.get_bind_group_layout(&crowd_layout(
            asset.baked.bone_texture.encoding == Encoding::QuatSnorm16,
        ));
        let mut groups = Vec::with_capacity(asset.primitives.len());
        let mut ready = true;
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
            groups.push(device.create_bind_group(
                "throng crowd",
                &layout,
                &[
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
                        binding: bindings::TRANSFORMS,
                        resource: tb.as_entire_binding(),
                    },
                    BindGroupEntry {
                        binding: bindings::RECORDS,
                        resource: rb.as_entire_binding(),
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
                ],
            ));
        }
        if ready {
            g.bind_groups = groups;
            g.bind_groups_valid = true;
        }
    }
}

/// The crowd pipeline: Bevy's mesh pipeline for the view, with throng's vertex stage.
#[derive(Resource, Clone)]
pub struct ThrongPipeline {
    pub mesh_pipeline: MeshPipeline,
    pub shader: Handle<Shader>,
}

/// What a crowd pipeline varies by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ThrongPipelineKey {
    pub mesh_key: MeshPipelineKey,
    /// `throng_contract::Encoding::code`.
    pub encoding: u32,
    pub gpu_timed: bool,
    pub double_sided: bool,
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
            crowd_layout(key.encoding == Encoding::QuatSnorm16.code()),
        ];
        let mut defs = d.vertex.shader_defs.clone();
        defs.push(ShaderDefVal::UInt("ENCODING".into(), key.encoding));
        defs.push(ShaderDefVal::UInt("G_FRAME_TIMES".into(), CROWD_GROUP));
        defs.push(ShaderDefVal::UInt(
            "B_FRAME_TIMES".into(),
            bindings::FRAME_TIMES,
        ));
        defs.push(ShaderDefVal::UInt(
            "MATERIAL_BIND_GROUP".into(),
            CROWD_GROUP,
        ));
        if key.gpu_timed {
            defs.push("GPU_TIMED".into());
        }
        d.label = Some("throng crowd pipeline".into());
        d.vertex.shader = self.shader.clone();
        d.vertex.shader_defs = defs.clone();
        d.vertex.buffers = vec![vertex_layout()];
        if let Some(f) = d.fragment.as_mut() {
            f.shader = self.shader.clone();
            f.shader_defs = defs;
        }
        if key.double_sided {
            d.primitive.cull_mode = None;
        }
        d
    }
}

/// The crowd shader handle, set by the plugin.
#[derive(Resource, Clone)]
pub struct ThrongShader(pub Handle<Shader>);

/// Queues one `Transparent3d` item per visible crowd and view.
#[allow(clippy::too_many_arguments)]
pub(crate) fn queue_crowds(
    draw_functions: Res<DrawFunctions<Transparent3d>>,
    mesh_pipeline: Res<MeshPipeline>,
    shader: Res<ThrongShader>,
    mut pipeline: Local<Option<ThrongPipeline>>,
    mut pipelines: ResMut<SpecializedRenderPipelines<ThrongPipeline>>,
    pipeline_cache: Res<PipelineCache>,
    gpus: Res<CrowdGpus>,
    assets: Res<RenderAssets<GpuThrongAsset>>,
    view_keys: Res<ViewKeyCache>,
    mut phases: ResMut<ViewSortedRenderPhases<Transparent3d>>,
    views: Query<&ExtractedView>,
) {
    let draw = draw_functions.read().id::<DrawCrowd>();
    let pipeline = pipeline.get_or_insert_with(|| ThrongPipeline {
        mesh_pipeline: mesh_pipeline.clone(),
        shader: shader.0.clone(),
    });
    for view in &views {
        let Some(phase) = phases.get_mut(&view.retained_view_entity) else {
            continue;
        };
        let Some(view_key) = view_keys.get(&view.retained_view_entity).copied() else {
            continue;
        };
        let clip_from_world = view
            .clip_from_world
            .unwrap_or_else(|| view.clip_from_view * view.world_from_view.to_matrix().inverse());
        let frustum = Frustum(ViewFrustum::from_clip_from_world(&clip_from_world));
        let rangefinder = view.rangefinder3d();
        for (main, g) in &gpus.0 {
            if g.instances == 0 || !g.bind_groups_valid {
                continue;
            }
            let Some(asset) = assets.get(g.asset) else {
                continue;
            };
            let Some((lo, hi)) = g.bounds else {
                continue;
            };
            if !frustum.intersects_obb_identity(&Aabb::from_min_max(lo, hi)) {
                continue;
            }
            let key = ThrongPipelineKey {
                mesh_key: view_key
                    | MeshPipelineKey::from_primitive_topology_and_strip_index(
                        PrimitiveTopology::TriangleList,
                        None,
                    ),
                encoding: asset.baked.bone_texture.encoding.code(),
                gpu_timed: g.gpu_timed,
                double_sided: asset.double_sided,
            };
            let id = pipelines.specialize(&pipeline_cache, pipeline, key);
            let centre = (lo + hi) * 0.5;
            phase.add_transient(Transparent3d {
                sorting_info: TransparentSortingInfo3d::Sorted {
                    mesh_center: centre,
                    depth_bias: 0.0,
                },
                distance: rangefinder.distance(&centre),
                pipeline: id,
                entity: (g.render_entity, MainEntity::from(*main)),
                draw_function: draw,
                batch_range: 0..1,
                extra_index: PhaseItemExtraIndex::None,
                indexed: true,
            });
        }
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

/// Frustum test of a world box (exposed for tests): whether `clip_from_world`'s frustum
/// intersects `[lo, hi]`.
pub fn box_in_view(clip_from_world: &Mat4, lo: Vec3, hi: Vec3) -> bool {
    Frustum(ViewFrustum::from_clip_from_world(clip_from_world))
        .intersects_obb_identity(&Aabb::from_min_max(lo, hi))
}
