//! throng's crowd inside three.js (docs/web.md "In three.js"): the npm package's `throng/three`
//! adapter draws 1,000 foxes with three.js's own WebGLRenderer (npm `three` 0.187.0, unmodified)
//! in headless Chromium on SwiftShader, and the characters' coverage — the pixels where the
//! crowd changes the picture — must match throng-render's picture of the same crowd, camera and
//! time on this machine's adapter (shading differs between the engines, so colour is not
//! compared): for the first frame and after a crossfade. Also: three's own draw-call counter
//! (primitives × LODs at most, whatever the instance count), and bad input in JavaScript (a
//! truncated file, a wrong clip name, a NaN transform, a speed of 1e30, past `MAX_SPEED`) throwing an Error while
//! the page keeps drawing.
//!
//! `THRONG_WEB_BENCH=200,1000,10000` adds the benchmark of docs/web.md "In three.js".
//!
//! Tools: those of tests/browser.rs, and npm's `three` 0.187.0 in `THRONG_WEB_DRIVER`
//! (target/web-driver; `.ci/run` installs it).

mod common;

use common::*;

use throng_render::Renderer;
use throng_runtime::Timing;

const COUNT: u32 = 1000;
const CLIP: &str = "walk";
const TIME: f64 = 0.4;
const SIZE: (u32, u32) = (384, 256);
const FADE: (&str, f32, f64) = ("run", 0.5, 0.25);
/// Camera of both pictures (file units: the built-in fox is in metres; 1,000 of them cover
/// about 48 × 48 m): the crowd from above the front-right, as `throng render --camera` takes it.
const EYE: [f32; 3] = [34.0, 26.0, 48.0];
const TARGET: [f32; 3] = [0.0, 0.0, 0.0];
const FOV_DEGREES: f32 = 40.0;

