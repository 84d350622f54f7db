// Animation graphs stepped on the GPU (docs/graph.md "On the GPU"): `cs_graph_params` applies a
// frame's parameter changes (one entry each, the last per parameter kept by the CPU) and
// flags their instances; three dispatches list the clip events the step is about to cross
// (clip_events.rs `ClipSink`) in instance order — `cs_graph_clip_event_counts` counts each
// workgroup's, `cs_graph_clip_event_offsets` turns the counts into list places and
// `cs_graph_clip_events` writes every instance's at its place; `cs_graph_step` then steps
// every instance's state machine exactly as throng_graph's CPU step does
// (crates/throng-graph/src/machine.rs, `step`, `fire` and `compose`), on the integer time of
// throng::graph_time, writes every instance's CPU-timed record and appends the state events
// it fires. Tested against the CPU step to the bit
// (tests/graph_gpu.rs). Its float arithmetic is the CPU step's f32 arithmetic: +, −, × and
// comparisons, correctly rounded in WGSL too, and divisions, done by throng::graph_time's
// `div_f32`, so the twin holds beyond the CPUs the tests run on — on any adapter that keeps
// f32 subnormals (WGSL lets + − × flush them to zero; only weights below 2^-126 differ). The
// graph's tables (throng_graph::GraphLayout) share one word buffer, at the offsets the
// parameters give, to keep within eight storage buffers.

#import throng::graph_time::{Phase, Series, weighted, cycle_span, rate, transition_span, cycles_span, progress, reached, phase_advance, phase_ge, add128, mul64, sub64, ge64, div_f32, event_series, series_at, step_fraction, GT_CYCLE_LOOP, GT_CYCLE_PINGPONG, GT_CYCLE_ONCE, GT_CYCLE_STATIC}
#import throng::playback::{Clip, Layer, InstanceRecord, clip_frame, clip_last}
#import throng::constants::{MODE_LOOP, MODE_PINGPONG}
#import throng::graph_layout::{NONE, STATE_WORDS, CLIP_WORDS, TRANSITION_WORDS, CONDITION_WORDS, CLIP_EVENTS_WORDS, EVENT_WORDS, MOTION_CLIP, MOTION_BLEND_1D, INTERRUPT_NONE, INTERRUPT_SOURCE, INTERRUPT_TARGET, FRESH_CURRENT, EVENT_ENTER, EVENT_EXIT, EVENT_CLIP}

struct GraphStepParams {
    len: u32,
    stride: u32,
    ticks_lo: u32,
    ticks_hi: u32,
    changes: u32,
    clip_capacity: u32,
    max_speed: f32,
    states_at: u32,
    clips_at: u32,
    axes_at: u32,
    transitions_at: u32,
    conditions_at: u32,
    lists_at: u32,
    clip_events_at: u32,
    events_at: u32,
    state_capacity: u32,
}

// 96 B per instance: throng_graph's `Machine::to_words`.
struct GraphMachine {
    frac: array<vec2<u32>, 3>,
    rates: array<vec2<u32>, 3>,
    length: vec2<u32>,
    whole: array<i32, 3>,
    elapsed: u32,
    out_weight: array<f32, 2>,
    running: u32,
    // cur | src << 16
    cur_src: u32,
    // out_state[0] | out_state[1] << 16
    out_states: u32,
    // out_n | fresh << 8 | dirty << 16
    flags: u32,
}

@group(0) @binding(0) var<uniform> u: GraphStepParams;
@group(0) @binding(1) var<storage, read> graph: array<u32>;
@group(0) @binding(2) var<storage, read_write> machines: array<GraphMachine>;
@group(0) @binding(3) var<storage, read_write> params: array<f32>;
// (instance, parameter, value bits, 0)
@group(0) @binding(4) var<storage, read> changes: array<vec4<u32>>;
// The events a step fired (graph_pass.rs): how many of each kind, how many clip events were
// kept, an unused word, then `state_capacity` state
// events of four words (instance, state, event, kind), then `clip_capacity` clip events of
// eight (instance, clip, event, 2 | slot << 4 | k << 8, step fraction, distance's three words),
// then a word per workgroup of 64 instances (its clip events' count, then its first place),
// then a word per instance (its clip events' count).
// State events are appended as they fire; appends stop once the list is full, and its count
// then ends past the capacity (by at most the appends already under way), which reports the
// loss. Clip events are listed in instance order, an instance's in the order found; the count
// is every event found (saturating at 2^32 − 1), and an instance whose events do not all fit
// below the capacity puts none: the list kept is whole instances', `clip_kept` long.
struct GraphEvents {
    state_count: atomic<u32>,
    clip_count: atomic<u32>,
    clip_kept: atomic<u32>,
    unused: u32,
    words: array<u32>,
}
@group(0) @binding(5) var<storage, read_write> graph_events: GraphEvents;
// The asset's clip table (its frame-time lists at throng::playback's binding).
@group(0) @binding(6) var<storage, read> clip_table: array<Clip>;
// Every instance's CPU-timed record, written by the step.
@group(0) @binding(7) var<storage, read_write> records: array<InstanceRecord>;

