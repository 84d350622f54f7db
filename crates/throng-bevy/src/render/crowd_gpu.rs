//! A crowd's per-instance buffers in the render world, and the extract system that writes the
//! main world's transforms and records straight into them.

use std::sync::atomic::Ordering;

use bevy::asset::AssetId;
use bevy::camera::visibility::RenderLayers;
use bevy::core_pipeline::prepass::MotionVectorPrepass;
use bevy::light::NotShadowCaster;
use bevy::math::Vec3;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy::render::render_resource::{
    BufferDescriptor, BufferUsages, CommandEncoder, CommandEncoderDescriptor,
};
use bevy::render::renderer::{RenderDevice, RenderQueue};
use bevy::render::sync_world::RenderEntity;
use bevy::render::Extract;
use throng_contract::names::Timing;
use throng_contract::{GpuRecordWrite, InstanceTransform, Records};

use super::crowd_state::{DrawBindings, InstanceBuffers, MotionBuffers, SkinState, ViewFilter};
use super::cull_state::CrowdCull;
use super::gpu_asset::GpuThrongAsset;
use super::vat::GpuVat;
use crate::asset::ThrongAsset;
use crate::crowd::{SkinPath, ThrongCrowd};

/// Bytes of one instance transform.
const TRANSFORM_BYTES: u64 = std::mem::size_of::<InstanceTransform>() as u64;

/// A crowd's state in the render world (kept across frames, rewritten when the main world's
/// generation counters move), one part per feature (`super::crowd_state`).
pub struct CrowdGpu {
    pub render_entity: Entity,
    pub asset: AssetId<ThrongAsset>,
    /// The crowd's world box (`ThrongCrowd::bounds`).
    pub bounds: Option<(Vec3, Vec3)>,
    /// The crowd entity was extracted this frame (else its state is dropped).
    pub(crate) seen: bool,
    pub buffers: InstanceBuffers,
    pub skin: SkinState,
    pub motion: MotionBuffers,
    pub bindings: DrawBindings,
    /// Per-instance culling and LOD, its buffers and this frame's views (`render::cull`).
    pub cull: CrowdCull,
    pub views: ViewFilter,
    /// The instances' appearances (`super::appearance`), sized to the buffers' capacity.
    pub appearances: Option<super::appearance::GpuAppearances>,
}

impl CrowdGpu {
    /// A crowd's state before any buffer is made.
    fn new(render_entity: Entity, crowd: &ThrongCrowd, timing: Timing) -> CrowdGpu {
        CrowdGpu {
            render_entity,
            asset: crowd.asset.id(),
            bounds: None,
            seen: true,
            buffers: InstanceBuffers::new(timing == Timing::Gpu, timing.record_bytes() as u64),
            skin: SkinState::new(crowd.skin_path),
            motion: MotionBuffers::default(),
            bindings: DrawBindings::default(),
            cull: CrowdCull {
                lod_bias: super::cull_state::ThrongCull::default().lod_bias,
                ..Default::default()
            },
            views: ViewFilter::default(),
            appearances: None,
        }
    }
}

impl CrowdGpu {
    /// The VATs the crowd is drawn from: the VAT path asked for and `asset`'s VATs uploaded
    /// (else the crowd is drawn on the palette path).
    pub fn vats<'a>(&self, asset: &'a GpuThrongAsset) -> Option<&'a [GpuVat]> {
        if self.skin.path != SkinPath::Vat {
            return None;
        }
        asset.vats.as_deref()
    }
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
    Option<&'static super::cull_state::ThrongCull>,
    (
        Option<&'static InheritedVisibility>,
        Option<&'static RenderLayers>,
        Option<&'static super::ThrongDebugView>,
    ),
);

