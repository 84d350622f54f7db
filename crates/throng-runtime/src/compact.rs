//! The CPU-timed runtime's steady state in 12 B an instance (docs/design.md §4 "CPU-timed
//! records", issue 50's Build 2): what an update reads of an instance whose layers only loop.
//!
//! An instance playing one or two looping layers, without crossfade, pause, root motion or a
//! fresh start — most of a settled crowd — is kept as
//! [`Compact`]: each layer's *phase at the epoch* (`u32`, 2^-32 cycles of its clip) and the
//! index of a shared [`SetLayer`] pair (per layer its clip, weight, rate and frame table:
//! everything instances playing the same clips at the same speeds and weights share). Its
//! phase at clock time `t` (ticks since the epoch, plus the clock's sub-tick carry) is
//! `phase · 2^32 + t · rate` in wrapping `u64` arithmetic, rates in 2^-64 cycles a tick: a
//! loop's reduction is the wrap, nothing accumulates and nothing is written back, so a steady
//! update reads 12 B an instance and streams its 64 B record. `t · rate` is computed once a
//! frame per set, not per instance.
//!
//! Frames listed rather than uniform (an error-budgeted bake's) are placed from the phase by
//! the clip's frame times (`ClipFrames::frame`, as the full state places them); uniform ones in
//! integers.
//!
//! Clip events: a layer whose step may cross one of its clip's events (a few compares against
//! the events' positions in cycles, with a margin: [`may_cross`]) is handed to the crossing
//! rule the full state uses, from its position at the last update; the rest fire nothing.
//!
//! The instance's full state (the runtime's `f64` positions, marks, speeds) is left as it was
//! while it is compact, and rebuilt from the phases when anything reads or changes it
//! ([`LayerSets::position`]); an instance that becomes eligible after a change, a crossfade's
//! end or a fresh start is made compact after the update that found it so.
//! The epoch moves every 2^31 ticks (34 minutes): every compact phase is re-based once,
//! rounded to 2^-32 cycles.
//!
//! Precision: a phase is kept to 2^-32 cycles; a rate to 2^-64 cycles a tick (2^-33 cycles
//! over an epoch); each re-base and each rebuild of the full state rounds once more to 2^-33
//! cycles. For a 30-frame loop that is ~1e-8 frames per rounding; `tests/precision.rs` plays
//! 24 h at 60 Hz through it, worst 1.7e-7 frames from the time computed directly.

use std::collections::HashMap;

use throng_contract::{ClipFrames, InstanceRecord, Layer, FRAC_MAX};

/// Distinct layer sets kept at most: past it instances keep their full state (a crowd whose
/// every instance has a speed of its own gains nothing from shared sets).
pub(crate) const MAX_SETS: usize = 1 << 16;

/// Ticks after which the epoch moves (2^31, 34 minutes at 2^20 a second): `t · rate` of a
/// whole epoch stays exact in `u64` and a rate's rounding stays below 2^-33 cycles.
pub(crate) const EPOCH_TICKS: u64 = 1 << 31;

/// One instance's steady state (12 B): each layer's phase at the epoch and its set, or
/// [`NOT_LIVE`] where the instance is not kept here (while it is, its full state is stale and
/// this is its playback).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub(crate) struct Compact {
    pub phase: [u32; 2],
    pub set: u32,
}

/// [`Compact::set`] of an instance on its full state.
pub(crate) const NOT_LIVE: u32 = u32::MAX;

impl Default for Compact {
    fn default() -> Compact {
        Compact {
            phase: [0; 2],
            set: NOT_LIVE,
        }
    }
}

impl Compact {
    /// Whether this is the instance's playback.
    #[inline(always)]
    pub fn live(&self) -> bool {
        self.set != NOT_LIVE
    }
}

/// One layer of a set: what every instance of the set shares.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct SetLayer {
    /// Cycles a clock tick, 2^-64 units.
    pub rate: u64,
    /// `L`, the loop's length in frames (below 2^31).
    pub last: u32,
    pub first_row: u32,
    /// The record's clip word (clip index and mask bits).
    pub clip: u32,
    pub weight: f32,
    /// Positions a second (instance speed × layer speed × the clip's frames a second), what
    /// the full state advances by: a step's clip events are found as it finds them.
    pub fps_speed: f64,
    /// The clip has events (their marks are the clip's, `HotClip::marks`).
    pub events: bool,
    /// The clip's frames are listed (not uniform): row and frac come from its frame times.
    pub listed: bool,
}

/// A set: one or two layers and how many instances use it.
#[derive(Debug, Clone, Copy, Default)]
struct Set {
    layers: [SetLayer; 2],
    n: u32,
    users: u32,
}

