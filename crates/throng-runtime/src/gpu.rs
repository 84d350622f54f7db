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
//! # State
//! An instance's state is one 64 B cache line (`GInst`): per layer the record's own phase
//! word (the position at the anchor in 2^-32 periods, rounded to nearest when the f64
//! arithmetic re-anchors it, so the error does not accumulate one way), the anchor tick,
//! speed and clip; the weight words as the record carries them; and every tick as its low 32
//! bits, rebuilt against the clock. That is exact while each kept tick is less than 2^32
//! ticks (4096 s) from the clock: the sweep re-anchors playing layers and moves `last` up for
//! unscheduled instances every 2^27 ticks, wakes are never set more than 2^27 ticks ahead
//! (an instance woken early just reschedules), and crossfades are at most [`MAX_FADE_S`]
//! (2048 s). A record is a function of its state ([`GpuRuntime::record`],
//! [`GpuRuntime::collect_records`]); the runtime keeps only the records that changed this
//! frame, in the list it hands to the renderer (below). The state's flags also hold the
//! instance's position in that list (25 bits, hence [`MAX_INSTANCES`]).
//!
//! # Events and changes
//! Each instance has at most one live entry in a schedule (timing wheel + far min-heap, see
//! `schedule.rs`) keyed by its next *wake* tick: the
//! next event crossing, one-shot end, crossfade end or re-anchor. `update` pops only entries
//! that are due. Every change of an instance's state since the last
//! [`GpuRuntime::clear_dirty`] lists it once and rewrites its entry in
//! [`GpuRuntime::record_writes`]: the list of (record, index) writes the renderer uploads and
//! a compute pass scatters. [`GpuRuntime::dirty`] lists the same indices.
//!
//! # Cost of a change
//! A change updates one 64 B state, writes the instance's record into the frame's list (a
//! new entry the first time in a frame; the list's next lines are prefetched) and (rarely)
//! pushes a schedule entry; clearing the list is O(1), since an instance counts as listed
//! only while the list's entry at its position names it. With 1M instances the cost is one
//! cache miss on the state (plus its handle's slot once any instance has been despawned:
//! before that a handle is its dense index, see `handle.rs`) and the arithmetic.
//! [`GpuRuntime::apply`] prefetches 16 changes ahead and visits a long batch in instance
//! order (a counting sort by index: nearby misses, a forward stream), the state lives on
//! transparent huge pages (no page walk per miss), and the common crossfade (default options,
//! quiet clips) takes a short path. Measured figures and what limits them: docs/design.md §4
//! "GPU-timed records".
//!
//! Limits of this mode: two layers (crossfading during a crossfade or blend keeps the stronger
//! layer as the outgoing one and drops the weaker, a visible step of its weight); no root motion
//! (it needs a per-frame CPU transform update: use [`crate::CpuRuntime`] for such groups).

use crate::api::{Finished, FiredEvent};
use crate::clips::Prepared;
use crate::handle::Handles;
use crate::schedule::Schedule;
use crate::PlaybackControl;
use crate::{
    Clock, Handle, InstanceRecord, InstanceTransform, PlaybackCommand, RuntimeError,
    SECONDS_PER_TICK,
};
use bytemuck::Zeroable;
use change::{Cx, Listed, Sink};
use throng_asset::{ClipInfo, Layer};
use throng_contract::{
    gpu_layers, GpuClipTable, GpuInstanceRecord, GpuRecordWrite, MODE_CLAMP, MODE_ONCE,
};

mod change;
mod order;

pub use change::MAX_FADE_S;

/// Every playing layer is re-anchored at least this often (ticks; 256 s).
pub const REANCHOR_TICKS: u64 = 1 << 28;

/// One playback change of one instance, for [`GpuRuntime::apply`]'s batches.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Change {
    pub handle: Handle,
    pub command: PlaybackCommand,
}

impl Change {
    /// The change `command` makes to instance `h`.
    pub fn new(h: Handle, command: PlaybackCommand) -> Change {
        Change { handle: h, command }
    }

    pub fn handle(&self) -> Handle {
        self.handle
    }
}

/// How far ahead batch operations prefetch (items).
const AHEAD: usize = 16;

