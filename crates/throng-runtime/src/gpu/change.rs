//! The work of one playback change in GPU-timed mode, written against one instance's state and
//! record only (no `&mut GpuRuntime`), so that a large batch can be split between threads by
//! dense index range (`GpuRuntime::apply`).
//!
//! Why: changing 1 % of a million instances is ~10 000 scattered instances per frame. Each
//! change costs some arithmetic plus cache misses on its state (two lines), its record (two
//! lines) and its slot; prefetching overlaps the misses, and two threads halve the rest.

use super::{
    reduce_fast, Change, GInst, GLayer, GpuInstanceRecord, GpuLayer, GpuRuntime, AHEAD,
    GPU_ENABLED, GPU_HELD, GPU_TWO_LAYERS, TWO_POW_32,
};
use crate::api::{check_nonneg, PlayOptions};
use crate::clips::{mode_code, Prepared, MODE_LOOP, MODE_PINGPONG};
use crate::handle::Handles;
use crate::prefetch::prefetch_write;
use crate::schedule::Entry;
use crate::{RuntimeError, SECONDS_PER_TICK, TICKS_PER_SECOND};

/// Read-only context of a change: the clip table and the current tick.
#[derive(Clone, Copy)]
pub(super) struct Cx<'a> {
    pub clips: &'a [Prepared],
    /// Per clip, `1 / period` per loop mode code (see `GpuRuntime::inv_period`).
    pub inv: &'a [[f64; 4]],
    pub now: u64,
}

/// A dense index range of the instance store: `state` and `records` hold `lo..lo + len`.
pub(super) struct Part<'a> {
    pub lo: usize,
    pub state: &'a mut [GInst],
    pub records: &'a mut [GpuInstanceRecord],
}

/// Indices and schedule entries produced by touched instances (one per thread).
#[derive(Default)]
pub(super) struct Sink {
    pub dirty: Vec<u32>,
    pub wakes: Vec<Entry>,
    pub errors: Vec<(usize, RuntimeError)>,
}

