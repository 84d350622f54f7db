//! Events fire once per crossing of [previous, current) in the direction of play, in both modes.

mod common;
use common::*;
use throng_asset::{ClipInfo, LoopMode};
use throng_runtime::PlaybackControl;
use throng_runtime::{
    ClipId, CpuRuntime, GpuRuntime, InstanceTransform, PlayOptions, PlaybackCommand,
};

/// (event index, time) fired over `steps`, from a single instance, in each mode.
fn fired(
    clips: &[ClipInfo],
    clip: usize,
    opts: PlayOptions,
    steps: &[f64],
) -> [Vec<(u32, f64)>; 2] {
    let mut cpu = CpuRuntime::new(clips);
    let mut gpu = GpuRuntime::new(clips);
    let hc = cpu.spawn(InstanceTransform::IDENTITY);
    let hg = gpu.spawn(InstanceTransform::IDENTITY);
    cpu.instance(hc).play(ClipId::new(clip), opts).unwrap();
    gpu.instance(hg).play(ClipId::new(clip), opts).unwrap();
    let mut out = [Vec::new(), Vec::new()];
    for &dt in steps {
        cpu.update(dt);
        gpu.update(dt);
        for e in cpu.events() {
            assert_eq!(e.instance, hc);
            assert_eq!(e.clip, ClipId::new(clip));
            out[0].push((e.event, e.time));
        }
        for e in gpu.events() {
            assert_eq!(e.instance, hg);
            out[1].push((e.event, e.time));
        }
    }
    out
}

fn assert_fired(got: &[Vec<(u32, f64)>; 2], want: &[(u32, f64)], what: &str) {
    for (m, g) in got.iter().enumerate() {
        let mode = ["cpu", "gpu"][m];
        assert_eq!(
            g.len(),
            want.len(),
            "{what} ({mode}): got {g:?}, want {want:?}"
        );
        for (a, b) in g.iter().zip(want) {
            // gpu-timed times are on the 2^-20 s tick grid
            assert!(
                a.0 == b.0 && (a.1 - b.1).abs() < 4e-6,
                "{what} ({mode}): got {g:?}, want {want:?}"
            );
        }
    }
}

#[test]
fn loop_fires_once_per_lap_with_crossing_times() {
    let clips = table(&[(1.0, LoopMode::Loop, &[0.25])]);
    let got = fired(&clips, 0, PlayOptions::default(), &[0.1; 30]);
    assert_fired(&got, &[(0, 0.25), (0, 1.25), (0, 2.25)], "steps of 0.1 s");
    // a step ending exactly on the event does not fire it; the next one does
    let got = fired(&clips, 0, PlayOptions::default(), &[0.25, 0.25, 1.0]);
    assert_fired(&got, &[(0, 0.25), (0, 1.25)], "step onto the event");
}

#[test]
fn a_step_spanning_many_loops_fires_each() {
    let clips = table(&[(1.0, LoopMode::Loop, &[0.25, 0.5])]);
    let got = fired(&clips, 0, PlayOptions::default(), &[10.4]);
    let mut want = Vec::new();
    for k in 0..11 {
        want.push((0, 0.25 + k as f64));
        if k < 10 {
            want.push((1, 0.5 + k as f64));
        }
    }
    assert_fired(&got, &want, "10.4 s in one step");
}

#[test]
fn event_at_zero_fires_on_the_first_update() {
    let clips = table(&[(1.0, LoopMode::Loop, &[0.0])]);
    let got = fired(&clips, 0, PlayOptions::default(), &[0.5, 0.5, 0.5]);
    assert_fired(&got, &[(0, 0.0), (0, 1.0)], "event at 0");
    // start time: an event exactly there fires on the first update too
    let clips = table(&[(1.0, LoopMode::Loop, &[0.5])]);
    let got = fired(&clips, 0, PlayOptions::at(0.5), &[0.1]);
    assert_fired(&got, &[(0, 0.0)], "event at the start time");
}

#[test]
fn ping_pong_fires_on_the_way_there_and_back_and_once_at_turns() {
    let clips = table(&[(1.0, LoopMode::PingPong, &[0.25, 1.0, 0.0])]);
    let got = fired(&clips, 0, PlayOptions::default(), &[0.3; 10]); // 3.0 s
                                                                    // event 2 at τ = 0 (t = 0, 2), event 0 at τ = 0.25 (t = 0.25, 1.75, 2.25), event 1 at the
                                                                    // far turn (t = 1) — each turn fires once
    let want = [
        (2, 0.0),
        (0, 0.25),
        (1, 1.0),
        (0, 1.75),
        (2, 2.0),
        (0, 2.25),
    ];
    assert_fired(&got, &want, "ping-pong");
    // one huge step
    let got = fired(&clips, 0, PlayOptions::default(), &[3.0]);
    assert_fired(&got, &want, "ping-pong, one step");
}