/// `GLayer::bits` above the clip index (bits 0..23) and the loop mode (bits 24..25, the
/// record's `clip_mode` packing): the layer has not fired its start events yet / a one-shot
/// that has ended.
const L_FRESH: u32 = 1 << 27;
const L_FINISHED: u32 = 1 << 28;
/// The clip and mode bits, as the record's `clip_mode` carries them.
const L_CLIP_MODE: u32 = throng_contract::CLIP_MASK
    | 3 << throng_contract::MODE_SHIFT
    | throng_contract::LAYER_MASK_BITS;

/// CPU-side state of one layer (16 B). Ticks are kept as their low 32 bits and rebuilt
/// against the clock ([`past`]); the position as the record's phase word (see the module
/// docs, "State").
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[repr(C)]
struct GLayer {
    /// Position at `anchor` as a fraction of the period, 0.32 fixed point (rounded to nearest).
    phase: u32,
    /// Tick (low 32 bits) at which the layer was at `phase`.
    anchor: u32,
    /// Clip speed × blend sync factor.
    speed: f32,
    /// Clip index | loop mode << 24 | `L_FRESH` | `L_FINISHED`.
    bits: u32,
}

impl GLayer {
    #[inline]
    fn clip(&self) -> usize {
        (self.bits & throng_contract::CLIP_MASK) as usize
    }
    #[inline]
    fn mode(&self) -> u32 {
        (self.bits >> throng_contract::MODE_SHIFT) & 3
    }
    #[inline]
    fn fresh(&self) -> bool {
        self.bits & L_FRESH != 0
    }
    #[inline]
    fn finished(&self) -> bool {
        self.bits & L_FINISHED != 0
    }
    #[inline]
    fn set(&mut self, bit: u32, on: bool) {
        if on {
            self.bits |= bit;
        } else {
            self.bits &= !bit;
        }
    }
}

/// `GInst::flags`: layer count (bits 0..1), state bits, and (bits 7..31) the instance's
/// position in the frame's record writes (valid while it is listed, see `change::Listed`).
const G_N: u32 = 3;
const G_ENABLED: u32 = 4;
const G_PAUSED: u32 = 8;
const G_BLEND: u32 = 16;
/// A crossfade is in progress (it ends at `fade_end`).
const G_FADING: u32 = 64;
const G_POS_SHIFT: u32 = 7;

/// Most instances a [`GpuRuntime`] holds: an instance's position in the frame's record
/// writes is kept in 25 bits of its state. (At that count the GPU's record buffer alone is
/// 1.9 GB, past most devices' storage-buffer binding limit.)
pub const MAX_INSTANCES: usize = 1 << (32 - G_POS_SHIFT);
/// `GInst::wake` of an instance without a live schedule entry.
const NO_WAKE: u32 = u32::MAX;

/// One instance's state: 64 B, one cache line, so a change touches one line of state
/// (docs/design.md §4 "Cost of a change").
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C, align(64))]
struct GInst {
    layers: [GLayer; 2],
    speed: f32,
    /// Layer 1 weight: `w_start + (t − w_anchor) · w_rate` (ticks), clamped: the record's
    /// three words.
    w_anchor: u32,
    w_start: f32,
    w_rate: f32,
    /// Crossfade end tick (low 32 bits; with `G_FADING`).
    fade_end: u32,
    /// Events and ends have been processed up to this tick (low 32 bits).
    last: u32,
    /// Tick (low 32 bits) of this instance's live schedule entry (`NO_WAKE`: none).
    wake: u32,
    flags: u32,
}

impl Default for GInst {
    fn default() -> Self {
        GInst {
            layers: [GLayer::default(); 2],
            speed: 1.0,
            w_anchor: 0,
            w_start: 0.0,
            w_rate: 0.0,
            fade_end: 0,
            last: 0,
            wake: NO_WAKE,
            flags: G_ENABLED,
        }
    }
}

