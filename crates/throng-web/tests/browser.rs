//! The page in headless Chromium (docs/web.md "Tests"): builds the wasm package
//! (`cargo build --target wasm32-unknown-unknown`, `wasm-bindgen --target web`), serves
//! web/index.html with the baked built-in fox on localhost, drives it with node and
//! puppeteer-core (web/test/drive.mjs) on SwiftShader's WebGPU and WebGL2, and checks what it
//! reads back against the same scene drawn natively by throng-render (lavapipe; the WebGL2
//! pictures against the renderer's downlevel mode forced there), the same calls made on the
//! native runtime, and the typed errors' native messages.
//!
//! Tools: the rustup target wasm32-unknown-unknown, wasm-bindgen-cli of Cargo.lock's version,
//! node, Chromium (`THRONG_CHROMIUM`, default /usr/bin/chromium) and npm's puppeteer-core in
//! `THRONG_WEB_DRIVER` (default target/web-driver; `.ci/run` installs all of them). Without
//! them the test says what is missing and passes, except under `CI`, where it fails.
//! `THRONG_WEB_BENCH=1000,10000` also measures frame times at those counts, on WebGPU and on
//! WebGL2 (slow on SwiftShader: minutes at 10,000).

mod common;

use common::*;
use std::path::Path;

use throng_asset::BakedAsset;
use throng_graph_gpu::StepOn;
use throng_render::image::RgbaImage;
use throng_render::{GpuAsset, Renderer};
use throng_runtime::{ClipId, PlaybackCommand, Timing};
use throng_web::error::message_chain;
use throng_web::player::{play_options, transform_of};
use throng_web::{ClipRef, CrowdSpec, ParamValue, Player, WebError};

/// The scene both sides draw: `throng render fox.glb --instances 1000 --clip walk --time 0.4`.
const COUNT: u32 = 1000;
const CLIP: &str = "walk";
const TIME: f64 = 0.4;
const SIZE: (u32, u32) = (384, 256);
/// Then every instance crossfades to run over 0.5 s and the crowd advances 0.25 s.
const FADE: (&str, f32, f64) = ("run", 0.5, 0.25);
/// Two instances play walk (one from 0.5 s) for 12 steps of 0.1 s.
const EVENTS: (&str, f64, u32) = ("walk", 0.1, 12);
/// Callbacks that call back: the walk's first event plays the run once from the handler, its
/// end (`onFinished`) plays the walk again; frames of `.2` seconds, `.3` of them.
const REENTRY: (&str, &str, f64, u32) = ("walk", "run", 0.1, 40);
/// Pixels differ when a channel differs by more than 8/255; at most 1 % of them may.
const CHANNEL_TOLERANCE: u8 = 8;
const MAX_DIFFERING: f64 = 0.01;
/// In the far tier's scene at most 2 %, the rest mostly on the cards: a card keeps a pixel
/// where its filtered coverage passes a dither threshold, so the last bits of an interpolated
/// texture coordinate, which differ between SwiftShader and lavapipe, turn whole pixels on or
/// off along ~500 silhouettes a few pixels tall (measured 1.17 %, the meshes' scenes 0.7 %).
const FAR_MAX_DIFFERING: f64 = 0.02;
/// Foxes cover at least 2 % of the picture (pixels that differ from the empty scene).
const MIN_FOX_COVER: f64 = 0.02;
/// The far tier's scene: the first scene's crowd of the fox baked with its far tier
/// (web/build.sh's fox), seen from low at one edge of the field (eye, target, vertical field of
/// view in degrees), so near foxes are meshes, far ones cards and a band between crossfades.
const FAR: ([f32; 3], [f32; 3], f32) = ([4.0, 2.5, -28.0], [0.0, 0.0, 0.0], 50.0);
/// Then from afar (eye, target, field of view in degrees): each fox's sphere about a pixel
/// across, so many cards hold one pixel centre and are drawn as points.
const FAR_DOTS: ([f32; 3], [f32; 3], f32) = ([-330.0, 120.0, -330.0], [0.0, 0.0, 0.0], 50.0);
/// The far-tier fox's file beside the page.
const FAR_FILE: &str = "fox-far.glb";
/// The graph crowd: the demo's locomotion graph (its file beside the page) on this many
/// foxes, stepped this many frames of this many seconds with `graph_changes`, once on the CPU
/// and once on the GPU.
const GRAPH: (&str, u32, u32, f64) = ("locomotion.json", 24, 60, 1.0 / 30.0);