/// One layer of a set as a frame reads it (what every instance's step reads first).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct HotLayer {
    /// Advance since the epoch, 2^-64 cycles, now and at the update before.
    pub adv: u64,
    pub last: u32,
    first_row: u32,
    pub clip: u32,
    weight: f32,
    pub prev: u64,
    pub fps_speed: f64,
    /// The clip has events: a step may cross them.
    pub events: bool,
    /// The clip's frames are listed: [`LayerSets::layer_of`] places them.
    pub listed: bool,
    /// Layer 0's: some layer of the set has events or listed frames (the one flag a step of
    /// the integer-only kind reads).
    pub general: bool,
    /// This update's step is half a cycle or more (always handed to the crossing rule).
    pub long: bool,
}

impl HotLayer {
    /// This layer of an instance whose phase at the epoch is `phase`, now.
    #[inline(always)]
    pub fn layer(&self, phase: u32) -> Layer {
        layer(self, phase)
    }
}

/// The key a set is shared by: its layers, bit for bit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Key([(u64, u64, u32, u32, u32, u32); 2], u32);

fn key(layers: &[SetLayer; 2], n: u32) -> Key {
    let k = |l: &SetLayer| {
        (
            l.rate,
            l.fps_speed.to_bits(),
            l.last,
            l.first_row,
            l.clip,
            l.weight.to_bits(),
        )
    };
    Key([k(&layers[0]), k(&layers[1])], n)
}

/// The shared sets, and the epoch the phases are kept at.
#[derive(Debug, Default)]
pub(crate) struct LayerSets {
    sets: Vec<Set>,
    index: HashMap<Key, u32>,
    free: Vec<u32>,
    /// Clock ticks at the epoch.
    pub epoch: u64,
    /// Per set what a frame reads of it: each layer's advance since the epoch (`t · rate`,
    /// with the carry) at the last [`Self::advance_to`], beside its frame table, clip and
    /// weight (48 B a layer, what a step reads first in its first 24 B; a one-layer set's
    /// second layer empty, so it writes an empty layer without a branch).
    hot: Vec<[HotLayer; 2]>,
    /// That time: ticks since the epoch and the sub-tick carry.
    now: (u64, f64),
    /// Some set in use has a clip with events or listed frames (recounted by
    /// [`Self::advance_to`]; set by [`Self::intern`]).
    any_general: bool,
    /// Every clip's frame table, by clip index (what listed frames are placed by).
    frames: Vec<ClipFrames>,
    /// The set interned last: a crowd made compact in one update mostly shares a few sets, and
    /// comparing with the last spares most hash lookups (a million took 150 ms without).
    last: Option<u32>,
}

/// One cycle in the phases' units (2^-64 cycles).
const CYCLE: f64 = 18_446_744_073_709_551_616.0;

/// A phase at the epoch (`phase`, 2^-32 cycles) advanced by `adv` (2^-64 cycles): the phase
/// then, 2^-64 cycles (wrapping: a loop's reduction).
#[inline(always)]
pub(crate) fn advanced(phase: u32, adv: u64) -> u64 {
    ((phase as u64) << 32).wrapping_add(adv)
}

/// The position in frames of phase `p` (2^-64 cycles) on a loop of `last` frames.
#[inline(always)]
pub(crate) fn frames_at(p: u64, last: u32) -> f64 {
    p as f64 * (1.0 / CYCLE) * last as f64
}

/// The phase (2^-64 cycles) of position `p` frames on a loop of `last` frames, reduced into
/// one cycle (the cast saturates just below a whole cycle).
pub(crate) fn cycle_of(p: f64, last: f64) -> u64 {
    ((p / last).rem_euclid(1.0) * CYCLE) as u64
}

/// The advance of `rate` over `ticks` whole ticks and a sub-tick `carry` ∈ [0, 1), 2^-64
/// cycles, wrapping.
#[inline]
fn advance(rate: u64, ticks: u64, carry: f64) -> u64 {
    // carry · rate < rate < 2^64; its f64 rounding is ~2^-53 of a tick's advance
    ticks
        .wrapping_mul(rate)
        .wrapping_add((carry * rate as f64) as u64)
}