// ---- the graph's tables ----

fn state_word(s: u32, k: u32) -> u32 {
    return graph[u.states_at + s * STATE_WORDS + k];
}

fn transition_word(t: u32, k: u32) -> u32 {
    return graph[u.transitions_at + t * TRANSITION_WORDS + k];
}

fn axis(k: u32) -> f32 {
    return bitcast<f32>(graph[u.axes_at + k]);
}

fn list(k: u32) -> u32 {
    return graph[u.lists_at + k];
}

fn clip_span(state: u32, k: u32) -> vec2<u32> {
    let at = u.clips_at + (state_word(state, 2u) + k) * CLIP_WORDS;
    return vec2<u32>(graph[at + 2u], graph[at + 3u]);
}

// ---- per instance ----

fn out_n(m: GraphMachine) -> u32 {
    return m.flags & 0xffu;
}

fn fresh_bits(m: GraphMachine) -> u32 {
    return (m.flags >> 8u) & 0xffu;
}

fn set_flags(m: ptr<function, GraphMachine>, n: u32, fresh: u32) {
    (*m).flags = (n & 0xffu) | ((fresh & 0xffu) << 8u);
}

fn cur(m: GraphMachine) -> u32 {
    return m.cur_src & 0xffffu;
}

fn src(m: GraphMachine) -> u32 {
    return m.cur_src >> 16u;
}

fn out_state(m: GraphMachine, k: u32) -> u32 {
    return (m.out_states >> (16u * k)) & 0xffffu;
}

fn set_out_state(m: ptr<function, GraphMachine>, k: u32, s: u32) {
    let keep = (*m).out_states & ~(0xffffu << (16u * k));
    (*m).out_states = keep | (s << (16u * k));
}

fn phase(m: GraphMachine, slot: u32) -> Phase {
    return Phase(m.whole[slot], m.frac[slot]);
}

fn set_phase(m: ptr<function, GraphMachine>, slot: u32, p: Phase) {
    (*m).whole[slot] = p.whole;
    (*m).frac[slot] = p.frac;
}

fn slot_state(m: GraphMachine, slot: u32) -> u32 {
    if slot == 0u {
        return cur(m);
    }
    return out_state(m, slot - 1u);
}

fn param(base: u32, k: u32) -> f32 {
    return params[base + k];
}

// ---- motions: what machine.rs's motion_weights gives, summed as cycle parts ----

struct Segment {
    i: u32,
    j: u32,
    w: f32,
}

fn segment(at: u32, n: u32, x: f32) -> Segment {
    if n <= 1u || x <= axis(at) {
        return Segment(0u, 0u, 0.0);
    }
    if x >= axis(at + n - 1u) {
        return Segment(n - 1u, n - 1u, 0.0);
    }
    // x < at[n − 1]: the search stops by n − 2 (the bound only guards the GPU's loop)
    var i = 0u;
    while i + 2u < n && axis(at + i + 1u) <= x {
        i += 1u;
    }
    let a = axis(at + i);
    // divided as the CPU divides (WGSL's `/` may be off by 2.5 ulp)
    return Segment(i, i + 1u, div_f32(x - a, axis(at + i + 1u) - a));
}

/// What a motion shows at the parameters at `base` (machine.rs `motion_weights`): up to four
/// clips (their index among the state's) with nonzero weights, in point order.
struct Weights {
    n: u32,
    k: array<u32, 4>,
    w: array<f32, 4>,
}

fn add_weight(out: ptr<function, Weights>, k: u32, w: f32) {
    (*out).k[(*out).n] = k;
    (*out).w[(*out).n] = w;
    (*out).n += 1u;
}

