//! The render world: crowds drawn inside Bevy's main 3D pass.
//!
//! **Mechanism: non-mesh items in Bevy's opaque phase with a specialized render pipeline**
//! (the route of Bevy's `custom_phase_item` example). Each visible crowd is one
//! `BinnedRenderPhaseType::NonMesh` item in each camera's `Opaque3d` phase, drawn with Bevy's
//! opaque meshes (so before transparent ones, which blend over it as over any opaque mesh);
//! its draw command binds the crowd's buffers and issues one `draw_indexed` per primitive with
//! `instances = 0..n`, so draws per frame = primitives, whatever n. Bevy's binned phases keep
//! their items across frames, so each frame [`queue_crowds`] takes every crowd out of them and
//! puts the visible ones back ([`QueuedCrowds`]). The
//! pipeline is `MeshPipeline::specialize` for the view's key (so every view shader def Bevy's
//! PBR functions need — lights, shadow filtering, tonemapping, fog, MSAA — is set as for
//! Bevy's own meshes) with throng's vertex layout, bind group and shader swapped in.
//!
//! **Skinning: the palette path** (docs/design.md §5 "Skinning paths"). Before Bevy's render
//! graph runs, each crowd's palette pass — a compute dispatch of throng's `throng::pose`, one
//! invocation per (instance, palette entry) — writes every instance's blended skin matrices
//! into the crowd's palette buffer ([`dispatch_palettes`]); the vertex stage then reads one
//! matrix per influence (`throng::skin` with def `PALETTE`), as Bevy's own skinning reads
//! its joint matrices, instead of fetching and blending 2 frames × 4 layers per influence
//! from the bone texture. A crowd whose palette would exceed the device's storage-binding
//! limit (entries × capacity × 48 B, the capacity being the instance count rounded up to a
//! power of two; a million Fox instances need 1.2 GB, past wgpu's default 128 MiB and most
//! devices' limits) is drawn on the texture path instead, with a warning: the same
//! `throng::skin` without `PALETTE`, straight from the bone texture. Both are throng's shared
//! WGSL modules (`throng_asset::gpu`), composed by Bevy's naga_oil with the plugin's group and
//! binding numbers ([`bindings`]).
//!
//! Why not a material extension or Bevy's own mesh path: those draw one `Mesh` per entity
//! through Bevy's mesh uniforms and batching, and a skinned vertex would go through Bevy's
//! joint-matrix skinning; throng needs its own per-instance storage buffers, its own vertex
//! streams (8 influences as u16 + unorm16) and no entity per instance. (Until this version
//! the crowd was a `Transparent3d` item, sorted by its box's centre: a transparent object
//! farther than that centre but in front of some instances was drawn first and then
//! overdrawn.)
//!
//! Shadow maps and the depth, normal and motion-vector prepasses: [`crate::prepass`]. The
//! vertex stage of every pass is one WGSL function (`throng_bevy::crowd_vertex`).
//!
//! One job per module: `bindings` (group and binding numbers, their shader defs), `formats`
//! (throng-asset's API-free texel formats and vertex stream as Bevy's types), `layouts` (the
//! bind group layouts), `gpu_asset` (the baked asset as a render asset), `textures` (its
//! textures as 2D arrays), `crowd_state` (a crowd's render-world state, one struct per
//! feature), `crowd_gpu` (a crowd's state as one value, and the extract system that writes its
//! buffers), `bind_groups` (uniforms, palette sizing, bind groups), `pipeline` (the main and palette pipelines and [`CrowdKey`]), `vat`
//! (the VAT path's textures, layout entries and bind group entries),
//! `queue` (the `Opaque3d` items and the culling helpers), `palette` (the palette passes'
//! dispatches), `draw` (the draw command), `cull` (per-instance culling and LOD),
//! `cull_readback` (reading its lists back, for tests and tools), `debug_view` (the crowd's
//! debug views, [`ThrongDebugView`]).
//!
//! Skinning is linear blend skinning or, for a crowd asking for it with a `quat-*` bone
//! texture, dual quaternions (the `DUAL_QUAT` def of the shared modules, in the palette pass
//! and the vertex stage alike). An asset baked with vertex animation textures can instead be
//! drawn from them (`SkinPath::Vat`, [`vat`]: the `VAT` def of `throng_bevy::crowd_vertex`, in
//! every pass; no palette pass).
//!
//! Per-instance culling and LOD ([`cull`]): each instance against each view that may draw the
//! crowd, with throng's shared culling rules (`throng::cull`), compacted into per-(view, LOD)
//! lists drawn with one indirect draw per primitive and LOD; the palette pass then poses only
//! the listed instances. Without it (`ThrongCull::per_instance` false, or a device without
//! indirect first instances) the crowd's world box is culled against each view's frustum and
//! every instance drawn at LOD 0. With a far tier ([`far`]) the last level's instances are
//! cards, drawn after the meshes from the same lists with the pass's card pipeline.

pub mod appearance;
mod bind_groups;
pub mod bindings;
mod crowd_gpu;
pub mod crowd_state;
pub mod cull;
pub mod cull_readback;
mod cull_state;
mod debug_view;
mod draw;
pub mod far;
mod formats;
mod gpu_asset;
pub mod graph_step;
mod layouts;
pub mod materials;
mod palette;
mod pipeline;
mod queue;
mod textures;
pub mod vat;

pub use bind_groups::palette_fits;
pub(crate) use bind_groups::prepare_crowd_bind_groups;
pub use bindings::{CROWD_GROUP, PALETTE_GROUP};
pub(crate) use crowd_gpu::extract_crowds;
pub use crowd_gpu::{CrowdGpu, CrowdGpus};
pub use cull::ThrongCull;
pub use debug_view::ThrongDebugView;
pub use draw::{CardPipelines, DrawCrowd, DrawCrowdPrimitives};
pub use formats::{vertex_layout, VERTEX_BYTES};
pub use gpu_asset::{DrawParams, GpuPrimitive, GpuThrongAsset};
pub use layouts::{crowd_layout, palette_layout};
pub(crate) use palette::dispatch_palettes;
pub use pipeline::{
    CrowdKey, PaletteKey, PalettePipeline, ThrongPipeline, ThrongPipelineKey, ThrongShader,
};
pub use queue::{box_in_frustum, clip_from_world, PalettePipelines, QueuedCrowds};
pub(crate) use queue::{posed_crowds, queue_crowds, CrowdQueue};
