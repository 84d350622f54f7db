//! The GPU graph step's contract apart from any GPU API (docs/graph.md "On the GPU"), so that
//! every embedding that runs `shaders/graph_step.wgsl` — throng-render's `graph_pass` (wgpu),
//! the Bevy plugin (Bevy's wgpu) — hands it the same words and checks them the same way:
//!
//! - what the step is handed — a graph's tables ([`GraphTables`]) and its crowd's state
//!   machines — and what is checked before they are uploaded ([`check`]): the tables are
//!   `throng_graph::GraphLayout`'s shape and every index in them lands inside them, the state
//!   machines name states and transitions that exist, and the parameter values are finite. A
//!   table that lied would read out of bounds on the GPU, where reads are clamped and a blend
//!   search could spin: it is refused here instead;
//! - the tables packed into the one word buffer the shader reads, and the step's uniform
//!   ([`GraphStepParams`], [`pack`]);
//! - a frame's parameter changes ([`ParamChange`]) and their check ([`ChangeCheck`]).

use crate::graph_layout::{
    CLIP_EVENTS_WORDS, CLIP_WORDS, CONDITION_WORDS, EVENT_WORDS, MACHINE_CUR_SRC, MACHINE_FLAGS,
    MACHINE_OUT_STATES, MACHINE_RUNNING, MACHINE_WHOLE, NONE, STATE_WORDS, TRANSITION_WORDS,
};
pub use crate::graph_layout::{MACHINE_WORDS, MAX_CLIP_EVENTS};

/// A graph's tables in `throng_graph::GraphLayout`'s words.
#[derive(Debug, Clone, Copy)]
pub struct GraphTables<'a> {
    pub states: &'a [u32],
    pub clips: &'a [u32],
    pub axes: &'a [f32],
    pub transitions: &'a [u32],
    pub conditions: &'a [u32],
    pub lists: &'a [u32],
    /// Per clip of the clip table: where its events start in `events`, how many, 1 for a
    /// zero-length clip, 0.
    pub clip_events: &'a [u32],
    /// Events: a mark (2^-64 cycles in [0, 2^64], three words) and an event index.
    pub events: &'a [u32],
    /// Parameters per instance.
    pub stride: u32,
    /// The speed limit of a state (`throng_runtime::MAX_SPEED`).
    pub max_speed: f32,
}

/// `start..start + len` lies within `0..size`.
fn within(start: u32, len: u32, size: usize) -> bool {
    (start as u64 + len as u64) <= size as u64
}

