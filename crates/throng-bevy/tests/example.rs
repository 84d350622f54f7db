//! Runs the example (examples/bevy_crowd.rs) in an Xvfb window: 16 foxes drawn by throng
//! inside Bevy's renderer, and the same 16 as Bevy's own glTF scenes animated by
//! `AnimationPlayer`, each saved with Bevy's screenshot API after 40 frames of 0.1 s.
//!
//! What is checked, with its tolerance:
//! - the throng picture shows foxes where expected: fox-coloured pixels (the texture's orange,
//!   lit) cover at least 0.5 % of the picture, all within the middle 80 % of its width and the
//!   band where the camera frames the field, and the top strip (above the field) is clear
//!   colour;
//! - it shows them where Bevy's own path draws the same foxes: of the pixels that are not clear
//!   colour in either picture, at least 80 % are covered in both (intersection over union of
//!   the two silhouettes ≥ 0.8, measured 0.997: same layout, camera, clips and start times,
//!   time starting in both when the scene is ready; legs differ by the two animation paths'
//!   sampling and the baked error budget);
//! - the two skinning paths draw the same picture: the palette path (a palette pass, then one
//!   matrix read per influence; the default) and the texture path (`--path texture`, every
//!   influence blended from the bone texture in the vertex stage) run throng's shared WGSL
//!   (`throng::pose`, `throng::skin`) in the same order, so at most 0.5 % of pixels differ by
//!   more than 8 levels in a channel (edges, where the compute and vertex stages round
//!   differently).
//! - over a ground plane the crowd casts into Bevy's shadow map where Bevy's foxes cast
//!   theirs, it is drawn into the camera's depth, normal and motion-vector prepasses without
//!   changing the picture, and its motion vectors are where Bevy's are, of the same size (each
//!   test's doc gives its tolerances); the VAT path (`--path vat`) too;
//! - each skinning choice (palette, dual quaternions, VAT) and LOD meshes draw throng-render's
//!   picture of the same scene, dumped by the example (`--dump-scene`), both drawing the
//!   normals debug view (`--debug normals`, the shading both renderers share): at most 1 % of
//!   pixels differ by more than 8 levels.
//!
//! Needs `xvfb-run` (apt: xvfb xauth), a Vulkan adapter (lavapipe: mesa-vulkan-drivers) and
//! `THRONG_ASSETS/Fox.glb`; outside CI a missing tool or asset skips, under `CI` it fails.
//! The example binary is the one `cargo test` builds with the tests (target/*/examples).

mod common;

use std::path::Path;
use throng_render::Records;

use common::{differing_share, have, shoot_with};
use image::RgbaImage;

fn shoot(mode: &str, path: &str, out: &Path) -> RgbaImage {
    shoot_with(mode, path, &[], out).image
}

/// The example's clear colour, sRGB (0.05, 0.07, 0.12) as stored in the screenshot: within 6
/// levels per channel.
fn clear(p: &[u8]) -> bool {
    let c = [13i32, 18, 31];
    p[..3]
        .iter()
        .zip(c)
        .all(|(&v, c)| (v as i32 - c).abs() <= 6)
}

/// The fox texture's orange, lit: red well above blue.
fn orange(p: &[u8]) -> bool {
    p[0] as i32 > p[2] as i32 + 40 && p[0] as i32 > p[1] as i32 + 10
}

#[test]
fn the_example_draws_foxes_where_bevy_draws_them() {
    let Some(dir) = example_dir("bevy_crowd") else {
        return;
    };
    let throng = shoot("throng", "palette", &dir.join("throng.png"));
    let texture = shoot("throng", "texture", &dir.join("throng-texture.png"));
    let bevy = shoot("bevy", "palette", &dir.join("bevy.png"));
    assert_eq!(throng.dimensions(), bevy.dimensions());
    assert_eq!(throng.dimensions(), texture.dimensions());
    let (w, h) = throng.dimensions();

    let differ = throng
        .pixels()
        .zip(texture.pixels())
        .filter(|(a, b)| a.0.iter().zip(b.0).any(|(&x, y)| x.abs_diff(y) > 8))
        .count();
    let differ_share = differ as f64 / (w * h) as f64;
    eprintln!("palette vs texture path: {differ} pixels differ by > 8 levels ({differ_share:.4})");
    assert!(
        differ_share <= 0.005,
        "the palette and texture paths draw different pictures: {differ} pixels ({differ_share:.4})"
    );

    let mut fox = 0usize;
    let mut outside = 0usize;
    let mut top_not_clear = 0usize;
    for (x, y, p) in throng.enumerate_pixels() {
        if orange(&p.0) {
            fox += 1;
            if x < w / 10 || x > w - w / 10 {
                outside += 1;
            }
        }
        if y < h / 12 && !clear(&p.0) {
            top_not_clear += 1;
        }
    }
    let share = fox as f64 / (w * h) as f64;
    eprintln!("throng: fox pixels {share:.4}, outside the middle {outside}, top strip not clear {top_not_clear}");
    assert!(share > 0.005, "too few fox pixels: {share:.4}");
    assert_eq!(outside, 0, "fox pixels outside the field's columns");
    assert!(
        top_not_clear < (w as usize) / 10,
        "the strip above the field is not clear colour ({top_not_clear} pixels)"
    );

    let (mut both, mut either) = (0usize, 0usize);
    for (a, b) in throng.pixels().zip(bevy.pixels()) {
        let (fa, fb) = (!clear(&a.0), !clear(&b.0));
        both += (fa && fb) as usize;
        either += (fa || fb) as usize;
    }
    let iou = both as f64 / either.max(1) as f64;
    eprintln!("silhouettes: throng ∩ bevy / throng ∪ bevy = {iou:.3} ({both} / {either})");
    assert!(either > 0, "both pictures empty");
    assert!(
        iou >= 0.8,
        "throng's foxes are not where Bevy draws them: IoU {iou:.3}"
    );
}