fn motion_weights(s: u32, base: u32) -> Weights {
    let motion = state_word(s, 0u);
    var out: Weights;
    out.n = 0u;
    if motion == MOTION_CLIP {
        add_weight(&out, 0u, 1.0);
    } else if motion == MOTION_BLEND_1D {
        let g = segment(state_word(s, 6u), state_word(s, 7u), param(base, state_word(s, 4u)));
        if g.i == g.j {
            add_weight(&out, g.i, 1.0);
        } else {
            if 1.0 - g.w > 0.0 {
                add_weight(&out, g.i, 1.0 - g.w);
            }
            if g.w > 0.0 {
                add_weight(&out, g.j, g.w);
            }
        }
    } else {
        let nx = state_word(s, 7u);
        let gx = segment(state_word(s, 6u), nx, param(base, state_word(s, 4u)));
        let gy = segment(state_word(s, 8u), state_word(s, 9u), param(base, state_word(s, 5u)));
        // an axis outside its range (or with one value) has one entry at weight 1
        var ax_i = array<u32, 2>(gx.i, gx.i);
        var ax_w = array<f32, 2>(1.0, 0.0);
        if gx.i != gx.j {
            ax_i = array<u32, 2>(gx.i, gx.j);
            ax_w = array<f32, 2>(1.0 - gx.w, gx.w);
        }
        var ay_i = array<u32, 2>(gy.i, gy.i);
        var ay_w = array<f32, 2>(1.0, 0.0);
        if gy.i != gy.j {
            ay_i = array<u32, 2>(gy.i, gy.j);
            ay_w = array<f32, 2>(1.0 - gy.w, gy.w);
        }
        for (var b = 0u; b < 2u; b += 1u) {
            for (var a = 0u; a < 2u; a += 1u) {
                let w = ax_w[a] * ay_w[b];
                if w > 0.0 {
                    add_weight(&out, ay_i[b] * nx + ax_i[a], w);
                }
            }
        }
    }
    return out;
}

/// The cycle of state `s` at the parameters at `base`, span units (machine.rs `cycle_span`).
fn cycle_of(s: u32, base: u32) -> vec2<u32> {
    let ws = motion_weights(s, base);
    var sum = vec4<u32>(0u);
    for (var k = 0u; k < ws.n; k += 1u) {
        sum = add128(sum, weighted(ws.w[k], clip_span(s, ws.k[k])));
    }
    return cycle_span(sum);
}

/// machine.rs `state_speed`.
fn state_speed(s: u32, base: u32) -> f32 {
    let sp = state_word(s, 11u);
    var mult = 1.0;
    if sp != NONE {
        mult = max(param(base, sp), 0.0);
    }
    return min(bitcast<f32>(state_word(s, 10u)) * mult, u.max_speed);
}

fn refresh_rates(m: ptr<function, GraphMachine>, base: u32) {
    let n = out_n(*m);
    for (var slot = 0u; slot <= n; slot += 1u) {
        let s = slot_state(*m, slot);
        (*m).rates[slot] = rate(state_speed(s, base), cycle_of(s, base));
    }
}

fn alpha(m: GraphMachine) -> f32 {
    if out_n(m) == 0u {
        return 1.0;
    }
    return progress(m.elapsed, m.length);
}

fn holds(c: u32, v: f32) -> bool {
    let at = u.conditions_at + c * CONDITION_WORDS;
    let test = graph[at + 1u];
    let k = bitcast<f32>(graph[at + 2u]);
    switch test {
        case 0u: { return v > k; }
        case 1u: { return v < k; }
        case 2u: { return v >= k; }
        case 3u: { return v <= k; }
        case 4u: { return v == k; }
        case 5u: { return v != k; }
        case 6u: { return v != 0.0; }
        default: { return v == 0.0; }
    }
}

/// An entry of the outgoing mix a fire builds: state, phase, weight, fresh.
struct Shown {
    state: u32,
    phase: Phase,
    weight: f32,
    fresh: u32,
}

fn put_state_event(at: u32, e: vec4<u32>) {
    if at < u.state_capacity {
        for (var k = 0u; k < 4u; k += 1u) {
            graph_events.words[at * 4u + k] = e[k];
        }
    }
}

fn put_clip_event(at: u32, head: vec4<u32>, tail: vec4<u32>) {
    if at < u.clip_capacity {
        let base = u.state_capacity * 4u + at * 8u;
        for (var k = 0u; k < 4u; k += 1u) {
            graph_events.words[base + k] = head[k];
            graph_events.words[base + 4u + k] = tail[k];
        }
    }
}

