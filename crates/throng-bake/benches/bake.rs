//! Bake time (`cargo bench -p throng-bake`) on 2 cores: Fox and CesiumMan with the default
//! error budget (1e-3; target for Fox ≤ 1 s) beside uniform 30 fps (the baseline, same run);
//! a synthetic rig of 100 joints, one 10 s clip, budgeted (target ≤ 10 s); and the same rig at
//! 10,000 uniform frames (target ≤ 1 s).

use criterion::{criterion_group, criterion_main, Criterion};
use glam::{Mat4, Quat, Vec3};
use std::hint::black_box;
use throng_anim::{
    Channel, ChannelValues, Clip, Interpolation, LocalTransform, Mesh, Model, Node, Primitive,
    Skin, Trs,
};
use throng_bake::{bake, BakeOptions, Sampling};

/// A chain of `joints` joints 0.1 apart on +Y, each rotating about Z with keys at 30 fps, one
/// clip of exactly `frames` frames at 30 fps, and 10 vertices per joint skinned 70/30 to the
/// joint and its parent.
fn synthetic(joints: usize, frames: usize) -> Model {
    let fps = 30.0f32;
    let duration = (frames - 1) as f32 / fps;
    let mut nodes = Vec::with_capacity(joints + 1);
    for j in 0..joints {
        nodes.push(Node {
            name: Some(format!("j{j}")),
            parent: j.checked_sub(1),
            children: if j + 1 < joints { vec![j + 1] } else { vec![] },
            local: LocalTransform::Trs(Trs {
                translation: if j == 0 { Vec3::ZERO } else { Vec3::Y * 0.1 },
                ..Trs::IDENTITY
            }),
            mesh: None,
            skin: None,
        });
    }
    nodes.push(Node {
        name: Some("mesh".into()),
        parent: None,
        children: vec![],
        local: LocalTransform::Trs(Trs::IDENTITY),
        mesh: Some(0),
        skin: Some(0),
    });
    let ibms = (0..joints)
        .map(|j| Mat4::from_translation(-Vec3::Y * 0.1 * j as f32))
        .collect();
    let (mut positions, mut js, mut ws) = (Vec::new(), Vec::new(), Vec::new());
    for j in 0..joints {
        for v in 0..10 {
            let a = v as f32 * 0.628;
            positions.push(Vec3::new(
                0.05 * a.cos(),
                0.1 * j as f32 + 0.01 * v as f32,
                0.05 * a.sin(),
            ));
            js.push([j as u16, j.saturating_sub(1) as u16, 0, 0]);
            ws.push(if j == 0 {
                [1.0, 0.0, 0.0, 0.0]
            } else {
                [0.7, 0.3, 0.0, 0.0]
            });
        }
    }
    let n = positions.len() as u32;
    let prim = Primitive {
        normals: vec![Vec3::Z; positions.len()],
        positions,
        indices: (0..n - n % 3).collect(),
        joint_sets: vec![js],
        weight_sets: vec![ws],
        ..Default::default()
    };
    let times: Vec<f32> = (0..frames).map(|k| k as f32 / fps).collect();
    let channels = (0..joints)
        .map(|j| Channel {
            node: j,
            interpolation: Interpolation::Linear,
            times: times.clone(),
            values: ChannelValues::Rotation(
                times
                    .iter()
                    .map(|t| Quat::from_rotation_z(0.3 * (t * 2.0 + j as f32 * 0.1).sin()))
                    .collect(),
            ),
        })
        .collect();
    Model {
        eval_order: (0..=joints).collect(),
        nodes,
        skins: vec![Skin {
            name: None,
            joints: (0..joints).collect(),
            inverse_bind_matrices: ibms,
            skeleton: None,
        }],
        meshes: vec![Mesh {
            name: None,
            primitives: vec![prim],
        }],
        materials: vec![],
        images: vec![],
        clips: vec![Clip {
            name: "wave".into(),
            duration,
            channels,
            loop_mode: Default::default(),
            events: vec![],
            skipped_morph_channels: 0,
        }],
        warnings: vec![],
    }
}

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
    let clip = synthetic(100, 301);
    let o = BakeOptions::default();
    let rows = bake(&clip, &o).map(|r| r.0.rows()).unwrap_or(0);
    eprintln!("synthetic 100 joints x 10 s, max-error 1e-3: {rows} rows");
    g.bench_function("10 s clip, max-error 1e-3", |b| {
        b.iter(|| black_box(bake(black_box(&clip), &o).map(|r| r.0.rows())))
    });
    let long = synthetic(100, 10_000);
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
