//! What the browser tests share: the tools they need, the built-in fox baked as web/build.sh
//! bakes it, and the wasm package built as web/build.sh builds it.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use throng_asset::BakedAsset;
use throng_render::image::{self, RgbaImage};
use throng_render::{GpuAsset, Renderer};
use throng_runtime::{ClipId, PlaybackCommand, Timing};
use throng_web::player::play_options;
use throng_web::{ClipRef, CrowdSpec, Player};

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The outer build's target folder (`CARGO_TARGET_TMPDIR` is its `tmp`).
pub fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("..")
}

pub struct Tools {
    pub chromium: PathBuf,
    pub driver: PathBuf,
}

/// What the test needs, or what is missing.
pub fn tools() -> Result<Tools, String> {
    let mut missing = Vec::new();
    let targets = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output();
    if !targets.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("wasm32-unknown-unknown"))
    {
        missing.push("the Rust target (rustup target add wasm32-unknown-unknown)".to_string());
    }
    let lock = std::fs::read_to_string(repo().join("Cargo.lock")).unwrap_or_default();
    let want = lock
        .split("[[package]]")
        .find(|p| p.contains("name = \"wasm-bindgen\"\n"))
        .and_then(|p| p.split("version = \"").nth(1))
        .and_then(|v| v.split('"').next())
        .unwrap_or("?")
        .to_string();
    let have = Command::new("wasm-bindgen").arg("--version").output();
    let have = have
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    if have != format!("wasm-bindgen {want}") {
        missing.push(format!(
            "wasm-bindgen-cli {want} (cargo install wasm-bindgen-cli --version {want}; found {have:?})"
        ));
    }
    if Command::new("node").arg("--version").output().is_err() {
        missing.push("node (apt-get install nodejs npm)".into());
    }
    let chromium = std::env::var_os("THRONG_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| "/usr/bin/chromium".into());
    if !chromium.exists() {
        missing.push(format!(
            "Chromium at {} (apt-get install chromium, or set THRONG_CHROMIUM)",
            chromium.display()
        ));
    }
    let driver = std::env::var_os("THRONG_WEB_DRIVER")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target/web-driver"));
    if !driver.join("node_modules/puppeteer-core").exists() {
        missing.push(format!(
            "puppeteer-core in {} (npm install --prefix {} puppeteer-core, or set THRONG_WEB_DRIVER)",
            driver.display(),
            driver.display()
        ));
    }
    if missing.is_empty() {
        Ok(Tools { chromium, driver })
    } else {
        Err(missing.join("; "))
    }
}

pub fn run(cmd: &mut Command) {
    let status = cmd
        .status()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(status.success(), "{cmd:?} failed: {status}");
}

/// The instance counts `THRONG_WEB_BENCH` names (`1000,10000`; none when unset): the test also
/// measures frame times at those counts.
pub fn bench_counts() -> Vec<u32> {
    std::env::var("THRONG_WEB_BENCH")
        .unwrap_or_default()
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect()
}

/// `work`/out, empty: where a driver writes its pictures and results.
pub fn fresh_out(work: &Path) -> PathBuf {
    let out = work.join("out");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).expect("out folder");
    out
}

/// Runs the driver web/test/`script` with node on `plan` (written to `work`/plan.json) and reads
/// the JSON it wrote to `result`.
pub fn drive(
    work: &Path,
    script: &str,
    plan: &serde_json::Value,
    result: &Path,
) -> serde_json::Value {
    let plan_path = work.join("plan.json");
    std::fs::write(&plan_path, plan.to_string()).expect("plan");
    run(Command::new("node")
        .arg(repo().join("web/test").join(script))
        .arg(&plan_path));
    let text =
        std::fs::read_to_string(result).unwrap_or_else(|e| panic!("{}: {e}", result.display()));
    eprintln!("{script}: {text}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", result.display()))
}

/// The crowd a page spawns with `spawnCrowd({ count, clip, time })`.
pub fn crowd_spec(count: u32, clip: &str, time: f64) -> CrowdSpec {
    CrowdSpec {
        count,
        clip: Some(ClipRef::Name(clip.into())),
        time,
        ..Default::default()
    }
}