/// The tables, the machines and the values of a crowd of `machines.len() / MACHINE_WORDS`
/// instances, against a clip table of `clips` clips; the first problem, in words (throng-render
/// wraps it in `RenderError::BadGraph`).
pub fn check(
    t: &GraphTables<'_>,
    clips: usize,
    machines: &[u32],
    values: &[f32],
) -> Result<(), String> {
    let len = machines.len() / MACHINE_WORDS;
    if len == 0 || machines.len() != len * MACHINE_WORDS {
        return Err(format!(
            "{} machine words are not a whole number of instances ({MACHINE_WORDS} words each, at least one)",
            machines.len()
        ));
    }
    let stride = t.stride.max(1);
    if values.len() != len * stride as usize {
        return Err(format!(
            "{} parameter values for {len} instances of {stride} parameters",
            values.len()
        ));
    }
    if let Some(k) = values.iter().position(|v| !v.is_finite()) {
        return Err(format!(
            "parameter {} of instance {} is {}: parameters are finite",
            k % stride as usize,
            k / stride as usize,
            values[k]
        ));
    }
    if !t.max_speed.is_finite() || t.max_speed < 0.0 {
        return Err(format!("the speed limit {} is not a speed", t.max_speed));
    }
    let shape = [
        ("states", t.states.len(), STATE_WORDS),
        ("clips", t.clips.len(), CLIP_WORDS),
        ("transitions", t.transitions.len(), TRANSITION_WORDS),
        ("conditions", t.conditions.len(), CONDITION_WORDS),
        ("clip events", t.clip_events.len(), CLIP_EVENTS_WORDS),
        ("events", t.events.len(), EVENT_WORDS),
    ];
    for (name, words, each) in shape {
        if words % each != 0 {
            return Err(format!(
                "the {name} table has {words} words, not a whole number of {each}-word entries"
            ));
        }
    }
    let states = t.states.len() / STATE_WORDS;
    let transitions = t.transitions.len() / TRANSITION_WORDS;
    let clip_refs = t.clips.len() / CLIP_WORDS;
    let conditions = t.conditions.len() / CONDITION_WORDS;
    if states == 0 {
        return Err("the graph has no state".into());
    }
    let param = |p: u32| p < stride;
    for s in 0..states {
        let w = &t.states[s * STATE_WORDS..(s + 1) * STATE_WORDS];
        let ok = w[0] <= 2
            && within(w[2], w[3].max(1), clip_refs)
            && (w[0] == 0 || param(w[4]))
            && (w[0] != 2 || param(w[5]))
            && within(w[6], w[7], t.axes.len())
            && within(w[8], w[9], t.axes.len())
            && (w[0] == 0 || w[7] >= 1)
            && (w[0] != 2 || w[9] >= 1 && w[3] as u64 == w[7] as u64 * w[9] as u64)
            && (w[0] != 1 || w[3] == w[7])
            && (w[11] == NONE || param(w[11]))
            && within(w[14], w[15], t.lists.len())
            && (w[14]..w[14] + w[15]).all(|k| (t.lists[k as usize] as usize) < transitions);
        if !ok {
            return Err(format!(
                "state {s}'s entry {w:?} names something the tables do not hold"
            ));
        }
    }
    for c in 0..clip_refs {
        if t.clips[c * CLIP_WORDS] as usize >= clips {
            return Err(format!(
                "clip reference {c} names clip {} of a table of {clips}",
                t.clips[c * CLIP_WORDS]
            ));
        }
    }
    if t.clip_events.len() < clips * CLIP_EVENTS_WORDS {
        return Err(format!(
            "the clip events table has {} entries for a clip table of {clips}",
            t.clip_events.len() / CLIP_EVENTS_WORDS
        ));
    }
    let events = t.events.len() / EVENT_WORDS;
    for c in 0..clips {
        let w = &t.clip_events[c * CLIP_EVENTS_WORDS..(c + 1) * CLIP_EVENTS_WORDS];
        if !within(w[0], w[1], events) || w[2] > 1 {
            return Err(format!(
                "clip {c}'s events entry {w:?} names events the table does not hold"
            ));
        }
        if w[1] > MAX_CLIP_EVENTS {
            return Err(format!(
                "clip {c} has {} events, over the {MAX_CLIP_EVENTS} the GPU step takes a clip; \
                 step the graph on the CPU (GraphCrowd::step)",
                w[1]
            ));
        }
    }
    for e in 0..events {
        let w = &t.events[e * EVENT_WORDS..(e + 1) * EVENT_WORDS];
        // a mark is at most one cycle, 2^64
        if w[2] > 1 || (w[2] == 1 && (w[0] | w[1]) != 0) {
            return Err(format!("event {e}'s mark {w:?} is past one cycle"));
        }
    }
    for c in 0..conditions {
        let w = &t.conditions[c * CONDITION_WORDS..(c + 1) * CONDITION_WORDS];
        if !param(w[0]) || w[1] > 7 {
            return Err(format!(
                "condition {c}'s entry {w:?} is not a condition on a parameter"
            ));
        }
    }
    for k in 0..transitions {
        let w = &t.transitions[k * TRANSITION_WORDS..(k + 1) * TRANSITION_WORDS];
        let ok = (w[0] == NONE || (w[0] as usize) < states)
            && (w[1] as usize) < states
            && within(w[2], w[3], conditions)
            && within(w[4], w[5], t.lists.len())
            && (w[4]..w[4] + w[5]).all(|j| param(t.lists[j as usize]))
            && w[12] <= 1
            && w[13] <= 2;
        if !ok {
            return Err(format!(
                "transition {k}'s entry {w:?} names something the tables do not hold"
            ));
        }
    }
    for i in 0..len {
        let m = &machines[i * MACHINE_WORDS..(i + 1) * MACHINE_WORDS];
        let state = |s: u32| (s as usize) < states;
        let (running, cur_src, outs, flags) = (
            m[MACHINE_RUNNING],
            m[MACHINE_CUR_SRC],
            m[MACHINE_OUT_STATES],
            m[MACHINE_FLAGS],
        );
        let ok = (running == NONE || (running as usize) < transitions)
            && state(cur_src & 0xffff)
            && state(cur_src >> 16)
            && state(outs & 0xffff)
            && state(outs >> 16)
            && (flags & 0xff) <= 2
            && (m[MACHINE_WHOLE..MACHINE_WHOLE + 3].iter())
                .all(|&w| crate::graph_time::WHOLE_RANGE.contains(&(w as i32)));
        if !ok {
            return Err(format!(
                "instance {i}'s state machine names a state or transition the graph does not have, or a phase out of range"
            ));
        }
    }
    Ok(())
}

/// The step's parameters, WGSL `GraphStepParams` (64 B; its layout is checked against the
/// shader's in throng-render `tests/shaders.rs`): instances, parameters per instance, the
/// step's ticks (low and high word), the changes listed, the clip events kept, the speed
/// limit, where each table of the graph starts in the word buffer, and the state events kept.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GraphStepParams {
    pub len: u32,
    pub stride: u32,
    pub ticks_lo: u32,
    pub ticks_hi: u32,
    pub changes: u32,
    pub clip_capacity: u32,
    pub max_speed: f32,
    pub states_at: u32,
    pub clips_at: u32,
    pub axes_at: u32,
    pub transitions_at: u32,
    pub conditions_at: u32,
    pub lists_at: u32,
    pub clip_events_at: u32,
    pub events_at: u32,
    pub state_capacity: u32,
}

/// The longest step the pass takes, in clock ticks (2^20 a second): 2^40 ticks, about 12 days.
pub const MAX_STEP_TICKS: u64 = 1 << 40;

