//! Soak (issue 52): a crowd under a long stream of random commands — spawn/despawn churn,
//! plays, crossfades, blends, overlay layers, extreme speeds (0, 1e30, NaN), pauses, seeks and
//! clock jumps — in both timings, and a graph crowd under parameter changes, triggers and churn.
//! No panic; the resident memory at the end is within 1 % of what it was after the warm-up
//! (a tenth of the frames); and the records at the end equal those of a replay of the same
//! command stream (regenerated from its seed: stored, it would be gigabytes).
//!
//! Ignored by default (minutes to hours): `cargo test --release -p throng-graph --test soak --
//! --ignored --nocapture`, sized by `THRONG_SOAK_INSTANCES` (default 1,000,000) and
//! `THRONG_SOAK_FRAMES` (default 100,000). The note of issue 52 gives the runs made.

use throng_asset::{ClipInfo, LoopMode};
use throng_graph::{Graph, GraphCrowd, ParamKind};
use throng_runtime::crowd::SplitMix64;
use throng_runtime::testing::synthetic_clips;
use throng_runtime::{
    ClipId, Handle, InstanceTransform, PlayOptions, PlaybackCommand, Runtime, Timing,
};

fn size(var: &str, default: usize) -> usize {
    std::env::var(var)
        .ok()
        .and_then(|v| v.replace('_', "").parse().ok())
        .unwrap_or(default)
}

/// Resident memory of this process, bytes (Linux `/proc/self/statm`).
fn rss() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("/proc/self/statm");
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("resident pages");
    pages * 4096
}

// 1e30, NaN and −1 are refused (`MAX_SPEED`); the limit itself plays 10^6 laps a second
// when both the clip's and the instance's speed are at it.
const SPEEDS: [f32; 8] = [
    1.0,
    0.0,
    2.5,
    1e30,
    f32::NAN,
    0.25,
    throng_runtime::MAX_SPEED,
    -1.0,
];

fn command(rng: &mut SplitMix64, clips: usize) -> PlaybackCommand {
    let clip = (rng.next_u64() % clips as u64) as usize;
    let options = PlayOptions {
        speed: SPEEDS[(rng.next_u64() % 8) as usize],
        loop_mode: None,
        start_time: rng.range((0.0, 2.0)) as f32,
    };
    match rng.next_u64() % 10 {
        0 | 1 => PlaybackCommand::Crossfade {
            clip: ClipId::new(clip),
            seconds: rng.range((0.0, 0.6)) as f32,
            options,
        },
        2 => PlaybackCommand::Play {
            clip: ClipId::new(clip),
            options,
        },
        3 => PlaybackCommand::Blend {
            a: ClipId::new(clip),
            b: ClipId::new((clip + 1) % clips),
            weight: rng.unit() as f32,
        },
        4 => PlaybackCommand::Layer {
            clip: ClipId::new(clip),
            mask: 0,
            weight: rng.unit() as f32,
            options,
        },
        5 => PlaybackCommand::Speed(SPEEDS[(rng.next_u64() % 8) as usize]),
        6 => PlaybackCommand::Pause,
        7 => PlaybackCommand::Resume,
        8 => PlaybackCommand::Seek(rng.range((-1.0, 5.0)) as f32),
        _ => PlaybackCommand::Enable(!rng.next_u64().is_multiple_of(4)),
    }
}

/// Plays `frames` frames of the stream of `seed` on a crowd of `n`; returns the final records'
/// bytes and the resident memory after the warm-up and at the end.
fn run(
    timing: Timing,
    clips: &[ClipInfo],
    n: usize,
    frames: usize,
    seed: u64,
) -> (Vec<u8>, u64, u64) {
    let mut rng = SplitMix64(seed);
    let mut rt = Runtime::new(timing, clips);
    let mut live: Vec<Handle> = (0..n)
        .map(|_| rt.spawn(InstanceTransform::IDENTITY))
        .collect();
    let changes = (n / 100).max(1);
    let churn = (n / 1000).max(1);
    let mut warm = 0;
    for f in 0..frames {
        for _ in 0..churn {
            let i = (rng.next_u64() % live.len() as u64) as usize;
            rt.despawn(live.swap_remove(i)).expect("a live handle");
            live.push(rt.spawn(InstanceTransform::IDENTITY));
        }
        for _ in 0..changes {
            let h = live[(rng.next_u64() % live.len() as u64) as usize];
            // errors (a NaN speed, an overlay without a mask) are answers, not failures
            let _ = rt.command(h, command(&mut rng, clips.len()));
        }
        // now and then a clock jump of minutes to days
        let dt = if rng.next_u64().is_multiple_of(5000) {
            rng.range((60.0, 1e6))
        } else {
            1.0 / 60.0
        };
        rt.update(dt);
        rt.clear_changes();
        assert!(rt.time().is_finite());
        if f + 1 == frames / 10 {
            warm = rss();
        }
    }
    // before the copy of the records, which is not the runtime's
    let end = rss();
    (rt.records().bytes().to_vec(), warm, end)
}

