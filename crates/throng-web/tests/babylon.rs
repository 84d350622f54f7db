//! throng's crowds in Babylon.js (npm `babylonjs` 9.28.0 and `babylonjs-loaders`, unmodified;
//! docs/web.md "In Babylon.js"), in headless Chromium on SwiftShader, two ways:
//! - Babylon's own `BakedVertexAnimationManager` playing a texture `throng export --format
//!   babylon` made offline: Babylon loads the exported mesh and texture JSON and shows 1,000
//!   foxes at one exported frame of a clip;
//! - throng's adapter (`throng/babylon`) drawing the baked crowd with Babylon's engine: a first
//!   frame and a crossfade, CPU-timed, and the crossfade GPU-timed.
//!
//! Each picture's character coverage must match throng-render's picture of the same crowd,
//! camera and time (colour is not compared). Also: the skeleton has the texture's bone count;
//! Babylon's own draw-call counter says at most one draw per primitive and LOD for the 1,000;
//! a GPU-timed frame without changes sends nothing; a lit scene's ShadowGenerator draws the
//! crowd once more for its shadow.
//!
//! Tools: those of tests/browser.rs, and npm's `babylonjs` and `babylonjs-loaders` 9.28.0 in
//! `THRONG_WEB_DRIVER` (target/web-driver; `.ci/run` installs them).

mod common;

use common::*;

use throng_bake::engines::{self, EngineExportOptions, EngineFormat};
use throng_render::Renderer;
use throng_runtime::Timing;

const COUNT: u32 = 1000;
const CLIP: &str = "walk";
/// The exported frame of the clip both sides show.
const FRAME: u32 = 12;
const SIZE: (u32, u32) = (384, 256);
const EYE: [f32; 3] = [34.0, 26.0, 48.0];
const TARGET: [f32; 3] = [0.0, 0.0, 0.0];
const FOV_DEGREES: f32 = 40.0;
/// The adapter's crowd: clip time, and the crossfade (clip, seconds, then a step of dt).
const TIME: f64 = 0.4;
const FADE: (&str, f32, f64) = ("run", 0.5, 0.25);

