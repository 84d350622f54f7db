//! throng-render: wgpu renderer of baked throng crowds (DESIGN.md §5).
//!
//! - [`device`]: headless device setup on any adapter (lavapipe on machines without a GPU).
//! - [`shaders`]: WGSL modules composed by concatenation; every program validated by naga.
//! - [`gpu_types`]: Rust twins of the WGSL structs (per-instance record and transform, clip
//!   table, bone-texture parameters, frame uniform).

pub mod device;
pub mod gpu_types;
pub mod shaders;

pub use device::{AdapterSummary, DeviceError, Gpu};
pub use gpu_types::{GpuTimedRecord, InstanceTransform, LayerRecord, Playback};
pub use shaders::{Program, Skinning, Timing};
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
pub mod render;

pub use camera::Camera;
pub use render::{render_png, ReferenceMesh, RenderOptions, Renderer, SkinPath};

/// The `image` crate the renderer returns pictures in (so callers need no separate dependency).
pub use image;
