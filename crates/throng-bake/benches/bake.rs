//! Bake time (`cargo bench -p throng-bake`) on 2 cores: Fox and CesiumMan with the default
//! error budget (1e-3; target for Fox ≤ 1 s) beside uniform 30 fps (the baseline, same run);
//! a synthetic rig of 100 joints, one 10 s clip, budgeted (target ≤ 10 s); and the same rig at
//! 10,000 uniform frames (target ≤ 1 s).

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use throng_bake::{bake, BakeOptions, Sampling};

#[path = "../tests/common/mod.rs"]
mod common;

fn uniform() -> BakeOptions {
    BakeOptions {
        sampling: Sampling::Fixed(30.0),
        ..Default::default()
    }
}

fn assets(c: &mut Criterion) {
    for name in ["Fox.glb", "CesiumMan.glb"] {
        let Some(path) = throng_testdata::asset(name) else {
            return;
        };
        let Ok(model) = throng_gltf::import(&path) else {
            eprintln!("skipping {name}: import failed");
            continue;
        };
        let mut g = c.benchmark_group(name);
        g.sample_size(10);
        for (label, o) in [
            ("30 fps", uniform()),
            ("max-error 1e-3", BakeOptions::default()),
        ] {
            g.bench_function(label, |b| {
                b.iter(|| black_box(bake(black_box(&model), &o).map(|r| r.0.rows())))
            });
        }
        g.finish();
    }
}

fn synthetic_rig(c: &mut Criterion) {
    let mut g = c.benchmark_group("synthetic 100 joints");
    g.sample_size(10);
    // 10 s at 30 fps keys, placed under the default budget.
    let clip = common::chain_rig(100, 301);
    let o = BakeOptions::default();
    let rows = bake(&clip, &o).map(|r| r.0.rows()).unwrap_or(0);
    eprintln!("synthetic 100 joints x 10 s, max-error 1e-3: {rows} rows");
    g.bench_function("10 s clip, max-error 1e-3", |b| {
        b.iter(|| black_box(bake(black_box(&clip), &o).map(|r| r.0.rows())))
    });
    let long = common::chain_rig(100, 10_000);
    let o = uniform();
    let rows = bake(&long, &o).map(|r| r.0.rows()).unwrap_or(0);
    assert_eq!(rows, 10_001, "synthetic rig: 10,000 frames + rest row");
    g.bench_function("10000 frames at 30 fps", |b| {
        b.iter(|| black_box(bake(black_box(&long), &o).map(|r| r.0.rows())))
    });
    g.finish();
}

criterion_group!(benches, assets, synthetic_rig);
criterion_main!(benches);
