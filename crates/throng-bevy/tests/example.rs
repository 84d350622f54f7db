//! Runs the example (examples/bevy_crowd.rs) in an Xvfb window: 16 foxes drawn by throng
//! inside Bevy's renderer, and the same 16 as Bevy's own glTF scenes animated by
//! `AnimationPlayer`, each saved with Bevy's screenshot API after 40 frames of 0.1 s.
//!
//! What is checked, with its tolerance:
//! - the throng picture shows foxes where expected: fox-coloured pixels (the texture's orange,
//!   lit) cover at least 0.5 % of the picture, all within the middle 80 % of its width and the
//!   band where the camera frames the field, and the top strip (above the field) is clear
//!   colour;
//! - it shows them where Bevy's own path draws the same foxes: of the pixels that are not clear
//!   colour in either picture, at least 50 % are covered in both (intersection over union of
//!   the two silhouettes ≥ 0.5: same layout, camera, clips and start times; legs differ by the
//!   two animation paths' sampling and the baked error budget);
//! - the two skinning paths draw the same picture: the palette path (a palette pass, then one
//!   matrix read per influence; the default) and the texture path (`--path texture`, every
//!   influence blended from the bone texture in the vertex stage) run throng's shared WGSL
//!   (`throng::pose`, `throng::skin`) in the same order, so at most 0.5 % of pixels differ by
//!   more than 8 levels in a channel (edges, where the compute and vertex stages round
//!   differently).
//!
//! Needs `xvfb-run` (apt: xvfb xauth), a Vulkan adapter (lavapipe: mesa-vulkan-drivers) and
//! `THRONG_ASSETS/Fox.glb`; outside CI a missing tool or asset skips, under `CI` it fails.
//! The example binary is the one `cargo test` builds with the tests (target/*/examples).

use std::path::{Path, PathBuf};
use std::process::Command;

use image::RgbaImage;

fn have(tool: &str) -> bool {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI lacks {tool} (apt: xvfb xauth)"
        );
        eprintln!("skipping: no {tool}");
    }
    found
}

/// target/<profile>/examples/bevy_crowd, beside this test's deps folder.
fn example_binary() -> PathBuf {
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

fn shoot(mode: &str, path: &str, out: &Path) -> RgbaImage {
    let o = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x720x24"])
        .arg(example_binary())
        .args([
            "--mode",
            mode,
            "--path",
            path,
            "--instances",
            "16",
            "--frames",
            // lavapipe compiles the pipelines in the background while the first frames run
            // (nothing is drawn until then): ~20 frames at this size and count, more where
            // frames are quicker.
            "40",
            "--warmup",
            "1",
            "--fixed-dt",
            "0.1",
            "--size",
            "320x180",
            "--screenshot",
        ])
        .arg(out)
        .env("WGPU_DEBUG", "0")
        .output()
        .unwrap_or_else(|e| panic!("cannot run xvfb-run: {e}"));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success(),
        "bevy_crowd --mode {mode} failed:\n{stdout}\n{stderr}"
    );
    eprintln!("{stdout}");
    assert!(stdout.contains("mean frame time"), "{stdout}");
    match image::open(out) {
        Ok(i) => i.to_rgba8(),
        Err(e) => panic!("{}: {e}", out.display()),
    }
}

/// The example's clear colour, sRGB (0.05, 0.07, 0.12) as stored in the screenshot: within 6
/// levels per channel.
fn clear(p: &[u8]) -> bool {
    let c = [13i32, 18, 31];
    p[..3]
        .iter()
        .zip(c)
        .all(|(&v, c)| (v as i32 - c).abs() <= 6)
}

/// The fox texture's orange, lit: red well above blue.
fn orange(p: &[u8]) -> bool {
    p[0] as i32 > p[2] as i32 + 40 && p[0] as i32 > p[1] as i32 + 10
}

#[test]
fn the_example_draws_foxes_where_bevy_draws_them() {
    if !have("xvfb-run") {
        return;
    }
    if throng_testdata::asset("Fox.glb").is_none() {
        return;
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bevy_crowd");
    std::fs::create_dir_all(&dir).expect("output dir");
    let throng = shoot("throng", "palette", &dir.join("throng.png"));
    let texture = shoot("throng", "texture", &dir.join("throng-texture.png"));
    let bevy = shoot("bevy", "palette", &dir.join("bevy.png"));
    assert_eq!(throng.dimensions(), bevy.dimensions());
    assert_eq!(throng.dimensions(), texture.dimensions());
    let (w, h) = throng.dimensions();

    let differ = throng
        .pixels()
        .zip(texture.pixels())
        .filter(|(a, b)| a.0.iter().zip(b.0).any(|(&x, y)| x.abs_diff(y) > 8))
        .count();
    let differ_share = differ as f64 / (w * h) as f64;
    eprintln!("palette vs texture path: {differ} pixels differ by > 8 levels ({differ_share:.4})");
    assert!(
        differ_share <= 0.005,
        "the palette and texture paths draw different pictures: {differ} pixels ({differ_share:.4})"
    );

    let mut fox = 0usize;
    let mut outside = 0usize;
    let mut top_not_clear = 0usize;
    for (x, y, p) in throng.enumerate_pixels() {
        if orange(&p.0) {
            fox += 1;
            if x < w / 10 || x > w - w / 10 {
                outside += 1;
            }
        }
        if y < h / 12 && !clear(&p.0) {
            top_not_clear += 1;
        }
    }
    let share = fox as f64 / (w * h) as f64;
    eprintln!("throng: fox pixels {share:.4}, outside the middle {outside}, top strip not clear {top_not_clear}");
    assert!(share > 0.005, "too few fox pixels: {share:.4}");
    assert_eq!(outside, 0, "fox pixels outside the field's columns");
    assert!(
        top_not_clear < (w as usize) / 10,
        "the strip above the field is not clear colour ({top_not_clear} pixels)"
    );

    let (mut both, mut either) = (0usize, 0usize);
    for (a, b) in throng.pixels().zip(bevy.pixels()) {
        let (fa, fb) = (!clear(&a.0), !clear(&b.0));
        both += (fa && fb) as usize;
        either += (fa || fb) as usize;
    }
    let iou = both as f64 / either.max(1) as f64;
    eprintln!("silhouettes: throng ∩ bevy / throng ∪ bevy = {iou:.3} ({both} / {either})");
    assert!(either > 0, "both pictures empty");
    assert!(
        iou >= 0.5,
        "throng's foxes are not where Bevy draws them: IoU {iou:.3}"
    );
}