impl LayerSets {
    /// The set of `layers` (`n` of them in use), shared with the instances already using it;
    /// `None` when [`MAX_SETS`] are in use.
    pub fn intern(&mut self, layers: [SetLayer; 2], n: u32) -> Option<u32> {
        let k = key(&layers, n);
        let last = (self.last).filter(|&id| {
            let s = &self.sets[id as usize];
            key(&s.layers, s.n) == k
        });
        if let Some(id) = last.or_else(|| self.index.get(&k).copied()) {
            self.sets[id as usize].users += 1;
            self.last = Some(id);
            return Some(id);
        }
        let set = Set {
            layers,
            n,
            users: 1,
        };
        let id = match self.free.pop() {
            Some(id) => {
                self.sets[id as usize] = set;
                id
            }
            None if self.sets.len() < MAX_SETS => {
                self.sets.push(set);
                self.hot.push([HotLayer::default(); 2]);
                (self.sets.len() - 1) as u32
            }
            None => return None,
        };
        // its advance now, as the sets already in use have theirs
        let (t, carry) = self.now;
        self.hot[id as usize] = hot_layers(&set, t, carry);
        self.any_general |= self.hot[id as usize][0].general;
        self.index.insert(k, id);
        self.last = Some(id);
        Some(id)
    }

    /// One instance stops using set `id`.
    pub fn release(&mut self, id: u32) {
        let Some(set) = self.sets.get_mut(id as usize) else {
            return;
        };
        set.users = set.users.saturating_sub(1);
        if set.users == 0 {
            let k = key(&set.layers, set.n);
            self.index.remove(&k);
            self.free.push(id);
            if self.last == Some(id) {
                self.last = None;
            }
        }
    }

    /// Sets for a runtime whose clips have these frame tables (by clip index).
    pub fn new(frames: Vec<ClipFrames>) -> LayerSets {
        LayerSets {
            frames,
            ..LayerSets::default()
        }
    }

    /// Whether a set in use has a clip with events or listed frames (then a step tests
    /// compact instances' crossings and places listed frames: [`Self::layer_of`]).
    pub fn any_general(&self) -> bool {
        self.any_general
    }

    /// Sets in use.
    pub fn in_use(&self) -> usize {
        self.sets.len() - self.free.len()
    }

    /// Layers in use of set `id`.
    pub fn layers(&self, id: u32) -> &[SetLayer] {
        let s = &self.sets[id as usize];
        &s.layers[..s.n as usize]
    }

    /// Each set's advance at `ticks` (whole, since the clock started) and `carry`, an update of
    /// `dt` seconds after the last; at or past [`EPOCH_TICKS`] after the epoch, first moves
    /// the epoch, re-basing `compact`.
    pub fn advance_to(&mut self, ticks: u64, carry: f64, dt: f64, compact: &mut [Compact]) {
        if ticks.saturating_sub(self.epoch) >= EPOCH_TICKS {
            self.rebase(ticks, compact);
        }
        let t = ticks - self.epoch;
        self.now = (t, carry);
        self.any_general = false;
        for (s, h) in self.sets.iter().zip(&mut self.hot) {
            self.any_general |= s.users > 0 && h[0].general;
            for (h, l) in h.iter_mut().zip(&s.layers) {
                h.prev = h.adv;
                h.adv = advance(l.rate, t, carry);
                // NaN counts as long
                let half = (dt * l.fps_speed).partial_cmp(&(0.5 * l.last as f64));
                h.long = half != Some(std::cmp::Ordering::Less);
            }
        }
    }

    /// Moves the epoch to `ticks`: every live phase re-based there, rounded to 2^-32 cycles.
    fn rebase(&mut self, ticks: u64, compact: &mut [Compact]) {
        let t = ticks - self.epoch;
        for c in compact.iter_mut().filter(|c| c.live()) {
            let s = &self.sets[c.set as usize];
            for l in 0..s.n as usize {
                let p = advanced(c.phase[l], advance(s.layers[l].rate, t, 0.0));
                c.phase[l] = (p.wrapping_add(1 << 31) >> 32) as u32;
            }
        }
        // the last update's advances, from the new epoch
        for (s, h) in self.sets.iter().zip(&mut self.hot) {
            for (h, l) in h.iter_mut().zip(&s.layers) {
                h.adv = h.adv.wrapping_sub(advance(l.rate, t, 0.0));
            }
        }
        self.epoch = ticks;
    }

    /// The phase now (at the last [`Self::advance_to`]) of layer `l` of `c`, 2^-64 cycles.
    #[inline]
    fn phase_now(&self, c: &Compact, l: usize) -> u64 {
        advanced(c.phase[l], self.hot[c.set as usize][l].adv)
    }

    /// Layer `l`'s position now in frames, reduced into the loop (`[0, L)`), as the full
    /// state keeps it.
    pub fn position(&self, c: &Compact, l: usize) -> f64 {
        frames_at(
            self.phase_now(c, l),
            self.sets[c.set as usize].layers[l].last,
        )
    }

