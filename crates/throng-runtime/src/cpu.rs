//! CPU-timed playback (docs/design.md §4): every `update(dt)` advances every instance and writes
//! its 64 B [`InstanceRecord`].
//!
//! Layout (struct of arrays, dense `0..len`): `meta` (8 B: instance speed, layer count, flags),
//! per layer slot an `f64` position array and a 16 B array of the rest (mark, speed, clip,
//! weight; slot k is only read for instances with more than k layers), crossfade progress,
//! transforms and the output records. The hot loop reads 8 + 24 × layers bytes, writes back
//! 8 × layers and streams the 64 B record (non-temporal stores: the CPU never reads it
//! back) straight from registers; a two-layer instance steps both layers in the two lanes of
//! one SSE2 register (`fast_step2`, bit-identical to the scalar step). Measured: 1M
//! instances × 2 layers cost ≈ 1.8–2.2× a parallel fill of the same 64 MB in the same run
//! (3.5–4× before; docs/design.md §4 "CPU-timed records"); everything rare (event
//! crossings, loop wraps, a one-shot ending, crossfades, root motion, a fresh `play`) is
//! pushed to a per-instance slow path by a single compare against a precomputed per-layer
//! `mark`.
//!
//! Settled instances (one or two looping layers without fades, pause or root motion)
//! are kept instead in a 12 B compact state (`crate::compact`): the update reads those 12 B
//! and streams the record, 1.2–1.3× a memset of the records at 1M × 2 layers; the full state
//! above is rebuilt from it when anything reads or changes the instance.
//!
//! Time: each layer keeps its position `p` in frames (f64) reduced into one period, so a step
//! adds `dt · speed · L/d` to a value below one period and rounds only at that magnitude (the
//! compact state keeps integer phases at an epoch instead): after 24 h at 60 Hz it agrees with
//! the position computed directly from elapsed time to ~2e-7 frames (tests/precision.rs),
//! where an f32 accumulator is off by whole frames.

use crate::api::{check_nonneg, check_speed, Finished, FiredEvent, PlayOptions};
use crate::clips::{Prepared, Rm};
use crate::compact::{Compact, LayerSets, SetLayer};
use crate::handle::Handles;
use crate::PlaybackControl;
use crate::{Clock, Handle, InstanceRecord, InstanceTransform, PlaybackCommand, RuntimeError};
use bytemuck::Zeroable;
use rayon::prelude::*;
use throng_asset::{ClipInfo, Layer};
use throng_contract::{
    ClipFrames, LoopMode, CLIP_MASK, LAYER_MASK_BITS, MODE_CLAMP, MODE_ONCE, MODE_SHIFT,
};

/// Instances per parallel task: 4096 × (64 B record + ~56 B state) ≈ 480 KiB, enough work to
/// hide rayon's per-task cost and small enough to balance two to many threads.
pub const CHUNK: usize = 4096;

pub(crate) const F_ENABLED: u8 = 1;
pub(crate) const F_PAUSED: u8 = 2;
pub(crate) const F_FADING: u8 = 4;
pub(crate) const F_ROOT: u8 = 8;
pub(crate) const F_FRESH: u8 = 16;
pub(crate) const F_BLEND: u8 = 32;
/// Tried for the compact state and refused (every set in use): stays on the full state until
/// its playback changes.
pub(crate) const F_STAY: u8 = 64;
/// Flags that send an instance to the slow path (a crossfade in progress stays on the fast
/// path until it completes).
const F_SLOW: u8 = F_ROOT | F_FRESH;
/// Flags that keep an instance out of the compact state (besides its clips'): its layers
/// change over time in ways a phase and a rate do not say.
const F_NOT_COMPACT: u8 = F_PAUSED | F_FADING | F_ROOT | F_FRESH | F_STAY;

// Layer state bits above the clip index and mode (the same packing as the GPU-timed
// record's `clip_mode`).
const L_FRESH: u32 = 1 << 26;
const L_FINISHED: u32 = 1 << 27;
/// The bits of a layer's state that its record's clip word carries: the clip index and the
/// mask number (bits 29..31, docs/design.md §4 "Layer masks and additive layers").
const L_RECORD: u32 = CLIP_MASK | LAYER_MASK_BITS;

/// Per-instance header (8 B).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Meta {
    /// Instance speed multiplier (all layers).
    speed: f32,
    layers: u8,
    flags: u8,
    _pad: [u8; 2],
}

/// The per-frame-constant part of one layer of one instance (16 B). Its position is kept in a
/// separate `f64` array: the hot loop rewrites only the positions, so only their cache lines
/// are written back.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LayerCold {
    mark: f32,
    speed: f32,
    clip: u32,
    weight: f32,
}

/// One layer of one instance as the API and the slow path see it (stored split into a
/// position and a [`LayerCold`]).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LayerState {
    /// Position in frames, reduced into the loop mode's period.
    p: f64,
    /// Slow path when the new position reaches this (f32 rounded down: conservative).
    mark: f32,
    /// Layer speed factor (clip speed × blend sync factor); 0 once a one-shot has finished.
    speed: f32,
    /// Clip index | mode << 24 | fresh/finished bits.
    clip: u32,
    /// Layer weight; during a crossfade the weight the layer had when the fade began.
    weight: f32,
}

impl LayerState {
    fn join(p: f64, c: &LayerCold) -> LayerState {
        LayerState {
            p,
            mark: c.mark,
            speed: c.speed,
            clip: c.clip,
            weight: c.weight,
        }
    }
    fn cold(&self) -> LayerCold {
        LayerCold {
            mark: self.mark,
            speed: self.speed,
            clip: self.clip,
            weight: self.weight,
        }
    }
    fn clip(&self) -> usize {
        (self.clip & CLIP_MASK) as usize
    }
    fn mode(&self) -> u32 {
        (self.clip >> MODE_SHIFT) & 3
    }
    fn fresh(&self) -> bool {
        self.clip & L_FRESH != 0
    }
    fn finished(&self) -> bool {
        self.clip & L_FINISHED != 0
    }
}

/// Crossfade progress (only read while `F_FADING`).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Fade {
    /// Incoming weight, 0 → 1.
    f: f32,
    /// 1 / duration (1/s).
    inv_len: f32,
}

fn mark_f32(m: f64) -> f32 {
    let f = m as f32;
    if (f as f64) > m && f > 0.0 {
        f32::from_bits(f.to_bits() - 1)
    } else {
        f
    }
}

/// Per-chunk outputs, merged after the parallel loop (no locks in the hot loop).
#[derive(Default)]
struct ChunkOut {
    events: Vec<FiredEvent>,
    finished: Vec<Finished>,
    /// Instances (runtime indices) on the full state that may be made compact.
    candidates: Vec<u32>,
}

struct Ctx<'a> {
    /// Stream the records past the caches (large runtimes only: the fence that ends a chunk
    /// of streaming stores costs more than a small runtime's whole update).
    stream: bool,
    clips: &'a [Prepared],
    hot: &'a [HotClip],
    handles: &'a Handles,
    dt: f64,
    t0: f64,
    /// The compact states' sets, advanced to this update's time; `None`: compact states off.
    sets: Option<&'a LayerSets>,
}