fn check_memory(what: &str, warm: u64, end: u64) {
    eprintln!(
        "{what}: resident {:.1} MiB after the warm-up, {:.1} MiB at the end ({:+.2} %)",
        warm as f64 / (1 << 20) as f64,
        end as f64 / (1 << 20) as f64,
        (end as f64 / warm as f64 - 1.0) * 100.0
    );
    assert!(
        end as f64 <= warm as f64 * 1.01,
        "{what}: memory grew from {warm} to {end} bytes"
    );
}

#[test]
#[ignore = "a soak: minutes to hours; run with --ignored (see the module docs)"]
fn crowds_survive_a_long_stream_of_random_commands_in_both_timings_and_a_graph() {
    let n = size("THRONG_SOAK_INSTANCES", 1_000_000);
    let frames = size("THRONG_SOAK_FRAMES", 100_000).max(10);
    let clips = synthetic_clips();
    for timing in [Timing::Cpu, Timing::Gpu] {
        let start = std::time::Instant::now();
        let (records, warm, end) = run(timing, &clips, n, frames, 52);
        let took = start.elapsed();
        check_memory(
            &format!("{timing:?}-timed, {n} instances × {frames} frames"),
            warm,
            end,
        );
        let (replay, _, _) = run(timing, &clips, n, frames, 52);
        assert!(records == replay, "{timing:?}: the replay's records differ");
        eprintln!(
            "{timing:?}-timed: {:.1} s for the run, replay equal",
            took.as_secs_f64()
        );
    }
    graph_crowd_soak(n, frames);
}

fn fox_clips() -> Vec<ClipInfo> {
    let mut row = 1;
    [("Survey", 3.417), ("Walk", 0.708), ("Run", 1.158)]
        .iter()
        .map(|&(name, d)| {
            let c =
                throng_runtime::testing::synthetic_clip(name, row, d, 30.0, LoopMode::Loop, &[0.1]);
            row += c.frames;
            c
        })
        .collect()
}

fn run_graph(n: usize, frames: usize, seed: u64) -> (Vec<u8>, u64, u64) {
    let clips = fox_clips();
    let text = include_str!("../graphs/fox-locomotion.json");
    let graph = Graph::from_json(text, "fox-locomotion.json", &clips).expect("builds");
    let mut crowd = GraphCrowd::new(graph, &clips, n).expect("graph crowd");
    let params: Vec<_> = (crowd.graph().parameters().iter())
        .map(|p| crowd.param_any(p.name()).expect("declared"))
        .collect();
    let mut rng = SplitMix64(seed);
    let changes = (n / 100).max(1);
    let churn = (n / 1000).max(1);
    let mut warm = 0;
    for f in 0..frames {
        for _ in 0..churn {
            let i = (rng.next_u64() % crowd.len() as u64) as usize;
            crowd.swap_remove(i);
            crowd.resize(crowd.len() + 1);
        }
        for _ in 0..changes {
            let i = (rng.next_u64() % crowd.len() as u64) as usize;
            let p = params[(rng.next_u64() % params.len() as u64) as usize];
            let v = SPEEDS[(rng.next_u64() % 8) as usize] * rng.unit() as f32;
            let _ = match p.kind() {
                ParamKind::Float => crowd.set_float(i, p.typed().unwrap(), v),
                ParamKind::Int => crowd.set_int(i, p.typed().unwrap(), v as i32),
                ParamKind::Bool => crowd.set_bool(i, p.typed().unwrap(), v > 0.5),
                ParamKind::Trigger => crowd.fire(i, p.typed().unwrap()),
            };
        }
        crowd.step(1.0 / 60.0);
        if f + 1 == frames / 10 {
            warm = rss();
        }
    }
    let end = rss();
    (bytemuck::cast_slice(crowd.records()).to_vec(), warm, end)
}

/// The graph crowd's part of the soak (the runtime's test calls it: one test, so that the
/// process's resident memory is one crowd's).
fn graph_crowd_soak(n: usize, frames: usize) {
    let start = std::time::Instant::now();
    let (records, warm, end) = run_graph(n, frames, 52);
    let took = start.elapsed();
    check_memory(
        &format!("graph crowd, {n} instances × {frames} frames"),
        warm,
        end,
    );
    let (replay, _, _) = run_graph(n, frames, 52);
    assert!(records == replay, "the graph crowd's replay differs");
    eprintln!(
        "graph crowd: {:.1} s for the run, replay equal",
        took.as_secs_f64()
    );
}