/// The native player of an engine page's crowd: `spec` of `fox`, `timing`-timed, seen from
/// `eye` towards `target` with a vertical field of view of `fov_degrees` (the page's `eye`,
/// `target`, `fov`), posed as the page's first frame (a step of 0 s).
pub fn viewed_player(
    fox: &BakedAsset,
    timing: Timing,
    spec: &CrowdSpec,
    eye: [f32; 3],
    target: [f32; 3],
    fov_degrees: f32,
) -> Player {
    let mut player = Player::new(fox.clone(), timing);
    player.spawn_crowd(spec).expect("crowd");
    player
        .look_at(eye, target, fov_degrees.to_radians())
        .expect("camera");
    player.step(0.0).expect("step");
    player
}

/// What the pages' `crossfadeAll(clip, seconds)` then `frame(dt)` do, on the native player: every
/// instance crossfades to `clip` over `seconds`, then the crowd steps `dt` seconds.
pub fn crossfade_all(player: &mut Player, (clip, seconds, dt): (&str, f32, f64)) {
    let to = player
        .clip(&ClipRef::Name(clip.into()))
        .expect("the fade's clip");
    let fade = PlaybackCommand::Crossfade {
        clip: ClipId::new(to),
        seconds,
        options: play_options(None, None, None).expect("defaults"),
    };
    player.command(None, fade).expect("crossfade");
    player.step(dt).expect("step");
}

/// The built-in fox baked with the LODs web/build.sh gives it, without its far tier (the
/// engines' tests and most scenes draw meshes).
pub fn bake_fox() -> BakedAsset {
    bake_demo_fox(None)
}

/// The built-in fox as web/build.sh bakes it: the LODs and the far tier's default settings.
pub fn bake_fox_far() -> BakedAsset {
    bake_demo_fox(Some(Default::default()))
}

fn bake_demo_fox(far_tier: Option<throng_bake::far_tier::FarTierSettings>) -> BakedAsset {
    let glb = throng_demo::demo_glb();
    let model = throng_gltf::import_slice(&glb, None, "throng-demo-fox.glb").expect("import");
    let options = throng_bake::BakeOptions {
        source_name: "throng-demo-fox.glb".into(),
        lods: vec![0.5, 0.25, 0.1],
        far_tier,
        ..Default::default()
    };
    throng_bake::bake(&model, &options).expect("bake").0
}

/// The tools of an engine's browser test: [`tools`] and the engine's npm `file` in the driver's
/// node_modules (`install`: the npm packages to name). `None` (after saying what is missing)
/// outside CI; under `CI` a missing tool fails the test.
pub fn engine_tools(engine: &str, file: &str, install: &str) -> Option<Tools> {
    let missing = match tools() {
        Ok(t) if t.driver.join("node_modules").join(file).exists() => return Some(t),
        Ok(t) => format!(
            "npm {install} in {} (npm install --prefix {} {install})",
            t.driver.display(),
            t.driver.display()
        ),
        Err(missing) => missing,
    };
    lacking(engine, &missing)
}

/// The tools of a browser test without an engine ([`tools`]); `None` (after saying what is
/// missing) outside CI, a failure under `CI`.
pub fn browser_tools(test: &str) -> Option<Tools> {
    tools().map_or_else(|missing| lacking(test, &missing), Some)
}

/// What `test` lacks: under `CI` a failure, elsewhere a message and a skip.
fn lacking(test: &str, missing: &str) -> Option<Tools> {
    if std::env::var_os("CI").is_some() {
        panic!("CI cannot run the {test} test: missing {missing}");
    }
    eprintln!("skipping the {test} test: missing {missing}");
    None
}

/// Builds the wasm package (`cargo build --target wasm32-unknown-unknown -p throng-web`, then
/// `wasm-bindgen --target web`) into `dir`.
pub fn wasm_package(dir: &Path) {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    run(Command::new(cargo)
        .current_dir(repo())
        .env("CARGO_TARGET_DIR", target_dir())
        .args(["build", "--release", "--target", "wasm32-unknown-unknown"])
        .args(["-p", "throng-web"]));
    let wasm = target_dir().join("wasm32-unknown-unknown/release/throng_web.wasm");
    run(Command::new("wasm-bindgen")
        .args(["--target", "web", "--out-dir"])
        .arg(dir)
        .arg(&wasm));
}

