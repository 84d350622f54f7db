//! The GPU-timed per-instance record (docs/design.md §4 "GPU-timed"): the GPU derives rows and
//! fracs from a compact record and a global clock, so the CPU writes a record only when that
//! instance's playback changes. throng-runtime's `GpuRuntime` writes these records;
//! `shaders/playback.wgsl` reads them; [`gpu_layers`] here is that WGSL written line by line in
//! Rust (same f32/u32 operations in the same order), so tests can predict the GPU exactly.
//!
//! # Clock
//! The runtime counts ticks of [`TICKS_PER_SECOND`] = 2^20 (≈ 0.95 µs) in a `u64`; the GPU
//! gets its low 32 bits (`clock`, a `u32` uniform; it wraps every 4096 s, which the wrapping
//! subtraction below absorbs). A power-of-two rate makes ticks ↔ seconds exact in binary
//! floating point.
//!
//! # Record layout (`#[repr(C)]`, 56 B, all 4-byte scalars)
//! ```text
//! offset  field                   meaning
//!  0      layers[0].anchor   u32  clock tick (low 32 bits) at which `phase` holds
//!  4      layers[0].phase    u32  position at `anchor` as a fraction of the period, 0.32 fixed point
//!  8      layers[0].omega_hi u32  periods per tick, 0.32 fixed point, rounded down
//! 12      layers[0].omega_lo f32  periods per tick left over (< 2^-32)
//! 16      layers[0].clip_mode u32 clip index (bits 0..23) | loop mode << 24 | HELD (bit 26)
//!                                 | mask << 29 (layer 1 only: 0 = none, see below)
//! 20      layers[1]               as layers[0] (the incoming / second blend clip)
//! 40      w_anchor           u32  clock tick at which layer 1's weight is `w_start`
//! 44      w_start            f32  layer 1 weight at `w_anchor`
//! 48      w_rate             f32  layer 1 weight change per tick (1 / fade length; 0 = static)
//! 52      flags              u32  bit 0 enabled, bit 1 layer 1 in use
//! ```
//! The period is `L = n − 1` positions (loop, once, clamp) or `2L` (ping-pong); loop modes
//! are coded by [`crate::LoopMode::code`]. The clip table of [`crate::GpuClip`] goes alongside.
//!
//! # Per-layer computation
//! ```text
//! e   = clock − anchor                       (u32, wrapping)
//! a   = e · omega_hi + phase                 (u32, wrapping: whole periods fall away)
//! φ   = f32(a) · 2^-32 + f32(e) · omega_lo   (periods, in [0, 1 + 2^-4))
//! loop:       if φ ≥ 1 { φ −= 1 }   q = φ · L
//! ping-pong:  if φ ≥ 1 { φ −= 1 }   q = φ · 2L;  if q > L { q = 2L − q }
//! once/clamp: q = φ · L   (HELD: q = L)
//! then the time rules' frame(q): q = clamp(q, 0, L); k = floor(q); frac = q − k;
//!      row = first_row + k; on the last frame row = first_row + L, frac = 0
//!      (a clip with a frame-time list looks τ = q / L · d up in its list instead:
//!      crate::listed_frame_f32)
//! w1 = clamp(w_start + f32(clock − w_anchor) · w_rate, 0, 1);  w0 = 1 − w1
//! overlay (layer 1 has a mask, or its clip is additive):      w0 = 1
//! ```
//! An overlay layer 1 lies over layer 0 (docs/design.md §4 "Layer masks and additive layers")
//! instead of sharing its weight, so layer 0 keeps its full weight.
//! Whole periods are removed exactly by the wrapping integer product, so only the fractional
//! period is ever rounded to f32; the runtime re-anchors every playing layer often enough that
//! `e` stays below 2^28 (see throng-runtime's `gpu` module for the error bound).

use bytemuck::{Pod, Zeroable};

use crate::{GpuClip, GpuClipTable, InstanceRecord, Layer};

