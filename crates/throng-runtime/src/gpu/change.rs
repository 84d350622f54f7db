//! The work of one playback change in GPU-timed mode, written against one instance's state
//! only (no `&mut GpuRuntime`): the single-change methods and [`Cx::apply_batch`] share it.
//!
//! Cost model (1M instances, 1 % changing: ~10 000 scattered instances per frame). A change
//! costs its arithmetic plus one cache miss on its 64 B state (and on its handle's slot once
//! an instance has been despawned); it writes its instance's record while that state is in
//! cache, into the frame's sequential list of record writes ([`Listed`]), so nothing visits
//! the instance again that frame. Batches prefetch ahead so the misses overlap (the state
//! and the list's next lines), the state sits on huge pages (`hugepage.rs`), and the
//! arithmetic avoids divisions, long conversion chains and work a change does not need.

use super::order::{self, BatchOrder};
use super::{
    past, Change, GInst, GLayer, GpuRuntime, AHEAD, G_BLEND, G_ENABLED, G_FADING, G_PAUSED,
    L_CLIP_MODE, L_FINISHED, L_FRESH, NO_WAKE, REANCHOR_TICKS,
};
use crate::api::{check_nonneg, check_speed, PlayOptions};
use crate::clips::Prepared;
use crate::handle::Handles;
use crate::prefetch::prefetch_write;
use crate::schedule::Entry;
use crate::{PlaybackCommand, RuntimeError, SECONDS_PER_TICK, TICKS_PER_SECOND};
use throng_contract::gpu_timed::TWO_POW_32;
use throng_contract::{
    GpuInstanceRecord, GpuLayer, GpuRecordWrite, GPU_ENABLED, GPU_HELD, GPU_TWO_LAYERS, MODE_LOOP,
    MODE_PINGPONG, MODE_SHIFT,
};

/// Longest crossfade, seconds (2^31 ticks): the state keeps a fade's end as 32 bits beside
/// its start. Longer fades are shortened to this.
pub const MAX_FADE_S: f64 = (1u64 << 31) as f64 / TICKS_PER_SECOND as f64;

/// Per clip and loop mode: what building a record layer needs, precomputed.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct ModeK {
    /// `1 / period` (0 where the period is 0): multiplications instead of divisions.
    pub inv: f64,
    /// `period / 2^32`: a phase word times this is a position in frames.
    pub scale: f64,
    /// ω of a layer at clip speed 1 and instance speed 1 (the common case), bit-identical
    /// to [`omega`] of that rate: a long chain of dependent conversions saved per record.
    pub omega1: (u32, f32),
    /// Frames per tick at speed 1 (`fps · 2^-20`: exact, so a rate built from it rounds
    /// as `fps · speeds · 2^-20` does).
    pub rate1: f64,
    /// A loop or ping-pong of a clip without events: never needs the CPU.
    pub quiet: bool,
}

impl ModeK {
    pub fn new(c: &Prepared, mode: u32) -> ModeK {
        let p = c.period(mode);
        let inv = if p > 0.0 { 1.0 / p } else { 0.0 };
        // the same product as `Cx::rate` with both speeds 1.0 (exact factors)
        let rate = c.fps * SECONDS_PER_TICK * 1.0f32 as f64 * 1.0f32 as f64;
        ModeK {
            inv,
            scale: if p > 0.0 { p / TWO_POW_32 } else { 0.0 },
            omega1: omega(rate, inv),
            rate1: c.fps * SECONDS_PER_TICK,
            quiet: c.events.is_empty() && (mode == MODE_LOOP || mode == MODE_PINGPONG),
        }
    }
}

