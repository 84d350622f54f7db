//! Babylon.js's own `BakedVertexAnimationManager` (npm `babylonjs` 9.28.0 and
//! `babylonjs-loaders`, unmodified) playing a texture `throng export --format babylon` made
//! offline (docs/web.md "In Babylon.js"), in headless Chromium on SwiftShader: Babylon loads the
//! exported mesh and texture JSON, shows 1,000 foxes at one exported frame of a clip, and the
//! characters' coverage must match throng-render's picture of the same crowd at that clip time
//! (colour is not compared). Also: Babylon's skeleton has the texture's bone count, and its own
//! draw-call counter says one draw for the 1,000.
//!
//! Tools: those of tests/browser.rs, and npm's `babylonjs` and `babylonjs-loaders` 9.28.0 in
//! `THRONG_WEB_DRIVER` (target/web-driver; `.ci/run` installs them).

mod common;

use common::*;
use std::process::Command;

use throng_bake::engines::{self, EngineExportOptions, EngineFormat};
use throng_render::Renderer;
use throng_runtime::Timing;
use throng_web::{ClipRef, CrowdSpec, Player};

const COUNT: u32 = 1000;
const CLIP: &str = "walk";
/// The exported frame of the clip both sides show.
const FRAME: u32 = 12;
const SIZE: (u32, u32) = (384, 256);
const EYE: [f32; 3] = [34.0, 26.0, 48.0];
const TARGET: [f32; 3] = [0.0, 0.0, 0.0];
const FOV_DEGREES: f32 = 40.0;

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
    let exported = &report.plan.clips[0];
    let time = exported.time(FRAME);
    let out = work.join("out");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).expect("out folder");
    let plan = serde_json::json!({
        "dir": page, "out": out, "chromium": tools.chromium, "driver": tools.driver,
        "export": "fox-babylon", "name": "a", "count": COUNT, "clip": exported.name, "frame": FRAME,
        "size": [SIZE.0, SIZE.1], "eye": EYE, "target": TARGET, "fov": FOV_DEGREES,
    });
    let plan_path = work.join("plan.json");
    std::fs::write(&plan_path, plan.to_string()).expect("plan");
    run(Command::new("node")
        .arg(repo().join("web/test/drive-babylon.mjs"))
        .arg(&plan_path));
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("babylon.json")).expect("result"))
            .expect("json");
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
    let mut player = Player::new(fox.clone(), Timing::Cpu);
    let spec = CrowdSpec {
        count: COUNT,
        clip: Some(ClipRef::Name(CLIP.into())),
        time,
        ..Default::default()
    };
    player.spawn_crowd(&spec).expect("crowd");
    player
        .look_at(EYE, TARGET, FOV_DEGREES.to_radians())
        .expect("camera");
    player.step(0.0).expect("step");
    let (want, empty) = draw(&mut renderer, &gpu_asset, &player, SIZE);
    want.save(out.join("native.png")).expect("save");
    compare(
        "Babylon.js",
        &load(&out.join("babylon.png")),
        &load(&out.join("babylon-none.png")),
        &want,
        &empty,
    );
}
