//! throng in Bevy 0.19: baked crowds played by throng-runtime and drawn by Bevy's renderer.
//!
//! ```ignore
//! App::new().add_plugins((DefaultPlugins, ThrongPlugin));
//! // a system:
//! let fox = asset_server.load::<ThrongAsset>("fox.throng.glb");
//! let crowd = commands.spawn(ThrongCrowd::new(fox, Timing::Cpu)).id();
//! let walk = 1; // a clip index of the baked clip table (`throng inspect` lists them)
//! for i in 0..10_000 {
//!     // commands given before the asset has loaded apply once it has
//!     let mut playback = ThrongPlayback::default();
//!     playback.play(walk);
//!     commands.spawn((ThrongInstance { crowd }, playback, Transform::from_xyz(x, 0.0, z)));
//! }
//! // per-instance appearance: tinted green, primitive 1 hidden (no pixels, no shadow), the
//! // asset's first material variant, prop 0 hidden
//! let look = ThrongAppearance::default().with_tint([80, 255, 80, 255]).with_parts(!0b10);
//! let look = look.with_variant(1).with_props(!0b1);
//! let fox = commands.spawn((ThrongInstance { crowd }, look, Transform::default())).id();
//! // a hat on the head anchor, shown while the instance's prop bit 0 is set
//! commands.spawn((ThrongAnchor::new("head"), ThrongPropBit(0), ChildOf(fox)));
//! ```
//!
//! What runs where:
//! - **Main world, `PostUpdate` after transform propagation** ([`ThrongSystems`]): the crowd's
//!   runtime is created when its asset has loaded; new [`ThrongInstance`] entities are spawned
//!   into it, despawned ones removed, moved ones (changed `GlobalTransform`) moved;
//!   [`ThrongPlayback`] commands are applied; changed [`ThrongAppearance`]s (tint, part
//!   mask, material variant, prop mask: [`appearance`]) are written into the crowd's appearances; the runtime advances by the frame's time
//!   (CPU-timed: every 64 B record rewritten; GPU-timed: only changed 56 B records, listed
//!   for the render world, which copies just those into its record buffer; the list is
//!   cleared in `First`); clip
//!   events become [`ThrongEvent`] messages; CPU-timed, root motion moves the instances and
//!   their entities' `Transform`; [`ThrongAnchor`] children and [`ThrongProp`] entities
//!   follow their anchor, and those with a [`ThrongPropBit`] are shown or hidden by their
//!   instance's prop mask.
//! - **Extract**: transforms (when changed), records and changed appearances are written from the runtime's slices
//!   straight into GPU buffers.
//! - **Render world**: the baked asset is a render asset (bone texture, clip table, masks,
//!   vertex and index buffers). Each frame, before Bevy's render graph, each crowd's culling
//!   pass (one compute dispatch, [`ThrongCull`]) lists the instances each view sees and their
//!   LOD, and its palette pass (one indirect dispatch) writes the blended skin matrices of the
//!   instances some view draws; each visible crowd is then one non-mesh item in each camera's
//!   `Opaque3d` phase, drawn with one indirect draw per primitive and LOD whose vertex stage
//!   reads one matrix per influence, and one in
//!   the `Shadow` phase of each light view and the `Opaque3dPrepass` phase of each camera
//!   with a prepass that it is in (so it casts Bevy's shadows and is in its depth, normal and
//!   motion-vector prepasses). The programs are throng's shared WGSL modules
//!   (`throng_asset::gpu`: `throng::pose`, `throng::skin`, …, the same text throng-render
//!   composes); the fragment shader lights with Bevy's PBR functions. See [`render`] and
//!   [`prepass`] for the mechanism, the texture-path fallback and what is not done.
//!
//! Skinning choices, per crowd: [`SkinPath`] (`ThrongCrowd::with_skin_path`: the palette path,
//! the texture path, or the VAT path for an asset baked with vertex animation textures, see
//! [`render::vat`] for what each costs) and `ThrongCrowd::with_skinning` (dual quaternions).
//!
//! Per crowd entity, [`ThrongCull`] (per-instance culling and LODs, on by default; LOD meshes
//! come from `throng bake --lod`; an asset baked with `--far-tier` draws the instances whose
//! tile texel covers at most `lod_bias` pixels as one card each, [`render::far`]) and [`ThrongDebugView`] (`Normals`: the world-space normal
//! as colour, unlit, as throng-render's `DebugView::Normals` writes it — with the camera's
//! `Tonemapping::None` and `DebandDither::Disabled` the two renderers' pictures compare pixel
//! for pixel).
//!
//! Units and spaces: instance transforms are world space; the baked data is in the file's
//! units (glTF: metres, though Fox.glb is modelled in centimetres); times in seconds.
//! Bevy's glam (0.32) and throng's (0.34) meet only in [`crowd::instance_transform`] and
//! [`crowd::bevy_mat4`], through column arrays.

pub mod appearance;
pub mod asset;
pub mod crowd;
pub mod graph;
mod graph_gpu;
pub mod messages;
pub mod prepass;
pub mod render;

