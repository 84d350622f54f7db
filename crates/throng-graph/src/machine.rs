//! One instance's state machine: the per-instance state and the step and compose functions the
//! bulk step runs over every instance (docs/graph.md "Evaluation"). Pure functions of the graph,
//! the instance's parameters and its state: no allocation, no shared writes.

use throng_asset::LoopMode;
use throng_contract::MAX_LAYERS;

use crate::clip_events::ClipSink;
use crate::file::{DurationUnit, Interruption};
use crate::graph::{Graph, Motion, State};
use crate::ids::{EventId, StateId};
use crate::motion::{fract, motion_weights};
use throng_contract::graph_time::{self as time, Phase};

/// No transition is running.
pub(crate) const NONE: u32 = u32::MAX;

/// [`Machine::fresh`]'s bit of the current state.
const FRESH_CURRENT: u8 = 1;

/// Most states an instance shows at once: two outgoing ones (after an interruption) and the
/// current one.
const OUTGOING: usize = 2;

/// Clip layers the states of one instance may show before the cut to [`MAX_LAYERS`]: three
/// states of up to four clips each.
const CANDIDATES: usize = (OUTGOING + 1) * 4;

/// Slot of the current state in [`Machine`]'s per-state arrays; outgoing state k is slot
/// `1 + k`.
const CUR: usize = 0;

/// One instance's state machine (96 B). Its time is integer (`throng_contract::graph_time`):
/// per shown state a
/// [`Phase`] split into its fraction and whole words and a rate in cycles per tick, refreshed
/// when a parameter is set or a transition fires; a running transition's elapsed ticks and
/// length.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Machine {
    /// Per slot (the current state, then the outgoing ones): the fraction of its normalised
    /// time since it was entered, 2^-64 cycles.
    frac: [u64; OUTGOING + 1],
    /// Per slot, cycles per tick (2^-64 units) at the parameters of the last refresh.
    rate: [u64; OUTGOING + 1],
    /// The running transition's length, span units (2^-40 s; > 0 while one runs).
    pub length: u64,
    /// Per slot, whole cycles (the phase's whole part; folded past 2^30).
    whole: [i32; OUTGOING + 1],
    /// Ticks since the running transition fired (saturating).
    pub elapsed: u32,
    /// The outgoing states' shares of the outgoing side (sum 1).
    pub out_weight: [f32; OUTGOING],
    /// The running transition, or [`NONE`].
    pub running: u32,
    pub cur: u16,
    /// The state the running transition left.
    pub src: u16,
    pub out_state: [u16; OUTGOING],
    /// Outgoing states in use (0 when no transition runs).
    pub out_n: u8,
    /// Which shown states have not advanced since they were entered (their next advance is
    /// the clip events' *fresh* one): bit 0 the current state, bit 1 + k outgoing state k.
    pub fresh: u8,
}

impl Machine {
    pub fn new(entry: usize) -> Machine {
        Machine {
            frac: [0; OUTGOING + 1],
            rate: [0; OUTGOING + 1],
            length: 0,
            whole: [0; OUTGOING + 1],
            elapsed: 0,
            out_weight: [0.0; OUTGOING],
            running: NONE,
            cur: entry as u16,
            src: entry as u16,
            out_state: [0; OUTGOING],
            out_n: 0,
            fresh: FRESH_CURRENT,
        }
    }

    /// Weight of the current state: the running transition's progress, 1 when none runs.
    pub fn alpha(&self) -> f32 {
        if self.out_n == 0 {
            1.0
        } else {
            time::progress(self.elapsed, self.length)
        }
    }

    /// The normalised time of slot `slot`.
    pub fn phase(&self, slot: usize) -> Phase {
        Phase {
            whole: self.whole[slot],
            frac: self.frac[slot],
        }
    }

    /// The rate of slot `slot` (cycles per tick, 2^-64 units) as last refreshed.
    pub fn rate_of(&self, slot: usize) -> u64 {
        self.rate[slot]
    }

    fn set_phase(&mut self, slot: usize, p: Phase) {
        self.whole[slot] = p.whole;
        self.frac[slot] = p.frac;
    }

    /// Advances slot `slot` by `ticks` at its rate: its normalised time before, and what the
    /// step added (2^-64 cycles; a fold does not change it, so a step that folds still reads
    /// as the forward step it was).
    fn advance(&mut self, slot: usize, ticks: u64) -> (Phase, u128) {
        let mut p = self.phase(slot);
        let start = p;
        p.advance(ticks, self.rate[slot]);
        self.set_phase(slot, p);
        (start, ticks as u128 * self.rate[slot] as u128)
    }

    /// The state shown in `slot`.
    fn state(&self, slot: usize) -> usize {
        if slot == CUR {
            self.cur as usize
        } else {
            self.out_state[slot - 1] as usize
        }
    }

