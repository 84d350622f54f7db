//! Clip events of the clips a graph plays (docs/graph.md §3): every clip of every shown state
//! fires its events once per crossing, by the runtime's crossing rule
//! ([`throng_runtime::ClipEvents`], the one definition), on the clip's unwrapped position
//! `U = normalised time × L` (frames of its table).

use throng_asset::LoopMode;
use throng_runtime::ClipEvents;

use crate::graph::{Graph, Motion};
use crate::machine::motion_weights;

/// A clip event fired by a step: event `event` of clip `clip` crossed by instance `instance`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClipEvent {
    /// Instance index.
    pub instance: u32,
    /// Clip index in the clip table.
    pub clip: u32,
    /// Index into that clip's `ClipInfo::events`.
    pub event: u32,
    /// Seconds since the crowd was created at the crossing (interpolated within the step).
    pub time: f64,
}

/// Where a step puts one instance's clip events: the clip table's events, a scratch list of
/// crossings, the chunk's output and the step's clock.
pub(crate) struct ClipSink<'a> {
    pub tracks: &'a [ClipEvents],
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
        let motion = &g.states[state].motion;
        // blend spaces' clips always loop (docs/graph.md §2)
        let mode = match motion {
            Motion::Clip { loop_mode, .. } => *loop_mode,
            _ => LoopMode::Loop,
        };
        let (t0, dt) = (self.t0, self.dt);
        let (tracks, hits, out) = (self.tracks, &mut *self.hits, &mut *self.out);
        motion_weights(motion, p, |c, _| {
            let track = &tracks[c.clip as usize];
            if track.is_empty() {
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
                    clip: c.clip,
                    event,
                    time,
                });
            }
        });
    }
}

/// Whether any clip a graph names has events: a step without any skips the sink.
pub(crate) fn graph_has_events(g: &Graph, tracks: &[ClipEvents]) -> bool {
    g.states.iter().any(|s| {
        s.motion
            .clips()
            .iter()
            .any(|c| tracks.get(c.clip as usize).is_some_and(|t| !t.is_empty()))
    })
}
