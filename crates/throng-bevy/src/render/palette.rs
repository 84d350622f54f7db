//! The palette passes: each frame, before Bevy's render graph, one compute dispatch per
//! palette-path crowd writes every instance's blended skin matrices into its palette buffer.

use bevy::prelude::*;
use bevy::render::render_asset::RenderAssets;
use bevy::render::render_resource::{
    CommandEncoderDescriptor, ComputePassDescriptor, PipelineCache,
};
use bevy::render::renderer::{RenderDevice, RenderQueue};
use throng_asset::gpu::{palette_workgroups, PALETTE_ENTRY_BYTES};

use super::bindings::PALETTE_GROUP;
use super::crowd_gpu::CrowdGpus;
use super::gpu_asset::GpuThrongAsset;
use super::queue::PalettePipelines;

/// Runs every palette-path crowd's palette pass: one compute dispatch per crowd, submitted to
/// the queue after the frame's buffer writes and before Bevy's render graph, whose draws read
/// the palettes (queue order makes the writes visible to them). Every crowd is posed once a
/// frame, whatever the number of views.
#[allow(clippy::too_many_arguments)]
pub(crate) fn dispatch_palettes(
    mut gpus: ResMut<CrowdGpus>,
    palette_ids: Res<PalettePipelines>,
    cull_ids: Res<super::cull::CullPipelineIds>,
    pipeline_cache: Res<PipelineCache>,
    assets: Res<RenderAssets<GpuThrongAsset>>,
    device: Res<RenderDevice>,
    queue: Res<RenderQueue>,
) {
    let mut encoder = None;
    for (main, g) in gpus.0.iter_mut() {
        // Per-instance culling first: the palette pass then poses only its palette list.
        let mut culled = false;
        if let (true, Some(asset)) = (g.cull.enabled && g.bindings.valid, assets.get(g.asset)) {
            let encoder = encoder.get_or_insert_with(|| {
                device.create_command_encoder(&CommandEncoderDescriptor {
                    label: Some("throng palette passes"),
                })
            });
            let inputs = (&*cull_ids, &*pipeline_cache, &*device);
            culled = super::cull::encode_cull(main, g, asset, inputs, encoder);
        }
        let (Some(&id), Some(group), Some(asset)) = (
            palette_ids.0.get(main),
            &g.skin.palette_group,
            assets.get(g.asset),
        ) else {
            continue;
        };
        if g.buffers.instances == 0 || !g.bindings.valid || !g.skin.palette_path {
            continue;
        }
        let Some(pipeline) = pipeline_cache.get_compute_pipeline(id) else {
            continue;
        };
        let invocations =
            g.buffers.instances as u64 * asset.baked.bone_texture.entries.max(1) as u64;
        let (x, y) = palette_workgroups(invocations);
        let encoder = encoder.get_or_insert_with(|| {
            device.create_command_encoder(&CommandEncoderDescriptor {
                label: Some("throng palette passes"),
            })
        });
        // Motion vectors: last frame's palette becomes the previous one before it is
        // overwritten (on the previous palette's first frame, this frame's, so no motion).
        let copy = match (&g.skin.palette, &g.motion.prev_palette) {
            (Some(pal), Some(prev)) => Some((pal, prev, invocations * PALETTE_ENTRY_BYTES)),
            _ => None,
        };
        if let (Some((pal, prev, bytes)), false) = (copy, g.motion.prev_palette_fresh) {
            encoder.copy_buffer_to_buffer(pal, 0, prev, 0, bytes);
        }
        {
            let mut pass = encoder.begin_compute_pass(&ComputePassDescriptor {
                label: Some("throng palette pass"),
                timestamp_writes: None,
            });
            pass.set_pipeline(pipeline);
            pass.set_bind_group(PALETTE_GROUP, group, &[]);
            match (culled, &g.cull.args) {
                (true, Some(args)) => {
                    pass.dispatch_workgroups_indirect(args, g.cull.dispatch_offset())
                }
                // A culled crowd whose culling did not run draws nothing this frame.
                _ if g.cull.enabled => {}
                _ => pass.dispatch_workgroups(x, y, 1),
            }
        }
        if let (Some((pal, prev, bytes)), true) = (copy, g.motion.prev_palette_fresh) {
            encoder.copy_buffer_to_buffer(pal, 0, prev, 0, bytes);
            g.motion.prev_palette_fresh = false;
        }
    }
    if let Some(encoder) = encoder {
        queue.submit([encoder.finish()]);
    }
}
