//! throng in the browser (docs/web.md): a WebAssembly package, built with wasm-bindgen, whose
//! JavaScript class `Crowd` loads a baked `.glb` from bytes, draws it on a `<canvas>` with
//! throng-render on WebGPU (or, in the renderer's downlevel mode, WebGL2), and plays it through the one playback type,
//! [`throng_runtime::Runtime`]: spawn and despawn with transforms, play, crossfade and blend
//! clips with the Rust API's options, speed, events as callbacks, the camera, `frame(dt)`.
//!
//! - [`player`] — the page's state without the browser (the native tests drive it too).
//! - [`graph`] — graph crowds: an animation graph playing the page's instances
//!   (`throng_graph_gpu::GraphRuntime`, stepped on the GPU or the CPU), parameters by name,
//!   state and clip events named.
//! - [`adapter`] — what engines' own renderers (three.js) read: meshes, decoded bone rows,
//!   instance matrices and records.
//! - [`backend`] — the `backend` option and whether an adapter can run the renderer.
//! - [`error`] — typed errors; each becomes a JavaScript `Error` with the same message.
//! - `web` and `options` (wasm32 only) — the wasm-bindgen API and its option objects.
//!
//! Units: seconds, radians, the asset's file units; transforms column-major 4×4.

pub mod adapter;
pub mod backend;
pub mod error;
pub mod graph;
pub mod player;

#[cfg(target_arch = "wasm32")]
mod options;
#[cfg(target_arch = "wasm32")]
mod web;

pub use backend::Backend;
pub use error::WebError;
pub use graph::{ParamValue, StateEventInfo};
pub use player::{ClipRef, CrowdSpec, EventInfo, FinishedInfo, Player};
