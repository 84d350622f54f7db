//! GPU-timed playback: the shaders derive each instance's rows, fracs and weights from
//! throng-runtime's compact record and the clock. Checked against the runtime's CPU twin
//! (`throng_runtime::gpu_layers`) over a day of play with crossfades, blends, every loop mode
//! and several speeds: weights within 1e-6, rows equal and fracs within 1e-4 (docs/design.md §4;
//! a row may differ only where the CPU's frac is within 1e-4 of a frame boundary), and the
//! skinned vertices within 1e-6 of the bounding diagonal of the CPU decoder's.

mod common;

use throng_asset::decode::skin_vertices;
use throng_asset::{Encoding, LoopMode};
use throng_render::compute::{layers_on_gpu, skin_on_gpu};
use throng_render::device::test_gpu;
use throng_render::gpu_asset::skin_inputs;
use throng_render::{GpuAsset, Playback, Records, Skinning};
use throng_runtime::{
    gpu_layers, ClipId, GpuRuntime, InstanceTransform, PlayOptions, PlaybackControl,
};

#[test]
fn gpu_timed_layers_and_skinning_match_the_runtime_over_a_day() {
    let Some(gpu) = test_gpu() else { return };
    let (mut asset, _) = common::random_asset(Encoding::QuatSnorm16, 4, 5);
    asset.clips[0].loop_mode = LoopMode::Loop;
    asset.clips[1].loop_mode = LoopMode::PingPong;
    // A one-shot copy of clip a (same rows) to cover once/held.
    let mut once = asset.clips[0].clone();
    once.name = "a-once".into();
    once.loop_mode = LoopMode::Once;
    asset.clips.push(once);
    let gasset = GpuAsset::new(&gpu, &asset).expect("upload");
    let inputs = skin_inputs(&asset.primitives[0]);

    let mut rt = GpuRuntime::new(&asset.clips);
    let mut handles = vec![];
    for i in 0..12 {
        let h = rt.spawn(InstanceTransform::IDENTITY);
        let opts = PlayOptions::at(0.013 * i as f32).with_speed([1.0, 0.37, 2.5, 1.13][i % 4]);
        rt.instance(h).play(ClipId::new(i % 3), opts).expect("play");
        handles.push(h);
    }
    rt.instance(handles[3])
        .blend(ClipId::new(0), ClipId::new(1), 0.35)
        .expect("blend");
    rt.instance(handles[5]).enabled(false).expect("disable");

    let mut checked = 0;
    let mut t = 0.0f64;
    // Samples over 24 h: dense at the start, then hours apart; crossfades restart each time.
    let steps: Vec<f64> = (0..6)
        .map(|_| 0.0437)
        .chain((0..6).map(|_| 3600.0 * 4.0 + 0.731))
        .collect();
    for (k, dt) in steps.iter().enumerate() {
        rt.update(*dt);
        t += dt;
        if k % 3 == 0 {
            rt.instance(handles[k % 12])
                .crossfade(ClipId::new((k + 1) % 3), 0.25)
                .expect("crossfade");
            rt.update(0.1);
            t += 0.1;
        }
        let clock = rt.gpu_clock();
        let recs = rt.collect_records();
        let play = Playback::Records(Records::Gpu {
            records: &recs,
            clock,
        });
        let got = layers_on_gpu(&gpu, &gasset, play).expect("gpu layers");
        let clip_table = rt.gpu_clip_table().clone();
        let mut cpu_records = vec![];
        for (i, rec) in recs.iter().enumerate() {
            let want = gpu_layers(rec, &clip_table, clock);
            for (l, (g, w)) in got[i].layers.iter().zip(&want.layers).enumerate() {
                let (g, w) = (*g, *w);
                let ctx = format!("t = {t:.3} s, instance {i}, layer {l}: GPU {g:?} vs CPU {w:?}");
                assert!((g.weight - w.weight).abs() <= 1e-6, "{ctx}");
                assert_eq!(g.clip, w.clip, "{ctx}");
                if g.row == w.row {
                    assert!((g.frac - w.frac).abs() <= 1e-4, "{ctx}");
                } else {
                    // Only across a frame boundary: positions row + frac agree within 1e-4.
                    let pg = g.row as f64 + g.frac as f64;
                    let pw = w.row as f64 + w.frac as f64;
                    assert!((pg - pw).abs() <= 1e-4, "{ctx}");
                }
            }
            cpu_records.push(want);
        }
        // Skinning with the GPU-derived layers against the CPU decoder on the CPU twin's layers.
        let out = skin_on_gpu(&gpu, &gasset, &inputs, play, Skinning::Linear).expect("skin");
        for (i, rec) in cpu_records.iter().enumerate() {
            let cpu = skin_vertices(&asset, 0, &rec.layers, Skinning::Linear).expect("cpu");
            let mut b = throng_asset::Aabb::EMPTY;
            cpu.positions.iter().for_each(|p| b.extend(*p));
            let d = b.diagonal();
            for (v, p) in cpu.positions.iter().enumerate() {
                let g = glam::Vec4::from(out[i * inputs.len() + v].position).truncate();
                let e = (g - *p).length() / d;
                assert!(
                    e <= 1e-6,
                    "t = {t:.3} s instance {i} vertex {v}: {g} vs {p} ({e:.2e})"
                );
            }
        }
        checked += recs.len();
    }
    eprintln!("checked {checked} instance-times up to t = {t:.0} s");
}

