//! Per-instance culling and LOD in Bevy (`throng_bevy::ThrongCull`, `render::cull`), run
//! through the example (examples/bevy_crowd.rs) in an Xvfb window on lavapipe, as
//! `tests/example.rs` does: 400 foxes under the circling `--camera patch` (about a sixth of them
//! in view), shadows on over a ground plane, 320×180, 10 frames of 0.1 s.
//!
//! What is checked, with its tolerance:
//! - the instances the camera's lists hold (per LOD) are exactly those throng-render's culling
//!   pass keeps (`Renderer::cull_lists`, the same shared `throng::cull` WGSL) for the same
//!   scene: the transforms and records the Bevy pass read (read back with its lists), the same
//!   camera (eye, orientation, field of view, near plane, viewport) and LOD bias — equal sets;
//! - the palette pass posed exactly the instances some view lists (their union), fewer than
//!   the crowd;
//! - the picture equals the picture without culling (`--no-cull`): 0 pixels differ;
//! - with Fox baked with LODs (`lods: [0.5, 0.25, 0.1]`), the lists per LOD still equal
//!   throng-render's (so Bevy draws the LOD meshes throng-render picks, from the same index
//!   ranges, `throng_asset::gpu::cull::LodRanges`), some foxes are drawn at a coarser LOD, and
//!   the silhouettes are the LOD-0 picture's (`--no-cull`) to within the LOD rule: a LOD's
//!   geometric error projects within `lod_bias` = 1 px, so of the pixels that are fox in one
//!   picture and ground in the other (1.75 % of the picture) at most 0.1 % of the picture may lie
//!   farther than 2 px (the bound plus a pixel of rasterisation) from a LOD-0 pixel of their
//!   class. Colours inside the foxes differ
//!   more (12.8 % of pixels by more than 8/255): the simplification bounds the geometric error,
//!   not the texture's — Fox's coarse LODs (10 % of the triangles) stretch triangles across its
//!   texture's seams, as they do in throng-render.
//!
//! - with the far tier, on 4,000 foxes under the overview camera at 64 × 36 (cards about a
//!   pixel across): without MSAA the camera's card list is throng-render's, which drops a card
//!   whose screen box holds no pixel centre (at most 1 % of the cards listed by one renderer
//!   only, for the two renderers' f32 rounding), with its cards of one pixel centre drawn as
//!   points; with 4× MSAA every card in view is listed, none as a point;
//! - one-pixel cards, on 20,000 foxes at 160 × 90 without MSAA: the points draw the picture
//!   the quads draw (at most 0.05 % of the pixels off by more than 8/255), and the lists are
//!   the same; a camera with a prepass draws no points;
//! - `--dump-cull` with `--no-cull` is a usage error (exit status 2);
//! - the crowd entity's `Visibility::Hidden` and a `RenderLayers` the camera does not see hide
//!   the whole crowd;
//! - the benchmark's `--still-camera --spawn-in-view 1.3` (only the foxes near the held
//!   camera's frame spawned) draws the picture of the whole field under the same camera:
//!   0 pixels differ, with fewer foxes spawned.
//!
//! Needs `xvfb-run`, a Vulkan adapter (lavapipe) and `THRONG_ASSETS/Fox.glb`; outside CI a
//! missing tool or asset skips, under `CI` it fails. The Xvfb runner is `tests/common`'s,
//! shared with `tests/example.rs`.

mod common;

use std::path::Path;

use common::{differing, have, run_example};
use glam::Mat4;
use image::RgbaImage;
use throng_bevy::ThrongCull;
use throng_contract::{InstanceRecord, InstanceTransform};
use throng_render::{Camera, Crowd, Playback, Records, RenderOptions, Renderer};

/// Fox.glb baked with the example's in-memory settings (and `lods`), written to `out`.
fn bake_fox(lods: &[f32], out: &Path) -> throng_asset::BakedAsset {
    bake_fox_with(lods, false, out)
}

