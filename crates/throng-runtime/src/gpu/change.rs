//! The work of one playback change in GPU-timed mode, written against one instance's state and
//! record only (no `&mut GpuRuntime`): the single-change methods and [`Cx::apply_batch`] share
//! it.
//!
//! Cost model (1M instances, 1 % changing: ~10 000 scattered instances per frame). A change
//! costs its arithmetic plus cache misses on its slot, its state (two lines) and its record
//! (two lines). Batches prefetch ahead so the misses overlap, the arrays sit on huge pages
//! (`hugepage.rs`), and the arithmetic avoids divisions, long conversion chains and work a
//! change does not need (a crossfade keeps the outgoing layer's record as it was).

use super::{reduce_fast, Change, GInst, GLayer, GpuRuntime, AHEAD};
use crate::api::{check_nonneg, PlayOptions};
use crate::clips::Prepared;
use crate::handle::Handles;
use crate::prefetch::prefetch_write;
use crate::schedule::Entry;
use crate::{RuntimeError, SECONDS_PER_TICK, TICKS_PER_SECOND};
use throng_contract::gpu_timed::{phase_word, TWO_POW_32};
use throng_contract::{
    GpuInstanceRecord, GpuLayer, GPU_ENABLED, GPU_HELD, GPU_TWO_LAYERS, MODE_LOOP, MODE_PINGPONG,
    MODE_SHIFT,
};

/// How a change's record is rewritten.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Write {
    /// Nothing changed.
    Nothing,
    /// Rebuilt from the state.
    Record,
    /// A crossfade: layer 0 is the record's layer `from` as it was, layer 1 and the weights new.
    Crossfade { from: usize },
}

/// Per clip and loop mode: what building a record layer needs, precomputed.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct ModeK {
    /// `1 / period` (0 where the period is 0): multiplications instead of divisions.
    pub inv: f64,
    /// ω of a layer at clip speed 1 and instance speed 1 (the common case), bit-identical
    /// to [`omega`] of that rate: a long chain of dependent conversions saved per change.
    pub omega1: (u32, f32),
    /// A loop or ping-pong of a clip without events: never needs the CPU.
    pub quiet: bool,
}

impl ModeK {
    pub fn new(c: &Prepared, mode: u32) -> ModeK {
        let p = c.period(mode);
        let inv = if p > 0.0 { 1.0 / p } else { 0.0 };
        // the same product as `rate_of` with both speeds 1.0 (exact factors)
        let rate = c.fps * 1.0f32 as f64 * 1.0f32 as f64 * SECONDS_PER_TICK;
        ModeK {
            inv,
            omega1: omega(rate, inv),
            quiet: c.events.is_empty() && (mode == MODE_LOOP || mode == MODE_PINGPONG),
        }
    }
}

/// The record's `(omega_hi, omega_lo)` of a layer playing `rate` frames per tick with period
/// `1 / inv` (see the module docs of `gpu.rs`).
#[inline]
fn omega(rate: f64, inv: f64) -> (u32, f32) {
    // 0 ≤ values < 2^63: the truncating signed casts are floors, one instruction each (no
    // libm call, no unsigned-conversion fix-up on baseline x86-64)
    let w = (rate * inv).min(0.5) * TWO_POW_32;
    let hi = (w as i64) as f64;
    (hi as u32, ((w - hi) * (1.0 / TWO_POW_32)) as f32)
}

/// Context of a change: the clip table and the current tick.
#[derive(Clone, Copy)]
pub(super) struct Cx<'a> {
    pub clips: &'a [Prepared],
    /// Per clip and loop mode code (see `GpuRuntime::inv_period`).
    pub inv: &'a [[ModeK; 4]],
    pub now: u64,
}

/// Indices and schedule entries produced by touched instances (one per thread).
#[derive(Default)]
pub(super) struct Sink {
    pub dirty: Vec<u32>,
    pub wakes: Vec<Entry>,
    pub errors: Vec<(usize, RuntimeError)>,
}

