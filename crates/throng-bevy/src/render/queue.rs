//! Which crowds each view draws this frame: each palette-path crowd's palette pass pipeline,
//! and one non-mesh `Opaque3d` item per crowd and camera whose frustum its world box meets
//! (the culling and readiness helpers here serve the shadow and prepass queues too).

use bevy::asset::AssetId;
use bevy::camera::primitives::{Aabb, Frustum};
use bevy::core_pipeline::core_3d::{Opaque3d, Opaque3dBatchSetKey, Opaque3dBinKey};
use bevy::math::primitives::ViewFrustum;
use bevy::math::{Affine3A, Mat4, Vec3};
use bevy::mesh::Mesh;
use bevy::pbr::{MeshPipeline, MeshPipelineKey, ViewKeyCache};
use bevy::platform::collections::{HashMap, HashSet};
use bevy::prelude::*;
use bevy::render::mesh::allocator::MeshSlabs;
use bevy::render::render_asset::RenderAssets;
use bevy::render::render_phase::{
    BinnedPhaseItem, BinnedRenderPhase, BinnedRenderPhaseType, DrawFunctions, InputUniformIndex,
    ViewBinnedRenderPhases,
};
use bevy::render::render_resource::{
    CachedComputePipelineId, CachedRenderPipelineId, PipelineCache, PrimitiveTopology,
    SpecializedComputePipelines, SpecializedRenderPipelines,
};
use bevy::render::sync_world::MainEntity;
use bevy::render::view::ExtractedView;

use super::crowd_gpu::{CrowdGpu, CrowdGpus};
use super::draw::{CardPipelines, DrawCrowd};
use super::gpu_asset::GpuThrongAsset;
use super::pipeline::{CrowdKey, PalettePipeline, ThrongPipeline, ThrongPipelineKey, ThrongShader};

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
    if g.buffers.instances == 0 || !g.bindings.valid {
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
            // A culled crowd waits for its culling pass too.
            (!g.cull.enabled || g.cull.ready)
                && (!g.skin.palette_path
                    || palette_ids
                        .0
                        .get(*main)
                        .is_some_and(|&id| pipeline_cache.get_compute_pipeline(id).is_some()))
        })
        .map(|(main, _)| *main)
        .collect()
}

/// What every queue of crowd items (the main pass's, the shadow maps', the prepasses') reads
/// this frame: the crowds, their assets, the crowds whose palette pass can run, and the crowds
/// to take out of each phase before this frame's items go in (Bevy's binned phases keep their
/// items across frames).
pub(crate) struct CrowdQueue<'a> {
    pub gpus: &'a CrowdGpus,
    pub assets: &'a RenderAssets<GpuThrongAsset>,
    pub posed: HashSet<Entity>,
    pub stale: Vec<Entity>,
}

