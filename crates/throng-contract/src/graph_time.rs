//! Animation graphs' time in integers (docs/graph.md "Time"): what a step adds to a state's
//! normalised time, and a transition's progress, are computed from whole clock ticks
//! ([`TICKS_PER_SECOND`] = 2^20 a second) with integer arithmetic only, so the same inputs give
//! the same bits on any machine, and a state played at a steady rate for any length of time is
//! exactly `ticks × rate` (no sum of rounded steps).
//!
//! The functions a graph step calls every frame have a WGSL twin, `throng::graph_time`
//! (`shaders/graph_time.wgsl`: 64- and 128-bit integers as `u32` words), equal to the bit
//! (`throng-render/tests/graph_time_twin.rs`, on Vulkan and GL). Numbers made once when a graph
//! is built ([`span`], [`cycles_units`], [`Phase::from_cycles`]) are CPU only: a GPU pass reads
//! them from its buffers.
//!
//! Units:
//! - [`Phase`]: normalised time (cycles) as a signed whole count and a 64-bit fraction;
//! - a *rate*: cycles per tick in units of 2^-64 (`u64`; at most just under one cycle a tick,
//!   about a million cycles a second);
//! - a *span*: seconds in units of 2^-40 (`u64`, held below 2^23 s), for clip and cycle lengths
//!   and transition lengths (2^-40 s is 2^-20 of a tick);
//! - a weight: units of 2^-48, which hold every `f32` weight of 2^-24 or more exactly.

use crate::gpu_timed::TICKS_PER_SECOND;

/// Bits of a span's fraction of a second.
pub const SPAN_BITS: u32 = 40;
/// A tick in span units: 2^(40 − 20).
const SPAN_PER_TICK: u64 = (1u64 << SPAN_BITS) / TICKS_PER_SECOND;
/// Bits of a weight's fraction.
pub(crate) const WEIGHT_BITS: u32 = 48;
/// Whole cycles past which a phase folds back by [`FOLD`].
pub(crate) const FOLD_AT: i32 = 1 << 30;
/// What a fold takes off: even, so a loop's fraction and a ping-pong's direction are kept, and
/// smaller than [`FOLD_AT`], so a folded phase stays past every exit time and every one-shot's
/// end (exit times and offsets are held to at most 2^29 cycles).
pub(crate) const FOLD: i32 = 1 << 29;

/// The whole cycles a [`Phase`] keeps: −2^29 (the lowest offset) up to where it folds.
pub const WHOLE_RANGE: std::ops::Range<i32> = -FOLD..FOLD_AT;
/// The largest whole part of a phase made from a number ([`Phase::from_cycles`]).
const MAX_WHOLE: f64 = (1u32 << 29) as f64;
/// The longest transition, seconds (as the runtime's crossfades): a transition's elapsed
/// ticks are kept in a `u32`, which holds 4096 s.
pub const MAX_TRANSITION_SECONDS: u64 = 2048;

/// Normalised time: `whole + frac / 2^64` cycles, `whole` in [−2^29, 2^30) (a phase that
/// reaches 2^30 whole cycles folds back by 2^29).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Phase {
    pub whole: i32,
    pub frac: u64,
}

impl Phase {
    /// `x` cycles as a phase: its floor and its fraction scaled by 2^64 and truncated (so at
    /// or below `x`, but that a negative `x` within 2^-53 of a whole number rounds to it);
    /// non-finite counts as 0, and the whole part is held within ±2^29.
    pub fn from_cycles(x: f64) -> Phase {
        if !x.is_finite() {
            return Phase::default();
        }
        let x = x.clamp(-MAX_WHOLE, MAX_WHOLE);
        let whole = x.floor();
        // x − floor(x) is exact for x ≥ 0 (and rounds only for a negative x very near a whole
        // number), scaling by 2^64 only moves the exponent, and the cast truncates what lies
        // below 2^-64 (a fraction that rounded to 1 saturates just below it)
        let frac = ((x - whole) * 18_446_744_073_709_551_616.0) as u64;
        Phase {
            whole: whole as i32,
            frac,
        }
    }

