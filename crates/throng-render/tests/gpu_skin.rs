//! The shaders' skinning, run as a compute job on whatever adapter wgpu finds (lavapipe without a
//! GPU), against throng-asset's CPU decoder (the CPU twin of the shaders) for every encoding, with
//! two layers and fractional frames, LBS for all and DQ for quat-*. Tolerance: 1e-6 of the
//! bounding diagonal of the CPU-skinned positions (f32 arithmetic on both sides; the encodings'
//! own precision does not enter since both decode the same stored bits).

mod common;

use glam::{Vec3, Vec4};
use throng_asset::decode::skin_vertices;
use throng_asset::{Aabb, Encoding};
use throng_render::compute::skin_on_gpu;
use throng_render::device::test_gpu;
use throng_render::gpu_asset::skin_inputs;
use throng_render::gpu_types::single_layer;
use throng_render::{GpuAsset, InstanceRecord, Playback, Records, Skinning};

fn diag(p: &[Vec3]) -> f32 {
    let mut b = Aabb::EMPTY;
    for &x in p {
        b.extend(x);
    }
    b.diagonal()
}

fn check(encoding: Encoding, k: u32, skinning: Skinning) -> Option<(f32, f32)> {
    check_rows(encoding, k, skinning, Rows::Linear)
}

/// How the test asset's clips interpolate their rows.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Rows {
    Linear,
    /// Catmull-Rom: four rows per layer, the first clip periodic.
    CatmullRom,
    /// Degree-3 polynomial pieces: each clip one piece through its four rows.
    Pieces,
}

/// [`check`] with the asset's clips interpolated as `rows` says.
fn check_rows(encoding: Encoding, k: u32, skinning: Skinning, rows: Rows) -> Option<(f32, f32)> {
    let cubic = rows;
    let gpu = test_gpu()?;
    let (mut asset, _) = common::random_asset(encoding, k, 7 + k as u64);
    asset = match rows {
        Rows::Linear => asset,
        Rows::CatmullRom => common::with_cubic_rows(asset),
        Rows::Pieces => common::with_piece_rows(asset),
    };
    let gasset = GpuAsset::new(&gpu, &asset).expect("upload");
    let inputs = skin_inputs(&asset.primitives[0]);
    let recs = common::test_records();
    let out = skin_on_gpu(
        &gpu,
        &gasset,
        &inputs,
        Playback::Records(Records::Cpu(&recs)),
        skinning,
    )
    .expect("gpu skinning");
    let mode = skinning;
    let (mut worst_p, mut worst_n) = (0.0f32, 0.0f32);
    for (ri, rec) in recs.iter().enumerate() {
        let cpu = skin_vertices(&asset, 0, &rec.layers, mode).expect("cpu decoder");
        let d = diag(&cpu.positions);
        assert!(d > 0.5, "degenerate test pose");
        for (v, cp) in cpu.positions.iter().enumerate() {
            let g = &out[ri * inputs.len() + v];
            let gp = Vec4::from(g.position).truncate();
            let e = (gp - *cp).length() / d;
            worst_p = worst_p.max(e);
            assert!(
                e <= 1e-6,
                "{} {} K={k} record {ri} vertex {v}: GPU {gp} vs CPU {cp}, error {e:.2e} of the diagonal {d}",
                encoding.as_str(),
                skinning.as_str()
            );
            let gn = Vec4::from(g.normal).truncate();
            let en = (gn - cpu.normals[v]).length();
            worst_n = worst_n.max(en);
            assert!(
                en <= 1e-5,
                "{} record {ri} vertex {v}: normal {gn} vs {}",
                encoding.as_str(),
                cpu.normals[v]
            );
            let cpu_t = cpu.tangents.as_ref().expect("tangents")[v];
            let gt = Vec4::from(g.tangent);
            assert!(
                (gt.truncate() - cpu_t.truncate()).length() <= 1e-5 && gt.w == cpu_t.w,
                "{} record {ri} vertex {v}: tangent {gt} vs {cpu_t}",
                encoding.as_str()
            );
        }
    }
    eprintln!(
        "{:12} {:3} K={k} rows={cubic:?}: max position error {worst_p:.2e} of the diagonal, max normal error {worst_n:.2e}",
        encoding.as_str(),
        skinning.as_str()
    );
    Some((worst_p, worst_n))
}

