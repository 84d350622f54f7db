//! End to end on real assets: what the baked GPU paths draw against what the source glTF says.
//!
//! - Image: the Fox baked in memory (mat4-f32 and quat-f32, K = 4 influences) drawn by the
//!   texture path against the same Fox skinned on the CPU from the SOURCE glTF by throng-anim
//!   (reference path) at a time exactly on a baked frame. Both PNGs and a diff PNG (red = a
//!   channel differs by more than 8/255) go to the test target dir for people to look at.
//! - Numbers: the GPU compute twin of the vertex stage against throng-asset's CPU decoder for
//!   Fox and CesiumMan baked with every encoding, two layers at fractional frames, LBS (and DQ
//!   for quat-*).
//!
//! Without a GPU adapter the tests skip outside CI and fail in CI (`test_gpu()`); without the
//! asset folder they skip outside CI (`throng_testdata::asset`).

mod common;

use common::{asset_and_gpu, diff_image, differing, ok, ok_json, read_gif, read_png, s, save};
use glam::Vec4;
use throng_asset::decode::skin_vertices;
use throng_asset::{Aabb, BakedAsset, Encoding, Layer};
use throng_render::compute::skin_on_gpu;
use throng_render::gpu_asset::skin_inputs;
use throng_render::gpu_types::{single_layer, InstanceRecord};
use throng_render::image::RgbaImage;
use throng_render::{
    Camera, Gpu, GpuAsset, InstanceTransform, Playback, Records, RenderOptions, Renderer, Skinning,
};

fn bake(model: &throng_anim::Model, name: &str, encoding: Encoding) -> BakedAsset {
    let opts = throng_bake::BakeOptions {
        source_name: name.into(),
        encoding,
        influences: 4,
        ..Default::default()
    };
    match throng_bake::bake(model, &opts) {
        Ok((asset, _)) => asset,
        Err(e) => panic!("baking {name} as {}: {e}", encoding.as_str()),
    }
}

fn import(path: &std::path::Path) -> throng_anim::Model {
    match throng_gltf::import(path) {
        Ok(m) => m,
        Err(e) => panic!("importing {}: {e}", path.display()),
    }
}

/// The source Fox and a GPU, or `None` (skip) when either is missing outside CI.
fn fox_and_gpu() -> Option<(throng_anim::Model, Gpu)> {
    let path = throng_testdata::asset("Fox.glb")?;
    let gpu = throng_render::device::test_gpu()?;
    Some((import(&path), gpu))
}

/// A `w` × `h` still with its camera framed on `scene` and no ground (the ground is sized from
/// the scene bounds, which the texture and reference paths compute differently).
fn framed(w: u32, h: u32, scene: &Aabb) -> RenderOptions {
    RenderOptions {
        width: w,
        height: h,
        camera: Some(Camera::framing(scene, w as f32 / h as f32)),
        ground: false,
        ..Default::default()
    }
}

fn upload(renderer: &Renderer, asset: &BakedAsset) -> GpuAsset {
    match renderer.upload(asset) {
        Ok(g) => g,
        Err(e) => panic!("uploading the Fox: {e}"),
    }
}

/// `records` drawn by the texture path.
fn texture_image(
    renderer: &mut Renderer,
    g: &GpuAsset,
    transforms: &[InstanceTransform],
    records: &[InstanceRecord],
    opts: &RenderOptions,
) -> RgbaImage {
    match renderer.render_texture(g, transforms, records, opts) {
        Ok(i) => i,
        Err(e) => panic!("texture path: {e}"),
    }
}

/// The source Fox skinned on the CPU by throng-anim at `time` seconds of clip `clip`: one
/// The source skinned on the CPU at `time` of clip `clip` (every influence it has: Fox has at
/// most 4 per vertex, the same set the K = 4 bake keeps), drawn by the reference path with the
/// source's materials.
fn reference_image(
    renderer: &mut Renderer,
    model: &throng_anim::Model,
    clip: usize,
    time: f32,
    transforms: &[InstanceTransform],
    opts: &RenderOptions,
) -> RgbaImage {
    let mut skinner = throng_anim::ModelSkinner::new(model);
    let mut parts = Vec::new();
    skinner.skin(
        model,
        Some(clip),
        time,
        throng_anim::Skinning::Linear,
        &mut parts,
    );
    let parts = vec![parts; transforms.len()];
    let meshes = throng_scene::source_meshes(model, &parts, transforms);
    match renderer.render_reference(&meshes, opts) {
        Ok(i) => i,
        Err(e) => panic!("reference path: {e}"),
    }
}

