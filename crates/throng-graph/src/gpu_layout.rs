//! A graph and its crowd's state machines laid out as GPU buffers (docs/graph.md "On the
//! GPU"), for a compute pass that steps every instance as [`crate::GraphCrowd::step`] does:
//! `u32` words in the layouts of the WGSL structs `GraphState`, `GraphClip`,
//! `GraphTransition`, `GraphCondition` and `GraphMachine` (throng-contract
//! `shaders/graph_step.wgsl`). Times are `throng_contract::graph_time`'s integers, made once
//! here (clip spans, exit times, offsets, lengths), so the pass repeats the step to the bit.

use throng_contract::graph_time::{self as time, Phase};
use throng_contract::MODE_LOOP;

use crate::clip_events::ClipMarks;
use crate::file::{DurationUnit, Interruption};
use crate::graph::{Graph, Motion, Test};
use crate::machine::Machine;

pub use throng_contract::graph_layout::{
    CLIP_EVENTS_WORDS, CLIP_WORDS, CONDITION_WORDS, EVENT_WORDS, MACHINE_CUR_SRC, MACHINE_ELAPSED,
    MACHINE_FLAGS, MACHINE_FRAC, MACHINE_LENGTH, MACHINE_OUT_STATES, MACHINE_OUT_WEIGHT,
    MACHINE_RATE, MACHINE_RUNNING, MACHINE_WHOLE, MACHINE_WORDS, MOTION_BLEND_1D, MOTION_BLEND_2D,
    MOTION_CLIP, NONE, STATE_WORDS, TRANSITION_WORDS,
};
use throng_contract::graph_layout::{INTERRUPT_NONE, INTERRUPT_SOURCE, INTERRUPT_TARGET};

/// A graph as GPU tables (see the module docs); every table has at least one entry, as a
/// storage binding may not be empty.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphLayout {
    pub states: Vec<u32>,
    pub clips: Vec<u32>,
    /// Blend spaces' thresholds, axis after axis.
    pub axes: Vec<f32>,
    pub transitions: Vec<u32>,
    pub conditions: Vec<u32>,
    /// Per state the transitions that may leave it (docs/graph.md "Determinism and cost"),
    /// and per transition its triggers.
    pub lists: Vec<u32>,
    /// Per clip of the clip table, its events' place in `events` ([`CLIP_EVENTS_WORDS`]).
    pub clip_events: Vec<u32>,
    /// Every clip's events, clip after clip, each by position ([`EVENT_WORDS`]).
    pub events: Vec<u32>,
    /// Parameters per instance.
    pub stride: u32,
    /// The one speed limit, `throng_runtime::MAX_SPEED`.
    pub max_speed: f32,
}

impl GraphLayout {
    /// The tables as the GPU step's contract takes them (`throng_contract::graph_step`), for
    /// every embedding that uploads them.
    pub fn tables(&self) -> throng_contract::graph_step::GraphTables<'_> {
        throng_contract::graph_step::GraphTables {
            states: &self.states,
            clips: &self.clips,
            axes: &self.axes,
            transitions: &self.transitions,
            conditions: &self.conditions,
            lists: &self.lists,
            clip_events: &self.clip_events,
            events: &self.events,
            stride: self.stride,
            max_speed: self.max_speed,
        }
    }
}

fn lo(v: u64) -> u32 {
    v as u32
}

fn hi(v: u64) -> u32 {
    (v >> 32) as u32
}

fn test_code(t: Test) -> (u32, f32) {
    match t {
        Test::Greater(c) => (0, c),
        Test::Less(c) => (1, c),
        Test::GreaterEq(c) => (2, c),
        Test::LessEq(c) => (3, c),
        Test::Equal(c) => (4, c),
        Test::NotEqual(c) => (5, c),
        Test::IsSet => (6, 0.0),
        Test::IsClear => (7, 0.0),
    }
}

/// `GraphTransition.interruption`.
pub fn interruption_code(i: Interruption) -> u32 {
    match i {
        Interruption::None => INTERRUPT_NONE,
        Interruption::Source => INTERRUPT_SOURCE,
        Interruption::Target => INTERRUPT_TARGET,
    }
}

impl GraphLayout {
    /// The tables of graph `g`, checked against (and playing) the clip table `clips`
    /// ([`crate::GraphCrowd::gpu_layout`] gives a crowd's).
    pub fn new(g: &Graph, clips: &[throng_asset::ClipInfo]) -> GraphLayout {
        let marks: Vec<ClipMarks> = clips.iter().map(ClipMarks::new).collect();
        GraphLayout::with_marks(g, &marks)
    }

