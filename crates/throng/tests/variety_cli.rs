//! Crowd variety through `throng render` (issue 37): `--variant NAME`, `--all-variants`,
//! `--tints` and `--hide-part N` on the skinned test file with two `KHR_materials_variants`
//! variants (`red`, `striped`; a source, baked in memory) and on Fox, and the errors for a
//! variant or part the asset lacks (exit 1, naming the flag and listing what the asset has).
//!
//! Pictures go to the test target dir. Without a GPU adapter the rendering tests skip outside
//! CI and fail in CI (`test_gpu()`); the error test needs none.

mod common;

use common::{asset_and_gpu, differing, ok_stderr, out_dir, read_png, run, s};
use std::path::PathBuf;
use throng_render::image::{Rgba, RgbaImage};

fn test_file() -> PathBuf {
    let p = out_dir("variety").join("skinned_variants.glb");
    std::fs::write(&p, throng_testdata::variants::glb()).unwrap();
    p
}

/// `red`'s red body (the own body is a white and black checker, the sky blue, the ground grey).
fn red(p: &Rgba<u8>) -> bool {
    p[0] > 90 && p[0] as u32 > 3 * p[1] as u32 && p[0] as u32 > 3 * p[2] as u32
}

/// `red`'s blue hat.
fn blue(p: &Rgba<u8>) -> bool {
    p[2] > 90 && p[2] as u32 > 3 * p[0] as u32 && p[2] as u32 > 3 * p[1] as u32
}

fn count(img: &RgbaImage, f: fn(&Rgba<u8>) -> bool) -> usize {
    img.pixels().filter(|p| f(p)).count()
}

/// Renders `input` with `flags` (3 instances in a row, 240×120) and reads the picture.
fn render(input: &str, name: &str, flags: &[&str]) -> RgbaImage {
    let out = out_dir("variety").join(format!("{name}.png"));
    let o = s(&out);
    let mut args = vec!["render", input, "-o", &o, "--size", "240x120"];
    args.extend_from_slice(flags);
    ok_stderr(&args);
    read_png(&out)
}

#[test]
fn variant_flags_show_the_variants() {
    let src = s(&test_file());
    if throng_render::device::test_gpu().is_none() {
        return;
    }
    let three = ["--instances", "3", "--layout", "grid"];
    let own = render(&src, "own", &three);
    let reds = render(&src, "red", &[&three[..], &["--variant", "red"]].concat());
    let all = render(&src, "all", &[&three[..], &["--all-variants"]].concat());
    let hatless = render(
        &src,
        "red-hatless",
        &[&three[..], &["--variant", "red", "--hide-part", "1"]].concat(),
    );
    let (r0, r1, ra, rh) = (
        count(&own, red),
        count(&reds, red),
        count(&all, red),
        count(&hatless, red),
    );
    eprintln!("red pixels: own {r0}, --variant red {r1}, --all-variants {ra}, hat hidden {rh}");
    assert!(r0 < 5, "the own materials show {r0} red pixels");
    assert!(r1 > 300, "--variant red shows {r1} red pixels");
    // One of three instances in red, one striped red and yellow.
    assert!(
        ra > r1 / 6 && ra < r1,
        "--all-variants shows {ra} red pixels"
    );
    let (b1, bh) = (count(&reds, blue), count(&hatless, blue));
    assert!(b1 > 30, "red's blue hats: {b1} pixels");
    assert!(bh < 5, "hidden hats still show {bh} blue pixels");
    assert!(rh > r1 / 2, "the body stays: {rh} red pixels");
}

#[test]
fn tints_vary_the_fox() {
    let Some(fox) = asset_and_gpu("Fox.glb") else {
        return;
    };
    let fox = s(&fox);
    let six = ["--instances", "6", "--clip", "Survey"];
    let plain = render(&fox, "fox", &six);
    let tinted = render(&fox, "fox-tints", &[&six[..], &["--tints"]].concat());
    let d = differing(&plain, &tinted, 8);
    eprintln!("--tints changes {d} pixels");
    // Six small foxes cover ~1,500 of the 28,800 pixels; one in six tints keeps white.
    assert!(d > 200, "--tints changes only {d} pixels");
}

#[test]
fn what_the_asset_lacks_is_an_error_naming_the_flag() {
    let src = s(&test_file());
    let out = s(&out_dir("variety").join("never.png"));
    let fails = |input: &str, flags: &[&str], says: &[&str]| {
        let mut args = vec!["render", input, "-o", &out];
        args.extend_from_slice(flags);
        let o = run(&args);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{flags:?}: {stderr}");
        for s in says {
            assert!(stderr.contains(s), "{flags:?}: no {s:?} in {stderr}");
        }
    };
    fails(
        &src,
        &["--variant", "gold"],
        &[
            "--variant gold",
            "no material variant named \"gold\" (variants: red, striped)",
            "throng inspect",
        ],
    );
    fails(
        &src,
        &["--hide-part", "2"],
        &["--hide-part 2", "no part 2 to hide (it has 2 part(s)"],
    );
    if let Some(fox) = common::asset_arg("Fox.glb") {
        fails(
            &fox,
            &["--all-variants"],
            &[
                "--all-variants",
                "has no material variants",
                "throng bake --variant",
            ],
        );
        fails(&fox, &["--variant", "red"], &["(variants: none)"]);
    }
}
