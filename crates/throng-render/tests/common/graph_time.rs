//! The twin scenario of animation graphs' integer time (docs/graph.md "Time"), shared by
//! `tests/graph_time_twin.rs` (the default backend) and `tests/graph_time_twin_gl.rs` (wgpu's
//! GL backend): WGSL `throng::graph_time`, run by `compute::graph_time_on_gpu`, against
//! `throng_contract::graph_time` on edge values and random bits. Equality is exact: both sides
//! are integer arithmetic (the one float result, a transition's progress, is a multiple of
//! 2^-24 made from an integer). The clip event rule (`event_series`, `step_fraction`) has its
//! own cases: phases and advances at the edges (a cycle, 64 laps, the 2^32-cycle limit).

use throng_contract::graph_time::{
    cycle_span, cycles_span, event_series, progress, rate, reached, step_fraction, transition_span,
    weight_units, weighted, EventCycle, Phase,
};
use throng_render::compute::{
    graph_events_on_gpu, graph_time_on_gpu, GraphEventCase, GraphEventOut, GraphTimeCase,
    GraphTimeOut,
};

/// SplitMix64.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[(self.next() % v.len() as u64) as usize]
    }
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
    /// A u64 below 2^bits, often small, often near the top.
    fn bits(&mut self, bits: u32) -> u64 {
        let b = (self.next() % bits as u64) as u32 + 1;
        let v = self.next() >> (64 - b);
        match self.next() % 8 {
            0 => 0,
            1 => 1,
            2 => (1u64 << (bits - 1)) | (v >> 1),
            _ => v,
        }
    }
}

/// One case's inputs, as the test reads them back.
#[derive(Debug, Clone, Copy)]
struct Case {
    speed: f32,
    w: f32,
    elapsed: u32,
    whole: i32,
    cycle: u64,
    length: u64,
    ticks: u64,
    rate: u64,
    frac: u64,
    units: u64,
    span: u64,
    other_whole: i32,
    w2: f32,
    other_frac: u64,
    span2: u64,
    dividend: f32,
    divisor: f32,
}

fn lo(v: u64) -> u32 {
    v as u32
}
fn hi(v: u64) -> u32 {
    (v >> 32) as u32
}

impl Case {
    fn words(&self) -> GraphTimeCase {
        [
            self.speed.to_bits(),
            self.w.to_bits(),
            self.elapsed,
            self.whole as u32,
            lo(self.cycle),
            hi(self.cycle),
            lo(self.length),
            hi(self.length),
            lo(self.ticks),
            hi(self.ticks),
            lo(self.rate),
            hi(self.rate),
            lo(self.frac),
            hi(self.frac),
            lo(self.units),
            hi(self.units),
            lo(self.span),
            hi(self.span),
            self.other_whole as u32,
            self.w2.to_bits(),
            lo(self.other_frac),
            hi(self.other_frac),
            lo(self.span2),
            hi(self.span2),
            self.dividend.to_bits(),
            self.divisor.to_bits(),
        ]
    }

    /// What the CPU functions give, in the output's layout.
    fn expected(&self) -> GraphTimeOut {
        let mut o = [0u32; 24];
        let put = |o: &mut [u32; 24], at: usize, v: u64| {
            o[at] = lo(v);
            o[at + 1] = hi(v);
        };
        put(&mut o, 0, weight_units(self.w));
        let sum = weighted(self.w, self.span) + weighted(self.w2, self.span2);
        put(&mut o, 2, cycle_span(sum));
        put(&mut o, 4, rate(self.speed, self.cycle));
        o[6] = progress(self.elapsed, self.length).to_bits();
        o[7] = reached(self.elapsed, self.length) as u32;
        put(&mut o, 8, transition_span(self.length));
        put(&mut o, 10, cycles_span(self.units, self.cycle));
        let mut p = Phase {
            whole: self.whole,
            frac: self.frac,
        };
        let before = p;
        let folds = p.advance(self.ticks, self.rate);
        put(&mut o, 12, p.frac);
        o[14] = p.whole as u32;
        o[15] = (folds > 0) as u32;
        let other = Phase {
            whole: self.other_whole,
            frac: self.other_frac,
        };
        o[16] = (before >= other) as u32;
        o[17] = (self.dividend / self.divisor).to_bits();
        let wt = weighted(self.w, self.span);
        for k in 0..4 {
            o[20 + k] = (wt >> (32 * k)) as u32;
        }
        o
    }
}

