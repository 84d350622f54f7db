//! `throng view` in a real window under Xvfb: the screenshot holds the crowd and the panels;
//! clicks and drags (xdotool) change the pose; the error heat map of an exact (mat4-f32) bake
//! is zero at a sample time and shows the 30 fps sampling error between samples, equal to an
//! independent CPU computation; without a display the command says how to run it.
//!
//! Needs `xvfb-run`, `xdotool` and `import` (apt: xvfb xdotool imagemagick) and the asset
//! folder: outside CI a missing one skips the test, under `CI` it fails.

mod common;

use common::{asset_arg, read_png, run_env, s};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;
use throng_render::image::{Rgba, RgbaImage};

/// Width of the left panel in pixels (at the window's 1280×720; the central view starts past
/// it).
const PANEL: u32 = 300;

fn dir() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("view");
    if let Err(e) = std::fs::create_dir_all(&d) {
        panic!("creating {}: {e}", d.display());
    }
    d
}

/// Whether `tool` is on the PATH; under CI its absence fails the test.
fn have(tool: &str) -> bool {
    throng_testdata::have_tool(tool, "apt: xvfb xdotool imagemagick")
}

/// Fox.glb as an argument when it and `xvfb-run` are there (see [`have`]).
fn fox_and_xvfb() -> Option<String> {
    let fox = asset_arg("Fox.glb")?;
    have("xvfb-run").then_some(fox)
}

/// Runs `throng view ARGS` in a 1280×720 Xvfb display.
fn view_under_xvfb(args: &[&str]) -> Output {
    let out = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x720x24"])
        .arg(env!("CARGO_BIN_EXE_throng"))
        .arg("view")
        .args(args)
        .output();
    match out {
        Ok(o) => o,
        Err(e) => panic!("cannot run xvfb-run: {e}"),
    }
}

fn ok(out: Output, what: &str) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{what} failed:\n{stderr}");
    stderr
}

/// Fox orange: red well above green and blue.
fn orange(p: &Rgba<u8>) -> bool {
    p[0] as i32 > p[1] as i32 + 40 && p[0] as i32 > p[2] as i32 + 60
}

/// The heat ramp's top (red, as lit): red high, green and blue low.
fn heat_red(p: &Rgba<u8>) -> bool {
    p[0] > 120 && (p[1] as i32) < p[0] as i32 / 2 && (p[2] as i32) < p[0] as i32 / 2
}

/// Pixels of the central view (right of the panel, above the heat map's legend and the status
/// line) passing `f`.
fn count_in_view(img: &RgbaImage, f: fn(&Rgba<u8>) -> bool) -> usize {
    let (w, h) = img.dimensions();
    let mut n = 0;
    for y in 0..h.saturating_sub(130) {
        for x in PANEL.min(w)..w {
            if f(img.get_pixel(x, y)) {
                n += 1;
            }
        }
    }
    n
}

#[test]
fn without_a_display_it_says_how_to_run_it() {
    let out = {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_throng"));
        cmd.args(["view", "no-such-file.glb"])
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY");
        match cmd.output() {
            Ok(o) => o,
            Err(e) => panic!("cannot run throng: {e}"),
        }
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("xvfb-run"), "{stderr}");
}

#[test]
fn screenshot_shows_the_crowd_and_the_panels() {
    let Some(fox) = fox_and_xvfb() else {
        return;
    };
    let png = dir().join("view-fox.png");
    let stderr = ok(
        view_under_xvfb(&[&fox, "--screenshot", &s(&png), "--frames", "3"]),
        "throng view --screenshot",
    );
    assert!(stderr.contains("the window with its panels"), "{stderr}");
    let img = read_png(&png);
    assert_eq!(img.dimensions(), (1280, 720));
    let foxes = count_in_view(&img, orange);
    assert!(foxes > 2_000, "{foxes} fox pixels in the view");
    // The panel: egui's dark background with light text over most of the left strip.
    let dark = (0..720)
        .flat_map(|y| (0..PANEL).map(move |x| (x, y)))
        .filter(|&(x, y)| img.get_pixel(x, y)[0] < 60)
        .count();
    assert!(
        dark > (PANEL * 720) as usize / 2,
        "{dark} dark panel pixels"
    );
    let text = (0..720)
        .flat_map(|y| (0..PANEL).map(move |x| (x, y)))
        .filter(|&(x, y)| img.get_pixel(x, y)[0] > 150)
        .count();
    assert!(text > 2_000, "{text} light (text) pixels in the panel");
}