/// Pixels where `img` differs from `empty` by more than 8/255 in some channel.
/// At most 1 % of the pixels may be covered in one picture and not the other.
pub const MAX_COVERAGE_DIFF: f64 = 0.01;

pub fn coverage(img: &RgbaImage, empty: &RgbaImage) -> Vec<bool> {
    img.pixels()
        .zip(empty.pixels())
        .map(|(p, q)| pixel_differs(p, q, 8))
        .collect()
}

/// Whether some colour channel of `p` and `q` differs by more than `tolerance`.
pub fn pixel_differs(p: &image::Rgba<u8>, q: &image::Rgba<u8>, tolerance: u8) -> bool {
    (0..3).any(|c| p[c].abs_diff(q[c]) > tolerance)
}

pub fn compare(
    what: &str,
    three: &RgbaImage,
    three_empty: &RgbaImage,
    native: &RgbaImage,
    native_empty: &RgbaImage,
) {
    let a = coverage(three, three_empty);
    let b = coverage(native, native_empty);
    let covered = b.iter().filter(|x| **x).count() as f64 / b.len() as f64;
    let diff = a.iter().zip(&b).filter(|(x, y)| x != y).count() as f64 / a.len() as f64;
    eprintln!("{what}: foxes cover {:.2} % natively, {:.2} % in the engine's picture; coverage differs on {:.3} % of pixels", covered * 100.0, a.iter().filter(|x| **x).count() as f64 / a.len() as f64 * 100.0, diff * 100.0);
    assert!(
        covered > 0.02,
        "{what}: the foxes cover only {covered} of the native picture"
    );
    assert!(
        diff <= MAX_COVERAGE_DIFF,
        "{what}: coverage differs on {diff} of the pixels (limit {MAX_COVERAGE_DIFF})"
    );
}

/// An engine page's lit scene (`r["lit"]`: its counters with a shadow-casting sun and a ground):
/// the main pass draws the crowd's meshes in use and the ground, the shadow pass the crowd's
/// meshes again with their skinned depth shader, so `calls` = 2 × meshes drawn + 1.
pub fn assert_shadow_pass_draws(r: &serde_json::Value) {
    let lit = &r["lit"];
    let drawn = lit["drawn"].as_u64().unwrap_or(0);
    assert!(drawn >= 1, "the lit scene drew no crowd: {r}");
    assert_eq!(
        lit["calls"].as_u64(),
        Some(2 * drawn + 1),
        "draw calls with shadows: {r}"
    );
}