/// The word of workgroup `g`'s clip event count (then its first place in the list).
fn group_word(g: u32) -> u32 {
    return u.state_capacity * 4u + u.clip_capacity * 8u + g;
}

/// The word of instance `i`'s clip event count.
fn count_word(i: u32) -> u32 {
    return group_word((u.len + 63u) / 64u) + i;
}

/// a + b, saturating at 2^32 − 1 (a step's event count has no upper bound of its own).
fn add_sat(a: u32, b: u32) -> u32 {
    let s = a + b;
    return select(s, 0xffffffffu, s < a);
}

// Prefix sums across a workgroup (up to 256 invocations).
var<workgroup> group_sums: array<u32, 256>;

/// Leaves in `group_sums[k]` the sum of the `n` of invocations 0 to `k` (saturating): a
/// Hillis–Steele scan; a workgroup of fewer than 256 never reads past its own invocations.
/// Every invocation of the workgroup calls it.
fn group_scan(k: u32, n: u32) {
    group_sums[k] = n;
    workgroupBarrier();
    for (var d = 1u; d < 256u; d = d << 1u) {
        var add = 0u;
        if k >= d {
            add = group_sums[k - d];
        }
        workgroupBarrier();
        group_sums[k] = add_sat(group_sums[k], add);
        workgroupBarrier();
    }
}

/// After [`group_scan`]: the sum of the `n` of the invocations before `k`.
fn group_before(k: u32) -> u32 {
    return select(0u, group_sums[max(k, 1u) - 1u], k > 0u);
}

fn push_events(i: u32, old: u32, to: u32) {
    let on_exit = state_word(old, 13u);
    let on_enter = state_word(to, 12u);
    let n = select(0u, 1u, on_exit != NONE) + select(0u, 1u, on_enter != NONE);
    if n == 0u {
        return;
    }
    if atomicLoad(&graph_events.state_count) >= u.state_capacity {
        // full: counted as one past, so that the loss is reported
        atomicMax(&graph_events.state_count, u.state_capacity + 1u);
        return;
    }
    // one slot range per fire keeps an instance's exit before its entry
    var at = atomicAdd(&graph_events.state_count, n);
    if on_exit != NONE {
        put_state_event(at, vec4<u32>(i, old, on_exit, EVENT_EXIT));
        at += 1u;
    }
    if on_enter != NONE {
        put_state_event(at, vec4<u32>(i, to, on_enter, EVENT_ENTER));
    }
}

// ---- clip events (clip_events.rs `ClipSink`) ----

fn clip_events_word(clip: u32, k: u32) -> u32 {
    return graph[u.clip_events_at + clip * CLIP_EVENTS_WORDS + k];
}

fn event_word(e: u32, k: u32) -> u32 {
    return graph[u.events_at + e * EVENT_WORDS + k];
}

/// clip_events.rs `ClipSink::find`: state `state`, shown at place `slot`, advanced by `advance`
/// from `start`; every clip of nonzero weight crosses events. Returns how many; `write` also
/// puts them in the list from place `first`, in the order found (an instance's are put in the
/// CPU step's order when read back).
fn find_clip_events(i: u32, state: u32, slot: u32, start: Phase, advance: vec4<u32>, fresh: bool, base: u32, write: bool, first: u32) -> u32 {
    let clips_at = u.clips_at + state_word(state, 2u) * CLIP_WORDS;
    // most states play clips without events: their weights are not worked out
    var any = false;
    for (var c = 0u; c < state_word(state, 3u); c += 1u) {
        any = any || clip_events_word(graph[clips_at + c * CLIP_WORDS], 1u) != 0u;
    }
    var found = 0u;
    if !any {
        return found;
    }
    let ws = motion_weights(state, base);
    let mode = state_word(state, 1u);
    // a step of less than a cycle (every frame but a runaway one's)
    let short = advance.z == 0u && advance.w == 0u;
    for (var k = 0u; k < ws.n; k += 1u) {
        let clip = graph[clips_at + ws.k[k] * CLIP_WORDS];
        let at = clip_events_word(clip, 0u);
        let count = clip_events_word(clip, 1u);
        var cycle = GT_CYCLE_ONCE;
        if clip_events_word(clip, 2u) != 0u {
            cycle = GT_CYCLE_STATIC;
        } else if mode == MODE_LOOP {
            cycle = GT_CYCLE_LOOP;
        } else if mode == MODE_PINGPONG {
            cycle = GT_CYCLE_PINGPONG;
        }
        for (var e = 0u; e < count; e += 1u) {
            let mark = vec4<u32>(event_word(at + e, 0u), event_word(at + e, 1u), event_word(at + e, 2u), 0u);
            // a loop's short step crosses the event only if (mark − start) mod 1 cycle is
            // below the advance: event_series's own test, in 64 bits, skipping the rest
            if cycle == GT_CYCLE_LOOP && short && ge64(sub64(mark.xy, start.frac), advance.xy) {
                continue;
            }
            for (var which = 0u; which < 2u; which += 1u) {
                let s = event_series(start, advance, mark, cycle, fresh, which);
                if !write {
                    found = add_sat(found, select(0u, s.n - s.from_j, s.n > s.from_j));
                    continue;
                }
                for (var j = s.from_j; j < s.n; j += 1u) {
                    let place = add_sat(first, found);
                    if place >= u.clip_capacity {
                        return found;
                    }
                    let d = series_at(s, j);
                    let slot_k = EVENT_CLIP | (slot << 4u) | (ws.k[k] << 8u);
                    put_clip_event(place, vec4<u32>(i, clip, event_word(at + e, 3u), slot_k), vec4<u32>(step_fraction(d, advance), d.x, d.y, d.z));
                    found += 1u;
                }
            }
        }
    }
    return found;
}