/// [`bake_fox`], with the far tier (default settings) when `far_tier`.
fn bake_fox_with(lods: &[f32], far_tier: bool, out: &Path) -> throng_asset::BakedAsset {
    let path = throng_testdata::asset("Fox.glb").expect("Fox.glb");
    let bytes = std::fs::read(&path).expect("read Fox.glb");
    let model = throng_gltf::import_slice(&bytes, None, "Fox.glb").expect("import");
    let options = throng_bake::BakeOptions {
        source_name: "Fox.glb".into(),
        lods: lods.to_vec(),
        far_tier: far_tier.then(Default::default),
        ..Default::default()
    };
    let baked = throng_bake::bake(&model, &options).expect("bake").0;
    throng_asset::write(&baked, out).expect("write the baked Fox");
    baked
}

/// Runs the example on `asset` with `extra` flags (400 foxes under the patch camera, over
/// the ground, 10 frames of 0.1 s, 320×180); returns its screenshot.
fn shoot(asset: &Path, extra: &[&str], out: &Path) -> RgbaImage {
    shoot_full(asset, extra, out).image
}

/// [`shoot`], with what the example printed.
fn shoot_full(asset: &Path, extra: &[&str], out: &Path) -> common::Shot {
    let asset = asset.to_string_lossy().to_string();
    let mut args = extra.to_vec();
    args.extend([
        "--asset",
        asset.as_str(),
        "--instances",
        "400",
        "--camera",
        "patch",
        "--ground",
    ]);
    args.extend(common::fixed_frames("10"));
    run_example(&args, out)
}

/// The first crowd of a `--dump-cull` file: its camera view and every view's lists per LOD.
struct Dump {
    camera: (Mat4, Mat4),
    camera_lists: Vec<Vec<u32>>,
    all_views: Vec<Vec<Vec<u32>>>,
    palette: Vec<u32>,
    /// Of the camera's far-level list, the cards drawn as points (`ThrongCull::far_dots`).
    camera_points: u32,
}

fn floats(words: &[&str]) -> Vec<f32> {
    words.iter().map(|w| w.parse().expect("a float")).collect()
}

fn ids(words: &[&str]) -> Vec<u32> {
    words.iter().map(|w| w.parse().expect("an id")).collect()
}

fn read_dump(path: &Path) -> Dump {
    let text = std::fs::read_to_string(path).expect("dump");
    // Per view: light, clip_from_view, world_from_view, lists per LOD, points.
    type ViewLines = (bool, Mat4, Mat4, Vec<Vec<u32>>, u32);
    let mut views: Vec<ViewLines> = Vec::new();
    let mut palette = Vec::new();
    for line in text.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        match w.first().copied() {
            Some("crowd") if !views.is_empty() => break,
            Some("view") => {
                // view <light> eye <4> clip_from_view <16> world_from_view <16>
                let clip = floats(&w[8..24]);
                let world = floats(&w[25..41]);
                views.push((
                    w[1] == "1",
                    Mat4::from_cols_slice(&clip),
                    Mat4::from_cols_slice(&world),
                    Vec::new(),
                    0,
                ));
            }
            Some("points") => {
                views.last_mut().expect("a view").4 = w[1].parse().expect("points");
            }
            Some("lod") => {
                let n: usize = w[2].parse().expect("count");
                let list = ids(&w[3..]);
                assert_eq!(list.len(), n, "{line}");
                views.last_mut().expect("a view").3.push(list);
            }
            Some("palette") => palette = ids(&w[2..]),
            _ => {}
        }
    }
    let cam = views.iter().find(|v| !v.0).expect("a camera view");
    Dump {
        camera: (cam.1, cam.2),
        camera_lists: cam.3.clone(),
        all_views: views.iter().map(|v| v.3.clone()).collect(),
        palette,
        camera_points: cam.4,
    }
}