impl GInst {
    #[inline]
    fn n(&self) -> usize {
        (self.flags & G_N) as usize
    }
    #[inline]
    fn set_n(&mut self, n: usize) {
        self.flags = (self.flags & !G_N) | n as u32;
    }
    #[inline]
    fn has(&self, bit: u32) -> bool {
        self.flags & bit != 0
    }
    #[inline]
    fn set(&mut self, bit: u32, on: bool) {
        if on {
            self.flags |= bit;
        } else {
            self.flags &= !bit;
        }
    }
    #[inline]
    fn enabled(&self) -> bool {
        self.has(G_ENABLED)
    }
    /// Position in the record writes (meaningful only while listed).
    #[inline(always)]
    fn pos(&self) -> usize {
        (self.flags >> G_POS_SHIFT) as usize
    }
    #[inline(always)]
    fn set_pos(&mut self, p: usize) {
        // p < MAX_INSTANCES: at most one entry per live instance
        self.flags = (self.flags & ((1 << G_POS_SHIFT) - 1)) | (p as u32) << G_POS_SHIFT;
    }
    #[inline]
    fn paused(&self) -> bool {
        self.has(G_PAUSED)
    }
    /// Crossfade end tick at `now`, if fading.
    #[inline]
    fn fade_end_at(&self, now: u64) -> Option<u64> {
        self.has(G_FADING)
            .then(|| past(now, self.w_anchor) + self.fade_end.wrapping_sub(self.w_anchor) as u64)
    }
}

/// The whole tick of a tick `t` ≤ `now` given by its low 32 bits (exact while
/// `now − t < 2^32`, which the sweep and the wake cap keep; see the module docs).
#[inline]
fn past(now: u64, t: u32) -> u64 {
    now.saturating_sub((now as u32).wrapping_sub(t) as u64)
}

/// GPU-timed runtime. See the module docs.
pub struct GpuRuntime {
    clips: Vec<Prepared>,
    /// Per clip and loop mode code: `1 / period`, the phase scale and the record's ω at speed
    /// 1 (see [`change::ModeK`]).
    inv_period: Vec<[change::ModeK; 4]>,
    gpu_clips: GpuClipTable,
    handles: Handles,
    state: Vec<GInst>,
    transforms: Vec<InstanceTransform>,
    schedule: Schedule,
    due: Vec<(u64, u32, u32)>,
    /// Next dense index the re-anchoring sweep visits, and the fractional instance carry.
    sweep: usize,
    sweep_carry: f64,
    /// The instances changed since the last `clear_dirty`, with their records.
    listed: Listed,
    /// Scratch of [`Self::apply`]'s bucketed order (`order.rs`).
    order: order::BatchOrder,
    clock: Clock,
    events: Vec<FiredEvent>,
    finished: Vec<Finished>,
    hits: Vec<(f64, u32)>,
}

crate::handle::instance_lookup!(GpuRuntime);

