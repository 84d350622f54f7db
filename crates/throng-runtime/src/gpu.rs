//! GPU-timed playback (docs/design.md §4): the GPU derives rows and fracs from a compact
//! per-instance record and a global clock; the CPU writes a record only when that instance's
//! playback changes, so a frame costs O(changes + events fired), not O(instances).
//!
//! # Clock
//! The runtime [`Clock`] counts ticks of [`TICKS_PER_SECOND`](crate::TICKS_PER_SECOND) = 2^20
//! in a `u64`; the GPU gets its low 32 bits (`clock`, a `u32` uniform; it wraps every 4096 s,
//! which the wrapping subtraction below absorbs).
//!
//! # Record layout and per-layer computation
//! The 56 B record, its fields and the arithmetic the GPU does with them are the contract's:
//! see `throng_contract::gpu_timed` (its `gpu_layers` is the CPU twin of the shader).
//!
//! # Precision
//! Whole periods are removed exactly by the wrapping integer product, so only the fractional
//! period is ever rounded to f32. The CPU re-anchors every playing layer at least every
//! [`REANCHOR_TICKS`] = 2^28 ticks (256 s), keeping `e < 2^28`: a sweep visits every instance
//! once per 2^27 ticks (a few instances per update, in dense order) and re-anchors the layers
//! anchored more than 2^27 ticks ago. The error in φ is then below
//! ~1.5e-7 periods (f32(a) ≤ 2^-25, the `omega_lo` term ≤ 2^-4 · 2^-23, the sum ≤ 2^-24), i.e.
//! ≤ 1e-4 frames for periods up to ~600 frames — after any length of play (the 24 h test in
//! `tests/gpu_timed.rs` compares with f64 truth). A one-shot is rewritten with `HELD` when it
//! ends, before its phase could wrap. Re-anchoring costs one record write per playing instance
//! per 128 s (1M instances: ~130 per frame at 60 Hz), written like any change.
//!
//! # Events and changes
//! Each instance has at most one live entry in a schedule (timing wheel + far min-heap, see
//! `schedule.rs`) keyed by its next *wake* tick: the
//! next event crossing, one-shot end, crossfade end or re-anchor. `update` pops only entries
//! that are due. Records changed since the last [`GpuRuntime::clear_dirty`] are listed by
//! [`GpuRuntime::dirty`].
//!
//! # Cost of a change
//! A change rewrites one record, lists the instance as dirty once and updates its schedule
//! entry; with 1M instances its cost is mostly cache misses on its state (2 lines) and record
//! (56 B: 1.75 lines on average), plus its handle's slot (1 line) once any instance has been
//! despawned (before that a handle is its dense index, see `handle.rs`).
//! [`GpuRuntime::apply`] prefetches a few
//! changes ahead so these overlap, the arrays live on transparent huge pages (no page walk per
//! miss), and a crossfade neither re-anchors (rates are unchanged) nor recomputes the
//! outgoing layer's record bytes. Measured on a 2-core VM: ~28 ns of arithmetic per
//! crossfade, ~50–90 ns in all depending on how much of the store the caches hold; one core
//! keeps only ~16 misses in flight, which bounds a 10 000-change batch to ≳0.4 ms.
//!
//! Limits of this mode: two layers (crossfading during a crossfade or blend keeps the stronger
//! layer as the outgoing one and drops the weaker, a visible step of its weight); no root motion
//! (it needs a per-frame CPU transform update: use [`crate::CpuRuntime`] for such groups).

use crate::api::{Finished, FiredEvent, PlayOptions};
use crate::clips::Prepared;
use crate::handle::Handles;
use crate::schedule::Schedule;
use crate::{Clock, Handle, InstanceRecord, InstanceTransform, RuntimeError, SECONDS_PER_TICK};
use bytemuck::Zeroable;
use change::{Cx, Sink, Write};
use throng_asset::{ClipInfo, Layer};
use throng_contract::{gpu_layers, GpuClipTable, GpuInstanceRecord, MODE_CLAMP, MODE_ONCE};

mod change;

/// Every playing layer is re-anchored at least this often (ticks; 256 s).
pub const REANCHOR_TICKS: u64 = 1 << 28;

/// One playback change for [`GpuRuntime::apply`] (same meaning as the method of that name).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Change {
    Play(Handle, usize, PlayOptions),
    Crossfade(Handle, usize, f32, PlayOptions),
    Blend(Handle, usize, usize, f32),
    SetSpeed(Handle, f32),
    Pause(Handle),
    Resume(Handle),
    Seek(Handle, f32),
    SetEnabled(Handle, bool),
}

