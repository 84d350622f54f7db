//! Frame time of the texture skinning path on whatever adapter wgpu finds (lavapipe without a
//! GPU): a crowd of bending tubes (768 triangles each, 4 influences) at 512×512, one instanced
//! draw, image read back. And a CPU-timed frame's upload of 1M records: the runtime's update
//! followed by a copy of its records into the staging memory, against the update writing them
//! there itself (`CrowdUpload::update_cpu_timed_in_place`).
//!
//! Run: `cargo bench -p throng-render --bench render` (`-- upload` for the upload alone).

#[path = "../tests/common/mod.rs"]
mod common;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use glam::Vec3;
use throng_asset::Encoding;
use throng_render::device::test_gpu;
use throng_render::gpu_types::single_layer;
use throng_render::{InstanceRecord, InstanceTransform, RenderOptions, Renderer, Skinning};
use throng_runtime::{ClipId, PlaybackControl};

fn crowd(n: u32) -> (Vec<InstanceTransform>, Vec<InstanceRecord>) {
    let cols = (n as f32).sqrt().ceil() as u32;
    (0..n)
        .map(|i| {
            let t = InstanceTransform::from_mat4(&glam::Mat4::from_translation(Vec3::new(
                (i % cols) as f32 * 1.5,
                0.0,
                (i / cols) as f32 * 1.5,
            )));
            (t, single_layer(1 + i % 15, 0.5, 0))
        })
        .unzip()
}

fn bench(c: &mut Criterion) {
    let Some(gpu) = test_gpu() else { return };
    let mut r = Renderer::with_gpu(gpu);
    eprintln!("adapter: {}", r.adapter());
    let mut g = c.benchmark_group("texture_path_512");
    g.sample_size(10);
    for (encoding, skinning) in [
        (Encoding::Mat3x4F32, Skinning::Linear),
        (Encoding::QuatSnorm16, Skinning::Linear),
        (Encoding::QuatSnorm16, Skinning::DualQuat),
    ] {
        let asset = common::tube_asset(encoding);
        let tris = asset.primitives[0].indices.len() as u64 / 3;
        let gasset = r.upload(&asset).expect("upload");
        for n in [100u32, 1000] {
            let (t, rec) = crowd(n);
            let opts = RenderOptions {
                width: 512,
                height: 512,
                skinning,
                ..Default::default()
            };
            g.throughput(Throughput::Elements(tris * n as u64));
            let id = format!("{}-{}", encoding.as_str(), skinning.as_str());
            g.bench_with_input(BenchmarkId::new(id, n), &n, |b, _| {
                b.iter(|| r.render_texture(&gasset, &t, &rec, &opts).expect("render"))
            });
        }
    }
    g.finish();
}

/// Either side's error of an in-place upload (shown by `expect` through `Debug`, which the
/// dead-code lint does not count as a read).
#[derive(Debug)]
#[allow(dead_code)]
enum UploadError {
    Render(throng_render::RenderError),
    Runtime(throng_runtime::RuntimeError),
}

impl From<throng_render::RenderError> for UploadError {
    fn from(e: throng_render::RenderError) -> Self {
        UploadError::Render(e)
    }
}

/// 1M instances × 2 layers (a blend), CPU-timed: update + copy vs update into staging. Each
/// iteration submits and waits, so staging memory is recycled as in a frame loop.
fn upload(c: &mut Criterion) {
    let Some(gpu) = test_gpu() else { return };
    let n = 1_000_000;
    let clips = throng_runtime::testing::synthetic_clips();
    let mut rt = throng_runtime::CpuRuntime::new(&clips);
    for _ in 0..n {
        let h = rt.spawn(InstanceTransform::IDENTITY);
        rt.instance(h)
            .blend(ClipId::new(0), ClipId::new(1), 0.5)
            .expect("blend");
    }
    rt.update(0.0);
    let transforms = vec![InstanceTransform::IDENTITY; n];
    let mut up = throng_render::CrowdUpload::new(&gpu.device, throng_render::Timing::Cpu);
    up.update_cpu_timed(&gpu, rt.records(), &transforms, true)
        .expect("first upload");
    let flush = |gpu: &throng_render::Gpu| {
        gpu.queue.submit([]);
        let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
    };
    let mut g = c.benchmark_group("cpu_timed_upload_1m");
    g.sample_size(20);
    g.throughput(Throughput::Bytes(n as u64 * 64));
    g.bench_function("update_then_copy", |b| {
        b.iter(|| {
            rt.update(1.0 / 60.0);
            up.update_cpu_timed(&gpu, rt.records(), &transforms, false)
                .expect("upload");
            flush(&gpu);
        })
    });
    g.bench_function("update_into_staging", |b| {
        b.iter(|| {
            up.update_cpu_timed_in_place(&gpu, n, &transforms, false, |out| {
                rt.update_into(1.0 / 60.0, out)
                    .map_err(UploadError::Runtime)
            })
            .expect("upload");
            flush(&gpu);
        })
    });
    g.finish();
}

criterion_group!(benches, bench, upload);
criterion_main!(benches);
