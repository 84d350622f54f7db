//! CPU-timed playback: rows/fracs, loop modes, crossfades, blends, handles.

mod common;
use common::*;
use throng_asset::LoopMode;
use throng_runtime::PlaybackControl;
use throng_runtime::{
    ClipId, CpuRuntime, InstanceRecord, InstanceTransform, PlayOptions, RuntimeError,
};

const TOL: f32 = 1e-5; // frames

/// One instance of the lone clip `c`.
fn one_clip(c: &throng_asset::ClipInfo, opts: PlayOptions) -> (CpuRuntime, throng_runtime::Handle) {
    one(std::slice::from_ref(c), 0, opts)
}

fn check_single(
    rt: &CpuRuntime,
    h: throng_runtime::Handle,
    c: &throng_asset::ClipInfo,
    mode: LoopMode,
    t: f64,
    what: &str,
) {
    let r = rt.record(h).unwrap();
    assert_eq!(r.layers[0].weight, 1.0, "{what}");
    assert_eq!(r.layers[0].clip, 0, "{what}");
    assert!(r.layers[0].frac >= 0.0 && r.layers[0].frac < 1.0, "{what}");
    for l in 1..4 {
        assert_eq!(r.layers[l], Default::default(), "{what}: unused layer {l}");
    }
    let period = loop_period(c, mode);
    assert_frame_wrap(&r.layers[0], expected(c, mode, t), TOL, period, what);
}

#[test]
fn rows_and_fracs_at_and_between_samples_all_modes() {
    for mode in [
        LoopMode::Loop,
        LoopMode::Once,
        LoopMode::Clamp,
        LoopMode::PingPong,
    ] {
        // 0.7 s at 30 fps = 22 frames (the DESIGN's epsilon example), first row 5
        let c = clip(5, 0.7, 30.0, mode, &[]);
        assert_eq!(c.frames, 22);
        let clips = vec![c.clone()];
        // exact sample times: steps of one frame
        let (mut rt, h) = one(&clips, 0, PlayOptions::default());
        let dt = c.step;
        check_single(&rt, h, &c, mode, 0.0, "t=0");
        for k in 1..=60 {
            rt.update(dt);
            check_single(
                &rt,
                h,
                &c,
                mode,
                k as f64 * dt,
                &format!("{mode:?} sample {k}"),
            );
        }
        // in between: a third of a frame per step
        let (mut rt, h) = one(&clips, 0, PlayOptions::default());
        for k in 1..=200 {
            rt.update(dt / 3.0);
            check_single(
                &rt,
                h,
                &c,
                mode,
                k as f64 * dt / 3.0,
                &format!("{mode:?} between {k}"),
            );
        }
    }
}

#[test]
fn loop_edges() {
    let c = clip(1, 1.0, 30.0, LoopMode::Loop, &[]);
    let (mut rt, h) = one_clip(&c, PlayOptions::default());
    rt.update(1.0); // t = d wraps to the first row
    let r = rt.record(h).unwrap();
    assert_eq!((r.layers[0].row, r.layers[0].frac), (1.0, 0.0));
    rt.update(0.5 / 30.0);
    let r = rt.record(h).unwrap();
    assert_eq!(r.layers[0].row, 1.0);
    assert!((r.layers[0].frac - 0.5).abs() < 1e-6);
    // just before the end: last interval, frac → 1
    let (mut rt, h) = one_clip(&c, PlayOptions::default());
    rt.update(1.0 - 1e-4);
    let r = rt.record(h).unwrap();
    assert_eq!(r.layers[0].row, 30.0);
    assert!(r.layers[0].frac > 0.99 && r.layers[0].frac < 1.0);
}

#[test]
fn once_and_clamp_hold_last_frame_and_report_completion_once() {
    for mode in [LoopMode::Once, LoopMode::Clamp] {
        let c = clip(3, 1.0, 30.0, mode, &[]);
        let (mut rt, h) = one_clip(&c, PlayOptions::default());
        rt.update(0.6);
        assert!(rt.finished().is_empty());
        assert!(!rt.is_finished(h).unwrap());
        rt.update(0.6); // crosses the end at t = 1.0
        assert_eq!(rt.finished().len(), 1);
        assert!(
            (rt.finished()[0].time - 1.0).abs() < 1e-9,
            "{:?}",
            rt.finished()[0]
        );
        assert!(rt.is_finished(h).unwrap());
        let r = rt.record(h).unwrap();
        assert_eq!((r.layers[0].row, r.layers[0].frac), (33.0, 0.0)); // s_c + n - 1, frac 0
        for _ in 0..10 {
            rt.update(0.5);
            assert!(rt.finished().is_empty(), "completion reported once");
            assert_eq!(rt.record(h).unwrap(), r);
        }
        // a start exactly at the end finishes on the first update
        let (mut rt, h) = one_clip(&c, PlayOptions::at(1.0));
        rt.update(0.01);
        assert_eq!(rt.finished().len(), 1);
        assert_eq!(rt.record(h).unwrap().layers[0].row, 33.0);
    }
}