impl Change {
    pub fn handle(&self) -> Handle {
        match *self {
            Change::Play(h, ..)
            | Change::Crossfade(h, ..)
            | Change::Blend(h, ..)
            | Change::SetSpeed(h, _)
            | Change::Pause(h)
            | Change::Resume(h)
            | Change::Seek(h, _)
            | Change::SetEnabled(h, _) => h,
        }
    }
}

/// How far ahead batch operations prefetch (items).
const AHEAD: usize = 8;

/// CPU-side state of one layer (exact, f64).
#[derive(Debug, Clone, Copy, Default)]
struct GLayer {
    clip: u32,
    mode: u32,
    /// Clip speed × blend sync factor.
    speed: f32,
    /// Tick at which the layer was at `p`.
    anchor: u64,
    /// Position (frames) at `anchor`, reduced into the period.
    p: f64,
    fresh: bool,
    finished: bool,
}

/// 128 B, aligned to cache lines: a change touches two lines of state.
#[derive(Debug, Clone, Copy)]
#[repr(align(64))]
struct GInst {
    layers: [GLayer; 2],
    n: u8,
    enabled: bool,
    paused: bool,
    blend: bool,
    speed: f32,
    /// Layer 1 weight: `w_start + (t − w_anchor) · w_rate` (ticks), clamped.
    w_anchor: u64,
    w_start: f64,
    w_rate: f64,
    /// Crossfade end tick (u64::MAX: none).
    fade_end: u64,
    /// Events and ends have been processed up to this tick.
    last: u64,
    /// Tick of this instance's live schedule entry (u64::MAX: none).
    wake: u64,
    dirty: bool,
}

impl Default for GInst {
    fn default() -> Self {
        GInst {
            layers: [GLayer::default(); 2],
            n: 0,
            enabled: true,
            paused: false,
            blend: false,
            speed: 1.0,
            w_anchor: 0,
            w_start: 0.0,
            w_rate: 0.0,
            fade_end: u64::MAX,
            last: 0,
            wake: u64::MAX,
            dirty: false,
        }
    }
}

/// GPU-timed runtime. See the module docs.
pub struct GpuRuntime {
    clips: Vec<Prepared>,
    /// Per clip and loop mode code: `1 / period` and the record's ω at speed 1 (see
    /// [`change::ModeK`]).
    inv_period: Vec<[change::ModeK; 4]>,
    gpu_clips: GpuClipTable,
    handles: Handles,
    state: Vec<GInst>,
    records: Vec<GpuInstanceRecord>,
    transforms: Vec<InstanceTransform>,
    schedule: Schedule,
    due: Vec<(u64, u32, u32)>,
    /// Next dense index the re-anchoring sweep visits, and the fractional instance carry.
    sweep: usize,
    sweep_carry: f64,
    dirty: Vec<u32>,
    clock: Clock,
    events: Vec<FiredEvent>,
    finished: Vec<Finished>,
    hits: Vec<(f64, u32)>,
}

crate::handle::instance_lookup!(GpuRuntime);

