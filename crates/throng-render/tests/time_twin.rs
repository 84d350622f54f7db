//! The time rules' GPU twin (docs/design.md §4): for clip times of every loop mode — dense
//! grids over several periods, negative times, every frame time, clip ends and their multiples,
//! zero-length clips, and times of hours to decades, on uniform clips and on clips with a
//! frame-time list (error-budgeted bakes: steps from 1 ms to 0.25 s) — the CPU function
//! (`throng_contract::ClipFrames::sample`, f64) and the shaders (`throng::playback`'s
//! `gpu_layer`, f32, fed the phase the CPU reduced, as GPU-timed records carry it) give the same
//! row, except within 1e-4 frames of a frame boundary, and fracs within 1e-4. The GPU also
//! equals its line-by-line CPU twin (`throng_contract::gpu_layers`) exactly.

mod common;

use throng_asset::{ClipInfo, Encoding, LoopMode};
use throng_contract::gpu_timed::phase_word;
use throng_contract::{gpu_layers, GpuInstanceRecord, GpuLayer, GPU_ENABLED, GPU_HELD, MODE_SHIFT};
use throng_render::compute::layers_on_gpu;
use throng_render::device::test_gpu;
use throng_render::{GpuAsset, Playback, Records};

/// (frames, duration s) of the test clips: Fox-like ones, a two-frame clip, a zero-length one,
/// a long one, a very short one.
const CLIPS: [(u32, f64); 7] = [
    (22, 0.708),
    (103, 3.4166666),
    (2, 0.05),
    (1, 0.0),
    (35, 1.158),
    (301, 10.0),
    (4, 1e-3),
];

/// Frame-time lists (seconds, f32 as stored): uneven steps down to 1 ms, a smoothly varying
/// spacing, and two frames.
fn listed_clips() -> Vec<Vec<f32>> {
    let uneven = vec![0.0, 0.0042, 0.0125, 0.05, 0.051, 0.2, 0.45, 0.7083];
    let mut smooth = vec![0.0f32];
    for k in 1..60 {
        let step = 0.02 + 0.015 * (k as f32 * 0.37).sin();
        smooth.push(smooth[k - 1] + step);
    }
    vec![uneven, smooth, vec![0.0, 0.05]]
}

fn clip_table() -> Vec<ClipInfo> {
    let mut first = 1;
    let uniform = CLIPS
        .iter()
        .map(|&(frames, duration)| (frames, duration, None));
    let listed = listed_clips().into_iter().map(|t| {
        let d = *t.last().unwrap() as f64;
        (t.len() as u32, d, Some(t))
    });
    uniform
        .chain(listed)
        .enumerate()
        .map(|(i, (frames, duration, times))| {
            let c = common::timed_clip(&format!("c{i}"), first, frames, duration, times);
            first += frames;
            c
        })
        .collect()
}

/// Clip times to probe for clip `c`: a dense grid, every frame time and the midpoints between
/// them, clip ends and their multiples, very long times.
fn times(c: &ClipInfo) -> Vec<f64> {
    let (d, n) = (c.duration, c.frames);
    let mut t: Vec<f64> = (-300..900)
        .map(|i| i as f64 * 0.00731 * d.max(0.01))
        .collect();
    if n > 1 {
        t.extend((0..n).map(|k| c.frame_time(k)));
        t.extend((0..n - 1).map(|k| 0.5 * (c.frame_time(k) + c.frame_time(k + 1))));
    }
    for k in -3..=5 {
        t.push(k as f64 * d);
    }
    t.extend([
        3600.0 + 0.25,
        86_400.0 * 1.5 + 0.123,
        1.0e7 + 0.5,
        3.0e9,
        -86_400.0,
    ]);
    t
}

#[test]
fn gpu_time_twin_matches_the_cpu_time_function() {
    let Some(gpu) = test_gpu() else { return };
    let (mut asset, _) = common::random_asset(Encoding::QuatSnorm16, 4, 11);
    asset.clips = clip_table();
    let gasset = GpuAsset::new(&gpu, &asset).expect("upload");
    let gpu_clips = throng_asset::gpu_clip_table(&asset.clips);

    // One GPU-timed record per probe, anchored at clock 0 with no rate: the GPU evaluates the
    // phase the CPU reduced, as it does for every GPU-timed instance.
    let mut probes = Vec::new();
    let mut records = Vec::new();
    for (ci, c) in asset.clips.iter().enumerate() {
        let frames = c.frames_table();
        for mode in LoopMode::ALL {
            for t in times(c) {
                let s = frames.sample(mode, t);
                let held = mode.holds_end() && s.phase >= 1.0;
                let mut rec = GpuInstanceRecord {
                    flags: GPU_ENABLED,
                    ..Default::default()
                };
                rec.layers[0] = GpuLayer {
                    phase: phase_word(s.phase, 1.0),
                    clip_mode: ci as u32
                        | mode.code() << MODE_SHIFT
                        | if held { GPU_HELD } else { 0 },
                    ..Default::default()
                };
                probes.push((ci, mode, t, s));
                records.push(rec);
            }
        }
    }
    let got = layers_on_gpu(
        &gpu,
        &gasset,
        Playback::Records(Records::Gpu {
            records: &records,
            clock: 0,
        }),
    )
    .expect("layers job");
    assert_eq!(got.len(), probes.len());
    let mut boundary = 0;
    for (k, ((ci, mode, t, want), rec)) in probes.iter().zip(&records).enumerate() {
        let g = got[k].layers[0];
        let twin = gpu_layers(rec, &gpu_clips, 0).layers[0];
        assert_eq!(g, twin, "GPU vs its CPU twin: clip {ci} {mode} t={t}");
        let what = format!(
            "clip {ci} {mode} t={t}: GPU row {} frac {}, CPU row {} frac {}",
            g.row, g.frac, want.row, want.frac
        );
        assert_eq!(g.weight, 1.0, "{what}");
        assert_eq!(g.clip, *ci as u32, "{what}");
        let near = want.frac < 1e-4 || want.frac > 1.0 - 1e-4;
        if g.row as u32 == want.row && (g.frac - want.frac).abs() <= 1e-4 {
            continue;
        }
        // otherwise only across a frame boundary, where the positions agree (a loop's end and
        // start being the same instant)
        assert!(near, "{what}");
        let gp = g.row as f64 + g.frac as f64;
        let wp = want.row as f64 + want.frac as f64;
        let wrap = if *mode == LoopMode::Loop {
            (asset.clips[*ci].frames - 1) as f64
        } else {
            0.0
        };
        let d = (gp - wp).abs();
        assert!(d <= 1e-4 || (d - wrap).abs() <= 1e-4, "{what}");
        boundary += 1;
    }
    eprintln!(
        "{} probes over {} clips × 4 loop modes: rows equal except {boundary} at frame boundaries",
        probes.len(),
        asset.clips.len()
    );
    assert!(probes.len() > 10_000);
}
