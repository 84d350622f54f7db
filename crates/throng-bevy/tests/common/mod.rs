//! What the example-running tests share: running `bevy_crowd` under Xvfb and taking its
//! screenshot. (tests/example.rs has its own runner; the two are to become this one module.)

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use image::RgbaImage;

/// Whether `tool` is on the PATH; under CI its absence fails the test.
pub fn have(tool: &str) -> bool {
    throng_testdata::have_tool(tool, "apt: xvfb xauth")
}

/// The `bevy_crowd` example binary `cargo test` built beside this test binary
/// (target/<profile>/examples).
pub fn example_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let profile = exe
        .parent()
        .and_then(Path::parent)
        .expect("the test binary lies in target/<profile>/deps");
    let bin = profile.join("examples").join("bevy_crowd");
    assert!(
        bin.is_file(),
        "{} is missing: `cargo test -p throng-bevy` builds it (or `cargo build -p throng-bevy --example bevy_crowd` in the same profile)",
        bin.display()
    );
    bin
}

/// The screenshot of one run and what the run printed.
pub struct Shot {
    pub image: RgbaImage,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `bevy_crowd --mode MODE --path PATH EXTRA…` in a 1280×720 Xvfb screen: 16 foxes,
/// 40 frames of 0.1 s counted from when the scene is ready, a 320×180 window, the screenshot
/// written to `out`. Fails when the run fails or Bevy logs an ERROR (a pipeline that does not
/// compose is logged, not fatal).
pub fn shoot_with(mode: &str, path: &str, extra: &[&str], out: &Path) -> Shot {
    let run = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x720x24"])
        .arg(example_binary())
        .args(extra)
        .args(["--mode", mode, "--path", path])
        .args(["--instances", "16", "--frames", "40", "--warmup", "1"])
        .args(["--fixed-dt", "0.1", "--size", "320x180", "--screenshot"])
        .arg(out)
        .env("WGPU_DEBUG", "0")
        .output()
        .unwrap_or_else(|e| panic!("xvfb-run does not start: {e}"));
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    assert!(
        run.status.success(),
        "bevy_crowd {mode} {path} {extra:?}: {}\n{stdout}\n{stderr}",
        run.status
    );
    assert!(
        !stderr.contains("ERROR"),
        "bevy_crowd {mode} {path} {extra:?} logged errors:\n{stderr}"
    );
    let image = image::open(out)
        .unwrap_or_else(|e| panic!("{}: {e}", out.display()))
        .to_rgba8();
    Shot {
        image,
        stdout,
        stderr,
    }
}