    /// Recomputes every shown state's rate at parameters `p`: after a parameter was set or a
    /// transition fired (the only times a rate can change).
    pub fn refresh_rates(&mut self, g: &Graph, p: &[f32]) {
        for slot in 0..=self.out_n as usize {
            self.rate[slot] = state_rate(&g.states[self.state(slot)], p);
        }
    }
}

/// One clip layer an instance shows: clip time `time` at `weight`. Seconds: for a looping clip
/// (and every clip of a blend space) the fraction of the state's cycle times the clip's
/// duration, in [0, d); otherwise normalised time × duration, which the loop mode reduces
/// (ping-pong) or clamps (once, clamp).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GraphLayer {
    pub clip: u32,
    pub loop_mode: LoopMode,
    pub time: f64,
    pub weight: f32,
}

impl Default for GraphLayer {
    fn default() -> Self {
        GraphLayer {
            clip: 0,
            loop_mode: LoopMode::Loop,
            time: 0.0,
            weight: 0.0,
        }
    }
}

/// The layers of one instance, at most [`MAX_LAYERS`], in order: outgoing states first, then
/// the current one, each state's clips in its point order.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LayerSet {
    pub len: usize,
    pub layers: [GraphLayer; MAX_LAYERS],
}

impl LayerSet {
    pub fn as_slice(&self) -> &[GraphLayer] {
        &self.layers[..self.len]
    }
}

/// Whether a state event is an entry or an exit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    Enter,
    Exit,
}

/// A state event fired by a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GraphEvent {
    /// Instance index.
    pub instance: u32,
    /// The state entered or left.
    pub state: StateId,
    /// The state's `on_enter` / `on_exit` name ([`Graph::event_name`]).
    pub event: EventId,
    pub kind: EventKind,
}

/// How long one cycle of a state lasts at speed 1 with these parameters, span units
/// (`throng_contract::graph_time`): the clip's duration, or a blend's weighted mean duration,
/// each weight and duration made integer first; 1 s for a zero-length motion.
pub(crate) fn cycle_span(s: &State, p: &[f32]) -> u64 {
    let mut sum = 0u128;
    motion_weights(&s.motion, p, |c, w| {
        sum += time::weighted(w, time::span(c.duration))
    });
    time::cycle_span(sum)
}

/// A state's speed factor at these parameters: its `speed` times its speed parameter
/// (negative counts as 0), at most the runtime's [`throng_runtime::MAX_SPEED`] — the one speed
/// limit, so a CPU-stepped graph plays what a GPU-timed runtime driven by it can be told.
pub(crate) fn state_speed(s: &State, p: &[f32]) -> f32 {
    let mult = s.speed_parameter.map_or(1.0, |k| p[k].max(0.0));
    (s.speed * mult).min(throng_runtime::MAX_SPEED)
}

/// Normalised time per tick of a state, 2^-64 units (`graph_time::rate`).
fn state_rate(s: &State, p: &[f32]) -> u64 {
    time::rate(state_speed(s, p), cycle_span(s, p))
}

/// Normalised time of `state` as the instance shows it (`None`: not shown).
fn phase_of(m: &Machine, state: usize) -> Option<Phase> {
    if m.cur as usize == state {
        return Some(m.phase(CUR));
    }
    (0..m.out_n as usize)
        .find(|&k| m.out_state[k] as usize == state)
        .map(|k| m.phase(1 + k))
}

/// Per state, the transitions that may leave it — its own and the any-state ones — in file
/// order, so that a step tries only those (the others could not fire).
#[derive(Debug, Clone, Default)]
pub(crate) struct Leaving {
    /// `list[start[s]..start[s + 1]]` for state s.
    start: Vec<u32>,
    list: Vec<u32>,
}

impl Leaving {
    pub fn new(g: &Graph) -> Leaving {
        let mut l = Leaving::default();
        for s in 0..g.states.len() {
            l.start.push(l.list.len() as u32);
            for (i, t) in g.transitions.iter().enumerate() {
                if t.from.is_none() || t.from == Some(s) {
                    l.list.push(i as u32);
                }
            }
        }
        l.start.push(l.list.len() as u32);
        l
    }

    fn of(&self, s: usize) -> &[u32] {
        &self.list[self.start[s] as usize..self.start[s + 1] as usize]
    }
}

