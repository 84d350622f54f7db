//! The downlevel mode (docs/downlevel.md) draws what the full mode draws: `throng render` of
//! Fox and CesiumMan crowds on the texture and VAT paths, (1) on a real device without compute
//! shaders — wgpu's GL backend on llvmpipe told to be GL 3.3 without compute and storage
//! buffers ([`NO_COMPUTE_GL`]), where the mode is chosen by itself — and (2) with `--downlevel`
//! on Vulkan (lavapipe), each against the Vulkan full mode's image of the same scene. A Fox
//! baked at 480 fps (2540 frame-table rows) playing its last clip checks that the bone texture
//! wraps its rows into a second layer at the downlevel device's 2048-texel side. A Fox baked
//! with LODs and a far tier, seen where every fox shows its card and a third also crossfade
//! from their coarsest mesh, checks the downlevel mode's cards (docs/design.md §5 "Far tier").
//!
//! Tolerance: the drivers rasterise and round differently at silhouette edges and in shadow
//! filtering, so at most 0.5 % of pixels may differ by more than 8/255 (an empty field against
//! a drawn crowd differs in ~3 %); each image must show the crowd. Images and diffs go to the
//! test target dir.
//!
//! Without the asset folder or an adapter the test skips outside CI and fails under `CI`.

mod common;

use common::{asset_arg, diff_image, differing, read_png, run_env, s, save};
use std::path::{Path, PathBuf};
use throng_render::image::{Rgba, RgbaImage};

const SIZE: &str = "256x256";
const MAX_DIFFERING: f64 = 0.005;

/// The environment of a device without compute shaders: llvmpipe's GL reports 3.3 core
/// without compute shaders and storage buffers (docs/downlevel.md).
const NO_COMPUTE_GL: [(&str, &str); 3] = [
    ("WGPU_BACKEND", "gl"),
    ("MESA_GL_VERSION_OVERRIDE", "3.3"),
    (
        "MESA_EXTENSION_OVERRIDE",
        "-GL_ARB_compute_shader -GL_ARB_shader_storage_buffer_object",
    ),
];
const VULKAN: [(&str, &str); 1] = [("WGPU_BACKEND", "vulkan")];

fn out_dir() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("downlevel");
    if let Err(e) = std::fs::create_dir_all(&d) {
        panic!("creating {}: {e}", d.display());
    }
    d
}

/// Runs throng with `env`; panics with its stderr when it fails, except that a missing adapter
/// outside CI gives `None` (skip). Returns stdout and stderr.
fn throng(args: &[&str], env: &[(&str, &str)]) -> Option<(String, String)> {
    let out = run_env(args, env);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success() {
        if std::env::var_os("CI").is_none() && stderr.contains("no GPU adapter") {
            eprintln!("skipping: no adapter for {env:?}: {stderr}");
            return None;
        }
        panic!("throng {args:?} with {env:?} failed:\n{stderr}");
    }
    Some((String::from_utf8_lossy(&out.stdout).into_owned(), stderr))
}

/// Bakes `asset` into the test dir with `extra` bake flags.
fn bake(asset: &str, name: &str, extra: &[&str]) -> Option<String> {
    let out = out_dir().join(format!("{name}.glb"));
    let out_arg = s(&out);
    let mut args = vec!["bake", asset, "-o", out_arg.as_str()];
    args.extend_from_slice(extra);
    throng(&args, &[])?;
    Some(out_arg)
}

/// Renders `baked` with `args` in `env` into `name`.png; returns the image and stderr.
fn render(
    baked: &str,
    name: &str,
    env: &[(&str, &str)],
    args: &[&str],
) -> Option<(RgbaImage, String, PathBuf)> {
    let png = out_dir().join(format!("{name}.png"));
    let png_arg = s(&png);
    let mut all = vec!["render", baked, "-o", png_arg.as_str(), "--size", SIZE];
    all.extend_from_slice(args);
    let (_, stderr) = throng(&all, env)?;
    Some((read_png(&png), stderr, png))
}

/// Pixels that are neither sky nor checkered ground: the crowd and its shadows.
fn crowd_pixels(img: &RgbaImage) -> usize {
    let grey = |p: &Rgba<u8>| {
        let (r, g, b) = (p[0] as i32, p[1] as i32, p[2] as i32);
        (r - g).abs() < 6 && (g - b).abs() < 6 && r > 70
    };
    let sky = |p: &Rgba<u8>| p[2] as i32 > p[0] as i32 + 30 && p[1] > 150;
    img.pixels().filter(|p| !grey(p) && !sky(p)).count()
}

