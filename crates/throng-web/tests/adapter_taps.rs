//! The engine adapters' GLSL (`adapter.glsl`, what `throng/three` and `throng/babylon` inject
//! into their engines' materials) reads each layer's row taps as throng's WGSL does (docs/
//! design.md §3 "Row interpolation"): run in plain WebGL2 in headless Chromium on SwiftShader
//! (web/test/adapter-taps.html, transform feedback, no engine), on the built-in fox baked with
//! Catmull-Rom rows and with polynomial pieces, both timings, each instance on one layer and
//! then mid-crossfade on two. Every skinned point must equal the CPU twin — world ·
//! Σ_i w_i · `throng_asset::decode::blended_skin_matrix` (the taps of throng_contract) · p, in
//! f64 — within [`TOLERANCE`] of the fox's diagonal.
//!
//! The far tier's card vertex stage (`adapter_far.glsl`: `throngFarCard`, `throngFarShare`) runs
//! the same way on the built-in fox baked with its far tier, both timings, one layer and
//! mid-crossfade, seen from a perspective and from an orthographic viewer: per card corner the
//! four tiles and their weights must be the CPU twin's (`FarTier::view_taps` ×
//! `FarTier::frame_taps_at` at the frame coordinate of the heaviest base layer, from
//! `FarTier::row_coordinates`) within [`FAR_WEIGHT_TOLERANCE`], the corner where throng-render's
//! card puts it (`throng::far`'s axes over the part its taps show something in,
//! `throng_asset::gpu::far::taps_extent`) within [`TOLERANCE`] of the diagonal, and the crossfade's
//! share `throng_asset::far_tier::card_share`'s within [`FAR_WEIGHT_TOLERANCE`].
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

/// What the adapters upload of `player`'s records (JSON), whether GPU-timed, the clock, and
/// the layers the CPU twin reads: CPU-timed as recorded, GPU-timed derived from the record and
/// the clock (throng_contract::gpu_layers).
fn records_and_layers(player: &Player) -> (serde_json::Value, bool, u32, Vec<[Layer; 4]>) {
    let table = gpu_clip_table(&player.asset().clips);
    match player.runtime().records() {
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
    }
}