/// A renderer with the tube uploaded and `n` GPU-timed instances at `at(i)`, each playing
/// clip 0 with `opts(i)` (None without an adapter outside CI).
struct TubeCrowd {
    r: throng_render::Renderer,
    g: GpuAsset,
    rt: GpuRuntime,
    transforms: Vec<InstanceTransform>,
    handles: Vec<throng_runtime::Handle>,
}

fn tube_crowd(
    n: usize,
    at: impl Fn(usize) -> glam::Vec3,
    opts: impl Fn(usize) -> PlayOptions,
) -> Option<TubeCrowd> {
    let r = common::renderer()?;
    let (asset, g) = common::uploaded_tube(&r, Encoding::QuatSnorm16);
    let mut rt = GpuRuntime::new(&asset.clips);
    let mut transforms = Vec::with_capacity(n);
    let mut handles = Vec::with_capacity(n);
    for i in 0..n {
        let t = InstanceTransform::from_mat4(&glam::Mat4::from_translation(at(i)));
        let h = rt.spawn(t);
        rt.instance(h).play(ClipId::new(0), opts(i)).expect("play");
        transforms.push(t);
        handles.push(h);
    }
    Some(TubeCrowd {
        r,
        g,
        rt,
        transforms,
        handles,
    })
}

/// A GPU-timed crowd draws the same picture as the CPU-timed crowd whose records are the
/// runtime's CPU twin of the same clock (culling on, texture path and VAT-free asset).
#[test]
fn gpu_timed_draw_equals_cpu_timed_draw() {
    let Some(TubeCrowd {
        mut r,
        g,
        mut rt,
        transforms,
        ..
    }) = tube_crowd(
        6,
        |i| glam::Vec3::new(i as f32 * 1.3, 0.0, 0.0),
        |i| PlayOptions::at(0.05 * i as f32).with_speed(0.5 + 0.3 * i as f32),
    )
    else {
        return;
    };
    rt.update(3600.0 + 0.123);
    let clock = rt.gpu_clock();
    let records = rt.collect_records();
    let cpu: Vec<_> = records
        .iter()
        .map(|rec| gpu_layers(rec, rt.gpu_clip_table(), clock))
        .collect();
    let opts = throng_render::RenderOptions {
        width: 160,
        height: 120,
        ..Default::default()
    };
    let timed = r
        .render_playback(
            &g,
            &transforms,
            Playback::Records(Records::Gpu {
                records: &records,
                clock,
            }),
            &opts,
        )
        .expect("gpu-timed render");
    let plain = r
        .render_texture(&g, &transforms, &cpu, &opts)
        .expect("cpu-timed render");
    let total = (opts.width * opts.height) as usize;
    let differ = common::differ_count(&timed, &plain);
    assert!(differ <= total / 500, "{differ} pixels differ");
    assert!(
        timed.pixels().any(|p| p[0] > 150 && p[2] < 80),
        "no tube drawn"
    );
}