/// CPU-timed runtime. See the module docs.
pub struct CpuRuntime {
    clips: Vec<Prepared>,
    /// The clip table as the shaders read it: what anchors interpolate their rows by.
    gpu_clips: throng_contract::GpuClipTable,
    hot: Vec<HotClip>,
    handles: Handles,
    meta: Vec<Meta>,
    /// Per layer slot: positions (frames, reduced into the period) and the rest.
    pos: [Vec<f64>; 4],
    cold: [Vec<LayerCold>; 4],
    fades: Vec<Fade>,
    transforms: Vec<InstanceTransform>,
    records: Vec<InstanceRecord>,
    /// `records` holds every instance's current record; false after [`CpuRuntime::update_into`]
    /// wrote them elsewhere (then `records` is empty and a record is computed from the state).
    own_records: bool,
    clock: Clock,
    events: Vec<FiredEvent>,
    finished: Vec<Finished>,
    /// Per instance its steady state in 12 B, where it has one (`crate::compact`).
    compact: Vec<Compact>,
    sets: LayerSets,
    /// Instances are made compact when eligible ([`Self::set_compact_state`]).
    compact_on: bool,
}

crate::handle::instance_lookup!(CpuRuntime);

impl CpuRuntime {
    /// The playback calls of instance `h` ([`crate::Instance`]).
    pub fn instance(&mut self, h: Handle) -> crate::Instance<'_, CpuRuntime> {
        crate::Instance { rt: self, h }
    }

    /// A runtime for one asset's clip table.
    pub fn new(clips: &[ClipInfo]) -> CpuRuntime {
        let prepared: Vec<Prepared> = clips.iter().map(Prepared::new).collect();
        CpuRuntime {
            hot: prepared.iter().map(HotClip::new).collect(),
            clips: prepared,
            gpu_clips: throng_asset::gpu_clip_table(clips),
            handles: Handles::default(),
            meta: Vec::new(),
            pos: Default::default(),
            cold: Default::default(),
            fades: Vec::new(),
            transforms: Vec::new(),
            records: Vec::new(),
            own_records: true,
            clock: Clock::new(),
            events: Vec::new(),
            finished: Vec::new(),
            compact: Vec::new(),
            sets: LayerSets::new(
                clips
                    .iter()
                    .map(|c| c.frames_table().with_lookup())
                    .collect(),
            ),
            compact_on: true,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether instances whose layers only loop are kept in their 12 B steady state (on by
    /// default; `crate::compact`): a steady update then reads 12 B of such an instance instead
    /// of its full state (8 B + 24 B a layer). Off, every instance keeps its full state, as
    /// before the compact state existed (for comparison and benchmarks). Records agree either
    /// way within the compact state's rounding (~1e-8 frames).
    pub fn set_compact_state(&mut self, on: bool) {
        if !on {
            for i in 0..self.compact.len() {
                self.leave_compact(i);
            }
        }
        self.compact_on = on;
    }

    /// Instances kept in the compact state now, and the distinct layer sets they share.
    pub fn compact_counts(&self) -> (usize, usize) {
        let live = self.compact.iter().filter(|c| c.live()).count();
        (live, self.sets.in_use())
    }

    /// Instance `i`'s full state made current from its compact state, which it leaves (before
    /// anything changes its playback).
    fn leave_compact(&mut self, i: usize) {
        let Some(c) = self.compact.get(i).copied().filter(|c| c.live()) else {
            return;
        };
        for l in 0..self.sets.layers(c.set).len() {
            let s = LayerState::join(self.sets.position(&c, l), &self.cold[l][i]);
            self.pos[l][i] = s.p;
            // the next event from here (the mark the full state's fast path stops at)
            let next = self.clips[s.clip()].next_mark(s.mode(), s.p, false);
            self.cold[l][i].mark = mark_f32(next);
        }
        self.sets.release(c.set);
        self.compact[i] = Compact::default();
    }

    fn get(&self, l: usize, i: usize) -> LayerState {
        let c = &self.compact[i];
        let p = if c.live() && l < self.sets.layers(c.set).len() {
            self.sets.position(c, l)
        } else {
            self.pos[l][i]
        };
        LayerState::join(p, &self.cold[l][i])
    }

    fn set(&mut self, l: usize, i: usize, s: LayerState) {
        self.leave_compact(i);
        self.pos[l][i] = s.p;
        self.cold[l][i] = s.cold();
    }

    /// Makes compact those of `candidates` that still qualify: each layer's rate and frame
    /// table interned as a set, its phase at the epoch from its position now. Returns those
    /// made compact.
    fn make_compact(&mut self, candidates: &[u32]) -> Vec<usize> {
        let mut made = Vec::new();
        for &i in candidates {
            let i = i as usize;
            let m = self.meta[i];
            let n = m.layers as usize;
            if !self.compact_on || self.compact[i].live() || !compactable(&m) {
                continue;
            }
            let mut layers = [SetLayer::default(); 2];
            let mut ok = true;
            for (l, sl) in layers.iter_mut().enumerate().take(n) {
                let s = self.get(l, i);
                let (c, hot) = (&self.clips[s.clip()], &self.hot[s.clip()]);
                let fps_speed = m.speed as f64 * s.speed as f64 * c.fps;
                // cycles a tick in 2^-64: fps_speed / L cycles a second over 2^20 ticks
                let rate = fps_speed / c.last * 17_592_186_044_416.0;
                ok &= hot.compact
                    && s.mode() == throng_contract::MODE_LOOP
                    && !s.finished()
                    && rate.is_finite()
                    && (0.0..9.2e18).contains(&rate);
                *sl = SetLayer {
                    rate: rate as u64,
                    last: c.last as u32,
                    first_row: c.frames.first_row,
                    clip: s.clip & L_RECORD,
                    weight: s.weight,
                    fps_speed,
                    events: !hot.marks.is_empty(),
                    listed: c.frames.times.is_some(),
                };
            }
            if !ok {
                // a clip the compact state cannot play: not tried again until playback changes
                self.meta[i].flags |= F_STAY;
                continue;
            }
            let Some(id) = self.sets.intern(layers, n as u32) else {
                self.meta[i].flags |= F_STAY;
                continue;
            };
            let mut c = Compact {
                phase: [0; 2],
                set: id,
            };
            for l in 0..n {
                c.phase[l] = self.sets.phase_at_epoch(id, l, self.pos[l][i]);
            }
            self.compact[i] = c;
            made.push(i);
        }
        made
    }

    fn gather(&self, i: usize) -> [LayerState; 4] {
        [
            self.get(0, i),
            self.get(1, i),
            self.get(2, i),
            self.get(3, i),
        ]
    }

    fn check_clip(&self, clip: usize) -> Result<(), RuntimeError> {
        crate::api::check_clip(clip, self.clips.len())
    }

    fn new_layer(&self, clip: usize, opts: &PlayOptions) -> Result<LayerState, RuntimeError> {
        self.check_clip(clip)?;
        check_speed(opts.speed)?;
        check_nonneg("start time", opts.start_time as f64)?;
        let c = &self.clips[clip];
        let mode = opts.loop_mode.map(LoopMode::code).unwrap_or(c.mode);
        let p = c.reduce(mode, opts.start_time as f64 * c.fps);
        Ok(LayerState {
            p,
            mark: mark_f32(c.next_mark(mode, p, false)),
            speed: opts.speed,
            clip: clip as u32 | mode << MODE_SHIFT | L_FRESH,
            weight: 1.0,
        })
    }

    fn refresh_flags(&mut self, i: usize) {
        let ls = self.gather(i);
        let m = &mut self.meta[i];
        m.flags &= !(F_ROOT | F_FRESH | F_STAY);
        for s in ls.iter().take(m.layers as usize) {
            if s.fresh() {
                m.flags |= F_FRESH;
            }
            if self.clips[s.clip()].root_motion.is_some() {
                m.flags |= F_ROOT;
            }
        }
        if self.own_records {
            self.records[i] = record_of(&self.clips, m, &ls, &self.fades[i]);
        }
    }

    /// The current record of instance i: as last written, or from the state after
    /// [`Self::update_into`] wrote the records elsewhere (the same function of the state the
    /// update's slow path writes, and bit-identical to its fast path: see the tests).
    fn record_at(&self, i: usize) -> InstanceRecord {
        if self.own_records {
            self.records[i]
        } else if self.compact[i].live() {
            self.sets.record(&self.compact[i])
        } else {
            record_of(&self.clips, &self.meta[i], &self.gather(i), &self.fades[i])
        }
    }

    fn play_now(&mut self, h: Handle, clip: usize, opts: PlayOptions) -> Result<(), RuntimeError> {
        let i = self.idx(h)?;
        self.leave_compact(i);
        let l = self.new_layer(clip, &opts)?;
        self.set(0, i, l);
        let m = &mut self.meta[i];
        m.layers = 1;
        m.flags &= !(F_FADING | F_BLEND);
        self.refresh_flags(i);
        Ok(())
    }

    fn crossfade_with_now(
        &mut self,
        h: Handle,
        clip: usize,
        duration_s: f32,
        opts: PlayOptions,
    ) -> Result<(), RuntimeError> {
        let i = self.idx(h)?;
        self.leave_compact(i);
        check_nonneg("crossfade duration", duration_s as f64)?;
        let new = self.new_layer(clip, &opts)?;
        let n = self.meta[i].layers as usize;
        if n == 0 || duration_s <= 0.0 {
            return self.play_now(h, clip, opts);
        }
        // snapshot the weights shown now
        let mut ls: Vec<LayerState> = (0..n).map(|l| self.get(l, i)).collect();
        let w = current_weights(&self.meta[i], &self.gather(i), &self.fades[i]);
        for (l, s) in ls.iter_mut().enumerate() {
            s.weight = w[l];
        }
        if ls.len() == 4 {
            let (k, _) = ls
                .iter()
                .enumerate()
                .min_by(|a, b| a.1.weight.total_cmp(&b.1.weight))
                .unwrap_or((0, &ls[0]));
            ls.remove(k);
            let sum: f32 = ls.iter().map(|s| s.weight).sum();
            for s in &mut ls {
                s.weight = if sum > 0.0 { s.weight / sum } else { 1.0 / 3.0 };
            }
        }
        ls.push(LayerState { weight: 0.0, ..new });
        for (l, s) in ls.iter().enumerate() {
            self.set(l, i, *s);
        }
        self.fades[i] = Fade {
            f: 0.0,
            inv_len: 1.0 / duration_s,
        };
        let m = &mut self.meta[i];
        m.layers = ls.len() as u8;
        m.flags = (m.flags | F_FADING) & !F_BLEND;
        self.refresh_flags(i);
        Ok(())
    }

    fn blend_now(
        &mut self,
        h: Handle,
        clip_a: usize,
        clip_b: usize,
        weight: f32,
    ) -> Result<(), RuntimeError> {
        let i = self.idx(h)?;
        self.leave_compact(i);
        self.check_clip(clip_a)?;
        self.check_clip(clip_b)?;
        let (da, db) = (self.clips[clip_a].duration, self.clips[clip_b].duration);
        let [sa, sb] = crate::api::blend_sync(da, db, weight)?;
        let m = self.meta[i];
        // overlays (play_layer) after the two blend layers stay while the weight changes
        let same = m.flags & F_BLEND != 0
            && m.layers >= 2
            && self.get(0, i).clip() == clip_a
            && self.get(1, i).clip() == clip_b;
        if same {
            for (l, (speed, w)) in [(sa, 1.0 - weight), (sb, weight)].into_iter().enumerate() {
                let mut s = self.get(l, i);
                s.speed = speed;
                s.weight = w;
                self.set(l, i, s);
            }
        } else {
            let a = self.new_layer(clip_a, &PlayOptions::default())?;
            let b = self.new_layer(clip_b, &PlayOptions::default())?;
            self.set(
                0,
                i,
                LayerState {
                    speed: sa,
                    weight: 1.0 - weight,
                    ..a
                },
            );
            self.set(
                1,
                i,
                LayerState {
                    speed: sb,
                    weight,
                    ..b
                },
            );
            let m = &mut self.meta[i];
            m.layers = 2;
            m.flags = (m.flags | F_BLEND) & !F_FADING;
        }
        self.refresh_flags(i);
        Ok(())
    }

    fn play_layer_now(
        &mut self,
        h: Handle,
        clip: usize,
        mask: u32,
        weight: f32,
        opts: PlayOptions,
    ) -> Result<(), RuntimeError> {
        let i = self.idx(h)?;
        self.leave_compact(i);
        let mut new = self.new_layer(clip, &opts)?;
        new.clip |= crate::api::check_overlay(clip, self.clips[clip].additive, mask, weight)?;
        new.weight = weight;
        let n = self.meta[i].layers as usize;
        let key = |s: &LayerState| s.clip & L_RECORD;
        if let Some(l) = (0..n).find(|&l| key(&self.get(l, i)) == key(&new)) {
            let mut s = self.get(l, i);
            s.weight = weight;
            self.set(l, i, s);
        } else {
            if n >= 4 {
                return Err(RuntimeError::LayersFull {
                    handle: h,
                    layers: n,
                });
            }
            if self.meta[i].flags & F_FADING != 0 {
                // the fade's incoming layer must stay the last: the overlay goes before it
                let last = self.get(n - 1, i);
                self.set(n - 1, i, new);
                self.set(n, i, last);
            } else {
                self.set(n, i, new);
            }
            self.meta[i].layers = n as u8 + 1;
        }
        self.refresh_flags(i);
        Ok(())
    }

    fn set_speed_now(&mut self, h: Handle, speed: f32) -> Result<(), RuntimeError> {
        let i = self.idx(h)?;
        self.leave_compact(i);
        self.meta[i].flags &= !F_STAY;
        check_speed(speed)?;
        self.meta[i].speed = speed;
        Ok(())
    }

    fn pause_now(&mut self, h: Handle) -> Result<(), RuntimeError> {
        let i = self.idx(h)?;
        self.leave_compact(i);
        self.meta[i].flags |= F_PAUSED;
        Ok(())
    }

    fn resume_now(&mut self, h: Handle) -> Result<(), RuntimeError> {
        let i = self.idx(h)?;
        self.leave_compact(i);
        self.meta[i].flags &= !F_PAUSED;
        Ok(())
    }

    fn seek_now(&mut self, h: Handle, time_s: f32) -> Result<(), RuntimeError> {
        let i = self.idx(h)?;
        self.leave_compact(i);
        check_nonneg("seek time", time_s as f64)?;
        let m = self.meta[i];
        if m.layers == 0 {
            return Ok(());
        }
        let range = if m.flags & F_BLEND != 0 {
            0..m.layers as usize
        } else {
            m.layers as usize - 1..m.layers as usize
        };
        let blend = m.flags & F_BLEND != 0;
        for l in range {
            let mut s = self.get(l, i);
            let c = &self.clips[s.clip()];
            let sync = if blend { s.speed as f64 } else { 1.0 };
            let was_finished = s.finished();
            s.p = c.reduce(s.mode(), time_s as f64 * c.fps * sync);
            s.clip = (s.clip & !L_FINISHED) | L_FRESH;
            if was_finished && !blend {
                // a finished one-shot restarts at its own speed
                s.speed = 1.0;
            }
            s.mark = mark_f32(c.next_mark(s.mode(), s.p, false));
            self.set(l, i, s);
        }
        self.refresh_flags(i);
        Ok(())
    }

    fn set_enabled_now(&mut self, h: Handle, enabled: bool) -> Result<(), RuntimeError> {
        let i = self.idx(h)?;
        self.leave_compact(i);
        if enabled {
            self.meta[i].flags |= F_ENABLED;
        } else {
            self.meta[i].flags &= !F_ENABLED;
        }
        self.refresh_flags(i);
        Ok(())
    }

    /// Current local clip time (seconds) of each layer, newest last, as (clip, weight, τ).
    pub fn layer_times(&self, h: Handle) -> Result<Vec<(usize, f32, f64)>, RuntimeError> {
        let i = self.idx(h)?;
        let w = current_weights(&self.meta[i], &self.gather(i), &self.fades[i]);
        Ok((0..self.meta[i].layers as usize)
            .map(|l| {
                let s = self.get(l, i);
                let c = &self.clips[s.clip()];
                let q = c.shown(s.p);
                let tau = if c.fps > 0.0 { q / c.fps } else { 0.0 };
                (s.clip(), w[l], tau)
            })
            .collect())
    }

    /// The current record of one instance.
    pub fn record(&self, h: Handle) -> Result<InstanceRecord, RuntimeError> {
        Ok(self.record_at(self.idx(h)?))
    }

    /// Records of all live instances in dense order, ready to upload unchanged — as the last
    /// [`Self::update`] wrote them. Empty after [`Self::update_into`] wrote them elsewhere,
    /// until the next `update`.
    pub fn records(&self) -> &[InstanceRecord] {
        &self.records
    }

    /// Advances only the clock by `dt` seconds (negative/non-finite = 0), for a crowd whose
    /// records another stepper writes (an animation graph's `GraphCrowd`): the instances'
    /// own layers do not advance, no record is rewritten and no event fires, so such a crowd
    /// does not pay for the runtime's update as well as its own.
    pub fn advance_clock(&mut self, dt: f64) {
        // a compact instance's position follows the clock: made full first, it stays put
        if self.sets.in_use() > 0 {
            for i in 0..self.compact.len() {
                self.leave_compact(i);
            }
        }
        let dt = if dt.is_finite() && dt > 0.0 { dt } else { 0.0 };
        self.clock.advance(dt);
        self.events.clear();
        self.finished.clear();
    }

    /// As [`Self::update`], but writes the records into `out` (one per instance, in dense
    /// order) instead of the runtime's own array: e.g. straight into an upload's staging
    /// memory (throng-render's `CrowdUpload::update_cpu_timed_in_place`), so the 64 B per
    /// instance are written once, not written and then copied. The stores stream past the
    /// caches as in `update` and never read `out`. Afterwards [`Self::records`] is empty until
    /// the next `update`; [`Self::record`] and [`Self::anchor_world`] compute from the state.
    /// Errors when `out` is not one record per instance (nothing is advanced then).
    pub fn update_into(&mut self, dt: f64, out: &mut [InstanceRecord]) -> Result<(), RuntimeError> {
        if out.len() != self.meta.len() {
            return Err(RuntimeError::RecordCount {
                got: out.len(),
                expected: self.meta.len(),
            });
        }
        self.records = Vec::new();
        self.own_records = false;
        self.step(dt, Some(out));
        Ok(())
    }

    /// One update writing the records into `out`, or into the runtime's own array; then the
    /// instances found eligible made compact, their records rewritten from the compact state
    /// (so a record equals what the state it is computed from gives, bit for bit).
    fn step(&mut self, dt: f64, out: Option<&mut [InstanceRecord]>) {
        let mut own = std::mem::take(&mut self.records);
        let records: &mut [InstanceRecord] = match out {
            Some(o) => o,
            None => &mut own,
        };
        let candidates = self.step_records(dt, records);
        for i in self.make_compact(&candidates) {
            records[i] = self.sets.record(&self.compact[i]);
        }
        self.records = own;
    }

    /// The update itself, into `records`; returns the instances that may be made compact.
    fn step_records(&mut self, dt: f64, records: &mut [InstanceRecord]) -> Vec<u32> {
        // a longer step counts as the clock's longest, as the clock counts it (the compact
        // state's phases follow the clock; the full state must not go further)
        let dt = if dt.is_finite() && dt > 0.0 {
            dt.min(crate::MAX_STEP_SECONDS)
        } else {
            0.0
        };
        let t0 = self.clock.seconds();
        self.clock.advance(dt);
        self.sets.advance_to(
            self.clock.ticks(),
            self.clock.carry(),
            dt,
            &mut self.compact,
        );
        let ctx = Ctx {
            stream: self.meta.len() > CHUNK,
            clips: &self.clips,
            hot: &self.hot,
            handles: &self.handles,
            dt,
            t0,
            sets: self.compact_on.then_some(&self.sets),
        };
        self.events.clear();
        self.finished.clear();
        if self.meta.len() <= CHUNK {
            // one chunk: no task, no allocation (small runtimes update many times a frame)
            let [p0, p1, p2, p3] = &mut self.pos;
            let [c0, c1, c2, c3] = &mut self.cold;
            let o = process_chunk(
                &ctx,
                Chunk {
                    base: 0,
                    rec: records,
                    meta: &mut self.meta,
                    pos: [p0, p1, p2, p3],
                    cold: [c0, c1, c2, c3],
                    fades: &mut self.fades,
                    transforms: &mut self.transforms,
                    compact: &self.compact,
                },
            );
            self.events = o.events;
            self.finished = o.finished;
            return o.candidates;
        }
        // split every array into the same chunks (sequential: a few hundred slices)
        let mut chunks = Vec::with_capacity(self.meta.len().div_ceil(CHUNK));
        {
            let [p0, p1, p2, p3] = &mut self.pos;
            let [c0, c1, c2, c3] = &mut self.cold;
            let mut it = (
                records.chunks_mut(CHUNK),
                self.meta.chunks_mut(CHUNK),
                [
                    p0.chunks_mut(CHUNK),
                    p1.chunks_mut(CHUNK),
                    p2.chunks_mut(CHUNK),
                    p3.chunks_mut(CHUNK),
                ],
                [
                    c0.chunks_mut(CHUNK),
                    c1.chunks_mut(CHUNK),
                    c2.chunks_mut(CHUNK),
                    c3.chunks_mut(CHUNK),
                ],
                self.fades.chunks_mut(CHUNK),
                self.transforms.chunks_mut(CHUNK),
                self.compact.chunks(CHUNK),
            );
            let mut base = 0;
            while let (Some(rec), Some(meta), Some(fades), Some(transforms), Some(compact)) = (
                it.0.next(),
                it.1.next(),
                it.4.next(),
                it.5.next(),
                it.6.next(),
            ) {
                let [a, b, c, d] = &mut it.2;
                let (Some(a), Some(b), Some(c), Some(d)) = (a.next(), b.next(), c.next(), d.next())
                else {
                    break;
                };
                let [e, f, g, h] = &mut it.3;
                let (Some(e), Some(f), Some(g), Some(h)) = (e.next(), f.next(), g.next(), h.next())
                else {
                    break;
                };
                let n = meta.len();
                chunks.push(Chunk {
                    base,
                    rec,
                    meta,
                    pos: [a, b, c, d],
                    cold: [e, f, g, h],
                    fades,
                    transforms,
                    compact,
                });
                base += n;
            }
        }
        let outs: Vec<ChunkOut> = if chunks.len() <= 1 {
            chunks.into_iter().map(|c| process_chunk(&ctx, c)).collect()
        } else {
            chunks
                .into_par_iter()
                .map(|c| process_chunk(&ctx, c))
                .collect()
        };
        let mut candidates = Vec::new();
        for o in outs {
            self.events.extend(o.events);
            self.finished.extend(o.finished);
            candidates.extend(o.candidates);
        }
        candidates
    }
}

/// Whether an instance's header allows the compact state: enabled, one or two layers, nothing
/// that changes over time besides their phases (its clips are checked when it is made so).
#[inline(always)]
fn compactable(m: &Meta) -> bool {
    m.flags & (F_ENABLED | F_NOT_COMPACT) == F_ENABLED && matches!(m.layers, 1 | 2)
}

/// Weights shown now, per layer slot.
fn current_weights(m: &Meta, ls: &[LayerState; 4], fade: &Fade) -> [f32; 4] {
    let n = m.layers as usize;
    let mut w = [0.0; 4];
    for (l, wl) in w.iter_mut().enumerate().take(n) {
        *wl = ls[l].weight;
    }
    if m.flags & F_FADING != 0 && n > 0 {
        let f = fade.f.clamp(0.0, 1.0);
        for wl in w.iter_mut().take(n - 1) {
            *wl *= 1.0 - f;
        }
        w[n - 1] = f;
    }
    w
}

fn record_of(clips: &[Prepared], m: &Meta, ls: &[LayerState; 4], fade: &Fade) -> InstanceRecord {
    let mut r = InstanceRecord::zeroed();
    if m.flags & F_ENABLED != 0 {
        let w = current_weights(m, ls, fade);
        for l in 0..m.layers as usize {
            let s = &ls[l];
            let c = &clips[s.clip()];
            let (row, frac) = c.frame(c.shown(s.p));
            r.layers[l] = Layer {
                weight: w[l],
                frac,
                row: row as f32,
                clip: s.clip & L_RECORD,
            };
        }
    }
    r
}

/// One chunk of every per-instance array.
struct Chunk<'a> {
    base: usize,
    rec: &'a mut [InstanceRecord],
    meta: &'a mut [Meta],
    pos: [&'a mut [f64]; 4],
    cold: [&'a mut [LayerCold]; 4],
    fades: &'a mut [Fade],
    transforms: &'a mut [InstanceTransform],
    compact: &'a [Compact],
}

fn process_chunk(ctx: &Ctx, ch: Chunk) -> ChunkOut {
    // the loop without the compact state's event test and listed frames where no set has
    // them: the test, though never taken, cost a steady frame ~11 % (A/B on 1M × 2 layers)
    if ctx.sets.is_some_and(LayerSets::any_general) {
        process_chunk_with::<true>(ctx, ch)
    } else {
        process_chunk_with::<false>(ctx, ch)
    }
}

/// [`process_chunk`]; `GENERAL`: some compact set has clip events or listed frames.
#[inline(always)]
fn process_chunk_with<const GENERAL: bool>(ctx: &Ctx, ch: Chunk) -> ChunkOut {
    let mut out = ChunkOut::default();
    let Chunk {
        base,
        rec,
        meta,
        pos,
        cold,
        fades,
        transforms,
        compact,
    } = ch;
    // every array cut to the chunk's length: indices below it need no bounds checks
    let n = meta.len();
    let compact = &compact[..n];
    let [p0, p1, p2, p3] = pos.map(|p| &mut p[..n]);
    let [c0, c1, c2, c3] = cold.map(|c| &mut c[..n]);
    let (rec, fades, transforms) = (&mut rec[..n], &mut fades[..n], &mut transforms[..n]);
    let hot = ctx.hot;
    for j in 0..n {
        // a compact instance: 12 B read, its record streamed, nothing else touched (an
        // instance on its full state has no set: `hot` is `None`)
        if let Some((sets, h)) = ctx.sets.and_then(|s| Some((s, s.hot(&compact[j])?))) {
            let c = &compact[j];
            let (a, b) = if GENERAL && h[0].general {
                // a step near an event (a few in a hundred frames of a footstep loop) goes to
                // the crossing rule; the test is a few compares, inline
                let near = |l: usize| {
                    let marks = hot.get((h[l].clip & CLIP_MASK) as usize);
                    let marks = marks.map_or(&[][..], |c| &c.marks[..]);
                    h[l].events && crate::compact::may_cross(&h[l], c.phase[l], marks)
                };
                let near = [near(0), near(1)];
                if near[0] || near[1] {
                    compact_events(ctx, base + j, c, (h, near), &mut out);
                }
                (
                    sets.layer_of(&h[0], c.phase[0]),
                    sets.layer_of(&h[1], c.phase[1]),
                )
            } else {
                (h[0].layer(c.phase[0]), h[1].layer(c.phase[1]))
            };
            write_two(ctx, &mut rec[j], a, b);
            continue;
        }
        let m = meta[j];
        if ctx.sets.is_some() && compactable(&m) {
            out.candidates.push((base + j) as u32);
        }
        if m.flags & (F_ENABLED | F_SLOW) == F_ENABLED {
            let adv = if m.flags & F_PAUSED != 0 {
                0.0
            } else {
                ctx.dt * m.speed as f64
            };
            // crossfade progress, same f32 arithmetic as the slow path; completion goes there
            let fading = m.flags & F_FADING != 0;
            let mut f = 0.0f32;
            if fading {
                let fd = fades[j];
                f = if m.flags & F_PAUSED != 0 {
                    fd.f
                } else {
                    (fd.f + (ctx.dt as f32) * fd.inv_len).min(1.0)
                };
            }
            // the common cases without touching slots 2 and 3: their layers stay in
            // registers (`a`, `b`) and are streamed from there
            let (mut a, mut b) = (Layer::default(), Layer::default());
            let done = match m.layers {
                _ if fading && f >= 1.0 => false,
                0 => true,
                1 => match fast_step(p0[j], &c0[j], hot, adv) {
                    Some((p, layer)) => {
                        p0[j] = p;
                        a = layer;
                        true
                    }
                    None => false,
                },
                2 => match fast_step2(p0[j], p1[j], &c0[j], &c1[j], hot, adv) {
                    Some((pa, pb, la, lb)) => {
                        p0[j] = pa;
                        p1[j] = pb;
                        a = la;
                        b = lb;
                        true
                    }
                    _ => false,
                },
                n => fast_many(
                    ctx,
                    (j, n),
                    [&mut *p0, &mut *p1, &mut *p2, &mut *p3],
                    [&*c0, &*c1, &*c2, &*c3],
                    adv,
                    (fading, f),
                    rec,
                ),
            };
            if done {
                let n = m.layers as usize;
                if fading {
                    match n {
                        1 => a.weight = f,
                        2 => {
                            a.weight *= 1.0 - f;
                            b.weight = f;
                        }
                        _ => {}
                    }
                    fades[j].f = f;
                }
                if n <= 2 {
                    write_two(ctx, &mut rec[j], a, b);
                }
                continue;
            }
        } else if m.flags & F_ENABLED == 0 {
            rec[j] = InstanceRecord::zeroed();
            continue;
        }
        slow_instance(
            ctx,
            (base, j, m),
            meta,
            [&mut *p0, &mut *p1, &mut *p2, &mut *p3],
            [&mut *c0, &mut *c1, &mut *c2, &mut *c3],
            (&mut *fades, &mut *transforms, &mut *rec),
            &mut out,
        );
    }
    if ctx.stream {
        crate::prefetch::stream_fence();
    }
    out
}

/// A record of two layers (the rest empty), streamed past the caches in a large runtime.
#[inline(always)]
fn write_two(ctx: &Ctx, rec: &mut InstanceRecord, a: Layer, b: Layer) {
    if ctx.stream {
        crate::prefetch::stream_two_layers(rec, a, b);
    } else {
        *rec = InstanceRecord {
            layers: [a, b, Layer::default(), Layer::default()],
        };
    }
}

/// The fast step of instance `j` with `n` (three or four) layers: its record is built in
/// memory and written here; `fade` is (crossfading, its progress). `false` sends the instance
/// to the slow path, nothing written. Split out of [`process_chunk`] for length only: always
/// inlined, and written as it was inline, so the hot loop's code stays the same.
#[inline(always)]
fn fast_many(
    ctx: &Ctx,
    (j, n): (usize, u8),
    [p0, p1, p2, p3]: [&mut [f64]; 4],
    [c0, c1, c2, c3]: [&[LayerCold]; 4],
    adv: f64,
    (fading, f): (bool, f32),
    rec: &mut [InstanceRecord],
) -> bool {
    let hot = ctx.hot;
    // three or four layers: built in memory and written here
    let mut r = InstanceRecord::zeroed();
    let mut np = [0.0; 4];
    let mut ok = true;
    for (l, npl) in np.iter_mut().enumerate().take(n as usize) {
        // only the slots in use are read
        let (p, c) = match l {
            0 => (p0[j], &c0[j]),
            1 => (p1[j], &c1[j]),
            2 => (p2[j], &c2[j]),
            _ => (p3[j], &c3[j]),
        };
        match fast_step(p, c, hot, adv) {
            Some((p, layer)) => {
                *npl = p;
                r.layers[l] = layer;
            }
            None => {
                ok = false;
                break;
            }
        }
    }
    if ok {
        let slots = [&mut p0[j], &mut p1[j], &mut p2[j], &mut p3[j]];
        for (s, p) in slots.into_iter().zip(np).take(n as usize) {
            *s = p;
        }
        let n = n as usize;
        if fading {
            for l in r.layers.iter_mut().take(n - 1) {
                l.weight *= 1.0 - f;
            }
            r.layers[n - 1].weight = f;
        }
        if ctx.stream {
            crate::prefetch::stream_record(&mut rec[j], &r);
        } else {
            rec[j] = r;
        }
    }
    ok
}

/// Instance `j` (at `base + j` in the runtime, header `m`) on the slow path: its layers
/// gathered, [`slow_path`], its record written and its state stored back. Split out of
/// [`process_chunk`] for length only: always inlined, and written as it was inline.
#[inline(always)]
fn slow_instance(
    ctx: &Ctx,
    (base, j, m): (usize, usize, Meta),
    meta: &mut [Meta],
    [p0, p1, p2, p3]: [&mut [f64]; 4],
    [c0, c1, c2, c3]: [&mut [LayerCold]; 4],
    (fades, transforms, rec): (&mut [Fade], &mut [InstanceTransform], &mut [InstanceRecord]),
    out: &mut ChunkOut,
) {
    let adv = if m.flags & F_PAUSED != 0 {
        0.0
    } else {
        ctx.dt * m.speed as f64
    };
    let mut ls = [
        LayerState::join(p0[j], &c0[j]),
        LayerState::join(p1[j], &c1[j]),
        LayerState::join(p2[j], &c2[j]),
        LayerState::join(p3[j], &c3[j]),
    ];
    let mut mm = m;
    slow_path(
        ctx,
        base + j,
        &mut mm,
        &mut ls,
        &mut fades[j],
        &mut transforms[j],
        adv,
        out,
    );
    let r = record_of(ctx.clips, &mm, &ls, &fades[j]);
    if ctx.stream {
        crate::prefetch::stream_record(&mut rec[j], &r);
    } else {
        rec[j] = r;
    }
    meta[j] = mm;
    (p0[j], c0[j]) = (ls[0].p, ls[0].cold());
    (p1[j], c1[j]) = (ls[1].p, ls[1].cold());
    (p2[j], c2[j]) = (ls[2].p, ls[2].cold());
    (p3[j], c3[j]) = (ls[3].p, ls[3].cold());
}

/// What the hot loop needs of a clip: its rate and its frame table.
#[derive(Debug, Clone)]
pub(crate) struct HotClip {
    /// Frames per second of clip time.
    fps: f64,
    frames: ClipFrames,
    /// Uniform frames whose positions, rows and frame count stay below 2^31: the packed
    /// 32-bit conversions of [`fast_step2`] are exact for it. (Read by the x86-64 step only.)
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    packed: bool,
    /// The compact state can play it looping (`crate::compact`): frames (uniform or listed)
    /// below 2^31 with their rows.
    compact: bool,
    /// Its events' positions in a loop, 2^-64 cycles (`crate::compact::may_cross`).
    marks: Vec<u64>,
}

impl HotClip {
    fn new(p: &Prepared) -> HotClip {
        const LIMIT: f64 = (1u64 << 30) as f64;
        let f = &p.frames;
        HotClip {
            fps: p.fps,
            frames: f.clone(),
            packed: f.times.is_none()
                && f.span.len < LIMIT
                && (f.first_row as f64 + f.frames as f64) < LIMIT,
            compact: !f.is_static() && (f.first_row as f64 + f.frames as f64) < LIMIT,
            marks: (p.events.positions().iter())
                .filter(|_| p.last > 0.0)
                // an event at the end is one at the start
                .map(|&(e, _)| crate::compact::cycle_of(e, p.last))
                .collect(),
        }
    }
}

/// [`fast_step`] of two layers at once in SSE2 (both lanes the same f64 operations in the
/// same order, so the results are bit-identical): one layer's dependent chain of
/// conversions, compares and selects was the bulk of the two-layer loop. Falls back to
/// [`fast_step`] where a lane could leave the exact range of the 32-bit conversions (a clip
/// that is not [`HotClip::packed`], or a position on or past the clip's last frame).
#[inline(always)]
fn fast_step2(
    pa: f64,
    pb: f64,
    sa: &LayerCold,
    sb: &LayerCold,
    hot: &[HotClip],
    adv: f64,
) -> Option<(f64, f64, Layer, Layer)> {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::*;
        let (ka, kb) = (sa.clip & CLIP_MASK, sb.clip & CLIP_MASK);
        let (ca, cb) = (hot.get(ka as usize)?, hot.get(kb as usize)?);
        if ca.packed && cb.packed {
            // SAFETY: SSE2 is part of the x86-64 baseline; these intrinsics only compute on
            // registers.
            unsafe {
                let speed = _mm_cvtps_pd(_mm_set_ps(0.0, 0.0, sb.speed, sa.speed));
                let rate = _mm_mul_pd(_mm_set_pd(cb.fps, ca.fps), speed);
                let u = _mm_add_pd(_mm_set_pd(pb, pa), _mm_mul_pd(_mm_set1_pd(adv), rate));
                let mark = _mm_cvtps_pd(_mm_set_ps(0.0, 0.0, sb.mark, sa.mark));
                if _mm_movemask_pd(_mm_cmpge_pd(u, mark)) != 0 {
                    return None;
                }
                // Span::shown: past one pass, 2L − u
                let len = _mm_set_pd(cb.frames.span.len, ca.frames.span.len);
                let back = _mm_cmpgt_pd(u, len);
                let q = _mm_or_pd(
                    _mm_and_pd(back, _mm_sub_pd(_mm_add_pd(len, len), u)),
                    _mm_andnot_pd(back, u),
                );
                // ClipFrames::frame: q ≤ 0 and NaN read as 0 ...
                let q = _mm_and_pd(_mm_cmpgt_pd(q, _mm_setzero_pd()), q);
                // ... and q < L in both lanes (else the scalar rule: the last frame)
                if _mm_movemask_pd(_mm_cmplt_pd(q, len)) == 3 {
                    let k = _mm_cvttpd_epi32(q);
                    let fl = _mm_cvtepi32_pd(k);
                    let frac = _mm_min_ps(
                        _mm_cvtpd_ps(_mm_sub_pd(q, fl)),
                        _mm_set1_ps(throng_contract::FRAC_MAX),
                    );
                    let first =
                        _mm_set_epi32(0, 0, cb.frames.first_row as i32, ca.frames.first_row as i32);
                    let row = _mm_cvtepi32_ps(_mm_add_epi32(k, first));
                    let hi = |v: __m128| _mm_cvtss_f32(_mm_shuffle_ps::<0b01>(v, v));
                    let la = Layer {
                        weight: sa.weight,
                        frac: _mm_cvtss_f32(frac),
                        row: _mm_cvtss_f32(row),
                        clip: sa.clip & L_RECORD,
                    };
                    let lb = Layer {
                        weight: sb.weight,
                        frac: hi(frac),
                        row: hi(row),
                        clip: sb.clip & L_RECORD,
                    };
                    return Some((
                        _mm_cvtsd_f64(u),
                        _mm_cvtsd_f64(_mm_unpackhi_pd(u, u)),
                        la,
                        lb,
                    ));
                }
            }
        }
    }
    let (pa, la) = fast_step(pa, sa, hot, adv)?;
    let (pb, lb) = fast_step(pb, sb, hot, adv)?;
    Some((pa, pb, la, lb))
}

/// One layer's step without anything rare happening; `None` sends the instance to the slow
/// path. The row and frac come from the contract's time rules (`Span::shown`,
/// `ClipFrames::frame`); positions below the mark need no reduction.
#[inline(always)]
fn fast_step(p: f64, s: &LayerCold, hot: &[HotClip], adv: f64) -> Option<(f64, Layer)> {
    let clip = s.clip & CLIP_MASK;
    let c = hot.get(clip as usize)?;
    let u = p + adv * (c.fps * s.speed as f64);
    if u >= s.mark as f64 {
        return None;
    }
    let frame = c.frames.frame(c.frames.span.shown(u).0);
    Some((u, Layer::new(s.weight, frame, clip).with_mask(s.clip >> 29)))
}

/// Everything rare, in f64: event crossings, wraps, one-shot ends, crossfade progress and
/// completion, root motion.
#[allow(clippy::too_many_arguments)]
// out of line: inlined, its state spilled the hot loop's registers to the stack
#[inline(never)]
#[cold]
fn slow_path(
    ctx: &Ctx,
    index: usize,
    m: &mut Meta,
    ls: &mut [LayerState; 4],
    fade: &mut Fade,
    transform: &mut InstanceTransform,
    adv: f64,
    out: &mut ChunkOut,
) {
    let clips = ctx.clips;
    let paused = m.flags & F_PAUSED != 0;
    let n = m.layers as usize;
    if m.flags & F_FADING != 0 && !paused {
        fade.f = (fade.f + (ctx.dt as f32) * fade.inv_len).min(1.0);
    }
    // weights of this frame (for root motion)
    let mut w = [0.0f32; 4];
    for l in 0..n {
        w[l] = ls[l].weight;
    }
    if m.flags & F_FADING != 0 && n > 0 {
        for wl in w.iter_mut().take(n - 1) {
            *wl *= 1.0 - fade.f;
        }
        w[n - 1] = fade.f;
    }
    let mut root = [0.0f32; 3];
    let mut any_root = false;
    let mut hits = Vec::new();
    let first_event = out.events.len();
    let handle = ctx.handles.handle_at(index);
    for l in 0..n {
        let s = &mut ls[l];
        let c = &clips[s.clip()];
        let mode = s.mode();
        if adv > 0.0 && !s.finished() {
            let delta = adv * c.fps * s.speed as f64;
            let u0 = s.p;
            let u1 = u0 + delta;
            let time_of = |u: f64| step_time(ctx, u0, delta, u);
            let layer = (s.clip(), mode, s.fresh());
            fire_layer_events(ctx, handle, layer, (u0, delta), &mut hits, out);
            if c.root_motion.is_some() {
                let d = c.root_delta(mode, u0, u1);
                root[0] += w[l] * d.x;
                root[1] += w[l] * d.z;
                root[2] += w[l] * d.yaw;
                any_root = true;
            }
            let clamp_like = c.is_static() || mode == MODE_ONCE || mode == MODE_CLAMP;
            if clamp_like && u1 >= c.last {
                s.p = c.last;
                s.clip |= L_FINISHED;
                s.speed = 0.0;
                if mode == MODE_ONCE || mode == MODE_CLAMP {
                    out.finished.push(Finished {
                        instance: handle,
                        clip: crate::ClipId::new(s.clip()),
                        time: time_of(c.last),
                    });
                }
            } else {
                s.p = c.reduce(mode, u1);
            }
            s.clip &= !L_FRESH;
        }
        s.mark = mark_f32(c.next_mark(mode, s.p, s.finished()));
    }
    // instance events by time
    out.events[first_event..].sort_by(|a, b| a.time.total_cmp(&b.time));
    if any_root {
        let d = Rm {
            x: root[0],
            z: root[1],
            yaw: root[2],
        };
        let t = transform.to_affine() * d.to_affine();
        *transform = InstanceTransform::from_affine(&t);
    }
    if m.flags & F_FADING != 0 && fade.f >= 1.0 {
        // fade complete: the incoming layer alone remains
        ls[0] = LayerState {
            weight: 1.0,
            ..ls[n - 1]
        };
        m.layers = 1;
        m.flags &= !F_FADING;
    }
    m.flags &= !(F_ROOT | F_FRESH);
    for s in ls.iter().take(m.layers as usize) {
        if s.fresh() {
            m.flags |= F_FRESH;
        }
        if clips[s.clip()].root_motion.is_some() {
            m.flags |= F_ROOT;
        }
    }
}

/// Clock time of position `u` on a step from `u0` by `delta` positions (within the step).
#[inline]
fn step_time(ctx: &Ctx, u0: f64, delta: f64, u: f64) -> f64 {
    if delta > 0.0 {
        ctx.t0 + ((u - u0) / delta).clamp(0.0, 1.0) * ctx.dt
    } else {
        ctx.t0
    }
}

/// Fires the events layer `(clip, mode, fresh)` of instance `handle` crosses stepping from
/// `u0` by `delta` positions (the crossing rule, `ClipEvents::crossings`), timed within the
/// step: one writer for the full state's slow path and the compact state.
fn fire_layer_events(
    ctx: &Ctx,
    handle: Handle,
    (clip, mode, fresh): (usize, u32, bool),
    (u0, delta): (f64, f64),
    hits: &mut Vec<(f64, u32)>,
    out: &mut ChunkOut,
) {
    ctx.clips[clip].crossings(mode, u0, u0 + delta, fresh, hits);
    for &(u, e) in hits.iter() {
        out.events.push(FiredEvent {
            instance: handle,
            clip: crate::ClipId::new(clip),
            event: e,
            time: step_time(ctx, u0, delta, u),
        });
    }
}

/// The clip events a compact instance (runtime index `index`, its set's layers `hot`) fires
/// this update: each layer whose step may cross one of its clip's events (`near`, from
/// `may_cross`) is handed to the crossing rule from its position at the last update, as the
/// full state would be.
#[cold]
#[inline(never)]
fn compact_events(
    ctx: &Ctx,
    index: usize,
    c: &Compact,
    (hot, near): (&[crate::compact::HotLayer; 2], [bool; 2]),
    out: &mut ChunkOut,
) {
    let first = out.events.len();
    let mut hits = Vec::new();
    for (l, h) in hot.iter().enumerate().filter(|&(l, _)| near[l]) {
        let clip = (h.clip & CLIP_MASK) as usize;
        let delta = ctx.dt * h.fps_speed;
        let u0 = crate::compact::frames_at(crate::compact::advanced(c.phase[l], h.prev), h.last);
        let handle = ctx.handles.handle_at(index);
        let layer = (clip, throng_contract::MODE_LOOP, false);
        fire_layer_events(ctx, handle, layer, (u0, delta), &mut hits, out);
    }
    out.events[first..].sort_by(|a, b| a.time.total_cmp(&b.time));
}

/// The calls both runtimes answer alike (docs/design.md §4 "One playback type").
impl crate::PlaybackControl for CpuRuntime {
    fn timing(&self) -> throng_contract::Timing {
        throng_contract::Timing::Cpu
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

    /// Seconds since creation (sum of `update` steps).
    fn time(&self) -> f64 {
        self.clock.seconds()
    }

    /// New enabled instance at `transform` showing the rest row until a clip is played.
    fn spawn(&mut self, transform: InstanceTransform) -> Handle {
        let h = self.handles.spawn();
        self.meta.push(Meta {
            speed: 1.0,
            layers: 0,
            flags: F_ENABLED,
            _pad: [0; 2],
        });
        for l in 0..4 {
            self.pos[l].push(0.0);
            self.cold[l].push(LayerCold::default());
        }
        self.fades.push(Fade::default());
        self.transforms.push(transform);
        self.compact.push(Compact::default());
        if self.own_records {
            self.records.push(InstanceRecord::zeroed());
        }
        h
    }

    /// Removes an instance; the last instance moves into its dense index (other handles stay
    /// valid).
    fn despawn(&mut self, h: Handle) -> Result<(), RuntimeError> {
        let i = self.handles.remove(h)?;
        self.leave_compact(i);
        self.compact.swap_remove(i);
        self.meta.swap_remove(i);
        for l in 0..4 {
            self.pos[l].swap_remove(i);
            self.cold[l].swap_remove(i);
        }
        self.fades.swap_remove(i);
        self.transforms.swap_remove(i);
        if self.own_records {
            self.records.swap_remove(i);
        }
        Ok(())
    }

    /// Applies one playback change (what [`crate::PlaybackControl`]'s calls send).
    fn command(&mut self, h: Handle, command: PlaybackCommand) -> Result<(), RuntimeError> {
        match command {
            PlaybackCommand::Play { clip, options } => self.play_now(h, clip.index(), options),
            PlaybackCommand::Crossfade {
                clip,
                seconds,
                options,
            } => self.crossfade_with_now(h, clip.index(), seconds, options),
            PlaybackCommand::Blend { a, b, weight } => {
                self.blend_now(h, a.index(), b.index(), weight)
            }
            PlaybackCommand::Layer {
                clip,
                mask,
                weight,
                options,
            } => self.play_layer_now(h, clip.index(), mask, weight, options),
            PlaybackCommand::Speed(speed) => self.set_speed_now(h, speed),
            PlaybackCommand::Pause => self.pause_now(h),
            PlaybackCommand::Resume => self.resume_now(h),
            PlaybackCommand::Seek(t) => self.seek_now(h, t),
            PlaybackCommand::Enable(e) => self.set_enabled_now(h, e),
        }
    }

    /// The clip called `name`; an unknown name is an error listing the clips.
    fn clip(&self, name: &str) -> Result<crate::ClipId, RuntimeError> {
        crate::api::find_clip(name, self.clips.iter().map(|c| c.name.as_str()))
    }

    /// Whether the newest layer is a one-shot that has reached its end.
    fn is_finished(&self, h: Handle) -> Result<bool, RuntimeError> {
        let i = self.idx(h)?;
        let n = self.meta[i].layers as usize;
        Ok(n > 0 && self.get(n - 1, i).finished())
    }

    fn transform(&self, h: Handle) -> Result<InstanceTransform, RuntimeError> {
        Ok(self.transforms[self.idx(h)?])
    }

    fn set_transform(&mut self, h: Handle, t: InstanceTransform) -> Result<(), RuntimeError> {
        let i = self.idx(h)?;
        self.transforms[i] = t;
        Ok(())
    }

    /// Transforms of all live instances in dense order, ready to upload unchanged.
    fn transforms(&self) -> &[InstanceTransform] {
        &self.transforms
    }

    /// Advances every instance by `dt` seconds (negative/non-finite = 0) in parallel and
    /// rewrites every record. Events and completions are available until the next update.
    fn update(&mut self, dt: f64) {
        if !self.own_records {
            self.records = vec![InstanceRecord::zeroed(); self.meta.len()];
            self.own_records = true;
        }
        self.step(dt, None);
    }

    /// Events fired by the last `update`, in instance order, each instance's by time.
    fn events(&self) -> &[FiredEvent] {
        &self.events
    }

    /// One-shot layers that reached their end during the last `update`.
    fn finished(&self) -> &[Finished] {
        &self.finished
    }

    /// World transform of `anchor` for instance `h` (see [`crate::anchor_world`]).
    fn anchor_world(
        &self,
        h: Handle,
        anchors: &throng_asset::AnchorTexture,
        anchor: usize,
    ) -> Result<glam::Mat4, RuntimeError> {
        let i = self.idx(h)?;
        crate::anchor::anchor_world(
            &self.record_at(i),
            &self.transforms[i],
            &self.gpu_clips,
            anchors,
            anchor,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The packed two-layer step is the scalar one, bit for bit: every pair of the built-in
    /// clips (loop, ping-pong in both halves, a one-shot) at positions across a period,
    /// frame boundaries and the clip ends, several speeds and marks.
    #[test]
    fn packed_step_equals_two_scalar_steps() {
        let clips = crate::testing::synthetic_clips();
        let prepared: Vec<Prepared> = clips.iter().map(Prepared::new).collect();
        let hot: Vec<HotClip> = prepared.iter().map(HotClip::new).collect();
        assert!(hot.iter().all(|h| h.packed));
        let layer = |clip: usize, p: f64, speed: f32, weight: f32| {
            let c = &prepared[clip];
            let cold = LayerCold {
                mark: mark_f32(c.next_mark(c.mode, p, false)),
                speed,
                clip: clip as u32 | c.mode << MODE_SHIFT,
                weight,
            };
            (p, cold)
        };
        // a grid over 2L (a ping-pong period: both halves), every frame boundary and just
        // below it
        let positions = |c: &Prepared| {
            let mut v: Vec<f64> = (0..200).map(|k| k as f64 / 199.0 * 2.0 * c.last).collect();
            for f in 0..=(2.0 * c.last) as u32 {
                v.extend([f as f64, f as f64 - 1e-9]);
            }
            v
        };
        let mut checked = 0;
        for a in 0..clips.len() {
            for b in 0..clips.len() {
                let (xa, xb) = (positions(&prepared[a]), positions(&prepared[b]));
                for (k, &pa) in xa.iter().enumerate() {
                    let pb = xb[(k * 7 + 3) % xb.len()];
                    for (speed, adv) in [(1.0, 1.0 / 60.0), (0.37, 0.1), (2.5, 0.0)] {
                        let (pa, sa) =
                            layer(a, prepared[a].reduce(prepared[a].mode, pa), speed, 0.25);
                        let (pb, sb) =
                            layer(b, prepared[b].reduce(prepared[b].mode, pb), 1.0, 0.75);
                        let packed = fast_step2(pa, pb, &sa, &sb, &hot, adv);
                        let scalar = fast_step(pa, &sa, &hot, adv)
                            .zip(fast_step(pb, &sb, &hot, adv))
                            .map(|((pa, la), (pb, lb))| (pa, pb, la, lb));
                        let bits = |r: Option<(f64, f64, Layer, Layer)>| {
                            r.map(|(pa, pb, la, lb)| {
                                let l = |l: Layer| {
                                    [
                                        l.weight.to_bits(),
                                        l.frac.to_bits(),
                                        l.row.to_bits(),
                                        l.clip,
                                    ]
                                };
                                (pa.to_bits(), pb.to_bits(), l(la), l(lb))
                            })
                        };
                        assert_eq!(bits(packed), bits(scalar), "clips {a} {b} at {pa} {pb}");
                        checked += usize::from(scalar.is_some());
                    }
                }
            }
        }
        assert!(
            checked > 10_000,
            "most cases take the fast path ({checked})"
        );
    }
}