/// The record's `(omega_hi, omega_lo)` of a layer playing `rate` frames per tick with period
/// `1 / inv` (see the module docs of `gpu.rs`).
#[inline]
fn omega(rate: f64, inv: f64) -> (u32, f32) {
    let w = (rate * inv).min(0.5) * TWO_POW_32;
    // SAFETY: rate, inv ≥ 0 and `min` returns 0.5 for a NaN product, so 0 ≤ w ≤ 2^31: in
    // range, where the unchecked conversion is one truncating instruction (the floor) without
    // the saturation fix-ups of `as`
    let hi = unsafe { w.to_int_unchecked::<i64>() };
    (hi as u32, ((w - hi as f64) * (1.0 / TWO_POW_32)) as f32)
}

/// Ticks of a crossfade of `duration_s` ≥ 0 seconds, at most [`MAX_FADE_S`], rounded.
#[inline(always)]
fn fade_ticks(duration_s: f32) -> u64 {
    // ≥ 0: adding ½ and truncating rounds without a libm call; the signed cast is one
    // instruction
    (duration_s.min(MAX_FADE_S as f32) as f64 * TICKS_PER_SECOND as f64 + 0.5) as i64 as u64
}

/// A batch's last crossfade duration and its length in ticks and weight rate (most batches
/// fade many instances over the same time).
#[derive(Default)]
pub(super) struct FadeLen {
    duration_s: f32,
    len: u64,
    w_rate: f32,
}

/// Context of a change: the clip table and the current tick.
#[derive(Clone, Copy)]
pub(super) struct Cx<'a> {
    pub clips: &'a [Prepared],
    /// Per clip and loop mode code (see `GpuRuntime::inv_period`).
    pub inv: &'a [[ModeK; 4]],
    pub now: u64,
}

/// The frame's record writes: one per listed (dirty) instance, kept equal to that instance's
/// record whenever its state changes, so a change writes its record while its state is in
/// cache and nothing revisits the instances afterwards. `dirty[p]` is the instance of
/// `writes[p]`; a listed instance keeps `p` in its flags ([`GInst::pos`]), and is listed
/// exactly when `dirty[pos] == its index` (so clearing the lists unlists everyone at once).
#[derive(Default)]
pub(super) struct Listed {
    pub dirty: Vec<u32>,
    pub writes: Vec<GpuRecordWrite>,
}

impl Listed {
    /// Position of instance `i` (state `g`) in the lists, if listed.
    #[inline(always)]
    pub fn position(&self, g: &GInst, i: usize) -> Option<usize> {
        let p = g.pos();
        (self.dirty.get(p) == Some(&(i as u32))).then_some(p)
    }

    /// Lists instance `i` (once) and writes its record from its current state.
    #[inline(always)]
    pub fn write(&mut self, cx: &Cx, g: &mut GInst, i: usize) {
        let p = match self.position(g, i) {
            Some(p) => p,
            None => {
                let p = self.dirty.len();
                g.set_pos(p);
                self.dirty.push(i as u32);
                self.writes.push(GpuRecordWrite {
                    index: i as u32,
                    ..GpuRecordWrite::default()
                });
                p
            }
        };
        if let Some(w) = self.writes.get_mut(p) {
            cx.write_record(g, &mut w.record);
        }
    }

    /// Unlists the entry at `p` (swap-remove; the entry moved into `p` is repointed in
    /// `state`).
    pub fn remove(&mut self, p: usize, state: &mut [GInst]) {
        self.dirty.swap_remove(p);
        self.writes.swap_remove(p);
        if let Some(&m) = self.dirty.get(p) {
            if let Some(g) = state.get_mut(m as usize) {
                g.set_pos(p);
            }
        }
    }

    pub fn clear(&mut self) {
        self.dirty.clear();
        self.writes.clear();
    }

    /// Room for `n` more entries, so that [`Self::prefetch_next`] may look past the end.
    pub fn reserve(&mut self, n: usize) {
        self.dirty.reserve(n);
        self.writes.reserve(n);
    }

