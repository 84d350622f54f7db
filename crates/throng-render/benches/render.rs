//! Frame time of the texture skinning path on whatever adapter wgpu finds (lavapipe without a
//! GPU): a crowd of bending tubes (768 triangles each, 4 influences) at 512×512, one instanced
//! draw, image read back. Also the compute twin's skinning throughput.
//!
//! Run: `cargo bench -p throng-render --bench render`.

#[path = "../tests/common/mod.rs"]
mod common;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use glam::Vec3;
use throng_asset::Encoding;
use throng_render::device::test_gpu;
use throng_render::gpu_types::single_layer;
use throng_render::{InstanceRecord, InstanceTransform, RenderOptions, Renderer, Skinning};

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

criterion_group!(benches, bench);
criterion_main!(benches);