impl GpuRuntime {
    /// The playback calls of instance `h` ([`crate::Instance`]).
    pub fn instance(&mut self, h: Handle) -> crate::Instance<'_, GpuRuntime> {
        crate::Instance { rt: self, h }
    }

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
            transforms: Vec::new(),
            schedule: Schedule::default(),
            due: Vec::new(),
            sweep: 0,
            sweep_carry: 0.0,
            listed: Listed::default(),
            order: order::BatchOrder::default(),
            clock: Clock::new(),
            events: Vec::new(),
            finished: Vec::new(),
            hits: Vec::new(),
        }
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

    fn cx(&self) -> Cx<'_> {
        Cx::new(&self.clips, &self.inv_period, self.clock.ticks())
    }

    /// Reserves room for `additional` more instances (the state on huge pages, see
    /// `hugepage.rs`; `spawn` grows the same way).
    pub fn reserve(&mut self, additional: usize) {
        crate::hugepage::reserve(&mut self.state, additional);
        self.transforms.reserve(additional);
        self.handles.reserve(additional);
    }

    /// [`Self::spawn`], or [`RuntimeError::TooManyInstances`] at [`MAX_INSTANCES`].
    pub fn try_spawn(&mut self, transform: InstanceTransform) -> Result<Handle, RuntimeError> {
        if self.state.len() >= MAX_INSTANCES {
            return Err(RuntimeError::TooManyInstances {
                limit: MAX_INSTANCES,
            });
        }
        // the array a change touches at random grows onto huge pages
        crate::hugepage::reserve(&mut self.state, 1);
        let h = self.handles.spawn();
        let g = GInst {
            last: self.clock.ticks() as u32,
            ..GInst::default()
        };
        self.state.push(g);
        self.transforms.push(transform);
        let i = self.state.len() - 1;
        self.touch(i, h);
        Ok(h)
    }

    /// Layer 1 weight at tick t.
    #[inline]
    fn w1_at(g: &GInst, t: u64) -> f64 {
        if g.n() < 2 {
            return 0.0;
        }
        // < 2^63: the signed conversion is one instruction and rounds the same
        let e = t.saturating_sub(past(t, g.w_anchor)) as i64 as f64;
        (g.w_start as f64 + e * g.w_rate as f64).clamp(0.0, 1.0)
    }

    /// Applies one change to a live instance and lists it as dirty.
    fn change(&mut self, c: Change) -> Result<(), RuntimeError> {
        let h = c.handle();
        let i = self.idx(h)?;
        let cx = Cx::new(&self.clips, &self.inv_period, self.clock.ticks());
        let g = &mut self.state[i];
        let changed = cx.change(g, &c)?;
        if let Some(t) = cx.touch(g, i, &mut self.listed, changed) {
            self.schedule.push((t, h.slot, h.generation));
        }
        Ok(())
    }

    /// Applies a batch of changes with the effect of applying them in order, prefetching the
    /// instances a few changes ahead (much faster than one call per change when the instances
    /// are scattered over a large store). A long batch on a large store is visited in instance
    /// order (`order.rs`): each instance's changes still apply in batch order, so states and
    /// records are the same; only the order of [`Self::record_writes`] (unordered) may differ.
    /// Returns the failed changes as (index in `changes`, error), in batch order; the others
    /// apply.
    pub fn apply(&mut self, changes: &[Change]) -> Vec<(usize, RuntimeError)> {
        let cx = Cx::new(&self.clips, &self.inv_period, self.clock.ticks());
        let mut out = Sink::default();
        cx.apply_batch(
            &self.handles,
            changes,
            (&mut self.state, &mut self.listed),
            &mut self.order,
            &mut out,
        );
        for (t, slot, generation) in out.wakes {
            self.schedule.push((t, slot, generation));
        }
        out.errors
    }

    /// Prefetches (for writing) an instance's state.
    fn prefetch_instance(&self, i: usize) {
        crate::prefetch::prefetch_write(
            self.state.as_ptr().wrapping_add(i),
            std::mem::size_of::<GInst>(),
        );
    }

    /// The record of one instance, computed from its state (what [`Self::record_writes`]
    /// sends for it).
    pub fn record(&self, h: Handle) -> Result<GpuInstanceRecord, RuntimeError> {
        let mut r = GpuInstanceRecord::zeroed();
        self.cx().write_record(&self.state[self.idx(h)?], &mut r);
        Ok(r)
    }

    /// Every live instance's record in dense order, computed from the state: O(instances),
    /// for a first upload or after the count changed. Frame to frame, send
    /// [`Self::record_writes`] instead.
    pub fn collect_records(&self) -> Vec<GpuInstanceRecord> {
        let cx = self.cx();
        self.state
            .iter()
            .map(|g| {
                let mut r = GpuInstanceRecord::zeroed();
                cx.write_record(g, &mut r);
                r
            })
            .collect()
    }

    /// Dense indices whose record or transform changed since the last [`Self::clear_dirty`]
    /// (unordered; each listed once): the indices of [`Self::record_writes`], in its order.
    pub fn dirty(&self) -> &[u32] {
        &self.listed.dirty
    }

    /// The current record of every dirty instance with its dense index — the list a compute
    /// pass scatters into the GPU's record buffer (throng-render's `CrowdUpload`). Each entry
    /// is rewritten whenever its instance changes (a change writes its record while the
    /// instance's state is in cache), so however many changes an instance had it appears
    /// once, with the record of its final state. Call [`Self::clear_dirty`] once sent.
    pub fn record_writes(&self) -> &[GpuRecordWrite] {
        &self.listed.writes
    }

    /// The record written for dense index `i` since the last [`Self::clear_dirty`], if it is
    /// listed (a change that leaves the record as it was lists nothing).
    pub(crate) fn listed_record(&self, i: usize) -> Option<&GpuInstanceRecord> {
        let p = self.listed.position(self.state.get(i)?, i)?;
        self.listed.writes.get(p).map(|w| &w.record)
    }

    /// Empties the dirty list and the record writes (O(1): no instance is revisited).
    pub fn clear_dirty(&mut self) {
        self.listed.clear();
    }

    /// Rows and fracs from the f64 arithmetic on the state at the current clock (what
    /// [`gpu_layers`] approximates in f32).
    pub fn exact_record(&self, h: Handle) -> Result<InstanceRecord, RuntimeError> {
        let i = self.idx(h)?;
        Ok(self.exact_at(i, self.clock.ticks()))
    }

    fn exact_at(&self, i: usize, t: u64) -> InstanceRecord {
        let g = &self.state[i];
        let mut out = InstanceRecord::zeroed();
        if !g.enabled() || g.n() == 0 {
            return out;
        }
        let cx = Cx::new(&self.clips, &self.inv_period, t);
        let w1 = GpuRuntime::w1_at(g, t) as f32;
        // an overlay layer 1 (a mask or an additive clip) leaves layer 0 its full weight
        let overlay = g.n() == 2
            && (g.layers[1].bits & throng_contract::LAYER_MASK_BITS != 0
                || self.clips[g.layers[1].clip()].additive);
        for k in 0..g.n() {
            let l = &g.layers[k];
            let c = &self.clips[l.clip()];
            let q = if l.finished() {
                c.last
            } else {
                c.shown(c.reduce(l.mode(), cx.pos_at(g, l, t)))
            };
            let (row, frac) = c.frame(q);
            out.layers[k] = Layer {
                weight: match k {
                    0 if overlay => 1.0,
                    0 => 1.0 - w1,
                    _ => w1,
                },
                frac,
                row: row as f32,
                clip: l.bits & (throng_contract::CLIP_MASK | throng_contract::LAYER_MASK_BITS),
            };
        }
        out
    }

    fn mark_dirty(&mut self, i: usize) {
        let cx = Cx::new(&self.clips, &self.inv_period, self.clock.ticks());
        self.listed.write(&cx, &mut self.state[i], i);
    }

    /// Lists instance i as dirty and reschedules it.
    fn touch(&mut self, i: usize, h: Handle) {
        let cx = Cx::new(&self.clips, &self.inv_period, self.clock.ticks());
        if let Some(t) = cx.touch(&mut self.state[i], i, &mut self.listed, true) {
            self.schedule.push((t, h.slot, h.generation));
        }
    }

    fn schedule(&mut self, i: usize, h: Handle) {
        let cx = Cx::new(&self.clips, &self.inv_period, self.clock.ticks());
        if let Some(t) = cx.reschedule(&mut self.state[i]) {
            self.schedule.push((t, h.slot, h.generation));
        }
    }

    /// Visits the share of instances due this update so that each is visited at least every
    /// `REANCHOR_TICKS / 2` ticks: re-anchors the layers anchored longer ago than that, ends
    /// crossfades that are over, and moves an unscheduled instance's `last` up, so that every
    /// tick the state keeps as 32 bits stays within 2^32 of the clock.
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
            let g = &mut self.state[i];
            let stale = g.layers[..g.n()].iter().any(|l| {
                !l.finished() && now.saturating_sub(past(now, l.anchor)) >= REANCHOR_TICKS / 2
            });
            let fade_over = g.n() == 2 && g.fade_end_at(now).is_some_and(|e| now >= e);
            if fade_over {
                // the GPU shows the incoming layer alone since the fade's end (its weight
                // clamps at 1); drop the outgoing one before `w_anchor` could wrap
                g.layers[0] = g.layers[1];
                g.set_n(1);
                g.set(G_FADING, false);
            }
            if g.wake == NO_WAKE {
                // nothing to process until a change: nothing happened since `last`
                g.last = now as u32;
            }
            if stale && !g.paused() {
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
        let cx = Cx::new(&self.clips, &self.inv_period, now);
        let t0 = past(now, g.last);
        let mut changed = false;
        let secs = |t: f64| t * SECONDS_PER_TICK;
        let fade_end = if g.n() == 2 { g.fade_end_at(now) } else { None };
        for k in 0..g.n() {
            let l = g.layers[k];
            // the outgoing layer of a crossfade plays until the fade's end
            let now = match fade_end {
                Some(e) if k == 0 => now.min(e),
                _ => now,
            };
            if l.finished() || g.paused() || now <= t0 && !l.fresh() {
                continue;
            }
            let c = &self.clips[l.clip()];
            let u0 = cx.pos_at(&g, &l, t0);
            let u1 = cx.pos_at(&g, &l, now);
            let time_of = |u: f64| {
                if u1 > u0 {
                    secs(t0 as f64 + ((u - u0) / (u1 - u0)).clamp(0.0, 1.0) * (now - t0) as f64)
                } else {
                    secs(t0 as f64)
                }
            };
            c.crossings(l.mode(), u0, u1, l.fresh(), &mut self.hits);
            for &(u, e) in &self.hits {
                self.events.push(FiredEvent {
                    instance: h,
                    clip: crate::ClipId::new(l.clip()),
                    event: e,
                    time: time_of(u),
                });
            }
            let s = &mut self.state[i].layers[k];
            s.set(L_FRESH, false);
            let mode = l.mode();
            let clamp_like = c.is_static() || mode == MODE_ONCE || mode == MODE_CLAMP;
            if clamp_like && u1 >= c.last {
                s.set(L_FINISHED, true);
                cx.set_position(s, c.last);
                s.anchor = now as u32;
                changed = true;
                if mode == MODE_ONCE || mode == MODE_CLAMP {
                    self.finished.push(Finished {
                        instance: h,
                        clip: crate::ClipId::new(l.clip()),
                        time: time_of(c.last),
                    });
                }
            } else if now >= past(now, l.anchor) + REANCHOR_TICKS / 2 {
                cx.set_position(s, c.reduce(mode, u1));
                s.anchor = now as u32;
                changed = true;
            }
        }
        let g = &mut self.state[i];
        g.last = now as u32;
        if fade_end.is_some_and(|e| now >= e) {
            g.layers[0] = g.layers[1];
            g.set_n(1);
            g.set(G_FADING, false);
            changed = true;
        }
        if changed {
            self.touch(i, h);
        } else {
            self.schedule(i, h);
        }
    }
}

