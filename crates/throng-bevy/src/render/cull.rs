//! Per-instance GPU culling and LOD (docs/design.md §5 "throng in Bevy").
//!
//! Each frame, for each crowd that culls ([`ThrongCull`], on by default where the device has
//! indirect first instances): [`prepare_culls`] lists the views that may draw it — every
//! camera and light view whose frustum meets the crowd's world box (a directional light's
//! cascade without its near plane) — as [`CullView`]s, and writes the pass's [`CullJob`] and the
//! indirect arguments (counts zeroed). The culling pass (`shaders/crowd_cull.wgsl`, encoded by
//! [`encode_cull`] before the palette pass) finds each instance's box once with throng's shared
//! rules (`throng::cull`, the text throng-render's culling pass composes) and appends the
//! instance to the list of each view that sees it, at that view's LOD — perspective views by
//! projected error (`choose_lod`), orthographic ones (cascades) at the first camera's LOD for
//! the instances it sees (Bevy's shadow maps shade the caster's own surface: a coarser caster
//! would shadow the drawn mesh) and by shadow-map texels for the others (`choose_ortho_lod`)
//! — and once to the palette list, so the
//! palette pass poses only instances some view draws. Each view then draws each primitive with
//! one `draw_indexed_indirect` per LOD ([`CrowdCull::view_draws`]), whose first instance points
//! the vertex stage's instance index into its list (def `CULLED`); a camera's prepass draws its
//! main pass's lists.
//!
//! A directional cascade keeps a caster the first camera does not see only when its box swept
//! along the light by [`ThrongCull::shadow_reach`] meets that camera's frustum (throng-render's
//! `shadow_reaches_view`): a cascade fitted to a view still covers far more ground than the view.
//!
//! Not done: update-rate LOD, fewer influences at coarser LODs (a LOD here only draws fewer
//! triangles), occlusion culling; with several cameras, cascades and LOD floors follow the
//! first perspective camera listed.

use bevy::camera::visibility::RenderLayers;
use bevy::camera::MainPassResolutionOverride;
use bevy::core_pipeline::prepass::{
    DeferredPrepass, DepthPrepass, MotionVectorPrepass, NormalPrepass,
};
use bevy::ecs::query::{Has, QueryItem};
use bevy::math::primitives::ViewFrustum;
use bevy::math::{Mat4, Vec3, Vec4};
use bevy::pbr::LightEntity;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy::render::camera::TemporalJitter;
use bevy::render::render_asset::RenderAssets;
use bevy::render::render_resource::{
    BindGroup, BindGroupEntries, BindGroupLayoutDescriptor, BindingResource, Buffer,
    BufferBindingType, BufferDescriptor, BufferUsages, CachedComputePipelineId, CommandEncoder,
    ComputePassDescriptor, ComputePipelineDescriptor, PipelineCache, ShaderStages,
    SpecializedComputePipeline, SpecializedComputePipelines,
};
use bevy::render::renderer::{RenderDevice, RenderQueue};
use bevy::render::view::{ExtractedView, Msaa};
use bevy::shader::Shader;
use throng_asset::gpu::cull::{MAX_LODS, ROW_PAD};
use throng_asset::Encoding;

use super::bindings::{self, binding_defs, CULL_GROUP};
use super::crowd_gpu::{CrowdGpu, CrowdGpus};
pub use super::cull_state::*;
use super::gpu_asset::GpuThrongAsset;
use super::layouts::{buffer_entry, playback_entries};
use super::queue::box_in_frustum;

/// The planes of `clip_from_world` as `CullView::planes` (Bevy's half-spaces; an undefined one
/// — an infinite far plane — and the near plane when `near` is false become (0, 0, 0, 1)).
pub fn view_planes(clip_from_world: &Mat4, near: bool) -> [[f32; 4]; 6] {
    let f = ViewFrustum::from_clip_from_world(clip_from_world);
    let mut planes = [[0.0, 0.0, 0.0, 1.0]; 6];
    for (i, (p, h)) in planes.iter_mut().zip(f.half_spaces).enumerate() {
        let n = h.normal_d();
        if !n.is_finite() || n.truncate().length_squared() == 0.0 {
            continue;
        }
        if i == ViewFrustum::NEAR_PLANE_IDX && !near {
            continue;
        }
        *p = n.to_array();
    }
    planes
}