#[test]
fn once_and_clamp_include_the_end_and_fire_once() {
    for mode in [LoopMode::Once, LoopMode::Clamp] {
        let clips = table(&[(1.0, mode, &[0.5, 1.0])]);
        let got = fired(
            &clips,
            0,
            PlayOptions::default(),
            &[0.4, 0.4, 0.4, 5.0, 5.0],
        );
        assert_fired(&got, &[(0, 0.5), (1, 1.0)], "one-shot");
        let got = fired(&clips, 0, PlayOptions::default(), &[100.0]);
        assert_fired(&got, &[(0, 0.5), (1, 1.0)], "one-shot, one huge step");
        // exactly reaching the end includes e = d
        let got = fired(&clips, 0, PlayOptions::default(), &[1.0, 1.0]);
        assert_fired(&got, &[(0, 0.5), (1, 1.0)], "one-shot, step onto the end");
    }
}

#[test]
fn zero_length_clip_fires_its_event_once() {
    let clips = vec![
        clip(1, 1.0, 30.0, LoopMode::Loop, &[]),
        clip(32, 0.0, 30.0, LoopMode::Once, &[0.0]),
    ];
    let got = fired(&clips, 1, PlayOptions::default(), &[0.1, 0.1, 0.1]);
    assert_fired(&got, &[(0, 0.0)], "zero-length");
}

#[test]
fn events_are_tagged_with_their_instance_across_chunks() {
    let clips = table(&[(1.0, LoopMode::Loop, &[0.5])]);
    let mut rt = CpuRuntime::new(&clips);
    let n = throng_runtime::CHUNK * 3;
    let hs = spawn_playing(&mut rt, n, |i| {
        (0, PlayOptions::at(if i % 2 == 0 { 0.4 } else { 0.0 }))
    });
    rt.update(0.2);
    let ev = rt.events();
    assert_eq!(ev.len(), n / 2);
    for e in ev {
        let i = rt.index(e.instance).unwrap();
        assert_eq!(i % 2, 0);
        assert_eq!(hs[i], e.instance);
        assert!((e.time - 0.1).abs() < 1e-6, "{e:?}");
    }
}

#[test]
fn outgoing_layer_fires_until_the_fade_ends() {
    let clips = table(&[(1.0, LoopMode::Loop, &[0.5]), (1.0, LoopMode::Loop, &[])]);
    let mut cpu = CpuRuntime::new(&clips);
    let mut gpu = GpuRuntime::new(&clips);
    let hc = cpu.spawn(InstanceTransform::IDENTITY);
    let hg = gpu.spawn(InstanceTransform::IDENTITY);
    cpu.instance(hc)
        .play(ClipId::new(0), PlayOptions::default())
        .unwrap();
    gpu.instance(hg)
        .play(ClipId::new(0), PlayOptions::default())
        .unwrap();
    cpu.update(0.2);
    gpu.update(0.2);
    cpu.instance(hc).crossfade(ClipId::new(1), 0.5).unwrap();
    let errs = gpu.apply(&[
        throng_runtime::Change::new(
            hg,
            PlaybackCommand::Crossfade {
                clip: ClipId::new(1),
                seconds: 0.5,
                options: PlayOptions::default(),
            },
        ),
        throng_runtime::Change::new(
            hg,
            PlaybackCommand::Play {
                clip: ClipId::new(9),
                options: PlayOptions::default(),
            },
        ),
    ]);
    assert_eq!(errs.len(), 1);
    assert_eq!(
        errs[0].0, 1,
        "the bad clip index is reported, the crossfade applied"
    );
    let mut got = [Vec::new(), Vec::new()];
    for _ in 0..30 {
        cpu.update(0.1);
        gpu.update(0.1);
        got[0].extend(cpu.events().iter().map(|e| (e.event, e.time)));
        got[1].extend(gpu.events().iter().map(|e| (e.event, e.time)));
    }
    assert_fired(
        &got,
        &[(0, 0.5)],
        "outgoing clip's event before the fade ends only",
    );
}

/// A runaway step costs bounded work: at the highest speed a layer can reach (`MAX_SPEED` for
/// the clip and the instance: 10^6 laps a second) a frame fires the events of its last
/// `MAX_LAPS` laps, and a clock jump of `MAX_STEP_SECONDS` at that speed (10^12 laps) fires
/// none, in either mode (before the cap, a speed of 1e12 ended the process: the crossings of
/// every lap filled memory).
#[test]
fn a_runaway_step_fires_a_bounded_number_of_events() {
    use throng_runtime::{MAX_SPEED, MAX_STEP_SECONDS};
    let clips = table(&[(1.0, LoopMode::Loop, &[0.25, 0.5])]);
    // two events × the laps a step may fire
    let max = 2 * (throng_runtime::MAX_LAPS as usize + 3);
    for dt in [1.0 / 60.0, 1.0, MAX_STEP_SECONDS] {
        let mut cpu = CpuRuntime::new(&clips);
        let mut gpu = GpuRuntime::new(&clips);
        for (name, rt) in [
            ("cpu", &mut cpu as &mut dyn PlaybackControl),
            ("gpu", &mut gpu),
        ] {
            let h = rt.spawn(InstanceTransform::IDENTITY);
            rt.instance(h)
                .play(ClipId::new(0), PlayOptions::default().with_speed(MAX_SPEED))
                .expect("play at the limit");
            rt.instance(h).speed(MAX_SPEED).expect("the limit");
            for _ in 0..2 {
                rt.update(dt);
                let n = rt.events().len();
                assert!(n <= max, "step {dt} s ({name}): {n} events");
            }
        }
    }
}