    pub(crate) fn with_marks(g: &Graph, clips: &[ClipMarks]) -> GraphLayout {
        let mut l = GraphLayout {
            clip_events: Vec::with_capacity(clips.len() * CLIP_EVENTS_WORDS),
            events: Vec::new(),
            states: Vec::with_capacity(g.states.len() * STATE_WORDS),
            clips: Vec::new(),
            axes: Vec::new(),
            transitions: Vec::new(),
            conditions: Vec::new(),
            lists: Vec::new(),
            stride: g.parameters.len().max(1) as u32,
            max_speed: throng_runtime::MAX_SPEED,
        };
        for (s, state) in g.states.iter().enumerate() {
            let clips_at = (l.clips.len() / CLIP_WORDS) as u32;
            for c in state.motion.clips() {
                let span = time::span(c.duration);
                l.clips.extend([c.clip, 0, lo(span), hi(span)]);
            }
            let (motion, loop_mode, px, py) = match &state.motion {
                Motion::Clip { loop_mode, .. } => (MOTION_CLIP, loop_mode.code(), NONE, NONE),
                // a blend space's clips loop
                Motion::Blend1d { parameter, .. } => {
                    (MOTION_BLEND_1D, MODE_LOOP, *parameter as u32, NONE)
                }
                Motion::Blend2d { x, y, .. } => (MOTION_BLEND_2D, MODE_LOOP, *x as u32, *y as u32),
            };
            let (xs, ys): (&[f32], &[f32]) = match &state.motion {
                Motion::Clip { .. } => (&[], &[]),
                Motion::Blend1d { at, .. } => (at, &[]),
                Motion::Blend2d { xs, ys, .. } => (xs, ys),
            };
            let x_at = l.axes.len() as u32;
            l.axes.extend_from_slice(xs);
            let y_at = l.axes.len() as u32;
            l.axes.extend_from_slice(ys);
            let leaving_at = l.lists.len() as u32;
            for (i, t) in g.transitions.iter().enumerate() {
                if t.from.is_none() || t.from == Some(s) {
                    l.lists.push(i as u32);
                }
            }
            let leaving = l.lists.len() as u32 - leaving_at;
            l.states.extend([
                motion,
                loop_mode,
                clips_at,
                state.motion.clips().len() as u32,
                px,
                py,
                x_at,
                xs.len() as u32,
                y_at,
                ys.len() as u32,
                state.speed.to_bits(),
                state.speed_parameter.map_or(NONE, |p| p as u32),
                state.on_enter.map_or(NONE, |e| e.0),
                state.on_exit.map_or(NONE, |e| e.0),
                leaving_at,
                leaving,
            ]);
        }
        for t in &g.transitions {
            let cond_at = (l.conditions.len() / CONDITION_WORDS) as u32;
            for c in &t.conditions {
                let (test, value) = test_code(c.test);
                l.conditions
                    .extend([c.parameter as u32, test, value.to_bits(), 0]);
            }
            let trig_at = l.lists.len() as u32;
            l.lists.extend(t.triggers.iter().map(|&k| k as u32));
            let exit = t.exit_time.map(Phase::from_cycles).unwrap_or_default();
            let (length, unit) = match t.unit {
                DurationUnit::Seconds => (time::span(t.duration), 0),
                DurationUnit::Normalized => (time::cycles_units(t.duration), 1),
            };
            let offset = Phase::from_cycles(t.offset);
            l.transitions.extend([
                t.from.map_or(NONE, |f| f as u32),
                t.to as u32,
                cond_at,
                t.conditions.len() as u32,
                trig_at,
                t.triggers.len() as u32,
                u32::from(t.exit_time.is_some()),
                exit.whole as u32,
                lo(exit.frac),
                hi(exit.frac),
                lo(length),
                hi(length),
                unit,
                interruption_code(t.interruption),
                offset.whole as u32,
                0,
                lo(offset.frac),
                hi(offset.frac),
            ]);
        }
        for marks in clips {
            l.clip_events.extend([
                (l.events.len() / EVENT_WORDS) as u32,
                marks.list.len() as u32,
                u32::from(marks.zero),
                0,
            ]);
            for &(mark, event) in &marks.list {
                l.events
                    .extend([mark as u32, (mark >> 32) as u32, (mark >> 64) as u32, event]);
            }
        }
        // a storage binding holds at least one element
        for (v, words) in [
            (&mut l.clips, CLIP_WORDS),
            (&mut l.transitions, TRANSITION_WORDS),
            (&mut l.conditions, CONDITION_WORDS),
            (&mut l.clip_events, CLIP_EVENTS_WORDS),
            (&mut l.events, EVENT_WORDS),
        ] {
            if v.is_empty() {
                v.resize(words, 0);
            }
        }
        if l.lists.is_empty() {
            l.lists.push(0);
        }
        if l.axes.is_empty() {
            l.axes.push(0.0);
        }
        l
    }
}

