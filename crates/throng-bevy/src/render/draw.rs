//! The crowd's draw command: per primitive the crowd's bind group, its buffers and one
//! instanced draw over every instance — or, culled per instance, one indirect draw per LOD of
//! the view's lists (`render::cull`) — (the main pass's, and with Bevy's prepass view groups
//! the shadow and prepass draws').

use std::ops::Range;

use bevy::ecs::system::lifetimeless::SRes;
use bevy::ecs::system::SystemParamItem;
use bevy::pbr::{
    SetMeshViewBindGroup, SetMeshViewBindingArrayBindGroup, SetMeshViewEmptyBindGroup,
};
use bevy::render::render_asset::RenderAssets;
use bevy::render::render_phase::{
    PhaseItem, RenderCommand, RenderCommandResult, SetItemPipeline, TrackedRenderPass,
};
use bevy::render::render_resource::IndexFormat;
use bevy::render::view::ExtractedView;

use super::bindings::CROWD_GROUP;
use super::crowd_gpu::CrowdGpus;
use super::gpu_asset::GpuThrongAsset;

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
    type ViewQuery = &'static ExtractedView;
    type ItemQuery = ();

    fn render<'w>(
        item: &P,
        view: &'w ExtractedView,
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
        let instances: Range<u32> = 0..g.buffers.instances;
        for (i, (p, bg)) in asset.primitives.iter().zip(&g.bindings.groups).enumerate() {
            pass.set_bind_group(CROWD_GROUP as usize, bg, &[]);
            pass.set_vertex_buffer(0, p.vertices.slice(..));
            pass.set_index_buffer(p.indices.slice(..), IndexFormat::Uint32);
            if !g.cull.enabled {
                pass.draw_indexed(0..p.index_count, 0, instances.clone());
                continue;
            }
            // Culled: the view's list of each LOD, as the culling pass counted it (a view the
            // pass did not list draws nothing of the crowd).
            let Some((args, offsets)) = g.cull.view_draws(&view.retained_view_entity, i as u32)
            else {
                return RenderCommandResult::Skip;
            };
            for offset in offsets {
                pass.draw_indexed_indirect(args, offset);
            }
        }
        RenderCommandResult::Success
    }
}