/// The page's folder: index.html, main.js, pkg/, fox.glb and (`FAR_FILE`) the far-tier fox.
fn build_page(dir: &Path, fox: &BakedAsset, fox_far: &BakedAsset) {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).expect("page folder");
    wasm_package(&dir.join("pkg"));
    for f in ["index.html", "main.js"] {
        std::fs::copy(repo().join("web").join(f), dir.join(f)).expect("copy the page");
    }
    for (asset, file) in [(fox, "fox.glb"), (fox_far, FAR_FILE)] {
        let bytes = throng_asset::to_glb_bytes(asset).expect("write the fox");
        std::fs::write(dir.join(file), bytes).expect("the page's fox");
    }
    std::fs::write(dir.join(GRAPH.0), throng_graph::DEMO_FOX_LOCOMOTION).expect("the graph");
}

/// Share of pixels where some channel differs by more than `CHANNEL_TOLERANCE`.
fn differing(a: &RgbaImage, b: &RgbaImage) -> f64 {
    assert_eq!(a.dimensions(), b.dimensions());
    let n = a
        .pixels()
        .zip(b.pixels())
        .filter(|(p, q)| pixel_differs(p, q, CHANNEL_TOLERANCE))
        .count();
    n as f64 / (a.width() * a.height()) as f64
}

/// The native side: the page's player drawn by throng-render on this machine's adapter.
struct Native {
    renderer: Renderer,
    gpu_asset: GpuAsset,
    /// Draw as on a WebGL2 device: the renderer's downlevel mode (forced on this adapter),
    /// where `palette_fits` is false and the page draws the texture path.
    downlevel: bool,
}

impl Native {
    /// The frame the page draws (its options: `Player::render_options`), and the same frame
    /// with no instances (the ground and sky alone).
    fn draw(&mut self, player: &Player) -> (RgbaImage, RgbaImage) {
        let (full, none) = self.frame(player);
        (full.image, none)
    }

    /// The options of the page's frame of `player` (`Player::render_options`).
    fn options(&self, player: &Player) -> throng_render::RenderOptions {
        let entries = player.asset().palette.len();
        let fits = !self.downlevel && self.renderer.palette_fits(entries, player.len());
        throng_render::RenderOptions {
            downlevel: self.downlevel,
            ..player.render_options(SIZE.0, SIZE.1, fits)
        }
    }

    /// [`Native::draw`] with the frame's figures.
    fn frame(&mut self, player: &Player) -> (throng_render::RenderedFrame, RgbaImage) {
        let opts = self.options(player);
        let crowd = player.crowd(&self.gpu_asset);
        let full = self.renderer.render_scene(&[crowd], &opts).expect("draw");
        let none = self.renderer.render_scene(&[], &opts).expect("draw empty");
        (full, none.image)
    }
}

fn json_str(v: &serde_json::Value) -> &str {
    v.as_str().unwrap_or("")
}