/// The calls both runtimes answer alike (docs/design.md §4 "One playback type").
impl crate::PlaybackControl for GpuRuntime {
    fn timing(&self) -> throng_contract::Timing {
        throng_contract::Timing::Gpu
    }

    fn index(&self, h: Handle) -> Option<usize> {
        self.handles.index(h)
    }

    fn handle_at(&self, index: usize) -> Option<Handle> {
        self.handles.get(index)
    }

    fn len(&self) -> usize {
        self.handles.len()
    }

    /// Seconds since creation.
    fn time(&self) -> f64 {
        self.clock.seconds()
    }

    /// Adds an instance (disabled until played) and lists it.
    ///
    /// # Panics
    /// When the runtime already holds [`MAX_INSTANCES`]; [`Self::try_spawn`] returns an error
    /// instead.
    fn spawn(&mut self, transform: InstanceTransform) -> Handle {
        match self.try_spawn(transform) {
            Ok(h) => h,
            Err(e) => panic!("{e}"),
        }
    }

    fn despawn(&mut self, h: Handle) -> Result<(), RuntimeError> {
        let i = self.handles.remove(h)?;
        // the gone instance's pending write would now land on the moved one: drop it
        if let Some(p) = self.listed.position(&self.state[i], i) {
            self.listed.remove(p, &mut self.state);
        }
        let last = self.state.len() - 1;
        self.state.swap_remove(i);
        self.transforms.swap_remove(i);
        if i < last {
            // the moved instance's record now belongs at i
            match self.listed.position(&self.state[i], last) {
                Some(p) => {
                    self.listed.dirty[p] = i as u32;
                    self.listed.writes[p].index = i as u32;
                }
                None => self.mark_dirty(i),
            }
        }
        Ok(())
    }

