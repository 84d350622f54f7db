//! Timings of the file and the CPU decoders on a large synthetic asset. Ignored by default (run
//! with `cargo test --release -p throng-asset --test perf -- --ignored --nocapture`).

mod common;

use std::time::Instant;

use glam::{Mat4, Vec2, Vec3};
use throng_asset::decode::{skin_positions, Skinning};
use throng_asset::*;

#[test]
#[ignore]
fn large_asset_timings() {
    let (entries, rows, verts) = (64usize, 4000usize, 20_000usize);
    let mut rng = common::Rng(3);
    let frames: Vec<Vec<Mat4>> = (0..rows)
        .map(|_| (0..entries).map(|_| rng.similarity()).collect())
        .collect();
    let mut asset = common::asset(Encoding::QuatSnorm16);
    asset.palette = (0..entries)
        .map(|j| PaletteEntry {
            node: j,
            name: format!("j{j}"),
            inverse_bind_matrix: Mat4::IDENTITY,
            rigid: false,
        })
        .collect();
    asset.bone_texture = common::encode(Encoding::QuatSnorm16, &frames, 8192);
    asset.row_bounds = vec![Aabb::EMPTY; rows];
    asset.clips[0].frames = (rows - 1) as u32;
    // The reader checks step = duration / (frames − 1).
    asset.clips[0].step = asset.clips[0].duration / (rows - 2) as f64;
    asset.clips[0].root_motion = None;
    asset.clips.truncate(1);
    asset.anchors = None;
    let mut p = common::primitive(&mut rng);
    p.positions = (0..verts)
        .map(|_| {
            Vec3::new(
                rng.range(-1.0, 1.0),
                rng.range(0.0, 2.0),
                rng.range(-1.0, 1.0),
            )
        })
        .collect();
    p.normals = vec![Vec3::Y; verts];
    p.tangents = None;
    p.uv0 = Some(vec![Vec2::ZERO; verts]);
    p.joints = (0..verts * 4).map(|i| (i % entries) as u16).collect();
    p.weights = (0..verts)
        .flat_map(|_| [30000, 20000, 10000, 5535])
        .collect();
    p.indices = (0..verts as u32 / 3 * 3).collect();
    p.lods.clear();
    asset.primitives = vec![p];

    let t = Instant::now();
    let bytes = to_glb_bytes(&asset).unwrap();
    let write_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let back = from_glb_bytes(&bytes, "big").unwrap();
    let read_s = t.elapsed().as_secs_f64();
    assert_eq!(back, asset);
    let layers = [
        Layer {
            weight: 0.5,
            frac: 0.3,
            row: 10.0,
            clip: 0,
        },
        Layer {
            weight: 0.5,
            frac: 0.7,
            row: 200.0,
            clip: 0,
        },
    ];
    let n = 20;
    let mut ms = Vec::new();
    for mode in [Skinning::Linear, Skinning::DualQuat] {
        let t = Instant::now();
        for _ in 0..n {
            std::hint::black_box(skin_positions(&asset, 0, &layers, mode).unwrap());
        }
        ms.push(t.elapsed().as_secs_f64() / n as f64 * 1e3);
    }
    eprintln!(
        "file {:.1} MB: write {:.1} ms ({:.0} MB/s), read {:.1} ms ({:.0} MB/s); \
         skin {verts} vertices × 4 influences × 2 layers: LBS {:.2} ms, DQ {:.2} ms",
        bytes.len() as f64 / 1e6,
        write_s * 1e3,
        bytes.len() as f64 / 1e6 / write_s,
        read_s * 1e3,
        bytes.len() as f64 / 1e6 / read_s,
        ms[0],
        ms[1]
    );
}
