//! Clip events of the clips a graph plays (docs/graph.md §3 and "Clip events"): every clip of
//! every shown state fires its events once per crossing, by the runtime's crossing rule
//! (`throng_runtime::ClipEvents::crossings`) on the state's integer phase:
//! `throng_contract::graph_time::event_series`, whose WGSL twin the GPU step runs, so both list
//! the same events at the same step fractions. Where an event sits in its clip is the runtime's
//! table ([`ClipEvents`], the one definition), as a fraction of the clip's cycle.

use throng_asset::LoopMode;
use throng_contract::graph_time::{self as time, EventCycle, Phase};
use throng_runtime::ClipEvents;

use crate::graph::{Graph, Motion};
use crate::motion::motion_weights_at;

/// Widening of [`may_cross`]'s interval, in cycles: far above the rounding of the `f64`s it
/// compares (≈ 1e-16 of a cycle), so the quick test never misses a crossing that the exact
/// rule would find.
const MARGIN: f64 = 1e-9;

/// 2^-64, a phase's unit in cycles.
const UNIT: f64 = 1.0 / 18_446_744_073_709_551_616.0;

/// Whole cycles a step's advance, or the phase it ends at, stays below for the step to fire
/// clip events (`graph_time::EVENT_MAX_CYCLES`): only a runaway step (a long clock jump at a
/// high speed) reaches it.
pub const MAX_CYCLES: f64 = time::EVENT_MAX_CYCLES as f64;

/// One clip's events as fractions of its cycle.
#[derive(Debug, Clone, Default)]
pub(crate) struct ClipMarks {
    /// `(graph_time::event_mark, index into ClipInfo::events)`, by position.
    pub list: Vec<(u128, u32)>,
    /// A zero-length clip: its events fire on a state's first advance only.
    pub zero: bool,
}

impl ClipMarks {
    pub fn new(c: &throng_asset::ClipInfo) -> ClipMarks {
        let e = ClipEvents::new(c);
        let last = e.last();
        ClipMarks {
            list: (e.positions().iter())
                .map(|&(p, i)| (time::event_mark(p, last), i))
                .collect(),
            zero: last <= 0.0,
        }
    }
}

/// The clip table's events for a step: per clip its marks, and per state what a quick test
/// needs.
#[derive(Debug, Clone)]
pub(crate) struct Tracks {
    clips: Vec<ClipMarks>,
    /// Per clip, its events as fractions of its cycle (the per-clip quick test).
    cycles: Vec<Vec<f64>>,
    states: Vec<StateEvents>,
}

/// A state's clip events as its step sees them.
#[derive(Debug, Clone)]
enum StateEvents {
    /// None of its clips has events.
    None,
    /// All its clips loop (a blend space's clips, or a looping clip state) and share its
    /// normalised time: every event of every clip as a fraction of the cycle, in [0, 1].
    Loop(Vec<f64>),
    /// A one-shot, clamp or ping-pong clip state: the exact rule every step.
    Other,
}

impl Tracks {
    pub fn new(g: &Graph, clips: &[throng_asset::ClipInfo]) -> Tracks {
        let clips: Vec<ClipMarks> = clips.iter().map(ClipMarks::new).collect();
        let cycles: Vec<Vec<f64>> = (clips.iter())
            .map(|c| c.list.iter().map(|&(m, _)| m as f64 * UNIT).collect())
            .collect();
        let states = (g.states.iter())
            .map(|s| {
                let mut cycle = Vec::new();
                for c in s.motion.clips() {
                    cycle.extend_from_slice(&cycles[c.clip as usize]);
                }
                let looping = match &s.motion {
                    Motion::Clip { loop_mode, .. } => *loop_mode == LoopMode::Loop,
                    _ => true,
                };
                // a zero-length clip plays as a one-shot whatever its mode
                let zero = (s.motion.clips().iter()).any(|c| clips[c.clip as usize].zero);
                if cycle.is_empty() {
                    StateEvents::None
                } else if looping && !zero {
                    StateEvents::Loop(cycle)
                } else {
                    StateEvents::Other
                }
            })
            .collect();
        Tracks {
            clips,
            cycles,
            states,
        }
    }

    /// Per clip of the table, its marks (what the GPU layout uploads).
    pub fn clips(&self) -> &[ClipMarks] {
        &self.clips
    }

    /// Whether any state has clip events: a step without any skips the sink.
    pub fn any(&self) -> bool {
        self.states.iter().any(|s| !matches!(s, StateEvents::None))
    }
}

/// Whether a looping state advancing by `advance` from a phase whose fraction is `frac` may
/// cross one of the events at `cycle` (false only when it cannot): most steps cross none, and
/// this test needs no 128-bit arithmetic, where the exact rule does per event and clip.
#[inline]
fn may_cross(cycle: &[f64], frac: u64, advance: u128) -> bool {
    let span = advance as f64 * UNIT;
    let a = frac as f64 * UNIT - MARGIN;
    // a whole cycle, or an interval starting at the wrap (where an event at 1 shows at 0)
    if span >= 1.0 || a < 0.0 {
        return true;
    }
    let b = a + span + 2.0 * MARGIN;
    // [a, b) lies within [0, 2 + MARGIN): an event at e shows there as e or e + 1
    cycle
        .iter()
        .any(|&e| (e >= a && e < b) || (e + 1.0 >= a && e + 1.0 < b))
}