/// The `CullView` of an extracted view whose `clip_from_world` is `clip` (`near`: cull by its
/// near plane; `one_sample`: a camera drawing its viewport at one sample a pixel, see
/// [`one_sample_target`] — a perspective one drops far cards whose screen box holds no pixel
/// centre; an orthographic camera's clip w is not its depth, which the rule divides by).
pub fn cull_view(view: &ExtractedView, clip: &Mat4, near: bool, one_sample: bool) -> CullView {
    let ortho = view.clip_from_view.w_axis.w == 1.0;
    let eye = view.world_from_view.translation();
    let ppu = view.viewport.w as f32 * 0.5 * view.clip_from_view.y_axis.y.abs();
    CullView {
        planes: view_planes(clip, near),
        eye: Vec4::from((eye, ppu)).to_array(),
        ortho: ortho as u32,
        floor_view: u32::MAX,
        viewport: [view.viewport.z as f32, view.viewport.w as f32],
        light: [0.0, 0.0, 0.0, -1.0],
        clip_from_world: clip.to_cols_array_2d(),
        pixel_test: (one_sample && !ortho) as u32,
        dots: 0,
        _pad: [0; 2],
    }
}

/// The culling pass's compute pipelines (`shaders/crowd_cull.wgsl`).
#[derive(Resource, Clone)]
pub struct CullPipeline {
    pub shader: Handle<Shader>,
}

/// What a culling pass varies by: (bone texture encoding, GPU-timed, entry point: 0 `cs_cull`,
/// 1 `cs_cull_finish`).
pub type CullKey = (Encoding, bool, u8);

/// The culling pass's bind group layout (group [`CULL_GROUP`]).
pub fn cull_layout(encoding: Encoding) -> BindGroupLayoutDescriptor {
    let c = ShaderStages::COMPUTE;
    let read = BufferBindingType::Storage { read_only: true };
    let write = BufferBindingType::Storage { read_only: false };
    let mut entries = playback_entries(c, encoding).to_vec();
    entries.extend([
        buffer_entry(bindings::INSTANCE_TRANSFORMS, c, read),
        buffer_entry(bindings::ROW_BOUNDS, c, read),
        buffer_entry(bindings::CULL_JOB, c, BufferBindingType::Uniform),
        buffer_entry(bindings::CULL_VIEWS, c, read),
        buffer_entry(bindings::CULL_IDS, c, write),
        buffer_entry(bindings::CULL_ARGS, c, write),
    ]);
    BindGroupLayoutDescriptor::new("throng culling pass", &entries)
}

/// The shader defs of the culling pass.
pub fn cull_shader_defs(encoding: Encoding, gpu_timed: bool) -> Vec<bevy::shader::ShaderDefVal> {
    let mut defs = binding_defs(CULL_GROUP);
    defs.push(bevy::shader::ShaderDefVal::UInt(
        "ENCODING".into(),
        encoding.code(),
    ));
    if gpu_timed {
        defs.push("GPU_TIMED".into());
    }
    defs
}

impl SpecializedComputePipeline for CullPipeline {
    type Key = CullKey;

    fn specialize(&self, (encoding, gpu_timed, entry): CullKey) -> ComputePipelineDescriptor {
        ComputePipelineDescriptor {
            label: Some("throng culling pass".into()),
            layout: vec![cull_layout(encoding)],
            shader: self.shader.clone(),
            shader_defs: cull_shader_defs(encoding, gpu_timed),
            entry_point: Some(
                if entry == 0 {
                    "cs_cull"
                } else {
                    "cs_cull_finish"
                }
                .into(),
            ),
            zero_initialize_workgroup_memory: false,
            ..default()
        }
    }
}

/// The culling shader's handle (render world; set by the plugin).
#[derive(Resource, Clone)]
pub struct CullShader(pub Handle<Shader>);

/// Each culling crowd's two pipelines (cull, finish).
#[derive(Resource, Default)]
pub struct CullPipelineIds(pub HashMap<Entity, [CachedComputePipelineId; 2]>);