impl<'a> Cx<'a> {
    pub fn new(clips: &'a [Prepared], inv: &'a [[ModeK; 4]], now: u64) -> Cx<'a> {
        Cx { clips, inv, now }
    }

    fn check_clip(&self, clip: usize) -> Result<(), RuntimeError> {
        crate::api::check_clip(clip, self.clips.len())
    }

    /// Frames per tick of a layer (instance speed and pause included).
    #[inline]
    pub fn rate(&self, g: &GInst, l: &GLayer) -> f64 {
        super::rate_of(self.clips, g, l)
    }

    /// Unwrapped position of a layer at tick t (not clamped).
    #[inline]
    pub fn pos_at(&self, g: &GInst, l: &GLayer, t: u64) -> f64 {
        l.p + t.saturating_sub(l.anchor) as f64 * self.rate(g, l)
    }

    /// Moves every layer's anchor to `now` (before a rate change).
    pub fn reanchor(&self, g: &mut GInst) {
        let (paused, speed, now) = (g.paused, g.speed, self.now);
        for l in &mut g.layers[..g.n as usize] {
            let c = &self.clips[l.clip as usize];
            let rate = if paused || l.finished {
                0.0
            } else {
                c.fps * l.speed as f64 * speed as f64 * SECONDS_PER_TICK
            };
            let u = l.p + now.saturating_sub(l.anchor) as f64 * rate;
            let inv = self.inv[l.clip as usize][(l.mode & 3) as usize].inv;
            l.p = reduce_fast(c, inv, l.mode, u);
            l.anchor = now;
        }
    }

    pub fn new_layer(&self, clip: usize, opts: &PlayOptions) -> Result<GLayer, RuntimeError> {
        self.check_clip(clip)?;
        check_nonneg("speed", opts.speed as f64)?;
        check_nonneg("start time", opts.start_time as f64)?;
        let c = &self.clips[clip];
        let mode = opts
            .loop_mode
            .map(throng_contract::LoopMode::code)
            .unwrap_or(c.mode);
        Ok(GLayer {
            clip: clip as u32,
            mode,
            speed: opts.speed,
            anchor: self.now,
            // every mode reduces 0 to 0: skip the call in the common case
            p: if opts.start_time == 0.0 {
                0.0
            } else {
                c.reduce(mode, opts.start_time as f64 * c.fps)
            },
            fresh: true,
            finished: false,
        })
    }

    /// Applies one change to an instance's state and says how its record must be rewritten
    /// (see [`Cx::touch`]). Validation errors leave the state as it was.
    pub fn change(&self, g: &mut GInst, c: &Change) -> Result<Write, RuntimeError> {
        let now = self.now;
        match *c {
            Change::Play(_, clip, opts) => {
                let l = self.new_layer(clip, &opts)?;
                g.layers[0] = l;
                g.n = 1;
                g.blend = false;
                g.fade_end = u64::MAX;
                g.last = now;
            }
            Change::Crossfade(_, clip, duration_s, opts) => {
                check_nonneg("crossfade duration", duration_s as f64)?;
                let new = self.new_layer(clip, &opts)?;
                // ≥ 0: adding ½ and truncating rounds without a libm call; the signed cast is
                // one instruction (and saturates far from overflowing `now + len`)
                let len = (duration_s as f64 * TICKS_PER_SECOND as f64 + 0.5) as i64 as u64;
                if g.n == 0 || len == 0 {
                    return self.change(g, &Change::Play(c.handle(), clip, opts));
                }
                // no re-anchoring: the layers' rates do not change, so their (anchor, p)
                // pairs stay exact (the sweep keeps anchors recent, see the module docs)
                let mut from = 0;
                if g.n == 2 && GpuRuntime::w1_at(g, now) > 0.5 {
                    g.layers[0] = g.layers[1];
                    from = 1;
                }
                g.layers[1] = new;
                g.n = 2;
                g.blend = false;
                g.w_anchor = now;
                g.w_start = 0.0;
                g.w_rate = 1.0 / len as i64 as f64;
                g.fade_end = now + len;
                g.last = now;
                return Ok(Write::Crossfade { from });
            }
            Change::Blend(_, clip_a, clip_b, weight) => {
                self.check_clip(clip_a)?;
                self.check_clip(clip_b)?;
                let (da, db) = (self.clips[clip_a].duration, self.clips[clip_b].duration);
                let [sa, sb] = crate::api::blend_sync(da, db, weight)?;
                let same = g.blend
                    && g.n == 2
                    && g.layers[0].clip as usize == clip_a
                    && g.layers[1].clip as usize == clip_b;
                if same {
                    self.reanchor(g);
                } else {
                    let a = self.new_layer(clip_a, &PlayOptions::default())?;
                    let b = self.new_layer(clip_b, &PlayOptions::default())?;
                    g.layers = [a, b];
                    g.last = now;
                }
                g.layers[0].speed = sa;
                g.layers[1].speed = sb;
                g.n = 2;
                g.blend = true;
                g.w_anchor = now;
                g.w_start = weight as f64;
                g.w_rate = 0.0;
                g.fade_end = u64::MAX;
            }
            Change::SetSpeed(_, speed) => {
                check_nonneg("speed", speed as f64)?;
                self.reanchor(g);
                g.speed = speed;
            }
            Change::Pause(_) => {
                self.reanchor(g);
                g.paused = true;
            }
            Change::Resume(_) => {
                self.reanchor(g);
                g.paused = false;
            }
            Change::Seek(_, time_s) => {
                check_nonneg("seek time", time_s as f64)?;
                if g.n == 0 {
                    return Ok(Write::Nothing);
                }
                let (blend, n) = (g.blend, g.n as usize);
                let range = if blend { 0..2 } else { n - 1..n };
                for l in &mut g.layers[range] {
                    let c = &self.clips[l.clip as usize];
                    let sync = if blend { l.speed as f64 } else { 1.0 };
                    l.p = c.reduce(l.mode, time_s as f64 * c.fps * sync);
                    l.anchor = now;
                    l.fresh = true;
                    l.finished = false;
                }
                g.last = now;
            }
            Change::SetEnabled(_, enabled) => g.enabled = enabled,
        }
        Ok(Write::Record)
    }

    /// Rebuilds the record of instance `i` (handle `h`), lists it as dirty once and returns
    /// the schedule entry to push if its next wake moved earlier.
    #[inline]
    pub fn touch(
        &self,
        g: &mut GInst,
        rec: &mut GpuInstanceRecord,
        i: usize,
        dirty: &mut Vec<u32>,
        what: Write,
    ) -> Option<u64> {
        match what {
            Write::Nothing => return None,
            Write::Crossfade { from } if g.enabled => {
                // The record of an enabled instance always holds its layers as last written
                // from its state, and a crossfade leaves the outgoing layer as it was: keep
                // that layer's 20 bytes, compute only the incoming one and the weights.
                if from == 1 {
                    rec.layers[0] = rec.layers[1];
                }
                self.write_layer(g, 1, &mut rec.layers[1]);
                rec.flags = GPU_ENABLED | GPU_TWO_LAYERS;
                rec.w_anchor = g.w_anchor as u32;
                rec.w_start = g.w_start as f32;
                rec.w_rate = g.w_rate as f32;
                debug_assert_eq!(*rec, {
                    let mut full = *rec;
                    self.write_record(g, &mut full);
                    full
                });
            }
            _ => self.write_record(g, rec),
        }
        if !g.dirty {
            g.dirty = true;
            dirty.push(i as u32);
        }
        self.reschedule(g)
    }

    /// Lowers the instance's wake to its next wake; returns that tick if it moved (the caller
    /// pushes a schedule entry).
    #[inline]
    pub fn reschedule(&self, g: &mut GInst) -> Option<u64> {
        let t = self.next_wake(g);
        (t < g.wake).then(|| {
            g.wake = t;
            t
        })
    }

    /// Writes the record of an instance in place, field by field. (Building it in a local
    /// and copying it out made the copy's wide loads wait on the narrow stores that built it:
    /// a failed store-to-load forwarding per change, ~10 % of a batch.)
    pub fn write_record(&self, g: &GInst, r: &mut GpuInstanceRecord) {
        if !g.enabled || g.n == 0 {
            *r = GpuInstanceRecord::default();
            return;
        }
        r.flags = GPU_ENABLED;
        for k in 0..2 {
            if k < g.n as usize {
                self.write_layer(g, k, &mut r.layers[k]);
            } else {
                r.layers[k] = GpuLayer::default();
            }
        }
        if g.n == 2 {
            r.flags |= GPU_TWO_LAYERS;
            r.w_anchor = g.w_anchor as u32;
            r.w_start = g.w_start as f32;
            r.w_rate = g.w_rate as f32;
        } else {
            r.w_anchor = 0;
            r.w_start = 0.0;
            r.w_rate = 0.0;
        }
    }

    /// Writes layer `k` of the record from the instance's layer `k`.
    #[inline]
    fn write_layer(&self, g: &GInst, k: usize, gl: &mut GpuLayer) {
        {
            let l = &g.layers[k];
            let mk = &self.inv[l.clip as usize][(l.mode & 3) as usize];
            let inv = mk.inv;
            gl.anchor = l.anchor as u32;
            gl.clip_mode = l.clip | l.mode << MODE_SHIFT;
            if l.finished {
                gl.clip_mode |= GPU_HELD;
            }
            if l.finished || inv <= 0.0 {
                gl.phase = 0;
                gl.omega_hi = 0;
                gl.omega_lo = 0.0;
            } else {
                // 0 ≤ value < 2^63: the truncating signed cast is the floor
                gl.phase = phase_word(l.p, inv);
                let (hi, lo) = if l.speed == 1.0 && g.speed == 1.0 && !g.paused {
                    mk.omega1
                } else {
                    omega(self.rate(g, l), inv)
                };
                gl.omega_hi = hi;
                gl.omega_lo = lo;
            }
        }
    }

    /// Next tick at which the instance needs the CPU (u64::MAX: never).
    pub fn next_wake(&self, g: &GInst) -> u64 {
        let mut w = u64::MAX;
        // the outgoing layer of a crossfade fires nothing from the fade's end on
        let fading = g.n == 2 && g.fade_end != u64::MAX;
        for k in 0..g.n as usize {
            let l = &g.layers[k];
            if l.finished {
                continue;
            }
            if self.inv[l.clip as usize][(l.mode & 3) as usize].quiet {
                continue; // a loop without events never needs the CPU (`next_event_u`: None)
            }
            let c = &self.clips[l.clip as usize];
            let rate = self.rate(g, l);
            if rate <= 0.0 {
                if l.fresh && (c.is_static() || !c.events.is_empty()) && !g.paused {
                    // zero-length clip or events at the start: fire on the next update
                    w = w.min(g.last + 1);
                }
                continue;
            }
            let u = self.pos_at(g, l, g.last);
            if let Some(m) = c.next_event_u(l.mode, u) {
                let dt = ((m - l.p) / rate).ceil();
                if dt < 1.0e18 {
                    let t = l.anchor + dt.max(0.0) as u64;
                    if !(fading && k == 0 && t >= g.fade_end) {
                        w = w.min(t);
                    }
                }
            }
        }
        if w == u64::MAX {
            w
        } else {
            w.max(g.last + 1)
        }
    }

    /// Applies a batch in order, prefetching a few changes ahead: the slot of the change
    /// `2 · AHEAD` ahead, the instance (state and record) of the one `AHEAD` ahead.
    pub fn apply_batch(
        &self,
        handles: &Handles,
        changes: &[Change],
        state: &mut [GInst],
        records: &mut [GpuInstanceRecord],
        out: &mut Sink,
    ) {
        // dense indices of the next changes, looked up once when prefetching
        const RING: usize = 2 * AHEAD;
        let mut ring = [None; RING];
        for c in changes.iter().take(2 * AHEAD) {
            handles.prefetch(c.handle());
        }
        for (k, c) in changes.iter().enumerate().take(AHEAD) {
            ring[k % RING] = handles.index(c.handle());
        }
        for (k, c) in changes.iter().enumerate() {
            if let Some(n) = changes.get(k + 2 * AHEAD) {
                handles.prefetch(n.handle());
            }
            if let Some(n) = changes.get(k + AHEAD) {
                let j = handles.index(n.handle());
                ring[(k + AHEAD) % RING] = j;
                if let Some(j) = j {
                    prefetch_write(state.as_ptr().wrapping_add(j), std::mem::size_of::<GInst>());
                    let r = records.as_ptr().wrapping_add(j);
                    prefetch_write(r, std::mem::size_of::<GpuInstanceRecord>());
                }
            }
            let h = c.handle();
            let Some(i) = ring[k % RING] else {
                out.errors.push((k, RuntimeError::DeadHandle { handle: h }));
                continue;
            };
            let g = &mut state[i];
            match self.change(g, c) {
                Ok(w) => {
                    if let Some(t) = self.touch(g, &mut records[i], i, &mut out.dirty, w) {
                        out.wakes.push((t, h.slot, h.generation));
                    }
                }
                Err(e) => out.errors.push((k, e)),
            }
        }
    }
}