/// `--graph` plays the crowd through Fox's locomotion graph with the Graph panel (its pose
/// logic is tested in throng-graph and throng-scene), stepped on the CPU on this software
/// adapter (`--graph-on auto`) and on the GPU when asked (`--graph-on gpu`, the panel reading
/// its instance back); a parameter the graph lacks fails naming it and the file (exit 1), and
/// a comparison, GPU timing or a clip with a graph are usage errors (exit 2).
#[test]
fn a_graph_plays_the_crowd_and_its_parameters_are_checked() {
    let Some(fox) = fox_and_xvfb() else {
        return;
    };
    let graph =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../throng-graph/graphs/fox-locomotion.json");
    let graph = s(&graph);
    let png = dir().join("view-graph.png");
    let png_s = s(&png);
    let run = [
        &fox,
        "--graph",
        &graph,
        "--param",
        "speed=4",
        "--screenshot",
        &png_s,
        "--frames",
        "3",
    ];
    let err = ok(view_under_xvfb(&run), "throng view --graph");
    assert!(err.contains("graph: stepped on the CPU ("), "{err}");
    let foxes = count_in_view(&read_png(&png), orange);
    assert!(foxes > 2_000, "{foxes} fox pixels in the view");
    let on_gpu = [&run[..], &["--graph-on", "gpu"]].concat();
    let err = ok(
        view_under_xvfb(&on_gpu),
        "throng view --graph --graph-on gpu",
    );
    assert!(err.contains("graph: stepped on the GPU of "), "{err}");
    // the crowd at another wall-clock time (its poses are the twin tests' to check)
    let gpu_foxes = count_in_view(&read_png(&png), orange);
    assert!(gpu_foxes > 2_000, "{gpu_foxes} fox pixels in the view");
    let out = view_under_xvfb(&[&fox, "--graph", &graph, "--param", "sped=4"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("\"sped\""), "{err}");
    assert!(err.contains("fox-locomotion.json: --param sped"), "{err}");
    // what the graph decides is not also a flag's (as `throng render` refuses them)
    for flags in [
        &["--compare", "heat"][..],
        &["--timing", "gpu"],
        &["--clip", "Walk"],
    ] {
        let out = view_under_xvfb(&[&[&fox[..], "--graph", &graph][..], flags].concat());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flags:?}: {err}");
    }
}

/// The worst heat-map error the viewer prints, as a fraction of the diagonal.
fn printed_worst(stderr: &str) -> f64 {
    let line = stderr
        .lines()
        .find(|l| l.starts_with("heat map at"))
        .unwrap_or_else(|| panic!("no heat-map line in:\n{stderr}"));
    let v = line
        .rsplit(" = ")
        .next()
        .and_then(|x| x.split(' ').next())
        .and_then(|x| x.parse().ok());
    match v {
        Some(v) => v,
        None => panic!("no fraction in {line:?}"),
    }
}

/// The largest distance between the bake's CPU decoder and the source skinned at `t` of clip
/// `clip`, as a fraction of the bake's diagonal: computed here from the libraries, not by the
/// viewer.
fn worst_at(
    asset: &throng_asset::BakedAsset,
    model: &throng_anim::Model,
    clip: usize,
    t: f64,
) -> f64 {
    let c = &asset.clips[clip];
    let at = c.sample(t);
    let layer = throng_asset::Layer {
        weight: 1.0,
        frac: at.frac,
        row: at.row as f32,
        clip: clip as u32,
    };
    let mut skinner = throng_anim::ModelSkinner::new(model);
    let mut parts = Vec::new();
    skinner.skin(
        model,
        Some(clip),
        at.time as f32,
        throng_anim::Skinning::Linear,
        &mut parts,
    );
    let mut worst = 0.0f32;
    for (pi, bp) in asset.primitives.iter().enumerate() {
        let sv = throng_asset::decode::skin_vertices(
            asset,
            pi,
            &[
                layer,
                Default::default(),
                Default::default(),
                Default::default(),
            ],
            throng_contract::Skinning::Linear,
        )
        .expect("decode");
        let src = parts
            .iter()
            .find(|p| p.node == bp.node_index && p.mesh == bp.mesh && p.primitive == bp.primitive)
            .expect("source primitive");
        for (a, b) in sv.positions.iter().zip(&src.vertices.positions) {
            worst = worst.max(a.distance(*b));
        }
    }
    let d = asset
        .row_bounds
        .iter()
        .fold(throng_asset::Aabb::EMPTY, |a, b| a.union(b))
        .diagonal();
    worst as f64 / d as f64
}

/// Fox baked at 30 fps with an exact encoding: at a sample only f32 rounding remains; between
/// samples the matrix interpolation of 30 fps errs (Walk: up to 1.8e-2 of the diagonal).
fn exact_bake_at_30_fps(fox: &str) -> PathBuf {
    let baked = dir().join("fox-30fps-mat4.glb");
    let out = run_env(
        &[
            "bake",
            fox,
            "-o",
            &s(&baked),
            "--fps",
            "30",
            "--encoding",
            "mat4-f32",
        ],
        &[],
    );
    ok(out, "throng bake");
    baked
}