/// The clip events of instance `i`'s step about to run (machine.rs `step`'s advance, as
/// ClipSink sees it): every shown state, the outgoing ones then the current one, from its phase
/// now by `ticks × rate` at the rates the step will use (refreshed here too for an instance
/// whose parameters changed), with its fresh bit. Returns how many; `write` also puts them in
/// the list from place `at`.
fn instance_clip_events(i: u32, write: bool, at: u32) -> u32 {
    let ticks = vec2<u32>(u.ticks_lo, u.ticks_hi);
    var m = machines[i];
    let base = i * u.stride;
    if (m.flags & (1u << 16u)) != 0u {
        refresh_rates(&m, base);
    }
    let n = out_n(m);
    let fresh = fresh_bits(m);
    var found = 0u;
    for (var slot = 1u; slot <= n; slot += 1u) {
        let f = (fresh & (1u << slot)) != 0u;
        found = add_sat(found, find_clip_events(i, out_state(m, slot - 1u), slot - 1u, phase(m, slot), mul64(ticks, m.rates[slot]), f, base, write, add_sat(at, found)));
    }
    let f = (fresh & FRESH_CURRENT) != 0u;
    return add_sat(found, find_clip_events(i, cur(m), n, phase(m, 0u), mul64(ticks, m.rates[0]), f, base, write, add_sat(at, found)));
}

/// machine.rs `fire`.
fn fire(m: ptr<function, GraphMachine>, base: u32, ti: u32, leave: u32, i: u32) {
    let trig_at = transition_word(ti, 4u);
    for (var k = 0u; k < transition_word(ti, 5u); k += 1u) {
        params[base + list(trig_at + k)] = 0.0;
    }
    let to = transition_word(ti, 1u);
    var length = vec2<u32>(transition_word(ti, 10u), transition_word(ti, 11u));
    if transition_word(ti, 12u) == 1u {
        length = cycles_span(length, cycle_of(leave, base));
    }
    length = transition_span(length);
    let old = cur(*m);
    push_events(i, old, to);
    let cur_fresh = fresh_bits(*m) & FRESH_CURRENT;
    var n = out_n(*m);
    var fresh = fresh_bits(*m);
    if length.x != 0u || length.y != 0u {
        if n == 0u {
            set_out_state(m, 0u, old);
            set_phase(m, 1u, phase(*m, 0u));
            (*m).out_weight[0] = 1.0;
            n = 1u;
            fresh = cur_fresh << 1u;
        } else {
            // the shown mix becomes the outgoing side: its two heaviest states, renormalised
            let a = alpha(*m);
            var s: array<Shown, 3>;
            for (var k = 0u; k < n; k += 1u) {
                s[k] = Shown(out_state(*m, k), phase(*m, 1u + k), (*m).out_weight[k] * (1.0 - a), select(0u, 1u, (fresh & (2u << k)) != 0u));
            }
            s[n] = Shown(old, phase(*m, 0u), a, cur_fresh);
            var keep = array<u32, 2>(0u, 1u);
            if n + 1u > 2u {
                // drop the lightest; of equal weights the later one is dropped
                var drop = 0u;
                for (var k = 1u; k < 3u; k += 1u) {
                    if s[k].weight <= s[drop].weight {
                        drop = k;
                    }
                }
                if drop == 0u {
                    keep = array<u32, 2>(1u, 2u);
                } else if drop == 1u {
                    keep = array<u32, 2>(0u, 2u);
                }
            }
            let sum = s[keep[0]].weight + s[keep[1]].weight;
            fresh = 0u;
            for (var k = 0u; k < 2u; k += 1u) {
                let e = s[keep[k]];
                set_out_state(m, k, e.state);
                set_phase(m, 1u + k, e.phase);
                var w = 0.5;
                if sum > 0.0 {
                    w = div_f32(e.weight, sum);
                }
                (*m).out_weight[k] = w;
                fresh = fresh | (e.fresh << (1u + k));
            }
            n = 2u;
        }
        (*m).running = ti;
        (*m).elapsed = 0u;
        (*m).length = length;
    } else {
        n = 0u;
        (*m).running = NONE;
        fresh = 0u;
    }
    (*m).cur_src = to | (old << 16u);
    set_phase(m, 0u, Phase(bitcast<i32>(transition_word(ti, 14u)), vec2<u32>(transition_word(ti, 16u), transition_word(ti, 17u))));
    set_flags(m, n, fresh | FRESH_CURRENT);
    // a new state shows, and the triggers it consumed may have been a rate's parameters
    refresh_rates(m, base);
}