/// Copies the crowds' transforms and records straight from the main world's runtime into
/// GPU buffers (`queue.write_buffer` stages them; no intermediate copy in the render world).
/// Transforms only when they changed; records every frame CPU-timed; GPU-timed only the
/// records rewritten this frame ([`write_records`]), all of them after the count changed.
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
    let can_cull = super::cull_state::culling_supported(&device);
    // Motion vectors: each crowd's transforms are copied to its previous-frame buffer by a
    // command submitted before this frame's transforms are written (queue writes land at the
    // start of the next submission, so the copy must be submitted first).
    let mut copies: Option<CommandEncoder> = None;
    for (main, render, crowd, not_caster, cull, (visibility, layers, debug_view)) in &crowds {
        let Some(rt) = crowd.runtime() else {
            continue;
        };
        let timing = rt.timing();
        let g = gpus
            .0
            .entry(main)
            .or_insert_with(|| CrowdGpu::new(render.id(), crowd, timing));
        g.seen = true;
        g.render_entity = render.id();
        g.bounds = crowd.bounds;
        g.views.casts_shadows = !not_caster;
        g.skin.dual_quat = crowd.dual_quat();
        let cull = cull.copied().unwrap_or_default();
        let culled = cull.per_instance && can_cull;
        if g.cull.enabled != culled {
            // The draw and palette bind groups bind the culling lists or stand-ins.
            g.cull.enabled = culled;
            g.bindings.valid = false;
        }
        g.cull.lod_bias = cull.lod_bias;
        g.cull.far_fade = cull.far_fade;
        g.cull.far_dots = cull.far_dots;
        g.cull.shadow_reach = cull.shadow_reach;
        g.views.hidden = visibility.is_some_and(|v| !v.get());
        g.views.layers = layers.cloned().unwrap_or_default();
        g.views.debug_view = debug_view.copied();
        if g.motion.on != motion {
            g.motion.on = motion;
            g.motion.prev_transforms = None;
            g.motion.prev_palette = None;
            g.bindings.valid = false;
        }
        if g.skin.path != crowd.skin_path {
            g.skin.path = crowd.skin_path;
            g.skin.palette = None;
            g.bindings.valid = false;
        }
        let n = rt.len() as u64;
        g.buffers.instances = n as u32;
        if n > g.buffers.capacity || g.buffers.transforms.is_none() {
            // Grow by doubling so a growing crowd does not reallocate every frame, but size a
            // crowd spawned at once to its count (rounded up to 64): 100,000 Fox instances'
            // palette then fits a 128 MiB storage binding, 131,072's would not.
            let cap = n.max(g.buffers.capacity * 2).max(64).div_ceil(64) * 64;
            g.buffers.capacity = cap;
            g.buffers.transforms = Some(device.create_buffer(&BufferDescriptor {
                label: Some("throng instance transforms"),
                size: cap * TRANSFORM_BYTES,
                usage: BufferUsages::STORAGE | BufferUsages::COPY_DST | BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }));
            g.motion.prev_transforms = None;
            g.buffers.records = Some(device.create_buffer(&BufferDescriptor {
                label: Some("throng instance records"),
                size: cap * g.buffers.record_bytes,
                usage: BufferUsages::STORAGE | BufferUsages::COPY_DST | BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }));
            // The palette is sized by the asset's entries, in prepare_crowd_bind_groups.
            g.skin.palette = None;
            g.bindings.valid = false;
            g.buffers.transforms_gen = u64::MAX;
            g.buffers.records_gen = u64::MAX;
            g.buffers.records_len = u64::MAX;
        }
        if let Records::Gpu { clock, .. } = rt.records() {
            g.buffers.clock = clock;
        }
        if motion && g.motion.prev_transforms.is_none() {
            g.motion.prev_transforms = Some(device.create_buffer(&BufferDescriptor {
                label: Some("throng previous instance transforms"),
                size: g.buffers.capacity * TRANSFORM_BYTES,
                usage: BufferUsages::STORAGE | BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
            // The palette's twin is sized with the palette, in prepare_crowd_bind_groups.
            g.motion.prev_palette = None;
            g.motion.prev_fresh = true;
            g.bindings.valid = false;
        }
        if let (Some(tb), Some(prev), false) = (
            &g.buffers.transforms,
            &g.motion.prev_transforms,
            g.motion.prev_fresh,
        ) {
            if n > 0 {
                copies
                    .get_or_insert_with(|| {
                        device.create_command_encoder(&CommandEncoderDescriptor {
                            label: Some("throng previous transforms"),
                        })
                    })
                    .copy_buffer_to_buffer(tb, 0, prev, 0, n * TRANSFORM_BYTES);
            }
        }
    }
    if let Some(copies) = copies {
        queue.submit([copies.finish()]);
    }
    for (main, _, crowd, _, _, _) in &crowds {
        let (Some(g), Some(rt)) = (gpus.0.get_mut(&main), crowd.runtime()) else {
            continue;
        };
        extract_appearances(g, crowd, &device, &queue);
        let (mut transform_bytes, mut record_bytes) = (0, 0);
        if g.buffers.instances > 0 {
            if let (Some(tb), true) = (
                &g.buffers.transforms,
                g.buffers.transforms_gen != crowd.transforms_gen,
            ) {
                let bytes: &[u8] = bytemuck::cast_slice(rt.transforms());
                queue.write_buffer(tb, 0, bytes);
                transform_bytes = bytes.len() as u64;
                g.buffers.transforms_gen = crowd.transforms_gen;
            }
            if let (Some(prev), true) = (&g.motion.prev_transforms, g.motion.prev_fresh) {
                queue.write_buffer(prev, 0, bytemuck::cast_slice(rt.transforms()));
                g.motion.prev_fresh = false;
            }
            // a graph stepped on the GPU writes the records there (`super::graph_step`)
            if g.buffers.records_gen != crowd.records_gen && !crowd.graph_on_gpu() {
                // changes made through `runtime_mut` since the last extract may not all be
                // listed (a `First` system may have run before the list was cleared): all
                let unlisted = g.buffers.records_gen == u64::MAX
                    || crowd.records_unlisted > g.buffers.records_gen;
                let writes = rt.record_changes().writes.filter(|_| !unlisted);
                record_bytes = write_records(g, crowd.record_bytes(), writes, &device, &queue);
                g.buffers.records_gen = crowd.records_gen;
            }
        }
        crowd
            .uploaded
            .records
            .store(record_bytes, Ordering::Relaxed);
        crowd
            .uploaded
            .transforms
            .store(transform_bytes, Ordering::Relaxed);
    }
    gpus.0.retain(|_, g| g.seen);
}

/// Writes a crowd's records into its record buffer; the bytes sent. `all` is every record in
/// dense order; `writes` the GPU-timed runtime's rewrites since the last frame (`None`
/// CPU-timed). While the crowd keeps its count, the rewrites alone are sent — one
/// `write_buffer` of the list as the runtime keeps it, then a buffer-to-buffer copy per record
/// into its dense slot (`GpuRecordWrite::index`), in list order so that a later rewrite of the
/// same instance wins, as throng-render's scatter pass does. Past a quarter of the crowd,
/// after the count changed (a despawn moves records), or with no list where records changed
/// (`writes` `None`: CPU-timed, or changes made through `ThrongCrowd::runtime_mut`), every
/// record is written.
fn write_records(
    g: &mut CrowdGpu,
    all: &[u8],
    writes: Option<&[GpuRecordWrite]>,
    device: &RenderDevice,
    queue: &RenderQueue,
) -> u64 {
    let Some(records) = g.buffers.records.as_ref() else {
        return 0;
    };
    let n = g.buffers.instances as u64;
    // a generation moved with nothing listed: something changed records off the list
    let scatter =
        writes.filter(|w| g.buffers.records_len == n && !w.is_empty() && (w.len() as u64) * 4 <= n);
    let Some(writes) = scatter else {
        queue.write_buffer(records, 0, all);
        g.buffers.records_len = n;
        return all.len() as u64;
    };
    let list: &[u8] = bytemuck::cast_slice(writes);
    let size = list.len() as u64;
    if g.buffers
        .record_writes
        .as_ref()
        .is_none_or(|b| b.size() < size)
    {
        g.buffers.record_writes = Some(device.create_buffer(&BufferDescriptor {
            label: Some("throng record writes"),
            size: size.next_power_of_two().max(4096),
            usage: BufferUsages::COPY_DST | BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        }));
    }
    let Some(list_buffer) = g.buffers.record_writes.as_ref() else {
        return 0;
    };
    // the list lands before the copies: queue writes precede the next submission
    queue.write_buffer(list_buffer, 0, list);
    let mut copies = device.create_command_encoder(&CommandEncoderDescriptor {
        label: Some("throng record scatter"),
    });
    let stride = std::mem::size_of::<GpuRecordWrite>() as u64;
    for (k, w) in writes.iter().enumerate() {
        if (w.index as u64) < n {
            let to = w.index as u64 * g.buffers.record_bytes;
            copies.copy_buffer_to_buffer(
                list_buffer,
                k as u64 * stride,
                records,
                to,
                g.buffers.record_bytes,
            );
        }
    }
    queue.submit([copies.finish()]);
    size
}

/// Keeps crowd `g`'s appearance texture sized to its capacity and uploads `crowd`'s changes
/// (a new texture unbinds the crowd's bind groups, which are made again).
fn extract_appearances(
    g: &mut CrowdGpu,
    crowd: &ThrongCrowd,
    device: &RenderDevice,
    queue: &RenderQueue,
) {
    if g.appearances
        .as_ref()
        .is_none_or(|a| a.capacity != g.buffers.capacity)
    {
        g.appearances = Some(super::appearance::GpuAppearances::new(
            device,
            g.buffers.capacity,
        ));
        g.bindings.valid = false;
    }
    if let Some(a) = g.appearances.as_mut() {
        a.upload(
            queue,
            crowd.appearances().changes(),
            g.buffers.instances as usize,
        );
    }
}