#[test]
fn heat_map_is_zero_at_samples_and_shows_the_sampling_error_between() {
    let Some(fox) = fox_and_xvfb() else {
        return;
    };
    let baked = exact_bake_at_30_fps(&fox);
    let asset = throng_asset::read(&baked).expect("read the bake");
    let model = throng_gltf::import(Path::new(&fox)).expect("import Fox");
    let walk = asset.find_clip("Walk").expect("Walk");
    let c = &asset.clips[walk];
    let sample = c.frame_time(7);
    let mid = 0.5 * (c.frame_time(7) + c.frame_time(8));
    for (t, name) in [(sample, "sample"), (mid, "mid")] {
        let png = dir().join(format!("view-heat-{name}.png"));
        let stderr = ok(
            view_under_xvfb(&[
                &s(&baked),
                "--source",
                &fox,
                "--compare",
                "heat",
                "--clip",
                "Walk",
                "--instances",
                "1",
                "--paused",
                "--time",
                &format!("{t:.9}"),
                "--screenshot",
                &s(&png),
            ]),
            "throng view --compare heat",
        );
        let shown = printed_worst(&stderr);
        let want = worst_at(&asset, &model, walk, t);
        let red = count_in_view(&read_png(&png), heat_red);
        eprintln!(
            "{name} ({t:.4} s): viewer {shown:.3e}, independent {want:.3e}, {red} red pixels"
        );
        if name == "sample" {
            assert!(
                shown < 1e-5 && want < 1e-5,
                "at a sample: {shown:.3e} / {want:.3e}"
            );
            assert!(red < 50, "{red} red pixels at a sample time");
        } else {
            assert!(want > 1e-3, "the 30 fps error between samples: {want:.3e}");
            // Printed with 4 significant digits.
            assert!(
                (shown - want).abs() <= 1e-3 * want,
                "viewer {shown:.4e} vs {want:.4e}"
            );
            assert!(red > 300, "only {red} red pixels between samples");
        }
    }
}

#[test]
fn clicking_a_clip_and_dragging_the_timeline_change_the_pose() {
    let Some(fox) = asset_arg("Fox.glb") else {
        return;
    };
    if !(have("xvfb-run") && have("xdotool") && have("import")) {
        return;
    }
    let d = dir();
    let (a, b, c) = (
        d.join("click-0.png"),
        d.join("click-1.png"),
        d.join("click-2.png"),
    );
    // Paused on Survey at 0 s; click the clip list's second row (Walk), then drag the time
    // slider from its start to near its end. The positions are those of the panel's layout at
    // 1280×720 (see the screenshot test's image).
    let script = format!(
        "{bin} view '{fox}' --paused --instances 1 & pid=$!; \
         for i in $(seq 1 120); do xdotool search --name 'throng view' >/dev/null 2>&1 && break; sleep 0.5; done; \
         sleep 8; import -window root '{a}'; \
         xdotool mousemove 60 156 click 1; sleep 3; import -window root '{b}'; \
         xdotool mousemove 30 248; sleep 0.5; xdotool mousedown 1; sleep 0.5; \
         xdotool mousemove 80 248; sleep 0.5; xdotool mousemove 118 248; sleep 0.5; xdotool mouseup 1; sleep 3; \
         import -window root '{c}'; kill $pid; wait $pid 2>/dev/null; true",
        bin = env!("CARGO_BIN_EXE_throng"),
        a = s(&a),
        b = s(&b),
        c = s(&c),
    );
    let out = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x720x24", "sh", "-c", &script])
        .output()
        .expect("run xvfb-run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    std::thread::sleep(Duration::from_millis(100));
    let (ia, ib, ic) = (read_png(&a), read_png(&b), read_png(&c));
    let differ = |x: &RgbaImage, y: &RgbaImage| {
        let (w, h) = x.dimensions();
        (0..h.saturating_sub(40))
            .flat_map(|yy| (PANEL..w).map(move |xx| (xx, yy)))
            .filter(|&(xx, yy)| common::differs(x.get_pixel(xx, yy), y.get_pixel(xx, yy), 8))
            .count()
    };
    let clip_change = differ(&ia, &ib);
    let scrub = differ(&ib, &ic);
    eprintln!("pixels changed: clip click {clip_change}, timeline drag {scrub}");
    assert!(
        count_in_view(&ia, orange) > 500,
        "no fox before the clicks:\n{stderr}"
    );
    assert!(
        clip_change > 200,
        "clicking Walk changed {clip_change} pixels:\n{stderr}"
    );
    assert!(
        scrub > 200,
        "dragging the timeline changed {scrub} pixels:\n{stderr}"
    );
}
