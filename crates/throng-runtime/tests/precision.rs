//! 24 simulated hours at 60 Hz (5 184 000 steps) against time computed directly from the
//! elapsed time, in both modes; and the f32 accumulator that fails.

mod common;
use common::*;
use throng_asset::{ClipInfo, LoopMode};
use throng_runtime::{
    gpu_layers, Clock, CpuRuntime, GpuRuntime, Handle, InstanceRecord, PlayOptions,
    PlaybackControl, TICKS_PER_SECOND,
};

const STEPS: u64 = 24 * 3600 * 60;
const DT: f64 = 1.0 / 60.0;

#[test]
fn clock_after_24h_matches_direct_time_and_f32_accumulation_does_not() {
    let mut clock = Clock::new();
    let mut naive = 0.0f32;
    for _ in 0..STEPS {
        clock.advance(DT);
        naive += DT as f32;
    }
    let exact = STEPS as f64 * DT; // 86 400 s
    assert!(
        (clock.seconds() - exact).abs() < 1e-7,
        "clock {} vs {exact}",
        clock.seconds()
    );
    let exact_ticks = exact * TICKS_PER_SECOND as f64;
    assert!((clock.ticks() as f64 - exact_ticks).abs() <= 1.0);
    // f32 seconds: each step is rounded to the spacing of the running total (7.8 ms near a
    // day), so the sum is far off — the reason for integer ticks
    let err = (naive as f64 - exact).abs();
    assert!(err > 60.0, "naive f32 accumulation error only {err} s");
}

struct Case {
    d: f64,
    mode: LoopMode,
    speed: f32,
    start: f32,
}

const CASES: [Case; 5] = [
    Case {
        d: 1.0,
        mode: LoopMode::Loop,
        speed: 1.0,
        start: 0.0,
    },
    Case {
        d: 0.7,
        mode: LoopMode::Loop,
        speed: 1.37,
        start: 0.1,
    },
    Case {
        d: 1.3,
        mode: LoopMode::PingPong,
        speed: 0.9,
        start: 0.0,
    },
    Case {
        d: 13.0 / 3.0,
        mode: LoopMode::Loop,
        speed: 2.5,
        start: 1.0,
    },
    Case {
        d: 8.0,
        mode: LoopMode::PingPong,
        speed: 0.31,
        start: 3.0,
    },
];

fn truth(c: &ClipInfo, case: &Case, steps: u64) -> (u32, f32) {
    // directly from elapsed time: τ = start + n · dt · speed
    let t = case.start as f64 + steps as f64 * DT * case.speed as f64;
    expected(c, case.mode, t)
}

fn case_clips() -> Vec<ClipInfo> {
    let specs: Vec<(f64, LoopMode, &[f32])> =
        CASES.iter().map(|c| (c.d, c.mode, &[][..])).collect();
    table(&specs)
}

/// Plays case i on clip i for 24 h of 60 Hz steps (`update` advances `rt` by one) and every
/// million steps and at the end checks layer 0 of each case's record (`record` reads it)
/// against `truth` within 1e-4 frames; returns the worst error in frames.
fn worst_over_24h<R: PlaybackControl>(
    rt: &mut R,
    clips: &[ClipInfo],
    update: fn(&mut R, f64),
    record: impl Fn(&R, Handle) -> InstanceRecord,
) -> f64 {
    let hs = spawn_playing(rt, CASES.len(), |i| {
        (
            i,
            PlayOptions::at(CASES[i].start).with_speed(CASES[i].speed),
        )
    });
    let mut worst = 0.0f64;
    for n in 1..=STEPS {
        update(rt, DT);
        if n % 1_000_003 == 0 || n == STEPS {
            for (i, case) in CASES.iter().enumerate() {
                let c = &clips[i];
                let r = record(rt, hs[i]);
                let want = truth(c, case, n);
                let g = r.layers[0].row as f64 + r.layers[0].frac as f64;
                let w = want.0 as f64 + want.1 as f64;
                let period = (c.frames - 1) as f64;
                let d = (g - w).abs();
                worst = worst.max(if case.mode == LoopMode::Loop {
                    d.min((d - period).abs())
                } else {
                    d
                });
                assert_frame_wrap(
                    &r.layers[0],
                    want,
                    1e-4,
                    period,
                    &format!("case {i} step {n}"),
                );
            }
        }
    }
    worst
}

#[test]
fn cpu_timed_24h_at_60hz_matches_direct_time() {
    let clips = case_clips();
    let mut rt = CpuRuntime::new(&clips);
    let worst = worst_over_24h(&mut rt, &clips, CpuRuntime::update, |rt, h| {
        rt.record(h).unwrap()
    });
    println!("cpu-timed: worst error after 24 h {worst:e} frames");
}

#[test]
fn f32_phase_accumulation_drifts_by_frames_in_24h() {
    // the same per-period accumulation in f32 (1 s loop at 30 fps, speed 1.37): the error
    // grows without bound
    let l = 30.0f32;
    let step = (DT * 30.0 * 1.37) as f32;
    let mut p = 0.0f32;
    for _ in 0..STEPS {
        p += step;
        if p >= l {
            p -= l;
        }
    }
    let exact = (STEPS as f64 * DT * 30.0 * 1.37).rem_euclid(30.0);
    let err = (p as f64 - exact)
        .abs()
        .min(30.0 - (p as f64 - exact).abs());
    assert!(err > 0.5, "f32 drift only {err} frames");
}

#[test]
fn gpu_timed_24h_at_60hz_matches_direct_time() {
    let clips = case_clips();
    let mut rt = GpuRuntime::new(&clips);
    let gclips = rt.gpu_clip_table().clone();
    let worst = worst_over_24h(&mut rt, &clips, GpuRuntime::update, |rt, h| {
        let r = gpu_layers(&rt.record(h).unwrap(), &gclips, rt.gpu_clock());
        assert_eq!(r.layers[0].weight, 1.0);
        r
    });
    println!("gpu-timed: worst error after 24 h {worst:e} frames");
}