    /// Prefetches, for writing, the entries a few listings ahead: each new entry is 64 B of
    /// lines the rest of the frame has usually pushed out of the caches, and a store to such a
    /// line waits for it to be read first (about a tenth of a cold batch without this).
    #[inline(always)]
    pub fn prefetch_next(&self) {
        let n = self.writes.len();
        prefetch_write(self.writes.as_ptr().wrapping_add(n + LIST_AHEAD), 64);
        prefetch_write(self.dirty.as_ptr().wrapping_add(n + 16 * LIST_AHEAD), 4);
    }
}

/// How many entries ahead [`Listed::prefetch_next`] prefetches.
const LIST_AHEAD: usize = 8;

/// Schedule entries and errors produced by a batch (its record writes go to [`Listed`]).
#[derive(Default)]
pub(super) struct Sink {
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

    #[inline]
    fn mk(&self, l: &GLayer) -> &ModeK {
        &self.inv[l.clip()][l.mode() as usize]
    }

    /// Frames per tick of a layer (instance speed and pause included).
    #[inline]
    pub fn rate(&self, g: &GInst, l: &GLayer) -> f64 {
        if g.paused() || l.finished() {
            return 0.0;
        }
        self.mk(l).rate1 * l.speed as f64 * g.speed as f64
    }

    /// Position (frames, reduced into the period) at the layer's anchor.
    #[inline]
    pub fn position(&self, l: &GLayer) -> f64 {
        if l.finished() {
            return self.clips[l.clip()].last;
        }
        l.phase as f64 * self.mk(l).scale
    }

    /// Sets the position at the anchor from `p` (frames, reduced into the period), rounded
    /// to the nearest 2^-32 of the period.
    #[inline]
    pub fn set_position(&self, l: &mut GLayer, p: f64) {
        let x = p * self.mk(l).inv * TWO_POW_32 + 0.5;
        // 0 ≤ x: the truncating signed cast is the floor; clamped into u32 (NaN → 0)
        l.phase = if x > 0.0 {
            (x as i64).min(u32::MAX as i64) as u32
        } else {
            0
        };
    }

    /// Unwrapped position of a layer at tick t ≤ now (not clamped).
    #[inline]
    pub fn pos_at(&self, g: &GInst, l: &GLayer, t: u64) -> f64 {
        let anchor = past(self.now, l.anchor);
        self.position(l) + t.saturating_sub(anchor) as f64 * self.rate(g, l)
    }

    /// Moves every layer's anchor to `now` (before a rate change).
    pub fn reanchor(&self, g: &mut GInst) {
        let gc = *g;
        for l in &mut g.layers[..gc.n()] {
            let c = &self.clips[l.clip()];
            let u = self.pos_at(&gc, l, self.now);
            let p = c.reduce_with_inverse(l.mode(), u, self.mk(l).inv);
            if !l.finished() {
                self.set_position(l, p);
            }
            l.anchor = self.now as u32;
        }
    }

    #[inline(always)]
    pub fn new_layer(&self, clip: usize, opts: &PlayOptions) -> Result<GLayer, RuntimeError> {
        self.check_clip(clip)?;
        check_speed(opts.speed)?;
        check_nonneg("start time", opts.start_time as f64)?;
        let c = &self.clips[clip];
        let mode = opts
            .loop_mode
            .map(throng_contract::LoopMode::code)
            .unwrap_or(c.mode);
        let mut l = GLayer {
            phase: 0,
            anchor: self.now as u32,
            speed: opts.speed,
            bits: clip as u32 | mode << MODE_SHIFT | L_FRESH,
        };
        // every mode reduces 0 to 0: skip the call in the common case
        if opts.start_time != 0.0 {
            self.set_position(&mut l, c.reduce(mode, opts.start_time as f64 * c.fps));
        }
        Ok(l)
    }

