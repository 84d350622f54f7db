//! The CPU-timed runtime's compact state (`src/compact.rs`, docs/design.md §4) against the
//! full state it stands for: two runtimes, one keeping eligible instances compact (the
//! default) and one with `set_compact_state(false)`, play the same crowd — loops without
//! events, a loop with a clip event and one of listed frames (compact), a ping-pong and a
//! one-shot (never compact),
//! blends at a few weights and instance speeds from a small set and from a continuous range —
//! through 600 frames of random playback calls (play, crossfade, blend, speed, pause, resume,
//! seek, an overlay layer, despawn and spawn) and frame lengths, with steps of minutes that
//! move the compact state's epoch (every 2^31 ticks, 34 minutes). After every frame: the same
//! clips and weights to the bit, positions (row + frac) within 1e-5 frames (the compact
//! phases round to 2^-33 cycles: ~1e-8 frames here), the same events and completions (times
//! within 1e-6 s), and `layer_times` within 1e-6 s.

mod common;
use common::*;
use throng_asset::LoopMode;
use throng_runtime::crowd::SplitMix64;
use throng_runtime::{
    ClipId, CpuRuntime, Handle, InstanceRecord, InstanceTransform, PlayOptions, PlaybackControl,
};

/// The crate's seeded stream, with what these tests draw from it.
struct Rng(SplitMix64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0.next_u64() % n
    }
    fn unit(&mut self) -> f64 {
        self.0.unit()
    }
}

fn close(a: &InstanceRecord, b: &InstanceRecord, periods: &[f64], at: &str) {
    for (l, (x, y)) in a.layers.iter().zip(&b.layers).enumerate() {
        assert_eq!(x.clip, y.clip, "{at}, layer {l}: {x:?} vs {y:?}");
        assert_eq!(x.weight.to_bits(), y.weight.to_bits(), "{at}, layer {l}");
        if x.weight == 0.0 && x.row == 0.0 {
            continue;
        }
        let d = (x.row as f64 + x.frac as f64 - (y.row as f64 + y.frac as f64)).abs();
        // across a loop's seam the same time shows as the first or the last frame
        let period = periods[x.clip_index() as usize];
        let d = d.min((d - period).abs());
        assert!(d <= 1e-5, "{at}, layer {l}: {x:?} vs {y:?}");
    }
}

