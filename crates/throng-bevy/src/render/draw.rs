//! The crowd's draw command: per primitive the crowd's bind group, its buffers and one
//! instanced draw over every instance — or, culled per instance, one indirect draw per mesh LOD
//! of the view's lists (`render::cull`), then the far tier's cards of the view's far list with
//! the card pipeline of the pass ([`CardPipelines`], `render::far`) — (the main pass's, and
//! with Bevy's prepass view groups the shadow and prepass draws').

use std::ops::Range;

use bevy::ecs::entity::Entity;
use bevy::ecs::resource::Resource;
use bevy::ecs::system::lifetimeless::SRes;
use bevy::ecs::system::SystemParamItem;
use bevy::pbr::{
    SetMeshViewBindGroup, SetMeshViewBindingArrayBindGroup, SetMeshViewEmptyBindGroup,
};
use bevy::platform::collections::HashMap;
use bevy::render::render_asset::RenderAssets;
use bevy::render::render_phase::{
    PhaseItem, RenderCommand, RenderCommandResult, SetItemPipeline, TrackedRenderPass,
};
use bevy::render::render_resource::{CachedRenderPipelineId, IndexFormat, PipelineCache};
use bevy::render::view::{ExtractedView, RetainedViewEntity};

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
    DrawCrowdPrimitives<false>,
);

/// The card pipeline each crowd draws its far tier with in each view this frame, specialised
/// for the view's key by the pass's queue: `main` the cameras' main passes
/// (`render::queue_crowds`), `depth` the shadow maps and prepasses (`crate::prepass`), `dots`
/// the cameras' main passes' one-pixel cards (a point list; `ThrongCull::far_dots`).
#[derive(Resource, Default)]
pub struct CardPipelines {
    pub main: HashMap<(Entity, RetainedViewEntity), CachedRenderPipelineId>,
    pub depth: HashMap<(Entity, RetainedViewEntity), CachedRenderPipelineId>,
    pub dots: HashMap<(Entity, RetainedViewEntity), CachedRenderPipelineId>,
}

/// The crowd's draws in a pass: `DEPTH` the shadow and prepass draws (their card pipelines are
/// [`CardPipelines::depth`]).
pub struct DrawCrowdPrimitives<const DEPTH: bool>;

impl<P: PhaseItem, const DEPTH: bool> RenderCommand<P> for DrawCrowdPrimitives<DEPTH> {
    type Param = (
        SRes<CrowdGpus>,
        SRes<RenderAssets<GpuThrongAsset>>,
        SRes<CardPipelines>,
        SRes<PipelineCache>,
    );
    type ViewQuery = &'static ExtractedView;
    type ItemQuery = ();

    fn render<'w>(
        item: &P,
        view: &'w ExtractedView,
        _entity: Option<()>,
        (gpus, assets, cards, cache): SystemParamItem<'w, '_, Self::Param>,
        pass: &mut TrackedRenderPass<'w>,
    ) -> RenderCommandResult {
        let (gpus, assets) = (gpus.into_inner(), assets.into_inner());
        let (cards, cache) = (cards.into_inner(), cache.into_inner());
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
        // The far tier's cards: the view's far list with the pass's card pipeline, once it has
        // compiled (until then the far list is not drawn).
        let key = (item.main_entity().id(), view.retained_view_entity);
        let pipelines = if DEPTH { &cards.depth } else { &cards.main };
        let card = pipelines
            .get(&key)
            .and_then(|&id| cache.get_render_pipeline(id));
        if let (Some(far), Some(pipeline), Some((args, offset)), Some(bg)) = (
            &asset.far,
            card,
            g.cull.card_draw(&view.retained_view_entity),
            g.bindings.groups.first(),
        ) {
            pass.set_render_pipeline(pipeline);
            pass.set_bind_group(CROWD_GROUP as usize, bg, &[]);
            pass.set_index_buffer(far.card_indices.slice(..), IndexFormat::Uint32);
            pass.draw_indexed_indirect(args, offset);
        }
        // The main pass's one-pixel cards: one point per card (the culling pass lists them
        // only for views that draw them, `CullView::dots`).
        let dot = (!DEPTH)
            .then(|| cards.dots.get(&key))
            .flatten()
            .and_then(|&id| cache.get_render_pipeline(id));
        if let (Some(pipeline), Some((args, offset)), Some(bg)) = (
            dot,
            g.cull.dot_draw(&view.retained_view_entity),
            g.bindings.groups.first(),
        ) {
            pass.set_render_pipeline(pipeline);
            pass.set_bind_group(CROWD_GROUP as usize, bg, &[]);
            pass.draw_indirect(args, offset);
        }
        RenderCommandResult::Success
    }
}
