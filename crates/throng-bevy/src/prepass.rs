//! Crowds in Bevy's shadow maps and in its depth, normal and motion-vector prepasses.
//!
//! **Mechanism: non-mesh items in Bevy's binned phases.** Bevy's `Shadow` (one phase per light
//! view: a directional light's cascades, a point light's six faces, a spot light) and
//! `Opaque3dPrepass` phases are binned and retained, and take `BinnedRenderPhaseType::NonMesh`
//! items that Bevy draws by calling their draw function, with no mesh-instance processing
//! (the route of Bevy's `custom_phase_item` example). Each frame every crowd's item is taken
//! out of each such phase and put back into those whose view it is in, with a depth pipeline
//! specialised for that view's key: [`CrowdDepthPipeline`], Bevy's prepass bind groups at 0–2
//! and the crowd's group at [`CROWD_GROUP`](crate::render::CROWD_GROUP), drawing
//! `shaders/crowd_prepass.wgsl` with one instanced draw per primitive, as the main pass does.
//! The vertex is placed by the main pass's own function (`throng_bevy::crowd_vertex`), so the
//! prepass depth is the depth the main pass draws at (both positions are `@invariant` when the
//! camera has a prepass), and the shadow is the drawn pose's.
//!
//! Culling: the crowd's world box against the view's frustum; for a directional light's
//! cascade without the near plane, since casters between the light and the cascade are
//! clamped onto it (Bevy's `UNCLIPPED_DEPTH_ORTHO`), not clipped.
//!
//! Motion vectors (a camera with `MotionVectorPrepass`): the previous frame's transforms and,
//! on the palette path, palette are kept by copying the current buffers before they are
//! rewritten (`render::extract_crowds`, `render::dispatch_palettes`); a texture-path crowd
//! keeps no previous pose, so its motion vectors carry the instances' movement but not the
//! animation's. Bevy's deferred G-buffer phases are not fed: a crowd is lit forward in the main
//! pass whatever the camera's mode.

use bevy::asset::{AssetId, Handle};
use bevy::core_pipeline::core_3d::CORE_3D_DEPTH_FORMAT;
use bevy::core_pipeline::prepass::{
    prepass_target_descriptors, Opaque3dPrepass, OpaqueNoLightmap3dBatchSetKey,
    OpaqueNoLightmap3dBinKey,
};
use bevy::ecs::entity::Entity;
use bevy::ecs::system::{Local, Query, Res, ResMut};
use bevy::mesh::Mesh;
use bevy::pbr::{
    LightEntity, LightKeyCache, MeshPipelineKey, PrepassPipeline, SetPrepassViewBindGroup,
    SetPrepassViewEmptyBindGroup, Shadow, ShadowBatchSetKey, ShadowBinKey, ViewKeyPrepassCache,
};
use bevy::platform::collections::HashSet;
use bevy::prelude::Resource;
use bevy::render::mesh::allocator::MeshSlabs;
use bevy::render::render_asset::RenderAssets;
use bevy::render::render_phase::{DrawFunctions, SetItemPipeline, ViewBinnedRenderPhases};
use bevy::render::render_resource::*;
use bevy::render::view::ExtractedView;
use bevy::shader::Shader;

use crate::render::{
    posed_crowds, CardPipelines, CrowdGpu, CrowdGpus, CrowdKey, CrowdQueue, DrawCrowdPrimitives,
    GpuThrongAsset,
};

/// The depth pipeline of crowds in shadow and prepass views: layouts of Bevy's prepass
/// pipeline and throng's crowd group.
#[derive(Resource, Clone)]
pub struct CrowdDepthPipeline {
    pub view_layout_motion_vectors: BindGroupLayoutDescriptor,
    pub view_layout_no_motion_vectors: BindGroupLayoutDescriptor,
    pub empty_layout: BindGroupLayoutDescriptor,
    /// The device clips depth optionally (`DEPTH_CLIP_CONTROL`); without it a directional
    /// light's cascade clamps depth in the shader, as Bevy's prepass does.
    pub depth_clip_control_supported: bool,
    pub shader: Handle<Shader>,
}

impl CrowdDepthPipeline {
    pub fn new(prepass: &PrepassPipeline, shader: Handle<Shader>) -> Self {
        Self {
            view_layout_motion_vectors: prepass.view_layout_motion_vectors.clone(),
            view_layout_no_motion_vectors: prepass.view_layout_no_motion_vectors.clone(),
            empty_layout: prepass.empty_layout.clone(),
            depth_clip_control_supported: prepass.depth_clip_control_supported,
            shader,
        }
    }
}

/// What a crowd depth pipeline varies by: the view's key (Bevy's `LightKeyCache` for a light
/// view, `ViewKeyPrepassCache` for a prepass view) and the crowd's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CrowdDepthKey {
    pub view_key: MeshPipelineKey,
    pub crowd: CrowdKey,
    /// A camera's prepass (not a shadow map): clip positions `@invariant`, as the main
    /// pass's are then, so the main pass's depth test passes on the prepass's depth.
    pub camera: bool,
}