#[test]
fn the_compact_state_plays_what_the_full_state_plays() {
    let mut clips = table(&[
        (1.0, LoopMode::Loop, &[]),
        (0.7, LoopMode::Loop, &[]),
        (1.3, LoopMode::Loop, &[0.4]),
        (1.2, LoopMode::PingPong, &[]),
        (1.5, LoopMode::Once, &[0.75]),
        (2.0, LoopMode::Loop, &[]),
    ]);
    // clip 5's frames listed, not uniform (as an error-budgeted bake places them): frame k at
    // d · (k/L)^1.5
    let c = &mut clips[5];
    let last = (c.frames - 1) as f64;
    c.times = Some(
        (0..c.frames)
            .map(|k| (c.duration * (k as f64 / last).powf(1.5)) as f32)
            .collect(),
    );
    let periods: Vec<f64> = clips.iter().map(|c| (c.frames - 1) as f64).collect();
    let n = throng_runtime::CHUNK + 600;
    let mut a = CpuRuntime::new(&clips);
    let mut b = CpuRuntime::new(&clips);
    b.set_compact_state(false);
    let mut rng = Rng(SplitMix64(0x0063_6f6d_7061_6374));
    let mut hs: Vec<Handle> = Vec::new();
    let speeds = [0.5f32, 1.0, 1.5];
    let play = |rt: &mut CpuRuntime, h: Handle, k: u64, x: f64| {
        let c = ClipId::new((k % 6) as usize);
        match k % 4 {
            0 => rt.instance(h).blend(
                ClipId::new(0),
                ClipId::new(1),
                [0.25, 0.5][(k / 4 % 2) as usize],
            ),
            1 => rt.instance(h).play(c, PlayOptions::at(x as f32)),
            2 => rt.instance(h).crossfade(c, 0.3),
            _ => rt
                .instance(h)
                .play(ClipId::new(5), PlayOptions::at(x as f32).with_speed(1.25)),
        }
        .map(|_| ())
        .expect("playback call");
    };
    for i in 0..n {
        let h = a.spawn(InstanceTransform::IDENTITY);
        assert_eq!(b.spawn(InstanceTransform::IDENTITY), h);
        let (k, x) = (rng.below(1 << 20), rng.unit());
        for rt in [&mut a, &mut b] {
            play(rt, h, k, x);
            if i % 3 == 0 {
                rt.instance(h).speed(speeds[i % 3]).expect("speed");
            }
        }
        hs.push(h);
    }
    let (mut most_compact, mut events, mut rebased) = (0, 0, 0u32);
    let mut simulated = 0.0f64;
    for frame in 0..600 {
        // ~1 % of the instances get a call
        for _ in 0..n / 100 {
            let j = rng.below(hs.len() as u64) as usize;
            let h = hs[j];
            let (what, k, x) = (rng.below(9), rng.below(1 << 20), rng.unit());
            for rt in [&mut a, &mut b] {
                let call = match what {
                    0..=2 => {
                        play(rt, h, k, x);
                        continue;
                    }
                    3 => rt.instance(h).speed(speeds[(k % 3) as usize]),
                    4 => rt.instance(h).speed(0.5 + x as f32),
                    5 => rt.instance(h).pause(),
                    6 => rt.instance(h).resume(),
                    7 => rt.instance(h).seek(x as f32),
                    // an overlay: refused on a full instance, the same on both
                    _ => match rt
                        .instance(h)
                        .layer(ClipId::new(5), 1, 0.5, PlayOptions::default())
                    {
                        Err(throng_runtime::RuntimeError::LayersFull { .. }) => continue,
                        other => other,
                    },
                };
                call.expect("playback call");
            }
        }
        // now and then an instance goes and another comes
        if frame % 50 == 7 {
            let j = rng.below(hs.len() as u64) as usize;
            let h = hs.swap_remove(j);
            a.despawn(h).expect("despawn");
            b.despawn(h).expect("despawn");
            let h = a.spawn(InstanceTransform::IDENTITY);
            assert_eq!(b.spawn(InstanceTransform::IDENTITY), h);
            for rt in [&mut a, &mut b] {
                play(rt, h, frame as u64, 0.1);
            }
            hs.push(h);
        }
        // mostly frames; every 100th a step of minutes (the epoch moves every 34)
        let dt = if frame % 100 == 99 {
            rebased += 1;
            1_000.0 + rng.unit()
        } else {
            1.0 / 120.0 + rng.unit() * (1.0 / 30.0 - 1.0 / 120.0)
        };
        simulated += dt;
        a.update(dt);
        b.update(dt);
        for (i, (x, y)) in a.records().iter().zip(b.records()).enumerate() {
            close(x, y, &periods, &format!("frame {frame}, instance {i}"));
        }
        let ev = |rt: &CpuRuntime| -> Vec<(Handle, u32, u32, f64)> {
            (rt.events().iter())
                .map(|e| (e.instance, e.clip.index() as u32, e.event, e.time))
                .collect()
        };
        let (ea, eb) = (ev(&a), ev(&b));
        assert_eq!(ea.len(), eb.len(), "frame {frame}: events");
        for (x, y) in ea.iter().zip(&eb) {
            assert_eq!((x.0, x.1, x.2), (y.0, y.1, y.2), "frame {frame}");
            assert!((x.3 - y.3).abs() <= 1e-6, "frame {frame}: {x:?} vs {y:?}");
        }
        events += ea.len();
        assert_eq!(a.finished().len(), b.finished().len(), "frame {frame}");
        if frame % 20 == 0 {
            for &h in hs.iter().step_by(37) {
                let (x, y) = (a.layer_times(h).unwrap(), b.layer_times(h).unwrap());
                assert_eq!(x.len(), y.len());
                for (p, q) in x.iter().zip(&y) {
                    assert_eq!((p.0, p.1.to_bits()), (q.0, q.1.to_bits()));
                    let d = clips[p.0].duration;
                    let dt = (p.2 - q.2).abs();
                    assert!(
                        dt.min((dt - d).abs()) <= 1e-6,
                        "frame {frame}: {p:?} vs {q:?}"
                    );
                }
            }
        }
        most_compact = most_compact.max(a.compact_counts().0);
    }
    assert_eq!(b.compact_counts().0, 0);
    let (live, sets) = a.compact_counts();
    assert!(
        most_compact > n / 3,
        "{most_compact} of {n} compact at most"
    );
    assert!(events > 1_000, "{events} events");
    println!(
        "{n} instances × 600 frames ({simulated:.0} s simulated, {rebased} steps of minutes): \
         records, events and layer times agree; {live} compact at the end in {sets} sets \
         (at most {most_compact})"
    );
}