#[test]
fn lbs_matches_cpu_decoder_for_every_encoding() {
    for e in Encoding::ALL {
        for k in [4, 8] {
            if check(e, k, Skinning::Linear).is_none() {
                return;
            }
        }
    }
}

#[test]
fn dq_matches_cpu_decoder_for_quat_encodings() {
    for e in [Encoding::QuatF32, Encoding::QuatSnorm16] {
        for k in [4, 8] {
            if check(e, k, Skinning::DualQuat).is_none() {
                return;
            }
        }
    }
}

/// Catmull-Rom rows (four taps per layer, wrapped on the periodic clip, repeated at the other's
/// ends) and degree-3 polynomial pieces: the shaders' sum of taps equals the CPU decoder's, LBS
/// for every encoding and DQ for the quat-* ones, within the same 1e-6 of the diagonal.
#[test]
fn cubic_rows_match_cpu_decoder() {
    for e in Encoding::ALL {
        let modes: &[Skinning] = if e.is_quat() {
            &[Skinning::Linear, Skinning::DualQuat]
        } else {
            &[Skinning::Linear]
        };
        for &m in modes {
            if check_rows(e, 4, m, Rows::CatmullRom).is_none()
                || check_rows(e, 4, m, Rows::Pieces).is_none()
            {
                return;
            }
        }
    }
}

/// Independent of both decoders: for the f32 encodings a single layer at frac 0 must give
/// exactly S·p from the poses the test encoded (f64 reference).
#[test]
fn single_row_equals_encoded_skin_matrices() {
    let Some(gpu) = test_gpu() else { return };
    for e in [Encoding::Mat4F32, Encoding::Mat3x4F32, Encoding::QuatF32] {
        let (asset, poses) = common::random_asset(e, 4, 99);
        let gasset = GpuAsset::new(&gpu, &asset).expect("upload");
        let prim = &asset.primitives[0];
        let inputs = skin_inputs(prim);
        let rows = [0u32, 3, 8];
        let recs: Vec<InstanceRecord> = rows
            .iter()
            .map(|&r| single_layer(r, 0.0, if r >= 5 { 1 } else { 0 }))
            .collect();
        let out = skin_on_gpu(
            &gpu,
            &gasset,
            &inputs,
            Playback::Records(Records::Cpu(&recs)),
            Skinning::Linear,
        )
        .expect("gpu");
        for (ri, &row) in rows.iter().enumerate() {
            let mut want = vec![];
            for v in 0..prim.positions.len() {
                let p = prim.positions[v].as_dvec3();
                let mut acc = glam::DVec3::ZERO;
                for i in 0..4 {
                    let j = prim.joints[v * 4 + i] as usize;
                    let w = prim.weights[v * 4 + i] as f64 / 65535.0;
                    acc += poses[row as usize][j]
                        .matrix()
                        .as_dmat4()
                        .transform_point3(p)
                        * w;
                }
                want.push(acc);
            }
            let d = diag(&want.iter().map(|p| p.as_vec3()).collect::<Vec<_>>()) as f64;
            for (v, w) in want.iter().enumerate() {
                let g = Vec4::from(out[ri * inputs.len() + v].position)
                    .truncate()
                    .as_dvec3();
                let err = (g - *w).length() / d;
                assert!(
                    err <= 2e-6,
                    "{} row {row} vertex {v}: GPU {g} vs f64 {w}: {err:.2e}",
                    e.as_str()
                );
            }
        }
    }
}