/// Between frames, where sampling in time decides fidelity: Fox's Walk halfway between two
/// 30 fps frames (30 fps errs 1.8e-2 of the diagonal there), drawn from the default
/// error-budgeted bake and from a 30 fps bake, each against the source skinned on the CPU at
/// that time. The budgeted still matches within the same 0.5 % of pixels as a still on a frame;
/// the 30 fps one does not. PNGs and diffs go to the test target dir.
#[test]
fn between_frames_the_budgeted_bake_draws_what_the_source_draws() {
    let Some((model, gpu)) = fox_and_gpu() else {
        return;
    };
    let mut renderer = Renderer::with_gpu(gpu);
    let (w, h) = (384u32, 384u32);
    let budgeted = bake(&model, "Fox.glb", Encoding::QuatSnorm16);
    let uniform = match throng_bake::bake(
        &model,
        &throng_bake::BakeOptions {
            source_name: "Fox.glb".into(),
            sampling: throng_bake::Sampling::Fixed(30.0),
            ..Default::default()
        },
    ) {
        Ok((a, _)) => a,
        Err(e) => panic!("baking Fox at 30 fps: {e}"),
    };
    let ci = budgeted
        .clips
        .iter()
        .position(|c| c.name == "Walk")
        .expect("Walk");
    // Halfway between 30 fps frames 7 and 8 of Walk.
    let time = 0.5 * (uniform.clips[ci].frame_time(7) + uniform.clips[ci].frame_time(8));
    let transforms = [InstanceTransform::IDENTITY];
    let first = budgeted.clips[ci].first_row as usize;
    let scene = budgeted.row_bounds[first..first + budgeted.clips[ci].frames as usize]
        .iter()
        .fold(Aabb::EMPTY, |a, b| a.union(b));
    let opts = framed(w, h, &scene);
    let reference = reference_image(&mut renderer, &model, ci, time as f32, &transforms, &opts);
    save(&reference, "fox-between-source-reference.png");
    let total = (w * h) as usize;
    let mut differ = Vec::new();
    for (tag, asset) in [("budget", &budgeted), ("30fps", &uniform)] {
        let s = asset.clips[ci].sample(time);
        let record = single_layer(s.row, s.frac, ci as u32);
        let g = upload(&renderer, asset);
        let img = texture_image(&mut renderer, &g, &transforms, &[record], &opts);
        save(&img, &format!("fox-between-{tag}.png"));
        save(
            &diff_image(&img, &reference, 8),
            &format!("fox-between-{tag}-diff.png"),
        );
        let n = differing(&img, &reference, 8);
        eprintln!(
            "Fox Walk at t = {time:.4} s ({tag}, row {} frac {:.3}): {n} of {total} pixels differ by more than 8/255 from the source",
            s.row, s.frac
        );
        differ.push(n);
    }
    assert!(
        differ[0] * 200 <= total,
        "budgeted bake: {} pixels differ",
        differ[0]
    );
    assert!(
        differ[1] > 2 * differ[0],
        "30 fps should differ visibly more: {differ:?}"
    );
}