    /// Applies one change to an instance's state; false when nothing changed. Validation
    /// errors leave the state as it was.
    #[inline(always)]
    pub fn change(&self, g: &mut GInst, c: &Change) -> Result<bool, RuntimeError> {
        let now = self.now;
        match c.command {
            PlaybackCommand::Play {
                clip,
                options: opts,
            } => {
                let clip = clip.index();
                let l = self.new_layer(clip, &opts)?;
                g.layers[0] = l;
                g.set_n(1);
                g.set(G_BLEND | G_FADING, false);
                g.last = now as u32;
            }
            PlaybackCommand::Crossfade {
                clip: id,
                seconds: duration_s,
                options: opts,
            } => {
                let clip = id.index();
                check_nonneg("crossfade duration", duration_s as f64)?;
                let new = self.new_layer(clip, &opts)?;
                let len = fade_ticks(duration_s);
                if g.n() == 0 || len == 0 {
                    let play = PlaybackCommand::Play {
                        clip: id,
                        options: opts,
                    };
                    return self.change(g, &Change::new(c.handle, play));
                }
                // no re-anchoring: the layers' rates do not change, so their (anchor, phase)
                // pairs stay exact (the sweep keeps anchors recent, see the module docs)
                if g.n() == 2 && GpuRuntime::w1_at(g, now) > 0.5 {
                    g.layers[0] = g.layers[1];
                }
                g.layers[1] = new;
                g.set_n(2);
                g.set(G_BLEND, false);
                g.set(G_FADING, true);
                g.w_anchor = now as u32;
                g.w_start = 0.0;
                g.w_rate = (1.0 / len as i64 as f64) as f32;
                g.fade_end = (now + len) as u32;
                g.last = now as u32;
            }
            PlaybackCommand::Blend { a, b, weight } => {
                let (clip_a, clip_b) = (a.index(), b.index());
                self.check_clip(clip_a)?;
                self.check_clip(clip_b)?;
                let (da, db) = (self.clips[clip_a].duration, self.clips[clip_b].duration);
                let [sa, sb] = crate::api::blend_sync(da, db, weight)?;
                let same = g.has(G_BLEND)
                    && g.n() == 2
                    && g.layers[0].clip() == clip_a
                    && g.layers[1].clip() == clip_b;
                if same {
                    self.reanchor(g);
                } else {
                    let a = self.new_layer(clip_a, &PlayOptions::default())?;
                    let b = self.new_layer(clip_b, &PlayOptions::default())?;
                    g.layers = [a, b];
                    g.last = now as u32;
                }
                g.layers[0].speed = sa;
                g.layers[1].speed = sb;
                g.set_n(2);
                g.set(G_BLEND, true);
                g.set(G_FADING, false);
                g.w_anchor = now as u32;
                g.w_start = weight;
                g.w_rate = 0.0;
            }
            PlaybackCommand::Layer {
                clip,
                mask,
                weight,
                options: opts,
            } => {
                let clip = clip.index();
                let mut l = self.new_layer(clip, &opts)?;
                l.bits |= crate::api::check_overlay(clip, self.clips[clip].additive, mask, weight)?;
                let key = |l: &GLayer| l.bits & L_CLIP_MODE;
                let same = g.n() == 2 && !g.has(G_BLEND | G_FADING) && key(&g.layers[1]) == key(&l);
                if !same {
                    if g.n() == 2 && g.has(G_FADING) && GpuRuntime::w1_at(g, now) > 0.5 {
                        g.layers[0] = g.layers[1];
                    }
                    g.layers[1] = l;
                    g.last = now as u32;
                }
                g.set_n(2);
                g.set(G_BLEND | G_FADING, false);
                g.w_anchor = now as u32;
                g.w_start = weight;
                g.w_rate = 0.0;
            }
            PlaybackCommand::Speed(speed) => {
                check_speed(speed)?;
                self.reanchor(g);
                g.speed = speed;
            }
            PlaybackCommand::Pause => {
                self.reanchor(g);
                g.set(G_PAUSED, true);
            }
            PlaybackCommand::Resume => {
                self.reanchor(g);
                g.set(G_PAUSED, false);
            }
            PlaybackCommand::Seek(time_s) => {
                check_nonneg("seek time", time_s as f64)?;
                if g.n() == 0 {
                    return Ok(false);
                }
                let (blend, n) = (g.has(G_BLEND), g.n());
                let range = if blend { 0..2 } else { n - 1..n };
                for l in &mut g.layers[range] {
                    let c = &self.clips[l.clip()];
                    let sync = if blend { l.speed as f64 } else { 1.0 };
                    l.set(L_FINISHED, false);
                    l.set(L_FRESH, true);
                    self.set_position(l, c.reduce(l.mode(), time_s as f64 * c.fps * sync));
                    l.anchor = now as u32;
                }
                g.last = now as u32;
            }
            PlaybackCommand::Enable(enabled) => g.set(G_ENABLED, enabled),
        }
        Ok(true)
    }