#[test]
fn ping_pong_turns_at_the_ends() {
    let c = clip(1, 1.0, 30.0, LoopMode::PingPong, &[]);
    let (mut rt, h) = one_clip(&c, PlayOptions::default());
    rt.update(1.0);
    let r = rt.record(h).unwrap();
    assert_eq!((r.layers[0].row, r.layers[0].frac), (31.0, 0.0)); // the end, last row
    rt.update(0.25); // back to τ = 0.75 → p = 22.5
    let r = rt.record(h).unwrap();
    assert_eq!(r.layers[0].row, 23.0);
    assert!((r.layers[0].frac - 0.5).abs() < 1e-6);
    rt.update(0.75); // τ = 0: first row
    let r = rt.record(h).unwrap();
    assert_eq!((r.layers[0].row, r.layers[0].frac), (1.0, 0.0));
}

#[test]
fn zero_length_clip_shows_its_row() {
    for mode in [LoopMode::Loop, LoopMode::Once, LoopMode::PingPong] {
        let clips = vec![
            clip(1, 1.0, 30.0, mode, &[]),
            clip(32, 0.0, 30.0, mode, &[]),
        ];
        assert_eq!(clips[1].frames, 1);
        let (mut rt, h) = one(&clips, 1, PlayOptions::default());
        for _ in 0..3 {
            rt.update(0.3);
            let r = rt.record(h).unwrap();
            assert_eq!(
                (r.layers[0].weight, r.layers[0].row, r.layers[0].frac),
                (1.0, 32.0, 0.0)
            );
        }
    }
}

#[test]
fn speed_pause_seek_disable() {
    let c = clip(1, 2.0, 30.0, LoopMode::Loop, &[]);
    let (mut rt, h) = one_clip(&c, PlayOptions::default().with_speed(2.0));
    rt.update(0.25);
    check_single(&rt, h, &c, LoopMode::Loop, 0.5, "clip speed 2");
    rt.instance(h).speed(0.5).unwrap(); // instance multiplier: effective 1
    rt.update(0.25);
    check_single(&rt, h, &c, LoopMode::Loop, 0.75, "instance speed 0.5");
    rt.instance(h).pause().unwrap();
    rt.update(1.0);
    check_single(&rt, h, &c, LoopMode::Loop, 0.75, "paused");
    rt.instance(h).resume().unwrap();
    rt.instance(h).seek(1.5).unwrap();
    check_single(&rt, h, &c, LoopMode::Loop, 1.5, "seek");
    rt.instance(h).enabled(false).unwrap();
    rt.update(0.1);
    assert_eq!(
        rt.record(h).unwrap(),
        InstanceRecord::default(),
        "disabled: all zero (rest row)"
    );
    rt.instance(h).enabled(true).unwrap();
    check_single(&rt, h, &c, LoopMode::Loop, 1.5, "re-enabled");
    assert!(matches!(
        rt.instance(h).speed(-1.0),
        Err(RuntimeError::BadSpeed(_))
    ));
    assert!(matches!(
        rt.instance(h).play(ClipId::new(7), PlayOptions::default()),
        Err(RuntimeError::NoSuchClip { clip: 7, .. })
    ));
}

#[test]
fn loop_override_and_start_time() {
    let c = clip(1, 1.0, 30.0, LoopMode::Loop, &[]);
    let (mut rt, h) = one_clip(&c, PlayOptions::at(0.5).with_loop_mode(LoopMode::Clamp));
    check_single(&rt, h, &c, LoopMode::Clamp, 0.5, "start");
    rt.update(2.0);
    check_single(&rt, h, &c, LoopMode::Clamp, 2.5, "clamped by override");
}

fn weights(r: &InstanceRecord) -> [f32; 4] {
    [
        r.layers[0].weight,
        r.layers[1].weight,
        r.layers[2].weight,
        r.layers[3].weight,
    ]
}

