//! Each frame, per crowd: the per-primitive draw uniforms, the clock and the palette job
//! written; the palette (and its previous-frame twin) sized by the asset's entries; and the
//! bind groups of the draw and the palette pass (re)made when a buffer they bind changed.

use bevy::prelude::*;
use bevy::render::render_asset::RenderAssets;
use bevy::render::render_resource::{
    BindGroup, BindGroupEntries, BindingResource, Buffer, BufferDescriptor, BufferUsages,
    PipelineCache, WgpuLimits,
};
use bevy::render::renderer::{RenderDevice, RenderQueue};
use throng_asset::gpu::{palette_bytes, PaletteJob, TimingUniform, PALETTE_ENTRY_BYTES};

use super::bindings;
use super::crowd_gpu::{CrowdGpu, CrowdGpus};
use super::gpu_asset::{DrawParams, GpuThrongAsset};
use super::layouts::{crowd_layout, palette_layout};
use crate::crowd::SkinPath;

fn uniform_buffer(device: &RenderDevice, label: &str, size: u64) -> Buffer {
    device.create_buffer(&BufferDescriptor {
        label: Some(label),
        size,
        usage: BufferUsages::UNIFORM | BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// A uniform buffer sized for one `T`.
fn uniform_of<T>(device: &RenderDevice, label: &str) -> Buffer {
    uniform_buffer(device, label, size_of::<T>() as u64)
}

/// Whether a crowd of `capacity` instances (its buffers' capacity: the instance count rounded up
/// to 64, doubled as it grows) of `entries` palette entries can keep its palette in one
/// storage binding of the device (else it is drawn on the texture path, with a warning).
pub fn palette_fits(capacity: u64, entries: u32, limits: &WgpuLimits) -> bool {
    let bytes = palette_bytes(capacity, entries);
    bytes <= limits.max_storage_buffer_binding_size && bytes <= limits.max_buffer_size
}

/// (Re)creates the bind groups of crowds whose buffers changed (the palette sized by the
/// asset's entries), and writes the per-primitive draw uniforms, the clock and the palette
/// job.
pub(crate) fn prepare_crowd_bind_groups(
    mut gpus: ResMut<CrowdGpus>,
    assets: Res<RenderAssets<GpuThrongAsset>>,
    device: Res<RenderDevice>,
    queue: Res<RenderQueue>,
    pipeline_cache: Res<PipelineCache>,
) {
    for g in gpus.0.values_mut() {
        let Some(asset) = assets.get(g.asset) else {
            continue;
        };
        g.write_uniforms(&device, &queue, asset);
        g.size_palette(&device, asset);
        if g.bindings.valid {
            continue;
        }
        g.make_bind_groups(&device, &pipeline_cache, asset);
    }
}

/// The bind group entries of the asset and the crowd's playback, read by the palette pass or,
/// on the texture path, by the vertex stage.
pub(crate) fn playback_entries<'a>(
    asset: &'a GpuThrongAsset,
    records: &'a Buffer,
    clock: &'a Buffer,
) -> BindGroupEntries<'a, 6> {
    BindGroupEntries::with_indices((
        (bindings::BONE_PARAMS, asset.bone_params.as_entire_binding()),
        (bindings::CLIPS, asset.clips.as_entire_binding()),
        (bindings::FRAME_TIMES, asset.frame_times.as_entire_binding()),
        (
            bindings::BONE_TEXTURE,
            BindingResource::TextureView(&asset.bone_view),
        ),
        (bindings::CPU_RECORDS, records.as_entire_binding()),
        (bindings::CLOCK, clock.as_entire_binding()),
    ))
}

impl CrowdGpu {
    /// The culling pass's visible ids when the crowd culls, else `stand_in` (the layouts bind
    /// them whether the pipelines read them or not).
    fn cull_ids<'a>(&'a self, stand_in: &'a Buffer) -> &'a Buffer {
        self.cull
            .ids
            .as_ref()
            .filter(|_| self.cull.enabled)
            .unwrap_or(stand_in)
    }

    /// Writes the per-primitive draw uniforms (made when the asset's primitives change), the
    /// clock and the palette job.
    fn write_uniforms(
        &mut self,
        device: &RenderDevice,
        queue: &RenderQueue,
        asset: &GpuThrongAsset,
    ) {
        if self.bindings.draws.len() != asset.primitives.len() {
            self.bindings.draws = asset
                .primitives
                .iter()
                .map(|_| uniform_of::<DrawParams>(device, "throng draw params"))
                .collect();
            self.bindings.draw_far = None;
            self.bindings.valid = false;
        }
        // The crowd's crossfade settings change with its ThrongCull: written when they do.
        let far = [
            self.cull.lod_bias,
            self.cull.far_band(),
            asset.far.as_ref().map_or(0.0, |f| f.error),
            0.0,
        ];
        if self.bindings.draw_far != Some(far) {
            for (p, buf) in asset.primitives.iter().zip(&self.bindings.draws) {
                let params = DrawParams { far, ..p.material };
                queue.write_buffer(buf, 0, bytemuck::bytes_of(&params));
            }
            self.bindings.draw_far = Some(far);
        }
        let clock = self
            .buffers
            .clock_buffer
            .get_or_insert_with(|| uniform_of::<TimingUniform>(device, "throng clock"));
        queue.write_buffer(
            clock,
            0,
            bytemuck::bytes_of(&TimingUniform::new(self.buffers.clock)),
        );
        let job = self
            .skin
            .job
            .get_or_insert_with(|| uniform_of::<PaletteJob>(device, "throng palette job"));
        let palette_job = self.cull.palette_job(self.buffers.instances);
        queue.write_buffer(job, 0, bytemuck::bytes_of(&palette_job));
    }

    /// Makes the palette when it has none (the palette path's `capacity × entries` entries
    /// when the crowd asks for it and it fits the device, else a one-entry stand-in for the
    /// texture path's palette binding), and with motion vectors its previous-frame twin.
    fn size_palette(&mut self, device: &RenderDevice, asset: &GpuThrongAsset) {
        let entries = asset.baked.bone_texture.entries.max(1);
        if self.skin.palette.is_none() {
            let fits = palette_fits(self.buffers.capacity, entries, &device.limits());
            // A VAT-path crowd whose asset has no usable VAT is drawn on the palette path.
            let wants = match self.skin.path {
                SkinPath::Palette => true,
                SkinPath::Texture => false,
                SkinPath::Vat => self.vats(asset).is_none(),
            };
            if wants && !fits {
                warn!(
                    "throng: a crowd of {} instances (capacity {}) × {entries} palette entries needs {} MB of palette, past the device's storage-binding limit of {} MB: drawn on the texture path",
                    self.buffers.instances,
                    self.buffers.capacity,
                    palette_bytes(self.buffers.capacity, entries) / 1_000_000,
                    device.limits().max_storage_buffer_binding_size / 1_000_000
                );
            }
            self.skin.palette_path = wants && fits;
            // The texture path binds a one-entry stand-in at the palette's binding.
            let n = if self.skin.palette_path {
                self.buffers.capacity * entries as u64
            } else {
                1
            };
            self.skin.palette = Some(device.create_buffer(&BufferDescriptor {
                label: Some("throng palette"),
                size: n * PALETTE_ENTRY_BYTES,
                usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }));
            self.motion.prev_palette = None;
            self.bindings.valid = false;
        }
        if self.motion.on && self.skin.palette_path && self.motion.prev_palette.is_none() {
            self.motion.prev_palette = Some(device.create_buffer(&BufferDescriptor {
                label: Some("throng previous palette"),
                size: self.buffers.capacity * entries as u64 * PALETTE_ENTRY_BYTES,
                usage: BufferUsages::STORAGE | BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
            self.motion.prev_palette_fresh = true;
            self.bindings.valid = false;
        }
    }

    /// Makes the draw's bind group of every primitive and the palette pass's, once every
    /// buffer exists (else it tries again next frame).
    fn make_bind_groups(
        &mut self,
        device: &RenderDevice,
        pipeline_cache: &PipelineCache,
        asset: &GpuThrongAsset,
    ) {
        let (Some(_), Some(_), Some(_), Some(_), Some(_)) = (
            &self.buffers.transforms,
            &self.buffers.records,
            &self.skin.palette,
            &self.buffers.clock_buffer,
            &self.skin.job,
        ) else {
            return;
        };
        let Some(groups) = self.draw_groups(device, pipeline_cache, asset) else {
            return;
        };
        self.skin.palette_group = self.palette_pass_group(device, pipeline_cache, asset);
        self.bindings.groups = groups;
        self.bindings.valid = true;
    }

    /// The draw's bind group of each primitive; None until the crowd's buffers exist.
    fn draw_groups(
        &self,
        device: &RenderDevice,
        pipeline_cache: &PipelineCache,
        asset: &GpuThrongAsset,
    ) -> Option<Vec<BindGroup>> {
        let (Some(tb), Some(rb), Some(pal), Some(clock), Some(looks)) = (
            &self.buffers.transforms,
            &self.buffers.records,
            &self.skin.palette,
            &self.buffers.clock_buffer,
            &self.appearances,
        ) else {
            return None;
        };
        let vats = self.vats(asset);
        let layout = pipeline_cache.get_bind_group_layout(&crowd_layout(
            asset.baked.bone_texture.encoding,
            vats.is_some(),
            asset.far.is_some(),
        ));
        let mut groups = Vec::with_capacity(asset.primitives.len());
        for (i, (p, draw)) in asset
            .primitives
            .iter()
            .zip(&self.bindings.draws)
            .enumerate()
        {
            let mut entries = playback_entries(asset, rb, clock).to_vec();
            entries.extend_from_slice(&BindGroupEntries::with_indices((
                (bindings::INSTANCE_TRANSFORMS, tb.as_entire_binding()),
                (bindings::PALETTE, pal.as_entire_binding()),
                (
                    bindings::PREV_TRANSFORMS,
                    self.motion
                        .prev_transforms
                        .as_ref()
                        .unwrap_or(tb)
                        .as_entire_binding(),
                ),
                (
                    bindings::PREV_PALETTE,
                    self.motion
                        .prev_palette
                        .as_ref()
                        .unwrap_or(pal)
                        .as_entire_binding(),
                ),
                (bindings::VISIBLE_IDS, self.cull_ids(tb).as_entire_binding()),
                (bindings::DRAW, draw.as_entire_binding()),
                (bindings::MATERIALS, p.materials.uniform.as_entire_binding()),
                (
                    bindings::BASE_COLOR_LAYERS,
                    BindingResource::TextureView(&p.materials.layers),
                ),
                (bindings::SAMPLER, BindingResource::Sampler(&asset.sampler)),
                (
                    bindings::APPEARANCES,
                    BindingResource::TextureView(&looks.view),
                ),
            )));
            if let Some(v) = vats.and_then(|v| v.get(i)) {
                entries.extend_from_slice(&super::vat::bind_entries(v));
            }
            if let Some(f) = &asset.far {
                entries.extend_from_slice(&super::far::bind_entries(f));
            }
            groups.push(device.create_bind_group("throng crowd", &layout, &entries));
        }
        Some(groups)
    }

    /// The palette pass's bind group (None before its buffers exist).
    fn palette_pass_group(
        &self,
        device: &RenderDevice,
        pipeline_cache: &PipelineCache,
        asset: &GpuThrongAsset,
    ) -> Option<BindGroup> {
        let (Some(rb), Some(pal), Some(clock), Some(job)) = (
            &self.buffers.records,
            &self.skin.palette,
            &self.buffers.clock_buffer,
            &self.skin.job,
        ) else {
            return None;
        };
        let mut entries = playback_entries(asset, rb, clock).to_vec();
        entries.extend_from_slice(&BindGroupEntries::with_indices((
            (bindings::MASKS, asset.masks.as_entire_binding()),
            (bindings::PALETTE, pal.as_entire_binding()),
            (bindings::PALETTE_JOB, job.as_entire_binding()),
            (bindings::VISIBLE_IDS, self.cull_ids(rb).as_entire_binding()),
            (
                bindings::PALETTE_COUNT,
                self.cull
                    .args
                    .as_ref()
                    .filter(|_| self.cull.enabled)
                    .unwrap_or(rb)
                    .as_entire_binding(),
            ),
        )));
        Some(
            device.create_bind_group(
                "throng palette pass",
                &pipeline_cache
                    .get_bind_group_layout(&palette_layout(asset.baked.bone_texture.encoding)),
                &entries,
            ),
        )
    }
}