/// Intersection over union of the not-clear-colour pixels of two pictures.
fn silhouette_iou(a: &RgbaImage, b: &RgbaImage) -> f64 {
    let (mut both, mut either) = (0usize, 0usize);
    for (a, b) in a.pixels().zip(b.pixels()) {
        let (fa, fb) = (!clear(&a.0), !clear(&b.0));
        both += (fa && fb) as usize;
        either += (fa || fb) as usize;
    }
    both as f64 / either.max(1) as f64
}

/// Dual-quaternion skinning (`--skinning dq`: Fox baked with quat-f32, the crowd's
/// `with_skinning(DualQuat)`): the palette and texture paths draw the same picture (≤ 0.5 % of
/// pixels differ by more than 8 levels, as for linear blend skinning: the same shared WGSL,
/// `throng::pose` and `throng::skin` with `DUAL_QUAT`, rounded in compute or vertex stage),
/// the foxes stand where linear blend skinning draws them (silhouette IoU ≥ 0.9: DQ keeps
/// volume at bent joints, so outlines move by a pixel or two) and the picture is not LBS's
/// (some pixels differ: the def reached the shaders).
#[test]
fn dual_quaternion_skinning_draws_the_same_foxes_on_both_paths() {
    let Some(dir) = example_dir("bevy_crowd") else {
        return;
    };
    let dq = ["--skinning", "dq"];
    let palette = shoot_with("throng", "palette", &dq, &dir.join("throng-dq.png")).image;
    let texture = shoot_with("throng", "texture", &dq, &dir.join("throng-dq-texture.png")).image;
    let lbs = shoot("throng", "palette", &dir.join("throng-lbs.png"));
    let paths = differing_share(&palette, &texture);
    let iou = silhouette_iou(&palette, &lbs);
    let from_lbs = differing_share(&palette, &lbs);
    eprintln!(
        "dq: palette vs texture {paths:.4} differ; vs lbs: IoU {iou:.3}, {from_lbs:.4} differ"
    );
    assert!(
        paths <= 0.005,
        "dq palette and texture paths differ in {paths:.4}"
    );
    assert!(
        iou >= 0.9,
        "dq foxes are not where lbs draws them: IoU {iou:.3}"
    );
    assert!(
        from_lbs > 0.0,
        "the dq picture is lbs's: DUAL_QUAT did not reach the shaders"
    );
}

/// The ground plane's grey (the example's `--ground`): channels within a few levels of each
/// other, red at least blue (the clear colour is bluer), so neither the fox's orange nor the
/// background.
fn grey(p: &[u8]) -> bool {
    let [r, g, b] = [p[0] as i32, p[1] as i32, p[2] as i32];
    (r - g).abs() <= 8 && r >= b && r - b <= 24
}

/// Ground in shadow: grey and dark (lit ground is ~175, shadowed ~34 at these lights).
fn shadowed(p: &[u8]) -> bool {
    grey(p) && p[0] < 100
}

fn mask(image: &RgbaImage, f: impl Fn(&[u8]) -> bool) -> Vec<bool> {
    image.pixels().map(|p| f(&p.0)).collect()
}

fn iou(a: &[bool], b: &[bool]) -> f64 {
    let both = a.iter().zip(b).filter(|(x, y)| **x && **y).count();
    let either = a.iter().zip(b).filter(|(x, y)| **x || **y).count();
    both as f64 / either.max(1) as f64
}