/// throng-render's camera for Bevy's view (reverse-Z infinite perspective): eye, orientation,
/// vertical field of view and near plane; a far plane past the field.
fn render_camera(clip_from_view: Mat4, world_from_view: Mat4) -> Camera {
    let fov_y = 2.0 * (1.0 / clip_from_view.y_axis.y).atan();
    let eye = world_from_view.w_axis.truncate();
    let forward = -world_from_view.z_axis.truncate();
    Camera {
        eye,
        target: eye + forward,
        up: world_from_view.y_axis.truncate(),
        fov_y,
        near: clip_from_view.w_axis.z,
        far: 1e7,
    }
}

/// throng-render's culling of the dumped scene (records and transforms as the Bevy pass read
/// them): the main view's lists per LOD.
fn render_lists(baked: &throng_asset::BakedAsset, dump_path: &Path, d: &Dump) -> Vec<Vec<u32>> {
    let base = RenderOptions {
        width: 320,
        height: 180,
        ..Default::default()
    };
    render_lists_with(baked, dump_path, d, base)
}

/// [`render_lists`] with `base`'s options and size (its camera, LOD bias and shadows
/// replaced).
fn render_lists_with(
    baked: &throng_asset::BakedAsset,
    dump_path: &Path,
    d: &Dump,
    base: RenderOptions,
) -> Vec<Vec<u32>> {
    let gpu = throng_render::device::test_gpu().expect("a GPU adapter");
    let mut r = Renderer::with_gpu(gpu);
    let g = r.upload(baked).expect("upload");
    let transforms: Vec<InstanceTransform> = bytemuck::pod_collect_to_vec(
        &std::fs::read(dump_path.with_extension("transforms")).expect("transforms"),
    );
    let records: Vec<InstanceRecord> = bytemuck::pod_collect_to_vec(
        &std::fs::read(dump_path.with_extension("records")).expect("records"),
    );
    assert!(!transforms.is_empty());
    assert_eq!(records.len(), transforms.len());
    let crowd = Crowd::new(&g, &transforms, Playback::Records(Records::Cpu(&records)));
    let opts = RenderOptions {
        camera: Some(render_camera(d.camera.0, d.camera.1)),
        lod_bias: if base.far_tier { base.lod_bias } else { 1.0 },
        shadows: false,
        ..base
    };
    r.cull_lists(&crowd, &opts)
        .expect("throng-render culling")
        .main
}

/// The ground plane, lit or in shadow: grey (channels within a few levels, red at least blue);
/// the foxes are orange, brown or white.
fn ground(p: &[u8]) -> bool {
    let [r, g, b] = [p[0] as i32, p[1] as i32, p[2] as i32];
    (r - g).abs() <= 8 && r >= b && r - b <= 24 && r < 215
}

/// Pixels that are fox in one picture and ground in the other, and of those the ones with no
/// pixel of their LOD-picture class within 2 px in the LOD-0 picture (an outline moved
/// farther than the LOD's error bound of 1 px plus a pixel of rasterisation).
fn outline_moves(lod: &RgbaImage, base: &RgbaImage) -> (usize, usize) {
    let (w, h) = base.dimensions();
    let class = |img: &RgbaImage, x: u32, y: u32| ground(&img.get_pixel(x, y).0);
    let (mut moved, mut far) = (0, 0);
    for y in 0..h {
        for x in 0..w {
            let want = class(lod, x, y);
            if want == class(base, x, y) {
                continue;
            }
            moved += 1;
            let near = (y.saturating_sub(2)..(y + 3).min(h))
                .any(|v| (x.saturating_sub(2)..(x + 3).min(w)).any(|u| class(base, u, v) == want));
            far += !near as usize;
        }
    }
    (moved, far)
}

