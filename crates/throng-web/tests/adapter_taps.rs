//! The engine adapters' GLSL (`adapter.glsl`, what `throng/three` and `throng/babylon` inject
//! into their engines' materials) reads each layer's row taps as throng's WGSL does (docs/
//! design.md §3 "Row interpolation"): run in plain WebGL2 in headless Chromium on SwiftShader
//! (web/test/adapter-taps.html, transform feedback, no engine), on the built-in fox baked with
//! Catmull-Rom rows and with polynomial pieces, both timings, each instance on one layer and
//! then mid-crossfade on two. Every skinned point must equal the CPU twin — world ·
//! Σ_i w_i · `throng_asset::decode::blended_skin_matrix` (the taps of throng_contract) · p, in
//! f64 — within [`TOLERANCE`] of the fox's diagonal.
//!
//! Tools: those of tests/browser.rs (node, Chromium, puppeteer-core; no engine).

mod common;

use common::*;

use glam::{DMat4, DVec3, Mat4, Vec3};
use throng_asset::decode::blended_skin_matrix;
use throng_asset::{gpu_clip_table, BakedAsset, RowInterpolation};
use throng_bake::{bake, BakeOptions, MaxError, Sampling};
use throng_contract::{gpu_layers, Layer};
use throng_runtime::{Records, Timing};
use throng_web::adapter::{self, TABLE_WIDTH};
use throng_web::{CrowdSpec, Player};

/// Largest difference between the GLSL's point and the CPU twin's, relative to the diagonal of
/// the fox's pose bounds: f32 arithmetic over up to four layers × four taps × four influences,
/// at world positions up to ~10 diagonals from the origin.
const TOLERANCE: f64 = 1e-6;
const INSTANCES: u32 = 48;
/// Mesh vertices skinned per instance (every k-th of primitive 0).
const POINTS_PER_INSTANCE: usize = 12;

fn fox_with(interpolation: RowInterpolation, sampling: Sampling) -> BakedAsset {
    let glb = throng_demo::demo_glb();
    let model = throng_gltf::import_slice(&glb, None, "throng-demo-fox.glb").expect("import");
    let options = BakeOptions {
        source_name: "throng-demo-fox.glb".into(),
        sampling,
        interpolation,
        ..Default::default()
    };
    bake(&model, &options).expect("bake").0
}

/// One run of the shader: its tables and points, and what the CPU twin says each point becomes.
struct Case {
    name: String,
    json: serde_json::Value,
    expected: Vec<DVec3>,
}

fn case(name: &str, player: &Player) -> Case {
    let asset = player.asset();
    let bones = adapter::bone_rows(asset).expect("bone rows");
    let (clips, frame_times) = adapter::clip_table(asset);
    let transforms = adapter::instance_matrices(player);
    let mesh = &adapter::meshes(asset)[0];
    let vertices = mesh.positions.len() / 3;
    let stride = (vertices / POINTS_PER_INSTANCE).max(1);
    let table = gpu_clip_table(&asset.clips);
    // what the adapters upload, and the layers the CPU twin reads: CPU-timed as recorded,
    // GPU-timed derived from the record and the clock (throng_contract::gpu_layers)
    let (records, gpu_timed, clock, layers) = match player.runtime().records() {
        Records::Cpu(r) => (
            serde_json::json!(adapter::records(player).expect("records")),
            false,
            0,
            r.iter().map(|r| r.layers).collect::<Vec<[Layer; 4]>>(),
        ),
        Records::Gpu { records, clock } => (
            serde_json::json!(adapter::gpu_records(player).expect("records")),
            true,
            clock,
            records
                .iter()
                .map(|r| gpu_layers(r, &table, clock).layers)
                .collect(),
        ),
    };
    let (mut instances, mut joints, mut weights, mut positions) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut expected = Vec::new();
    for (i, layers) in layers.iter().enumerate() {
        let world = Mat4::from_cols_slice(&transforms[16 * i..16 * i + 16]).as_dmat4();
        for k in 0..POINTS_PER_INSTANCE {
            // a different run of vertices per instance, so more influences are read
            let v = (k * stride + i) % vertices;
            let p = Vec3::from_slice(&mesh.positions[3 * v..3 * v + 3]).as_dvec3();
            let mut skin = DMat4::ZERO;
            for c in 0..4 {
                let (j, w) = (mesh.joints[4 * v + c], mesh.weights[4 * v + c]);
                if w > 0.0 {
                    let m =
                        blended_skin_matrix(&asset.bone_texture, &asset.clips, layers, j as u32)
                            .expect("CPU twin");
                    skin += m.as_dmat4() * w as f64;
                }
                joints.push(j as f32);
                weights.push(w);
            }
            expected.push((world * skin).transform_point3(p));
            instances.push(i as f32);
            positions.extend_from_slice(&mesh.positions[3 * v..3 * v + 3]);
        }
    }
    let json = serde_json::json!({
        "glsl": adapter::glsl(),
        "gpuTimed": gpu_timed,
        "clock": clock,
        "width": TABLE_WIDTH,
        "bones": { "width": bones.width, "data": bones.data },
        "transforms": transforms,
        "records": records,
        "clips": clips,
        "frameTimes": frame_times,
        "instances": instances,
        "joints": joints,
        "weights": weights,
        "positions": positions,
    });
    Case {
        name: name.into(),
        json,
        expected,
    }
}