pub fn load(path: &Path) -> RgbaImage {
    image::open(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .to_rgba8()
}

/// An engine page's folder: `files` and engine-page.js (what the engine pages share) from web/,
/// packages/throng (the npm package with its wasm), node_modules (the engines, from the
/// driver's), fox.glb.
pub fn build_page(dir: &Path, driver: &Path, fox: &throng_asset::BakedAsset, files: &[&str]) {
    let _ = std::fs::remove_dir_all(dir);
    let package = dir.join("packages/throng");
    std::fs::create_dir_all(&package).expect("page folder");
    wasm_package(&package.join("pkg"));
    for f in [
        "index.js",
        "core.js",
        "three.js",
        "babylon.js",
        "package.json",
    ] {
        std::fs::copy(repo().join("web/packages/throng").join(f), package.join(f))
            .expect("copy the package");
    }
    for f in files.iter().chain(&["engine-page.js"]) {
        std::fs::copy(repo().join("web").join(f), dir.join(f)).expect("copy the page");
    }
    std::os::unix::fs::symlink(driver.join("node_modules"), dir.join("node_modules"))
        .expect("node_modules");
    std::fs::write(
        dir.join("fox.glb"),
        throng_asset::to_glb_bytes(fox).expect("fox"),
    )
    .expect("fox.glb");
}

/// The options of throng-render's pictures for the engine pages: the player's view at `size`,
/// no ground, no shadows (only the characters change the picture).
fn scene_options(
    renderer: &Renderer,
    player: &Player,
    size: (u32, u32),
) -> throng_render::RenderOptions {
    let fits = renderer.palette_fits(player.asset().palette.len(), player.len());
    let mut opts = player.render_options(size.0, size.1, fits);
    opts.ground = false;
    opts.shadows = false;
    opts
}

/// throng-render's picture of the player's crowd and the same frame without it
/// ([`scene_options`]).
pub fn draw(
    renderer: &mut Renderer,
    gpu_asset: &GpuAsset,
    player: &Player,
    size: (u32, u32),
) -> (RgbaImage, RgbaImage) {
    let opts = scene_options(renderer, player, size);
    let full = renderer
        .render_scene(&[player.crowd(gpu_asset)], &opts)
        .expect("draw")
        .image;
    let none = renderer.render_scene(&[], &opts).expect("draw").image;
    (full, none)
}

/// The LOD bias of the engine pages' far-tier scene: at the pages' camera it puts the nearest
/// foxes of the 1,000 on meshes, the farthest on cards and a band between crossfading.
pub const FAR_LOD_BIAS: f32 = 0.6;

/// Writes the far-tier fox ([`bake_fox_far`]) beside an engine page as `fox-far.glb`.
pub fn write_far_fox(page: &Path) -> BakedAsset {
    let fox = bake_fox_far();
    std::fs::write(
        page.join("fox-far.glb"),
        throng_asset::to_glb_bytes(&fox).expect("far fox"),
    )
    .expect("fox-far.glb");
    fox
}

/// The engine drivers' `far` plan: the file [`write_far_fox`] writes and the LOD bias.
pub fn far_plan() -> serde_json::Value {
    serde_json::json!({ "file": "fox-far.glb", "lodBias": FAR_LOD_BIAS })
}

/// An engine page's far-tier scene (`r["far"]`, its picture `page` over `page_empty`): it holds
/// meshes, cards and instances crossfading between them, and covers what throng-render covers
/// in the same crowd (`spec` of `fox`, camera `(eye, target, fov_degrees)`, the default
/// crossfade) with every card a quad, as the adapters draw them, within
/// [`MAX_COVERAGE_DIFF`]; the lit far scene (`r["farLit"]`) draws cards without an error.
pub fn assert_far_cards(
    engine: &str,
    r: &serde_json::Value,
    (renderer, fox): (&mut Renderer, &BakedAsset),
    (spec, (eye, target, fov_degrees)): (&CrowdSpec, ([f32; 3], [f32; 3], f32)),
    (page, page_empty): (&RgbaImage, &RgbaImage),
    native_empty: &RgbaImage,
    out: &Path,
) {
    assert!(
        r["far"].is_object(),
        "{engine}: the far-tier page did not draw: {r}"
    );
    let cards = r["far"]["cards"].as_u64().unwrap_or(0);
    let fading = r["far"]["fading"].as_u64().unwrap_or(0);
    let meshes: u64 = r["far"]["perLod"][0]
        .as_array()
        .map_or(0, |l| l.iter().filter_map(|c| c.as_u64()).sum());
    eprintln!(
        "{engine}, far tier: {cards} cards, {meshes} meshes, {fading} of them crossfading, of {}",
        spec.count
    );
    assert!(
        cards > fading && meshes > fading && fading > 0,
        "{engine}: the far scene should hold cards, meshes and a crossfade: {r}"
    );
    let gpu_asset = renderer.upload(fox).expect("upload the far fox");
    let player = viewed_player(fox, Timing::Cpu, spec, eye, target, fov_degrees);
    let mut opts = scene_options(renderer, &player, page.dimensions());
    opts.lod_bias = FAR_LOD_BIAS;
    opts.far_dots = false;
    let frame = renderer
        .render_scene(&[player.crowd(&gpu_asset)], &opts)
        .expect("draw");
    frame.image.save(out.join("native-far.png")).expect("save");
    // throng-render leaves out cards whose box holds no pixel centre; the adapters list them
    let native = frame.stats.instances_per_lod.last().copied().unwrap_or(0);
    eprintln!("{engine}, far tier: {native} cards natively");
    assert!(
        native > 0 && native <= cards,
        "{engine}: {cards} cards, {native} natively"
    );
    compare(
        &format!("{engine}, far tier"),
        page,
        page_empty,
        &frame.image,
        native_empty,
    );
    assert_eq!(r["farLitErrors"], serde_json::json!([]), "{engine}: {r}");
    assert!(
        r["farLit"]["cards"].as_u64().unwrap_or(0) > 0,
        "{engine}: the lit far scene draws cards: {r}"
    );
}

/// The mean colour of a lit picture's fox pixels (red above green by more than 30: the fox's
/// orange, not the ground, the sky or a shadow), and how many there are.
pub fn fox_colour(img: &RgbaImage) -> ([f64; 3], usize) {
    let mut sum = [0.0; 3];
    let mut n = 0;
    for p in img.pixels() {
        if p[0] as i32 > p[1] as i32 + 30 {
            for c in 0..3 {
                sum[c] += p[c] as f64;
            }
            n += 1;
        }
    }
    (sum.map(|s| s / n.max(1) as f64), n)
}

/// Cards are lit as the meshes are: 16 foxes close up under the page's sun and sky, all cards
/// (`cards`) and all meshes (`meshes`): the fox pixels' mean colours differ by at most 12 % of
/// 255 in each channel. (A normal turned the wrong way, or a colour in the wrong space, moves a
/// channel by far more.)
pub fn assert_cards_lit_like_meshes(what: &str, cards: &RgbaImage, meshes: &RgbaImage) {
    let (c, nc) = fox_colour(cards);
    let (m, nm) = fox_colour(meshes);
    eprintln!("{what}: fox pixels' mean colour, cards {c:.0?} ({nc}), meshes {m:.0?} ({nm})");
    assert!(
        nc > 500 && nm > 500,
        "{what}: too few fox pixels ({nc}, {nm})"
    );
    for k in 0..3 {
        assert!(
            (c[k] - m[k]).abs() <= 0.12 * 255.0,
            "{what}: cards {c:.0?} against meshes {m:.0?}"
        );
    }
}

/// Frame `f`'s changes to the demo locomotion graph's parameters (`throng_graph::
/// DEMO_FOX_LOCOMOTION`) of a crowd of `n`, as (the instance's place in the crowd, or every
/// instance; name; value): every instance starts walking, some run, some sit down and get up,
/// some stop.
pub fn graph_changes(f: u32, n: u32) -> Vec<(Option<u32>, &'static str, throng_web::ParamValue)> {
    use throng_web::ParamValue;
    let mut out = Vec::new();
    if f == 0 {
        out.push((None, "speed", ParamValue::Number(1.5)));
    }
    for i in 0..n {
        match (f + 7 * i) % 97 {
            0 => out.push((Some(i), "speed", ParamValue::Number(3.0))),
            31 => out.push((Some(i), "speed", ParamValue::Number(0.0))),
            45 => out.push((Some(i), "sit", ParamValue::Fire)),
            70 => out.push((
                Some(i),
                "speed",
                ParamValue::Number(0.5 + i as f64 / n as f64),
            )),
            _ => {}
        }
    }
    out
}

/// The engine pages' graph scenario: the crowd driven by the demo's locomotion graph (its file,
/// `GRAPH_FILE`, beside the page), every fox's `speed` set to 3 (the run), stepped `GRAPH_FRAMES`
/// frames of `GRAPH_DT` seconds; what the drivers' plans carry as `graph`.
pub const GRAPH_FILE: &str = "locomotion.json";
pub const GRAPH_FRAMES: u32 = 20;
pub const GRAPH_DT: f64 = 1.0 / 30.0;

pub fn graph_plan() -> serde_json::Value {
    serde_json::json!({ "file": GRAPH_FILE, "param": "speed", "value": 3.0,
        "frames": GRAPH_FRAMES, "dt": GRAPH_DT })
}

/// Writes the demo's locomotion graph beside an engine page.
pub fn write_graph(page: &Path) {
    std::fs::write(page.join(GRAPH_FILE), throng_graph::DEMO_FOX_LOCOMOTION).expect("the graph");
}

/// `player` (a CPU-timed crowd) after the engine pages' graph scenario, stepped on the CPU.
pub fn play_graph_scenario(player: &mut Player) {
    player
        .play_graph(
            throng_graph::DEMO_FOX_LOCOMOTION,
            GRAPH_FILE,
            None,
            throng_graph_gpu::StepOn::Auto,
        )
        .expect("graph");
    let run = throng_web::ParamValue::Number(3.0);
    player.set_param(None, "speed", run).expect("speed");
    for _ in 0..GRAPH_FRAMES {
        player.step(GRAPH_DT).expect("step");
    }
}
