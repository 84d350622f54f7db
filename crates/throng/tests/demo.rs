//! End to end: `throng demo` bakes the built-in fox, plays a crowd and writes demo.png and an
//! animated demo.gif that show something (not a blank frame).
//!
//! Without any GPU adapter (not even lavapipe) the render test skips outside CI and fails in
//! CI; the no-adapter test checks the message that tells a user what to install.

mod common;

use common::{read_gif, read_png, run_env};
use std::path::{Path, PathBuf};
use std::process::Output;
use throng_render::image::RgbaImage;

/// A blank or single-colour frame has a luma standard deviation of 0; sky, checkered ground
/// and shaded foxes give tens of levels (out of 255). 8 levels is far from both.
const MIN_LUMA_STD: f64 = 8.0;

fn out_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("demo-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// `throng demo` writing into a fresh `out_dir(name)`, with `extra` arguments and `env` added.
fn demo(name: &str, extra: &[&str], env: &[(&str, &str)]) -> (PathBuf, Output) {
    let dir = out_dir(name);
    let d = dir.to_string_lossy().into_owned();
    let mut args = vec!["demo", "--out-dir", &d];
    args.extend_from_slice(extra);
    let out = run_env(&args, env);
    (dir, out)
}

/// Standard deviation of Rec. 709 luma over all pixels, in 8-bit levels.
fn luma_std(img: &RgbaImage) -> f64 {
    let n = (img.width() * img.height()) as f64;
    let lumas = img
        .pixels()
        .map(|p| 0.2126 * p[0] as f64 + 0.7152 * p[1] as f64 + 0.0722 * p[2] as f64);
    let (sum, sum2) = lumas.fold((0.0, 0.0), |(s, s2), l| (s + l, s2 + l * l));
    let mean = sum / n;
    (sum2 / n - mean * mean).max(0.0).sqrt()
}

/// Share of pixels that are fox orange (red well above green and blue): the crowd was drawn,
/// not only the sky and the grey ground.
fn orange_share(img: &RgbaImage) -> f64 {
    let n = (img.width() * img.height()) as f64;
    let orange = img
        .pixels()
        .filter(|p| p[0] as i32 > p[1] as i32 + 40 && p[0] as i32 > p[2] as i32 + 60)
        .count();
    orange as f64 / n
}

#[test]
fn demo_writes_a_picture_and_an_animation() {
    let (dir, out) = demo(
        "render",
        &["--instances", "200", "--size", "320x180", "--frames", "6"],
        &[],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() && stderr.contains("no GPU adapter") {
        if std::env::var_os("CI").is_some() {
            panic!("CI has no usable GPU adapter:\n{stderr}");
        }
        eprintln!("skipping: no GPU adapter ({stderr})");
        return;
    }
    assert!(
        out.status.success(),
        "throng demo failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    for want in [
        "fidelity:",
        "adapter:",
        "runtime:",
        "render:",
        "demo.png",
        "demo.gif",
    ] {
        assert!(
            stdout.contains(want),
            "no {want:?} in the output:\n{stdout}"
        );
    }

    let png = read_png(&dir.join("demo.png"));
    assert_eq!(png.dimensions(), (320, 180));
    let std = luma_std(&png);
    assert!(
        std > MIN_LUMA_STD,
        "demo.png looks blank: luma std {std:.1}"
    );
    // 200 foxes at 320×180 cover a few percent of the picture.
    let share = orange_share(&png);
    assert!(share > 0.005, "demo.png shows no foxes: {share:.4} orange");

    let frames = read_gif(&dir.join("demo.gif"));
    assert_eq!(frames.len(), 6, "one GIF frame per --frames");
    for (i, f) in frames.iter().enumerate() {
        let img = f.buffer();
        assert_eq!(img.dimensions(), (320, 180), "frame {i}");
        let std = luma_std(img);
        assert!(
            std > MIN_LUMA_STD,
            "GIF frame {i} looks blank: luma std {std:.1}"
        );
    }
    // The crowd moves: consecutive frames differ somewhere.
    let changed = frames
        .windows(2)
        .filter(|w| w[0].buffer().as_raw() != w[1].buffer().as_raw())
        .count();
    assert_eq!(
        changed,
        frames.len() - 1,
        "frames repeat: the crowd did not move"
    );
}

/// With no adapter at all (Vulkan only, pointed at a driver list that does not exist), the bake
/// and the runtime still run, then the command says what to install and exits 1.
#[test]
fn demo_without_an_adapter_says_what_to_install() {
    let (dir, out) = demo(
        "no-adapter",
        &["--instances", "50", "--frames", "2"],
        &[
            ("WGPU_BACKEND", "vulkan"),
            ("VK_ICD_FILENAMES", "/nonexistent/throng-no-driver.json"),
            ("VK_DRIVER_FILES", "/nonexistent/throng-no-driver.json"),
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(1),
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(stdout.contains("fidelity:"), "the bake ran:\n{stdout}");
    assert!(stdout.contains("runtime:"), "the runtime ran:\n{stdout}");
    assert!(
        stderr.contains("apt-get install mesa-vulkan-drivers libvulkan1"),
        "names what to install:\n{stderr}"
    );
    assert!(!dir.join("demo.png").exists(), "nothing drawn");
}

/// `--graph gpu` steps the built-in fox's locomotion graph on the GPU (lavapipe in CI) from the
/// state the CPU warm-up left, and draws from the records the pass wrote: the picture and every
/// GIF frame match `--graph cpu`'s but for a few pixels (the GPU derives rows and fracs in f32,
/// within 1e-4 frames of the CPU's f64; the state machines are the same to the bit).
#[test]
fn demo_steps_the_graph_on_the_gpu_as_on_the_cpu() {
    let args = ["--instances", "300", "--size", "320x180", "--frames", "5"];
    let run = |on: &str| {
        let mut a = args.to_vec();
        a.extend(["--graph", on]);
        let (dir, out) = demo(&format!("graph-{on}"), &a, &[]);
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "throng demo --graph {on} failed\nstdout:\n{stdout}\nstderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        (dir, stdout)
    };
    let (gpu_dir, gpu_out) = run("gpu");
    let (cpu_dir, cpu_out) = run("cpu");
    assert!(gpu_out.contains("graph: stepped on the GPU"), "{gpu_out}");
    assert!(
        gpu_out.contains("the locomotion graph stepped on the GPU"),
        "{gpu_out}"
    );
    assert!(cpu_out.contains("graph: stepped on the CPU"), "{cpu_out}");
    let differ = |a: &RgbaImage, b: &RgbaImage| {
        let n = a.pixels().zip(b.pixels()).filter(|(p, q)| p != q).count();
        n as f64 / (a.width() * a.height()) as f64
    };
    let (g, c) = (
        read_png(&gpu_dir.join("demo.png")),
        read_png(&cpu_dir.join("demo.png")),
    );
    assert!(
        orange_share(&g) > 0.005,
        "no foxes on the GPU graph's picture"
    );
    let d = differ(&g, &c);
    assert!(d <= 0.005, "demo.png: {:.2} % of pixels differ", d * 100.0);
    let (fg, fc) = (
        read_gif(&gpu_dir.join("demo.gif")),
        read_gif(&cpu_dir.join("demo.gif")),
    );
    assert_eq!(fg.len(), fc.len());
    for (k, (a, b)) in fg.iter().zip(&fc).enumerate() {
        let d = differ(a.buffer(), b.buffer());
        assert!(
            d <= 0.02,
            "GIF frame {k}: {:.2} % of pixels differ",
            d * 100.0
        );
    }
}
