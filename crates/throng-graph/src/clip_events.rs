//! Clip events of the clips a graph plays (docs/graph.md §3): every clip of every shown state
//! fires its events once per crossing, by the runtime's crossing rule
//! ([`throng_runtime::ClipEvents`], the one definition), on the clip's unwrapped position
//! `U = normalised time × L` (frames of its table).

use throng_asset::LoopMode;
use throng_runtime::ClipEvents;

use crate::graph::{Graph, Motion};
use crate::motion::{fract, motion_weights};

/// Widening of [`may_cross`]'s interval, in cycles: far above the rounding of a
/// normalised time (≈ 1e-16 × its cycles), so the quick test never misses a crossing that the
/// exact rule would find.
const MARGIN: f64 = 1e-9;

/// Normalised time (cycles) past which a step fires no clip events: the crossing rule counts
/// laps in f64, exactly only while a lap count plus one differs from it (below 2^53); 2^32
/// cycles keeps every position it forms well inside that. Normalised times fold below 2^30
/// (docs/graph.md "Time"), so only a runaway step (a long clock jump at a high speed) ends
/// past it.
pub const MAX_CYCLES: f64 = 4_294_967_296.0;

/// The clip table's events for a step: per clip the runtime's crossing rule, and per state
/// what a quick test needs.
#[derive(Debug, Clone)]
pub(crate) struct Tracks {
    clips: Vec<ClipEvents>,
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
        let clips: Vec<ClipEvents> = clips.iter().map(ClipEvents::new).collect();
        let cycles: Vec<Vec<f64>> = (clips.iter())
            .map(|e| {
                let l = e.last();
                (e.positions().iter())
                    .map(|&(p, _)| if l > 0.0 { p / l } else { 0.0 })
                    .collect()
            })
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
                let zero = (s.motion.clips().iter()).any(|c| clips[c.clip as usize].last() == 0.0);
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

    /// Whether any state has clip events: a step without any skips the sink.
    pub fn any(&self) -> bool {
        self.states.iter().any(|s| !matches!(s, StateEvents::None))
    }
}

/// Whether a looping state played from normalised time `ph0` to `ph1` may cross one of the
/// events at `cycle` (false only when it cannot): most steps cross none, and this test needs
/// no division, where the exact rule needs one per event and clip.
#[inline]
fn may_cross(cycle: &[f64], ph0: f64, ph1: f64) -> bool {
    let span = ph1 - ph0;
    let a = fract(ph0) - MARGIN;
    // a whole cycle, or an interval starting at the wrap (where an event at 1 shows at 0)
    if span.is_nan() || span >= 1.0 || a < 0.0 {
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
    /// Seconds since the crowd was created at the crossing (interpolated within the step).
    pub time: f64,
}

/// Where a step puts one instance's clip events: the clip table's events, a scratch list of
/// crossings, the chunk's output and the step's clock.
pub(crate) struct ClipSink<'a> {
    pub tracks: &'a Tracks,
    pub hits: &'a mut Vec<(f64, u32)>,
    pub out: &'a mut Vec<ClipEvent>,
    /// Crowd time at the start of the step, seconds.
    pub t0: f64,
    pub dt: f64,
}

impl ClipSink<'_> {
    /// State `state` advanced from normalised time `ph0` to `ph1` during the step (`fresh`:
    /// its first advance since it was entered): each of its clips of nonzero weight at these
    /// parameters fires the events it crossed.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn played(
        &mut self,
        g: &Graph,
        state: usize,
        ph0: f64,
        ph1: f64,
        fresh: bool,
        p: &[f32],
        instance: u32,
    ) {
        // a non-finite or runaway normalised time fires nothing, or only the last laps
        if !(ph1 >= ph0 && ph1 < MAX_CYCLES) {
            return;
        }
        match &self.tracks.states[state] {
            StateEvents::None => {}
            StateEvents::Loop(cycle) if !may_cross(cycle, ph0, ph1) => {}
            _ => self.fire(g, state, ph0, ph1, fresh, p, instance),
        }
    }

    /// [`Self::played`] past the quick tests: the exact rule for each clip. Out of line: most
    /// steps never get here, and the hot loop keeps its registers.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn fire(
        &mut self,
        g: &Graph,
        state: usize,
        ph0: f64,
        ph1: f64,
        fresh: bool,
        p: &[f32],
        instance: u32,
    ) {
        let motion = &g.states[state].motion;
        // blend spaces' clips always loop (docs/graph.md §2)
        let mode = match motion {
            Motion::Clip { loop_mode, .. } => *loop_mode,
            _ => LoopMode::Loop,
        };
        // a runaway step's laps are capped by the crossing rule itself (`MAX_LAPS`)
        let (t0, dt) = (self.t0, self.dt);
        let (tracks, hits, out) = (&self.tracks.clips, &mut *self.hits, &mut *self.out);
        let cycles = &self.tracks.cycles;
        let looping = matches!(self.tracks.states[state], StateEvents::Loop(_));
        motion_weights(motion, p, |c, _| {
            let track = &tracks[c.clip as usize];
            if track.is_empty() || (looping && !may_cross(&cycles[c.clip as usize], ph0, ph1)) {
                return;
            }
            let l = track.last();
            let (u0, u1) = (ph0 * l, ph1 * l);
            track.crossings(mode, u0, u1, fresh, hits);
            let delta = u1 - u0;
            for &(u, event) in hits.iter() {
                // the runtime's interpolation of a crossing's time within the step
                let time = if delta > 0.0 {
                    t0 + ((u - u0) / delta).clamp(0.0, 1.0) * dt
                } else {
                    t0
                };
                out.push(ClipEvent {
                    instance,
                    clip: throng_runtime::ClipId::new(c.clip as usize),
                    event,
                    time,
                });
            }
        });
    }
}
