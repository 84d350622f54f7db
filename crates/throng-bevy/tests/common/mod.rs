//! What the plugin's tests that run the example (examples/bevy_crowd.rs) under Xvfb share:
//! finding the tools and the example binary, running it for a screenshot, and comparing
//! pictures. Each test file uses a part of it.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use image::RgbaImage;

/// Whether `tool` is on the PATH; under CI its absence fails the test.
pub fn have(tool: &str) -> bool {
    throng_testdata::have_tool(tool, "apt: xvfb xauth")
}

/// target/<profile>/examples/bevy_crowd, beside the test binary's deps folder.
pub fn example_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let profile = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>");
    let bin = profile.join("examples").join("bevy_crowd");
    assert!(
        bin.is_file(),
        "{} is missing: build it with `cargo test -p throng-bevy` (which builds the examples) or `cargo build -p throng-bevy --example bevy_crowd` in the same profile",
        bin.display()
    );
    bin
}

/// A run's picture and what it printed.
pub struct Shot {
    pub image: RgbaImage,
    pub stdout: String,
    pub stderr: String,
}

/// Runs the example with `args` in a 1280×720 Xvfb screen, saving its screenshot to `out`
/// (`--screenshot out` is added), and returns the picture. Fails on an exit status other than
/// 0 and on any ERROR Bevy logged (a pipeline whose shader does not compose or validate is
/// logged, not fatal: the item is just never drawn).
pub fn run_example(args: &[&str], out: &Path) -> Shot {
    let o = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x720x24"])
        .arg(example_binary())
        .args(args)
        .arg("--screenshot")
        .arg(out)
        .env("WGPU_DEBUG", "0")
        .output()
        .unwrap_or_else(|e| panic!("cannot run xvfb-run: {e}"));
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(
        o.status.success(),
        "bevy_crowd {args:?} failed:\n{stdout}\n{stderr}"
    );
    assert!(
        !stderr.contains("ERROR"),
        "bevy_crowd {args:?} logged errors:\n{stderr}"
    );
    eprintln!("{stdout}");
    let image = match image::open(out) {
        Ok(i) => i.to_rgba8(),
        Err(e) => panic!("{}: {e}", out.display()),
    };
    Shot {
        image,
        stdout,
        stderr,
    }
}

/// Runs the example on 16 foxes at 320×180 with `extra` flags and returns its screenshot
/// ([`run_example`]: fails on a failed run or a logged ERROR).
pub fn shoot_with(mode: &str, path: &str, extra: &[&str], out: &Path) -> Shot {
    let mut args = extra.to_vec();
    args.extend(["--mode", mode, "--path", path, "--instances", "16"]);
    // Counted from when every fox is in and no pipeline is compiling (the example holds time
    // until then, so a loaded machine cannot change the pose): 4 s of animation.
    args.extend(fixed_frames("40"));
    let shot = run_example(&args, out);
    assert!(shot.stdout.contains("mean frame time"), "{}", shot.stdout);
    shot
}

/// The example's flags for `frames` frames of 0.1 s each after one warm-up frame, at
/// 320×180: the pictures the tests compare.
pub fn fixed_frames(frames: &str) -> [&str; 8] {
    [
        "--frames",
        frames,
        "--warmup",
        "1",
        "--fixed-dt",
        "0.1",
        "--size",
        "320x180",
    ]
}

/// Pixels of `a` and `b` (the same size) whose channels (RGBA) differ by more than `levels`.
pub fn differing(a: &RgbaImage, b: &RgbaImage, levels: u8) -> usize {
    assert_eq!(
        a.dimensions(),
        b.dimensions(),
        "pictures of different sizes"
    );
    a.pixels()
        .zip(b.pixels())
        .filter(|(a, b)| a.0.iter().zip(b.0).any(|(&x, y)| x.abs_diff(y) > levels))
        .count()
}

/// Pixels of `a` and `b` whose channels differ by more than 8 levels, as a share of the
/// picture.
pub fn differing_share(a: &RgbaImage, b: &RgbaImage) -> f64 {
    differing(a, b, 8) as f64 / (a.width() * a.height()).max(1) as f64
}