/// Ticks per second of the runtime clock (2^20, ≈ 0.95 µs per tick).
pub const TICKS_PER_SECOND: u64 = 1 << 20;
/// Seconds per tick as f64 (exact: a power of two).
pub const SECONDS_PER_TICK: f64 = 1.0 / TICKS_PER_SECOND as f64;

/// Loop-mode codes of records ([`crate::LoopMode::code`]).
pub const MODE_LOOP: u32 = 0;
pub const MODE_ONCE: u32 = 1;
pub const MODE_CLAMP: u32 = 2;
pub const MODE_PINGPONG: u32 = 3;

/// `clip_mode` bits 0..23: the clip index.
pub const CLIP_MASK: u32 = 0x00ff_ffff;
/// `clip_mode` bits 24..25: the loop-mode code.
pub const MODE_SHIFT: u32 = 24;
/// `clip_mode` bit 26: a one-shot that has ended, shown at its last frame.
pub const GPU_HELD: u32 = 1 << 26;
/// Bits 29..31 of a layer's clip word (`Layer::clip`, `GpuLayer::clip_mode`): its mask number
/// (0 = none; [`crate::MAX_MASKS`]).
pub const LAYER_MASK_SHIFT: u32 = 29;
/// The mask number's bits in place.
pub const LAYER_MASK_BITS: u32 = 7 << LAYER_MASK_SHIFT;

/// The mask number of a clip word.
#[inline]
pub fn layer_mask_of(clip_word: u32) -> u32 {
    clip_word >> LAYER_MASK_SHIFT
}

/// Mask number `mask` (low 3 bits) in place in a clip word.
#[inline]
pub fn layer_mask_bits(mask: u32) -> u32 {
    (mask & 7) << LAYER_MASK_SHIFT
}

/// `flags` bit 0: the instance is enabled (otherwise it shows the rest row).
pub const GPU_ENABLED: u32 = 1;
/// `flags` bit 1: layer 1 is in use (a crossfade or a blend).
pub const GPU_TWO_LAYERS: u32 = 2;

/// 2^-32 as f32 (exact).
pub const TWO_NEG_32: f32 = 1.0 / 4_294_967_296.0;

/// One layer of a [`GpuInstanceRecord`] (20 B); see the module docs.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Pod, Zeroable)]
pub struct GpuLayer {
    pub anchor: u32,
    pub phase: u32,
    pub omega_hi: u32,
    pub omega_lo: f32,
    pub clip_mode: u32,
}

/// Per-instance GPU-timed record (56 B); see the module docs for layout and meaning.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Pod, Zeroable)]
pub struct GpuInstanceRecord {
    pub layers: [GpuLayer; crate::GPU_TIMED_LAYERS],
    pub w_anchor: u32,
    pub w_start: f32,
    pub w_rate: f32,
    pub flags: u32,
}

/// One changed record on its way to the GPU (64 B): GPU-timed playback sends a frame's
/// changes as a list of these, and a compute pass scatters each `record` to `index` of the
/// record buffer (docs/design.md §4 "GPU-timed records"), so the CPU writes sequentially
/// instead of into a mirror of every record. WGSL twin: `GpuRecordWrite` in
/// `shaders/playback.wgsl`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Pod, Zeroable)]
pub struct GpuRecordWrite {
    pub record: GpuInstanceRecord,
    /// Dense instance index the record belongs to.
    pub index: u32,
    pub _pad: u32,
}

/// The shown position `q` ∈ [0, L] of a layer at phase `φ` (periods; see the module docs).
/// WGSL twin: `phase_position` in `shaders/playback.wgsl`.
pub fn phase_position(phi: f32, mode: u32, held: bool, last: f32) -> f32 {
    let mut phi = phi;
    let mut q;
    if held {
        q = last;
    } else if mode == MODE_LOOP {
        if phi >= 1.0 {
            phi -= 1.0;
        }
        q = phi * last;
    } else if mode == MODE_PINGPONG {
        if phi >= 1.0 {
            phi -= 1.0;
        }
        q = phi * (2.0 * last);
        if q > last {
            q = 2.0 * last - q;
        }
    } else {
        q = phi * last;
    }
    q
}

