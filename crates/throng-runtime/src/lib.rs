//! Per-instance playback of baked throng assets (docs/design.md §4): the CPU decides which baked
//! frame rows each instance shows; the GPU skins.
//!
//! - [`Runtime`] — a runtime of either timing, chosen at run time, through which every front
//!   end plays: the calls of [`PlaybackControl`] (each playback change also a value,
//!   [`PlaybackCommand`]) and the records as one contract-level view
//!   ([`Records`], [`RecordChanges`]) for the renderer.
//! - [`CpuRuntime`] — CPU-timed mode: `update(dt)` advances every instance in parallel and
//!   writes one 64 B [`InstanceRecord`] (4 × `(weight, frac, row, clip)`) per instance.
//! - [`GpuRuntime`] — GPU-timed mode: a 56 B [`GpuInstanceRecord`] per instance written only
//!   when its playback changes; the GPU derives rows from a global clock ([`gpu_layers`] is the
//!   CPU twin of that shader code).
//!
//! The records, the clip table, the clock unit and the time rules are throng-contract's; this
//! crate decides their contents.
//!
//! - [`Appearances`] — per-instance tint, material variant, part and prop masks beside the
//!   playback state, with the list of changes a renderer uploads.
//!
//! Both keep instances dense in struct-of-arrays form behind stable generational [`Handle`]s,
//! expose records and [`InstanceTransform`]s as slices ready to upload, fire clip events once
//! per crossing, and report one-shot completions. Times are seconds, positions frames of the
//! clip's baked table, lengths file units, angles radians. Time keeping: see [`clock`].
//! Depends on no GPU crate, importer or baker.

mod anchor;
mod api;
pub mod appearance;
mod clips;
pub mod clock;
mod compact;
mod cpu;
pub mod crowd;
mod error;
pub mod gpu;
mod handle;
pub mod hugepage;
mod instance;
mod instance_data;
mod playback;
pub mod prefetch;
mod schedule;
pub mod testing;

pub use anchor::anchor_world;
pub use api::{ClipId, Finished, FiredEvent, PlayOptions, MAX_SPEED};
pub use appearance::Appearances;
pub use clips::{ClipEvents, MAX_LAPS, MAX_STEP_LAPS};
pub use clock::{Clock, MAX_STEP_SECONDS, SECONDS_PER_TICK, TICKS_PER_SECOND};
pub use cpu::{CpuRuntime, CHUNK};
pub use error::RuntimeError;
pub use gpu::{Change, GpuRuntime};
pub use handle::Handle;
pub use instance::Instance;
pub use instance_data::{InstanceData, PerInstance};
pub use playback::{PlaybackCommand, PlaybackControl, Runtime};
/// The contract's types the runtime produces, re-exported for callers that only use the
/// runtime (one definition: throng-contract's).
pub use throng_contract::{
    gpu_layers, Appearance, AppearanceChanges, GpuClip, GpuClipTable, GpuInstanceRecord, GpuLayer,
    InstanceRecord, InstanceTransform, Layer, LoopMode, RecordChanges, Records, Timing, MODE_CLAMP,
    MODE_LOOP, MODE_ONCE, MODE_PINGPONG,
};
