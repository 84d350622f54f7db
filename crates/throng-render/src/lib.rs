//! throng-render: wgpu renderer of baked throng crowds (DESIGN.md §5).
//!
//! Draws per frame = primitives × LODs × passes (+ ground), whatever the instance count: one
//! instanced, indirect draw per primitive, LOD and pass after a GPU culling pass.
//!
//! - [`device`]: headless device on any adapter (Mesa's lavapipe on machines without a GPU), with
//!   a typed error naming what to install.
//! - [`shaders`]: WGSL modules (`shaders/*.wgsl`) composed by concatenation per program: the
//!   decoders of every bone-texture encoding, frame interpolation clamped into the clip, layer
//!   blending on matrices, LBS (inverse-transpose normals) and dual-quaternion skinning, CPU- or
//!   GPU-timed playback, VAT fetch, culling. Every program is validated by naga in unit tests.
//! - [`gpu_types`]: Rust twins of the WGSL structs (clip table, bone-texture parameters, frame
//!   and material uniforms) and throng-runtime's per-instance types used unchanged
//!   (`InstanceTransform`, `GpuInstanceRecord`), all checked against naga's layouts.
//! - [`gpu_asset`] / [`vat`] / [`material`]: a `throng_asset::BakedAsset` on the GPU.
//! - [`render`]: [`Renderer`] and [`RenderOptions`] (skinning path, culling, shadows, LOD
//!   bias and influences per LOD, debug views).
//! - [`scene`]: a frame of one or more [`Crowd`]s — GPU culling against the view and the
//!   shadow camera with LOD selection by projected error, a shadow depth pass and the main pass
//!   with the same skinning, ground; offscreen ([`Renderer::render_scene`]) or into an
//!   application's own target ([`Renderer::encode_frame`]).
//! - [`cull`]: the culling runs, and their lists read back ([`Renderer::cull_lists`]).
//! - [`reference`]: the reference path (CPU-skinned vertices uploaded per frame).
//! - [`shadow`]: the directional light's orthographic shadow camera.
//! - [`skin`]: compute twins of the vertex stage (skinned vertices, playback layers) for the
//!   numerical tests against throng-asset's CPU decoder and throng-runtime's GPU-timed twin.
//!
//! Units are the asset's file units (metres per glTF), seconds, radians; matrices column-major
//! on the Rust side; model space = the glTF scene root's space.

pub mod bindings;
pub mod device;
pub mod gpu_types;
pub mod shaders;

pub use device::{AdapterSummary, DeviceError, Gpu};
pub use gpu_types::{GpuInstanceRecord, InstanceRecord, InstanceTransform, Playback};
pub use shaders::Program;
pub use throng_contract::{Skinning, Timing};
pub mod error;
pub mod gpu_asset;
pub mod layouts;
pub mod material;
pub mod readback;
pub mod skin;
pub mod vat;

pub use error::RenderError;
pub use gpu_asset::GpuAsset;
pub mod camera;
pub mod cull;
pub(crate) mod pipelines;
pub mod reference;
pub mod render;
pub mod scene;
pub mod shadow;
pub(crate) mod target;

pub use camera::Camera;
pub use cull::CullLists;
pub use reference::ReferenceMesh;
pub use render::{render_png, DebugView, RenderOptions, Renderer, SkinPath};
pub use scene::{Crowd, FrameStats, RenderedFrame};

/// The `image` crate the renderer returns pictures in (so callers need no separate dependency).
pub use image;