/// The time rules' `frame(q)` in f32, as the GPU computes it, for uniform frames or a clip's
/// frame-time list in `frame_times` (the [`crate::FrameTimeTable`]'s words). WGSL twin:
/// `clip_frame` in `shaders/playback.wgsl`. (The f64 rule is [`crate::ClipFrames::frame`].)
pub fn clip_frame_f32(clip: &GpuClip, frame_times: &[u32], q: f32) -> crate::FrameRef {
    if clip.times_offset != crate::UNIFORM_FRAMES {
        return crate::listed_frame_f32(clip, frame_times, q);
    }
    let last_u = clip.last();
    let last = last_u as f32;
    let q = q.clamp(0.0, last);
    let fl = q.floor();
    if fl >= last {
        return crate::FrameRef {
            row: clip.first_row + last_u,
            frac: 0.0,
        };
    }
    crate::FrameRef {
        row: clip.first_row + fl as u32,
        frac: q - fl,
    }
}

/// Rows, fracs and weights the GPU derives from `(record, clock)`: the CPU twin of the WGSL
/// `gpu_layers` (see the module docs).
pub fn gpu_layers(rec: &GpuInstanceRecord, clips: &GpuClipTable, clock: u32) -> InstanceRecord {
    let mut out = InstanceRecord::zeroed();
    if rec.flags & GPU_ENABLED == 0 {
        return out;
    }
    let mut w0 = 1.0f32;
    if rec.flags & GPU_TWO_LAYERS != 0 {
        let ew = clock.wrapping_sub(rec.w_anchor);
        let w1 = (rec.w_start + (ew as f32) * rec.w_rate).clamp(0.0, 1.0);
        out.layers[1] = gpu_layer(&rec.layers[1], clips, clock, w1);
        let c1 = clips.clip(rec.layers[1].clip_mode & CLIP_MASK);
        let overlay =
            layer_mask_of(rec.layers[1].clip_mode) != 0 || c1.flags & crate::CLIP_ADDITIVE != 0;
        if !overlay {
            w0 = 1.0 - w1;
        }
    }
    out.layers[0] = gpu_layer(&rec.layers[0], clips, clock, w0);
    out
}

/// One layer of [`gpu_layers`]. An unknown clip reads as the zero clip (row 0), as the shader
/// does.
pub fn gpu_layer(l: &GpuLayer, clips: &GpuClipTable, clock: u32, weight: f32) -> Layer {
    let clip = l.clip_mode & CLIP_MASK;
    let mode = (l.clip_mode >> MODE_SHIFT) & 3;
    let c = clips.clip(clip);
    let e = clock.wrapping_sub(l.anchor);
    let a = e.wrapping_mul(l.omega_hi).wrapping_add(l.phase);
    let phi = (a as f32) * TWO_NEG_32 + (e as f32) * l.omega_lo;
    let q = phase_position(phi, mode, l.clip_mode & GPU_HELD != 0, c.last() as f32);
    Layer::new(
        weight,
        clip_frame_f32(&c, clips.frame_times.upload_words(), q),
        clip,
    )
    .with_mask(layer_mask_of(l.clip_mode))
}

/// 2^32 as f64.
pub const TWO_POW_32: f64 = 4_294_967_296.0;

/// The phase word of a position `p` reduced into its period, given `1 / period`:
/// `floor(p / period · 2^32)`, clamped into `u32` (0 for p ≤ 0 or NaN).
#[inline]
pub fn phase_word(p: f64, inv_period: f64) -> u32 {
    if p > 0.0 {
        // 0 ≤ value < 2^63: the truncating signed cast is the floor (one instruction)
        ((p * inv_period * TWO_POW_32) as i64).clamp(0, u32::MAX as i64) as u32
    } else {
        0
    }
}