/// Runs the culled and the unculled example on Fox baked with `lods`; checks the lists against
/// throng-render's and the palette list; returns (culled, unculled picture, lists per LOD).
fn run_case(name: &str, lods: &[f32]) -> Option<(RgbaImage, RgbaImage, Vec<Vec<u32>>)> {
    if !have("xvfb-run") {
        return None;
    }
    throng_testdata::asset("Fox.glb")?;
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("bevy_culling_{name}"));
    std::fs::create_dir_all(&dir).expect("output dir");
    let asset = dir.join("fox.throng.glb");
    let baked = bake_fox(lods, &asset);
    let dump = dir.join("cull.txt");
    let dump_arg = dump.to_string_lossy().to_string();
    let culled = shoot(&asset, &["--dump-cull", &dump_arg], &dir.join("culled.png"));
    let plain = shoot(&asset, &["--no-cull"], &dir.join("not-culled.png"));
    let d = read_dump(&dump);
    let expected = render_lists(&baked, &dump, &d);
    let counts: Vec<usize> = d.camera_lists.iter().map(Vec::len).collect();
    eprintln!("{name}: Bevy's camera lists per LOD {counts:?}");
    assert_eq!(
        d.camera_lists, expected,
        "{name}: the camera's lists are not throng-render's"
    );
    let seen: usize = counts.iter().sum();
    assert!(
        seen > 10 && seen < 200,
        "{name}: {seen} of 400 in view: the camera should see part of the crowd"
    );
    let mut union: Vec<u32> = d.all_views.iter().flatten().flatten().copied().collect();
    union.sort_unstable();
    union.dedup();
    assert_eq!(
        d.palette, union,
        "{name}: the palette pass posed other instances than the views list"
    );
    assert!(d.palette.len() < 400, "{name}: every instance was posed");
    Some((culled, plain, d.camera_lists))
}

#[test]
fn culling_keeps_throng_renders_instances_and_changes_no_pixel() {
    let Some((culled, plain, _)) = run_case("lod0", &[]) else {
        return;
    };
    let n = differing(&culled, &plain, 0);
    eprintln!("culled vs not culled: {n} pixels differ");
    assert_eq!(n, 0, "culling changed {n} pixels");
}

#[test]
fn lod_meshes_are_drawn_where_throng_render_picks_them() {
    let Some((culled, plain, lists)) = run_case("lods", &[0.5, 0.25, 0.1]) else {
        return;
    };
    assert!(lists.len() >= 3, "{} LODs", lists.len());
    let coarser: usize = lists[1..].iter().map(Vec::len).sum();
    assert!(coarser > 0, "no fox at a coarser LOD: {lists:?}");
    let (w, h) = culled.dimensions();
    let colours = differing(&culled, &plain, 8) as f64 / (w * h) as f64;
    let (outlines, far) = outline_moves(&culled, &plain);
    let share = |n: usize| n as f64 / (w * h) as f64;
    eprintln!(
        "LOD picture vs LOD 0: silhouettes differ in {:.4} of pixels ({:.5} farther than 2 px from a LOD-0 outline), colours (by more than 8/255) in {colours:.4}",
        share(outlines),
        share(far)
    );
    assert!(
        share(far) <= 0.001,
        "the LOD picture's silhouettes move by more than 2 px in {far} pixels"
    );
    assert!(
        differing(&culled, &plain, 0) > 0,
        "the LOD picture is the LOD-0 picture: no coarser mesh was drawn"
    );
}

/// The fox texture's orange, lit: red well above blue.
fn orange(p: &[u8]) -> bool {
    p[0] as i32 > p[2] as i32 + 40 && p[0] as i32 > p[1] as i32 + 10
}