#[test]
fn crossfade_weights_are_linear_and_the_outgoing_clip_keeps_playing() {
    let clips = table(&[(1.0, LoopMode::Loop, &[]), (0.5, LoopMode::Loop, &[])]);
    let (mut rt, h) = one(&clips, 0, PlayOptions::default());
    rt.update(0.2);
    rt.instance(h).crossfade(ClipId::new(1), 0.4).unwrap();
    let r = rt.record(h).unwrap();
    assert_eq!(weights(&r), [1.0, 0.0, 0.0, 0.0]);
    for k in 1..=4 {
        rt.update(0.1);
        let r = rt.record(h).unwrap();
        let f = (0.25 * k as f32).min(1.0);
        let w = weights(&r);
        if k < 4 {
            assert!(
                (w[0] - (1.0 - f)).abs() < 1e-6 && (w[1] - f).abs() < 1e-6,
                "{k}: {w:?}"
            );
            assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-6);
            // outgoing still advancing: clip 0 at t = 0.2 + 0.1k
            assert_frame(
                &r.layers[0],
                expected(&clips[0], LoopMode::Loop, 0.2 + 0.1 * k as f64),
                TOL,
                "outgoing",
            );
            assert_frame(
                &r.layers[1],
                expected(&clips[1], LoopMode::Loop, 0.1 * k as f64),
                TOL,
                "incoming",
            );
            assert_eq!(r.layers[1].clip, 1);
        } else {
            // done: the incoming clip alone, in slot 0
            assert_eq!(w, [1.0, 0.0, 0.0, 0.0]);
            assert_eq!(r.layers[0].clip, 1);
            assert_frame(
                &r.layers[0],
                expected(&clips[1], LoopMode::Loop, 0.4),
                TOL,
                "after",
            );
        }
    }
}

#[test]
fn fifth_layer_drops_the_faintest_and_renormalises() {
    let clips = table(&[(1.0, LoopMode::Loop, &[] as &[f32]); 5]);
    let (mut rt, h) = one(&clips, 0, PlayOptions::default());
    rt.instance(h).crossfade(ClipId::new(1), 1.0).unwrap();
    rt.update(0.5); // [0.5, 0.5]
    rt.instance(h).crossfade(ClipId::new(2), 1.0).unwrap();
    rt.update(0.25); // [0.375, 0.375, 0.25]
    rt.instance(h).crossfade(ClipId::new(3), 1.0).unwrap();
    rt.update(0.2); // ×0.8: [0.3, 0.3, 0.2, 0.2]
    let w = weights(&rt.record(h).unwrap());
    for (g, e) in w.iter().zip([0.3, 0.3, 0.2, 0.2]) {
        assert!((g - e).abs() < 1e-5, "{w:?}");
    }
    // 5th: the faintest outgoing layer (clip 2, 0.2 — ties go to the first) is dropped,
    // the others renormalised to [0.375, 0.375, 0.25] and the new one starts at 0
    rt.instance(h).crossfade(ClipId::new(4), 1.0).unwrap();
    let r = rt.record(h).unwrap();
    let w = weights(&r);
    let clips_shown: Vec<u32> = r.layers.iter().map(|l| l.clip).collect();
    assert_eq!(clips_shown, vec![0, 1, 3, 4]);
    for (g, e) in w.iter().zip([0.375, 0.375, 0.25, 0.0]) {
        assert!((g - e).abs() < 1e-5, "{w:?}");
    }
    rt.update(0.5);
    let w = weights(&rt.record(h).unwrap());
    assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    assert!((w[3] - 0.5).abs() < 1e-6);
}

#[test]
fn blend_runs_both_clips_in_normalised_time() {
    // walk 1.0 s (31 frames), run 0.6 s (19 frames)
    let clips = table(&[(1.0, LoopMode::Loop, &[]), (0.6, LoopMode::Loop, &[])]);
    let mut rt = CpuRuntime::new(&clips);
    let h = rt.spawn(InstanceTransform::IDENTITY);
    let w = 0.25f32;
    rt.instance(h)
        .blend(ClipId::new(0), ClipId::new(1), w)
        .unwrap();
    let cycle = 1.0 * 0.75 + 0.6 * 0.25; // 0.9 s
    for k in 1..=50 {
        rt.update(0.037);
        let t = 0.037 * k as f64;
        let phase = (t / cycle).fract();
        let r = rt.record(h).unwrap();
        assert_eq!(weights(&r), [0.75, 0.25, 0.0, 0.0]);
        // each clip's share of the cycle and its loop in frames
        for (l, share, period) in [(0, 1.0, 30.0), (1, 0.6, 18.0)] {
            let want = expected(&clips[l], LoopMode::Loop, phase * share);
            assert_frame_wrap(&r.layers[l], want, 1e-4, period, &format!("layer {l}"));
        }
    }
    // a new weight keeps the phase
    let before = rt.layer_times(h).unwrap();
    rt.instance(h)
        .blend(ClipId::new(0), ClipId::new(1), 1.0)
        .unwrap();
    let after = rt.layer_times(h).unwrap();
    assert_eq!(before[0].2, after[0].2);
    assert_eq!(after[1].1, 1.0);
}