#[test]
fn the_page_draws_foxes_in_headless_chromium_as_the_native_renderer_does() {
    let Some(tools) = browser_tools("browser") else {
        return;
    };
    let Some(gpu) = throng_render::device::test_gpu() else {
        return;
    };
    let fox = bake_fox();
    let fox_far = bake_fox_far();
    let work = target_dir().join("tmp/throng-web-browser");
    let page = work.join("page");
    build_page(&page, &fox, &fox_far);
    let out = fresh_out(&work);
    let plan = serde_json::json!({
        "dir": page, "out": out, "chromium": tools.chromium, "driver": tools.driver,
        "count": COUNT, "clip": CLIP, "time": TIME, "size": [SIZE.0, SIZE.1],
        "fade": { "clip": FADE.0, "seconds": FADE.1, "dt": FADE.2 },
        "events": { "clip": EVENTS.0, "dt": EVENTS.1, "steps": EVENTS.2 },
        "reentry": { "clip": REENTRY.0, "then": REENTRY.1, "dt": REENTRY.2, "steps": REENTRY.3 },
        "far": { "file": FAR_FILE, "eye": FAR.0, "target": FAR.1, "fovY": FAR.2.to_radians(),
            "dots": { "eye": FAR_DOTS.0, "target": FAR_DOTS.1, "fovY": FAR_DOTS.2.to_radians() } },
        "graph": { "file": GRAPH.0, "count": GRAPH.1, "frames": GRAPH.2, "dt": GRAPH.3,
            "changes": graph_plan() },
        "bench": bench_counts(), "benchFrames": 10,
    });
    let r = drive(&work, "drive.mjs", &plan, &out.join("result.json"));
    assert!(r["driverError"].is_null(), "driver: {}", r["driverError"]);
    assert_eq!(
        r["webgpu"]["ready"], true,
        "the WebGPU page: {}",
        r["webgpu"]
    );
    assert_eq!(r["webgpu"]["count"], COUNT);

    // The first scene and the crossfade, against the native renderer.
    let renderer = Renderer::with_gpu(gpu);
    let gpu_asset = renderer.upload(&fox).expect("upload");
    let mut native = Native {
        renderer,
        gpu_asset,
        downlevel: false,
    };
    let mut player = Player::new(fox.clone(), Timing::Cpu);
    let spec = crowd_spec(COUNT, CLIP, TIME);
    player.spawn_crowd(&spec).expect("crowd");
    let (want, empty) = native.draw(&player);
    want.save(out.join("native.png")).expect("save");
    let got = load(&out.join("webgpu.png"));
    compare("first frame", &got, &want, &empty);

    crossfade_all(&mut player, FADE);
    let (want_fade, _) = native.draw(&player);
    want_fade.save(out.join("native-fade.png")).expect("save");
    let got_fade = load(&out.join("fade.png"));
    compare("crossfade", &got_fade, &want_fade, &empty);
    assert!(
        differing(&got, &got_fade) > 0.005,
        "the crossfade did not change the picture"
    );

    // The same first scene played GPU-timed (the shaders derive rows from the clock).
    assert_eq!(
        r["gpuTimed"]["ready"], true,
        "GPU-timed page: {}",
        r["gpuTimed"]
    );
    let mut gpu_timed = Player::new(fox.clone(), Timing::Gpu);
    gpu_timed.spawn_crowd(&spec).expect("GPU-timed crowd");
    let (want_gpu, _) = native.draw(&gpu_timed);
    want_gpu
        .save(out.join("native-gpu-timed.png"))
        .expect("save");
    compare(
        "GPU-timed",
        &load(&out.join("gpu-timed.png")),
        &want_gpu,
        &empty,
    );

    check_graph(&r["graph"], &mut native, &fox, &out);
    check_far(&r["far"], &mut native, &fox_far, &spec, &out);
    check_events(&r["events"], &fox);
    check_reentry(&r["reentry"], &fox);
    check_despawn(&r, &out);
    check_bad_input(&r["bad"], &fox);
    check_webgl2(&r, &mut native, (&fox, &fox_far), &spec, &out);
}

/// The WebGL2 pages (the renderer's downlevel mode): the first scene, the crossfade and the
/// first scene GPU-timed against the native downlevel mode's pictures; the crossfade changed
/// the picture; the far tier's scene (meshes, the crossfade's band and cards) of `fox_far`.
fn check_webgl2(
    r: &serde_json::Value,
    native: &mut Native,
    (fox, fox_far): (&BakedAsset, &BakedAsset),
    spec: &CrowdSpec,
    out: &Path,
) {
    let gl = &r["webgl2"];
    assert_eq!(gl["ready"], true, "the WebGL2 page: {gl}");
    assert_eq!(gl["backend"], "webgl2", "{gl}");
    assert_eq!(gl["downlevel"], "compute shaders", "{gl}");
    native.downlevel = true;
    let mut player = Player::new(fox.clone(), Timing::Cpu);
    player.spawn_crowd(spec).expect("crowd");
    let (want, empty) = native.draw(&player);
    want.save(out.join("native-downlevel.png")).expect("save");
    let got = load(&out.join("webgl2.png"));
    compare("WebGL2 first frame", &got, &want, &empty);
    crossfade_all(&mut player, FADE);
    let (want_fade, _) = native.draw(&player);
    want_fade
        .save(out.join("native-downlevel-fade.png"))
        .expect("save");
    let got_fade = load(&out.join("webgl2-fade.png"));
    compare("WebGL2 crossfade", &got_fade, &want_fade, &empty);
    assert!(
        differing(&got, &got_fade) > 0.005,
        "the crossfade did not change the WebGL2 picture"
    );
    let gl_gpu = &r["webgl2GpuTimed"];
    assert_eq!(gl_gpu["ready"], true, "GPU-timed WebGL2 page: {gl_gpu}");
    let mut gpu_timed = Player::new(fox.clone(), Timing::Gpu);
    gpu_timed.spawn_crowd(spec).expect("GPU-timed crowd");
    let (want_gpu, _) = native.draw(&gpu_timed);
    want_gpu
        .save(out.join("native-downlevel-gpu-timed.png"))
        .expect("save");
    let got_gpu = load(&out.join("webgl2-gpu-timed.png"));
    compare("WebGL2 GPU-timed", &got_gpu, &want_gpu, &empty);

    // The far tier's scene: the downlevel mode's meshes, crossfade and cards.
    let gl_far = &r["webgl2Far"];
    assert_eq!(gl_far["ready"], true, "the WebGL2 far-tier page: {gl_far}");
    assert_eq!(
        gl_far["errorsAfter"],
        serde_json::json!([]),
        "WebGL2 far-tier page errors"
    );
    let far_asset = native.renderer.upload(fox_far).expect("upload");
    let own = std::mem::replace(&mut native.gpu_asset, far_asset);
    far_scene(
        native,
        fox_far,
        spec,
        &out.join("webgl2-far.png"),
        "WebGL2 far tier",
    );
    native.gpu_asset = own;
}