impl GpuRuntime {
    pub fn new(clips: &[ClipInfo]) -> GpuRuntime {
        let prepared: Vec<Prepared> = clips.iter().map(Prepared::new).collect();
        let inv_period = prepared
            .iter()
            .map(|c| [0, 1, 2, 3].map(|mode| change::ModeK::new(c, mode)))
            .collect();
        GpuRuntime {
            clips: prepared,
            inv_period,
            gpu_clips: throng_asset::gpu_clip_table(clips),
            handles: Handles::default(),
            state: Vec::new(),
            records: Vec::new(),
            transforms: Vec::new(),
            schedule: Schedule::default(),
            due: Vec::new(),
            sweep: 0,
            sweep_carry: 0.0,
            dirty: Vec::new(),
            clock: Clock::new(),
            events: Vec::new(),
            finished: Vec::new(),
            hits: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.handles.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The GPU clip table (clips and frame-time lists) the records are timed against.
    pub fn gpu_clip_table(&self) -> &GpuClipTable {
        &self.gpu_clips
    }

    /// Clock value for the GPU (`u32` uniform): low 32 bits of the tick count.
    pub fn gpu_clock(&self) -> u32 {
        self.clock.ticks() as u32
    }

    /// Whole ticks since creation.
    pub fn ticks(&self) -> u64 {
        self.clock.ticks()
    }

    /// Seconds since creation.
    pub fn time(&self) -> f64 {
        self.clock.seconds()
    }

    /// Reserves room for `additional` more instances (large stores on huge pages, see
    /// `hugepage.rs`; `spawn` grows the same way).
    pub fn reserve(&mut self, additional: usize) {
        crate::hugepage::reserve(&mut self.state, additional);
        crate::hugepage::reserve(&mut self.records, additional);
        self.transforms.reserve(additional);
        self.handles.reserve(additional);
    }

    pub fn spawn(&mut self, transform: InstanceTransform) -> Handle {
        // the arrays a change touches at random grow onto huge pages
        crate::hugepage::reserve(&mut self.state, 1);
        crate::hugepage::reserve(&mut self.records, 1);
        let h = self.handles.spawn();
        let g = GInst {
            last: self.clock.ticks(),
            ..GInst::default()
        };
        self.state.push(g);
        self.records.push(GpuInstanceRecord::zeroed());
        self.transforms.push(transform);
        let i = self.state.len() - 1;
        self.touch(i, h);
        h
    }

    pub fn despawn(&mut self, h: Handle) -> Result<(), RuntimeError> {
        let i = self.handles.remove(h)?;
        self.state.swap_remove(i);
        self.records.swap_remove(i);
        self.transforms.swap_remove(i);
        if i < self.state.len() {
            // the moved instance's record now lives at i
            self.state[i].dirty = true;
            self.dirty.push(i as u32);
        }
        Ok(())
    }

    /// Frames per tick of a layer (instance speed and pause included).
    fn rate(&self, g: &GInst, l: &GLayer) -> f64 {
        rate_of(&self.clips, g, l)
    }

    /// Unwrapped position of a layer at tick t (not clamped).
    fn pos_at(&self, g: &GInst, l: &GLayer, t: u64) -> f64 {
        l.p + t.saturating_sub(l.anchor) as f64 * self.rate(g, l)
    }

    /// Layer 1 weight at tick t (f64 truth).
    fn w1_at(g: &GInst, t: u64) -> f64 {
        if g.n < 2 {
            return 0.0;
        }
        // < 2^63: the signed conversion is one instruction and rounds the same
        let e = t.saturating_sub(g.w_anchor) as i64 as f64;
        (g.w_start + e * g.w_rate).clamp(0.0, 1.0)
    }

    /// Applies one change to a live instance and rebuilds its record.
    fn change(&mut self, c: Change) -> Result<(), RuntimeError> {
        let h = c.handle();
        let i = self.idx(h)?;
        let cx = Cx::new(&self.clips, &self.inv_period, self.clock.ticks());
        let g = &mut self.state[i];
        let what = cx.change(g, &c)?;
        if let Some(t) = cx.touch(g, &mut self.records[i], i, &mut self.dirty, what) {
            self.schedule.push((t, h.slot, h.generation));
        }
        Ok(())
    }

    pub fn play(&mut self, h: Handle, clip: usize, opts: PlayOptions) -> Result<(), RuntimeError> {
        self.change(Change::Play(h, clip, opts))
    }

    pub fn crossfade(
        &mut self,
        h: Handle,
        clip: usize,
        duration_s: f32,
    ) -> Result<(), RuntimeError> {
        self.crossfade_with(h, clip, duration_s, PlayOptions::default())
    }

    /// Crossfade (linear weights over `duration_s` seconds of clock time). See the module docs
    /// for the two-layer limit of this mode.
    pub fn crossfade_with(
        &mut self,
        h: Handle,
        clip: usize,
        duration_s: f32,
        opts: PlayOptions,
    ) -> Result<(), RuntimeError> {
        self.change(Change::Crossfade(h, clip, duration_s, opts))
    }

    /// Two-clip blend in normalised time (see [`crate::CpuRuntime::blend`]).
    pub fn blend(
        &mut self,
        h: Handle,
        clip_a: usize,
        clip_b: usize,
        weight: f32,
    ) -> Result<(), RuntimeError> {
        self.change(Change::Blend(h, clip_a, clip_b, weight))
    }

    pub fn set_speed(&mut self, h: Handle, speed: f32) -> Result<(), RuntimeError> {
        self.change(Change::SetSpeed(h, speed))
    }

    /// Freezes clip time (crossfades keep running on the clock in this mode).
    pub fn pause(&mut self, h: Handle) -> Result<(), RuntimeError> {
        self.change(Change::Pause(h))
    }

    pub fn resume(&mut self, h: Handle) -> Result<(), RuntimeError> {
        self.change(Change::Resume(h))
    }

    /// Jumps the newest layer (a blend: both, in normalised time) to `time_s`.
    pub fn seek(&mut self, h: Handle, time_s: f32) -> Result<(), RuntimeError> {
        self.change(Change::Seek(h, time_s))
    }

    /// Applies a batch of changes in order, prefetching the instances a few changes ahead
    /// (much faster than one call per change when the instances are scattered over a large
    /// store). Returns the failed changes as (index in `changes`, error); the others apply.
    pub fn apply(&mut self, changes: &[Change]) -> Vec<(usize, RuntimeError)> {
        let cx = Cx::new(&self.clips, &self.inv_period, self.clock.ticks());
        let mut out = Sink {
            dirty: std::mem::take(&mut self.dirty),
            ..Sink::default()
        };
        let (state, records) = (&mut self.state[..], &mut self.records[..]);
        cx.apply_batch(&self.handles, changes, state, records, &mut out);
        self.dirty = out.dirty;
        for (t, slot, generation) in out.wakes {
            self.schedule.push((t, slot, generation));
        }
        out.errors
    }

    /// Prefetches (for writing) an instance's state and both lines its record may straddle.
    fn prefetch_instance(&self, i: usize) {
        use crate::prefetch::prefetch_write;
        prefetch_write(
            self.state.as_ptr().wrapping_add(i),
            std::mem::size_of::<GInst>(),
        );
        prefetch_write(
            self.records.as_ptr().wrapping_add(i),
            std::mem::size_of::<GpuInstanceRecord>(),
        );
    }

    pub fn set_enabled(&mut self, h: Handle, enabled: bool) -> Result<(), RuntimeError> {
        self.change(Change::SetEnabled(h, enabled))
    }

    pub fn is_finished(&self, h: Handle) -> Result<bool, RuntimeError> {
        let g = &self.state[self.idx(h)?];
        Ok(g.n > 0 && g.layers[g.n as usize - 1].finished)
    }

    pub fn transform(&self, h: Handle) -> Result<InstanceTransform, RuntimeError> {
        Ok(self.transforms[self.idx(h)?])
    }

    /// Sets a transform (the instance is listed in [`Self::dirty`]).
    pub fn set_transform(&mut self, h: Handle, t: InstanceTransform) -> Result<(), RuntimeError> {
        let i = self.idx(h)?;
        self.transforms[i] = t;
        self.mark_dirty(i);
        Ok(())
    }

    pub fn records(&self) -> &[GpuInstanceRecord] {
        &self.records
    }

    pub fn record(&self, h: Handle) -> Result<GpuInstanceRecord, RuntimeError> {
        Ok(self.records[self.idx(h)?])
    }

    pub fn transforms(&self) -> &[InstanceTransform] {
        &self.transforms
    }

    /// Dense indices whose record or transform changed since the last [`Self::clear_dirty`]
    /// (unordered; may hold an index twice; upload e.g. as (index, record) pairs scattered by
    /// a compute pass, or via [`Self::dirty_ranges`]).
    pub fn dirty(&self) -> &[u32] {
        &self.dirty
    }

    /// The dirty indices sorted and merged into ranges.
    pub fn dirty_ranges(&self) -> Vec<std::ops::Range<usize>> {
        let mut v: Vec<usize> = self
            .dirty
            .iter()
            .map(|&i| i as usize)
            .filter(|&i| i < self.state.len())
            .collect();
        v.sort_unstable();
        v.dedup();
        let mut out: Vec<std::ops::Range<usize>> = Vec::new();
        for i in v {
            match out.last_mut() {
                Some(r) if r.end == i => r.end = i + 1,
                _ => out.push(i..i + 1),
            }
        }
        out
    }

    pub fn clear_dirty(&mut self) {
        for &i in &self.dirty {
            if let Some(g) = self.state.get_mut(i as usize) {
                g.dirty = false;
            }
        }
        self.dirty.clear();
    }

    pub fn events(&self) -> &[FiredEvent] {
        &self.events
    }

    pub fn finished(&self) -> &[Finished] {
        &self.finished
    }

    /// Rows and fracs from the exact f64 state at the current clock (what [`gpu_layers`]
    /// approximates).
    pub fn exact_record(&self, h: Handle) -> Result<InstanceRecord, RuntimeError> {
        let i = self.idx(h)?;
        Ok(self.exact_at(i, self.clock.ticks()))
    }

    fn exact_at(&self, i: usize, t: u64) -> InstanceRecord {
        let g = &self.state[i];
        let mut out = InstanceRecord::zeroed();
        if !g.enabled || g.n == 0 {
            return out;
        }
        let w1 = GpuRuntime::w1_at(g, t) as f32;
        for k in 0..g.n as usize {
            let l = &g.layers[k];
            let c = &self.clips[l.clip as usize];
            let q = if l.finished {
                c.last
            } else {
                c.shown(c.reduce(l.mode, self.pos_at(g, l, t)))
            };
            let (row, frac) = c.frame(q);
            out.layers[k] = Layer {
                weight: if k == 0 { 1.0 - w1 } else { w1 },
                frac,
                row: row as f32,
                clip: l.clip as f32,
            };
        }
        out
    }

    /// World transform of an anchor at the current clock (from [`gpu_layers`]).
    pub fn anchor_world(
        &self,
        h: Handle,
        anchors: &throng_asset::AnchorTexture,
        anchor: usize,
    ) -> Result<glam::Mat4, RuntimeError> {
        let i = self.idx(h)?;
        let r = gpu_layers(&self.records[i], &self.gpu_clips, self.gpu_clock());
        crate::anchor::anchor_world(&r, &self.transforms[i], anchors, anchor)
    }

    fn mark_dirty(&mut self, i: usize) {
        if !self.state[i].dirty {
            self.state[i].dirty = true;
            self.dirty.push(i as u32);
        }
    }

    /// Rebuilds the record of instance i, marks it dirty and reschedules it.
    fn touch(&mut self, i: usize, h: Handle) {
        let cx = Cx::new(&self.clips, &self.inv_period, self.clock.ticks());
        let (g, rec) = (&mut self.state[i], &mut self.records[i]);
        if let Some(t) = cx.touch(g, rec, i, &mut self.dirty, Write::Record) {
            self.schedule.push((t, h.slot, h.generation));
        }
    }

    fn schedule(&mut self, i: usize, h: Handle) {
        let cx = Cx::new(&self.clips, &self.inv_period, self.clock.ticks());
        if let Some(t) = cx.reschedule(&mut self.state[i]) {
            self.schedule.push((t, h.slot, h.generation));
        }
    }

    /// Advances the clock by `dt` seconds and processes the instances that are due: events,
    /// one-shot ends, crossfade ends, re-anchoring.
    pub fn update(&mut self, dt: f64) {
        self.events.clear();
        self.finished.clear();
        let advanced = self.clock.advance(dt);
        let now = self.clock.ticks();
        self.sweep_reanchor(advanced, now);
        let mut due = std::mem::take(&mut self.due);
        due.clear();
        self.schedule.pop_due(now, &mut due);
        // slot order: nearby instances together; prefetch ahead as in `apply`
        due.sort_unstable_by_key(|e| e.1);
        for k in 0..due.len() {
            let (t, slot, generation) = due[k];
            if let Some(&(_, s, g)) = due.get(k + 2 * AHEAD) {
                self.handles.prefetch(Handle {
                    slot: s,
                    generation: g,
                });
            }
            if let Some(&(_, s, g)) = due.get(k + AHEAD) {
                if let Some(i) = self.handles.index(Handle {
                    slot: s,
                    generation: g,
                }) {
                    self.prefetch_instance(i);
                }
            }
            let h = Handle { slot, generation };
            let Some(i) = self.handles.index(h) else {
                continue;
            };
            if self.state[i].wake != t {
                continue; // superseded by an earlier entry
            }
            self.state[i].wake = u64::MAX;
            self.process(i, h, now);
        }
        self.due = due;
        if self.schedule.far_len() > 2 * self.state.len() + 4096 {
            let (handles, state) = (&self.handles, &self.state);
            self.schedule.retain_far(|&(t, slot, generation)| {
                handles
                    .index(Handle { slot, generation })
                    .is_some_and(|i| state[i].wake == t)
            });
        }
    }

    /// Visits the share of instances due this update so that each is visited at least every
    /// `REANCHOR_TICKS / 2` ticks, and re-anchors those anchored longer ago than that.
    fn sweep_reanchor(&mut self, advanced: u64, now: u64) {
        let n = self.state.len();
        if n == 0 || advanced == 0 {
            return;
        }
        let want = n as f64 * advanced as f64 / (REANCHOR_TICKS / 2) as f64 + self.sweep_carry;
        let visits = (want.floor() as usize + 1).min(n);
        self.sweep_carry = if visits == n {
            0.0
        } else {
            (want - want.floor()).min(1.0)
        };
        for _ in 0..visits {
            if self.sweep >= n {
                self.sweep = 0;
            }
            let i = self.sweep;
            self.sweep += 1;
            let g = &self.state[i];
            let stale = g.layers[..g.n as usize]
                .iter()
                .any(|l| !l.finished && now.saturating_sub(l.anchor) >= REANCHOR_TICKS / 2);
            let fade_over = g.n == 2 && now >= g.fade_end;
            if fade_over {
                // the GPU shows the incoming layer alone since the fade's end (its weight
                // clamps at 1); drop the outgoing one before `w_anchor` could wrap
                let g = &mut self.state[i];
                g.layers[0] = g.layers[1];
                g.n = 1;
                g.fade_end = u64::MAX;
            }
            if stale && !self.state[i].paused {
                let cx = Cx::new(&self.clips, &self.inv_period, now);
                cx.reanchor(&mut self.state[i]);
            }
            if stale || fade_over {
                let h = self.handles.handle_at(i);
                self.touch(i, h);
            }
        }
    }

    fn process(&mut self, i: usize, h: Handle, now: u64) {
        let g = self.state[i];
        let t0 = g.last;
        let mut changed = false;
        let secs = |t: f64| t * SECONDS_PER_TICK;
        let fading = g.n == 2 && g.fade_end != u64::MAX;
        for k in 0..g.n as usize {
            let l = g.layers[k];
            // the outgoing layer of a crossfade plays until the fade's end
            let now = if fading && k == 0 {
                now.min(g.fade_end)
            } else {
                now
            };
            if l.finished || g.paused || now <= t0 && !l.fresh {
                continue;
            }
            let c = &self.clips[l.clip as usize];
            let u0 = self.pos_at(&g, &l, t0);
            let u1 = self.pos_at(&g, &l, now);
            let time_of = |u: f64| {
                if u1 > u0 {
                    secs(t0 as f64 + ((u - u0) / (u1 - u0)).clamp(0.0, 1.0) * (now - t0) as f64)
                } else {
                    secs(t0 as f64)
                }
            };
            c.crossings(l.mode, u0, u1, l.fresh, &mut self.hits);
            for &(u, e) in &self.hits {
                self.events.push(FiredEvent {
                    instance: h,
                    clip: l.clip,
                    event: e,
                    time: time_of(u),
                });
            }
            let s = &mut self.state[i].layers[k];
            s.fresh = false;
            let clamp_like = c.is_static() || l.mode == MODE_ONCE || l.mode == MODE_CLAMP;
            if clamp_like && u1 >= c.last {
                s.finished = true;
                s.p = c.last;
                s.anchor = now;
                changed = true;
                if l.mode == MODE_ONCE || l.mode == MODE_CLAMP {
                    self.finished.push(Finished {
                        instance: h,
                        clip: l.clip,
                        time: time_of(c.last),
                    });
                }
            } else if now >= l.anchor + REANCHOR_TICKS / 2 {
                s.p = c.reduce(l.mode, u1);
                s.anchor = now;
                changed = true;
            }
        }
        let g = &mut self.state[i];
        g.last = now;
        if g.n == 2 && now >= g.fade_end {
            g.layers[0] = g.layers[1];
            g.n = 1;
            g.fade_end = u64::MAX;
            changed = true;
        }
        if changed {
            self.touch(i, h);
        } else {
            self.schedule(i, h);
        }
    }
}

/// Frames per tick of a layer (instance speed and pause included).
#[inline]
fn rate_of(clips: &[Prepared], g: &GInst, l: &GLayer) -> f64 {
    if g.paused || l.finished {
        return 0.0;
    }
    clips[l.clip as usize].fps * l.speed as f64 * g.speed as f64 * SECONDS_PER_TICK
}

/// [`Prepared::reduce`] with the period's reciprocal `inv` given (the contract's
/// `Span::reduce_with_inverse`).
#[inline]
fn reduce_fast(c: &Prepared, inv: f64, mode: u32, u: f64) -> f64 {
    c.reduce_with_inverse(mode, u, inv)
}

#[cfg(test)]
mod tests {
    #[test]
    fn instance_state_is_two_cache_lines() {
        assert_eq!(std::mem::size_of::<super::GInst>(), 128);
        assert_eq!(std::mem::align_of::<super::GInst>(), 64);
    }
}
