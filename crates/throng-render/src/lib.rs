//! throng-render: wgpu renderer of baked throng crowds (docs/design.md §5).
//!
//! Draws per frame = primitives × passes (× LODs where the device lacks first instances),
//! whatever the instance count: instanced, indirect draws after a GPU culling pass. On a device
//! without compute shaders (WebGL2, GL ES 3.0) the [`downlevel`] mode culls on the CPU and draws
//! each (pass, LOD, primitive) with a plain instanced draw (docs/downlevel.md).
//!
//! An embedder needs: [`Renderer`] (a device and the passes; or [`Gpu::from_device`] for an
//! application's own device), [`GpuAsset`] (a baked asset on the GPU), [`Crowd`] + [`Playback`]
//! (instances of one asset with their transforms and CPU- or GPU-timed records — the types of
//! throng-contract, as throng-runtime writes them — and their [`Prop`]s on anchors),
//! [`RenderOptions`], and back [`FrameStats`].
//!
//! Inside, per frame (`passes`): the culling pass per crowd (view frustum and shadow camera,
//! LOD by projected error, indirect arguments), on the palette path the palette pass (each drawn
//! instance's skin matrices blended once), the shadow pass, the main pass (ground and crowds,
//! lit and shadowed); the reference pass draws CPU-skinned vertices the same way. The
//! WGSL programs are composed from named modules ([`shaders`]) with binding numbers from
//! [`bindings`]; [`compute`] runs the shaders' skinning and playback on chosen inputs for tests
//! against the CPU twins.
//!
//! Units are the asset's file units (metres per glTF), seconds, radians; matrices column-major
//! on the Rust side; model space = the glTF scene root's space.

pub mod appearance;
pub mod bindings;
pub mod camera;
pub mod compute;
mod crowd;
mod data_texture;
pub mod device;
pub mod downlevel;
mod error;
mod formats;
mod frame;
pub mod gpu_asset;
pub mod gpu_types;
mod graph_events;
pub mod graph_pass;
mod layouts;
pub mod light;
mod material;
mod options;
mod passes;
mod pipelines;
mod prop;
mod readback;
mod renderer;
mod scatter;
pub mod shaders;
mod static_mesh;
mod target;
mod upload;
mod variants;
mod vat;

pub use appearance::{AppearanceUpload, CrowdAppearance};
pub use camera::Camera;
pub use crowd::{Crowd, CrowdUpload, LivePose, Playback, RecordUpdate};
pub use device::{AdapterSummary, DeviceError, Gpu};
pub use error::RenderError;
pub use frame::{FrameStats, RenderedFrame};
pub use gpu_asset::GpuAsset;
pub use options::{
    DebugView, RenderOptions, ShadowLod, SkinPath, COLOR_FORMAT, DEFAULT_COLOR, DEFAULT_FAR_FADE,
    DEPTH_FORMAT, MOTION_FORMAT, MOTION_VIEW_PIXELS,
};
pub use passes::cull::{CullLists, ROW_PAD};
pub use passes::palette::{palette_bytes, PALETTE_ENTRY_BYTES};
pub use passes::reference::{DecodedMeshes, ReferenceMesh};
pub use prop::{GpuProp, Prop, PropMesh};
pub use renderer::{render_png, Palettes, Renderer};
pub use shaders::{Program, ShaderError};
pub use target::{texture_2d, MotionImage};
/// The per-instance contract, as the renderer reads it (throng-contract's types).
pub use throng_contract::{
    Appearance, AppearanceChanges, Encoding, GpuInstanceRecord, GpuRecordWrite, InstanceRecord,
    InstanceTransform, Layer, Records, SkinMatrix, Skinning, Timing,
};

/// The `image` crate the renderer returns pictures in (so callers need no separate dependency).
pub use image;
