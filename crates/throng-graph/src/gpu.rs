//! Driving a GPU-timed runtime from a graph crowd (docs/graph.md "GPU-timed crowds"): for each
//! instance whose layers changed in a step ([`GraphCrowd::changed`]), the playback commands
//! that make a [`throng_runtime::Runtime`] show its current state. The GPU then times the
//! clips; the CPU touches only the changed instances.
//!
//! Exact where the runtime's two GPU-timed layers can say what the graph shows: a clip state, a
//! blend space with at most two clips of nonzero weight (`Instance::blend` synchronises
//! them by normalised time as the graph does), and a crossfade from one of those into a clip.
//! Otherwise approximate: a blend space showing three or four clips plays its two heaviest,
//! renormalised; a crossfade into a blend space fades into its heaviest clip and becomes the
//! blend when it ends; parameters set during a crossfade take effect when it ends; a state's
//! speed is the instance speed, so a crossfade's outgoing clip takes the target's speed.

use throng_asset::LoopMode;
use throng_runtime::{ClipId, Handle, PlayOptions, PlaybackCommand, PlaybackControl, RuntimeError};

use crate::crowd::GraphCrowd;
use crate::error::GraphError;
use crate::graph::{Graph, Motion};
use crate::machine::{Machine, NONE};
use crate::motion::{fract, motion_weights};

/// What a state shows, in the runtime's terms.
enum Plan {
    /// One clip at clip time `time`.
    Single {
        clip: ClipId,
        mode: LoopMode,
        time: f64,
    },
    /// Clips a and b blended with weight `w` of b, at `seek` seconds into their common cycle.
    Pair {
        a: ClipId,
        b: ClipId,
        w: f32,
        seek: f64,
    },
}

/// The plan of the current state and its speed (`machine::state_speed`).
fn plan(g: &Graph, m: &Machine, p: &[f32]) -> (Plan, f32) {
    let s = &g.states[m.cur as usize];
    let speed = crate::machine::state_speed(s, p);
    let phase = m.phase(0).to_f64();
    if let Motion::Clip { clip, loop_mode } = &s.motion {
        let cycle = if *loop_mode == LoopMode::Loop {
            fract(phase)
        } else {
            phase.max(0.0)
        };
        let time = cycle * clip.duration;
        return (
            Plan::Single {
                clip: ClipId::new(clip.clip as usize),
                mode: *loop_mode,
                time,
            },
            speed,
        );
    }
    // the two heaviest clips (of equal ones the earlier), in point order
    let mut top: [(usize, f64, f32); 2] = [(0, 0.0, 0.0); 2];
    let mut n = 0;
    motion_weights(&s.motion, p, |c, w| {
        let e = (c.clip as usize, c.duration, w);
        if n < 2 {
            top[n] = e;
            n += 1;
        } else {
            let light = if top[1].2 < top[0].2 { 1 } else { 0 };
            if w > top[light].2 {
                // keep point order: drop the lighter, append the new one
                if light == 0 {
                    top[0] = top[1];
                }
                top[1] = e;
            }
        }
    });
    if n == 1 || top[1].2 <= 0.0 {
        return (
            Plan::Single {
                clip: ClipId::new(top[0].0),
                mode: LoopMode::Loop,
                time: fract(phase) * top[0].1,
            },
            speed,
        );
    }
    let w = top[1].2 / (top[0].2 + top[1].2);
    let cycle = top[0].1 * (1.0 - w) as f64 + top[1].1 * w as f64;
    (
        Plan::Pair {
            a: ClipId::new(top[0].0),
            b: ClipId::new(top[1].0),
            w,
            seek: fract(phase) * cycle,
        },
        speed,
    )
}

/// Up to three commands, in the order to send them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Commands {
    list: [PlaybackCommand; 3],
    len: usize,
}

impl Commands {
    fn push(&mut self, c: PlaybackCommand) {
        self.list[self.len] = c;
        self.len += 1;
    }

    pub fn as_slice(&self) -> &[PlaybackCommand] {
        &self.list[..self.len]
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl GraphCrowd {
    /// The commands that make a runtime show instance `i`'s current state, starting now (see
    /// the module's note on what is exact); none while a transition that did not start in the
    /// last step runs. An instance past the crowd is an error.
    pub fn commands(&self, i: usize) -> Result<Commands, GraphError> {
        self.instance(i)?;
        Ok(self.commands_at(i))
    }

    fn commands_at(&self, i: usize) -> Commands {
        let mut out = Commands {
            list: [PlaybackCommand::Pause; 3],
            len: 0,
        };
        let (g, m, p) = (self.graph(), self.machine(i), self.params_of(i));
        let (plan, speed) = plan(g, m, p);
        out.push(PlaybackCommand::Speed(speed));
        if m.running != NONE {
            if m.elapsed > 0 {
                // a running crossfade is left to run; the plan is sent when it ends
                out.len = 0;
                return out;
            }
            let (clip, mode, time) = match plan {
                Plan::Single { clip, mode, time } => (clip, mode, time),
                Plan::Pair { a, b, w, seek } => {
                    let c = if w > 0.5 { b } else { a };
                    (c, LoopMode::Loop, seek)
                }
            };
            out.push(PlaybackCommand::Crossfade {
                clip,
                seconds: throng_contract::graph_time::span_seconds(m.length) as f32,
                options: PlayOptions::at(time as f32).with_loop_mode(mode),
            });
            return out;
        }
        match plan {
            Plan::Single { clip, mode, time } => out.push(PlaybackCommand::Play {
                clip,
                options: PlayOptions::at(time as f32).with_loop_mode(mode),
            }),
            Plan::Pair { a, b, w, seek } => {
                out.push(PlaybackCommand::Blend { a, b, weight: w });
                out.push(PlaybackCommand::Seek(seek as f32));
            }
        }
        out
    }
}

/// Sends [`GraphCrowd::commands`] of every instance that changed in the last step to `rt`,
/// instance i as `handles[i]`. Call it after both [`GraphCrowd::step`] and the runtime's
/// `update` of the same `dt`, so that the runtime's clock is at the time the commands describe.
/// Returns how many instances were told, or the first command the runtime refused (every
/// other changed instance is still told).
pub fn drive_gpu(
    crowd: &GraphCrowd,
    rt: &mut impl PlaybackControl,
    handles: &[Handle],
) -> Result<usize, RuntimeError> {
    let mut told = 0;
    let mut first_error = None;
    for &i in crowd.changed() {
        let Some(&h) = handles.get(i as usize) else {
            continue;
        };
        let cmds = crowd.commands_at(i as usize);
        // one instance's refused command leaves the others told (the first error is returned)
        for &c in cmds.as_slice() {
            if let Err(e) = rt.command(h, c) {
                first_error.get_or_insert(e);
            }
        }
        told += usize::from(cmds.len > 0);
    }
    first_error.map_or(Ok(told), Err)
}