/// A clip event fired by a step: event `event` of clip `clip` crossed by instance `instance`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClipEvent {
    /// Instance index.
    pub instance: u32,
    pub clip: throng_runtime::ClipId,
    /// Index into that clip's `ClipInfo::events`.
    pub event: u32,
    /// Seconds since the crowd was created at the crossing: the step's start plus its
    /// [`Self::step_fraction`] of the step (`graph_time::event_time`).
    pub time: f64,
    /// Where within the step the crossing lies, 2^-30 units (`graph_time::step_fraction`).
    pub step_fraction: u32,
}

/// A crossing found during one instance's step, with what orders it: its step fraction, the
/// shown state's place (outgoing states first, then the current one), the clip's index among
/// the state's clips, its distance from the step's start and the event index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Crossing {
    step_fraction: u32,
    slot: u32,
    k: u32,
    distance: u128,
    event: u32,
    clip: u32,
}

/// Where a step puts one instance's clip events: the clip table's events, the crossings found
/// so far (scratch), the chunk's output and the step's clock.
pub(crate) struct ClipSink<'a> {
    pub tracks: &'a Tracks,
    pub found: &'a mut Vec<Crossing>,
    pub out: &'a mut Vec<ClipEvent>,
    /// Crowd time at the start of the step, seconds.
    pub t0: f64,
    pub dt: f64,
}

impl ClipSink<'_> {
    /// State `state`, shown at place `slot` (outgoing state k at k, the current one after
    /// them), advanced by `advance` (2^-64 cycles) from `start` during the step (`fresh`: its
    /// first advance since it was entered): each of its clips of nonzero weight at these
    /// parameters finds the events it crossed.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn played(
        &mut self,
        g: &Graph,
        state: usize,
        slot: u32,
        start: Phase,
        advance: u128,
        fresh: bool,
        p: &[f32],
    ) {
        match &self.tracks.states[state] {
            StateEvents::None => {}
            StateEvents::Loop(cycle) if !may_cross(cycle, start.frac, advance) => {}
            _ => self.find(g, state, slot, start, advance, fresh, p),
        }
    }

    /// [`Self::played`] past the quick tests: the exact rule for each clip. Out of line: most
    /// steps never get here, and the hot loop keeps its registers.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn find(
        &mut self,
        g: &Graph,
        state: usize,
        slot: u32,
        start: Phase,
        advance: u128,
        fresh: bool,
        p: &[f32],
    ) {
        let motion = &g.states[state].motion;
        // blend spaces' clips always loop (docs/graph.md §2)
        let mode = match motion {
            Motion::Clip { loop_mode, .. } => *loop_mode,
            _ => LoopMode::Loop,
        };
        let (tracks, found) = (self.tracks, &mut *self.found);
        let looping = matches!(tracks.states[state], StateEvents::Loop(_));
        motion_weights_at(motion, p, |k, c, _| {
            let marks = &tracks.clips[c.clip as usize];
            if marks.list.is_empty()
                || (looping && !may_cross(&tracks.cycles[c.clip as usize], start.frac, advance))
            {
                return;
            }
            let cycle = EventCycle::of(mode.code(), marks.zero);
            // a loop's step of less than a cycle crosses an event only if (mark − start) mod 1
            // is below the advance: the rule's own test, in 64 bits; and only a ping-pong has a
            // second series
            let short = cycle == EventCycle::Loop && advance < 1 << 64;
            let series = if cycle == EventCycle::PingPong { 2 } else { 1 };
            for &(mark, event) in &marks.list {
                if short && (mark as u64).wrapping_sub(start.frac) as u128 >= advance {
                    continue;
                }
                for which in 0..series {
                    let s = time::event_series(start, advance, mark, cycle, fresh, which);
                    for j in s.from..s.n {
                        let distance = s.at(j);
                        found.push(Crossing {
                            step_fraction: time::step_fraction(distance, advance),
                            slot,
                            k: k as u32,
                            distance,
                            event,
                            clip: c.clip,
                        });
                    }
                }
            }
        });
    }

    /// Lists the crossings `instance`'s step found, by step fraction (ties: outgoing states
    /// first, a state's clips in order, by distance, by event index).
    #[inline]
    pub fn flush(&mut self, instance: u32) {
        if self.found.is_empty() {
            return;
        }
        // a handful of entries, sorted in place without allocating
        self.found.sort_unstable();
        for c in self.found.iter() {
            self.out.push(ClipEvent {
                instance,
                clip: throng_runtime::ClipId::new(c.clip as usize),
                event: c.event,
                time: time::event_time(self.t0, self.dt, c.step_fraction),
                step_fraction: c.step_fraction,
            });
        }
        self.found.clear();
    }
}