    /// The common crossfade — default play options, a valid clip, two quiet layers after it
    /// and no wake pending — applied in a few dozen instructions; false (nothing changed) when
    /// the change is not that case and must take [`Cx::change`]. The state it leaves is the
    /// one `change` leaves (`tests/gpu_timed.rs` compares batches with single calls).
    #[inline(always)]
    fn crossfade_fast(
        &self,
        g: &mut GInst,
        clip: usize,
        duration_s: f32,
        opts: &PlayOptions,
        fade: &mut FadeLen,
    ) -> bool {
        if *opts != PlayOptions::default() || clip >= self.clips.len() || g.n() == 0 {
            return false;
        }
        if fade.duration_s.to_bits() != duration_s.to_bits() {
            if !(duration_s.is_finite() && duration_s >= 0.0) {
                return false;
            }
            let len = fade_ticks(duration_s);
            *fade = FadeLen {
                duration_s,
                len,
                w_rate: (1.0 / len as i64 as f64) as f32,
            };
        }
        if fade.len == 0 || g.wake != NO_WAKE {
            return false;
        }
        let mode = self.clips[clip].mode;
        let keep = if g.n() == 2 && GpuRuntime::w1_at(g, self.now) > 0.5 {
            g.layers[1]
        } else {
            g.layers[0]
        };
        let quiet = |l: &GLayer| l.finished() || self.mk(l).quiet;
        if !self.inv[clip][(mode & 3) as usize].quiet || !quiet(&keep) {
            return false;
        }
        let now = self.now as u32;
        g.layers = [
            keep,
            GLayer {
                phase: 0,
                anchor: now,
                speed: 1.0,
                bits: clip as u32 | mode << MODE_SHIFT | L_FRESH,
            },
        ];
        g.set_n(2);
        g.set(G_BLEND, false);
        g.set(G_FADING, true);
        g.w_anchor = now;
        g.w_start = 0.0;
        g.w_rate = fade.w_rate;
        g.fade_end = (self.now + fade.len) as u32;
        g.last = now;
        true
    }

    /// Lists instance `i` (when `changed`) with its new record and returns the schedule entry
    /// to push if its next wake moved earlier.
    #[inline(always)]
    pub fn touch(
        &self,
        g: &mut GInst,
        i: usize,
        listed: &mut Listed,
        changed: bool,
    ) -> Option<u64> {
        if !changed {
            return None;
        }
        let t = self.reschedule(g);
        listed.write(self, g, i);
        t
    }

    /// Lowers the instance's wake to its next wake; returns that tick if it moved (the caller
    /// pushes a schedule entry).
    #[inline(always)]
    pub fn reschedule(&self, g: &mut GInst) -> Option<u64> {
        let t = self.next_wake(g);
        if t == u64::MAX {
            return None;
        }
        let pending =
            (g.wake != NO_WAKE).then(|| self.now + g.wake.wrapping_sub(self.now as u32) as u64);
        if pending.is_some_and(|w| w <= t) {
            return None;
        }
        // a tick whose low bits read as "none" is woken one tick later
        let t = if t as u32 == NO_WAKE { t + 1 } else { t };
        g.wake = t as u32;
        Some(t)
    }