/// A step of any length is bounded work in both modes (the fuzzer's first find: an empty
/// GPU-timed runtime stepped by 1e30 s walked its timing wheel bucket by bucket forever). The
/// clock advances by at most `MAX_STEP_SECONDS` a step, and the instances still play after it.
#[test]
fn a_step_of_any_length_returns_and_the_clock_stays_bounded() {
    let clips = table(&[
        (1.0, LoopMode::Loop, &[0.25]),
        (0.5, LoopMode::Once, &[0.5]),
    ]);
    for dt in [1e7, 1e30, f64::MAX, 3.0e6] {
        let mut cpu = CpuRuntime::new(&clips);
        let mut gpu = GpuRuntime::new(&clips);
        // an empty runtime first (the find), then one with a looping and a one-shot instance
        cpu.update(dt);
        gpu.update(dt);
        for rt in [&mut cpu as &mut dyn PlaybackControl, &mut gpu] {
            let a = rt.spawn(InstanceTransform::IDENTITY);
            let b = rt.spawn(InstanceTransform::IDENTITY);
            rt.instance(a)
                .play(ClipId::new(0), PlayOptions::default())
                .expect("play");
            rt.instance(b)
                .play(ClipId::new(1), PlayOptions::default())
                .expect("play");
            rt.update(dt);
            rt.update(1.0 / 60.0);
            let want = 2.0 * throng_runtime::MAX_STEP_SECONDS + 1.0 / 60.0;
            assert!(
                (rt.time() - want).abs() < 1e-3,
                "dt {dt}: the clock reads {} s, not {want} s",
                rt.time()
            );
            assert!(rt.is_finished(b).expect("alive"), "dt {dt}");
        }
    }
}

/// Speeds are bounded in one place (`MAX_SPEED`, issue 51): past it, or negative or not a
/// number, a clip's or an instance's speed is refused in both timings and the instance plays
/// on as before; at the limit of both (10^6 × authored) a frame still returns with the events
/// of the last `MAX_LAPS` laps, and at the limit of one every lap's event fires.
#[test]
fn speeds_past_the_limit_are_refused_and_the_limit_is_bounded_work() {
    use throng_runtime::{RuntimeError, MAX_LAPS, MAX_SPEED};
    let clips = table(&[(1.0, LoopMode::Loop, &[0.25])]);
    let mut cpu = CpuRuntime::new(&clips);
    let mut gpu = GpuRuntime::new(&clips);
    for (name, rt) in [
        ("CPU-timed", &mut cpu as &mut dyn PlaybackControl),
        ("GPU-timed", &mut gpu),
    ] {
        let h = rt.spawn(InstanceTransform::IDENTITY);
        rt.instance(h)
            .play(ClipId::new(0), PlayOptions::default())
            .expect("play");
        for bad in [
            1e30,
            f32::MAX,
            f32::INFINITY,
            f32::NAN,
            -1.0,
            MAX_SPEED * 1.001,
        ] {
            let e = rt
                .instance(h)
                .speed(bad)
                .expect_err("a speed past the limit");
            assert!(
                matches!(e, RuntimeError::BadSpeed(s) if s.to_bits() == bad.to_bits()),
                "{name} {bad}: {e:?}"
            );
            assert!(e.to_string().contains("[0, 1000]"), "{e}");
            let e = (rt
                .instance(h)
                .play(ClipId::new(0), PlayOptions::default().with_speed(bad)))
            .expect_err("a clip speed past the limit");
            assert!(
                matches!(e, RuntimeError::BadSpeed(_)),
                "{name} {bad}: {e:?}"
            );
        }
        // refused commands changed nothing: a second of play crosses the event once
        rt.update(1.0);
        assert_eq!(rt.events().len(), 1, "{name}: {:?}", rt.events());

        // one factor at the limit: 1000 laps a second, every lap's event in a 1/60 s frame
        rt.instance(h).speed(MAX_SPEED).expect("the limit itself");
        rt.update(1.0 / 60.0);
        let n = rt.events().len();
        assert!((16..=17).contains(&n), "{name}: {n} events at 1000 laps/s");

        // both at the limit: 10^6 laps a second, the last MAX_LAPS laps' events
        rt.instance(h)
            .play(ClipId::new(0), PlayOptions::default().with_speed(MAX_SPEED))
            .expect("the limit itself");
        for _ in 0..3 {
            rt.update(1.0 / 60.0);
            let n = rt.events().len();
            assert!(
                n <= MAX_LAPS as usize + 2,
                "{name}: {n} events in a frame at 10^6 laps/s"
            );
        }
        // and back to authored speed: one crossing a second again
        rt.instance(h)
            .play(ClipId::new(0), PlayOptions::default())
            .expect("play");
        rt.instance(h).speed(1.0).expect("speed 1");
        rt.update(1.0);
        assert_eq!(rt.events().len(), 1, "{name}: {:?}", rt.events());
    }
}
