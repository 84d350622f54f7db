//! What the GPU graph step (`graph_pass::GraphPass`) is handed — a graph's tables and its
//! crowd's state machines — and what it checks before it uploads them (docs/graph.md "On the
//! GPU"): the tables are `throng_graph::GraphLayout`'s shape and every index in them lands
//! inside them, the state machines name states and transitions that exist, and the parameter
//! values are finite (`GraphPass::new` checks that the crowd fits the device). A table that lied would read out of bounds on the GPU, where
//! reads are clamped and a blend search could spin: it is refused here instead.

use throng_contract::graph_layout::{
    CLIP_EVENTS_WORDS, CLIP_WORDS, CONDITION_WORDS, EVENT_WORDS, MACHINE_CUR_SRC, MACHINE_FLAGS,
    MACHINE_OUT_STATES, MACHINE_RUNNING, MACHINE_WHOLE, NONE, STATE_WORDS, TRANSITION_WORDS,
};
pub use throng_contract::graph_layout::{MACHINE_WORDS, MAX_CLIP_EVENTS};

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
/// instances, against a clip table of `clips` clips; the first problem, as words for
/// `RenderError::BadGraph`.
pub(crate) fn check(
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
                .all(|&w| throng_contract::graph_time::WHOLE_RANGE.contains(&(w as i32)));
        if !ok {
            return Err(format!(
                "instance {i}'s state machine names a state or transition the graph does not have, or a phase out of range"
            ));
        }
    }
    Ok(())
}