#[test]
fn baked_fox_on_the_texture_path_draws_what_the_source_fox_skinned_on_the_cpu_draws() {
    let Some((model, gpu)) = fox_and_gpu() else {
        return;
    };
    // The K = 4 bake truncates nothing on the Fox: no source vertex has a 5th influence.
    for mesh in &model.meshes {
        for prim in &mesh.primitives {
            assert!(
                prim.joint_sets.len() <= 1,
                "Fox has more than 4 influences per vertex: compare against the truncated set"
            );
        }
    }
    let mut renderer = Renderer::with_gpu(gpu);
    let (w, h) = (384u32, 384u32);
    for encoding in [Encoding::Mat4F32, Encoding::QuatF32] {
        let asset = bake(&model, "Fox.glb", encoding);
        // Clip 1 (Walk) at a frame in its first third: a pose far from the rest pose, sampled
        // exactly on a baked row so no frame interpolation is involved.
        let ci = 1.min(asset.clips.len() - 1);
        let clip = &asset.clips[ci];
        let k = clip.frames / 3;
        let time = clip.frame_time(k) as f32;
        let record: InstanceRecord = single_layer(clip.first_row + k, 0.0, ci as u32);
        let g = upload(&renderer, &asset);
        let transforms = [InstanceTransform::IDENTITY];
        // Both paths get the same camera, framed on this row's bounds so the Fox fills the
        // picture (the texture path would frame from all clips' bounds, the reference path
        // from its vertices), and no ground (sized from those bounds too).
        let scene = asset.row_bounds[(clip.first_row + k) as usize];
        let opts = framed(w, h, &scene);
        let tex = texture_image(&mut renderer, &g, &transforms, &[record], &opts);

        let reference = reference_image(&mut renderer, &model, ci, time, &transforms, &opts);
        let tag = encoding.as_str();
        save(&tex, &format!("fox-{tag}-texture.png"));
        save(&reference, &format!("fox-{tag}-source-reference.png"));
        save(
            &diff_image(&tex, &reference, 8),
            &format!("fox-{tag}-diff.png"),
        );

        let total = (w * h) as usize;
        // The Fox covers a good part of the picture (not a blank or background-only frame).
        let fox = tex
            .pixels()
            .filter(|p| p[0] as i32 > p[2] as i32 + 30)
            .count();
        assert!(fox > total / 50, "{tag}: only {fox} fox pixels of {total}");
        let differ = differing(&tex, &reference, 8);
        eprintln!(
            "Fox {tag}, clip {} frame {k} (t = {time:.4} s): {fox} fox pixels, {differ} of \
             {total} differ by more than 8/255 from the source skinned on the CPU",
            clip.name
        );
        // ≤ 0.5 % of the pixels: rasterisation of float-close vertices differs along edges.
        assert!(
            differ * 200 <= total,
            "{tag}: {differ} of {total} pixels differ from the source reference (> 0.5 %)"
        );
        // The comparison sees poses: a few frames later the same check fails.
        let later = single_layer(
            clip.first_row + (k + 4).min(clip.frames - 1),
            0.0,
            ci as u32,
        );
        let moved = texture_image(&mut renderer, &g, &transforms, &[later], &opts);
        let moved_differ = differing(&moved, &reference, 8);
        assert!(
            moved_differ * 200 > total,
            "{tag}: frame {k} + 4 differs in only {moved_differ} pixels: the check is blind"
        );
    }
}

/// Two-layer records at fractional frames: a 0.6/0.4 blend of two clips (or one clip at two
/// times) and a last-frame record with frac 0.
fn records(asset: &BakedAsset) -> Vec<InstanceRecord> {
    let c0 = &asset.clips[0];
    let i1 = if asset.clips.len() > 1 { 1 } else { 0 };
    let c1 = &asset.clips[i1];
    let mut blend = single_layer(c0.first_row + c0.frames / 3, 0.37, 0);
    blend.layers[0].weight = 0.6;
    blend.layers[1] = Layer {
        weight: 0.4,
        frac: 0.71,
        row: (c1.first_row + c1.frames / 2) as f32,
        clip: i1 as u32,
    };
    let mut second = single_layer(c1.first_row + 1, 0.52, i1 as u32);
    second.layers[0].weight = 0.25;
    second.layers[1] = Layer {
        weight: 0.75,
        frac: 0.13,
        row: (c0.first_row + c0.frames - 2) as f32,
        clip: 0,
    };
    vec![blend, second]
}

