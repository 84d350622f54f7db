//! Bake time (`cargo bench -p throng-bake`): Fox, CesiumMan (default settings: 30 fps,
//! quat-snorm16) and a synthetic rig of 100 joints × 10,000 frames. Targets on 2 cores: Fox
//! ≤ 50 ms, synthetic ≤ 1 s.

use criterion::{criterion_group, criterion_main, Criterion};
use glam::{Mat4, Quat, Vec3};
use std::hint::black_box;
use throng_anim::{
    Channel, ChannelValues, Clip, Interpolation, LocalTransform, Mesh, Model, Node, Primitive,
    Skin, Trs,
};
use throng_bake::{bake, BakeOptions};

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

fn assets(c: &mut Criterion) {
    for name in ["Fox.glb", "CesiumMan.glb"] {
        let Some(path) = throng_testdata::asset(name) else {
            return;
        };
        let Ok(model) = throng_gltf::import(&path) else {
            eprintln!("skipping {name}: import failed");
            continue;
        };
        let o = BakeOptions::default();
        c.bench_function(&format!("bake {name}"), |b| {
            b.iter(|| black_box(bake(black_box(&model), &o).map(|r| r.0.rows())))
        });
    }
}

fn synthetic_rig(c: &mut Criterion) {
    let model = synthetic(100, 10_000);
    let o = BakeOptions::default();
    let rows = bake(&model, &o).map(|r| r.0.rows()).unwrap_or(0);
    assert_eq!(rows, 10_001, "synthetic rig: 10,000 frames + rest row");
    let mut g = c.benchmark_group("synthetic");
    g.sample_size(10);
    g.bench_function("bake 100 joints x 10000 frames", |b| {
        b.iter(|| black_box(bake(black_box(&model), &o).map(|r| r.0.rows())))
    });
    g.finish();
}

criterion_group!(benches, assets, synthetic_rig);
criterion_main!(benches);