/// Notes the cameras each crowd is not drawn by (its `RenderLayers` do not meet theirs), and
/// specialises the culling pipelines of every crowd that culls, noting whether they have
/// compiled (a culled crowd is queued only once they have: `queue::posed_crowds`). Runs in
/// `QueueMeshes` before the crowd queues.
#[allow(clippy::too_many_arguments)]
pub(crate) fn queue_culls(
    shader: Option<Res<CullShader>>,
    mut compute: ResMut<SpecializedComputePipelines<CullPipeline>>,
    mut ids: ResMut<CullPipelineIds>,
    pipeline_cache: Res<PipelineCache>,
    mut gpus: ResMut<CrowdGpus>,
    assets: Res<RenderAssets<GpuThrongAsset>>,
    cameras: Query<(&ExtractedView, Option<&RenderLayers>), Without<LightEntity>>,
) {
    for g in gpus.0.values_mut() {
        g.views.excluded_views.clear();
        for (view, layers) in &cameras {
            if !layers
                .cloned()
                .unwrap_or_default()
                .intersects(&g.views.layers)
            {
                g.views.excluded_views.push(view.retained_view_entity);
            }
        }
    }
    let Some(shader) = shader else {
        return;
    };
    let pipeline = CullPipeline {
        shader: shader.0.clone(),
    };
    ids.0.clear();
    for (main, g) in gpus.0.iter_mut() {
        g.cull.ready = false;
        let Some(asset) = assets.get(g.asset) else {
            continue;
        };
        if !g.cull.enabled {
            continue;
        }
        let enc = asset.baked.bone_texture.encoding;
        let pair = [0, 1]
            .map(|e| compute.specialize(&pipeline_cache, &pipeline, (enc, g.buffers.gpu_timed, e)));
        g.cull.ready = pair
            .iter()
            .all(|&id| pipeline_cache.get_compute_pipeline(id).is_some());
        ids.0.insert(*main, pair);
    }
}

fn storage(device: &RenderDevice, label: &str, bytes: u64, usage: BufferUsages) -> Buffer {
    device.create_buffer(&BufferDescriptor {
        label: Some(label),
        size: bytes.max(16),
        usage,
        mapped_at_creation: false,
    })
}

/// What the culling pass reads of a render-world view: the view, its light (a shadow map's
/// view), its camera's multisampling, whether the camera jitters its projection (TAA) or
/// draws its main pass at another resolution than its viewport, and whether it has a prepass.
type CullViewQuery = (
    &'static ExtractedView,
    Option<&'static LightEntity>,
    Option<&'static Msaa>,
    Has<TemporalJitter>,
    Has<MainPassResolutionOverride>,
    Has<DepthPrepass>,
    Has<NormalPrepass>,
    Has<MotionVectorPrepass>,
    Has<DeferredPrepass>,
);

/// One item of [`CullViewQuery`].
type CullViewItem<'a> = QueryItem<'a, 'a, CullViewQuery>;

/// Whether a view is a camera drawing its viewport at one sample a pixel through the projection
/// the culling pass reads, so that a far card whose screen box holds no pixel centre makes no
/// fragment: not under MSAA (a sample lies off its pixel's centre), nor with a jittered
/// projection or another main-pass resolution (the centres lie elsewhere), nor a light's view.
fn one_sample_target(light: bool, msaa: Option<&Msaa>, jitter: bool, resized: bool) -> bool {
    !light && msaa == Some(&Msaa::Off) && !jitter && !resized
}

/// The views that may draw crowd `g` this frame: cameras first (perspective ones floor the
/// cascades' LODs), then light views if the crowd casts shadows.
fn crowd_views(g: &CrowdGpu, views: &[CullViewItem]) -> Vec<ViewEntry> {
    let Some((lo, hi)) = g.bounds else {
        return Vec::new();
    };
    let mut out: Vec<ViewEntry> = Vec::new();
    if g.views.hidden {
        return Vec::new();
    }
    for &(view, light, msaa, jitter, resized, depth, normal, motion, deferred) in views {
        let near = !matches!(light, Some(LightEntity::Directional { .. }));
        if light.is_some() && !g.views.casts_shadows {
            continue;
        }
        if g.views.excluded_views.contains(&view.retained_view_entity) {
            continue;
        }
        let clip = super::queue::clip_from_world(view);
        if !box_in_frustum(&clip, lo, hi, near) {
            continue;
        }
        let mut cv = cull_view(
            view,
            &clip,
            near,
            one_sample_target(light.is_some(), msaa, jitter, resized),
        );
        // One-pixel cards are drawn by the main pass alone: a prepass would need the points
        // too (its depth test and motion vectors), so a camera with one draws every card as a
        // quad.
        let prepass = depth || normal || motion || deferred;
        cv.dots = (cv.pixel_test == 1 && g.cull.far_dots && !prepass) as u32;
        out.push(ViewEntry {
            retained: view.retained_view_entity,
            view: cv,
            light: light.is_some(),
            clip_from_world: clip,
            clip_from_view: view.clip_from_view,
            world_from_view: view.world_from_view.to_matrix(),
        });
    }
    // Cameras before lights; an orthographic light view draws what the first perspective
    // camera sees at that camera's LODs.
    out.sort_by_key(|v| v.light);
    let first_camera = out.iter().position(|v| !v.light && v.view.ortho == 0);
    let drop = hi.y - lo.y;
    for v in out.iter_mut() {
        if v.light && v.view.ortho == 1 {
            v.view.floor_view = first_camera.map_or(u32::MAX, |c| c as u32);
            // The light travels along the view's forward (-Z).
            let dir = (-v.world_from_view.z_axis.truncate()).normalize_or_zero();
            let reach = match g.cull.shadow_reach {
                Some(r) if r <= 0.0 => -1.0,
                Some(r) => r,
                None => drop / (-dir.y).max(0.1),
            };
            v.view.light = dir.extend(reach).to_array();
        }
    }
    out
}