#[test]
fn gpu_skinning_matches_the_cpu_decoder_on_real_assets_for_every_encoding() {
    let Some(gpu) = throng_render::device::test_gpu() else {
        return;
    };
    for file in ["Fox.glb", "CesiumMan.glb"] {
        let Some(path) = throng_testdata::asset(file) else {
            return;
        };
        let model = import(&path);
        for encoding in Encoding::ALL {
            let asset = bake(&model, file, encoding);
            // quat-* may fall back to mat3x4-* (non-uniform scale): test what was baked.
            let baked = asset.bone_texture.encoding;
            let g = match GpuAsset::new(&gpu, &asset) {
                Ok(g) => g,
                Err(e) => panic!("uploading {file}: {e}"),
            };
            let recs = records(&asset);
            assert!(recs
                .iter()
                .all(|r| r.layers[0].frac != 0.0 && r.layers[1].frac != 0.0));
            let skinnings: &[Skinning] = if baked.is_quat() {
                &[Skinning::Linear, Skinning::DualQuat]
            } else {
                &[Skinning::Linear]
            };
            for &sk in skinnings {
                let mode = sk;
                let mut worst = 0.0f32;
                let mut bounds = Aabb::EMPTY;
                let mut vertices = 0;
                for (pi, p) in asset.primitives.iter().enumerate() {
                    let inputs = skin_inputs(p);
                    let out = match skin_on_gpu(
                        &gpu,
                        &g,
                        &inputs,
                        Playback::Records(Records::Cpu(&recs)),
                        sk,
                    ) {
                        Ok(o) => o,
                        Err(e) => panic!("{file} {}: GPU skinning: {e}", baked.as_str()),
                    };
                    for (ri, r) in recs.iter().enumerate() {
                        let cpu = match skin_vertices(&asset, pi, &r.layers, mode) {
                            Ok(c) => c,
                            Err(e) => panic!("{file} {}: CPU decoder: {e}", baked.as_str()),
                        };
                        for (v, c) in cpu.positions.iter().enumerate() {
                            bounds.extend(*c);
                            let gp = Vec4::from(out[ri * inputs.len() + v].position).truncate();
                            worst = worst.max((gp - *c).length());
                            vertices += 1;
                        }
                    }
                }
                let diag = bounds.diagonal();
                assert!(diag > 0.0 && vertices > 0, "{file}: nothing skinned");
                eprintln!(
                    "{file:14} {:13} {:3}: max |GPU − CPU| = {:.2e} of the bounding diagonal \
                     ({vertices} vertices)",
                    baked.as_str(),
                    sk.as_str(),
                    worst / diag
                );
                assert!(
                    worst <= 1e-6 * diag,
                    "{file} {} {}: GPU and CPU skinned positions differ by {worst} \
                     (> 1e-6 × diagonal {diag})",
                    baked.as_str(),
                    sk.as_str()
                );
            }
        }
    }
}

#[test]
fn cli_gpu_timed_crowd_draws_what_the_cpu_timed_crowd_draws() {
    let Some(fox) = asset_and_gpu("Fox.glb") else {
        return;
    };
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let fox = s(&fox);
    let mut images = Vec::new();
    for timing in ["cpu", "gpu"] {
        let out = dir.join(format!("cli-fox-{timing}-timed.png"));
        let out_s = s(&out);
        // The source Fox baked in memory (quat-f32, K = 4), 9 instances of Walk 0.1 s apart.
        ok(&[
            "render",
            &fox,
            "--encoding",
            "quat-f32",
            "--influences",
            "4",
            "--timing",
            timing,
            "--clip",
            "Walk",
            "--time",
            "0.3",
            "--stagger",
            "0.1",
            "--instances",
            "9",
            "--size",
            "320x240",
            "-o",
            &out_s,
        ]);
        images.push(read_png(&out));
    }
    let total = images[0].pixels().len();
    let differ = differing(&images[0], &images[1], 8);
    save(
        &diff_image(&images[0], &images[1], 8),
        "cli-fox-timing-diff.png",
    );
    eprintln!("CPU- vs GPU-timed: {differ} of {total} pixels differ by more than 8/255");
    // The runtime's clock is in integer ticks, the CPU path in f64 seconds: frame fractions
    // agree to ~1e-4, so only a few edge pixels may differ.
    assert!(
        differ * 200 <= total,
        "{differ} of {total} pixels differ between CPU and GPU timing"
    );
}

#[test]
fn cli_writes_an_animated_gif_of_a_seeded_random_crowd() {
    let Some(fox) = asset_and_gpu("Fox.glb") else {
        return;
    };
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let out = dir.join("cli-fox-crowd.gif");
    let fox = s(&fox);
    let out_s = s(&out);
    ok(&[
        "render",
        &fox,
        "--timing",
        "gpu",
        "--layout",
        "random",
        "--seed",
        "3",
        "--random-phase",
        "--instances",
        "12",
        "--frames",
        "6",
        "--fps",
        "10",
        "--size",
        "256x192",
        "-o",
        &out_s,
    ]);
    let frames = read_gif(&out);
    assert_eq!(frames.len(), 6, "one GIF frame per --frames");
    for (i, f) in frames.iter().enumerate() {
        let (n, d) = f.delay().numer_denom_ms();
        assert!(
            (n as f64 / d as f64 - 100.0).abs() < 1.0,
            "frame {i}: delay {n}/{d} ms, want 100 ms at 10 fps"
        );
    }
    save(frames[0].buffer(), "cli-fox-crowd-frame0.png");
    save(frames[3].buffer(), "cli-fox-crowd-frame3.png");
    // The crowd moves: consecutive frames differ (not one picture repeated).
    for w in frames.windows(2) {
        let moved = differing(w[0].buffer(), w[1].buffer(), 8);
        assert!(
            moved > 50,
            "consecutive GIF frames differ in only {moved} pixels"
        );
    }
}