#[test]
fn babylons_manager_plays_throngs_exported_texture() {
    let Some(tools) = engine_tools(
        "Babylon.js",
        "babylonjs/babylon.js",
        "babylonjs@9.28.0 babylonjs-loaders@9.28.0",
    ) else {
        return;
    };
    let Some(gpu) = throng_render::device::test_gpu() else {
        return;
    };
    let fox = bake_fox();
    let work = target_dir().join("tmp/throng-web-babylon");
    let page = work.join("page");
    build_page(
        &page,
        &tools.driver,
        &fox,
        &["babylon.html", "babylon-main.js"],
    );
    let clip = fox.find_clip(CLIP).expect("walk");
    let options = EngineExportOptions {
        format: EngineFormat::Babylon,
        clips: vec![clip],
        name: "a".into(),
        ..Default::default()
    };
    let report = engines::export(&fox, &options, &page.join("fox-babylon")).expect("export");
    let fox_far = write_far_fox(&page);
    write_graph(&page);
    let exported = &report.plan.clips[0];
    let time = exported.time(FRAME);
    let out = fresh_out(&work);
    let plan = serde_json::json!({
        "dir": page, "out": out, "chromium": tools.chromium, "driver": tools.driver,
        "export": "fox-babylon", "name": "a", "count": COUNT, "clip": exported.name, "frame": FRAME,
        "size": [SIZE.0, SIZE.1], "eye": EYE, "target": TARGET, "fov": FOV_DEGREES,
        "time": TIME, "fade": { "clip": FADE.0, "seconds": FADE.1, "dt": FADE.2 },
        "far": far_plan(),
        "graph": graph_plan(),
    });
    let r = drive(&work, "drive-babylon.mjs", &plan, &out.join("babylon.json"));
    assert!(
        r["first"].is_object(),
        "the Babylon.js page did not draw: {r}"
    );
    assert_eq!(
        r["first"]["bones"].as_u64(),
        Some(fox.palette.len() as u64),
        "{r}"
    );
    let calls = r["first"]["calls"].as_u64().unwrap();
    assert_eq!(
        calls,
        fox.primitives.len() as u64,
        "draw calls for {COUNT} instances: {r}"
    );

    // throng-render: the same crowd, every fox at the clip time of that exported frame.
    let mut renderer = Renderer::with_gpu(gpu);
    let gpu_asset = renderer.upload(&fox).expect("upload");
    let spec = crowd_spec(COUNT, CLIP, time);
    let player = viewed_player(&fox, Timing::Cpu, &spec, EYE, TARGET, FOV_DEGREES);
    let (want, empty) = draw(&mut renderer, &gpu_asset, &player, SIZE);
    want.save(out.join("native.png")).expect("save");
    compare(
        "Babylon.js",
        &load(&out.join("babylon.png")),
        &load(&out.join("babylon-none.png")),
        &want,
        &empty,
    );

    // throng's adapter in Babylon: CPU-timed first frame and crossfade, GPU-timed crossfade.
    let lods = 1 + fox.primitives[0].lods.len() as u64;
    for timing in ["cpu", "gpu"] {
        let calls = r[timing]["first"]["calls"].as_u64().unwrap_or(0);
        assert!(
            (1..=lods).contains(&calls),
            "{timing}: {calls} draw calls for {COUNT} instances: {r}"
        );
        assert_eq!(r[timing]["first"]["visible"], COUNT, "{timing}: {r}");
    }
    // Lit, with a ShadowGenerator: the shadow pass draws the crowd again through the
    // materials' ShadowDepthWrapper (adapter-lit.png).
    assert_shadow_pass_draws(&r);
    let adapter_empty = load(&out.join("adapter-none.png"));
    let spec = crowd_spec(COUNT, CLIP, TIME);
    for timing in [Timing::Cpu, Timing::Gpu] {
        let mut player = viewed_player(&fox, timing, &spec, EYE, TARGET, FOV_DEGREES);
        if timing == Timing::Cpu {
            let (want, _) = draw(&mut renderer, &gpu_asset, &player, SIZE);
            compare(
                "Babylon adapter, first frame",
                &load(&out.join("adapter.png")),
                &adapter_empty,
                &want,
                &empty,
            );
        }
        crossfade_all(&mut player, FADE);
        let (want, _) = draw(&mut renderer, &gpu_asset, &player, SIZE);
        let (what, file) = match timing {
            Timing::Cpu => ("Babylon adapter, crossfade", "adapter-fade.png"),
            Timing::Gpu => ("Babylon adapter, GPU-timed crossfade", "adapter-gpu.png"),
        };
        compare(what, &load(&out.join(file)), &adapter_empty, &want, &empty);
    }
    // The crowd driven by the graph, against the native player's graph crowd.
    assert_eq!(r["cpu"]["graph"]["stepsOn"], "cpu", "{r}");
    let mut graph_player = viewed_player(&fox, Timing::Cpu, &spec, EYE, TARGET, FOV_DEGREES);
    play_graph_scenario(&mut graph_player);
    let (want, _) = draw(&mut renderer, &gpu_asset, &graph_player, SIZE);
    want.save(out.join("native-graph.png")).expect("save");
    compare(
        "Babylon adapter, graph crowd",
        &load(&out.join("adapter-graph.png")),
        &adapter_empty,
        &want,
        &empty,
    );
    // GPU-timed, a still frame sends nothing (the crossfade's records went in one update)
    assert_eq!(r["gpu"]["still"]["uploadedBytes"], 0, "{r}");
    assert_eq!(r["gpu"]["after"]["uploadedBytes"], 0, "{r}");

    // The far tier: the crowd from a file baked with one draws its far foxes as cards (one more
    // draw), which cover what throng-render's cards cover.
    assert_far_cards(
        "Babylon adapter",
        &r,
        (&mut renderer, &fox_far),
        (&spec, (EYE, TARGET, FOV_DEGREES)),
        (&load(&out.join("adapter-far.png")), &adapter_empty),
        &empty,
        &out,
    );
    assert_eq!(r["closeErrors"], serde_json::json!([]), "{r}");
    for handed in ["right", "left"] {
        assert_cards_lit_like_meshes(
            &format!("Babylon adapter, {handed}-handed"),
            &load(&out.join(format!("adapter-close-cards-{handed}.png"))),
            &load(&out.join(format!("adapter-close-meshes-{handed}.png"))),
        );
    }
}