/// Compares `img` with the full mode's `full`: at most [`MAX_DIFFERING`] of the pixels may
/// differ by more than 8/255. Returns the share.
fn compare(
    name: &str,
    full: &(RgbaImage, String, PathBuf),
    img: &(RgbaImage, String, PathBuf),
) -> f64 {
    let (a, b) = (&full.0, &img.0);
    assert_eq!(a.dimensions(), b.dimensions(), "{name}");
    let drawn = crowd_pixels(b);
    assert!(
        drawn > 1500,
        "{name}: only {drawn} pixels of crowd in {}",
        img.2.display()
    );
    let n = differing(a, b, 8);
    let share = n as f64 / (a.width() * a.height()) as f64;
    save(&diff_image(a, b, 8), &format!("downlevel-{name}-diff.png"));
    assert!(
        share <= MAX_DIFFERING,
        "{name}: {n} pixels ({:.2} %) differ by more than 8/255 from the full mode \
         (limit {:.1} %); see {} and {}",
        share * 100.0,
        MAX_DIFFERING * 100.0,
        full.2.display(),
        img.2.display()
    );
    share
}

#[test]
fn downlevel_draws_what_the_full_mode_draws() {
    let (Some(fox_src), Some(man)) = (asset_arg("Fox.glb"), asset_arg("CesiumMan.glb")) else {
        return;
    };
    let Some(fox) = bake(&fox_src, "fox", &["--vat", "f32"]) else {
        return;
    };
    let Some(man) = bake(&man, "cesium-man", &["--vat", "f16"]) else {
        return;
    };
    // 2540 rows: the Run clip's last rows lie past the 2048-row layer of a downlevel device.
    let Some(tall) = bake(&fox_src, "fox-480", &["--fps", "480"]) else {
        return;
    };
    let Some(far) = bake(
        &fox_src,
        "fox-far",
        &["--lod", "0.5,0.25,0.1", "--far-tier"],
    ) else {
        return;
    };
    let cases: [(&str, &str, &[&str]); 6] = [
        (
            "fox-texture",
            &fox,
            &["--instances", "48", "--path", "texture"],
        ),
        ("fox-vat", &fox, &["--instances", "48", "--path", "vat"]),
        (
            "cesium-man-texture",
            &man,
            &["--instances", "12", "--path", "texture"],
        ),
        (
            "cesium-man-vat",
            &man,
            &["--instances", "12", "--path", "vat"],
        ),
        (
            "fox-480-rows",
            &tall,
            &[
                "--instances",
                "9",
                "--path",
                "texture",
                "--clip",
                "Run",
                "--time",
                "1.0",
            ],
        ),
        (
            "fox-far-tier",
            &far,
            &["--instances", "64", "--lod-bias", "2", "--path", "texture"],
        ),
    ];
    let mut report = Vec::new();
    for (name, baked, args) in cases {
        let Some(full) = render(baked, &format!("{name}-vulkan-full"), &VULKAN, args) else {
            return;
        };
        let Some(gl) = render(baked, &format!("{name}-gl33"), &NO_COMPUTE_GL, args) else {
            return;
        };
        assert!(
            gl.1.contains("(gl,") && gl.1.contains("3.3"),
            "{name}: not the GL 3.3 adapter:\n{}",
            gl.1
        );
        assert!(
            gl.1.contains("mode: downlevel (this device lacks compute shaders)"),
            "{name}: the GL 3.3 device did not pick the downlevel mode:\n{}",
            gl.1
        );
        let mut forced = args.to_vec();
        forced.push("--downlevel");
        let Some(vk) = render(baked, &format!("{name}-vulkan-downlevel"), &VULKAN, &forced) else {
            return;
        };
        assert!(
            vk.1.contains("mode: downlevel (--downlevel)"),
            "{name}: --downlevel not reported:\n{}",
            vk.1
        );
        if name == "fox-far-tier" {
            // Every fox a card (LOD 4), some also at the coarsest mesh (the crossfade's band).
            for (mode, run) in [("full", &full), ("GL 3.3", &gl), ("--downlevel", &vk)] {
                let frame = run
                    .1
                    .lines()
                    .find(|l| l.starts_with("frame:"))
                    .unwrap_or("");
                assert!(
                    frame.contains("LOD 4: 64)") && !frame.contains("LOD 3: 0,"),
                    "{name} ({mode}): not cards and meshes: {frame}"
                );
            }
        }
        let a = compare(&format!("{name}-gl33"), &full, &gl);
        let b = compare(&format!("{name}-vulkan-downlevel"), &full, &vk);
        report.push(format!(
            "{name}: GL 3.3 {:.3} %, Vulkan --downlevel {:.3} %",
            a * 100.0,
            b * 100.0
        ));
    }
    eprintln!(
        "downlevel vs full, pixels differing by > 8/255: {}",
        report.join("; ")
    );
}