/// Advances one instance by `ticks` clock ticks and fires at most one transition; state
/// events go to `events`, the clip events of the advance to `clips` when given (outgoing
/// states first, then the current one; sorted by time, stably). `dirty`: a parameter was set
/// since the last step (the rates are refreshed first). Returns whether a transition fired or
/// ended (the layers changed other than by time and parameters). The order (docs/graph.md
/// "Evaluation"): every shown state's normalised time advances, a running transition that
/// reached its length ends, then the transitions are tried in file order.
#[inline]
#[allow(clippy::too_many_arguments)]
pub(crate) fn step(
    g: &Graph,
    leaving: &Leaving,
    m: &mut Machine,
    p: &mut [f32],
    ticks: u64,
    dirty: bool,
    instance: u32,
    events: &mut Vec<GraphEvent>,
    mut clips: Option<&mut ClipSink>,
) -> bool {
    if dirty {
        m.refresh_rates(g, p);
    }
    let mut changed = false;
    for k in 0..m.out_n as usize {
        let state = m.out_state[k] as usize;
        let (start, advance) = m.advance(1 + k, ticks);
        if let (Some(c), true) = (clips.as_deref_mut(), ticks > 0) {
            let fresh = m.fresh & (2 << k) != 0;
            c.played(g, state, k as u32, start, advance, fresh, p);
        }
    }
    let (start, advance) = m.advance(CUR, ticks);
    if let Some(c) = clips {
        if ticks > 0 {
            let fresh = m.fresh & FRESH_CURRENT != 0;
            c.played(g, m.cur as usize, m.out_n as u32, start, advance, fresh, p);
            // by time, as the runtime lists an instance's events
            c.flush(instance);
        }
    }
    if ticks > 0 {
        m.fresh = 0;
    }
    if m.out_n > 0 {
        m.elapsed = m.elapsed.saturating_add(ticks.min(u32::MAX as u64) as u32);
        if time::reached(m.elapsed, m.length) {
            m.out_n = 0;
            m.running = NONE;
            changed = true;
        }
    }
    let interruption = if m.running == NONE {
        None
    } else {
        Some(g.transitions[m.running as usize].interruption)
    };
    // the transitions that could fire: those leaving the state a rule names (the any-state
    // ones are in every list)
    let candidates = match interruption {
        Some(Interruption::None) => return changed,
        Some(Interruption::Source) => leaving.of(m.src as usize),
        _ => leaving.of(m.cur as usize),
    };
    for &ti in candidates {
        let ti = ti as usize;
        let t = &g.transitions[ti];
        let from = match (t.from, interruption) {
            (None, Some(Interruption::None)) => continue,
            (None, _) => {
                if t.to == m.cur as usize {
                    continue;
                }
                m.cur as usize
            }
            (Some(f), None) if f == m.cur as usize => f,
            (Some(f), Some(Interruption::Source)) if f == m.src as usize => f,
            (Some(f), Some(Interruption::Target)) if f == m.cur as usize => f,
            _ => continue,
        };
        if ti as u32 == m.running {
            continue;
        }
        if let Some(e) = t.exit_time {
            match phase_of(m, from) {
                Some(ph) if ph >= Phase::from_cycles(e) => {}
                _ => continue,
            }
        }
        if !t.conditions.iter().all(|c| c.holds(p[c.parameter])) {
            continue;
        }
        fire(g, m, p, ti, from, instance, events);
        return true;
    }
    changed
}

fn fire(
    g: &Graph,
    m: &mut Machine,
    p: &mut [f32],
    ti: usize,
    from: usize,
    instance: u32,
    events: &mut Vec<GraphEvent>,
) {
    let t = &g.transitions[ti];
    for &k in &t.triggers {
        p[k] = 0.0;
    }
    let length = time::transition_span(match t.unit {
        DurationUnit::Seconds => time::span(t.duration),
        DurationUnit::Normalized => time::cycles_span(
            time::cycles_units(t.duration),
            cycle_span(&g.states[from], p),
        ),
    });
    let old = m.cur as usize;
    if let Some(e) = g.states[old].on_exit {
        events.push(GraphEvent {
            instance,
            state: StateId(old as u16),
            event: e,
            kind: EventKind::Exit,
        });
    }
    if let Some(e) = g.states[t.to].on_enter {
        events.push(GraphEvent {
            instance,
            state: StateId(t.to as u16),
            event: e,
            kind: EventKind::Enter,
        });
    }
    let cur_fresh = m.fresh & FRESH_CURRENT != 0;
    if length > 0 {
        if m.out_n == 0 {
            m.out_state[0] = m.cur;
            m.set_phase(1, m.phase(CUR));
            m.out_weight[0] = 1.0;
            m.out_n = 1;
            m.fresh = u8::from(cur_fresh) << 1;
        } else {
            // the shown mix becomes the outgoing side: its two heaviest states, renormalised
            let a = m.alpha();
            let mut s = [(0u16, Phase::default(), 0.0f32); OUTGOING + 1];
            let mut fresh = [false; OUTGOING + 1];
            let n = m.out_n as usize;
            for (k, e) in s.iter_mut().enumerate().take(n) {
                *e = (m.out_state[k], m.phase(1 + k), m.out_weight[k] * (1.0 - a));
                fresh[k] = m.fresh & (2 << k) != 0;
            }
            s[n] = (m.cur, m.phase(CUR), a);
            fresh[n] = cur_fresh;
            let total = n + 1;
            let keep = if total <= OUTGOING {
                [0, 1]
            } else {
                heaviest_two(&s)
            };
            let sum = s[keep[0]].2 + s[keep[1]].2;
            m.fresh = 0;
            for (k, &i) in keep.iter().enumerate() {
                m.out_state[k] = s[i].0;
                m.set_phase(1 + k, s[i].1);
                m.out_weight[k] = if sum > 0.0 { s[i].2 / sum } else { 0.5 };
                m.fresh |= u8::from(fresh[i]) << (1 + k);
            }
            m.out_n = OUTGOING as u8;
        }
        m.running = ti as u32;
        m.elapsed = 0;
        m.length = length;
    } else {
        m.out_n = 0;
        m.running = NONE;
        m.fresh = 0;
    }
    m.src = m.cur;
    m.cur = t.to as u16;
    m.set_phase(CUR, Phase::from_cycles(t.offset));
    m.fresh |= FRESH_CURRENT;
    // a new state shows, and the triggers it consumed may have been a rate's parameters
    m.refresh_rates(g, p);
}