use bevy::asset::{AssetApp, Handle};
use bevy::core_pipeline::core_3d::Opaque3d;
use bevy::core_pipeline::prepass::Opaque3dPrepass;
use bevy::pbr::Shadow;
use bevy::prelude::*;
use bevy::render::render_asset::RenderAssetPlugin;
use bevy::render::render_phase::AddRenderCommand;
use bevy::render::render_resource::{SpecializedComputePipelines, SpecializedRenderPipelines};
use bevy::render::{ExtractSchedule, Render, RenderApp, RenderSystems};
use bevy::shader::Shader;
use bevy::transform::TransformSystems;

pub use appearance::{Appearance, ThrongAppearance, ThrongPropBit};
pub use asset::{from_baked, ThrongAsset, ThrongAssetLoader, ThrongLoadError};
pub use crowd::{
    PlaybackCommand, SkinPath, ThrongAnchor, ThrongCrowd, ThrongHandle, ThrongInstance,
    ThrongPlayback, ThrongProp, Uploaded,
};
pub use graph::{GraphOn, GraphSource, ParamValue, ThrongParams};
pub use messages::{ThrongEvent, ThrongFinished, ThrongStateEvent};
pub use render::{ThrongCull, ThrongDebugView};
pub use throng_contract::names::Timing;
/// The runtime a crowd plays in (either timing) and its calls, as every throng front end uses
/// them.
pub use throng_runtime::{PlayOptions, PlaybackControl, Runtime};

/// `throng_bevy::crowd_vertex`: a crowd vertex skinned and placed in the world, the one
/// function the main pass and the shadow and prepass passes share.
pub const CROWD_VERTEX_WGSL: &str = include_str!("../shaders/crowd_vertex.wgsl");

/// `throng_bevy::crowd_material`: a primitive's draw uniform, material slots (own material and
/// material variants, `throng::material`) and base colour texture array, as the main pass reads
/// them.
pub const CROWD_MATERIAL_WGSL: &str = include_str!("../shaders/crowd_material.wgsl");

/// `throng_bevy::crowd_appearance`: the instance's appearance (tint, parts) as every pass
/// reads it (imports `throng_bevy::crowd_material`).
pub const CROWD_APPEARANCE_WGSL: &str = include_str!("../shaders/crowd_appearance.wgsl");

/// `throng_bevy::crowd_far`: a far-tier card as every pass places and shows it
/// (`render::far`; imports `throng::far` and `throng_bevy::crowd_appearance`).
pub const CROWD_FAR_WGSL: &str = include_str!("../shaders/crowd_far.wgsl");

/// The plugin's main-world systems, in `PostUpdate` after `TransformSystems::Propagate` (a
/// graph stepped on the GPU has its frame's step queued later, in `Last`, outside this set, so
/// the step holds every spawn, despawn and parameter change of the frame).
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
pub struct ThrongSystems;

/// Adds the asset loader, the crowd systems and the crowd renderer. Needs Bevy's
/// `DefaultPlugins` (or asset, render, core 3D and PBR plugins) added first. Without a
/// `RenderApp` (headless ECS tests) only the main-world part is added.
#[derive(Default)]
pub struct ThrongPlugin;

/// The crowd's shaders (main pass, palette pass, shadow and prepass depth) and the WGSL
/// modules they import (throng's, `throng_bevy::crowd_vertex` and `crowd_material`), kept
/// alive as Bevy shader assets.
#[derive(Resource)]
pub struct ThrongShaders {
    pub crowd: Handle<Shader>,
    pub palette: Handle<Shader>,
    pub depth: Handle<Shader>,
    /// Per-instance culling (`render::cull`).
    pub cull: Handle<Shader>,
    /// Graph crowds stepped on the GPU (`render::graph_step`).
    pub graph_step: Handle<Shader>,
    pub modules: Vec<Handle<Shader>>,
}