/// A GPU-timed crowd kept in a `CrowdUpload` across frames, updated with only its dirty records,
/// draws exactly what the same records drawn afresh each frame draw; a frame in which 2 of 40
/// instances change writes those 2 records (56 B each) and the clock, not all 40 records or the
/// transforms; a CPU-timed upload writes every record.
#[test]
fn uploads_follow_changes() {
    let Some(TubeCrowd {
        mut r,
        g,
        mut rt,
        transforms,
        handles,
    }) = tube_crowd(
        40,
        |i| glam::Vec3::new((i % 8) as f32 * 1.3, 0.0, (i / 8) as f32 * -1.5),
        |i| PlayOptions::at(0.05 * i as f32),
    )
    else {
        return;
    };
    let opts = throng_render::RenderOptions {
        width: 160,
        height: 120,
        ..Default::default()
    };
    let device = r.gpu.device.clone();
    let mut up = throng_render::CrowdUpload::new(&device, throng_render::Timing::Gpu);
    let record = std::mem::size_of::<throng_render::GpuInstanceRecord>() as u64;
    let clock_bytes = 16;
    for frame in 0..3 {
        rt.update(0.37);
        if frame == 2 {
            rt.instance(handles[3]).speed(2.0).expect("speed");
            rt.instance(handles[17]).pause().expect("pause");
        }
        let first = frame == 0;
        assert_eq!(up.needs_all_records(rt.len()), first);
        let all = rt.collect_records();
        let writes = rt.record_writes().to_vec();
        let update = if first {
            throng_render::RecordUpdate::All(&all)
        } else {
            throng_render::RecordUpdate::Writes {
                len: rt.len(),
                writes: &writes,
            }
        };
        let bytes = up
            .update_gpu_timed(&r.gpu, update, &transforms, first, rt.gpu_clock())
            .expect("upload");
        rt.clear_dirty();
        // a write is the record and its index (64 B); the scatter's parameters are 16 B
        let write = std::mem::size_of::<throng_render::GpuRecordWrite>() as u64;
        if first {
            assert_eq!(bytes, 40 * (record + 48) + clock_bytes);
        } else if frame == 2 {
            assert_eq!(writes.len(), 2);
            assert_eq!(bytes, 2 * write + 16 + clock_bytes, "writes {writes:?}");
        }
        let kept = r
            .render_playback(&g, &transforms, Playback::Uploaded(&up), &opts)
            .expect("uploaded render");
        let fresh = r
            .render_playback(
                &g,
                &transforms,
                Playback::Records(Records::Gpu {
                    records: &all,
                    clock: rt.gpu_clock(),
                }),
                &opts,
            )
            .expect("fresh render");
        assert_eq!(kept, fresh, "frame {frame}");
        assert!(
            kept.pixels().any(|p| p[0] > 150 && p[2] < 80),
            "no tube drawn"
        );
    }
    // The compute twins read an upload's records too.
    let records = rt.collect_records();
    let direct = Playback::Records(Records::Gpu {
        records: &records,
        clock: rt.gpu_clock(),
    });
    assert_eq!(
        layers_on_gpu(&r.gpu, &g, Playback::Uploaded(&up)).expect("layers"),
        layers_on_gpu(&r.gpu, &g, direct).expect("layers")
    );
    // CPU-timed: every record, every frame.
    let mut cpu_up = throng_render::CrowdUpload::new(&device, throng_render::Timing::Cpu);
    let cpu: Vec<_> = records
        .iter()
        .map(|rec| gpu_layers(rec, rt.gpu_clip_table(), rt.gpu_clock()))
        .collect();
    let b0 = cpu_up
        .update_cpu_timed(&r.gpu, &cpu, &transforms, true)
        .expect("cpu upload");
    let b1 = cpu_up
        .update_cpu_timed(&r.gpu, &cpu, &transforms, false)
        .expect("cpu upload");
    assert_eq!((b0, b1), (40 * (64 + 48), 40 * 64));
    // written in place: the records go straight into the staging memory
    let mut in_place = throng_render::CrowdUpload::new(&device, throng_render::Timing::Cpu);
    for first in [true, false] {
        let b = in_place
            .update_cpu_timed_in_place(&r.gpu, cpu.len(), &transforms, first, |out| {
                out.copy_from_slice(&cpu);
                Ok::<(), throng_render::RenderError>(())
            })
            .expect("in-place upload");
        assert_eq!(b, if first { 40 * (64 + 48) } else { 40 * 64 });
    }
    let placed = r
        .render_playback(&g, &transforms, Playback::Uploaded(&in_place), &opts)
        .expect("in-place render");
    let kept = r
        .render_playback(&g, &transforms, Playback::Uploaded(&cpu_up), &opts)
        .expect("cpu uploaded render");
    let fresh = r
        .render_texture(&g, &transforms, &cpu, &opts)
        .expect("cpu render");
    assert_eq!(kept, fresh);
    assert_eq!(placed, fresh);
}