fn case(name: &str, player: &Player) -> Case {
    let asset = player.asset();
    let bones = adapter::bone_rows(asset).expect("bone rows");
    let (clips, frame_times) = adapter::clip_table(asset);
    let transforms = adapter::instance_matrices(player);
    let mesh = &adapter::meshes(asset)[0];
    let vertices = mesh.positions.len() / 3;
    let stride = (vertices / POINTS_PER_INSTANCE).max(1);
    let (records, gpu_timed, clock, layers) = records_and_layers(player);
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

/// Largest difference between a tap weight (and the crossfade's share) of the GLSL and the CPU
/// twin's: f32 `atan` and divisions on both sides.
const FAR_WEIGHT_TOLERANCE: f64 = 1e-4;

/// What the CPU twin says of one card corner: crowd-space position, share, and weight per tile.
struct FarCorner {
    position: DVec3,
    share: f64,
    taps: std::collections::BTreeMap<u32, f64>,
}

struct FarCase {
    name: String,
    json: serde_json::Value,
    expected: Vec<FarCorner>,
}

/// A run of the card vertex stage over `player`'s instances (four corners each) seen through
/// `clip_from_crowd`, whose viewer is `viewer` (xyz, w 1: the eye; w 0: the direction towards
/// an orthographic viewer, as a light's shadow pass), with the crossfade of the crowd's camera
/// `camera` (its eye, and w the pixels a length of 1 covers at a distance of 1) at LOD bias
/// `bias` and the default width.
fn far_case(
    name: &str,
    player: &Player,
    (clip_from_crowd, viewer): (Mat4, glam::Vec4),
    camera: glam::Vec4,
    bias: f32,
) -> FarCase {
    let asset = player.asset();
    let tier = asset.far_tier.as_ref().expect("far tier");
    let far = adapter::far(asset).expect("fits").expect("far tier");
    let upload = throng_asset::gpu::far::upload(asset, tier, TABLE_WIDTH).expect("fits");
    let (clips, frame_times) = adapter::clip_table(asset);
    let transforms = adapter::instance_matrices(player);
    let (records, gpu_timed, clock, layers) = records_and_layers(player);
    let rows = asset.bone_texture.rows.max(1);
    let coordinates = tier.row_coordinates(&asset.clips, rows);
    let sphere = glam::Vec4::from_array(far.sphere);
    let eye = camera;
    let band = [far.error, bias, 0.3 * bias];
    let mut instances = Vec::new();
    let mut expected = Vec::new();
    for (i, layers) in layers.iter().enumerate() {
        let world = Mat4::from_cols_slice(&transforms[16 * i..16 * i + 16]);
        let centre = world.transform_point3(sphere.truncate());
        let toward_world = if viewer.w == 0.0 {
            viewer.truncate()
        } else {
            viewer.truncate() - centre
        };
        let linear = glam::Mat3::from_mat4(world);
        let d = (linear.inverse() * toward_world).normalize();
        let right = Vec3::Y.cross(d).try_normalize().unwrap_or(Vec3::X);
        let up = d.cross(right);
        // the heaviest base layer: a weight, not additive (the test crowd has no masks)
        let base = (0..4)
            .filter(|&k| {
                let l = &layers[k];
                let additive = asset
                    .clips
                    .get(l.clip_index() as usize)
                    .is_some_and(|c| c.additive.is_some());
                l.weight != 0.0 && !additive
            })
            .fold(None::<usize>, |best, k| match best {
                Some(b) if layers[b].weight >= layers[k].weight => Some(b),
                _ => Some(k),
            })
            .unwrap_or(0);
        let l = &layers[base];
        let c = l.clip_index() as usize;
        let info = &asset.clips[c];
        let row = (l.row.max(0.0) as u32).min(rows - 1);
        let last = (info.first_row + info.frames.max(1) - 1).min(rows - 1);
        let next = (row + 1).min(last).max(row);
        let frames = tier.clips[c].frames.max(1) as f32;
        let (x0, mut x1) = (coordinates[row as usize], coordinates[next as usize]);
        if x1 < x0 {
            x1 += frames;
        }
        let x = x0 + (x1 - x0) * l.frac;
        let looped = upload.clips[c].looped == 1;
        let mut taps = std::collections::BTreeMap::new();
        for (frame, fw) in tier.frame_taps_at(c, looped, x) {
            for (view, vw) in tier.view_taps(d) {
                *taps.entry(frame * tier.views() + view).or_insert(0.0) += (fw * vw) as f64;
            }
        }
        let share = throng_asset::far_tier::card_share(
            &throng_contract::Affine3x4::from_mat4(&world),
            sphere,
            far.error,
            eye,
            glam::Vec2::new(band[1], band[2]),
        ) as f64;
        // The part of the card its taps show something in (the twin of far_taps_extent).
        let (mut rects, mut weights) = ([1u32; 4], [0.0f32; 4]);
        for (k, (&tile, &w)) in taps.iter().take(4).enumerate() {
            rects[k] = upload.rects[tile as usize];
            weights[k] = w as f32;
        }
        let [a0, b0, a1, b1] = throng_asset::gpu::far::taps_extent(rects, weights, tier.tile);
        for corner in 0..4u32 {
            let a = if corner & 1 == 1 { a1 } else { a0 };
            let b = if corner & 2 == 2 { b1 } else { b0 };
            let point = sphere.truncate() + sphere.w * (a * right + b * up);
            expected.push(FarCorner {
                position: world.transform_point3(point).as_dvec3(),
                share,
                taps: taps.clone(),
            });
            instances.push(i as f32);
        }
    }
    let json = serde_json::json!({
        "glsl": adapter::glsl(),
        "gpuTimed": gpu_timed,
        "clock": clock,
        "width": TABLE_WIDTH,
        "bones": { "width": 3 * asset.bone_texture.entries, "data": adapter::bone_rows(asset).expect("rows").data },
        "transforms": transforms,
        "records": records,
        "clips": clips,
        "frameTimes": frame_times,
        "instances": instances,
        "joints": [], "weights": [], "positions": [],
        "far": {
            "glsl": adapter::far_glsl(),
            "clips": far.clips, "rows": far.rows, "sphere": far.sphere, "grid": far.grid,
            "elevationBounds": far.elevation_bounds,
            "eye": eye.to_array(), "band": band,
            "clip": clip_from_crowd.to_cols_array(),
        },
    });
    FarCase {
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
    // the far tier's card vertex stage: the fox with its far tier, seen through a perspective
    // camera (LOD bias where some instances crossfade) and an orthographic one
    let far_fox = bake_fox_far();
    let eye = Vec3::new(4.0, 3.0, 6.0);
    // throng-render's camera matrices (WebGPU's depth 0..1: the GLSL's viewer is the same)
    let view = throng_render::camera::look_at_rh(eye, Vec3::ZERO, Vec3::Y);
    let perspective =
        throng_render::camera::perspective_rh(40f32.to_radians(), 1.5, 0.5, 500.0) * view;
    let pixels = 256.0 / (2.0 * 20f32.to_radians().tan());
    let sun = Vec3::new(-0.4, 1.0, 0.3).normalize();
    let ortho = throng_render::light::orthographic_rh(-20.0, 20.0, -20.0, 20.0, 0.1, 100.0)
        * throng_render::camera::look_at_rh(sun * 50.0, Vec3::ZERO, Vec3::Y);
    // a LOD bias between the nearest and the farthest instance's texel size in pixels, so some
    // instances are all mesh, some all card and some crossfading
    let bias = {
        let p = player(&far_fox, Timing::Cpu, false);
        let tier = far_fox.far_tier.as_ref().expect("far tier");
        let texel = 2.0 * tier.radius / tier.tile as f32;
        let sizes: Vec<f32> = adapter::instance_matrices(&p)
            .chunks_exact(16)
            .map(|m| {
                let centre = Mat4::from_cols_slice(m).transform_point3(tier.centre);
                texel * pixels / ((centre - eye).length() - tier.radius)
            })
            .collect();
        let (lo, hi) = sizes
            .iter()
            .fold((f32::MAX, 0.0f32), |(a, b), &s| (a.min(s), b.max(s)));
        (lo * hi).sqrt()
    };
    let mut far_cases = Vec::new();
    for timing in [Timing::Cpu, Timing::Gpu] {
        for fading in [false, true] {
            let p = player(&far_fox, timing, fading);
            let label = |v: &str| {
                format!(
                    "far tier, {timing:?}-timed, {}, {v}",
                    if fading { "mid-crossfade" } else { "one layer" }
                )
            };
            far_cases.push(far_case(
                &label("perspective"),
                &p,
                (perspective, eye.extend(1.0)),
                eye.extend(pixels),
                bias,
            ));
            far_cases.push(far_case(
                &label("orthographic"),
                &p,
                (ortho, sun.extend(0.0)),
                eye.extend(pixels),
                bias,
            ));
        }
    }
    let all: Vec<_> = cases
        .iter()
        .map(|c| &c.json)
        .chain(far_cases.iter().map(|c| &c.json))
        .collect();
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
    let outs = taps["out"].as_array().expect("out");
    assert_eq!(outs.len(), cases.len() + far_cases.len());
    let mut shares = Vec::new();
    for (c, got) in far_cases.iter().zip(&outs[cases.len()..]) {
        let got = numbers(got, "corners");
        assert_eq!(got.len(), 12 * c.expected.len(), "{}", c.name);
        let (mut position, mut weight) = (0.0f64, 0.0f64);
        for (k, e) in c.expected.iter().enumerate() {
            let g = &got[12 * k..12 * k + 12];
            position = position.max((DVec3::from_slice(&g[0..3]) - e.position).length() / diagonal);
            weight = weight.max((g[3] - e.share).abs());
            shares.push(g[3]);
            let mut taps = std::collections::BTreeMap::new();
            for t in 0..4 {
                *taps.entry(g[4 + t] as u32).or_insert(0.0) += g[8 + t];
            }
            for tile in taps.keys().chain(e.taps.keys()) {
                let (a, b) = (
                    taps.get(tile).copied().unwrap_or(0.0),
                    e.taps.get(tile).copied().unwrap_or(0.0),
                );
                weight = weight.max((a - b).abs());
            }
        }
        eprintln!(
            "{}: largest difference: corner {position:.2e} of the diagonal, tap weight or share {weight:.2e}",
            c.name
        );
        assert!(
            position <= TOLERANCE,
            "{}: corner {position:.2e} of the diagonal from the CPU twin's",
            c.name
        );
        assert!(
            weight <= FAR_WEIGHT_TOLERANCE,
            "{}: a tap weight or the share is {weight:.2e} from the CPU twin's",
            c.name
        );
    }
    // the perspective cases hold instances crossfading, all card and all mesh
    assert!(
        shares.iter().any(|&s| s > 0.0 && s < 1.0),
        "no instance crossfades: {shares:?}"
    );
    assert!(shares.contains(&0.0) && shares.contains(&1.0), "{shares:?}");
    for (c, got) in cases.iter().zip(outs) {
        let got = numbers(got, "points");
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

/// A case's output from the page: the numbers of a JSON array (`what` names it in a failure).
fn numbers(v: &serde_json::Value, what: &str) -> Vec<f64> {
    v.as_array()
        .unwrap_or_else(|| panic!("{what}: not an array: {v}"))
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect()
}
