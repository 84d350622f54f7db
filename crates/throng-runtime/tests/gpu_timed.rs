//! GPU-timed mode: the GPU function against f64 truth, weights, dirty lists.

mod common;
use common::*;
use throng_asset::LoopMode;
use throng_runtime::{
    gpu_layers, ClipId, GpuRuntime, InstanceTransform, PlayOptions, PlaybackCommand,
    PlaybackControl,
};

struct Rng(u64);
impl Rng {
    fn f(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Rows equal except within 1e-4 frames of a row boundary; frac within 1e-4 (docs/design.md §4).
fn agree(g: &throng_asset::Layer, e: &throng_asset::Layer, period: f64, what: &str) {
    assert!(
        (g.weight - e.weight).abs() < 1e-5,
        "{what}: weight {g:?} vs {e:?}"
    );
    assert_eq!(g.clip, e.clip, "{what}");
    if g.row == e.row {
        assert!(
            (g.frac - e.frac).abs() <= 1e-4,
            "{what}: frac {g:?} vs {e:?}"
        );
    } else {
        let a = g.row as f64 + g.frac as f64;
        let b = e.row as f64 + e.frac as f64;
        let d = (a - b).abs();
        let d = if period > 0.0 {
            d.min((d - period).abs())
        } else {
            d
        };
        assert!(d <= 1e-4, "{what}: row {g:?} vs {e:?}");
    }
}

#[test]
fn gpu_function_matches_f64_truth_for_random_playback_over_a_day() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let modes = [
        LoopMode::Loop,
        LoopMode::Once,
        LoopMode::Clamp,
        LoopMode::PingPong,
    ];
    let specs: Vec<(f64, LoopMode, &[f32])> = (0..24)
        .map(|i| (0.3 + 6.0 * rng.f(), modes[i % 4], &[][..]))
        .collect();
    let clips = table(&specs);
    let mut rt = GpuRuntime::new(&clips);
    let gclips = rt.gpu_clip_table().clone();
    let hs: Vec<_> = (0..200)
        .map(|_| rt.spawn(InstanceTransform::IDENTITY))
        .collect();
    let mut t = 0.0;
    while t < 86_400.0 {
        // random changes
        for &h in &hs {
            let r = rng.f();
            let clip = (rng.f() * clips.len() as f64) as usize;
            if r < 0.05 {
                let opts = PlayOptions::at((rng.f() * 3.0) as f32)
                    .with_speed((0.1 + 2.9 * rng.f()) as f32);
                rt.instance(h).play(ClipId::new(clip), opts).unwrap();
            } else if r < 0.08 {
                rt.instance(h)
                    .crossfade(ClipId::new(clip), (0.1 + rng.f()) as f32)
                    .unwrap();
            } else if r < 0.09 {
                rt.instance(h)
                    .blend(
                        ClipId::new(clip),
                        ClipId::new((clip + 1) % clips.len()),
                        rng.f() as f32,
                    )
                    .unwrap();
            } else if r < 0.095 {
                rt.instance(h).speed((rng.f() * 2.0) as f32).unwrap();
            }
        }
        let dt = if rng.f() < 0.5 {
            rng.f() * 0.1
        } else {
            rng.f() * 4000.0
        };
        t += dt;
        rt.update(dt);
        let clock = rt.gpu_clock();
        for &h in &hs {
            let g = gpu_layers(&rt.record(h).unwrap(), &gclips, clock);
            let e = rt.exact_record(h).unwrap();
            for k in 0..4 {
                let clip = e.layers[k].clip_index() as usize;
                let period = (clips[clip].frames - 1) as f64;
                agree(
                    &g.layers[k],
                    &e.layers[k],
                    period,
                    &format!("t={t} layer {k}"),
                );
            }
        }
    }
}

#[test]
fn crossfade_and_blend_weights_on_the_gpu_clock() {
    let clips = table(&[(1.0, LoopMode::Loop, &[]), (0.5, LoopMode::Loop, &[])]);
    let mut rt = GpuRuntime::new(&clips);
    let gc = rt.gpu_clip_table().clone();
    let h = rt.spawn(InstanceTransform::IDENTITY);
    rt.instance(h)
        .play(ClipId::new(0), PlayOptions::default())
        .unwrap();
    rt.update(0.5);
    rt.instance(h).crossfade(ClipId::new(1), 0.5).unwrap();
    let rec = rt.record(h).unwrap();
    for k in 0..5 {
        // the record is not rewritten during the fade: the GPU derives the weights
        let clock = rt.gpu_clock();
        let r = gpu_layers(&rec, &gc, clock);
        let f = (k as f32 * 0.2).min(1.0);
        assert!(
            (r.layers[1].weight - f).abs() < 1e-5 && (r.layers[0].weight - (1.0 - f)).abs() < 1e-5,
            "{k}: {r:?}"
        );
        assert_frame(
            &r.layers[0],
            expected(&clips[0], LoopMode::Loop, 0.5 + 0.1 * k as f64),
            1e-4,
            "out",
        );
        assert_frame(
            &r.layers[1],
            expected(&clips[1], LoopMode::Loop, 0.1 * k as f64),
            1e-4,
            "in",
        );
        rt.clear_dirty();
        rt.update(0.1);
        if k < 4 {
            assert!(rt.dirty().is_empty(), "no writes during the fade");
        }
    }
    // at the fade end the record is rewritten with the incoming clip alone
    assert_eq!(rt.dirty(), &[0]);
    let r = gpu_layers(&rt.record(h).unwrap(), &gc, rt.gpu_clock());
    assert_eq!(
        (r.layers[0].weight, r.layers[0].clip, r.layers[1].weight),
        (1.0, 1, 0.0)
    );
    // blend
    rt.instance(h)
        .blend(ClipId::new(0), ClipId::new(1), 0.25)
        .unwrap();
    rt.update(0.3);
    let r = gpu_layers(&rt.record(h).unwrap(), &gc, rt.gpu_clock());
    assert_eq!((r.layers[0].weight, r.layers[1].weight), (0.75, 0.25));
    let cycle = 0.75 * 1.0 + 0.25 * 0.5;
    let phase = 0.3 / cycle;
    assert_frame(
        &r.layers[0],
        expected(&clips[0], LoopMode::Loop, phase),
        1e-3,
        "a",
    );
    assert_frame(
        &r.layers[1],
        expected(&clips[1], LoopMode::Loop, phase * 0.5),
        1e-3,
        "b",
    );
}

#[test]
fn only_changed_instances_are_written() {
    let clips = table(&[(1.0, LoopMode::Loop, &[]), (1.0, LoopMode::Once, &[])]);
    let mut rt = GpuRuntime::new(&clips);
    let hs = spawn_playing(&mut rt, 10_000, |i| {
        (0, PlayOptions::at((i % 30) as f32 / 30.0))
    });
    assert_eq!(rt.dirty().len(), 10_000);
    rt.clear_dirty();
    for _ in 0..120 {
        rt.update(1.0 / 60.0);
        assert!(rt.dirty().is_empty());
    }
    rt.instance(hs[7])
        .play(ClipId::new(1), PlayOptions::default())
        .unwrap();
    rt.instance(hs[9000]).enabled(false).unwrap();
    rt.instance(hs[8]).enabled(false).unwrap();
    // the writes sent to the GPU: each changed instance once, with its current record
    let writes = rt.record_writes();
    let mut got: Vec<u32> = writes.iter().map(|w| w.index).collect();
    got.sort_unstable();
    assert_eq!(got, vec![7, 8, 9000]);
    for w in writes {
        assert_eq!(w.record, rt.record(hs[w.index as usize]).unwrap());
    }
    assert_eq!(writes[0].record.flags & throng_contract::GPU_ENABLED, 1);
    rt.clear_dirty();
    // the one-shot is rewritten once, when it ends (HELD), and reports completion
    let mut writes = 0;
    let mut done = 0;
    for _ in 0..120 {
        rt.update(1.0 / 60.0);
        writes += rt.dirty().len();
        done += rt.finished().len();
        rt.clear_dirty();
    }
    assert_eq!((writes, done), (1, 1));
    assert!(rt.is_finished(hs[7]).unwrap());
    let r = gpu_layers(
        &rt.record(hs[7]).unwrap(),
        rt.gpu_clip_table(),
        rt.gpu_clock(),
    );
    assert_eq!(
        (r.layers[0].row, r.layers[0].frac),
        ((clips[1].first_row + 30) as f32, 0.0)
    );
    let r = gpu_layers(
        &rt.record(hs[8]).unwrap(),
        rt.gpu_clip_table(),
        rt.gpu_clock(),
    );
    assert_eq!(r, Default::default(), "disabled");
    // despawn moves the last instance: its new index is dirty
    rt.despawn(hs[0]).unwrap();
    assert_eq!(rt.dirty(), &[0]);
    assert_eq!(rt.handle_at(0), Some(hs[9999]));
    assert_eq!(rt.handle_at(9999), None);
}

/// A long batch (prefetching ahead; crossfades keep the outgoing layer's record) leaves exactly
/// the state, records, dirty set, schedule and errors of the same changes made one at a time.
#[test]
fn batched_changes_equal_single_calls() {
    // below the size where `apply` buckets a batch: applied in batch order
    batch_equals_single_calls(20_000);
}

/// The same on a store large enough that `apply` visits a long batch in instance order
/// (bucketed): the same states, records, record writes (as a set: their order is not part of
/// the contract), errors in batch order, schedule and events.
#[test]
fn bucketed_batches_equal_single_calls() {
    batch_equals_single_calls(70_000);
}

fn batch_equals_single_calls(n: usize) {
    use throng_runtime::{Change, RuntimeError};
    let clips = table(&[
        (1.0, LoopMode::Loop, &[0.5]),
        (0.7, LoopMode::Loop, &[]),
        (1.2, LoopMode::PingPong, &[0.3]),
        (1.5, LoopMode::Once, &[0.75]),
    ]);
    let mut a = GpuRuntime::new(&clips);
    let mut b = GpuRuntime::new(&clips);
    let mut hs = Vec::new();
    for i in 0..n {
        let h = a.spawn(InstanceTransform::IDENTITY);
        assert_eq!(b.spawn(InstanceTransform::IDENTITY), h);
        let start = PlayOptions::at((i % 17) as f32 / 17.0);
        a.instance(h).play(ClipId::new(i % 3), start).unwrap();
        b.instance(h).play(ClipId::new(i % 3), start).unwrap();
        hs.push(h);
    }
    // a dead handle, in both
    a.despawn(hs[5]).unwrap();
    b.despawn(hs[5]).unwrap();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for frame in 0..20 {
        a.clear_dirty();
        b.clear_dirty();
        let changes: Vec<Change> = (0..6000)
            .map(|k| {
                // repeated instances (same instance changed twice in one batch) included
                let h = hs[(rng.f() * (n as f64 / 4.0)) as usize * 4 % n];
                let clip = ClipId::new((rng.f() * 5.0) as usize); // 4 = no such clip
                let fade = |seconds| PlaybackCommand::Crossfade {
                    clip,
                    seconds,
                    options: PlayOptions::default(),
                };
                let c = match k % 9 {
                    0 => PlaybackCommand::Play {
                        clip,
                        options: PlayOptions::default(),
                    },
                    1 => PlaybackCommand::Blend {
                        a: ClipId::new(0),
                        b: ClipId::new(1),
                        weight: rng.f() as f32,
                    },
                    2 => PlaybackCommand::Speed(0.5 + rng.f() as f32),
                    3 => PlaybackCommand::Pause,
                    4 => PlaybackCommand::Resume,
                    5 => PlaybackCommand::Seek(rng.f() as f32),
                    6 => PlaybackCommand::Enable(k % 2 == 0),
                    7 => fade(-1.0),
                    _ => fade(0.25),
                };
                Change::new(h, c)
            })
            .collect();
        let errs = a.apply(&changes);
        let mut want: Vec<(usize, RuntimeError)> = Vec::new();
        for (k, c) in changes.iter().enumerate() {
            // the same change, one call at a time
            if let Err(e) = b.command(c.handle, c.command) {
                want.push((k, e));
            }
        }
        assert!(!want.is_empty(), "the batch holds failing changes");
        assert_eq!(format!("{errs:?}"), format!("{want:?}"), "frame {frame}");
        assert_eq!(a.collect_records(), b.collect_records(), "frame {frame}");
        let (mut da, mut db) = (a.dirty().to_vec(), b.dirty().to_vec());
        da.sort_unstable();
        db.sort_unstable();
        assert_eq!(da, db, "frame {frame}");
        let writes = |rt: &GpuRuntime| {
            let mut w = rt.record_writes().to_vec();
            w.sort_unstable_by_key(|w| w.index);
            bytemuck::cast_slice::<_, u8>(&w).to_vec()
        };
        assert!(
            writes(&a) == writes(&b),
            "frame {frame}: record writes differ"
        );
        for _ in 0..3 {
            a.update(1.0 / 60.0);
            b.update(1.0 / 60.0);
            assert_eq!(format!("{:?}", a.events()), format!("{:?}", b.events()));
            assert_eq!(a.collect_records(), b.collect_records(), "frame {frame}");
        }
    }
}

/// The record writes are what a GPU buffer needs: scattering a frame's writes into the
/// previous frame's records gives every current record, each index is written once, and each
/// write holds its instance's current record — through batches (repeats included), single
/// changes, transform moves, spawns, despawns (which move an instance onto the gone one's
/// index) and updates that end fades and one-shots.
#[test]
fn record_writes_bring_last_frames_records_up_to_date() {
    use throng_runtime::Change;
    let clips = table(&[
        (1.0, LoopMode::Loop, &[0.5]),
        (0.7, LoopMode::Loop, &[]),
        (0.4, LoopMode::Once, &[]),
        (1.2, LoopMode::PingPong, &[]),
    ]);
    let mut rt = GpuRuntime::new(&clips);
    let mut rng = Rng(0x5eed_0f11_5700);
    let mut hs: Vec<_> = (0..3000)
        .map(|i| {
            let h = rt.spawn(InstanceTransform::IDENTITY);
            rt.instance(h)
                .play(ClipId::new(i % 4), PlayOptions::default())
                .unwrap();
            h
        })
        .collect();
    let mut gpu = rt.collect_records();
    rt.clear_dirty();
    for frame in 0..60 {
        let pick = |rng: &mut Rng, hs: &[throng_runtime::Handle]| {
            hs[(rng.f() * hs.len() as f64) as usize % hs.len()]
        };
        let batch: Vec<Change> = (0..400)
            .map(|k| {
                let h = pick(&mut rng, &hs);
                let clip = (rng.f() * 4.0) as usize;
                match k % 5 {
                    0 => Change::new(h, PlaybackCommand::Speed(0.5 + rng.f() as f32)),
                    1 => Change::new(
                        h,
                        PlaybackCommand::Play {
                            clip: ClipId::new(clip),
                            options: PlayOptions::default(),
                        },
                    ),
                    _ => Change::new(
                        h,
                        PlaybackCommand::Crossfade {
                            clip: ClipId::new(clip),
                            seconds: 0.2,
                            options: Default::default(),
                        },
                    ),
                }
            })
            .collect();
        assert!(rt.apply(&batch).is_empty());
        for _ in 0..20 {
            let h = pick(&mut rng, &hs);
            rt.instance(h)
                .crossfade(ClipId::new((rng.f() * 4.0) as usize), 0.1)
                .unwrap();
        }
        let h = pick(&mut rng, &hs);
        rt.set_transform(h, InstanceTransform::IDENTITY).unwrap();
        // despawns, first of listed and of unlisted instances, and spawns
        for _ in 0..3 {
            let k = (rng.f() * hs.len() as f64) as usize % hs.len();
            rt.despawn(hs.swap_remove(k)).unwrap();
        }
        if frame % 4 == 0 {
            let h = rt.spawn(InstanceTransform::IDENTITY);
            rt.instance(h)
                .play(ClipId::new(1), PlayOptions::default())
                .unwrap();
            hs.push(h);
        }
        rt.update(1.0 / 30.0);
        let writes = rt.record_writes();
        let idx: Vec<u32> = writes.iter().map(|w| w.index).collect();
        assert_eq!(
            idx,
            rt.dirty(),
            "frame {frame}: the dirty list is the writes' indices"
        );
        let mut sorted = idx.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(
            sorted.len(),
            idx.len(),
            "frame {frame}: an index written twice"
        );
        gpu.resize(rt.len(), Default::default());
        for w in writes {
            assert!(
                (w.index as usize) < rt.len(),
                "frame {frame}: write past the end"
            );
            let h = rt.handle_at(w.index as usize).unwrap();
            assert_eq!(
                w.record,
                rt.record(h).unwrap(),
                "frame {frame}: stale write"
            );
            gpu[w.index as usize] = w.record;
        }
        assert_eq!(gpu, rt.collect_records(), "frame {frame}");
        rt.clear_dirty();
        assert!(rt.record_writes().is_empty() && rt.dirty().is_empty());
    }
}
