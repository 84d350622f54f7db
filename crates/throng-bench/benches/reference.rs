//! Baseline of the classic approach: CPU sampling (poses per second) and CPU linear blend
//! skinning (vertices per second) of real characters. The GPU paths are compared against these.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use throng_anim::{binding_influences, binding_matrices, skin_lbs, Poser, SkinnedVertices};

fn load(name: &str) -> Option<throng_anim::Model> {
    let path = throng_testdata::asset(name)?;
    Some(throng_gltf::import(&path).expect("import"))
}

fn sampling(c: &mut Criterion) {
    let Some(fox) = load("Fox.glb") else { return };
    let mut poser = Poser::new(&fox);
    let mut g = c.benchmark_group("sampling");
    g.throughput(Throughput::Elements(1));
    let d = fox.clips[1].duration;
    let mut t = 0.0f32;
    g.bench_function("Fox pose (24 joints)", |b| {
        b.iter(|| {
            t = (t + 0.013) % d;
            std::hint::black_box(poser.pose(&fox, Some(1), t)[5]);
        })
    });
    g.finish();
}

fn skinning(c: &mut Criterion) {
    let mut g = c.benchmark_group("cpu-skinning");
    for name in ["Fox.glb", "CesiumMan.glb"] {
        let Some(model) = load(name) else { return };
        let mut poser = Poser::new(&model);
        let ms = poser.pose(&model, Some(0), 0.3).to_vec();
        let bindings = model.mesh_bindings();
        let mut work = Vec::new();
        for b in &bindings {
            let mut mats = Vec::new();
            binding_matrices(&model, b, &ms, &mut mats);
            for prim in &model.meshes[b.mesh].primitives {
                let (inf, _) = binding_influences(b, prim);
                work.push((prim, inf, mats.clone()));
            }
        }
        let verts: usize = work.iter().map(|w| w.0.vertex_count()).sum();
        g.throughput(Throughput::Elements(verts as u64));
        let mut out = SkinnedVertices::default();
        g.bench_function(format!("{name} LBS ({verts} vertices)"), |b| {
            b.iter(|| {
                for (prim, inf, mats) in &work {
                    skin_lbs(prim, inf, mats, &mut out);
                }
                std::hint::black_box(out.positions[0]);
            })
        });
    }
    g.finish();
}

criterion_group!(benches, sampling, skinning);
criterion_main!(benches);
