//! The shape of an animation graph's GPU tables (docs/graph.md "On the GPU"): the numbers that
//! throng_graph's `GraphLayout` writes by, throng-render's graph pass checks by, and its WGSL
//! (`shaders/graph_step.wgsl`) reads by, written once here. The WGSL module
//! `throng::graph_layout` is generated from them ([`crate::wgsl::graph_layout_module`]); the
//! per-instance `GraphMachine` struct's member offsets are tested against the `MACHINE_*`
//! words in throng-render's `tests/shaders.rs`.

/// "None" in every index word (no speed parameter, no event, any state, no transition).
pub const NONE: u32 = u32::MAX;
/// Words of a `GraphState`.
pub const STATE_WORDS: usize = 16;
/// Words of a `GraphClip`.
pub const CLIP_WORDS: usize = 4;
/// Words of a `GraphTransition`.
pub const TRANSITION_WORDS: usize = 18;
/// Words of a `GraphCondition`.
pub const CONDITION_WORDS: usize = 4;
/// Words of a clip's entry in the clip events table: where its events start, how many, 1 for a
/// zero-length clip, 0.
pub const CLIP_EVENTS_WORDS: usize = 4;
/// Words of an event: its mark (`graph_time::event_mark`, three words, lowest first) and its
/// index into the clip's `ClipInfo::events`.
pub const EVENT_WORDS: usize = 4;
/// Most events a clip may have for the GPU step: a thread runs every event of up to twelve
/// shown clips, 64 laps each on a runaway step, and that work stays bounded.
pub const MAX_CLIP_EVENTS: u32 = 256;
/// Words of a `GraphMachine` (the 96 B per-instance state).
pub const MACHINE_WORDS: usize = 24;
/// Where each member of a `GraphMachine` starts, in words: per slot the fraction's two words,
/// per slot the rate's two, the transition length's two, per slot the whole cycles, the elapsed
/// ticks, the two outgoing weights, the running transition, `cur | src << 16`,
/// `out0 | out1 << 16`, and `out_n | fresh << 8 | dirty << 16`.
pub const MACHINE_FRAC: usize = 0;
pub const MACHINE_RATE: usize = 6;
pub const MACHINE_LENGTH: usize = 12;
pub const MACHINE_WHOLE: usize = 14;
pub const MACHINE_ELAPSED: usize = 17;
pub const MACHINE_OUT_WEIGHT: usize = 18;
pub const MACHINE_RUNNING: usize = 20;
pub const MACHINE_CUR_SRC: usize = 21;
pub const MACHINE_OUT_STATES: usize = 22;
pub const MACHINE_FLAGS: usize = 23;
/// The machine's fresh bit of its current state (outgoing state k: `2 << k`).
pub const FRESH_CURRENT: u32 = 1;

/// `GraphState.motion`.
pub const MOTION_CLIP: u32 = 0;
pub const MOTION_BLEND_1D: u32 = 1;
pub const MOTION_BLEND_2D: u32 = 2;

/// `GraphTransition.interruption`.
pub const INTERRUPT_NONE: u32 = 0;
pub const INTERRUPT_SOURCE: u32 = 1;
pub const INTERRUPT_TARGET: u32 = 2;

/// The kind word of an event the pass appends.
pub const EVENT_ENTER: u32 = 0;
pub const EVENT_EXIT: u32 = 1;
pub const EVENT_CLIP: u32 = 2;