impl Plugin for ThrongPlugin {
    fn build(&self, app: &mut App) {
        app.init_asset::<ThrongAsset>()
            .init_asset_loader::<ThrongAssetLoader>()
            .add_message::<ThrongEvent>()
            .add_message::<ThrongFinished>()
            .add_message::<ThrongStateEvent>()
            .init_resource::<crowd::InstanceIndex>()
            .add_systems(
                First,
                (
                    appearance::clear_appearance_changes,
                    crowd::clear_record_changes,
                ),
            )
            .configure_sets(PostUpdate, ThrongSystems.after(TransformSystems::Propagate))
            .add_systems(Last, crowd::queue_graph_steps)
            .add_systems(
                PostUpdate,
                (
                    crowd::init_crowds,
                    crowd::despawn_instances,
                    crowd::spawn_instances,
                    crowd::apply_playback,
                    crowd::apply_params,
                    appearance::apply_appearances,
                    crowd::sync_transforms,
                    crowd::advance_crowds,
                    crowd::follow_root_motion,
                    crowd::follow_anchors,
                    crowd::follow_props,
                    appearance::show_props,
                )
                    .chain()
                    .in_set(ThrongSystems),
            );
        if app.get_sub_app(RenderApp).is_none() {
            return;
        }
        app.add_plugins(RenderAssetPlugin::<render::GpuThrongAsset>::default());
        let Some(render_app) = app.get_sub_app_mut(RenderApp) else {
            return;
        };
        render_app
            .init_resource::<render::CrowdGpus>()
            .init_resource::<SpecializedRenderPipelines<render::ThrongPipeline>>()
            .init_resource::<SpecializedComputePipelines<render::PalettePipeline>>()
            .init_resource::<render::PalettePipelines>()
            .init_resource::<SpecializedComputePipelines<render::cull::CullPipeline>>()
            .init_resource::<render::cull::CullPipelineIds>()
            .init_resource::<render::graph_step::GraphGpus>()
            .init_resource::<render::graph_step::GraphPipelines>()
            .init_resource::<SpecializedRenderPipelines<prepass::CrowdDepthPipeline>>()
            .init_resource::<prepass::CrowdDepthQueue>()
            .init_resource::<render::QueuedCrowds>()
            .init_resource::<render::CardPipelines>()
            .add_render_command::<Opaque3d, render::DrawCrowd>()
            .add_render_command::<Shadow, prepass::DrawCrowdDepth>()
            .add_render_command::<Opaque3dPrepass, prepass::DrawCrowdDepth>()
            .add_systems(
                ExtractSchedule,
                (render::extract_crowds, render::graph_step::extract_graphs).chain(),
            )
            .add_systems(
                Render,
                (
                    (
                        render::cull::queue_culls,
                        render::queue_crowds,
                        prepass::queue_crowd_depth,
                    )
                        .chain()
                        .in_set(RenderSystems::QueueMeshes),
                    (
                        render::cull::prepare_culls,
                        render::prepare_crowd_bind_groups,
                        render::graph_step::step_graphs,
                        render::dispatch_palettes,
                        render::cull_readback::read_back_culls,
                    )
                        .chain()
                        .in_set(RenderSystems::PrepareBindGroups),
                    render::graph_step::take_graph_events.in_set(RenderSystems::Cleanup),
                ),
            );
    }

    fn finish(&self, app: &mut App) {
        if app.get_sub_app(RenderApp).is_none() {
            return;
        }
        let Some(mut shaders) = app.world_mut().get_resource_mut::<Assets<Shader>>() else {
            return;
        };
        // throng's WGSL modules, registered by their #define_import_path so the crowd
        // shaders' #imports find them: the contract's (throng::constants, throng::playback,
        // throng::live) and throng-asset's shared skinning modules (throng::decode, bone,
        // instances, palette, skin, pose) — the same text throng-render composes.
        let mut modules: Vec<Handle<Shader>> = throng_contract::wgsl::modules()
            .into_iter()
            .chain(throng_asset::gpu::wgsl_modules())
            .map(|m| shaders.add(Shader::from_wgsl(m.source, m.file)))
            .collect();
        modules.push(shaders.add(Shader::from_wgsl(
            CROWD_VERTEX_WGSL,
            "crates/throng-bevy/shaders/crowd_vertex.wgsl",
        )));
        modules.push(shaders.add(Shader::from_wgsl(
            CROWD_MATERIAL_WGSL,
            "crates/throng-bevy/shaders/crowd_material.wgsl",
        )));
        modules.push(shaders.add(Shader::from_wgsl(
            CROWD_APPEARANCE_WGSL,
            "crates/throng-bevy/shaders/crowd_appearance.wgsl",
        )));
        modules.push(shaders.add(Shader::from_wgsl(
            CROWD_FAR_WGSL,
            "crates/throng-bevy/shaders/crowd_far.wgsl",
        )));
        let crowd = shaders.add(Shader::from_wgsl(
            include_str!("../shaders/crowd.wgsl"),
            "crates/throng-bevy/shaders/crowd.wgsl",
        ));
        let (palette_file, palette_source) = throng_asset::gpu::PALETTE_PASS;
        let palette = shaders.add(Shader::from_wgsl(palette_source, palette_file));
        let depth = shaders.add(Shader::from_wgsl(
            include_str!("../shaders/crowd_prepass.wgsl"),
            "crates/throng-bevy/shaders/crowd_prepass.wgsl",
        ));
        let cull = shaders.add(Shader::from_wgsl(
            include_str!("../shaders/crowd_cull.wgsl"),
            "crates/throng-bevy/shaders/crowd_cull.wgsl",
        ));
        let (graph_file, graph_source) = throng_contract::wgsl::GRAPH_STEP_PASS;
        let graph_step = shaders.add(Shader::from_wgsl(graph_source, graph_file));
        app.insert_resource(ThrongShaders {
            crowd: crowd.clone(),
            palette: palette.clone(),
            depth: depth.clone(),
            cull: cull.clone(),
            graph_step: graph_step.clone(),
            modules,
        });
        if let Some(render_app) = app.get_sub_app_mut(RenderApp) {
            render_app.insert_resource(render::cull::CullShader(cull));
            render_app.insert_resource(render::graph_step::GraphStepShader(graph_step));
            render_app.insert_resource(render::ThrongShader {
                draw: crowd,
                palette,
                depth,
            });
        }
    }
}