#[test]
fn a_three_js_scene_draws_the_crowd_as_throng_does() {
    let Some(tools) = engine_tools("three.js", "three/build/three.module.js", "three@0.187.0")
    else {
        return;
    };
    let Some(gpu) = throng_render::device::test_gpu() else {
        return;
    };
    let fox = bake_fox();
    let work = target_dir().join("tmp/throng-web-three");
    let page = work.join("page");
    build_page(&page, &tools.driver, &fox, &["three.html", "three-main.js"]);
    let out = fresh_out(&work);
    std::fs::write(page.join("fox-source.glb"), throng_demo::demo_glb()).expect("source fox");
    let fox_far = write_far_fox(&page);
    write_graph(&page);
    let plan = serde_json::json!({
        "dir": page, "out": out, "chromium": tools.chromium, "driver": tools.driver,
        "count": COUNT, "clip": CLIP, "time": TIME, "size": [SIZE.0, SIZE.1],
        "eye": EYE, "target": TARGET, "fov": FOV_DEGREES,
        "fade": { "clip": FADE.0, "seconds": FADE.1, "dt": FADE.2 },
        // THRONG_WEB_BENCH=200,1000,10000 also measures the adapter against three's own
        // SkinnedMesh.
        "bench": bench_counts(), "benchFrames": 10, "source": "fox-source.glb",
        "far": far_plan(),
        "graph": graph_plan(),
    });
    let r = drive(&work, "drive-three.mjs", &plan, &out.join("result.json"));
    assert!(
        r["first"].is_object(),
        "the three.js page did not draw: {r}"
    );

    // three.js's own counter: one draw per primitive and LOD in use (the fox: 1 primitive,
    // 4 LODs; the plain scene casts no shadow), for 1,000 instances.
    let calls = r["first"]["calls"].as_u64().unwrap();
    let lods = 1 + fox.primitives[0].lods.len() as u64;
    assert!(
        (1..=lods).contains(&calls),
        "{calls} draw calls for {COUNT} instances: {r}"
    );
    assert_eq!(
        r["first"]["visible"].as_u64(),
        Some(COUNT as u64),
        "every fox is in view: {r}"
    );

    // With lights and shadows: the sun's shadow pass draws the crowd again with the skinned
    // depth material (three-lit.png).
    assert_shadow_pass_draws(&r);

    // throng-render's picture of the same crowd, camera and time (no ground, no shadows: only
    // the characters change it).
    let renderer = Renderer::with_gpu(gpu);
    let gpu_asset = renderer.upload(&fox).expect("upload");
    let spec = crowd_spec(COUNT, CLIP, TIME);
    let mut player = viewed_player(&fox, Timing::Cpu, &spec, EYE, TARGET, FOV_DEGREES);
    let mut renderer = renderer;
    let (want, empty) = draw(&mut renderer, &gpu_asset, &player, SIZE);
    want.save(out.join("native.png")).expect("save");
    let three_empty = load(&out.join("three-none.png"));
    compare(
        "first frame",
        &load(&out.join("three.png")),
        &three_empty,
        &want,
        &empty,
    );

    crossfade_all(&mut player, FADE);
    let (want_fade, _) = draw(&mut renderer, &gpu_asset, &player, SIZE);
    want_fade.save(out.join("native-fade.png")).expect("save");
    compare(
        "crossfade",
        &load(&out.join("three-fade.png")),
        &three_empty,
        &want_fade,
        &empty,
    );

    // The crowd driven by the graph: its records are the graph's CPU step's, drawn by the
    // adapter as throng-render draws the native player's graph crowd.
    assert_eq!(r["graph"]["stepsOn"], "cpu", "{r}");
    let mut graph_player = viewed_player(&fox, Timing::Cpu, &spec, EYE, TARGET, FOV_DEGREES);
    play_graph_scenario(&mut graph_player);
    let (want_graph, _) = draw(&mut renderer, &gpu_asset, &graph_player, SIZE);
    want_graph.save(out.join("native-graph.png")).expect("save");
    compare(
        "graph crowd",
        &load(&out.join("three-graph.png")),
        &three_empty,
        &want_graph,
        &empty,
    );

    // GPU-timed: the shader derives rows from the records and the clock (the GLSL twin of
    // throng::playback's gpu_layers); the same first frame and crossfade as throng-render's
    // GPU-timed crowd, and after the first frame only the rewritten records travel.
    assert!(
        r["gpuFade"].is_object(),
        "the GPU-timed page did not draw: {r}"
    );
    let mut gpu_player = viewed_player(&fox, Timing::Gpu, &spec, EYE, TARGET, FOV_DEGREES);
    crossfade_all(&mut gpu_player, FADE);
    let (want_gpu, _) = draw(&mut renderer, &gpu_asset, &gpu_player, SIZE);
    want_gpu.save(out.join("native-gpu.png")).expect("save");
    compare(
        "GPU-timed crossfade",
        &load(&out.join("three-gpu.png")),
        &three_empty,
        &want_gpu,
        &empty,
    );
    // a still frame sends nothing; the crossfade sends the 1,000 rewritten records (64 B each)
    // and nothing more; the frame after it, nothing
    assert_eq!(r["gpuStill"]["uploadedBytes"], 0, "{r}");
    assert_eq!(
        r["gpuFade"]["uploadedBytes"].as_u64(),
        Some(COUNT as u64 * 64),
        "{r}"
    );
    assert_eq!(r["gpuAfter"]["uploadedBytes"], 0, "{r}");

    // Bad input throws an Error naming the problem, and the page still draws.
    let bad = &r["bad"];
    for (k, words) in [
        ("truncated", "Error"),
        ("clip", "no-such-clip"),
        ("nanTransform", "finite"),
        ("speed", "speed must be in [0, 1000]"),
    ] {
        let got = bad[k].as_str().unwrap_or("");
        assert!(got.contains(words), "{k}: {got} ({r})");
    }
    assert_eq!(
        bad["stillDraws"], "no error",
        "the page stopped drawing: {r}"
    );

    // The far tier: the crowd from a file baked with one draws its far foxes as cards (one more
    // draw), which cover what throng-render's cards cover.
    assert_far_cards(
        "three.js",
        &r,
        (&mut renderer, &fox_far),
        (&spec, (EYE, TARGET, FOV_DEGREES)),
        (&load(&out.join("three-far.png")), &three_empty),
        &empty,
        &out,
    );
    assert_cards_lit_like_meshes(
        "three.js",
        &load(&out.join("three-close-cards.png")),
        &load(&out.join("three-close-meshes.png")),
    );
}
