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
    let (changes, churn) = per_frame(n);
    let (warm, end) = play_frames(frames, || {
        for _ in 0..churn {
            let i = pick(&mut rng, live.len());
            rt.despawn(live.swap_remove(i)).expect("a live handle");
            live.push(rt.spawn(InstanceTransform::IDENTITY));
        }
        for _ in 0..changes {
            let h = live[pick(&mut rng, live.len())];
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
    });
    // `end` was taken before the copy of the records, which is not the runtime's
    (rt.records().bytes().to_vec(), warm, end)
}

/// Changes and churn (despawn + spawn) a frame for a crowd of `n`: 1 % and 0.1 % of it.
fn per_frame(n: usize) -> (usize, usize) {
    ((n / 100).max(1), (n / 1000).max(1))
}

/// An index below `len` from the stream.
fn pick(rng: &mut SplitMix64, len: usize) -> usize {
    (rng.next_u64() % len as u64) as usize
}

/// Plays `frames` frames of `frame`; returns the resident memory after the warm-up (a tenth
/// of the frames) and at the end.
fn play_frames(frames: usize, mut frame: impl FnMut()) -> (u64, u64) {
    let mut warm = 0;
    for f in 0..frames {
        frame();
        if f + 1 == frames / 10 {
            warm = rss();
        }
    }
    (warm, rss())
}

/// Runs `run` (records, resident memory after the warm-up and at the end) twice: the memory
/// of the first run must hold, and the replay's records equal its records.
fn soak_and_replay(what: &str, run: impl Fn() -> (Vec<u8>, u64, u64)) {
    let start = std::time::Instant::now();
    let (records, warm, end) = run();
    let took = start.elapsed();
    check_memory(what, warm, end);
    let (replay, _, _) = run();
    assert!(records == replay, "{what}: the replay's records differ");
    eprintln!(
        "{what}: {:.1} s for the run, replay equal",
        took.as_secs_f64()
    );
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
        soak_and_replay(
            &format!("{timing:?}-timed, {n} instances × {frames} frames"),
            || run(timing, &clips, n, frames, 52),
        );
    }
    // the graph crowd in the same test, so that the process's resident memory is one crowd's
    soak_and_replay(
        &format!("graph crowd, {n} instances × {frames} frames"),
        || run_graph(n, frames, 52),
    );
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
    let (changes, churn) = per_frame(n);
    let (warm, end) = play_frames(frames, || {
        for _ in 0..churn {
            crowd.swap_remove(pick(&mut rng, crowd.len()));
            crowd.resize(crowd.len() + 1);
        }
        for _ in 0..changes {
            let i = pick(&mut rng, crowd.len());
            let p = params[pick(&mut rng, params.len())];
            let v = SPEEDS[pick(&mut rng, SPEEDS.len())] * rng.unit() as f32;
            let _ = match p.kind() {
                ParamKind::Float => crowd.set_float(i, p.typed().unwrap(), v),
                ParamKind::Int => crowd.set_int(i, p.typed().unwrap(), v as i32),
                ParamKind::Bool => crowd.set_bool(i, p.typed().unwrap(), v > 0.5),
                ParamKind::Trigger => crowd.fire(i, p.typed().unwrap()),
            };
        }
        crowd.step(1.0 / 60.0);
    });
    (bytemuck::cast_slice(crowd.records()).to_vec(), warm, end)
}