    /// The phase at the epoch of a layer of set `id` at position `p` frames now (as of
    /// the last [`Self::advance_to`]), rounded to 2^-32 cycles.
    pub fn phase_at_epoch(&self, id: u32, l: usize, p: f64) -> u32 {
        let now = cycle_of(p, self.sets[id as usize].layers[l].last as f64);
        let at_epoch = now.wrapping_sub(self.hot[id as usize][l].adv);
        (at_epoch.wrapping_add(1 << 31) >> 32) as u32
    }

    /// The record of a compact instance now.
    #[inline(always)]
    pub fn record(&self, c: &Compact) -> InstanceRecord {
        let (a, b) = self.layers_now(c).unwrap_or_default();
        InstanceRecord {
            layers: [a, b, Layer::default(), Layer::default()],
        }
    }

    /// The two layers of a compact instance now (the second empty for a one-layer set).
    #[inline(always)]
    pub fn layers_now(&self, c: &Compact) -> Option<(Layer, Layer)> {
        let [x, y] = self.hot.get(c.set as usize)?;
        Some((self.layer_of(x, c.phase[0]), self.layer_of(y, c.phase[1])))
    }

    /// Layer `h` of an instance whose phase at the epoch is `phase`, now: in integers for
    /// uniform frames, by the clip's frame times for listed ones (`ClipFrames::frame`, as the
    /// full state places them).
    #[inline(always)]
    pub fn layer_of(&self, h: &HotLayer, phase: u32) -> Layer {
        if !h.listed {
            return layer(h, phase);
        }
        let q = frames_at(advanced(phase, h.adv), h.last);
        let clip = (h.clip & throng_contract::CLIP_MASK) as usize;
        let f = self
            .frames
            .get(clip)
            .map(|t| t.frame(q))
            .unwrap_or_default();
        Layer {
            weight: h.weight,
            frac: f.frac,
            row: f.row as f32,
            clip: h.clip,
        }
    }

    /// The layers of a compact instance's set as a frame reads them.
    #[inline(always)]
    pub fn hot(&self, c: &Compact) -> Option<&[HotLayer; 2]> {
        self.hot.get(c.set as usize)
    }
}

/// A set's layers as a frame reads them, at `t` ticks since the epoch and `carry`.
fn hot_layers(s: &Set, t: u64, carry: f64) -> [HotLayer; 2] {
    let mut h = [HotLayer::default(); 2];
    let general = (s.layers[..s.n as usize].iter()).any(|l| l.events || l.listed);
    for (h, l) in h.iter_mut().zip(&s.layers).take(s.n as usize) {
        let adv = advance(l.rate, t, carry);
        *h = HotLayer {
            adv,
            prev: adv,
            fps_speed: l.fps_speed,
            last: l.last,
            first_row: l.first_row,
            clip: l.clip,
            weight: l.weight,
            events: l.events,
            listed: l.listed,
            general: false,
            long: false,
        };
    }
    h[0].general = general;
    h
}

/// A looping layer of uniform frames whose phase was `phase` (2^-32 cycles) at the epoch and
/// has advanced `s.adv` (2^-64 cycles) since: its row and fraction by the contract's rule
/// (`ClipFrames::frame`), in integers: the phase's top 32 bits times `L` give the frame
/// (above 2^32) and its fraction (below). An empty layer (`L` = 0, weight 0) gives the empty
/// record layer.
#[inline(always)]
fn layer(s: &HotLayer, phase: u32) -> Layer {
    let p = advanced(phase, s.adv);
    let x = (p >> 32) * s.last as u64;
    Layer {
        weight: s.weight,
        frac: ((x as u32) as f32 * (1.0 / 4_294_967_296.0)).min(FRAC_MAX),
        row: (s.first_row + (x >> 32) as u32) as f32,
        clip: s.clip,
    }
}

/// Margin of the compact state's crossing test, 2^-64 cycles (6e-8 cycles): wider than its
/// positions' rounding, so a step near an event is always handed to the exact rule.
const NEAR: u64 = 1 << 40;

/// Whether layer `h` of a compact instance at phase `phase` (at the epoch) might cross one of
/// `marks` (its clip's event positions, 2^-64 cycles of a loop) in this update: conservative,
/// the crossing rule decides. A step of half a cycle or more always might; a clip without
/// events never.
#[inline(always)]
pub(crate) fn may_cross(h: &HotLayer, phase: u32, marks: &[u64]) -> bool {
    let p = advanced(phase, h.prev);
    let d = h.adv.wrapping_sub(h.prev);
    !marks.is_empty()
        && (h.long
            || d >= 1 << 63
            || marks
                .iter()
                .any(|&m| m.wrapping_sub(p).wrapping_add(NEAR) <= d + 2 * NEAR))
}