#[test]
fn handles_survive_despawn_of_others() {
    let clips = table(&[(1.0, LoopMode::Loop, &[]), (2.0, LoopMode::Loop, &[])]);
    let mut rt = CpuRuntime::new(&clips);
    let hs = spawn_playing(&mut rt, 5, |i| (i % 2, PlayOptions::at(0.1 * i as f32)));
    rt.update(0.05);
    let before: Vec<_> = hs.iter().map(|&h| rt.record(h).unwrap()).collect();
    rt.despawn(hs[1]).unwrap();
    assert_eq!(rt.len(), 4);
    assert!(matches!(
        rt.record(hs[1]),
        Err(RuntimeError::DeadHandle { .. })
    ));
    assert!(rt.despawn(hs[1]).is_err());
    for k in [0, 2, 3, 4] {
        assert_eq!(rt.record(hs[k]).unwrap(), before[k]);
        let i = rt.index(hs[k]).unwrap();
        assert_eq!(rt.records()[i], before[k]);
        assert_eq!(rt.handle_at(i), Some(hs[k]));
    }
    let h = rt.spawn(InstanceTransform::IDENTITY);
    assert_eq!(h.slot(), hs[1].slot(), "slot reused");
    assert_ne!(h, hs[1], "with a new generation");
    assert!(rt.record(hs[1]).is_err());
    assert_eq!(rt.records().len(), 5);
    assert_eq!(rt.transforms().len(), 5);
}

#[test]
fn parallel_update_matches_direct_computation() {
    // more than one chunk, staggered start times
    let clips = table(&[
        (1.0, LoopMode::Loop, &[]),
        (0.7, LoopMode::PingPong, &[]),
        (1.3, LoopMode::Clamp, &[]),
    ]);
    let mut rt = CpuRuntime::new(&clips);
    let n = throng_runtime::CHUNK * 2 + 123;
    let hs: Vec<_> = (0..n)
        .map(|i| {
            let h = rt.spawn(InstanceTransform::IDENTITY);
            rt.instance(h)
                .play(ClipId::new(i % 3), PlayOptions::at((i % 50) as f32 * 0.01))
                .unwrap();
            h
        })
        .collect();
    for _ in 0..20 {
        rt.update(1.0 / 60.0);
    }
    for (i, &h) in hs.iter().enumerate() {
        let c = &clips[i % 3];
        let t = (i % 50) as f32 as f64 * 0.01; // start time as the f32 it was given
        let t = (t as f32) as f64 + 20.0 / 60.0;
        let r = rt.record(h).unwrap();
        let period = loop_period(c, c.loop_mode);
        assert_frame_wrap(
            &r.layers[0],
            expected(c, c.loop_mode, t),
            1e-4,
            period,
            &format!("instance {i}"),
        );
    }
}