/// Whether `leave` (the state a transition leaves) is shown and has reached `exit`.
fn reached_exit(m: GraphMachine, leave: u32, exit: Phase) -> bool {
    if cur(m) == leave {
        return phase_ge(phase(m, 0u), exit);
    }
    for (var k = 0u; k < out_n(m); k += 1u) {
        if out_state(m, k) == leave {
            return phase_ge(phase(m, 1u + k), exit);
        }
    }
    return false;
}

// ---- layers and records (machine.rs `compose`, crowd.rs `to_record`) ----

/// A clip layer an instance shows: the clip (table index), its loop mode code, the normalised
/// time of its state, its weight.
struct Shown1 {
    clip: u32,
    mode: u32,
    phase: Phase,
    weight: f32,
}

/// machine.rs `push_layers`: the clips of `state` at `share` of the weight, zero weights left
/// out, none past `cap`.
fn push_layers(state: u32, ph: Phase, share: f32, cand: ptr<function, array<Shown1, 12>>, n: ptr<function, u32>, cap: u32, base: u32) {
    let ws = motion_weights(state, base);
    let mode = state_word(state, 1u);
    let clips_at = u.clips_at + state_word(state, 2u) * CLIP_WORDS;
    for (var k = 0u; k < ws.n; k += 1u) {
        let weight = share * ws.w[k];
        if weight > 0.0 && *n < cap {
            (*cand)[*n] = Shown1(graph[clips_at + ws.k[k] * CLIP_WORDS], mode, ph, weight);
            *n += 1u;
        }
    }
}

/// A 64-bit fraction as f32 in [0, 1] (rounded; 1 only within 2^-25 of it).
fn frac_f32(f: vec2<u32>) -> f32 {
    return (f32(f.y) + f32(f.x) * (1.0 / 4294967296.0)) * (1.0 / 4294967296.0);
}

/// The record's layer of one shown clip: its normalised time reduced as the loop mode says
/// (docs/design.md §4 "Time rules": a cycle is one pass, a ping-pong period two), the shown
/// position, and the time rules' row and frac (throng::playback `clip_frame`). In f32 from the
/// integer phase, as GPU-timed records are: rows equal the CPU's but within 1e-4 of a frame
/// boundary, fracs within 1e-4.
fn record_layer(c: Shown1) -> Layer {
    let clip = clip_table[c.clip];
    let last = f32(clip_last(clip));
    let fr = frac_f32(c.phase.frac);
    var q = 0.0;
    if c.mode == MODE_LOOP {
        q = fr * last;
    } else if c.mode == MODE_PINGPONG {
        q = (f32(bitcast<u32>(c.phase.whole) & 1u) + fr) * last;
        if q > last {
            q = 2.0 * last - q;
        }
    } else if c.phase.whole >= 1 {
        q = last;
    } else if c.phase.whole >= 0 {
        q = fr * last;
    }
    let f = clip_frame(clip, q);
    return Layer(c.weight, f.frac, f32(f.row), c.clip);
}