/// The palette path needs compute shaders: `render` says so and draws the texture path.
#[test]
fn the_palette_path_falls_back_to_the_texture_path_and_says_so() {
    let Some(fox) = asset_arg("Fox.glb") else {
        return;
    };
    let png = out_dir().join("palette-fallback.png");
    let png_arg = s(&png);
    let args = [
        "render",
        &fox,
        "-o",
        &png_arg,
        "--size",
        "128x128",
        "--instances",
        "4",
        "--path",
        "palette",
        "--downlevel",
    ];
    let Some((_, stderr)) = throng(&args, &VULKAN) else {
        return;
    };
    assert!(
        stderr.contains("path: texture (the palette path needs compute shaders"),
        "{stderr}"
    );
    assert!(crowd_pixels(&read_png(&png)) > 100, "nothing drawn");
}

/// `throng demo` on the device without compute shaders draws, says which mode it picked, and
/// gives no advice about installing software Vulkan (an adapter was found, and it works).
#[test]
fn the_demo_picks_the_downlevel_mode_on_a_device_without_compute() {
    let dir = out_dir().join("demo");
    let dir_arg = s(&dir);
    let args = [
        "demo",
        "--out-dir",
        &dir_arg,
        "--instances",
        "64",
        "--frames",
        "2",
        "--size",
        "320x180",
    ];
    let out = run_env(&args, &NO_COMPUTE_GL);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "demo failed:\n{stdout}\n{stderr}");
    assert!(
        stdout.contains("mode: downlevel (this device lacks compute shaders)"),
        "{stdout}"
    );
    assert!(stdout.contains("CPU (downlevel mode) culling"), "{stdout}");
    assert!(!stdout.contains("none found"), "{stdout}");
    assert!(
        !format!("{stdout}{stderr}").contains("apt-get"),
        "{stdout}{stderr}"
    );
    let png = read_png(&dir.join("demo.png"));
    assert!(crowd_pixels(&png) > 1500, "demo.png shows no crowd");
}

/// `throng view` in a window under Xvfb on the device without compute shaders: the texture
/// path instead of the palette path, and foxes in the screenshot.
#[test]
fn the_viewer_draws_on_a_device_without_compute() {
    let Some(fox) = asset_arg("Fox.glb") else {
        return;
    };
    if !throng_testdata::have_tool("xvfb-run", "apt: xvfb") {
        return;
    }
    let png = out_dir().join("view.png");
    let out = std::process::Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x720x24"])
        .arg(env!("CARGO_BIN_EXE_throng"))
        .args(["view", &fox, "--screenshot", &s(&png), "--frames", "2"])
        .envs(NO_COMPUTE_GL)
        .output();
    let out = match out {
        Ok(o) => o,
        Err(e) => panic!("cannot run xvfb-run: {e}"),
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "view failed:\n{stderr}");
    assert!(stderr.contains("mode: downlevel"), "{stderr}");
    assert!(stderr.contains("path: texture"), "{stderr}");
    let img = read_png(&png);
    let orange = img
        .pixels()
        .filter(|p| p[0] as i32 > p[1] as i32 + 40 && p[0] as i32 > p[2] as i32 + 60)
        .count();
    assert!(orange > 2000, "{orange} fox pixels in the window");
}

/// `bench render --cpu-cull` times the CPU culling and finds the GPU pass's lists; `--paths
/// texture-downlevel` draws a frame in the downlevel mode beside the full mode's.
#[test]
fn the_benches_measure_the_downlevel_mode() {
    let Some(fox) = asset_arg("Fox.glb") else {
        return;
    };
    let cpu_cull = ["--cpu-cull", "500", "--size", "128x128", "--json"];
    let Some(stdout) = bench_render(&fox, &cpu_cull) else {
        return;
    };
    let report: serde_json::Value = match serde_json::from_str(&stdout) {
        Ok(v) => v,
        Err(e) => panic!("not JSON ({e}): {stdout}"),
    };
    assert_eq!(report["lists_equal"], serde_json::json!(true), "{stdout}");
    assert!(
        report["cpu_cull_ms"].as_f64().is_some_and(|ms| ms > 0.0),
        "{stdout}"
    );
    let paths = [
        "--instances",
        "4",
        "--paths",
        "texture,texture-downlevel",
        "--size",
        "64x64",
    ];
    let Some(stdout) = bench_render(&fox, &paths) else {
        return;
    };
    assert!(stdout.contains("texture-downlevel"), "{stdout}");
}

/// One frame of `throng bench render` of `asset` on Vulkan with `args`; returns stdout.
fn bench_render(asset: &str, args: &[&str]) -> Option<String> {
    let mut all = vec!["bench", "render", "--asset", asset, "--frames", "1"];
    all.extend_from_slice(args);
    throng(&all, &VULKAN).map(|(stdout, _)| stdout)
}
