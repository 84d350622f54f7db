// Compute twin of animation graphs' integer time (docs/graph.md "Time"): `cs_graph_time` runs
// every function of throng::graph_time on one case and writes what it gives, for the tests
// against throng_contract::graph_time (crate::compute::graph_time_on_gpu). Group 0: the cases
// and the output. A 64-bit number is two words, the low one first.

#import throng::graph_time::{Phase, Series, weight_units, weighted, cycle_span, rate, transition_span, cycles_span, progress, reached, phase_advance, phase_ge, add128, div_f32, event_series, series_at, step_fraction}

// Inputs (26 words): speed, w, elapsed, whole; cycle; length; ticks; rate; frac; units; span;
// other_whole, w2; other_frac; span2; the dividend and divisor of div_f32.
struct GraphTimeCase {
    speed: f32,
    w: f32,
    elapsed: u32,
    whole: i32,
    cycle: vec2<u32>,
    length: vec2<u32>,
    ticks: vec2<u32>,
    per_tick: vec2<u32>,
    frac: vec2<u32>,
    units: vec2<u32>,
    span: vec2<u32>,
    other_whole: i32,
    w2: f32,
    other_frac: vec2<u32>,
    span2: vec2<u32>,
    dividend: f32,
    divisor: f32,
}

// Outputs (24 words): weight_units(w); cycle_span(weighted(w, span) + weighted(w2, span2));
// rate(speed, cycle); progress(elapsed, length) bits, reached(elapsed, length);
// transition_span(length); cycles_span(units, cycle); the phase (whole, frac) advanced by
// ticks · rate, whether it folded, phase_ge(phase, other), div_f32(dividend, divisor); words
// 18 and 19 unused;
// weighted(w, span) (words 20 to 23).
// (Field names differ from the functions': the composer renames imported names in the text.)
struct GraphTimeOut {
    units_of_w: vec2<u32>,
    cycle_of_sum: vec2<u32>,
    per_tick: vec2<u32>,
    done: u32,
    is_reached: u32,
    held: vec2<u32>,
    length_of_units: vec2<u32>,
    frac: vec2<u32>,
    whole: i32,
    folded: u32,
    ge: u32,
    quotient: u32,
    part: vec4<u32>,
}

@group(0) @binding(0) var<storage, read> cases: array<GraphTimeCase>;
@group(0) @binding(1) var<storage, read_write> graph_time_out: array<GraphTimeOut>;

// `cs_graph_events` reads the same buffers as event cases (16 words): the advance (four
// words), a distance (four) for step_fraction, the start phase's fraction, the mark's low two
// words, the start phase's whole cycles, the event cycle code, the mark's top word, fresh.
struct GraphEventCase {
    advance: vec4<u32>,
    distance: vec4<u32>,
    frac: vec2<u32>,
    mark_lo: vec2<u32>,
    whole: i32,
    cycle: u32,
    mark_top: u32,
    fresh: u32,
}

@group(0) @binding(0) var<storage, read> event_cases: array<GraphEventCase>;
// What it gives (24 words): per series (the pass, then a ping-pong's way back; nine words
// each) its first distance (four words), from, n, shift, and the step fractions of its first
// and last crossings kept; then step_fraction(distance, advance); the rest zero.
@group(0) @binding(1) var<storage, read_write> graph_event_out: array<array<u32, 24>>;

fn put_series(i: u32, at: u32, s: Series, advance: vec4<u32>) {
    for (var k = 0u; k < 4u; k += 1u) {
        graph_event_out[i][at + k] = s.first[k];
    }
    graph_event_out[i][at + 4u] = s.from_j;
    graph_event_out[i][at + 5u] = s.n;
    graph_event_out[i][at + 6u] = s.shift;
    var first = 0u;
    var last = 0u;
    if s.n > s.from_j {
        first = step_fraction(series_at(s, s.from_j), advance);
        last = step_fraction(series_at(s, s.n - 1u), advance);
    }
    graph_event_out[i][at + 7u] = first;
    graph_event_out[i][at + 8u] = last;
}

@compute @workgroup_size(64)
fn cs_graph_events(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= arrayLength(&event_cases)) {
        return;
    }
    let c = event_cases[i];
    let start = Phase(c.whole, c.frac);
    let mark = vec4<u32>(c.mark_lo, c.mark_top, 0u);
    put_series(i, 0u, event_series(start, c.advance, mark, c.cycle, c.fresh != 0u, 0u), c.advance);
    put_series(i, 9u, event_series(start, c.advance, mark, c.cycle, c.fresh != 0u, 1u), c.advance);
    graph_event_out[i][18] = step_fraction(c.distance, c.advance);
    for (var k = 19u; k < 24u; k += 1u) {
        graph_event_out[i][k] = 0u;
    }
}

@compute @workgroup_size(64)
fn cs_graph_time(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= arrayLength(&cases)) {
        return;
    }
    let c = cases[i];
    var o: GraphTimeOut;
    o.units_of_w = weight_units(c.w);
    o.cycle_of_sum = cycle_span(add128(weighted(c.w, c.span), weighted(c.w2, c.span2)));
    o.per_tick = rate(c.speed, c.cycle);
    o.done = bitcast<u32>(progress(c.elapsed, c.length));
    o.is_reached = select(0u, 1u, reached(c.elapsed, c.length));
    o.held = transition_span(c.length);
    o.length_of_units = cycles_span(c.units, c.cycle);
    let a = phase_advance(Phase(c.whole, c.frac), c.ticks, c.per_tick);
    o.frac = a.phase.frac;
    o.whole = a.phase.whole;
    o.folded = select(0u, 1u, a.folded);
    o.ge = select(0u, 1u, phase_ge(Phase(c.whole, c.frac), Phase(c.other_whole, c.other_frac)));
    o.quotient = bitcast<u32>(div_f32(c.dividend, c.divisor));
    o.part = weighted(c.w, c.span);
    graph_time_out[i] = o;
}