/// The crowd entity's `Visibility` and `RenderLayers` still decide where the crowd is drawn:
/// hidden (`--hide-crowd`), or on render layer 1 while the camera sees layer 0
/// (`--crowd-layer 1`), the picture shows no fox (no fox-orange pixel; the visible crowd's
/// picture has thousands).
#[test]
fn visibility_and_render_layers_still_hide_the_crowd() {
    if !have("xvfb-run") {
        return;
    }
    if throng_testdata::asset("Fox.glb").is_none() {
        return;
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bevy_culling_visibility");
    std::fs::create_dir_all(&dir).expect("output dir");
    let asset = dir.join("fox.throng.glb");
    bake_fox(&[], &asset);
    let count = |img: &RgbaImage| img.pixels().filter(|p| orange(&p.0)).count();
    let shown = count(&shoot(&asset, &[], &dir.join("shown.png")));
    let hidden = count(&shoot(&asset, &["--hide-crowd"], &dir.join("hidden.png")));
    let layered = count(&shoot(
        &asset,
        &["--crowd-layer", "1"],
        &dir.join("layer1.png"),
    ));
    eprintln!("fox pixels: shown {shown}, hidden {hidden}, on layer 1 {layered}");
    assert!(shown > 1000, "the visible crowd shows {shown} fox pixels");
    assert_eq!(hidden, 0, "a hidden crowd is drawn");
    assert_eq!(layered, 0, "a crowd on another render layer is drawn");
}

/// The foxes printed in the example's summary line ("mode Throng, N foxes, …").
fn spawned(stdout: &str) -> u32 {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("bevy_crowd: mode Throng, "))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no summary line in:\n{stdout}"))
}