/// Speeds: the ones a graph plays (0 to 1000), their edges, and any bits at all (NaN, infinity,
/// negatives, subnormals).
fn speed(r: &mut Rng) -> f32 {
    match r.next() % 6 {
        0 => r.pick(&[
            0.0,
            -0.0,
            1.0,
            1000.0,
            f32::MIN_POSITIVE,
            f32::from_bits(1),
            f32::INFINITY,
            f32::NAN,
            -1.0,
            1e-20,
        ]),
        1 => f32::from_bits(r.next() as u32),
        2 => r.unit() * 1000.0,
        _ => r.unit() * 4.0,
    }
}

/// Weights: in [0, 1] mostly, their edges, tiny and subnormal ones, and out of range.
fn weight(r: &mut Rng) -> f32 {
    match r.next() % 6 {
        0 => r.pick(&[
            0.0,
            1.0,
            0.5,
            2f32.powi(-24),
            2f32.powi(-30),
            f32::from_bits(5),
            -0.25,
            1.5,
            f32::NAN,
            1.0 - f32::EPSILON,
        ]),
        1 => f32::from_bits(r.next() as u32),
        _ => r.unit(),
    }
}

fn case(r: &mut Rng) -> Case {
    // clip and cycle lengths: 1 ms to hours, as spans, and any 64 bits
    let second = 1u64 << 40;
    let cycle = match r.next() % 4 {
        0 => r.pick(&[0, 1, second / 30, second, 10 * second, u64::MAX]),
        1 => r.next(),
        _ => (r.unit() as f64 * 10.0 * second as f64) as u64 + 1,
    };
    let length = match r.next() % 4 {
        0 => r.pick(&[0, 1, second / 5, 2048 * second, 4096 * second, u64::MAX]),
        1 => r.next(),
        _ => r.bits(52),
    };
    let whole = match r.next() % 4 {
        0 => r.pick(&[-(1 << 29), -1, 0, 1, (1 << 29), (1 << 30) - 1]),
        _ => (r.next() % (3 << 29)) as i32 - (1 << 29),
    };
    let frac = r.next();
    let (other_whole, other_frac) = match r.next() % 4 {
        0 => (whole, frac),
        1 => (whole, frac.wrapping_add(1)),
        2 => (whole, frac.wrapping_sub(1)),
        _ => ((r.next() % (3 << 29)) as i32 - (1 << 29), r.next()),
    };
    Case {
        speed: speed(r),
        w: weight(r),
        elapsed: match r.next() % 4 {
            0 => r.pick(&[0, 1, u32::MAX, 209_715, 1 << 31]),
            _ => r.next() as u32 >> (r.next() % 32),
        },
        whole,
        cycle,
        length,
        // the clock's longest step is 2^40 ticks
        ticks: match r.next() % 4 {
            0 => r.pick(&[0, 1, 17_476, 17_477, 1 << 40]),
            _ => r.bits(41).min(1 << 40),
        },
        rate: match r.next() % 4 {
            0 => r.pick(&[0, 1, 1 << 44, u64::MAX]),
            _ => r.next() >> (r.next() % 64),
        },
        frac,
        units: r.bits(62).min(1 << 61),
        span: r.bits(63),
        other_whole,
        w2: weight(r),
        other_frac,
        span2: r.bits(63),
        dividend: quotient_operand(r),
        divisor: quotient_operand(r),
    }
}