    /// Cycles as an `f64` (what the layers and the clip events read).
    pub fn to_f64(self) -> f64 {
        self.whole as f64 + (self.frac >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Adds `ticks × rate` exactly (`ticks` at most 2^40, the clock's longest step); returns
    /// how many times the phase folded (it is then that many [`Phase::folded_by`] cycles less
    /// than the sum; a long step at a high rate can fold more than once).
    pub fn advance(&mut self, ticks: u64, rate: u64) -> u32 {
        let add = ticks as u128 * rate as u128;
        let frac = self.frac as u128 + (add & u64::MAX as u128);
        self.frac = frac as u64;
        let carry = (add >> 64) + (frac >> 64);
        // a step adds at most 2^40 ticks × < 1 cycle: the sum fits an i64
        let whole = self.whole as i64 + carry as i64;
        if whole >= FOLD_AT as i64 {
            let folds = (whole - FOLD_AT as i64) / FOLD as i64 + 1;
            self.whole = (whole - folds * FOLD as i64) as i32;
            folds as u32
        } else {
            self.whole = whole as i32;
            0
        }
    }

    /// Cycles a fold takes off.
    pub fn folded_by() -> f64 {
        FOLD as f64
    }
}

/// `seconds` (finite, ≥ 0) as a span, rounded to the nearest unit and held to at most 2^63.
pub fn span(seconds: f64) -> u64 {
    if seconds.is_nan() || seconds <= 0.0 {
        return 0;
    }
    (seconds * (1u64 << SPAN_BITS) as f64)
        .round()
        .min((1u64 << 63) as f64) as u64
}

/// A span as seconds (rounded to the nearest `f64`).
pub fn span_seconds(s: u64) -> f64 {
    s as f64 / (1u64 << SPAN_BITS) as f64
}

/// `w` (a weight in [0, 1]) in units of 2^-48, rounded down: exact for weights of 2^-24 and
/// more (an `f32` in that range is a multiple of 2^-47).
pub fn weight_units(w: f32) -> u64 {
    (w.clamp(0.0, 1.0) as f64 * (1u64 << WEIGHT_BITS) as f64) as u64
}

/// One clip's part of a cycle: `weight_units(w) × span(d)`, to be summed over a motion's clips.
pub fn weighted(w: f32, span: u64) -> u128 {
    weight_units(w) as u128 * span as u128
}

/// The cycle of a motion from the sum of its clips' [`weighted`] parts, span units: the
/// weighted mean duration, or 1 s when it is 0 (a zero-length motion).
pub fn cycle_span(sum: u128) -> u64 {
    match (sum >> WEIGHT_BITS).min(u64::MAX as u128) as u64 {
        0 => 1 << SPAN_BITS,
        c => c,
    }
}

/// Cycles per tick (units of 2^-64) of a state played at `speed` (≥ 0, finite) whose cycle
/// lasts `cycle` span units (> 0): `floor(speed · 2^64 / (cycle / 2^20))`, rounded down from
/// the exact quotient of the two numbers' bits, at most `u64::MAX`.
pub fn rate(speed: f32, cycle: u64) -> u64 {
    if speed.is_nan() || speed <= 0.0 || cycle == 0 {
        return 0;
    }
    // speed = m · 2^e exactly, m < 2^24
    let bits = speed.to_bits();
    let exp = ((bits >> 23) & 0xff) as i32;
    let (m, e) = if exp == 0 {
        ((bits & 0x7f_ffff) as u128, -149)
    } else {
        (((bits & 0x7f_ffff) | 0x80_0000) as u128, exp - 150)
    };
    // rate = m · 2^(e + 64 + 20) / cycle; the shift is at most 71 for speeds the runtime
    // accepts (≤ 1000 < 2^10, so e ≤ -13), and a negative one drops what lies below the unit
    let shift = e + 64 + (SPAN_BITS - 20) as i32;
    let q = if shift >= 0 {
        let shift = shift.min(100) as u32;
        (m << shift) / cycle as u128
    } else if shift > -128 {
        (m >> (-shift) as u32) / cycle as u128
    } else {
        0
    };
    q.min(u64::MAX as u128) as u64
}

/// A transition's length in span units: its seconds (normalised lengths already multiplied by
/// the cycle) held to [`MAX_TRANSITION_SECONDS`].
pub fn transition_span(span: u64) -> u64 {
    span.min(MAX_TRANSITION_SECONDS << SPAN_BITS)
}

/// A normalised length (`cycles`, ≥ 0, finite) in units of 2^-32 cycles, rounded to nearest
/// and held to 2^29 cycles: what [`cycles_span`] multiplies.
pub fn cycles_units(cycles: f64) -> u64 {
    if cycles.is_nan() || cycles <= 0.0 {
        return 0;
    }
    (cycles.min(MAX_WHOLE) * (1u64 << 32) as f64).round() as u64
}

/// `units` ([`cycles_units`]) of a cycle `cycle` span units long, as a span (rounded down).
pub fn cycles_span(units: u64, cycle: u64) -> u64 {
    ((units as u128 * cycle as u128) >> 32).min(u64::MAX as u128) as u64
}

/// A transition's progress after `elapsed` ticks of `length` span units (> 0): `elapsed ·
/// 2^20 / length` rounded down to a multiple of 2^-24, at most 1 (exact in `f32`).
pub fn progress(elapsed: u32, length: u64) -> f32 {
    if length == 0 {
        return 1.0;
    }
    let done = (elapsed as u64 * SPAN_PER_TICK).min(length) as u128;
    let q = (done << 24) / length as u128;
    q as f32 * (1.0 / (1u32 << 24) as f32)
}

/// Whether `elapsed` ticks have reached `length` span units.
pub fn reached(elapsed: u32, length: u64) -> bool {
    elapsed as u64 * SPAN_PER_TICK >= length
}

// ---- clip events (docs/graph.md "Clip events") ----

/// One cycle of normalised time, 2^-64 units.
const CYCLE: u128 = 1 << 64;
/// What [`event_series`] adds to a phase so that every phase it compares is positive: 2^30
/// whole cycles, past the lowest whole part (−2^29).
const BIAS: u128 = (EVENT_BIAS_CYCLES as u128) << 64;
/// A step fires the last this many crossings of each series of an event at most (the
/// runtime's `MAX_LAPS`): a long step at a high speed costs a bounded list.
pub const EVENT_LAPS: u32 = 64;
/// Whole cycles that a step's advance, and the phase it ends at, must stay below for it to fire
/// clip events: at or past them (a runaway step) it fires none (the runtime's `MAX_STEP_LAPS`;
/// one less than 2^32, so that a series' crossing count fits a `u32`).
pub const EVENT_MAX_CYCLES: u64 = (1 << 32) - 1;
/// Bits of a crossing's [`step_fraction`].
pub const STEP_FRACTION_BITS: u32 = 30;

/// How the events of one clip of a state recur along the state's normalised time: a looping
/// clip (and a blend space's) every cycle; a ping-pong one at e and 2 − e every two cycles;
/// a one-shot or clamped clip once, the interval cut and closed at its end; a zero-length clip
/// once, on the state's first advance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventCycle {
    Loop = 0,
    PingPong = 1,
    Once = 2,
    Static = 3,
}

impl EventCycle {
    /// The cycle of a clip played in loop mode `mode` (a record's mode code), `zero_length`
    /// when its clip has a single frame.
    pub fn of(mode: u32, zero_length: bool) -> EventCycle {
        if zero_length {
            EventCycle::Static
        } else if mode == crate::MODE_LOOP {
            EventCycle::Loop
        } else if mode == crate::MODE_PINGPONG {
            EventCycle::PingPong
        } else {
            EventCycle::Once
        }
    }
}

/// An event's place in its clip's cycle: its frame position over the clip's last frame
/// position (`position / last`, both frames, `0 ≤ position ≤ last`), in 2^-64 cycles in
/// [0, 2^64] (an event at the end is exactly one cycle); 0 for a zero-length clip. Made once
/// on the CPU; the GPU reads it from a table.
pub fn event_mark(position: f64, last: f64) -> u128 {
    if last.is_nan() || last <= 0.0 || position.is_nan() || position <= 0.0 {
        return 0;
    }
    if position >= last {
        return CYCLE;
    }
    // a quotient below 1, scaled by 2^64 (exact), the cast truncating below the unit
    ((position / last) * 18_446_744_073_709_551_616.0) as u128
}

/// One series of crossings of one event in one step: the distances (2^-64 cycles from the
/// phase the step started at) `first + j · 2^shift` for `j` in `from..n`, in increasing order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Series {
    pub first: u128,
    pub from: u32,
    pub n: u32,
    pub shift: u32,
}

impl Series {
    /// The `j`-th crossing's distance.
    pub fn at(&self, j: u32) -> u128 {
        self.first + ((j as u128) << self.shift)
    }
}

/// Whole cycles [`event_series`] adds to a phase so that every phase it compares is positive:
/// past the lowest whole part (−2^29).
pub const EVENT_BIAS_CYCLES: u32 = 1 << 30;

/// `p` as a positive number of 2^-64 cycles (`p + 2^30` cycles; the whole part's `u32` sum
/// wraps as the WGSL twin's `i32` sum does, for whole parts outside a phase's range).
fn biased(p: Phase) -> u128 {
    ((p.whole as u32).wrapping_add(EVENT_BIAS_CYCLES) as u128) << 64 | p.frac as u128
}

/// The crossings of series `which` (0, or 1 for a ping-pong event's way back) of the event at
/// `mark` ([`event_mark`]) when a state advances from `start` by `advance` (2^-64 cycles,
/// `ticks × rate`) — the runtime's crossing rule (`throng_runtime::ClipEvents::crossings`)
/// on the integer phase: the half-open interval [start, start + advance) for a repeating
/// cycle, the last [`EVENT_LAPS`] crossings of each series; for a one-shot the interval cut at
/// one cycle and closed there (`fresh`: the state's first advance since it was entered, so an
/// event at the end still fires for a state entered there); a zero-length clip fires on the
/// first advance only, at distance 0. None at or past [`EVENT_MAX_CYCLES`].
pub fn event_series(
    start: Phase,
    advance: u128,
    mark: u128,
    cycle: EventCycle,
    fresh: bool,
    which: u32,
) -> Series {
    let none = Series::default();
    let max = (EVENT_MAX_CYCLES as u128) << 64;
    if advance >= max || which > 1 {
        return none;
    }
    let p = biased(start);
    let end = p + advance;
    if end >= BIAS + max {
        return none;
    }
    let one = |first: u128| Series {
        first,
        from: 0,
        n: 1,
        shift: 0,
    };
    let repeat = |at: u128, shift: u32| {
        // the first crossing at or after the start: (at − start) mod the period (the bias is
        // a whole number of periods)
        let first = at.wrapping_sub(p) & ((1u128 << shift) - 1);
        if first >= advance {
            return none;
        }
        let n = (((advance - first - 1) >> shift) + 1) as u32;
        Series {
            first,
            from: n.saturating_sub(EVENT_LAPS),
            n,
            shift,
        }
    };
    match cycle {
        EventCycle::Static => {
            if fresh && which == 0 {
                one(0)
            } else {
                none
            }
        }
        EventCycle::Once => {
            let (m, one_cycle) = (BIAS + mark, BIAS + CYCLE);
            let inside = p <= m && m < end.min(one_cycle);
            let at_end =
                mark >= CYCLE && end >= one_cycle && (p < one_cycle || (fresh && p <= one_cycle));
            if which == 0 && (inside || at_end) {
                one(m.saturating_sub(p))
            } else {
                none
            }
        }
        // an event at the end of a loop is the one at its start
        EventCycle::Loop if which == 0 => repeat(mark & (CYCLE - 1), 64),
        EventCycle::Loop => none,
        EventCycle::PingPong => {
            if which == 0 {
                repeat(mark, 65)
            } else if mark > 0 && mark < CYCLE {
                // the way back; at the turns both series coincide and one is kept
                repeat(2 * CYCLE - mark, 65)
            } else {
                none
            }
        }
    }
}

/// Where within a step of `advance` a crossing `distance` from its start lies, in units of
/// 2^-30 of the step (0 for a step that does not advance): `floor(distance · 2^30 /
/// advance)` of the two numbers cut to the top 64 bits of `advance`, at most 2^30.
pub fn step_fraction(distance: u128, advance: u128) -> u32 {
    if advance == 0 {
        return 0;
    }
    let shift = (128 - advance.leading_zeros()).saturating_sub(64);
    let q = ((distance.min(advance) >> shift) << STEP_FRACTION_BITS) / (advance >> shift);
    q.min(1 << STEP_FRACTION_BITS) as u32
}

/// The time of a crossing at step fraction `q` of a step of `dt` seconds that started at `t0`
/// seconds.
pub fn event_time(t0: f64, dt: f64, q: u32) -> f64 {
    t0 + q as f64 * (1.0 / (1u64 << STEP_FRACTION_BITS) as f64) * dt
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_round_trip_and_order() {
        for x in [0.0, 0.25, 1.5, -0.5, -2.75, 1234.125, 3.0e8] {
            let p = Phase::from_cycles(x);
            assert_eq!(p.to_f64(), x, "{x}");
        }
        assert!(Phase::from_cycles(-0.5) < Phase::from_cycles(0.0));
        assert!(Phase::from_cycles(1.0) > Phase::from_cycles(0.999));
        assert_eq!(Phase::from_cycles(f64::NAN), Phase::default());
        assert_eq!(Phase::from_cycles(1e30).whole, 1 << 29);
    }

    #[test]
    fn a_steady_rate_is_ticks_times_rate() {
        // one cycle per second: 2^44 units a tick
        let r = rate(1.0, span(1.0));
        assert_eq!(r, 1u64 << 44);
        let mut p = Phase::default();
        let mut ticks = 0u64;
        for k in 0..1000u64 {
            let t = 17_476 + k % 3;
            p.advance(t, r);
            ticks += t;
        }
        let want = ticks as u128 * r as u128;
        assert_eq!(p.whole as u128, want >> 64);
        assert_eq!(p.frac as u128, want & u64::MAX as u128);
    }

    #[test]
    fn a_fold_keeps_the_fraction_and_the_parity() {
        let mut p = Phase {
            whole: (1 << 30) - 1,
            frac: 3 << 62,
        };
        let folds = p.advance(1, 1 << 63);
        assert_eq!(folds, 1);
        assert_eq!(p.whole, (1 << 30) - (1 << 29));
        assert_eq!(p.frac, 1 << 62);
    }

    #[test]
    fn rates_against_the_quotient() {
        // 1.5 cycles of a 0.8 s clip per second, per tick
        let want = 1.5 / 0.8 / TICKS_PER_SECOND as f64;
        let got = rate(1.5, span(0.8)) as f64 / 2f64.powi(64);
        assert!((got / want - 1.0).abs() < 1e-9, "{got} {want}");
        assert_eq!(rate(0.0, span(1.0)), 0);
        assert_eq!(rate(1000.0, 1), u64::MAX);
        assert!(rate(f32::from_bits(1), span(1.0)) == 0);
    }

    #[test]
    fn progress_is_exact_at_the_ends() {
        let len = span(0.2);
        assert_eq!(progress(0, len), 0.0);
        assert_eq!(progress(u32::MAX, len), 1.0);
        let half = (len / 2 / SPAN_PER_TICK) as u32;
        // within a tick of the middle (a tick is 1 / 209,715 of 0.2 s)
        assert!((progress(half, len) - 0.5).abs() < 5e-6);
        assert!(!reached(half, len));
        assert!(reached((len / SPAN_PER_TICK) as u32 + 1, len));
    }

    /// Every crossing of one event in one step, as cycles from the start.
    fn crossed(start: f64, advance: f64, mark: f64, cycle: EventCycle, fresh: bool) -> Vec<f64> {
        let adv = (advance * 2f64.powi(64)) as u128;
        let mut out = Vec::new();
        for which in 0..2 {
            let s = event_series(
                Phase::from_cycles(start),
                adv,
                event_mark(mark, 1.0),
                cycle,
                fresh,
                which,
            );
            out.extend((s.from..s.n).map(|j| s.at(j) as f64 / 2f64.powi(64)));
        }
        out.sort_by(f64::total_cmp);
        out
    }

    #[test]
    fn event_crossings_by_hand() {
        use EventCycle::*;
        // a loop crosses e + k in [start, start + advance): half-open
        assert_eq!(crossed(0.5, 1.0, 0.25, Loop, false), [0.75]);
        assert_eq!(crossed(0.25, 1.0, 0.25, Loop, false), [0.0]);
        assert_eq!(crossed(0.0, 2.5, 0.25, Loop, false), [0.25, 1.25, 2.25]);
        // an event at the end of a loop is its start's
        assert_eq!(crossed(0.5, 1.0, 1.0, Loop, false), [0.5]);
        // a ping-pong pass and its way back: e and 2 − e every two cycles; at a turn once
        assert_eq!(crossed(0.0, 2.0, 0.25, PingPong, false), [0.25, 1.75]);
        assert_eq!(crossed(0.0, 4.0, 1.0, PingPong, false), [1.0, 3.0]);
        // a one-shot fires inside [start, min(end, 1)), and at 1 when the end is reached
        assert_eq!(crossed(0.0, 0.5, 0.25, Once, false), [0.25]);
        assert!(crossed(0.5, 3.0, 0.25, Once, false).is_empty());
        assert_eq!(crossed(0.5, 3.0, 1.0, Once, false), [0.5]);
        assert!(crossed(1.0, 1.0, 1.0, Once, false).is_empty());
        assert_eq!(crossed(1.0, 1.0, 1.0, Once, true), [0.0]);
        // a zero-length clip: on the first advance only
        assert_eq!(crossed(0.0, 0.1, 0.0, Static, true), [0.0]);
        assert!(crossed(0.0, 0.1, 0.0, Static, false).is_empty());
        // the last EVENT_LAPS crossings of a long step; none past the limit
        let long = crossed(0.0, 100.0, 0.5, Loop, false);
        assert_eq!(long.len(), EVENT_LAPS as usize);
        assert_eq!(long[0], 36.5);
        assert!(crossed(0.0, EVENT_MAX_CYCLES as f64, 0.5, Loop, false).is_empty());
        // just below the limit: a lap count of 2^32 − 2 still fits, the last 64 fire
        let below = (EVENT_MAX_CYCLES as u128 - 1) << 64;
        let s = event_series(Phase::default(), below, 0, Loop, false, 0);
        assert_eq!((s.n, s.n - s.from), (u32::MAX - 1, EVENT_LAPS));
    }

    #[test]
    fn step_fractions() {
        let c = 1u128 << 64;
        assert_eq!(step_fraction(0, 0), 0);
        assert_eq!(step_fraction(c / 4, c), 1 << 28);
        assert_eq!(step_fraction(c, c), 1 << 30);
        // a long advance is cut to its top 64 bits: still the quotient within 2^-30
        assert_eq!(step_fraction(3 << 90, 1 << 92), 3 << 28);
        assert_eq!(event_time(1.0, 0.5, 1 << 29), 1.25);
    }
}