    /// Writes the record of an instance in place, field by field. (Building it in a local
    /// and copying it out made the copy's wide loads wait on the narrow stores that built it:
    /// a failed store-to-load forwarding per record.)
    pub fn write_record(&self, g: &GInst, r: &mut GpuInstanceRecord) {
        if !g.enabled() || g.n() == 0 {
            *r = GpuInstanceRecord::default();
            return;
        }
        r.flags = GPU_ENABLED;
        for k in 0..2 {
            if k < g.n() {
                self.write_layer(g, k, &mut r.layers[k]);
            } else {
                r.layers[k] = GpuLayer::default();
            }
        }
        if g.n() == 2 {
            r.flags |= GPU_TWO_LAYERS;
            r.w_anchor = g.w_anchor;
            r.w_start = g.w_start;
            r.w_rate = g.w_rate;
        } else {
            r.w_anchor = 0;
            r.w_start = 0.0;
            r.w_rate = 0.0;
        }
    }

    /// Writes layer `k` of the record from the instance's layer `k`.
    #[inline(always)]
    fn write_layer(&self, g: &GInst, k: usize, gl: &mut GpuLayer) {
        let l = &g.layers[k];
        let mk = self.mk(l);
        gl.anchor = l.anchor;
        gl.clip_mode = l.bits & L_CLIP_MODE;
        if l.finished() {
            gl.clip_mode |= GPU_HELD;
        }
        if l.finished() || mk.inv <= 0.0 {
            gl.phase = 0;
            gl.omega_hi = 0;
            gl.omega_lo = 0.0;
        } else {
            gl.phase = l.phase;
            let (hi, lo) = if l.speed == 1.0 && g.speed == 1.0 && !g.paused() {
                mk.omega1
            } else {
                omega(self.rate(g, l), mk.inv)
            };
            gl.omega_hi = hi;
            gl.omega_lo = lo;
        }
    }

    /// Next tick at which the instance needs the CPU (u64::MAX: never). At most
    /// `REANCHOR_TICKS / 2` ahead, so that the 32-bit ticks of the state stay unambiguous.
    #[inline(always)]
    pub fn next_wake(&self, g: &GInst) -> u64 {
        // the common case inline: loops without events and ended one-shots need no wake
        if g.layers[..g.n()]
            .iter()
            .all(|l| l.finished() || self.mk(l).quiet)
        {
            return u64::MAX;
        }
        self.next_wake_slow(g)
    }

    #[inline(never)]
    fn next_wake_slow(&self, g: &GInst) -> u64 {
        let mut w = u64::MAX;
        let last = past(self.now, g.last);
        // the outgoing layer of a crossfade fires nothing from the fade's end on
        let fade_end = if g.n() == 2 {
            g.fade_end_at(self.now)
        } else {
            None
        };
        for k in 0..g.n() {
            let l = &g.layers[k];
            if l.finished() {
                continue;
            }
            if self.mk(l).quiet {
                continue; // a loop without events never needs the CPU (`next_event_u`: None)
            }
            let c = &self.clips[l.clip()];
            let rate = self.rate(g, l);
            if rate <= 0.0 {
                if l.fresh() && (c.is_static() || !c.events.is_empty()) && !g.paused() {
                    // zero-length clip or events at the start: fire on the next update
                    w = w.min(last + 1);
                }
                continue;
            }
            let u = self.pos_at(g, l, last);
            if let Some(m) = c.next_event_u(l.mode(), u) {
                let dt = ((m - self.position(l)) / rate).ceil();
                if dt < 1.0e18 {
                    let t = past(self.now, l.anchor) + dt.max(0.0) as u64;
                    if !(k == 0 && fade_end.is_some_and(|e| t >= e)) {
                        w = w.min(t);
                    }
                }
            }
        }
        if w == u64::MAX {
            w
        } else {
            w.max(last + 1).min(self.now + REANCHOR_TICKS / 2)
        }
    }

