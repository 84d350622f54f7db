//! The per-instance playback contract of throng (docs/design.md §4), below the runtime and the
//! renderer so that both — and the offline crates' CPU references — read it from one place:
//!
//! - [`names`]: the shared enums ([`LoopMode`], [`Skinning`], [`Timing`], [`Encoding`],
//!   [`VatEncoding`]), each name written once;
//! - [`time`]: the time rules — clip time → (row, frac, direction, shown time) for every loop
//!   mode ([`ClipFrames::sample`]); nobody else wraps clip time;
//! - [`record`]: the CPU-timed 64 B [`InstanceRecord`] of 4 [`Layer`]s and the 48 B
//!   [`InstanceTransform`];
//! - [`records`]: a crowd's records of either timing as one view ([`Records`],
//!   [`RecordChanges`]), what a runtime hands a renderer;
//! - [`gpu_timed`]: the GPU-timed 56 B [`GpuInstanceRecord`], the clock unit, and
//!   [`gpu_layers`], the line-by-line CPU twin of its shader;
//! - [`graph_time`]: animation graphs' time in integers (normalised time as a [`graph_time::Phase`],
//!   rates in cycles per tick, transition lengths), with the WGSL twin `throng::graph_time`;
//! - [`graph_layout`]: the shape of an animation graph's GPU tables, with the generated WGSL
//!   `throng::graph_layout`;
//! - [`graph_step`] and [`graph_events`]: the GPU graph step's inputs, uniform, parameter
//!   changes and event lists apart from any GPU API, for every embedding of its shader;
//! - [`clip_table`]: the clip table in its GPU form ([`GpuClip`]);
//! - [`limits`]: rows, clips, layers, influences, each with its reason;
//! - [`live`]: live poses' [`SkinMatrix`] and the palette path's refresh rule;
//! - [`affine`]: the 48 B 3×4 affine ([`Affine3x4`]) the instance transform, a live pose's
//!   skin matrix and an anchor's transform are uploaded as;
//! - [`appearance`]: the 16 B per-instance [`Appearance`] (tint, variant, parts, props) beside
//!   the record;
//! - [`wgsl`]: the WGSL twins (`throng::playback`, `throng::graph_time`, generated
//!   `throng::constants`).
//!
//! Depends on glam, bytemuck and serde only (clap with the `clap` feature). Units: seconds,
//! file units, radians; matrices column-major.

pub mod affine;
pub mod appearance;
pub mod clip_table;
pub mod gpu_timed;
pub mod graph_events;
pub mod graph_layout;
pub mod graph_step;
pub mod graph_time;
pub mod limits;
pub mod live;
pub mod names;
pub mod record;
pub mod records;
pub mod taps;
pub mod time;
pub mod wgsl;

pub use affine::Affine3x4;
pub use appearance::{
    appearance_runs, appearance_texture_size, Appearance, AppearanceChanges, APPEARANCE_ROW,
    MAX_PARTS, MAX_PROP_BITS,
};
pub use clip_table::{
    listed_frame_f32, FrameTimeTable, GpuClip, GpuClipTable, CLIP_ADDITIVE, UNIFORM_FRAMES,
};
pub use gpu_timed::{
    gpu_layers, layer_mask_bits, layer_mask_of, GpuInstanceRecord, GpuLayer, GpuRecordWrite,
    CLIP_MASK, GPU_ENABLED, GPU_HELD, GPU_TWO_LAYERS, LAYER_MASK_BITS, LAYER_MASK_SHIFT,
    MODE_CLAMP, MODE_LOOP, MODE_ONCE, MODE_PINGPONG, MODE_SHIFT, SECONDS_PER_TICK,
    TICKS_PER_SECOND,
};
pub use limits::*;
pub use live::{next_palette_frame, palette_refresh, SkinMatrix, PALETTE_LIVE, PALETTE_UNWRITTEN};
pub use names::{
    clip_name_hint, Encoding, LoopMode, RowInterpolation, Skinning, Timing, UnknownName,
    VatEncoding,
};
pub use record::{InstanceRecord, InstanceTransform, Layer};
pub use records::{RecordChanges, Records};
pub use taps::{
    catmull_rom_weights, layer_taps, piece_degree, piece_weights, row_taps, RowTaps, CLIP_CUBIC,
    CLIP_DEGREE_BITS, CLIP_DEGREE_SHIFT, CLIP_PERIODIC,
};
pub use time::{wrap_time, ClipFrames, ClipTime, Direction, FrameRef, Span, FRAC_MAX};