impl Machine {
    /// The machine in `GraphMachine`'s layout (the `MACHINE_*` word indices).
    pub(crate) fn to_words(self, dirty: bool) -> [u32; MACHINE_WORDS] {
        let mut w = [0u32; MACHINE_WORDS];
        for slot in 0..3 {
            let p = self.phase(slot);
            w[MACHINE_FRAC + 2 * slot] = lo(p.frac);
            w[MACHINE_FRAC + 2 * slot + 1] = hi(p.frac);
            let r = self.rate_of(slot);
            w[MACHINE_RATE + 2 * slot] = lo(r);
            w[MACHINE_RATE + 2 * slot + 1] = hi(r);
            w[MACHINE_WHOLE + slot] = p.whole as u32;
        }
        w[MACHINE_LENGTH] = lo(self.length);
        w[MACHINE_LENGTH + 1] = hi(self.length);
        w[MACHINE_ELAPSED] = self.elapsed;
        w[MACHINE_OUT_WEIGHT] = self.out_weight[0].to_bits();
        w[MACHINE_OUT_WEIGHT + 1] = self.out_weight[1].to_bits();
        w[MACHINE_RUNNING] = self.running;
        w[MACHINE_CUR_SRC] = self.cur as u32 | (self.src as u32) << 16;
        w[MACHINE_OUT_STATES] = self.out_state[0] as u32 | (self.out_state[1] as u32) << 16;
        w[MACHINE_FLAGS] = self.out_n as u32 | (self.fresh as u32) << 8 | u32::from(dirty) << 16;
        w
    }
}

/// The words of a state and of a clip event as the GPU step lists them.
pub use throng_contract::graph_events::{ClipEventWords, StateEventWords};

impl Graph {
    /// The state event a GPU step listed as `w` ([`StateEventWords`]), as the CPU step reports
    /// it; `None` when a word names no state, event name or kind of this graph.
    pub fn state_event_of_words(&self, w: StateEventWords) -> Option<crate::GraphEvent> {
        use throng_contract::graph_layout::{EVENT_ENTER, EVENT_EXIT};
        let [instance, state, event, kind] = w;
        let state = crate::StateId(u16::try_from(state).ok()?);
        let event = crate::EventId(event);
        self.state(state)?;
        self.event_name(event)?;
        let kind = match kind {
            EVENT_ENTER => crate::EventKind::Enter,
            EVENT_EXIT => crate::EventKind::Exit,
            _ => return None,
        };
        Some(crate::GraphEvent {
            instance,
            state,
            event,
            kind,
        })
    }
}

impl crate::ClipEvent {
    /// The clip event a GPU step listed as `w` ([`ClipEventWords`]), timed as the CPU step
    /// times it: `t0` the step's start and `dt` its length, seconds (whole ticks), the
    /// crossing at the step fraction of `dt` (`graph_time::event_time`).
    pub fn of_words(w: ClipEventWords, t0: f64, dt: f64) -> crate::ClipEvent {
        crate::ClipEvent {
            instance: w[0],
            clip: throng_runtime::ClipId::new(w[1] as usize),
            event: w[2],
            time: time::event_time(t0, dt, w[4]),
            step_fraction: w[4],
        }
    }
}

/// Where one instance's state machine stands, as a front end shows it: its current state (the
/// target of a running transition) and the running transition (index in
/// [`Graph::transitions`]) with its progress in [0, 1], as `GraphCrowd::state` and
/// `GraphCrowd::transition` report them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MachineStanding {
    pub state: crate::StateId,
    pub transition: Option<(usize, f32)>,
}

impl Graph {
    /// Where the machine `w` stands, `w` in `GraphMachine`'s layout (the `MACHINE_*` word
    /// indices: what a GPU step wrote, or `GraphCrowd::machine_words`); `None` when its state
    /// or running transition is not one of this graph's.
    pub fn standing_of_words(&self, w: &[u32; MACHINE_WORDS]) -> Option<MachineStanding> {
        let state = crate::StateId(u16::try_from(w[MACHINE_CUR_SRC] & 0xffff).ok()?);
        self.state(state)?;
        let running = w[MACHINE_RUNNING];
        let transition = if running == NONE {
            None
        } else {
            self.transitions().get(running as usize)?;
            let out_n = w[MACHINE_FLAGS] & 0xff;
            let length = u64::from(w[MACHINE_LENGTH]) | u64::from(w[MACHINE_LENGTH + 1]) << 32;
            // Machine::alpha: the current state has the whole weight once nothing goes out
            let progress = if out_n == 0 {
                1.0
            } else {
                time::progress(w[MACHINE_ELAPSED], length)
            };
            Some((running as usize, progress))
        };
        Some(MachineStanding { state, transition })
    }
}
