//! The floor of the CPU-timed runtime's compact state (issue 50, Build 2; the runtime's is
//! `throng-runtime/src/compact.rs`): the steady loop alone, an update of two looping layers
//! from a 16 B state read and never written, without the runtime's API, slow path or checks
//! (`BenchReport::compact_floor_ms`). It was measured before the runtime kept it, to see
//! whether the layout could meet 1.3× memset.
//!
//! The sketch: an instance holds each layer's phase at the crowd's epoch (`u32`, 2^-32 cycles
//! of its clip), the index of a shared *layer set* (per layer its clip, rate, weight and frame
//! table: what instances playing the same clips at the same speeds and weights share) and
//! flags (the slow path's). A layer's rate is cycles per clock tick in 2^-64 (as the graph's
//! `throng_contract::graph_time` keeps rates), so its phase now is
//! `phase << 32 + (now − epoch) × rate` in wrapping `u64` arithmetic: the loop's reduction is
//! the wrap, nothing accumulates and nothing is written back. The epoch would move every
//! 2^31 ticks (34 minutes), every phase re-based in one pass. The phase's top 32 bits times
//! the loop's length in frames give the frame (above 2^32) and its fraction (below), all in
//! integers, and the 64 B record is streamed.
//! Left out: the slow path's triggers (a set flagged as having clip events or a one-shot
//! would send its instances there, as the runtime's per-layer mark does).
//!
//! So `sketch / memset` says whether a 16 B read-only state can meet the 1.3× memset
//! on this machine before the runtime is rebuilt around it. A first sketch with `f64`
//! positions reduced by `floor` each frame ran at 2.9–3.0× memset, slower than the runtime
//! (`floor` is a call on baseline x86-64); the top 53 bits of the phase converted to `f64`
//! and scaled by the length, at 1.43–1.51×.

use rayon::prelude::*;
use throng_runtime::prefetch::{stream_fence, stream_two_layers};
use throng_runtime::{InstanceRecord, Layer, CHUNK};

/// One layer of a layer set.
#[derive(Debug, Clone, Copy)]
struct SetLayer {
    /// Cycles per clock tick, in 2^-64.
    rate: u64,
    /// The loop's length in frames.
    frames: u32,
    first_row: u32,
    clip: u32,
    weight: f32,
}

/// Instances' 16 B states and the layer sets they index.
pub(super) struct CompactFloor {
    /// Per instance: layer 0's phase at the epoch, layer 1's, the set, flags.
    state: Vec<[u32; 4]>,
    sets: Vec<[SetLayer; 2]>,
    /// Ticks since the epoch.
    now: u64,
}

/// Layer sets of the sketch: speeds spread over ±10 % as a crowd spreads them.
const SETS: u32 = 64;

impl CompactFloor {
    /// `n` instances blending a 30-frame and a 24-frame loop (at 30 frames a second) at 0.5
    /// each, from spread phases, over [`SETS`] sets of speeds.
    pub fn new(n: usize) -> CompactFloor {
        let layer = |frames: f64, first_row: u32, clip: u32, speed: f64| SetLayer {
            // cycles per tick: speed × 30 / frames / 2^20, in 2^-64
            rate: (speed * 30.0 / frames * 2f64.powi(64 - 20)) as u64,
            frames: frames as u32,
            first_row,
            clip,
            weight: 0.5,
        };
        let sets = (0..SETS)
            .map(|k| {
                let speed = 0.9 + 0.2 * k as f64 / SETS as f64;
                [layer(30.0, 0, 0, speed), layer(24.0, 31, 1, speed)]
            })
            .collect();
        let state = (0..n as u32)
            .map(|i| {
                let phase = i.wrapping_mul(0x9e37_79b9);
                [phase, phase ^ 0x5555_5555, i % SETS, 0]
            })
            .collect();
        CompactFloor {
            state,
            sets,
            now: 1 << 20,
        }
    }

    /// One update writing `records` (the same length) at `dt` seconds after the last;
    /// returns milliseconds.
    pub fn run(&mut self, records: &mut [InstanceRecord], dt: f64) -> f64 {
        let t = std::time::Instant::now();
        self.now += (dt * throng_runtime::TICKS_PER_SECOND as f64) as u64;
        // the epoch moves before 2^31 ticks (not timed here: once in 34 minutes)
        let now = self.now & ((1 << 31) - 1);
        let (state, sets) = (&self.state, &self.sets);
        records
            .par_chunks_mut(CHUNK)
            .enumerate()
            .for_each(|(k, rec)| {
                let base = k * CHUNK;
                let st = &state[base..base + rec.len()];
                for (r, s) in rec.iter_mut().zip(st) {
                    if s[3] != 0 {
                        continue;
                    }
                    let Some(set) = sets.get(s[2] as usize) else {
                        continue;
                    };
                    let a = layer_at(&set[0], s[0], now);
                    let b = layer_at(&set[1], s[1], now);
                    stream_two_layers(r, a, b);
                }
                stream_fence();
            });
        t.elapsed().as_secs_f64() * 1e3
    }
}

/// A looping layer whose phase was `phase` (2^-32 cycles) at the epoch, `now` ticks later:
/// its row and fraction for uniform frames (the contract's rule, in integers: the fraction to
/// 2^-32 of a frame before its rounding to `f32`).
#[inline(always)]
fn layer_at(l: &SetLayer, phase: u32, now: u64) -> Layer {
    let p = ((phase as u64) << 32).wrapping_add(now.wrapping_mul(l.rate));
    // the phase's top 32 bits × frames: the frame above 2^32, its fraction below
    let x = (p >> 32) * l.frames as u64;
    Layer {
        weight: l.weight,
        frac: ((x as u32) as f32 * 2f32.powi(-32)).min(throng_contract::FRAC_MAX),
        row: (l.first_row + (x >> 32) as u32) as f32,
        clip: l.clip,
    }
}