fn compare(what: &str, got: &RgbaImage, want: &RgbaImage, empty: &RgbaImage) {
    compare_within(what, got, want, empty, MAX_DIFFERING);
}

/// [`compare`] with at most `max_differing` of the pixels differing.
fn compare_within(
    what: &str,
    got: &RgbaImage,
    want: &RgbaImage,
    empty: &RgbaImage,
    max_differing: f64,
) {
    let d = differing(got, want);
    eprintln!(
        "{what}: {:.3} % of pixels differ by more than {CHANNEL_TOLERANCE}/255",
        d * 100.0
    );
    assert!(
        d <= max_differing,
        "{what}: {:.3} % of pixels differ",
        d * 100.0
    );
    for (side, img) in [("browser", got), ("native", want)] {
        let cover = differing(img, empty);
        assert!(
            cover >= MIN_FOX_COVER,
            "{what}: the {side} picture shows foxes on {:.2} % of it",
            cover * 100.0
        );
    }
}

/// The far tier on WebGPU: the page's picture of the far-tier fox's crowd against the native
/// renderer's, which draws meshes, cards and the crossfade between them.
fn check_far(
    r: &serde_json::Value,
    native: &mut Native,
    fox_far: &BakedAsset,
    spec: &CrowdSpec,
    out: &Path,
) {
    assert_eq!(r["ready"], true, "the far-tier page: {r}");
    // The far-tier fox for these scenes; the page's own fox again afterwards.
    let far_asset = native.renderer.upload(fox_far).expect("upload");
    let own = std::mem::replace(&mut native.gpu_asset, far_asset);
    far_scene(native, fox_far, spec, &out.join("far.png"), "far tier");

    // From afar, cards of a pixel drawn as points (the page must take the point draw: no
    // error). A fox is a pixel or none here, and whether a quad of under a pixel covers a
    // pixel centre turns on each rasteriser's sub-pixel precision, so the pictures are held to
    // the crowd's coverage (within 10 % of the native pixel count) and at most 10 % of its
    // pixels differing by more than 8/255 (measured: 86 and 86 pixels, 2 of 87 differ).
    assert_eq!(
        r["errorsAfter"],
        serde_json::json!([]),
        "far-tier page errors"
    );
    let player = viewed_player(
        fox_far,
        Timing::Cpu,
        spec,
        FAR_DOTS.0,
        FAR_DOTS.1,
        FAR_DOTS.2,
    );
    let opts = native.options(&player);
    let lists = native
        .renderer
        .cull_lists(&player.crowd(&native.gpu_asset), &opts)
        .expect("cull");
    let (want, empty) = native.frame(&player);
    want.image
        .save(out.join("native-far-dots.png"))
        .expect("save");
    let got = load(&out.join("far-dots.png"));
    // Crowd pixels: beyond the tolerance from the native empty scene, inside the box of the
    // native crowd's (the two rasterisers' grounds differ on a few checker pixels elsewhere).
    let native_crowd: Vec<(u32, u32)> = want
        .image
        .enumerate_pixels()
        .filter(|(x, y, w)| pixel_differs(w, empty.get_pixel(*x, *y), CHANNEL_TOLERANCE))
        .map(|(x, y, _)| (x, y))
        .collect();
    let (x0, x1) = native_crowd
        .iter()
        .fold((u32::MAX, 0), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let (y0, y1) = native_crowd
        .iter()
        .fold((u32::MAX, 0), |(a, b), p| (a.min(p.1), b.max(p.1)));
    let (mut crowd, mut off, mut mine) = (0u32, 0u32, 0u32);
    for (x, y, e) in empty.enumerate_pixels() {
        if x < x0 || x > x1 || y < y0 || y > y1 {
            continue;
        }
        let (g, w) = (got.get_pixel(x, y), want.image.get_pixel(x, y));
        let (g_crowd, w_crowd) = (
            pixel_differs(g, e, CHANNEL_TOLERANCE),
            pixel_differs(w, e, CHANNEL_TOLERANCE),
        );
        mine += u32::from(g_crowd);
        if g_crowd || w_crowd {
            crowd += 1;
            off += u32::from(pixel_differs(g, w, CHANNEL_TOLERANCE));
        }
    }
    let theirs = native_crowd.len() as u32;
    eprintln!(
        "far tier from afar: {} one-pixel cards of {} cards; crowd pixels {mine} in the browser, {theirs} native; {off} of {crowd} differ by more than {CHANNEL_TOLERANCE}/255",
        lists.dots.len(),
        lists.main.last().map_or(0, Vec::len)
    );
    assert!(
        lists.dots.len() > 100,
        "too few one-pixel cards: {}",
        lists.dots.len()
    );
    assert!(theirs > 50, "the crowd covers {theirs} pixels");
    assert!(
        mine.abs_diff(theirs) * 10 <= theirs,
        "the browser's crowd covers {mine} pixels, the native {theirs}"
    );
    assert!(off * 10 <= crowd, "{off} of {crowd} crowd pixels differ");
    native.gpu_asset = own;
}

/// The far-tier scene (`FAR`) of `fox_far`, whose upload `native` holds, drawn natively
/// against the page's picture `got`: the scene shows meshes and cards, and at most
/// `FAR_MAX_DIFFERING` of the pixels differ. Writes the native picture beside `got`.
fn far_scene(native: &mut Native, fox_far: &BakedAsset, spec: &CrowdSpec, got: &Path, what: &str) {
    let player = viewed_player(fox_far, Timing::Cpu, spec, FAR.0, FAR.1, FAR.2);
    let (want, empty) = native.frame(&player);
    let name = got
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("far.png");
    want.image
        .save(got.with_file_name(format!("native-{name}")))
        .expect("save");
    // The far tier is the last level: the scene must show both tiers for the test to mean
    // anything.
    let lods = &want.stats.instances_per_lod;
    let (cards, meshes) = lods.split_last().expect("levels");
    eprintln!("{what}: native levels {lods:?}");
    assert!(
        *cards > 0 && meshes.iter().sum::<u64>() > 0,
        "{what}: the scene should draw meshes and cards: {lods:?}"
    );
    compare_within(what, &load(got), &want.image, &empty, FAR_MAX_DIFFERING);
}

/// The graph crowd's changes as the page's driver makes them: `[frame, instance or null,
/// parameter, value or "fire"]`.
fn graph_plan() -> serde_json::Value {
    let mut out = Vec::new();
    for f in 0..GRAPH.2 {
        for (at, name, value) in graph_changes(f, GRAPH.1) {
            let value = match value {
                ParamValue::Number(v) => serde_json::json!(v),
                ParamValue::Bool(b) => serde_json::json!(b),
                ParamValue::Fire => serde_json::json!("fire"),
            };
            out.push(serde_json::json!([f, at, name, value]));
        }
    }
    serde_json::Value::Array(out)
}

/// The graph crowd stepped on the CPU and on the GPU in the page, against the native player
/// stepping the same crowd on the CPU (the reference step): the CPU's events in the frames
/// they fired, the GPU's the same list a frame or more late (never waited for) and none lost,
/// each picture against the native one; spawning refused while the graph plays.
fn check_graph(r: &serde_json::Value, native: &mut Native, fox: &BakedAsset, out: &Path) {
    let (file, count, frames, dt) = GRAPH;
    let mut player = Player::new(fox.clone(), Timing::Cpu);
    let spec = CrowdSpec {
        count,
        ..Default::default()
    };
    let ids = player.spawn_crowd(&spec).expect("crowd");
    player
        .play_graph(throng_graph::DEMO_FOX_LOCOMOTION, file, None, StepOn::Cpu)
        .expect("graph");
    // per frame: (instance's place, clip name, event name, time), then (place, state, name, kind)
    type Fired = (
        Vec<(usize, String, String, f64)>,
        Vec<(usize, String, String, String)>,
    );
    let place = |ids: &[u32], id: u32| ids.iter().position(|&i| i == id).unwrap_or(usize::MAX);
    let mut want: Vec<Fired> = Vec::new();
    for f in 0..frames {
        for (at, name, value) in graph_changes(f, count) {
            let at = at.map(|i| ids[i as usize]);
            player.set_param(at, name, value).expect("change");
        }
        let events = player.step(dt).expect("step");
        want.push((
            (events.iter())
                .map(|e| {
                    (
                        place(&ids, e.instance),
                        e.clip_name.clone(),
                        e.name.clone(),
                        e.time,
                    )
                })
                .collect(),
            (player.state_events().iter())
                .map(|e| {
                    (
                        place(&ids, e.instance),
                        e.state.clone(),
                        e.name.clone(),
                        e.kind.into(),
                    )
                })
                .collect(),
        ));
    }
    let (picture, empty) = native.draw(&player);
    picture.save(out.join("native-graph.png")).expect("save");
    let clip_events: usize = want.iter().map(|w| w.0.len()).sum();
    let state_events: usize = want.iter().map(|w| w.1.len()).sum();
    assert!(
        clip_events > 50 && state_events > 10,
        "{clip_events} / {state_events}"
    );

    // "auto": the rule of `StepOn::resolve` on the page's adapter, with its reason
    let auto = &r["auto"];
    eprintln!(
        "graph crowd, stepOn \"auto\" on {}: {auto}",
        auto["adapter"]
    );
    match json_str(&auto["stepsOn"]) {
        "cpu" => {
            let why = json_str(&auto["cpuBecause"]);
            assert!(why.contains("adapter") && !why.starts_with(' '), "{auto}");
        }
        "gpu" => assert!(auto["cpuBecause"].is_null(), "{auto}"),
        other => panic!("stepOn auto stepped on {other:?}: {auto}"),
    }
    for side in ["cpu", "gpu"] {
        let g = &r[side];
        assert_eq!(g["errors"], serde_json::json!([]), "{side}: page errors");
        assert_eq!(json_str(&g["stepsOn"]), side, "{side}: {}", g["stepsOn"]);
        assert_eq!(g["late"], side == "gpu", "{side}: eventsFrameLate");
        assert_eq!(g["lost"], false, "{side}: events lost");
        let refused = json_str(&g["spawnRefused"]);
        assert!(refused.contains("while a graph plays"), "{side}: {refused}");
        let page_ids: Vec<u32> = (g["ids"].as_array().expect("ids").iter())
            .filter_map(|v| v.as_u64().map(|v| v as u32))
            .collect();
        let got: Vec<Fired> = (g["frames"].as_array().expect("frames").iter())
            .map(|fr| {
                let num = |v: &serde_json::Value| v.as_u64().unwrap_or(u64::MAX) as u32;
                (
                    (fr["events"].as_array().expect("events").iter())
                        .map(|e| {
                            let t = e["time"].as_f64().unwrap_or(f64::NAN);
                            let (clip, name) = (json_str(&e["clipName"]), json_str(&e["name"]));
                            (
                                place(&page_ids, num(&e["instance"])),
                                clip.into(),
                                name.into(),
                                t,
                            )
                        })
                        .collect(),
                    (fr["states"].as_array().expect("states").iter())
                        .map(|e| {
                            let (state, name) = (json_str(&e["state"]), json_str(&e["name"]));
                            let kind = json_str(&e["kind"]).to_string();
                            (
                                place(&page_ids, num(&e["instance"])),
                                state.into(),
                                name.into(),
                                kind,
                            )
                        })
                        .collect(),
                )
            })
            .collect();
        // the frames, then the frame of 0 s that takes what is left
        assert_eq!(got.len(), want.len() + 1, "{side}: frames");
        if side == "cpu" {
            assert_eq!(
                got[..want.len()],
                want[..],
                "the CPU's events in their frames"
            );
        }
        let flat = |v: &[Fired]| -> Fired {
            (
                v.iter().flat_map(|w| w.0.clone()).collect(),
                v.iter().flat_map(|w| w.1.clone()).collect(),
            )
        };
        assert_eq!(flat(&got), flat(&want), "{side}: every event, in order");
        // how late: the frame each clip event was reported in against the frame it fired in
        let mut late = std::collections::BTreeMap::new();
        let (mut at_want, mut at_got) = (Vec::new(), Vec::new());
        for (f, w) in want.iter().enumerate() {
            at_want.extend(std::iter::repeat_n(f, w.0.len()));
        }
        for (f, w) in got.iter().enumerate() {
            at_got.extend(std::iter::repeat_n(f, w.0.len()));
        }
        for (a, b) in at_got.iter().zip(&at_want) {
            *late.entry(a - b).or_insert(0) += 1;
        }
        eprintln!(
            "graph crowd stepped on the {side} in the page: {clip_events} clip and {state_events} state events as natively; frames late: {late:?}"
        );
        let shown = load(&out.join(format!("graph-{side}.png")));
        compare(&format!("graph crowd ({side})"), &shown, &picture, &empty);
    }
}

/// The page's events, against the native runtime given the same calls.
fn check_events(events: &serde_json::Value, fox: &BakedAsset) {
    let mut player = Player::new(fox.clone(), Timing::Cpu);
    let a = player
        .spawn(&glam::Mat4::IDENTITY.to_cols_array())
        .expect("a");
    let at = glam::Mat4::from_translation(glam::Vec3::new(3.0, 0.0, 0.0));
    let b = player.spawn(&at.to_cols_array()).expect("b");
    let clip = player.clip(&ClipRef::Name(EVENTS.0.into())).expect("clip");
    let play = |start| PlaybackCommand::Play {
        clip: ClipId::new(clip),
        options: play_options(None, None, start).expect("options"),
    };
    player.command(Some(a), play(None)).expect("play a");
    player.command(Some(b), play(Some(0.5))).expect("play b");
    let mut want = Vec::new();
    for _ in 0..EVENTS.2 {
        want.extend(player.step(EVENTS.1).expect("step"));
    }
    let ids: Vec<u64> = (events["ids"].as_array().expect("ids").iter())
        .filter_map(|v| v.as_u64())
        .collect();
    let fired = events["fired"].as_array().expect("fired");
    assert!(!want.is_empty(), "the walk clip's footsteps fire natively");
    assert_eq!(fired.len(), want.len(), "events: {fired:?} vs {want:?}");
    for (g, w) in fired.iter().zip(&want) {
        let instance = ids.iter().position(|&i| Some(i) == g["instance"].as_u64());
        assert_eq!(instance, Some(w.instance as usize), "{g} vs {w:?}");
        assert_eq!(json_str(&g["name"]), w.name);
        assert_eq!(json_str(&g["clipName"]), w.clip_name);
        assert_eq!(g["event"].as_u64(), Some(w.event as u64));
        let t = g["time"].as_f64().unwrap_or(f64::NAN);
        assert!((t - w.time).abs() < 1e-9, "{g} vs {w:?}");
    }
}

/// Handlers that call `play` ran (no "recursive use of an object" from wasm-bindgen), and what
/// they did equals the native player given the same calls between the same steps; a speed past
/// the limit threw the runtime's message, and a frame at the limit returned with its laps'
/// events bounded.
fn check_reentry(r: &serde_json::Value, fox: &BakedAsset) {
    assert_eq!(
        r["errors"],
        serde_json::json!([]),
        "handlers' calls threw: {r}"
    );
    let mut player = Player::new(fox.clone(), Timing::Cpu);
    let a = player
        .spawn(&glam::Mat4::IDENTITY.to_cols_array())
        .expect("a");
    let walk = player.clip(&ClipRef::Name(REENTRY.0.into())).expect("walk");
    let run = player.clip(&ClipRef::Name(REENTRY.1.into())).expect("run");
    let play = |clip, mode| PlaybackCommand::Play {
        clip: ClipId::new(clip),
        options: play_options(None, mode, None).expect("options"),
    };
    player.command(Some(a), play(walk, None)).expect("play");
    let (mut fired, mut finished) = (Vec::new(), Vec::new());
    for _ in 0..REENTRY.3 {
        let events = player.step(REENTRY.2).expect("step");
        for e in &events {
            if fired.is_empty() {
                player
                    .command(Some(e.instance), play(run, Some("once")))
                    .expect("run once");
            }
            fired.push(e.clone());
        }
        for f in player.finished() {
            player
                .command(Some(f.instance), play(walk, None))
                .expect("walk");
            finished.push(f);
        }
    }
    assert!(
        finished.len() == 1 && finished[0].clip_name == REENTRY.1,
        "natively the run ends once: {finished:?}"
    );
    let id = r["id"].as_u64();
    let got = r["fired"].as_array().expect("fired");
    assert_eq!(got.len(), fired.len(), "events: {got:?} vs {fired:?}");
    for (g, w) in got.iter().zip(&fired) {
        assert_eq!(g["instance"].as_u64(), id);
        assert_eq!(json_str(&g["clipName"]), w.clip_name, "{g} vs {w:?}");
        assert_eq!(json_str(&g["name"]), w.name);
        let t = g["time"].as_f64().unwrap_or(f64::NAN);
        assert!((t - w.time).abs() < 1e-9, "{g} vs {w:?}");
    }
    let got = r["finished"].as_array().expect("finished");
    assert_eq!(
        got.len(),
        finished.len(),
        "completions: {got:?} vs {finished:?}"
    );
    for (g, w) in got.iter().zip(&finished) {
        assert_eq!(g["instance"].as_u64(), id);
        assert_eq!(json_str(&g["clipName"]), w.clip_name, "{g} vs {w:?}");
        let t = g["time"].as_f64().unwrap_or(f64::NAN);
        assert!((t - w.time).abs() < 1e-9, "{g} vs {w:?}");
    }
    let speed = json_str(&r["speedError"]);
    assert!(speed.contains("speed must be in [0, 1000]"), "{speed}");
    // both factors at the limit: 10^6 × authored, the last MAX_LAPS laps of events at most
    let lapped = r["lapped"].as_u64().unwrap_or(u64::MAX);
    let per_lap = fox.clips[walk].events.len() as u64;
    assert!(
        lapped <= per_lap * (throng_runtime::MAX_LAPS as u64 + 2),
        "{lapped} events in one frame at the speed limit"
    );
    assert_eq!(r["count"], 1, "{r}");
    eprintln!(
        "callbacks: {} events and {} completion with play() from the handlers; a frame at the \
         speed limit: {lapped} events in {:.1} ms",
        fired.len(),
        finished.len(),
        r["ms"].as_f64().unwrap_or(f64::NAN)
    );
}

fn check_despawn(r: &serde_json::Value, out: &Path) {
    let one = load(&out.join("one.png"));
    let none = load(&out.join("none.png"));
    let cover = differing(&one, &none);
    assert!(
        cover >= MIN_FOX_COVER,
        "despawning the only fox changed {:.2} % of the picture",
        cover * 100.0
    );
    let d = &r["despawn"];
    assert_eq!(d["count"], 0);
    let again = json_str(&d["again"]);
    assert!(
        again.ends_with("is not alive (despawned, or never spawned by this crowd)"),
        "{again}"
    );
}

/// Each bad input threw a JavaScript `Error` with the native message; the page ran on.
fn check_bad_input(bad: &serde_json::Value, fox: &BakedAsset) {
    let bytes = throng_asset::to_glb_bytes(fox).expect("bytes");
    let native_file = |b: &[u8]| {
        let e = throng_asset::from_glb_bytes(b, "fox.glb").expect_err("bad file");
        message_chain(&WebError::from(e))
    };
    let mut corrupt = bytes.clone();
    corrupt[20..40].fill(0x7b);
    let player = Player::new(fox.clone(), Timing::Cpu);
    let clip = player
        .clip(&ClipRef::Name("moonwalk".into()))
        .expect_err("no such clip");
    let mut nan = glam::Mat4::IDENTITY.to_cols_array();
    nan[5] = f32::NAN;
    let nan = transform_of(&nan).expect_err("NaN");
    let want = [
        ("truncated", native_file(&bytes[..1000])),
        ("corrupted", native_file(&corrupt)),
        ("clip", message_chain(&clip)),
        ("nan", message_chain(&nan)),
    ];
    for (case, message) in want {
        let got = &bad[case];
        assert_eq!(got["isError"], true, "{case}: {got}");
        assert_eq!(json_str(&got["message"]), message, "{case}");
    }
    assert_eq!(bad["stillRuns"], true);
    let errors = bad["errors"].as_array().expect("errors");
    assert!(
        errors.iter().all(|e| !json_str(e).contains("panicked")),
        "{errors:?}"
    );
}