/// `--spawn-in-view`, which measures what the foxes out of view cost (docs/benchmarks.md),
/// leaves out only foxes that neither the camera nor its shadows show.
#[test]
fn spawning_only_the_foxes_in_view_draws_the_same_picture() {
    if !have("xvfb-run") {
        return;
    }
    if throng_testdata::asset("Fox.glb").is_none() {
        return;
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bevy_culling_in_view");
    std::fs::create_dir_all(&dir).expect("output dir");
    let asset = dir.join("fox.throng.glb");
    bake_fox(&[], &asset);
    let whole = shoot_full(&asset, &["--still-camera"], &dir.join("whole.png"));
    let near = shoot_full(
        &asset,
        &["--still-camera", "--spawn-in-view", "1.3"],
        &dir.join("in-view.png"),
    );
    let (all, some) = (spawned(&whole.stdout), spawned(&near.stdout));
    let n = differing(&whole.image, &near.image, 0);
    eprintln!("{some} of {all} foxes spawned: {n} pixels differ");
    let fox = whole.image.pixels().filter(|p| orange(&p.0)).count();
    assert!(fox > 1000, "the held camera shows {fox} fox pixels");
    assert_eq!(all, 400);
    assert!(some > 10 && some < 300, "{some} foxes spawned in view");
    assert_eq!(n, 0, "the foxes left out changed {n} pixels");
}

/// The far tier (Fox baked with LODs and `--far-tier`; under the patch camera at 320×180 with
/// `ThrongCull::lod_bias` 2 the farther foxes are cards): the camera's mesh lists equal
/// throng-render's with the same crossfade (`far_fade`), LOD bias and one-pixel cards off; its
/// card list holds every card throng-render lists (throng-render also drops a card whose screen
/// box holds no pixel centre, which the plugin draws and the rasteriser then leaves without a
/// fragment); some foxes are in the crossfade's band (listed twice); the palette pass poses only
/// the instances some view lists at a mesh level; the camera's prepasses (depth, normals,
/// motion vectors) change no pixel; and the picture's foxes — cards in the distance — cover
/// about what the meshes cover at the same LODs without the tier (fox pixels within 25 %: a
/// 16-texel tile of the nearest of 16 views at 30° elevation against the mesh seen from the
/// camera's own, steeper, angle).
#[test]
fn far_tier_cards_are_listed_where_throng_render_lists_them() {
    if !have("xvfb-run") || throng_testdata::asset("Fox.glb").is_none() {
        return;
    }
    let lods = [0.5, 0.25, 0.1];
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bevy_culling_far_tier");
    std::fs::create_dir_all(&dir).expect("output dir");
    let far_asset = dir.join("fox-far.throng.glb");
    let mesh_asset = dir.join("fox-lods.throng.glb");
    let baked = bake_fox_with(&lods, true, &far_asset);
    bake_fox_with(&lods, false, &mesh_asset);
    let dump = dir.join("cull.txt");
    let dump_arg = dump.to_string_lossy().to_string();
    let bias = ["--lod-bias", "2"];
    let cards = shoot_full(
        &far_asset,
        &[&bias[..], &["--dump-cull", &dump_arg]].concat(),
        &dir.join("far-tier.png"),
    );
    let meshes = shoot(&mesh_asset, &bias, &dir.join("meshes.png"));
    // With the camera's depth, normal and motion-vector prepasses the main pass draws the same
    // picture: the prepass keeps the cards' covered parts and both halves of the crossfade as
    // the main pass does, so its depth test passes on exactly what the prepass wrote.
    let prepassed = shoot(
        &far_asset,
        &[&bias[..], &["--prepass", "motion"]].concat(),
        &dir.join("far-tier-prepass.png"),
    );
    let n = differing(&prepassed, &cards.image, 0);
    eprintln!("far tier with the camera's prepasses: {n} pixels differ");
    assert_eq!(
        n, 0,
        "the prepass changed {n} pixels of the far-tier picture"
    );
    let d = read_dump(&dump);
    let base = RenderOptions {
        width: 320,
        height: 180,
        far_tier: true,
        far_fade: ThrongCull::default().far_fade,
        far_dots: false,
        lod_bias: 2.0,
        ..Default::default()
    };
    let expected = render_lists_with(&baked, &dump, &d, base);
    let far = lods.len() + 1;
    assert_eq!(
        d.camera_lists.len(),
        far + 1,
        "levels: the mesh LODs and the far tier"
    );
    assert_eq!(expected.len(), far + 1);
    let counts: Vec<usize> = d.camera_lists.iter().map(Vec::len).collect();
    eprintln!(
        "far tier: Bevy's camera lists per level {counts:?}, throng-render's {:?}",
        expected.iter().map(Vec::len).collect::<Vec<_>>()
    );
    assert_eq!(
        d.camera_lists[..far],
        expected[..far],
        "the camera's mesh lists are not throng-render's"
    );
    let mut bevy_cards = d.camera_lists[far].clone();
    bevy_cards.sort_unstable();
    let mut render_cards = expected[far].clone();
    render_cards.sort_unstable();
    assert!(
        render_cards
            .iter()
            .all(|i| bevy_cards.binary_search(i).is_ok()),
        "a card throng-render lists is not in Bevy's list"
    );
    assert!(
        render_cards.len() >= 5 && counts[..far].iter().sum::<usize>() >= 10,
        "the scene should show both meshes and cards: {counts:?}"
    );
    // Instances in the crossfade's band are listed twice: as their coarsest mesh and as cards.
    let as_mesh: Vec<u32> = d.camera_lists[..far].iter().flatten().copied().collect();
    let both = bevy_cards.iter().filter(|i| as_mesh.contains(i)).count();
    eprintln!("{both} foxes crossfade (listed as mesh and card)");
    assert!(both > 0, "no fox in the crossfade's band");
    let mut posed: Vec<u32> = d
        .all_views
        .iter()
        .flat_map(|v| v[..far].iter().flatten())
        .copied()
        .collect();
    posed.sort_unstable();
    posed.dedup();
    assert_eq!(
        d.palette, posed,
        "the palette pass should pose exactly the instances listed at a mesh level"
    );
    let fox = |img: &RgbaImage| img.pixels().filter(|p| !ground(&p.0)).count();
    let (with_cards, with_meshes) = (fox(&cards.image), fox(&meshes));
    eprintln!("fox pixels: {with_cards} with the far tier, {with_meshes} with meshes only");
    let ratio = with_cards as f64 / with_meshes.max(1) as f64;
    assert!(
        (0.75..=1.25).contains(&ratio),
        "fox pixels {with_cards} with cards against {with_meshes} with meshes"
    );
}

/// Runs the example on `asset` under the overview camera with (instances, size) `crowd` and
/// `extra` flags, 4 frames of 0.1 s after one, dumping what culling kept: the screenshot
/// (`OUT.png`) and the dump (`OUT.txt`) of output path `out`.
fn overview(asset: &Path, crowd: (&str, &str), extra: &[&str], out: &Path) -> (RgbaImage, Dump) {
    let dump = out.with_extension("txt");
    let (asset_arg, dump_arg) = (asset.to_string_lossy(), dump.to_string_lossy());
    let mut args = vec![
        "--asset",
        asset_arg.as_ref(),
        "--instances",
        crowd.0,
        "--camera",
        "overview",
        "--frames",
        "4",
        "--warmup",
        "1",
        "--fixed-dt",
        "0.1",
        "--size",
        crowd.1,
        "--dump-cull",
        dump_arg.as_ref(),
    ];
    args.extend(extra);
    let shot = run_example(&args, &out.with_extension("png"));
    (shot.image, read_dump(&dump))
}

/// Cards that make no fragment are not listed (docs/design.md §5 "throng in Bevy"): 4,000 foxes
/// under the overview camera on a 64 × 36 target, every one a card a pixel or so across. Without
/// MSAA (`--no-msaa`) the camera's card list equals throng-render's, whose rule drops a card
/// whose screen box (`throng::cull::sphere_pixel_centres`) holds no pixel centre, and holds
/// fewer foxes than are in view (throng-render's lists of the mesh LODs alone); the two
/// renderers' matrices round differently, so up to 1 % of the cards may differ (0 measured).
/// Under Bevy's default 4× MSAA, where a sample lies off its pixel's centre, every card in view
/// is listed.
#[test]
fn far_cards_that_make_no_fragment_are_not_listed() {
    if !have("xvfb-run") || throng_testdata::asset("Fox.glb").is_none() {
        return;
    }
    let lods = [0.5, 0.25, 0.1];
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bevy_culling_far_pixels");
    std::fs::create_dir_all(&dir).expect("output dir");
    let asset = dir.join("fox-far.throng.glb");
    let baked = bake_fox_with(&lods, true, &asset);
    let base = RenderOptions {
        width: 64,
        height: 36,
        far_tier: true,
        far_fade: ThrongCull::default().far_fade,
        far_dots: false,
        lod_bias: 1.0,
        ..Default::default()
    };
    let far = lods.len() + 1;
    // (Bevy's cards, throng-render's cards, foxes in view), each list ascending.
    let cards_of = |msaa: bool| {
        let name = if msaa { "msaa" } else { "no-msaa" };
        let extra: &[&str] = if msaa { &[] } else { &["--no-msaa"] };
        let (_, d) = overview(&asset, ("4000", "64x36"), extra, &dir.join(name));
        let dump = dir.join(name).with_extension("txt");
        assert_eq!(
            d.camera_lists.len(),
            far + 1,
            "levels: the mesh LODs and the far tier"
        );
        let mut render = render_lists_with(&baked, &dump, &d, base).swap_remove(far);
        let meshes_only = RenderOptions {
            far_tier: false,
            ..base
        };
        let in_view: usize = render_lists_with(&baked, &dump, &d, meshes_only)
            .iter()
            .map(Vec::len)
            .sum();
        let mut bevy = d.camera_lists[far].clone();
        bevy.sort_unstable();
        render.sort_unstable();
        eprintln!(
            "{name}: Bevy lists {} cards ({} of them points), throng-render {}; {in_view} foxes \
             in view",
            bevy.len(),
            d.camera_points,
            render.len()
        );
        if msaa {
            assert_eq!(d.camera_points, 0, "under MSAA no card is drawn as a point");
        }
        (bevy, render, in_view)
    };
    let (bevy, render, in_view) = cards_of(false);
    // The same rule on the two renderers' matrices, which round differently in f32: a card
    // whose box edge lies within rounding of a pixel centre may fall either way. Equal here
    // (0 differ); 1 % allowed.
    let differ = bevy
        .iter()
        .filter(|i| render.binary_search(i).is_err())
        .chain(render.iter().filter(|i| bevy.binary_search(i).is_err()))
        .count();
    eprintln!("without MSAA: {differ} cards listed by one renderer only");
    assert!(
        differ * 100 <= render.len(),
        "without MSAA {differ} of {} cards are listed by one renderer only",
        render.len()
    );
    assert!(
        !render.is_empty() && render.len() < in_view,
        "the scene should hold cards that cover a pixel centre and cards that cover none"
    );
    let (bevy, render, in_view) = cards_of(true);
    assert!(
        render.iter().all(|i| bevy.binary_search(i).is_ok()),
        "a card throng-render lists is not in Bevy's MSAA list"
    );
    assert_eq!(
        bevy.len(),
        in_view,
        "under MSAA every card in view is listed"
    );
}

/// One-pixel cards (docs/design.md §5 "throng in Bevy", `ThrongCull::far_dots`): 20,000 foxes
/// under the overview camera at 160 × 90 without MSAA, most of them cards a pixel or so
/// across. The culling pass lists a card whose screen box holds exactly one pixel centre as a
/// point, and the point shows what the card's quad shows at that centre:
/// - the camera's far list (quads and points together) is the list with points off
///   (`--no-far-dots`), and over a quarter of it is drawn as points;
/// - the two pictures: at most 0.05 % of the pixels differ by more than 8/255 (measured: 0; 11
///   of 14,400 differ at all, a dither threshold or a texel edge met within rounding where the
///   point's place on the card is worked out from the ray rather than interpolated);
/// - a camera with a prepass draws every card as a quad (the prepass would need the points
///   too): no point listed.
#[test]
fn one_pixel_cards_draw_what_their_quads_draw() {
    if !have("xvfb-run") || throng_testdata::asset("Fox.glb").is_none() {
        return;
    }
    let lods = [0.5, 0.25, 0.1];
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bevy_culling_far_dots");
    std::fs::create_dir_all(&dir).expect("output dir");
    let asset = dir.join("fox-far.throng.glb");
    bake_fox_with(&lods, true, &asset);
    let far = lods.len() + 1;
    let run = |name: &str, extra: &[&str]| {
        let extra = [&["--no-msaa"], extra].concat();
        overview(&asset, ("20000", "160x90"), &extra, &dir.join(name))
    };
    let (points, with) = run("points", &[]);
    let (quads, without) = run("quads", &["--no-far-dots"]);
    let cards = with.camera_lists[far].len();
    eprintln!(
        "{cards} cards in the camera's far list, {} drawn as points",
        with.camera_points
    );
    assert_eq!(without.camera_points, 0, "--no-far-dots drew points");
    assert_eq!(
        with.camera_lists, without.camera_lists,
        "drawing points changed what the camera lists"
    );
    assert!(
        with.camera_points as usize * 4 >= cards && cards >= 1000,
        "the scene should draw many cards as points: {} of {cards}",
        with.camera_points
    );
    let (any, over) = (differing(&points, &quads, 0), differing(&points, &quads, 8));
    eprintln!("points against quads: {any} pixels differ, {over} by more than 8/255");
    let limit = (points.width() * points.height()) as usize / 2000;
    assert!(
        over <= limit,
        "{over} pixels differ by more than 8/255 between points and quads (limit {limit})"
    );
    let (_, prepassed) = run("prepass", &["--prepass", "depth"]);
    assert_eq!(
        prepassed.camera_points, 0,
        "a camera with a prepass should draw its cards as quads"
    );
    assert_eq!(prepassed.camera_lists, with.camera_lists);
}

/// `--dump-cull` reads back what culling kept, so with `--no-cull` there is nothing to write:
/// a usage error (exit status 2) before any window opens, not an app that waits for ever.
#[test]
fn dumping_culling_without_culling_is_a_usage_error() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bevy_no_cull_dump.txt");
    let o = std::process::Command::new(common::example_binary())
        .args(["--no-cull", "--dump-cull"])
        .arg(&out)
        .output()
        .expect("run bevy_crowd");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--no-cull"), "{stderr}");
    assert!(!out.exists(), "no dump may be written");
}