/// Lists each culling crowd's views and writes its job, views and indirect arguments (counts
/// zeroed), growing its buffers as needed (the draw's bind groups are then remade). Runs in
/// `PrepareBindGroups` before the crowds' bind groups are made.
pub(crate) fn prepare_culls(
    mut gpus: ResMut<CrowdGpus>,
    assets: Res<RenderAssets<GpuThrongAsset>>,
    device: Res<RenderDevice>,
    queue: Res<RenderQueue>,
    views: Query<CullViewQuery>,
) {
    let all: Vec<CullViewItem> = views.iter().collect();
    for g in gpus.0.values_mut() {
        g.cull.views.clear();
        let Some(asset) = assets.get(g.asset) else {
            continue;
        };
        if !g.cull.enabled || g.buffers.instances == 0 {
            continue;
        }
        let entries = crowd_views(g, &all);
        let lods = asset.lod_count();
        let prims = asset.primitives.len().max(1) as u32;
        let seg = segment(g.buffers.instances);
        let n_views = entries.len() as u32;
        let palette_base = if g.skin.palette_path {
            n_views.max(1) * lods * seg
        } else {
            0
        };
        // Lists of every (view, LOD), then the palette list.
        let words = (n_views.max(1) as u64 * lods as u64 + 1) * seg as u64;
        // The draws, the palette counter and dispatch, each view's one-pixel cards.
        let args_entries = n_views.max(1) as u64 * (prims as u64 * lods as u64 + 1) + 2;
        let c = &mut g.cull;
        if c.ids.is_none() || words > c.ids_words {
            let grown = words.max(c.ids_words * 2);
            c.ids = Some(storage(
                &device,
                "throng visible instances",
                grown * 4,
                BufferUsages::STORAGE | BufferUsages::COPY_SRC,
            ));
            c.ids_words = grown;
            g.bindings.valid = false;
        }
        if c.args.is_none() || args_entries > c.args_entries {
            let grown = args_entries.max(c.args_entries * 2);
            c.args = Some(storage(
                &device,
                "throng culled draw arguments",
                grown * ARGS_BYTES,
                BufferUsages::STORAGE
                    | BufferUsages::INDIRECT
                    | BufferUsages::COPY_DST
                    | BufferUsages::COPY_SRC,
            ));
            c.args_entries = grown;
            g.bindings.valid = false;
        }
        let view_bytes = n_views.max(1) as u64 * std::mem::size_of::<CullView>() as u64;
        if c.view_buffer.is_none() || view_bytes > c.view_capacity {
            c.view_capacity = view_bytes.max(c.view_capacity * 2);
            c.view_buffer = Some(storage(
                &device,
                "throng cull views",
                c.view_capacity,
                BufferUsages::STORAGE | BufferUsages::COPY_DST,
            ));
        }
        let far_band = c.far_band();
        let job_buf = c.job.get_or_insert_with(|| {
            device.create_buffer(&BufferDescriptor {
                label: Some("throng cull job"),
                size: std::mem::size_of::<CullJob>() as u64,
                usage: BufferUsages::UNIFORM | BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        });
        let b = &asset.cull_bounds;
        let (lo, hi) = if b.is_empty() {
            (Vec3::splat(-f32::MAX), Vec3::splat(f32::MAX))
        } else {
            (
                Vec3::from_array(b.min.to_array()),
                Vec3::from_array(b.max.to_array()),
            )
        };
        let mut lod_error = [0.0f32; MAX_LODS];
        for (d, s) in lod_error.iter_mut().zip(&asset.lod_errors) {
            *d = *s;
        }
        let job = CullJob {
            fallback_min: lo.extend(0.0).to_array(),
            fallback_max: hi.extend(0.0).to_array(),
            lod_error,
            instance_count: g.buffers.instances,
            view_count: n_views,
            lod_count: lods,
            primitive_count: prims,
            segment: seg,
            palette_base,
            row_pad: ROW_PAD * b.diagonal().max(0.0),
            row_bounds: 1,
            lod_bias: c.lod_bias,
            far_level: asset.far_level().unwrap_or(0),
            far_band,
            _pad: 0,
            far_sphere: asset.far.as_ref().map_or([0.0; 4], |f| f.sphere),
        };
        queue.write_buffer(job_buf, 0, bytemuck::bytes_of(&job));
        let cv: Vec<CullView> = entries.iter().map(|e| e.view).collect();
        if let Some(vb) = &c.view_buffer {
            if !cv.is_empty() {
                queue.write_buffer(vb, 0, bytemuck::cast_slice(&cv));
            }
        }
        let mut args = Vec::with_capacity(args_entries as usize);
        for v in 0..n_views {
            for p in 0..prims as usize {
                for l in 0..lods {
                    // The far level draws primitive 0's entry as a card (render::far), and no
                    // other primitive's.
                    let (first_index, index_count) = if Some(l) == asset.far_level() {
                        throng_asset::gpu::far::entry_indices(p)
                    } else {
                        asset
                            .primitives
                            .get(p)
                            .map_or((0, 0), |p| GpuThrongAsset::lod_range(p, l))
                    };
                    args.push(DrawIndexedArgs {
                        index_count,
                        first_index,
                        first_instance: (v * lods + l) * seg,
                        ..default()
                    });
                }
            }
        }
        args.extend(std::iter::repeat_n(
            DrawIndexedArgs::default(),
            2 + n_views as usize,
        ));
        if let Some(ab) = &c.args {
            queue.write_buffer(ab, 0, bytemuck::cast_slice(&args));
        }
        c.lods = lods;
        c.mesh_lods = asset.mesh_lod_count();
        c.prims = prims;
        c.segment = seg;
        c.palette_base = palette_base;
        c.views = entries;
    }
}

/// The culling pass's bind group of crowd `g` (None before its buffers exist).
fn cull_group(
    g: &CrowdGpu,
    asset: &GpuThrongAsset,
    device: &RenderDevice,
    pipeline_cache: &PipelineCache,
) -> Option<BindGroup> {
    let c = &g.cull;
    let (Some(tb), Some(rb), Some(clock), Some(job), Some(vb), Some(ids), Some(args)) = (
        &g.buffers.transforms,
        &g.buffers.records,
        &g.buffers.clock_buffer,
        &c.job,
        &c.view_buffer,
        &c.ids,
        &c.args,
    ) else {
        return None;
    };
    let mut entries = super::bind_groups::playback_entries(asset, rb, clock).to_vec();
    entries.extend_from_slice(&BindGroupEntries::with_indices((
        (bindings::INSTANCE_TRANSFORMS, tb.as_entire_binding()),
        (bindings::ROW_BOUNDS, asset.row_bounds.as_entire_binding()),
        (bindings::CULL_JOB, job.as_entire_binding()),
        (bindings::CULL_VIEWS, vb.as_entire_binding()),
        (
            bindings::CULL_IDS,
            BindingResource::Buffer(ids.as_entire_buffer_binding()),
        ),
        (bindings::CULL_ARGS, args.as_entire_binding()),
    )));
    let layout =
        pipeline_cache.get_bind_group_layout(&cull_layout(asset.baked.bone_texture.encoding));
    Some(device.create_bind_group("throng culling pass", &layout, &entries))
}

/// Records crowd `main`'s culling pass (cull, then finish) into `encoder`; false when it did
/// not run (not culled this frame, no view, pipelines not compiled), so nothing of it may be
/// drawn culled.
pub(crate) fn encode_cull(
    main: &Entity,
    g: &CrowdGpu,
    asset: &GpuThrongAsset,
    (ids, pipeline_cache, device): (&CullPipelineIds, &PipelineCache, &RenderDevice),
    encoder: &mut CommandEncoder,
) -> bool {
    if !g.cull.enabled || g.cull.views.is_empty() || g.buffers.instances == 0 {
        return false;
    }
    let Some([cull, finish]) = ids.0.get(main) else {
        return false;
    };
    let (Some(cull), Some(finish)) = (
        pipeline_cache.get_compute_pipeline(*cull),
        pipeline_cache.get_compute_pipeline(*finish),
    ) else {
        return false;
    };
    let Some(group) = cull_group(g, asset, device, pipeline_cache) else {
        return false;
    };
    let entries = g.cull.views.len() as u32 * g.cull.prims * g.cull.lods;
    let mut pass = encoder.begin_compute_pass(&ComputePassDescriptor {
        label: Some("throng culling pass"),
        timestamp_writes: None,
    });
    pass.set_bind_group(CULL_GROUP, &group, &[]);
    pass.set_pipeline(cull);
    pass.dispatch_workgroups(g.buffers.instances.div_ceil(64), 1, 1);
    pass.set_pipeline(finish);
    pass.dispatch_workgroups(entries.div_ceil(64).max(1), 1, 1);
    true
}
