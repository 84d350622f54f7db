//! `cargo bench -p throng-runtime`: frame cost of both modes on the built-in clip table.

use criterion::{criterion_group, criterion_main, Criterion};
use throng_runtime::testing::synthetic_clips;
use throng_runtime::{
    Change, ClipId, CpuRuntime, GpuRuntime, InstanceTransform, PlaybackCommand, PlaybackControl,
};

const N: usize = 1_000_000;

fn cpu_timed(c: &mut Criterion) {
    let clips = synthetic_clips();
    let mut rt = CpuRuntime::new(&clips);
    for _ in 0..N {
        let h = rt.spawn(InstanceTransform::IDENTITY);
        let _ = rt.instance(h).blend(ClipId::new(0), ClipId::new(1), 0.5);
    }
    let mut g = c.benchmark_group("cpu-timed");
    g.sample_size(20);
    g.bench_function("update 1M instances, 2 layers", |b| {
        b.iter(|| rt.update(1.0 / 60.0))
    });
    let mut fill = vec![throng_runtime::InstanceRecord::default(); N];
    g.bench_function("fill 1M × 64 B (baseline)", |b| {
        b.iter(|| {
            use rayon::prelude::*;
            fill.par_chunks_mut(throng_runtime::CHUNK)
                .for_each(|c| c.fill(Default::default()))
        })
    });
    g.finish();
}

fn gpu_timed(c: &mut Criterion) {
    let clips = synthetic_clips();
    let mut rt = GpuRuntime::new(&clips);
    let hs: Vec<_> = (0..N)
        .map(|_| {
            let h = rt.spawn(InstanceTransform::IDENTITY);
            let _ = rt.instance(h).play(ClipId::new(0), Default::default());
            h
        })
        .collect();
    let mut g = c.benchmark_group("gpu-timed");
    g.sample_size(20);
    let mut k = 0usize;
    let mut changes = Vec::with_capacity(N / 100);
    g.bench_function("frame 1M instances, 1% crossfading (scattered)", |b| {
        b.iter(|| {
            changes.clear();
            for _ in 0..N / 100 {
                k = (k + 7_919 * 13) % N;
                changes.push(Change::new(
                    hs[k],
                    PlaybackCommand::Crossfade {
                        clip: ClipId::new(k % 3),
                        seconds: 0.25,
                        options: Default::default(),
                    },
                ));
            }
            let _ = rt.apply(&changes);
            rt.update(1.0 / 60.0);
            rt.clear_dirty();
        })
    });
    g.bench_function("update 1M instances, no changes", |b| {
        b.iter(|| rt.update(1.0 / 60.0))
    });
    g.finish();
}

criterion_group!(benches, cpu_timed, gpu_timed);
criterion_main!(benches);