/// The number `label` the example printed in its "throng crowd items" line.
fn printed_items(stdout: &str, label: &str) -> u32 {
    let line = stdout
        .lines()
        .find(|l| l.contains("throng crowd items"))
        .unwrap_or_else(|| panic!("no crowd item counts in:\n{stdout}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words
        .windows(3)
        .position(|w| w[1] == "in" && w[2].starts_with(label))
        .unwrap_or_else(|| panic!("no '{label}' count in: {line}"));
    words[at]
        .parse()
        .unwrap_or_else(|_| panic!("count of '{label}' in: {line}"))
}

/// throng's crowds cast into Bevy's shadow map: over a ground plane (`--ground`) the shadowed
/// ground of throng's picture is where Bevy's own foxes' shadows fall (intersection over union
/// of the two shadow masks ≥ 0.8, as for the silhouettes; measured 0.987), and without shadow maps
/// (`--no-shadows`) that ground is lit (shadowed pixels fall to under a third). The texture
/// and VAT paths cast the palette path's shadows (IoU ≥ 0.9).
#[test]
fn the_crowd_casts_shadows_where_bevys_foxes_do() {
    let Some(dir) = example_dir("bevy_crowd_shadows") else {
        return;
    };
    let ground = ["--ground"];
    let throng = shoot_with("throng", "palette", &ground, &dir.join("throng.png"));
    let texture = shoot_with(
        "throng",
        "texture",
        &ground,
        &dir.join("throng-texture.png"),
    );
    let vat = shoot_with("throng", "vat", &ground, &dir.join("throng-vat.png"));
    let bevy = shoot_with("bevy", "palette", &ground, &dir.join("bevy.png"));
    let unlit = shoot_with(
        "throng",
        "palette",
        &["--ground", "--no-shadows"],
        &dir.join("throng-no-shadows.png"),
    );
    assert!(
        printed_items(&throng.stdout, "light") > 0,
        "{}",
        throng.stdout
    );
    assert_eq!(printed_items(&unlit.stdout, "light"), 0, "{}", unlit.stdout);

    let shadow = mask(&throng.image, shadowed);
    let count = |m: &[bool]| m.iter().filter(|&&x| x).count();
    let (w, h) = throng.image.dimensions();
    let share = count(&shadow) as f64 / (w * h) as f64;
    let without = count(&mask(&unlit.image, shadowed));
    let overlap = iou(&shadow, &mask(&bevy.image, shadowed));
    let paths = iou(&shadow, &mask(&texture.image, shadowed));
    let vat_paths = iou(&shadow, &mask(&vat.image, shadowed));
    eprintln!(
        "shadowed ground: throng {share:.4} of the picture ({} px), without shadow maps {without} px; IoU with Bevy's {overlap:.3}, palette vs texture path {paths:.3}, vs VAT path {vat_paths:.3}",
        count(&shadow)
    );
    assert!(
        vat_paths >= 0.9,
        "the VAT path casts other shadows than the palette path: IoU {vat_paths:.3}"
    );
    assert!(share > 0.003, "too little shadowed ground: {share:.4}");
    assert!(
        without * 3 < count(&shadow),
        "the ground is as dark without shadow maps ({without} px) as with ({} px)",
        count(&shadow)
    );
    assert!(
        overlap >= 0.8,
        "throng's shadows are not where Bevy's foxes cast theirs: IoU {overlap:.3}"
    );
    assert!(
        paths >= 0.9,
        "the texture path casts other shadows than the palette path: IoU {paths:.3}"
    );
}

/// throng's crowds are drawn into Bevy's depth, normal and motion-vector prepasses: with
/// `--prepass depth|normal|motion` the example queues the crowd into the camera's prepass
/// phase, no pipeline fails, and the picture is the one without a prepass (at most 0.5 % of
/// pixels differ by more than 8 levels). The main pass draws over the prepass's depth with
/// Bevy's `GreaterEqual` test, so a crowd depth that differed from the main pass's would
/// show: holes in the foxes where it is behind, the ground's pixels missing where it is in
/// front.
#[test]
fn the_crowd_is_drawn_into_bevys_prepasses() {
    let Some(dir) = example_dir("bevy_crowd_prepass") else {
        return;
    };
    for path in ["palette", "texture", "vat"] {
        let plain = shoot_with(
            "throng",
            path,
            &["--ground"],
            &dir.join(format!("{path}.png")),
        );
        assert_eq!(printed_items(&plain.stdout, "cameras"), 0);
        for prepass in ["depth", "normal", "motion"] {
            let out = dir.join(format!("{path}-{prepass}.png"));
            let shot = shoot_with("throng", path, &["--ground", "--prepass", prepass], &out);
            assert!(
                printed_items(&shot.stdout, "cameras") > 0,
                "--prepass {prepass}: the crowd was not queued into the prepass:\n{}",
                shot.stdout
            );
            let (w, h) = shot.image.dimensions();
            let differ = shot
                .image
                .pixels()
                .zip(plain.image.pixels())
                .filter(|(a, b)| a.0.iter().zip(b.0).any(|(&x, y)| x.abs_diff(y) > 8))
                .count();
            let share = differ as f64 / (w * h) as f64;
            eprintln!("--path {path} --prepass {prepass}: {differ} pixels differ ({share:.4})");
            assert!(
                share <= 0.005,
                "--path {path} --prepass {prepass} draws another picture: {differ} pixels ({share:.4})"
            );
        }
    }
}

/// Per-pixel motion in an `--show-motion` picture: red and green levels away from the
/// picture's neutral colour (no motion; its most common pixel, the background), summed.
fn motion_levels(image: &RgbaImage) -> Vec<u32> {
    let mut counts = std::collections::HashMap::new();
    for p in image.pixels() {
        *counts.entry([p.0[0], p.0[1]]).or_insert(0usize) += 1;
    }
    let neutral = counts
        .into_iter()
        .max_by_key(|&(_, n)| n)
        .map(|(c, _)| c)
        .unwrap_or([128, 128]);
    image
        .pixels()
        .map(|p| p.0[0].abs_diff(neutral[0]) as u32 + p.0[1].abs_diff(neutral[1]) as u32)
        .collect()
}

/// throng's motion vectors are Bevy's: `--show-motion` pictures the camera's motion-vector
/// prepass (0.5 + 32 × motion in UV units per frame, in red and green). Bevy's foxes write
/// theirs from its skinned meshes' previous joint matrices, throng's from the crowd's previous
/// palette and transforms: the pixels that move (more than 12 levels away from still) overlap
/// with intersection over union ≥ 0.8 (measured 0.992), and their mean motion agrees within a
/// factor 1.25 (measured 36.5 and 36.5 levels; same clips, start times and 0.1 s frames; legs
/// differ as the silhouettes do). The texture and VAT paths
/// keep no previous pose, so their foxes, which stand in place, show almost no motion (fewer
/// than a fifth of the palette path's moving pixels).
#[test]
fn the_crowds_motion_vectors_are_where_bevys_are() {
    let Some(dir) = example_dir("bevy_crowd_motion") else {
        return;
    };
    let show = ["--show-motion"];
    let throng = shoot_with("throng", "palette", &show, &dir.join("throng.png"));
    let bevy = shoot_with("bevy", "palette", &show, &dir.join("bevy.png"));
    let texture = shoot_with("throng", "texture", &show, &dir.join("throng-texture.png"));
    let vat = motion_levels(&shoot_with("throng", "vat", &show, &dir.join("throng-vat.png")).image);
    let (t, b, x) = (
        motion_levels(&throng.image),
        motion_levels(&bevy.image),
        motion_levels(&texture.image),
    );
    let moving = |m: &[u32]| m.iter().map(|&v| v > 12).collect::<Vec<bool>>();
    let (mt, mb, mx) = (moving(&t), moving(&b), moving(&x));
    let count = |m: &[bool]| m.iter().filter(|&&v| v).count();
    let mean = |levels: &[u32], m: &[bool]| {
        let sum: u64 = levels
            .iter()
            .zip(m)
            .filter(|(_, &on)| on)
            .map(|(&v, _)| v as u64)
            .sum();
        sum as f64 / count(m).max(1) as f64
    };
    let overlap = iou(&mt, &mb);
    let (mean_t, mean_b) = (mean(&t, &mt), mean(&b, &mb));
    eprintln!(
        "moving pixels: throng {}, Bevy {}, texture path {}; IoU {overlap:.3}; mean motion throng {mean_t:.1} levels, Bevy {mean_b:.1}",
        count(&mt),
        count(&mb),
        count(&mx)
    );
    assert!(count(&mb) > 100, "Bevy's picture shows no motion");
    assert!(
        overlap >= 0.8,
        "throng's moving pixels are not Bevy's: IoU {overlap:.3}"
    );
    let ratio = mean_t / mean_b.max(1e-9);
    assert!(
        (1.0 / 1.25..=1.25).contains(&ratio),
        "throng's mean motion {mean_t:.1} levels against Bevy's {mean_b:.1}"
    );
    assert!(
        count(&mx) * 5 < count(&mt),
        "the texture path shows motion ({} pixels) it has no previous pose for",
        count(&mx)
    );
    let mv = moving(&vat);
    eprintln!("moving pixels: VAT path {}", count(&mv));
    assert!(
        count(&mv) * 5 < count(&mt),
        "the VAT path shows motion ({} pixels) it has no previous pose for",
        count(&mv)
    );
}

#[path = "../examples/support/scene_dump.rs"]
mod scene_dump;

/// Fox.glb baked as the example bakes it in memory: the default encoding, or quat-f32 for
/// dual quaternions; f32 VATs when `vat`; LOD meshes of `lods` (`--lod`).
fn fox_as_the_example_bakes_it(
    encoding: throng_asset::Encoding,
    vat: bool,
    lods: &[f32],
) -> throng_asset::BakedAsset {
    let path = throng_testdata::asset("Fox.glb").expect("Fox.glb");
    let bytes = std::fs::read(&path).expect("read Fox.glb");
    let model = throng_gltf::import_slice(&bytes, None, "Fox.glb").expect("import Fox.glb");
    let options = throng_bake::BakeOptions {
        source_name: "Fox.glb".into(),
        encoding,
        vat: vat.then_some(throng_asset::VatEncoding::F32),
        lods: lods.to_vec(),
        ..Default::default()
    };
    throng_bake::bake(&model, &options).expect("bake Fox.glb").0
}

/// throng-render's options for a `--dump-scene` file drawn on `path` with `skinning`: the same
/// size, camera, clear colour, culling and LOD bias, the normals debug view, no ground, no
/// shadows, no occlusion culling.
fn render_options(
    scene: &scene_dump::SceneDump,
    path: throng_render::SkinPath,
    skinning: throng_contract::Skinning,
) -> throng_render::RenderOptions {
    throng_render::RenderOptions {
        width: scene.width,
        height: scene.height,
        skinning,
        path,
        camera: Some(scene.render_camera()),
        ground: false,
        shadows: false,
        cull: scene.culled,
        lod_bias: scene.lod_bias,
        occlusion: false,
        debug: Some(throng_render::DebugView::Normals),
        background: scene.background,
        ..Default::default()
    }
}

/// The dumped scene's instance transforms and records.
fn scene_instances(
    scene: &scene_dump::SceneDump,
) -> (
    Vec<throng_contract::InstanceTransform>,
    Vec<throng_contract::InstanceRecord>,
) {
    let transforms: Vec<throng_contract::InstanceTransform> =
        bytemuck::pod_collect_to_vec(&scene.transforms);
    let records: Vec<throng_contract::InstanceRecord> =
        bytemuck::pod_collect_to_vec(&scene.records);
    assert_eq!(transforms.len(), records.len(), "dumped instances");
    (transforms, records)
}

/// What a test drawing the example's scene again with throng-render needs: Xvfb, Fox.glb and
/// an adapter (outside CI a missing one skips: `None`; under CI each fails), a renderer, and
/// its output folder `name` in the test target dir.
fn against_throng_render(name: &str) -> Option<(throng_render::Renderer, std::path::PathBuf)> {
    let dir = example_dir(name)?;
    let gpu = throng_render::device::test_gpu()?;
    Some((throng_render::Renderer::with_gpu(gpu), dir))
}

/// The output folder `name` of a test that runs the example on Fox.glb, made; None where the
/// example cannot run (no Xvfb, no Fox.glb: outside CI only, `have` and `throng_testdata`
/// fail loudly under CI).
fn example_dir(name: &str) -> Option<std::path::PathBuf> {
    if !have("xvfb-run") || throng_testdata::asset("Fox.glb").is_none() {
        return None;
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).expect("output dir");
    Some(dir)
}

/// Bevy's and throng-render's normals pictures of one scene: the same size, foxes on more
/// than 1 % of the pixels, at most 1 % of the pixels differing by more than 8/255.
fn same_picture(label: &str, bevy: &RgbaImage, render: &RgbaImage) {
    assert_eq!(bevy.dimensions(), render.dimensions(), "{label}");
    let (w, h) = render.dimensions();
    let covered = render.pixels().filter(|p| !clear(&p.0)).count();
    let share = differing_share(bevy, render);
    eprintln!(
        "{label}: Bevy's and throng-render's normals differ by more than 8 levels in {share:.4} of the pixels ({} px; foxes cover {covered})",
        common::differing(bevy, render, 8)
    );
    assert!(
        covered > (w * h) as usize / 100,
        "{label}: too few fox pixels ({covered})"
    );
    assert!(
        share <= 0.01,
        "{label}: Bevy's and throng-render's pictures differ in {share:.4} of the pixels"
    );
}

/// Runs the example on 16 foxes (`shoot_with`, mode `throng`, `path`, `extra` flags) with the
/// normals debug view, MSAA off, dumping the scene of its screenshot's frame: the screenshot
/// (`{name}-bevy.png` in `dir`) and the scene.
fn shoot_dumped(
    dir: &Path,
    name: &str,
    path: &str,
    extra: &[&str],
) -> (common::Shot, scene_dump::SceneDump) {
    let json = dir.join(format!("{name}.json"));
    let json_arg = json.to_string_lossy().to_string();
    let mut args = extra.to_vec();
    args.extend(["--no-msaa", "--debug", "normals", "--dump-scene", &json_arg]);
    let shot = shoot_with("throng", path, &args, &dir.join(format!("{name}-bevy.png")));
    let scene = serde_json::from_slice(&std::fs::read(&json).expect("the dumped scene"))
        .expect("the dumped scene parses");
    (shot, scene)
}

/// throng-render's picture of a dumped scene (asset, transforms, playback, options), saved as
/// `{label}-throng-render.png` in `dir` and held to Bevy's by [`same_picture`].
fn draw_like_bevy(
    r: &mut throng_render::Renderer,
    (g, transforms, playback, opts): (
        &throng_render::GpuAsset,
        &[throng_contract::InstanceTransform],
        throng_render::Playback,
        &throng_render::RenderOptions,
    ),
    dir: &Path,
    label: &str,
    bevy: &RgbaImage,
) -> RgbaImage {
    let render = r
        .render_playback(g, transforms, playback, opts)
        .expect("throng-render draws the dumped scene");
    render
        .save(dir.join(format!("{label}-throng-render.png")))
        .expect("write png");
    same_picture(label, bevy, &render);
    render
}

/// Each of the plugin's skinning choices, and LOD meshes, draw throng-render's picture of the
/// same scene, pixel for pixel. Both renderers draw the crowd's world-space normals as colour,
/// unlit (`bevy_crowd --debug normals`: `ThrongDebugView::Normals`, the camera without
/// tonemapping or dithering; throng-render's `DebugView::Normals`; both written into an sRGB
/// target), so the comparison checks positions and normals of every path without either
/// renderer's lighting:
/// - the example (16 foxes, 320×180, MSAA off, 40 frames of 0.1 s) writes the camera, clear
///   colour, transforms, records and culling settings of the frame its screenshot shows
///   (`--dump-scene`); throng-render draws that scene from an asset baked the same way on the
///   same path and skinning — palette with linear blend skinning, palette with dual
///   quaternions, VAT, and palette with LOD meshes (`--lod 0.5,0.25,0.1`; both cull per
///   instance with the same LOD bias, 1 px, so each fox is drawn at the LOD throng-render's
///   culling picks, `tests/culling.rs` checks the lists): at most 1 % of the pixels differ by
///   more than 8/255 in a channel (measured: 21, 24, 27 and 89 of 57,600 pixels — 0.04 %,
///   0.04 %, 0.05 %, 0.15 % — where the foxes cover ~2,640 pixels, ~2,460 with LODs; 19, 21, 25
///   and 79 of them next to background: outline pixels the two rasterisations round
///   differently);
/// - LOD: throng-render's culling puts some fox at a coarser LOD (measured: 0, 8, 8 foxes at
///   LOD 0, 1, 2), and Bevy's picture differs from throng-render's LOD picture in fewer pixels
///   than from its LOD-0 picture, drawn without culling (measured 89 against 1,861) — Bevy drew
///   the coarser meshes where throng-render does;
/// - VAT against palette in Bevy: some pixel differs (the VAT def reached the shaders: the
///   crowd did not fall back to the palette path), at most 1 % by more than 8 levels (measured:
///   133 pixels differ, none by more than 8 levels).
///
/// Four example runs and five throng-render frames: ~11 s in release on lavapipe.
#[test]
fn each_skinning_choice_and_lod_draws_throng_renders_picture() {
    let Some((mut r, dir)) = against_throng_render("bevy_crowd_vs_render") else {
        return;
    };
    use throng_asset::Encoding;
    use throng_contract::Skinning;
    use throng_render::SkinPath;
    const LODS: [f32; 3] = [0.5, 0.25, 0.1];
    // label, bevy_crowd's --path, --skinning and --lod; throng-render's path and skinning
    type Case = (
        &'static str,
        &'static str,
        &'static str,
        &'static [f32],
        SkinPath,
        Skinning,
    );
    let cases: [Case; 4] = [
        (
            "palette",
            "palette",
            "lbs",
            &[],
            SkinPath::Palette,
            Skinning::Linear,
        ),
        (
            "dq",
            "palette",
            "dq",
            &[],
            SkinPath::Palette,
            Skinning::DualQuat,
        ),
        ("vat", "vat", "lbs", &[], SkinPath::Vat, Skinning::Linear),
        (
            "lod",
            "palette",
            "lbs",
            &LODS,
            SkinPath::Palette,
            Skinning::Linear,
        ),
    ];
    let mut bevy_pictures = std::collections::HashMap::new();
    for (label, path, skinning, lods, render_path, render_skinning) in cases {
        let lod_arg = lods
            .iter()
            .map(|l| l.to_string())
            .collect::<Vec<_>>()
            .join(",");
        let mut extra = vec!["--skinning", skinning];
        if !lods.is_empty() {
            extra.extend(["--lod", lod_arg.as_str()]);
        }
        let (bevy, scene) = shoot_dumped(&dir, label, path, &extra);
        assert!(scene.culled, "{label}: the example culls per instance");
        let encoding = match render_skinning {
            Skinning::DualQuat => Encoding::QuatF32,
            _ => Encoding::default(),
        };
        let asset = fox_as_the_example_bakes_it(encoding, render_path == SkinPath::Vat, lods);
        let g = r.upload(&asset).expect("upload to throng-render");
        let (transforms, records) = scene_instances(&scene);
        let opts = render_options(&scene, render_path, render_skinning);
        let playback = throng_render::Playback::Records(Records::Cpu(&records));
        let drawn = (&g, transforms.as_slice(), playback, &opts);
        let render = draw_like_bevy(&mut r, drawn, &dir, label, &bevy.image);
        if !lods.is_empty() {
            let crowd = throng_render::Crowd::new(
                &g,
                &transforms,
                throng_render::Playback::Records(Records::Cpu(&records)),
            );
            let lists = r
                .cull_lists(&crowd, &opts)
                .expect("throng-render culling")
                .main;
            let per_lod: Vec<usize> = lists.iter().map(Vec::len).collect();
            let lod0 = r
                .render_texture(
                    &g,
                    &transforms,
                    &records,
                    &throng_render::RenderOptions {
                        cull: false,
                        ..opts
                    },
                )
                .expect("throng-render draws the scene at LOD 0");
            lod0.save(dir.join(format!("{label}-throng-render-lod0.png")))
                .expect("write png");
            let (to_lod, to_lod0) = (
                common::differing(&bevy.image, &render, 8),
                common::differing(&bevy.image, &lod0, 8),
            );
            eprintln!(
                "{label}: throng-render's foxes per LOD {per_lod:?}; Bevy's picture differs from throng-render's LOD picture in {to_lod} px, from its LOD-0 picture in {to_lod0} px"
            );
            assert!(
                per_lod.iter().skip(1).sum::<usize>() > 0,
                "{label}: no fox at a coarser LOD: {per_lod:?}"
            );
            assert!(
                to_lod < to_lod0,
                "{label}: Bevy's picture is nearer LOD 0 ({to_lod0} px differ) than throng-render's LODs ({to_lod} px)"
            );
        }
        bevy_pictures.insert(label, bevy.image);
    }
    let (vat, palette) = (&bevy_pictures["vat"], &bevy_pictures["palette"]);
    let vat_vs_palette = differing_share(vat, palette);
    let any = common::differing(vat, palette, 0);
    eprintln!("Bevy, VAT vs palette path: {vat_vs_palette:.4} of pixels differ by > 8 levels, {any} at all");
    assert!(
        any > 0,
        "the VAT picture is the palette path's: the crowd was not drawn from its VAT"
    );
    assert!(
        vat_vs_palette <= 0.01,
        "the VAT path draws another picture than the palette path: {vat_vs_palette:.4}"
    );
}

/// A GPU-timed crowd sends the GPU only the records its runtime rewrote (issue 51: the change
/// list reaches the render world and is scattered into the record buffer), and what it draws
/// is still throng-render's picture of the same scene: the example (16 foxes, 40 frames of
/// 0.1 s, `--timing gpu`, `--change-share 0.125`: two foxes crossfade every frame) dumps the
/// main world's GPU-timed records and clock of its screenshot's frame; throng-render draws them
/// (`Records::Gpu`) with the normals debug view. At most 1 % of the pixels may differ by more
/// than 8/255, the tolerance of the CPU-timed cases above; a record the scatter missed would
/// show its fox in another pose. The uploads per frame are less than all the records (the
/// rewrites, 64 B each, not the crowd's 896 B).
#[test]
fn a_gpu_timed_crowd_scatters_its_rewrites_and_draws_throng_renders_picture() {
    let Some((mut r, dir)) = against_throng_render("bevy_crowd_gpu_timed") else {
        return;
    };
    let label = "GPU-timed, scattered";
    let extra = ["--timing", "gpu", "--change-share", "0.125"];
    let (bevy, scene) = shoot_dumped(&dir, "gpu-timed", "palette", &extra);
    let line = (bevy.stdout.lines())
        .find(|l| l.contains("uploaded per frame"))
        .unwrap_or_else(|| panic!("no upload figures in:\n{}", bevy.stdout));
    let number = |after: &str| -> f64 {
        let rest = &line[line.find(after).expect("the field") + after.len()..];
        let word = rest.split_whitespace().next().unwrap_or("");
        word.parse().unwrap_or(f64::NAN)
    };
    let (records, share) = (number("records "), number("B ("));
    assert!(
        records > 0.0 && share < 50.0,
        "GPU-timed uploads are the rewrites, not every record: {line}"
    );
    let clock = scene.clock.expect("a GPU-timed dump has the clock");
    let transforms: Vec<throng_contract::InstanceTransform> =
        bytemuck::pod_collect_to_vec(&scene.transforms);
    let gpu_records: Vec<throng_contract::GpuInstanceRecord> =
        bytemuck::pod_collect_to_vec(&scene.records);
    assert_eq!(transforms.len(), gpu_records.len(), "dumped instances");
    let asset = fox_as_the_example_bakes_it(throng_asset::Encoding::default(), false, &[]);
    let g = r.upload(&asset).expect("upload to throng-render");
    let opts = render_options(
        &scene,
        throng_render::SkinPath::Palette,
        throng_contract::Skinning::Linear,
    );
    let playback = throng_render::Playback::Records(Records::Gpu {
        records: &gpu_records,
        clock,
    });
    eprintln!("{label}: {line}");
    draw_like_bevy(
        &mut r,
        (&g, &transforms, playback, &opts),
        &dir,
        label,
        &bevy.image,
    );
}

/// A crowd asking for the VAT path whose asset has no VATs (`--asset` a file baked without
/// `--vat`) is drawn on the palette path: the plugin warns, naming the file loaded, and the picture
/// is the palette path's of the same file (0 pixels differ by more than 8 levels).
#[test]
fn the_vat_path_without_vats_falls_back_to_the_palette_path() {
    let Some(dir) = example_dir("bevy_crowd_no_vat") else {
        return;
    };
    let file = dir.join("fox-no-vat.glb");
    let asset = fox_as_the_example_bakes_it(throng_asset::Encoding::default(), false, &[]);
    throng_asset::write(&asset, &file).expect("write the baked fox");
    let file_arg = file.to_string_lossy().to_string();
    let vat = shoot_with(
        "throng",
        "vat",
        &["--asset", &file_arg],
        &dir.join("vat.png"),
    );
    let palette = shoot_with(
        "throng",
        "palette",
        &["--asset", &file_arg],
        &dir.join("palette.png"),
    );
    assert!(
        vat.stderr
            .contains("the VAT path needs a VAT on every primitive")
            && vat.stderr.contains("fox-no-vat.glb"),
        "no warning about the missing VATs:\n{}",
        vat.stderr
    );
    let share = differing_share(&vat.image, &palette.image);
    eprintln!("--path vat without VATs vs --path palette: {share:.4} differ");
    assert_eq!(share, 0.0, "the fallback is not the palette path's picture");
}

/// Per-instance appearance (`ThrongAppearance`, `--variety`: every fox tinted
/// `[80, 255, 80, 255]`, every odd fox with all its parts hidden; the components are added the
/// frame after the instances spawned, so they reach the GPU as changed texels, not with the
/// spawn's full upload) against the same scene without it, over a ground that catches shadows:
/// - the tint multiplies the base colour: of the pixels that are fox in both pictures, at least
///   half are orange without the tint and under 1 % with it (red cut to under a third);
/// - a hidden part leaves no pixels: the tinted picture's fox pixels lie inside the plain
///   picture's (at most 6 % of them outside: the white fur reads as grey ground in the plain
///   picture and green when tinted; measured 4.0 %) and are 25–75 % of them (half the foxes
///   hidden; measured 46 %);
/// - nor shadows: the shadowed ground shrinks the same way (25–80 % of the plain picture's;
///   measured 47 %).
#[test]
fn the_appearance_component_tints_and_hides_foxes() {
    let Some(dir) = example_dir("bevy_crowd_variety") else {
        return;
    };
    let plain = shoot_with("throng", "palette", &["--ground"], &dir.join("plain.png")).image;
    let variety = shoot_with(
        "throng",
        "palette",
        &["--ground", "--variety"],
        &dir.join("variety.png"),
    )
    .image;
    // Fox pixels: neither clear colour nor the grey ground (lit or shadowed).
    let fox = |p: &[u8]| !clear(p) && !grey(p) && !shadowed(p);
    let (a, b) = (mask(&plain, |p| fox(p)), mask(&variety, |p| fox(p)));
    let count = |m: &[bool]| m.iter().filter(|&&x| x).count();
    let both: Vec<bool> = a.iter().zip(&b).map(|(&x, &y)| x && y).collect();
    let orange_in = |img: &RgbaImage| {
        img.pixels()
            .zip(&both)
            .filter(|(p, &m)| m && orange(&p.0))
            .count()
    };
    let (n_both, orange_plain, orange_tinted) =
        (count(&both), orange_in(&plain), orange_in(&variety));
    let outside = b.iter().zip(&a).filter(|(&y, &x)| y && !x).count();
    let (shadow_plain, shadow_variety) = (
        count(&mask(&plain, shadowed)),
        count(&mask(&variety, shadowed)),
    );
    eprintln!(
        "fox pixels: plain {}, variety {} ({outside} outside the plain ones); of {n_both} in both, orange: plain {orange_plain}, tinted {orange_tinted}; shadowed ground: plain {shadow_plain}, variety {shadow_variety}",
        count(&a),
        count(&b)
    );
    assert!(count(&a) > 200, "too few fox pixels: {}", count(&a));
    assert!(orange_plain * 2 >= n_both, "the plain foxes are not orange");
    assert!(
        orange_tinted * 100 < n_both,
        "the tint did not change the foxes' colour: {orange_tinted} of {n_both} still orange"
    );
    assert!(
        outside * 100 <= count(&a) * 6,
        "fox pixels where the plain picture has none: {outside}"
    );
    let kept = count(&b) as f64 / count(&a) as f64;
    assert!(
        (0.25..=0.75).contains(&kept),
        "hidden foxes still drawn: {kept:.3} of the fox pixels kept"
    );
    let kept_shadow = shadow_variety as f64 / shadow_plain.max(1) as f64;
    assert!(
        shadow_plain > 100 && (0.25..=0.8).contains(&kept_shadow),
        "hidden foxes still cast shadows: {kept_shadow:.3} of the shadowed ground kept"
    );
}

/// A run's events per fox, in the order received.
type ByFox = std::collections::BTreeMap<u32, Vec<String>>;

/// The events a `--graph` run printed on lines starting `prefix` (`graph event: fox ` for
/// state events, `graph clip event: fox ` for clip events: name and the time's `Debug` text,
/// every bit of the f64), per fox.
fn graph_events(stdout: &str, prefix: &str) -> ByFox {
    let mut by_fox = ByFox::new();
    for line in stdout.lines() {
        let Some(rest) = line.strip_prefix(prefix) else {
            continue;
        };
        let (fox, event) = rest.split_once(' ').expect("fox and event");
        let fox = fox.parse().expect("fox index");
        by_fox.entry(fox).or_default().push(event.to_string());
    }
    by_fox
}

/// Events of every fox.
fn total(m: &ByFox) -> usize {
    m.values().map(Vec::len).sum()
}

/// Each fox's `what` events on the GPU are the CPU's in order: of the two lists one is a
/// prefix of the other (a run ends when its screenshot is saved, and on the GPU a step's
/// events arrive a frame or so late), at most `apart` events apart.
fn assert_each_fox_agrees(what: &str, on_cpu: &ByFox, on_gpu: &ByFox, apart: usize) {
    let foxes: std::collections::BTreeSet<u32> =
        on_cpu.keys().chain(on_gpu.keys()).copied().collect();
    for fox in foxes {
        let (a, b) = (
            on_cpu.get(&fox).cloned().unwrap_or_default(),
            on_gpu.get(&fox).cloned().unwrap_or_default(),
        );
        let n = a.len().min(b.len());
        assert_eq!(a[..n], b[..n], "fox {fox}'s {what}");
        assert!(
            a.len().abs_diff(b.len()) <= apart,
            "fox {fox}: {a:?} on the CPU, {b:?} on the GPU"
        );
    }
}

/// A graph crowd (`--graph` with Fox.glb's locomotion graph: speeds set through
/// `ThrongParams`, the `look` trigger fired, foxes 1 and 5 despawned in second 2 and two new
/// foxes spawned in second 3) stepped on the GPU (`--graph-on gpu`, `GraphOn::Gpu`: the
/// render world's compute pass, on lavapipe) against the same crowd stepped on the CPU
/// (`GraphOn::Cpu`, the reference step):
/// - the GPU run says it stepped there and uploaded no record from the CPU; `--graph-on auto`
///   keeps the CPU on this software adapter and says why (`ThrongCrowd::graph_cpu_because`);
/// - the two pictures are the same: no pixel differs by more than 8 levels (the GPU's records
///   agree with the CPU step's to 1e-4 frames, docs/graph.md "On the GPU"; measured 0 pixels,
///   at most 1 level);
/// - each fox's state events are the CPU run's, in order. A run ends when its screenshot is
///   saved, a few frames after the last counted one, and on the GPU a step's events arrive a
///   frame late, so of the two lists of a fox one is a prefix of the other; they include the
///   new foxes' (16 and 17, whose events name them through the spawns repeated on the GPU).
#[test]
fn a_graph_crowd_steps_on_the_gpu_as_on_the_cpu() {
    let Some(dir) = example_dir("bevy_crowd_graph") else {
        return;
    };
    let graph = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../throng-graph/graphs/fox-locomotion.json"
    );
    let run = |on: &str| {
        shoot_with(
            "throng",
            "palette",
            &["--graph", graph, "--graph-on", on],
            &dir.join(format!("graph-{on}.png")),
        )
    };
    let cpu = run("cpu");
    let gpu = run("gpu");
    let auto = run("auto");
    assert!(
        gpu.stdout.contains("graph stepped on the GPU")
            && gpu.stdout.contains("uploaded per frame: records none"),
        "{}",
        gpu.stdout
    );
    assert!(
        cpu.stdout.contains("graph stepped on the CPU"),
        "{}",
        cpu.stdout
    );
    assert!(
        auto.stdout.contains("graph stepped on the CPU (")
            && auto.stdout.contains("is a software adapter)"),
        "{}",
        auto.stdout
    );
    let differ = common::differing(&cpu.image, &gpu.image, 8);
    eprintln!("graph on the GPU against the CPU: {differ} pixels differ by > 8 levels");
    assert_eq!(differ, 0, "the GPU-stepped crowd draws another picture");
    let state = "graph event: fox ";
    let (on_cpu, on_gpu) = (
        graph_events(&cpu.stdout, state),
        graph_events(&gpu.stdout, state),
    );
    eprintln!(
        "state events: {} on the CPU, {} on the GPU",
        total(&on_cpu),
        total(&on_gpu)
    );
    assert!(
        total(&on_cpu) >= 10 && total(&on_gpu) >= 10,
        "{on_cpu:?}\n{on_gpu:?}"
    );
    for fox in [16, 17] {
        assert!(
            on_gpu.contains_key(&fox) && on_cpu.contains_key(&fox),
            "no event of new fox {fox}: {on_cpu:?}\n{on_gpu:?}"
        );
    }
    assert_each_fox_agrees("state events", &on_cpu, &on_gpu, 1);
}

/// The built-in fox (its walk and run fire footstep events) played by its locomotion graph
/// (`crates/throng-graph/graphs/demo-fox-locomotion.json`, speeds changed every second, two
/// foxes despawned and two spawned while it runs) on the GPU (`--graph-on gpu`, lavapipe) and
/// on the CPU: each fox's clip events — name and time, every bit of the f64 — are the CPU
/// step's, in order (the GPU step's crossing, timed from the step's start and length as the
/// CPU times it: docs/graph.md "On the GPU"); of a fox's two lists one is a prefix of the other
/// (a run ends a frame or so after its last counted frame), and the pictures are the same (no
/// pixel over 8 levels).
#[test]
fn a_graph_crowd_on_the_gpu_fires_the_cpu_steps_clip_events() {
    let Some(dir) = example_dir("bevy_crowd_graph_clip_events") else {
        return;
    };
    let glb = throng_demo::demo_glb();
    let model = throng_gltf::import_slice(&glb, None, "throng-demo-fox.glb").expect("import");
    let options = throng_bake::BakeOptions {
        source_name: "throng-demo-fox.glb".into(),
        ..Default::default()
    };
    let baked = throng_bake::bake(&model, &options).expect("bake").0;
    assert!(
        baked.clips.iter().any(|c| !c.events.is_empty()),
        "the built-in fox's clips carry no events"
    );
    let file = dir.join("demo-fox.glb");
    throng_asset::write(&baked, &file).expect("write the baked fox");
    let asset = file.to_string_lossy().to_string();
    let graph = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../throng-graph/graphs/demo-fox-locomotion.json"
    );
    let run = |on: &str| {
        shoot_with(
            "throng",
            "palette",
            &["--asset", &asset, "--graph", graph, "--graph-on", on],
            &dir.join(format!("clip-events-{on}.png")),
        )
    };
    let cpu = run("cpu");
    let gpu = run("gpu");
    assert!(
        gpu.stdout.contains("graph stepped on the GPU"),
        "{}",
        gpu.stdout
    );
    let differ = common::differing(&cpu.image, &gpu.image, 8);
    assert_eq!(differ, 0, "the GPU-stepped crowd draws another picture");
    let clip = "graph clip event: fox ";
    let (on_cpu, on_gpu) = (
        graph_events(&cpu.stdout, clip),
        graph_events(&gpu.stdout, clip),
    );
    eprintln!(
        "clip events: {} on the CPU, {} on the GPU, of {} and {} foxes",
        total(&on_cpu),
        total(&on_gpu),
        on_cpu.len(),
        on_gpu.len()
    );
    assert!(total(&on_gpu) >= 20, "{on_gpu:?}");
    assert_each_fox_agrees("clip events", &on_cpu, &on_gpu, 4);
}