impl SpecializedRenderPipeline for CrowdDepthPipeline {
    type Key = CrowdDepthKey;

    fn specialize(&self, key: CrowdDepthKey) -> RenderPipelineDescriptor {
        let view = key.view_key;
        let normal = view.contains(MeshPipelineKey::NORMAL_PREPASS);
        let motion = view.contains(MeshPipelineKey::MOTION_VECTOR_PREPASS);
        let ortho_light = view.contains(MeshPipelineKey::UNCLIPPED_DEPTH_ORTHO);
        let emulate_unclipped = ortho_light && !self.depth_clip_control_supported;
        let mut defs = key.crowd.shader_defs();
        defs.push("PREPASS_PIPELINE".into());
        for (bit, def) in [
            (MeshPipelineKey::DEPTH_PREPASS, "DEPTH_PREPASS"),
            (MeshPipelineKey::NORMAL_PREPASS, "NORMAL_PREPASS"),
            (
                MeshPipelineKey::MOTION_VECTOR_PREPASS,
                "MOTION_VECTOR_PREPASS",
            ),
        ] {
            if view.contains(bit) {
                defs.push(def.into());
            }
        }
        if motion {
            defs.push("MOTION".into());
        }
        if key.camera {
            defs.push("INVARIANT_POSITION".into());
        }
        if emulate_unclipped {
            defs.push("UNCLIPPED_DEPTH_ORTHO_EMULATION".into());
        }
        let outputs = normal || motion || emulate_unclipped;
        if outputs {
            defs.push("PREPASS_FRAGMENT".into());
        }
        // A camera's prepass keeps the main pass's halves of the far tier's crossfade (a shadow
        // map switches without one).
        let crossfade = key.camera && key.crowd.draws_cards();
        if crossfade {
            defs.push("CROSSFADE".into());
        }
        // A card keeps only the covered part of it, a crossfading mesh its half: a fragment
        // stage.
        let fragment_stage = outputs || key.crowd.card || crossfade;
        let (vertex, fragment, buffers) = key.crowd.entry_points();
        let mut targets = prepass_target_descriptors(normal, motion, false);
        if targets.iter().all(Option::is_none) {
            targets.clear();
        }
        let view_layout = if motion {
            self.view_layout_motion_vectors.clone()
        } else {
            self.view_layout_no_motion_vectors.clone()
        };
        RenderPipelineDescriptor {
            label: Some("throng crowd depth pipeline".into()),
            layout: vec![
                view_layout,
                self.empty_layout.clone(),
                self.empty_layout.clone(),
                key.crowd.layout(),
            ],
            vertex: VertexState {
                shader: self.shader.clone(),
                shader_defs: defs.clone(),
                entry_point: Some(vertex.into()),
                buffers,
            },
            fragment: fragment_stage.then(|| FragmentState {
                shader: self.shader.clone(),
                shader_defs: defs,
                entry_point: Some(fragment.into()),
                targets,
            }),
            primitive: PrimitiveState {
                topology: PrimitiveTopology::TriangleList,
                cull_mode: key.crowd.cull_mode(),
                unclipped_depth: ortho_light && self.depth_clip_control_supported,
                ..Default::default()
            },
            // Bevy's prepass and shadow state: reverse Z, no bias (Bevy biases when it samples
            // the shadow map).
            depth_stencil: Some(DepthStencilState {
                format: CORE_3D_DEPTH_FORMAT,
                depth_write_enabled: Some(true),
                depth_compare: Some(CompareFunction::GreaterEqual),
                stencil: StencilState::default(),
                bias: DepthBiasState::default(),
            }),
            multisample: MultisampleState {
                count: view.msaa_samples(),
                mask: !0,
                alpha_to_coverage_enabled: false,
            },
            ..Default::default()
        }
    }
}

/// The depth draw: Bevy's prepass view group, its empty group twice, then per primitive the
/// crowd's group, buffers and one instanced draw.
pub type DrawCrowdDepth = (
    SetItemPipeline,
    SetPrepassViewBindGroup<0>,
    SetPrepassViewEmptyBindGroup<1>,
    SetPrepassViewEmptyBindGroup<2>,
    DrawCrowdPrimitives<true>,
);

/// What [`queue_crowd_depth`] queued this frame (a render-world resource): the crowds, which
/// it takes out of every phase again next frame before putting this frame's in, and the
/// items it added to light views' shadow phases and to cameras' prepass phases.
#[derive(Resource, Default, Debug)]
pub struct CrowdDepthQueue {
    pub crowds: HashSet<Entity>,
    pub shadow_items: u32,
    pub prepass_items: u32,
}