/// `update_into` writes into a caller's buffer exactly what `update` writes into the runtime's
/// own records (fast and slow paths: loops, a one-shot with an event, crossfades, blends, a
/// paused and a disabled instance, more instances than one parallel chunk), and afterwards
/// `record` — computed from the state — equals the written record bit for bit.
#[test]
fn update_into_writes_what_update_writes() {
    let clips = table(&[
        (1.0, LoopMode::Loop, &[]),
        (0.7, LoopMode::Loop, &[0.3]),
        (1.5, LoopMode::Once, &[0.75]),
        (1.2, LoopMode::PingPong, &[]),
    ]);
    let n = throng_runtime::CHUNK + 777;
    let mut a = CpuRuntime::new(&clips);
    let mut b = CpuRuntime::new(&clips);
    let mut hs = Vec::new();
    for i in 0..n {
        let h = a.spawn(InstanceTransform::IDENTITY);
        assert_eq!(b.spawn(InstanceTransform::IDENTITY), h);
        for rt in [&mut a, &mut b] {
            match i % 5 {
                0 => rt
                    .instance(h)
                    .blend(ClipId::new(0), ClipId::new(1), 0.3)
                    .unwrap(),
                1 => rt
                    .instance(h)
                    .play(ClipId::new(2), PlayOptions::at(0.01 * (i % 50) as f32))
                    .unwrap(),
                _ => rt
                    .instance(h)
                    .play(ClipId::new(i % 4), PlayOptions::at(0.013 * (i % 70) as f32))
                    .unwrap(),
            };
        }
        hs.push(h);
    }
    for rt in [&mut a, &mut b] {
        rt.instance(hs[3]).pause().unwrap();
        rt.instance(hs[4]).enabled(false).unwrap();
    }
    let mut out = vec![InstanceRecord::default(); n];
    for frame in 0..40 {
        if frame % 7 == 3 {
            for (k, &h) in hs.iter().enumerate().step_by(11) {
                for rt in [&mut a, &mut b] {
                    rt.instance(h)
                        .crossfade(ClipId::new((frame + k) % 4), 0.2)
                        .unwrap();
                }
            }
        }
        a.update(1.0 / 30.0);
        b.update_into(1.0 / 30.0, &mut out).unwrap();
        assert_eq!(a.records(), &out[..], "frame {frame}");
        assert!(b.records().is_empty());
        assert_eq!(format!("{:?}", a.events()), format!("{:?}", b.events()));
        for (i, &h) in hs.iter().enumerate().step_by(97) {
            assert_eq!(b.record(h).unwrap(), out[i], "frame {frame} instance {i}");
        }
    }
    // a wrong length is refused and advances nothing
    let t = b.time();
    assert!(matches!(
        b.update_into(0.1, &mut out[1..]),
        Err(RuntimeError::RecordCount { .. })
    ));
    assert_eq!(b.time(), t);
    // back to `update`: its own records again, equal to the other runtime's
    a.update(0.05);
    b.update(0.05);
    assert_eq!(a.records(), b.records());
}

#[test]
fn play_layer_adds_a_masked_overlay_over_a_full_weight_base() {
    let mut clips = table(&[
        (1.0, LoopMode::Loop, &[]),
        (0.5, LoopMode::Loop, &[]),
        (0.7, LoopMode::Loop, &[]),
    ]);
    clips[2].additive = Some(0.0);
    let (mut rt, h) = one(&clips, 0, PlayOptions::default());
    rt.instance(h)
        .layer(ClipId::new(1), 3, 0.6, PlayOptions::at(0.1))
        .unwrap();
    rt.update(0.2);
    let r = rt.record(h).unwrap();
    assert_eq!(weights(&r), [1.0, 0.6, 0.0, 0.0]);
    assert_eq!((r.layers[1].clip_index(), r.layers[1].mask()), (1, 3));
    assert_frame(
        &r.layers[0],
        expected(&clips[0], LoopMode::Loop, 0.2),
        TOL,
        "base",
    );
    assert_frame(
        &r.layers[1],
        expected(&clips[1], LoopMode::Loop, 0.3),
        TOL,
        "overlay",
    );
    // the same clip and mask again: a new weight, the same phase
    rt.instance(h)
        .layer(ClipId::new(1), 3, 0.25, PlayOptions::default())
        .unwrap();
    rt.update(0.1);
    let r = rt.record(h).unwrap();
    assert_eq!(weights(&r), [1.0, 0.25, 0.0, 0.0]);
    assert_frame(
        &r.layers[1],
        expected(&clips[1], LoopMode::Loop, 0.4),
        TOL,
        "overlay",
    );
    // an additive clip needs no mask; an ordinary clip does
    rt.instance(h)
        .layer(ClipId::new(2), 0, 1.0, PlayOptions::default())
        .unwrap();
    assert_eq!(rt.record(h).unwrap().layers[2].mask(), 0);
    assert!(matches!(
        rt.instance(h)
            .layer(ClipId::new(1), 0, 1.0, PlayOptions::default()),
        Err(RuntimeError::NotAnOverlay { clip: 1 })
    ));
    assert!(matches!(
        rt.instance(h)
            .layer(ClipId::new(1), 8, 1.0, PlayOptions::default()),
        Err(RuntimeError::NoSuchMask { mask: 8, .. })
    ));
    assert!(rt
        .instance(h)
        .layer(ClipId::new(1), 1, 1.5, PlayOptions::default())
        .is_err());
    // play replaces the overlays
    rt.instance(h)
        .play(ClipId::new(0), PlayOptions::default())
        .unwrap();
    assert_eq!(weights(&rt.record(h).unwrap()), [1.0, 0.0, 0.0, 0.0]);
}