#[test]
fn cli_bench_render_reports_every_path_with_draws_and_uploads() {
    if throng_render::device::test_gpu().is_none() {
        return;
    }
    let v = ok_json(&[
        "bench",
        "render",
        "--instances",
        "1,3",
        "--frames",
        "1",
        "--size",
        "64x64",
        "--json",
    ]);
    let prims = v["primitives"].as_u64().unwrap_or(0);
    assert!(prims > 0, "no primitives in {v}");
    let cases = v["cases"].as_array().cloned().unwrap_or_default();
    // The built-in fox is baked with a VAT: 4 paths × 2 counts.
    assert_eq!(cases.len(), 8, "{v}");
    for c in &cases {
        let n = c["instances"].as_u64().unwrap_or(0);
        let path = c["path"].as_str().unwrap_or("");
        let draws = c["draws"].as_u64().unwrap_or(0);
        // One indirect draw per primitive on the GPU paths, one per instance and primitive on
        // the reference path; plus the ground.
        let want = if path == "reference" {
            n * prims + 1
        } else {
            prims + 1
        };
        assert_eq!(draws, want, "{path} × {n}: draws");
        assert!(c["frame_ms"].as_f64().unwrap_or(-1.0) > 0.0, "{c}");
        assert!(c["upload_bytes"].as_u64().unwrap_or(0) > 0, "{c}");
        if path == "texture" {
            assert_eq!(c["vs_texture"].as_f64(), Some(1.0));
        }
        // The palette pass is timed wherever the frame is.
        if path == "palette" && c["gpu_ms"].is_number() {
            assert!(c["palette_ms"].as_f64().unwrap_or(-1.0) > 0.0, "{c}");
        }
    }
}

/// `render BAKED` (texture path) and `render BAKED --path reference --source SRC` (the source
/// skinned on the CPU at full rate) frame the still with the same camera, ground and shadow
/// camera, so at a baked frame time the two images agree: at most 1 % of the pixels differ by
/// more than 8/255 (Fox, CesiumMan; a crowd of 4 and one instance).
#[test]
fn cli_texture_and_reference_stills_of_one_bake_match() {
    if throng_render::device::test_gpu().is_none() {
        return;
    }
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    for (name, extra) in [
        ("Fox.glb", &["--clip", "Walk", "--time", "0.1"][..]),
        ("CesiumMan.glb", &["--instances", "4", "--time", "0.5"][..]),
    ] {
        let Some(src) = common::asset_arg(name) else {
            return;
        };
        let baked = dir.join(format!("still-{name}"));
        let baked_s = s(&baked);
        ok(&["bake", &src, "-o", &baked_s, "--no-verify"]);
        let mut images = Vec::new();
        for (tag, path) in [
            ("texture", &[][..]),
            ("reference", &["--path", "reference", "--source", &src][..]),
        ] {
            let out = dir.join(format!("still-{name}-{tag}.png"));
            let out_s = s(&out);
            let mut args = vec!["render", &baked_s, "--size", "320x240", "-o", &out_s];
            args.extend_from_slice(extra);
            args.extend_from_slice(path);
            ok(&args);
            images.push(read_png(&out));
        }
        let total = images[0].pixels().len();
        let differ = differing(&images[0], &images[1], 8);
        save(
            &diff_image(&images[0], &images[1], 8),
            &format!("still-{name}-diff.png"),
        );
        eprintln!("{name}: texture vs reference --source: {differ} of {total} pixels differ by more than 8/255");
        assert!(
            differ * 100 <= total,
            "{name}: {differ} of {total} pixels differ"
        );
    }
}