    /// Applies one playback change (what [`crate::PlaybackControl`]'s calls send); see the
    /// module docs for this mode's two-layer limit.
    fn command(&mut self, h: Handle, command: PlaybackCommand) -> Result<(), RuntimeError> {
        self.change(Change::new(h, command))
    }

    /// The clip called `name`; an unknown name is an error listing the clips.
    fn clip(&self, name: &str) -> Result<crate::ClipId, RuntimeError> {
        crate::api::find_clip(name, self.clips.iter().map(|c| c.name.as_str()))
    }

    fn is_finished(&self, h: Handle) -> Result<bool, RuntimeError> {
        let g = &self.state[self.idx(h)?];
        Ok(g.n() > 0 && g.layers[g.n() - 1].finished())
    }

    fn transform(&self, h: Handle) -> Result<InstanceTransform, RuntimeError> {
        Ok(self.transforms[self.idx(h)?])
    }

    /// Sets a transform (the instance is listed in [`Self::dirty`]).
    fn set_transform(&mut self, h: Handle, t: InstanceTransform) -> Result<(), RuntimeError> {
        let i = self.idx(h)?;
        self.transforms[i] = t;
        self.mark_dirty(i);
        Ok(())
    }

    fn transforms(&self) -> &[InstanceTransform] {
        &self.transforms
    }