impl Cx<'_> {
    fn check_clip(&self, clip: usize) -> Result<(), RuntimeError> {
        if clip < self.clips.len() {
            Ok(())
        } else {
            Err(RuntimeError::NoSuchClip {
                clip,
                clips: self.clips.len(),
            })
        }
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
            l.p = reduce_fast(
                c,
                self.inv[l.clip as usize][(l.mode & 3) as usize],
                l.mode,
                u,
            );
            l.anchor = now;
        }
    }

    pub fn new_layer(&self, clip: usize, opts: &PlayOptions) -> Result<GLayer, RuntimeError> {
        self.check_clip(clip)?;
        check_nonneg("speed", opts.speed as f64)?;
        check_nonneg("start time", opts.start_time as f64)?;
        let c = &self.clips[clip];
        let mode = opts.loop_mode.map(mode_code).unwrap_or(c.mode);
        Ok(GLayer {
            clip: clip as u32,
            mode,
            speed: opts.speed,
            anchor: self.now,
            p: c.reduce(mode, opts.start_time as f64 * c.fps),
            fresh: true,
            finished: false,
        })
    }

    /// Applies one change to an instance's state. `Ok(true)`: the record must be rebuilt
    /// (see [`Cx::touch`]). Validation errors leave the state as it was.
    pub fn change(&self, g: &mut GInst, c: &Change) -> Result<bool, RuntimeError> {
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
                // ≥ 0: adding ½ and truncating rounds without a libm call
                let len = (duration_s as f64 * TICKS_PER_SECOND as f64 + 0.5) as u64;
                if g.n == 0 || len == 0 {
                    return self.change(g, &Change::Play(c.handle(), clip, opts));
                }
                self.reanchor(g);
                if g.n == 2 && GpuRuntime::w1_at(g, now) > 0.5 {
                    g.layers[0] = g.layers[1];
                }
                g.layers[1] = new;
                g.n = 2;
                g.blend = false;
                g.w_anchor = now;
                g.w_start = 0.0;
                g.w_rate = 1.0 / len as f64;
                g.fade_end = now + len;
                g.last = now;
            }
            Change::Blend(_, clip_a, clip_b, weight) => {
                self.check_clip(clip_a)?;
                self.check_clip(clip_b)?;
                if !(0.0..=1.0).contains(&weight) {
                    return Err(RuntimeError::BadWeight(weight));
                }
                let (da, db) = (self.clips[clip_a].duration, self.clips[clip_b].duration);
                let d = da * (1.0 - weight as f64) + db * weight as f64;
                let sync = |dx: f64| if d > 0.0 { (dx / d) as f32 } else { 0.0 };
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
                g.layers[0].speed = sync(da);
                g.layers[1].speed = sync(db);
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
                    return Ok(false);
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
        Ok(true)
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
    ) -> Option<u64> {
        *rec = self.build_record(g);
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

    pub fn build_record(&self, g: &GInst) -> GpuInstanceRecord {
        let mut r = GpuInstanceRecord::default();
        if !g.enabled || g.n == 0 {
            return r;
        }
        r.flags = GPU_ENABLED;
        for k in 0..g.n as usize {
            let l = &g.layers[k];
            let inv = self.inv[l.clip as usize][(l.mode & 3) as usize];
            let mut gl = GpuLayer {
                anchor: l.anchor as u32,
                clip_mode: l.clip | l.mode << 24,
                ..GpuLayer::default()
            };
            if l.finished {
                gl.clip_mode |= GPU_HELD;
            } else if inv > 0.0 {
                // 0 ≤ values < 2^63: the truncating signed casts are floors, one instruction
                // each (no libm call, no unsigned-conversion fix-up on baseline x86-64)
                let ph = (l.p * inv * TWO_POW_32) as i64;
                gl.phase = ph.clamp(0, u32::MAX as i64) as u32;
                let w = (self.rate(g, l) * inv).min(0.5) * TWO_POW_32;
                let hi = (w as i64) as f64;
                gl.omega_hi = hi as u32;
                gl.omega_lo = ((w - hi) * (1.0 / TWO_POW_32)) as f32;
            }
            r.layers[k] = gl;
        }
        if g.n == 2 {
            r.flags |= GPU_TWO_LAYERS;
            r.w_anchor = g.w_anchor as u32;
            r.w_start = g.w_start as f32;
            r.w_rate = g.w_rate as f32;
        }
        r
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
            let c = &self.clips[l.clip as usize];
            if c.events.is_empty() && (l.mode == MODE_LOOP || l.mode == MODE_PINGPONG) {
                continue; // a loop without events never needs the CPU (`next_event_u`: None)
            }
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

    /// Applies the changes whose instances lie in the dense range `lo..lo + state.len()`
    /// (`state`/`records` are that range), in batch order, prefetching a few changes ahead.
    /// With `report_dead`, dead handles are reported as errors (exactly one range must).
    pub fn apply_range(
        &self,
        handles: &Handles,
        changes: &[Change],
        part: Part<'_>,
        report_dead: bool,
        out: &mut Sink,
    ) {
        let Part { lo, state, records } = part;
        let hi = lo + state.len();
        for c in changes.iter().take(2 * AHEAD) {
            handles.prefetch(c.handle());
        }
        for (k, c) in changes.iter().enumerate() {
            if let Some(n) = changes.get(k + 2 * AHEAD) {
                handles.prefetch(n.handle());
            }
            if let Some(n) = changes.get(k + AHEAD) {
                if let Some(j) = handles.index(n.handle()).filter(|j| (lo..hi).contains(j)) {
                    prefetch_write(&state[j - lo], std::mem::size_of::<GInst>());
                    prefetch_write(&records[j - lo], std::mem::size_of::<GpuInstanceRecord>());
                }
            }
            let h = c.handle();
            let Some(i) = handles.index(h) else {
                if report_dead {
                    out.errors.push((k, RuntimeError::DeadHandle { handle: h }));
                }
                continue;
            };
            if !(lo..hi).contains(&i) {
                continue;
            }
            let g = &mut state[i - lo];
            match self.change(g, c) {
                Ok(true) => {
                    if let Some(t) = self.touch(g, &mut records[i - lo], i, &mut out.dirty) {
                        out.wakes.push((t, h.slot, h.generation));
                    }
                }
                Ok(false) => {}
                Err(e) => out.errors.push((k, e)),
            }
        }
    }
}

/// Batches at least this long are split between two threads (below it, waking a second
/// thread costs more than it saves).
pub(super) const PARALLEL_MIN: usize = 2048;