/// Indices of the two heaviest of three entries, in index order (ties go to the earlier).
fn heaviest_two(s: &[(u16, Phase, f32); OUTGOING + 1]) -> [usize; 2] {
    // drop the lightest; of equal weights the later one is dropped
    let mut drop = 0;
    for i in 1..3 {
        if s[i].2 <= s[drop].2 {
            drop = i;
        }
    }
    match drop {
        0 => [1, 2],
        1 => [0, 2],
        _ => [0, 1],
    }
}

/// Appends the clips of `state` at `share` of the instance's weight to `out[*n..]` (zero
/// weights left out; none past the end of `out`).
#[inline]
fn push_layers(
    g: &Graph,
    state: usize,
    phase: f64,
    share: f32,
    p: &[f32],
    out: &mut [GraphLayer],
    n: &mut usize,
) {
    let s = &g.states[state];
    let mode = match &s.motion {
        Motion::Clip { loop_mode, .. } => *loop_mode,
        _ => LoopMode::Loop,
    };
    // a looping clip shows the fraction of its cycle: the time stays inside the first period,
    // where the time rules need no reduction
    let cycle = if mode == LoopMode::Loop {
        fract(phase)
    } else {
        phase
    };
    motion_weights(&s.motion, p, |c, w| {
        let weight = share * w;
        if weight > 0.0 && *n < out.len() {
            out[*n] = GraphLayer {
                clip: c.clip,
                loop_mode: mode,
                time: cycle * c.duration,
                weight,
            };
            *n += 1;
        }
    });
}

/// The layers an instance shows (docs/graph.md "Layers"): each shown state's clips weighted by
/// its share, zero weights left out; past [`MAX_LAYERS`], the heaviest are kept in their order
/// and renormalised.
#[inline]
pub(crate) fn compose(g: &Graph, m: &Machine, p: &[f32]) -> LayerSet {
    if m.out_n == 0 {
        // no transition: one state of at most MAX_LAYERS clips, straight into the set
        let mut out = LayerSet::default();
        push_layers(
            g,
            m.cur as usize,
            m.phase(CUR).to_f64(),
            1.0,
            p,
            &mut out.layers,
            &mut out.len,
        );
        return out;
    }
    let mut cand = [GraphLayer::default(); CANDIDATES];
    let mut n = 0;
    let a = m.alpha();
    for k in 0..m.out_n as usize {
        let share = m.out_weight[k] * (1.0 - a);
        push_layers(
            g,
            m.out_state[k] as usize,
            m.phase(1 + k).to_f64(),
            share,
            p,
            &mut cand,
            &mut n,
        );
    }
    push_layers(
        g,
        m.cur as usize,
        m.phase(CUR).to_f64(),
        a,
        p,
        &mut cand,
        &mut n,
    );
    let mut out = LayerSet::default();
    if n <= MAX_LAYERS {
        out.layers[..n].copy_from_slice(&cand[..n]);
        out.len = n;
        return out;
    }
    // keep the MAX_LAYERS heaviest (ties: the earlier), in their order
    let mut keep = [false; CANDIDATES];
    for _ in 0..MAX_LAYERS {
        let mut best = usize::MAX;
        for i in 0..n {
            if !keep[i] && (best == usize::MAX || cand[i].weight > cand[best].weight) {
                best = i;
            }
        }
        keep[best] = true;
    }
    let mut sum = 0.0f32;
    for i in 0..n {
        if keep[i] {
            out.layers[out.len] = cand[i];
            out.len += 1;
            sum += cand[i].weight;
        }
    }
    for l in &mut out.layers[..out.len] {
        l.weight /= sum;
    }
    out
}