/// The fox's crowd for `timing`: a seeded mix of clips at random phases, then (`fading`) every
/// instance 0.2 s into a 0.5 s crossfade to "run", so two layers are blended.
fn player(asset: &BakedAsset, timing: Timing, fading: bool) -> Player {
    let mut player = Player::new(asset.clone(), timing);
    let spec = CrowdSpec {
        count: INSTANCES,
        random_phase: true,
        seed: 7,
        ..Default::default()
    };
    player.spawn_crowd(&spec).expect("crowd");
    player.step(0.37).expect("step");
    if fading {
        crossfade_all(&mut player, ("run", 0.5, 0.2));
    }
    player
}

#[test]
fn the_adapters_glsl_reads_row_taps_as_the_cpu_twin() {
    let Some(tools) = browser_tools("adapter taps") else {
        return;
    };
    let budget = Sampling::MaxError(MaxError::Relative(1e-4));
    let fox = [
        (
            "catmull-rom",
            fox_with(RowInterpolation::CatmullRom, Sampling::Fixed(12.0)),
        ),
        ("pieces", fox_with(RowInterpolation::Pieces, budget)),
    ];
    // the bakes exercise what the test is about: cubic clips, some periodic; pieces of degree 2
    // or 3
    let (cubic, pieces) = (&fox[0].1, &fox[1].1);
    assert!(cubic
        .clips
        .iter()
        .all(|c| c.interpolation == RowInterpolation::CatmullRom));
    assert!(
        cubic.clips.iter().any(|c| c.periodic),
        "no periodic Catmull-Rom clip"
    );
    assert!(
        pieces.clips.iter().any(|c| c.degree >= 2),
        "no clip of pieces"
    );
    let mut cases = Vec::new();
    for (name, asset) in &fox {
        for timing in [Timing::Cpu, Timing::Gpu] {
            for fading in [false, true] {
                let label = format!(
                    "{name}, {timing:?}-timed, {}",
                    if fading { "mid-crossfade" } else { "one layer" }
                );
                cases.push(case(&label, &player(asset, timing, fading)));
            }
        }
    }

    let work = target_dir().join("tmp/throng-web-adapter-taps");
    let page = work.join("page");
    let _ = std::fs::remove_dir_all(&page);
    std::fs::create_dir_all(&page).expect("page folder");
    for f in ["adapter-taps.html", "adapter-taps.js"] {
        std::fs::copy(repo().join("web/test").join(f), page.join(f)).expect("copy the page");
    }
    let all: Vec<_> = cases.iter().map(|c| &c.json).collect();
    std::fs::write(
        page.join("cases.json"),
        serde_json::to_string(&all).expect("json"),
    )
    .expect("cases.json");
    let out = fresh_out(&work);
    let plan = serde_json::json!({
        "dir": page, "out": out, "chromium": tools.chromium, "driver": tools.driver,
    });
    let r = drive(&work, "drive-taps.mjs", &plan, &out.join("result.json"));
    let taps = &r["taps"];
    assert!(
        taps["ready"].as_bool() == Some(true),
        "the page failed: {taps}"
    );
    let diagonal = fox[0].1.pose_bounds().diagonal() as f64;
    for (c, got) in cases.iter().zip(taps["out"].as_array().expect("out")) {
        let got: Vec<f64> = got
            .as_array()
            .expect("points")
            .iter()
            .map(|x| x.as_f64().expect("number"))
            .collect();
        assert_eq!(got.len(), 3 * c.expected.len(), "{}", c.name);
        let worst = c
            .expected
            .iter()
            .enumerate()
            .map(|(k, e)| (DVec3::from_slice(&got[3 * k..3 * k + 3]) - *e).length() / diagonal)
            .fold(0.0, f64::max);
        eprintln!("{}: largest difference {worst:.2e} of the diagonal", c.name);
        assert!(
            worst <= TOLERANCE,
            "{}: the GLSL's point is {worst:.2e} of the diagonal from the CPU twin's (at most {TOLERANCE:e})",
            c.name
        );
    }
}