    /// Advances the clock by `dt` seconds and processes the instances that are due: events,
    /// one-shot ends, crossfade ends, re-anchoring.
    fn update(&mut self, dt: f64) {
        self.events.clear();
        self.finished.clear();
        let advanced = self.clock.advance(dt);
        let now = self.clock.ticks();
        self.sweep_reanchor(advanced, now);
        let mut due = std::mem::take(&mut self.due);
        due.clear();
        self.schedule.pop_due(now, &mut due);
        // slot order: nearby instances together; prefetch ahead as in `apply`
        // (ties broken by the whole entry: the order never depends on the order of pushes)
        due.sort_unstable_by_key(|e| (e.1, e.0, e.2));
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
            if self.state[i].wake != t as u32 {
                continue; // superseded by an earlier entry
            }
            self.state[i].wake = NO_WAKE;
            self.process(i, h, now);
        }
        self.due = due;
        if self.schedule.far_len() > 2 * self.state.len() + 4096 {
            let (handles, state) = (&self.handles, &self.state);
            self.schedule.retain_far(|&(t, slot, generation)| {
                handles
                    .index(Handle { slot, generation })
                    .is_some_and(|i| state[i].wake == t as u32)
            });
        }
    }

    fn events(&self) -> &[FiredEvent] {
        &self.events
    }

    fn finished(&self) -> &[Finished] {
        &self.finished
    }

    /// World transform of an anchor at the current clock (from [`gpu_layers`]).
    fn anchor_world(
        &self,
        h: Handle,
        anchors: &throng_asset::AnchorTexture,
        anchor: usize,
    ) -> Result<glam::Mat4, RuntimeError> {
        let i = self.idx(h)?;
        let r = gpu_layers(&self.record(h)?, &self.gpu_clips, self.gpu_clock());
        crate::anchor::anchor_world(&r, &self.transforms[i], &self.gpu_clips, anchors, anchor)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn instance_state_is_one_cache_line() {
        assert_eq!(std::mem::size_of::<super::GInst>(), 64);
        assert_eq!(std::mem::align_of::<super::GInst>(), 64);
    }

    #[test]
    fn past_ticks_are_rebuilt_from_their_low_bits() {
        let now = (7u64 << 32) + 5;
        assert_eq!(super::past(now, 5), now);
        assert_eq!(super::past(now, 0), now - 5);
        assert_eq!(super::past(now, u32::MAX), now - 6);
        assert_eq!(super::past(3, 1), 1);
        // before the clock reached it (cannot happen): clamped at 0, not wrapped
        assert_eq!(super::past(3, 9), 0);
    }
}