/// A crowd at a few speeds shares a few sets; past the cap on distinct sets (every instance at
/// a speed of its own) instances keep their full state and still play what it plays.
#[test]
fn sets_are_shared_and_capped() {
    let clips = table(&[(1.0, LoopMode::Loop, &[])]);
    let periods = [(clips[0].frames - 1) as f64];
    let crowd = |n: usize, speed: &dyn Fn(usize) -> f32, compact: bool| {
        let mut rt = CpuRuntime::new(&clips);
        rt.set_compact_state(compact);
        for i in 0..n {
            let h = rt.spawn(InstanceTransform::IDENTITY);
            rt.instance(h)
                .play(ClipId::new(0), PlayOptions::at(0.001 * (i % 1000) as f32))
                .unwrap();
            rt.instance(h).speed(speed(i)).unwrap();
        }
        rt
    };
    let mut rt = crowd(1000, &|i| [0.5, 1.0, 2.0][i % 3], true);
    rt.update(1.0 / 60.0);
    rt.update(1.0 / 60.0);
    assert_eq!(rt.compact_counts(), (1000, 3));
    // 70,000 speeds: 65,536 sets, the rest on the full state
    let n = 70_000;
    let speed = |i: usize| 0.5 + i as f32 / n as f32;
    let (mut a, mut b) = (crowd(n, &speed, true), crowd(n, &speed, false));
    for frame in 0..3 {
        a.update(1.0 / 60.0);
        b.update(1.0 / 60.0);
        for (i, (x, y)) in a.records().iter().zip(b.records()).enumerate() {
            close(x, y, &periods, &format!("frame {frame}, instance {i}"));
        }
    }
    assert_eq!(a.compact_counts(), (1 << 16, 1 << 16));
}

/// A step past the clock's longest (`MAX_STEP_SECONDS`, a clock jump) counts as that on the
/// full state as on the compact state, which follows the clock.
#[test]
fn a_clock_jump_moves_compact_and_full_states_alike() {
    let clips = table(&[(1.0, LoopMode::Loop, &[])]);
    let periods = [(clips[0].frames - 1) as f64];
    let (mut a, mut b) = (CpuRuntime::new(&clips), CpuRuntime::new(&clips));
    b.set_compact_state(false);
    for rt in [&mut a, &mut b] {
        let h = rt.spawn(InstanceTransform::IDENTITY);
        rt.instance(h)
            .play(ClipId::new(0), PlayOptions::at(0.0))
            .unwrap();
        for _ in 0..3 {
            rt.update(1.0 / 60.0);
        }
    }
    assert_eq!(a.compact_counts().0, 1);
    for dt in [throng_runtime::MAX_STEP_SECONDS + 0.25, 1e30, 1.0 / 60.0] {
        a.update(dt);
        b.update(dt);
        close(
            &a.records()[0],
            &b.records()[0],
            &periods,
            &format!("step {dt}"),
        );
    }
}