/// machine.rs `compose` and crowd.rs `to_record`: the layers an instance shows, cut to the
/// four heaviest (renormalised) when more, as its record.
fn compose(m: GraphMachine, base: u32) -> InstanceRecord {
    var cand: array<Shown1, 12>;
    var n = 0u;
    let on = out_n(m);
    if on == 0u {
        push_layers(cur(m), phase(m, 0u), 1.0, &cand, &n, 4u, base);
    } else {
        let a = alpha(m);
        for (var k = 0u; k < on; k += 1u) {
            push_layers(out_state(m, k), phase(m, 1u + k), m.out_weight[k] * (1.0 - a), &cand, &n, 12u, base);
        }
        push_layers(cur(m), phase(m, 0u), a, &cand, &n, 12u, base);
    }
    var out: InstanceRecord;
    for (var k = 0u; k < 4u; k += 1u) {
        out.layers[k] = Layer(0.0, 0.0, 0.0, 0u);
    }
    if n <= 4u {
        for (var k = 0u; k < n; k += 1u) {
            out.layers[k] = record_layer(cand[k]);
        }
        return out;
    }
    // keep the four heaviest (ties: the earlier), in their order
    var keep = array<bool, 12>(false, false, false, false, false, false, false, false, false, false, false, false);
    for (var r = 0u; r < 4u; r += 1u) {
        var best = NONE;
        for (var k = 0u; k < n; k += 1u) {
            if !keep[k] && (best == NONE || cand[k].weight > cand[best].weight) {
                best = k;
            }
        }
        keep[best] = true;
    }
    var kept: array<Shown1, 4>;
    var len = 0u;
    var sum = 0.0;
    for (var k = 0u; k < n; k += 1u) {
        if keep[k] {
            kept[len] = cand[k];
            len += 1u;
            sum += cand[k].weight;
        }
    }
    for (var k = 0u; k < 4u; k += 1u) {
        var c = kept[k];
        c.weight = div_f32(c.weight, sum);
        out.layers[k] = record_layer(c);
    }
    return out;
}

/// Every instance's record from its state machine as it stands (no step): what the records
/// buffer holds before the first step.
@compute @workgroup_size(64)
fn cs_graph_records(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= u.len {
        return;
    }
    records[i] = compose(machines[i], i * u.stride);
}

@compute @workgroup_size(64)
fn cs_graph_params(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    if k >= u.changes {
        return;
    }
    let c = changes[k];
    params[c.x * u.stride + c.y] = bitcast<f32>(c.z);
    machines[c.x].flags = machines[c.x].flags | (1u << 16u);
}

// The clip events of the step about to run, listed in instance order by three dispatches of
// their own before `cs_graph_step`, which they leave unchanged (the step's code stays as small
// as without events); all three are skipped for a graph whose clips have none, and for a step
// of no ticks. The search runs twice (count, write): it is mostly one compare per event of a
// looping clip, and ordering on the GPU spares the CPU a sort of the whole list.

/// 1 of 3: each instance's and each workgroup's count of clip events.
@compute @workgroup_size(64)
fn cs_graph_clip_event_counts(@builtin(global_invocation_id) id: vec3<u32>, @builtin(local_invocation_index) k: u32, @builtin(workgroup_id) group: vec3<u32>) {
    var n = 0u;
    if id.x < u.len {
        n = instance_clip_events(id.x, false, 0u);
        graph_events.words[count_word(id.x)] = n;
    }
    group_scan(k, n);
    if k == 63u {
        graph_events.words[group_word(group.x)] = group_sums[63];
    }
}

/// 2 of 3, one workgroup: each workgroup's count becomes its first place in the list (the
/// counts before it), and the list's count every event found.
@compute @workgroup_size(256)
fn cs_graph_clip_event_offsets(@builtin(local_invocation_index) k: u32) {
    let groups = (u.len + 63u) / 64u;
    let per = (groups + 255u) / 256u;
    let first = min(k * per, groups);
    let end = min(first + per, groups);
    var sum = 0u;
    for (var g = first; g < end; g += 1u) {
        sum = add_sat(sum, graph_events.words[group_word(g)]);
    }
    group_scan(k, sum);
    var at = group_before(k);
    for (var g = first; g < end; g += 1u) {
        let n = graph_events.words[group_word(g)];
        graph_events.words[group_word(g)] = at;
        at = add_sat(at, n);
    }
    if k == 255u {
        atomicStore(&graph_events.clip_count, group_sums[255]);
        atomicStore(&graph_events.clip_kept, min(group_sums[255], u.clip_capacity));
    }
}