impl CrowdQueue<'_> {
    /// Takes every crowd queued last frame (and every crowd there is) out of `phase`.
    pub fn take_out<P: BinnedPhaseItem>(&self, phase: &mut BinnedRenderPhase<P>) {
        for e in &self.stale {
            phase.remove(MainEntity::from(*e));
        }
    }

    /// Puts into `phase` one non-mesh item per crowd whose world box meets `view`'s frustum
    /// (with its near plane when `near`, see [`box_in_frustum`]) and that `pipeline` gives a
    /// pipeline (specialised, so compiled, for every such crowd: it is called with the crowd's
    /// main-world entity), once its palette pass can run; `keys` makes the item's batch-set and
    /// bin keys of the pipeline. Returns the crowds put in.
    pub fn put_in<P: BinnedPhaseItem>(
        &self,
        phase: &mut BinnedRenderPhase<P>,
        view: &ExtractedView,
        near: bool,
        mut pipeline: impl FnMut(Entity, &CrowdGpu, &GpuThrongAsset) -> Option<CachedRenderPipelineId>,
        keys: impl Fn(CachedRenderPipelineId) -> (P::BatchSetKey, P::BinKey),
    ) -> Vec<Entity> {
        let clip = clip_from_world(view);
        let mut added = Vec::new();
        for (main, g) in &self.gpus.0 {
            // Hidden, or not on the camera's layers (render::cull::queue_culls).
            if g.views.hidden || g.views.excluded_views.contains(&view.retained_view_entity) {
                continue;
            }
            let Some(asset) = crowd_in_view(g, self.assets, &clip, near) else {
                continue;
            };
            let Some(id) = pipeline(*main, g, asset) else {
                continue;
            };
            if !self.posed.contains(main) {
                continue;
            }
            let (batch_set, bin) = keys(id);
            phase.add(
                batch_set,
                bin,
                (g.render_entity, MainEntity::from(*main)),
                InputUniformIndex::default(),
                BinnedRenderPhaseType::NonMesh,
            );
            added.push(*main);
        }
        added
    }
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
    mut cards: ResMut<CardPipelines>,
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
    cards.main.clear();
    cards.dots.clear();
    for (main, g) in &gpus.0 {
        let Some(asset) = assets.get(g.asset) else {
            continue;
        };
        if g.skin.palette_path && g.bindings.valid {
            let key = (
                asset.baked.bone_texture.encoding,
                g.buffers.gpu_timed,
                g.skin.dual_quat,
                g.cull.enabled,
            );
            let id = compute.specialize(&pipeline_cache, palette_pipeline, key);
            palette_ids.0.insert(*main, id);
        }
    }
    let q = CrowdQueue {
        gpus: &gpus,
        assets: &assets,
        posed: posed_crowds(&gpus, &palette_ids, &pipeline_cache),
        stale: queued.0.drain().chain(gpus.0.keys().copied()).collect(),
    };
    for view in &views {
        let Some(phase) = phases.get_mut(&view.retained_view_entity) else {
            continue;
        };
        q.take_out(phase);
        let Some(view_key) = view_keys.get(&view.retained_view_entity).copied() else {
            continue;
        };
        let mesh_key = view_key
            | MeshPipelineKey::from_primitive_topology_and_strip_index(
                PrimitiveTopology::TriangleList,
                None,
            );
        let added = q.put_in(
            phase,
            view,
            true,
            |main, g, asset| {
                let key = ThrongPipelineKey {
                    mesh_key,
                    crowd: CrowdKey::of(g, asset),
                    debug_view: g.views.debug_view,
                };
                let mesh = pipelines.specialize(&pipeline_cache, pipeline, key);
                if let Some(crowd) = CrowdKey::card_of(g, asset) {
                    let card = ThrongPipelineKey { crowd, ..key };
                    let id = pipelines.specialize(&pipeline_cache, pipeline, card);
                    cards.main.insert((main, view.retained_view_entity), id);
                    // The crowd waits for its cards too, rather than showing its near part
                    // first.
                    pipeline_cache.get_render_pipeline(id)?;
                }
                // Points only where the culling pass may list them (one sample a pixel, no
                // prepass, no jitter: `cull::crowd_views`), so other views do not wait for a
                // pipeline they never use.
                let no_points = MeshPipelineKey::DEPTH_PREPASS
                    | MeshPipelineKey::NORMAL_PREPASS
                    | MeshPipelineKey::MOTION_VECTOR_PREPASS
                    | MeshPipelineKey::DEFERRED_PREPASS
                    | MeshPipelineKey::TEMPORAL_JITTER;
                let points = mesh_key.msaa_samples() == 1 && !mesh_key.intersects(no_points);
                if let Some(crowd) = CrowdKey::dot_of(g, asset).filter(|_| points) {
                    let dot = ThrongPipelineKey { crowd, ..key };
                    let id = pipelines.specialize(&pipeline_cache, pipeline, dot);
                    cards.dots.insert((main, view.retained_view_entity), id);
                    pipeline_cache.get_render_pipeline(id)?;
                }
                Some(mesh)
            },
            |id| {
                (
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
                )
            },
        );
        queued.0.extend(added);
    }
}