/// Operands of the division (≥ 0, the domain where it is exact): weights and their sums,
/// threshold spans, zeros, infinities, NaN, subnormals, and any non-negative bits.
fn quotient_operand(r: &mut Rng) -> f32 {
    match r.next() % 6 {
        0 => r.pick(&[
            0.0,
            1.0,
            3.0,
            0.1,
            f32::INFINITY,
            f32::NAN,
            f32::MIN_POSITIVE,
            f32::from_bits(1),
            f32::from_bits(0x007f_ffff),
            f32::MAX,
        ]),
        1 | 2 => f32::from_bits(r.next() as u32 & 0x7fff_ffff),
        3 => r.unit() * 2.0,
        _ => (r.next() % 64) as f32 * 0.125,
    }
}

/// Runs 20,000 cases on `gpu` and compares every output word; `label` names the backend.
pub fn graph_time_scenario(gpu: &throng_render::Gpu, label: &str) {
    let mut r = Rng(0x6772_6170_6874);
    let cases: Vec<Case> = (0..20_000).map(|_| case(&mut r)).collect();
    let words: Vec<GraphTimeCase> = cases.iter().map(Case::words).collect();
    let got = graph_time_on_gpu(gpu, &words).expect("graph time compute");
    assert_eq!(got.len(), cases.len());
    const NAMES: [&str; 24] = [
        "weight_units",
        "weight_units (high)",
        "cycle_span",
        "cycle_span (high)",
        "rate",
        "rate (high)",
        "progress",
        "reached",
        "transition_span",
        "transition_span (high)",
        "cycles_span",
        "cycles_span (high)",
        "advance: frac",
        "advance: frac (high)",
        "advance: whole",
        "advance: folded",
        "phase >=",
        "div_f32",
        "unused",
        "unused",
        "weighted, word 0",
        "weighted, word 1",
        "weighted, word 2",
        "weighted, word 3",
    ];
    let mut folded = 0;
    let mut moved = 0;
    for (i, (c, g)) in cases.iter().zip(&got).enumerate() {
        let want = c.expected();
        for k in 0..24 {
            if (18..20).contains(&k) {
                continue;
            }
            // NaN is any NaN
            if k == 17 && f32::from_bits(want[k]).is_nan() {
                assert!(
                    f32::from_bits(g[k]).is_nan(),
                    "{label}: case {i}: div_f32 {c:?}"
                );
                continue;
            }
            assert_eq!(
                g[k], want[k],
                "{label}: case {i}, {}: GPU {:#x}, CPU {:#x}; {c:?}",
                NAMES[k], g[k], want[k]
            );
        }
        folded += want[15] as usize;
        moved += usize::from(want[4] != 0 || want[5] != 0);
    }
    // the cases reach the folds and the nonzero rates they are meant to
    assert!(folded > 100, "{folded} folds");
    assert!(moved > 5_000, "{moved} nonzero rates");
    println!(
        "{label}: {} cases of throng::graph_time equal their CPU twin ({folded} folds)",
        cases.len()
    );
}

/// One clip event case: a start phase, an advance, a mark, a cycle, fresh, and a distance.
#[derive(Debug, Clone, Copy)]
struct EventCase {
    start: Phase,
    advance: u128,
    mark: u128,
    cycle: EventCycle,
    fresh: bool,
    distance: u128,
}

fn words128(v: u128) -> [u32; 4] {
    [
        v as u32,
        (v >> 32) as u32,
        (v >> 64) as u32,
        (v >> 96) as u32,
    ]
}

impl EventCase {
    fn words(&self) -> GraphEventCase {
        let a = words128(self.advance);
        let m = words128(self.mark);
        let d = words128(self.distance);
        [
            a[0],
            a[1],
            a[2],
            a[3],
            d[0],
            d[1],
            d[2],
            d[3],
            lo(self.start.frac),
            hi(self.start.frac),
            m[0],
            m[1],
            self.start.whole as u32,
            self.cycle as u32,
            m[2],
            u32::from(self.fresh),
        ]
    }