/// 3 of 3: every instance's clip events, at its workgroup's first place plus those of the
/// invocations before it.
@compute @workgroup_size(64)
fn cs_graph_clip_events(@builtin(global_invocation_id) id: vec3<u32>, @builtin(local_invocation_index) k: u32, @builtin(workgroup_id) group: vec3<u32>) {
    var n = 0u;
    let live = id.x < u.len;
    if live {
        n = graph_events.words[count_word(id.x)];
    }
    group_scan(k, n);
    let at = add_sat(graph_events.words[group_word(group.x)], group_before(k));
    if live && n > 0u {
        if add_sat(at, n) <= u.clip_capacity {
            instance_clip_events(id.x, true, at);
        } else {
            // the list ends before the first instance that does not fit
            atomicMin(&graph_events.clip_kept, at);
        }
    }
}

@compute @workgroup_size(64)
fn cs_graph_step(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= u.len {
        return;
    }
    var m = machines[i];
    let base = i * u.stride;
    if (m.flags & (1u << 16u)) != 0u {
        m.flags = m.flags & 0xffffu;
        refresh_rates(&m, base);
    }
    let ticks = vec2<u32>(u.ticks_lo, u.ticks_hi);
    let moving = ticks.x != 0u || ticks.y != 0u;
    // every shown state's normalised time advances: the outgoing ones, then the current one
    // (their clip events were found by cs_graph_clip_events, before this dispatch)
    var n = out_n(m);
    for (var slot = 1u; slot <= n; slot += 1u) {
        let a = phase_advance(phase(m, slot), ticks, m.rates[slot]);
        set_phase(&m, slot, a.phase);
    }
    let a = phase_advance(phase(m, 0u), ticks, m.rates[0]);
    set_phase(&m, 0u, a.phase);
    var fresh = fresh_bits(m);
    if moving {
        fresh = 0u;
    }
    set_flags(&m, n, fresh);
    if n > 0u {
        var step = ticks.x;
        if ticks.y != 0u {
            step = 0xffffffffu;
        }
        let e = m.elapsed + step;
        m.elapsed = select(e, 0xffffffffu, e < m.elapsed);
        if reached(m.elapsed, m.length) {
            n = 0u;
            set_flags(&m, 0u, fresh);
            m.running = NONE;
        }
    }
    // the transitions that could fire, in file order: those leaving the state a rule names
    var interruption = NONE;
    if m.running != NONE {
        interruption = transition_word(m.running, 13u);
    }
    if interruption == INTERRUPT_NONE {
        machines[i] = m;
        records[i] = compose(m, base);
        return;
    }
    var named = cur(m);
    if interruption == INTERRUPT_SOURCE {
        named = src(m);
    }
    let leaving_at = state_word(named, 14u);
    let leaving = state_word(named, 15u);
    for (var j = 0u; j < leaving; j += 1u) {
        let ti = list(leaving_at + j);
        let t_from = transition_word(ti, 0u);
        let t_to = transition_word(ti, 1u);
        var leave = NONE;
        if t_from == NONE {
            if t_to == cur(m) {
                continue;
            }
            leave = cur(m);
        } else if interruption == NONE && t_from == cur(m) {
            leave = t_from;
        } else if interruption == INTERRUPT_SOURCE && t_from == src(m) {
            leave = t_from;
        } else if interruption == INTERRUPT_TARGET && t_from == cur(m) {
            leave = t_from;
        } else {
            continue;
        }
        if ti == m.running {
            continue;
        }
        if transition_word(ti, 6u) != 0u {
            let exit = Phase(bitcast<i32>(transition_word(ti, 7u)), vec2<u32>(transition_word(ti, 8u), transition_word(ti, 9u)));
            if !reached_exit(m, leave, exit) {
                continue;
            }
        }
        let cond_at = transition_word(ti, 2u);
        var ok = true;
        for (var k = 0u; k < transition_word(ti, 3u); k += 1u) {
            let p = graph[u.conditions_at + (cond_at + k) * CONDITION_WORDS];
            if !holds(cond_at + k, param(base, p)) {
                ok = false;
                break;
            }
        }
        if !ok {
            continue;
        }
        fire(&m, base, ti, leave, i);
        break;
    }
    machines[i] = m;
    records[i] = compose(m, base);
}
