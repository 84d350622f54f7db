//! Bake time (`cargo bench -p throng-bake`) on 2 cores: Fox and CesiumMan with the default
//! error budget (1e-3; target for Fox ≤ 1 s) beside uniform 30 fps (the baseline, same run);
//! a synthetic rig of 100 joints, one 10 s clip, budgeted (target ≤ 10 s); and the same rig at
//! 10,000 uniform frames (target ≤ 1 s).
//!
//! A large character (issue 36): `BrainStem.glb` from the asset folder when it is there, else a
//! synthetic one of the same size (18 joints, 34,200 vertices, one 35 s clip): the budgeted bake
//! beside what `throng bake --fps 30` does (the bake, then `verify` for its fidelity line; a
//! budgeted bake's line comes from its own measure). Target: budgeted ≤ 2× that.
//!
//! A deep hierarchy (issue 36): one chain of 200,000 plain nodes over a rigid triangle
//! (`common::chain_glb`), imported and baked under the default budget with `anchors auto`;
//! every step is linear in the node count (target ≤ 15 s here).

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

fn large_character(c: &mut Criterion) {
    // BrainStem is not one of the shared assets: used when someone puts it there, never
    // required.
    let brainstem = throng_testdata::assets_dir()
        .map(|d| d.join("BrainStem.glb"))
        .filter(|p| p.exists());
    let (label, model) = match brainstem.and_then(|p| throng_gltf::import(&p).ok()) {
        Some(m) => ("BrainStem.glb", m),
        // 18 joints × 1,900 vertices, 35 s at 30 fps keys.
        None => (
            "synthetic 18 joints x 34,200 vertices",
            common::dense_chain_rig(18, 1047, 1900),
        ),
    };
    let mut g = c.benchmark_group(format!("large character ({label})"));
    g.sample_size(10);
    let o = uniform();
    g.bench_function("30 fps + verify", |b| {
        b.iter(|| {
            let (asset, _) = bake(black_box(&model), &o).expect("bake");
            black_box(throng_bake::verify::verify(&asset, &model).map(|f| f.len()))
        })
    });
    let budget = BakeOptions::default();
    g.bench_function("max-error 1e-3", |b| {
        b.iter(|| black_box(bake(black_box(&model), &budget).map(|r| r.0.rows())))
    });
    g.finish();
}

fn deep_hierarchy(c: &mut Criterion) {
    let bytes = common::chain_glb(200_000);
    let mut g = c.benchmark_group("deep hierarchy (200,000 nodes)");
    g.sample_size(10);
    let o = BakeOptions {
        anchors: throng_bake::AnchorSelection::Auto,
        ..Default::default()
    };
    g.bench_function("import + max-error 1e-3, anchors auto", |b| {
        b.iter(|| {
            let model =
                throng_gltf::import_slice(black_box(&bytes), None, "chain.glb").expect("import");
            black_box(bake(&model, &o).map(|r| r.0.rows()))
        })
    });
    g.finish();
}

criterion_group!(
    benches,
    assets,
    synthetic_rig,
    large_character,
    deep_hierarchy
);
criterion_main!(benches);