    /// Applies a batch: in batch order, or — a long batch on a large store — bucketed by
    /// instance index (`order.rs`: the same states and records, visited in memory order).
    /// Prefetches a few changes ahead; errors are reported by batch index, in batch order.
    pub fn apply_batch(
        &self,
        handles: &Handles,
        changes: &[Change],
        (state, listed): (&mut [GInst], &mut Listed),
        order: &mut BatchOrder,
        out: &mut Sink,
    ) {
        listed.reserve(changes.len());
        if changes.len() < order::MIN_CHANGES || state.len() < order::MIN_INSTANCES {
            self.apply_in_order(handles, changes, state, listed, out);
            return;
        }
        order.build(handles, changes, state.len());
        let (index, order) = (&order.index, &order.order);
        // a raw pointer: prefetching reads nothing, so it borrows nothing
        let base = state.as_ptr();
        let prefetch_state = |p: usize| {
            let j = order.get(p).and_then(|&k| index.get(k as usize));
            if let Some(&j) = j.filter(|&&j| j != order::DEAD) {
                prefetch_write(base.wrapping_add(j as usize), 64);
            }
        };
        (0..AHEAD).for_each(prefetch_state);
        let mut fade = FadeLen::default();
        for (p, &k) in order.iter().enumerate() {
            prefetch_state(p + AHEAD);
            listed.prefetch_next();
            let (k, c) = (k as usize, &changes[k as usize]);
            match index[k] {
                order::DEAD => out
                    .errors
                    .push((k, RuntimeError::DeadHandle { handle: c.handle() })),
                i => self.apply_one((k, c), i as usize, state, listed, out, &mut fade),
            }
        }
        // dead handles were taken last: batch order again
        out.errors.sort_by_key(|e| e.0);
    }

    /// Applies a batch in order, prefetching a few changes ahead: the slot of the change
    /// `2 · AHEAD` ahead, the instance state of the one `AHEAD` ahead.
    fn apply_in_order(
        &self,
        handles: &Handles,
        changes: &[Change],
        state: &mut [GInst],
        listed: &mut Listed,
        out: &mut Sink,
    ) {
        // dense indices of the next changes, looked up once when prefetching
        const RING: usize = 2 * AHEAD;
        let mut ring = [None; RING];
        let mut fade = FadeLen::default();
        for c in changes.iter().take(2 * AHEAD) {
            handles.prefetch(c.handle());
        }
        for (k, c) in changes.iter().enumerate().take(AHEAD) {
            ring[k % RING] = handles.index(c.handle());
            if let Some(j) = ring[k % RING] {
                prefetch_write(state.as_ptr().wrapping_add(j), std::mem::size_of::<GInst>());
            }
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
                }
            }
            listed.prefetch_next();
            match ring[k % RING] {
                Some(i) => self.apply_one((k, c), i, state, listed, out, &mut fade),
                None => out
                    .errors
                    .push((k, RuntimeError::DeadHandle { handle: c.handle() })),
            }
        }
    }

    /// Applies change `k` of a batch, `c`, to instance `i`: the short crossfade path when it
    /// applies, else [`Cx::change`]; lists the instance and schedules its wake.
    #[inline(always)]
    fn apply_one(
        &self,
        (k, c): (usize, &Change),
        i: usize,
        state: &mut [GInst],
        listed: &mut Listed,
        out: &mut Sink,
        fade: &mut FadeLen,
    ) {
        let Some(g) = state.get_mut(i) else {
            return;
        };
        if let PlaybackCommand::Crossfade {
            clip,
            seconds,
            options,
        } = c.command
        {
            if self.crossfade_fast(g, clip.index(), seconds, &options, fade) {
                listed.write(self, g, i);
                return;
            }
        }
        match self.change(g, c) {
            Ok(changed) => {
                if let Some(t) = self.touch(g, i, listed, changed) {
                    let h = c.handle();
                    out.wakes.push((t, h.slot, h.generation));
                }
            }
            Err(e) => out.errors.push((k, e)),
        }
    }
}