/// Puts each crowd into the shadow phase of every light view it is in (crowds whose entity has
/// `NotShadowCaster` into none) and into the opaque prepass phase of every camera with a
/// prepass it is in.
#[allow(clippy::too_many_arguments)]
pub(crate) fn queue_crowd_depth(
    (shadow_draws, prepass_draws): (
        Res<DrawFunctions<Shadow>>,
        Res<DrawFunctions<Opaque3dPrepass>>,
    ),
    prepass_pipeline: Res<PrepassPipeline>,
    shader: Res<crate::render::ThrongShader>,
    mut pipeline: Local<Option<CrowdDepthPipeline>>,
    mut pipelines: ResMut<SpecializedRenderPipelines<CrowdDepthPipeline>>,
    mut cards: ResMut<CardPipelines>,
    pipeline_cache: Res<PipelineCache>,
    gpus: Res<CrowdGpus>,
    assets: Res<RenderAssets<GpuThrongAsset>>,
    palette_ids: Res<crate::render::PalettePipelines>,
    (light_keys, prepass_keys): (Res<LightKeyCache>, Res<ViewKeyPrepassCache>),
    mut queued: ResMut<CrowdDepthQueue>,
    mut shadow_phases: ResMut<ViewBinnedRenderPhases<Shadow>>,
    mut prepass_phases: ResMut<ViewBinnedRenderPhases<Opaque3dPrepass>>,
    light_views: Query<(&LightEntity, &ExtractedView)>,
    camera_views: Query<&ExtractedView>,
) {
    let pipeline = pipeline
        .get_or_insert_with(|| CrowdDepthPipeline::new(&prepass_pipeline, shader.depth.clone()));
    let q = CrowdQueue {
        gpus: &gpus,
        assets: &assets,
        posed: posed_crowds(&gpus, &palette_ids, &pipeline_cache),
        stale: queued
            .crowds
            .drain()
            .chain(gpus.0.keys().copied())
            .collect(),
    };
    queued.shadow_items = 0;
    queued.prepass_items = 0;
    cards.depth.clear();
    // The crowd's depth pipeline for the view, and its card pipeline when it draws cards.
    let mut specialize = |view: &ExtractedView,
                          view_key: MeshPipelineKey,
                          (main, g, asset): (Entity, &CrowdGpu, &GpuThrongAsset),
                          camera: bool| {
        let key = |crowd| CrowdDepthKey {
            view_key,
            crowd,
            camera,
        };
        let mesh = pipelines.specialize(&pipeline_cache, pipeline, key(CrowdKey::of(g, asset)));
        if let Some(crowd) = CrowdKey::card_of(g, asset) {
            let id = pipelines.specialize(&pipeline_cache, pipeline, key(crowd));
            cards.depth.insert((main, view.retained_view_entity), id);
            // The crowd waits for its cards too (as in the main pass).
            pipeline_cache.get_render_pipeline(id)?;
        }
        Some(mesh)
    };
    let no_mesh = || AssetId::<Mesh>::invalid().untyped();

    let shadow_draw = shadow_draws.read().id::<DrawCrowdDepth>();
    for (light, view) in &light_views {
        let Some(phase) = shadow_phases.get_mut(&view.retained_view_entity) else {
            continue;
        };
        q.take_out(phase);
        let Some(&view_key) = light_keys.get(&view.retained_view_entity) else {
            continue;
        };
        let near = !matches!(light, LightEntity::Directional { .. });
        let added = q.put_in(
            phase,
            view,
            near,
            |main, g, asset| {
                if g.views.casts_shadows {
                    specialize(view, view_key, (main, g, asset), false)
                } else {
                    None
                }
            },
            |id| {
                let batch_set = ShadowBatchSetKey {
                    pipeline: id,
                    draw_function: shadow_draw,
                    material_bind_group_index: None,
                    slabs: MeshSlabs::default(),
                };
                (
                    batch_set,
                    ShadowBinKey {
                        asset_id: no_mesh(),
                    },
                )
            },
        );
        queued.shadow_items += added.len() as u32;
        queued.crowds.extend(added);
    }

    let prepass_draw = prepass_draws.read().id::<DrawCrowdDepth>();
    for view in &camera_views {
        let Some(phase) = prepass_phases.get_mut(&view.retained_view_entity) else {
            continue;
        };
        q.take_out(phase);
        let Some(&view_key) = prepass_keys.get(&view.retained_view_entity) else {
            continue;
        };
        let added = q.put_in(
            phase,
            view,
            true,
            |main, g, asset| specialize(view, view_key, (main, g, asset), true),
            |id| {
                let batch_set = OpaqueNoLightmap3dBatchSetKey {
                    pipeline: id,
                    draw_function: prepass_draw,
                    material_bind_group_index: None,
                    slabs: MeshSlabs::default(),
                };
                (
                    batch_set,
                    OpaqueNoLightmap3dBinKey {
                        asset_id: no_mesh(),
                    },
                )
            },
        );
        queued.prepass_items += added.len() as u32;
        queued.crowds.extend(added);
    }
}