    fn expected(&self) -> GraphEventOut {
        let mut o = [0u32; 24];
        for which in 0..2 {
            let s = event_series(
                self.start,
                self.advance,
                self.mark,
                self.cycle,
                self.fresh,
                which,
            );
            let at = which as usize * 9;
            o[at..at + 4].copy_from_slice(&words128(s.first));
            o[at + 4] = s.from;
            o[at + 5] = s.n;
            o[at + 6] = s.shift;
            if s.n > s.from {
                o[at + 7] = step_fraction(s.at(s.from), self.advance);
                o[at + 8] = step_fraction(s.at(s.n - 1), self.advance);
            }
        }
        o[18] = step_fraction(self.distance, self.advance);
        o
    }
}

fn event_case(r: &mut Rng) -> EventCase {
    let cycle_units = 1u128 << 64;
    let start = Phase {
        whole: match r.next() % 4 {
            0 => r.pick(&[-(1 << 29), -1, 0, 1, 2, (1 << 30) - 1]),
            1 => (r.next() % 8) as i32,
            _ => (r.next() % (3 << 29)) as i32 - (1 << 29),
        },
        frac: match r.next() % 4 {
            0 => r.pick(&[0, 1, u64::MAX, 1 << 63]),
            _ => r.next(),
        },
    };
    // ticks × rate as the step makes it: any, tiny, near a cycle, many laps, past the limits
    let advance = match r.next() % 6 {
        0 => r.pick(&[
            0,
            1,
            cycle_units - 1,
            cycle_units,
            cycle_units + 1,
            64 * cycle_units,
            65 * cycle_units,
            (1u128 << 96) - 1,
            1u128 << 96,
            (1u128 << 104) - 1,
        ]),
        1 => r.bits(41).min(1 << 40) as u128 * r.next() as u128,
        2 => (r.next() % 300) as u128 * cycle_units + r.next() as u128,
        _ => r.next() as u128 >> (r.next() % 16),
    };
    let mark = match r.next() % 3 {
        0 => r.pick(&[0, 1, cycle_units - 1, cycle_units, cycle_units / 2]),
        _ => r.next() as u128,
    };
    EventCase {
        start,
        advance,
        mark,
        cycle: r.pick(&[
            EventCycle::Loop,
            EventCycle::PingPong,
            EventCycle::Once,
            EventCycle::Static,
        ]),
        fresh: r.next().is_multiple_of(2),
        distance: match r.next() % 3 {
            0 => advance,
            _ => (r.next() as u128 * r.next() as u128) % advance.max(1),
        },
    }
}

/// Runs 20,000 clip event cases on `gpu` and compares every output word; `label` names the
/// backend.
pub fn graph_events_scenario(gpu: &throng_render::Gpu, label: &str) {
    let mut r = Rng(0x6576_656e_7473);
    let cases: Vec<EventCase> = (0..20_000).map(|_| event_case(&mut r)).collect();
    let words: Vec<GraphEventCase> = cases.iter().map(EventCase::words).collect();
    let got = graph_events_on_gpu(gpu, &words).expect("graph events compute");
    assert_eq!(got.len(), cases.len());
    let (mut fired, mut capped) = (0usize, 0usize);
    for (i, (c, g)) in cases.iter().zip(&got).enumerate() {
        let want = c.expected();
        assert_eq!(
            g[..19],
            want[..19],
            "{label}: case {i}: GPU vs CPU (per series: first ×4, from, n, shift, fractions ×2; then step_fraction); {c:?}"
        );
        fired += usize::from(want[5] > want[4]) + usize::from(want[14] > want[13]);
        capped += usize::from(want[4] > 0) + usize::from(want[13] > 0);
    }
    // the cases reach crossings and the cap on laps
    assert!(
        fired > 5_000 && capped > 100,
        "{fired} series, {capped} capped"
    );
    println!(
        "{label}: {} clip event cases of throng::graph_time equal their CPU twin ({fired} series crossed, {capped} capped at EVENT_LAPS)",
        cases.len()
    );
}