impl GraphStepParams {
    /// The uniform for a step of `ticks` (capped at [`MAX_STEP_TICKS`]) applying `changes`
    /// parameter changes.
    pub fn for_step(mut self, ticks: u64, changes: usize) -> GraphStepParams {
        let ticks = ticks.min(MAX_STEP_TICKS);
        self.ticks_lo = ticks as u32;
        self.ticks_hi = (ticks >> 32) as u32;
        self.changes = changes as u32;
        self
    }
}

/// The graph's tables as the one word buffer the step reads (`graph` in the shader; the axes
/// as their f32 bits), each table followed by a word of padding so that an empty table's
/// offset still lies inside the buffer, and the step's uniform for a crowd of `len` instances
/// keeping `state_capacity` and `clip_capacity` events (at least 1 each), ticks and changes 0.
pub fn pack(
    tables: &GraphTables<'_>,
    len: usize,
    state_capacity: u32,
    clip_capacity: u32,
) -> (Vec<u32>, GraphStepParams) {
    let mut words: Vec<u32> = Vec::new();
    let mut put = |v: &[u32]| {
        let at = words.len() as u32;
        words.extend_from_slice(v);
        words.push(0);
        at
    };
    let states_at = put(tables.states);
    let clips_at = put(tables.clips);
    let axes: Vec<u32> = tables.axes.iter().map(|a| a.to_bits()).collect();
    let axes_at = put(&axes);
    let transitions_at = put(tables.transitions);
    let conditions_at = put(tables.conditions);
    let lists_at = put(tables.lists);
    let clip_events_at = put(tables.clip_events);
    let events_at = put(tables.events);
    let head = GraphStepParams {
        len: len as u32,
        stride: tables.stride.max(1),
        ticks_lo: 0,
        ticks_hi: 0,
        changes: 0,
        clip_capacity: clip_capacity.max(1),
        max_speed: tables.max_speed,
        states_at,
        clips_at,
        axes_at,
        transitions_at,
        conditions_at,
        lists_at,
        clip_events_at,
        events_at,
        state_capacity: state_capacity.max(1),
    };
    (words, head)
}

/// Whether any clip of the graph's clip table has events: without any the step skips the
/// clip event search (its three dispatches).
pub fn any_clip_events(tables: &GraphTables<'_>) -> bool {
    (tables.clip_events.chunks(CLIP_EVENTS_WORDS)).any(|w| w.get(1).is_some_and(|&n| n > 0))
}

/// One parameter change: instance, parameter index, the value's bits, 0. Of several changes
/// to one parameter in a frame only the last may be sent (the pass applies them in parallel).
pub type ParamChange = [u32; 4];

/// Checks a frame's changes: inside the crowd, finite, and one per parameter (their order on
/// the GPU is not theirs, so two to one parameter would race). It marks each (instance,
/// parameter) in a bit per parameter of the crowd and clears the marks after, so the bits are
/// allocated once.
#[derive(Debug, Default, Clone)]
pub struct ChangeCheck {
    seen: Vec<u64>,
}

impl ChangeCheck {
    /// `changes` for a crowd of `len` instances of `stride` parameters; the first problem, in
    /// words.
    pub fn check(&mut self, changes: &[ParamChange], len: u32, stride: u32) -> Result<(), String> {
        let bits = len as usize * stride as usize;
        if self.seen.len() < bits.div_ceil(64) {
            self.seen.resize(bits.div_ceil(64), 0);
        }
        let mut problem = None;
        let mut marked = 0;
        for c in changes {
            if c[0] >= len || c[1] >= stride {
                problem = Some(format!(
                    "parameter change {c:?} is past the crowd ({len} instances of {stride} parameters)"
                ));
                break;
            }
            let v = f32::from_bits(c[2]);
            if !v.is_finite() {
                problem = Some(format!(
                    "instance {}'s parameter {} is set to {v}: parameters are finite",
                    c[0], c[1]
                ));
                break;
            }
            let bit = c[0] as usize * stride as usize + c[1] as usize;
            let (word, mask) = (bit / 64, 1u64 << (bit % 64));
            if self.seen[word] & mask != 0 {
                problem = Some(format!(
                    "instance {}'s parameter {} is set twice in one step",
                    c[0], c[1]
                ));
                break;
            }
            self.seen[word] |= mask;
            marked += 1;
        }
        for c in &changes[..marked] {
            let bit = c[0] as usize * stride as usize + c[1] as usize;
            self.seen[bit / 64] = 0;
        }
        problem.map_or(Ok(()), Err)
    }
}

/// A frame's changes as the step applies them: of several to one parameter of one instance
/// the last set wins, the list sorted by (instance, parameter). `changes` is in the order set.
pub fn last_set_wins(changes: &mut Vec<ParamChange>) {
    changes.reverse();
    // stable: of equal keys the first after the reverse, the last set, is kept
    changes.sort_by_key(|c| (c[0], c[1]));
    changes.dedup_by_key(|c| (c[0], c[1]));
}
