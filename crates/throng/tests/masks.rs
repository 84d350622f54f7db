//! Layer masks and additive layers through the command line (docs/design.md §4 "Layer masks and
//! additive layers"): `bake --mask upper=JOINT --additive CLIP`, then `render --blend CLIP
//! --blend-mask upper` on the palette path against the reference path, which skins the same
//! masked pose on the CPU with throng-asset's decoder (the palette pass's twin).
//!
//! Assets: Fox.glb (Run with the upper body — b_Spine01_02 down: neck, head, front legs — in
//! Walk; Survey additive over Walk, with and without the mask) and the built-in fox of throng-demo (run with the chest
//! subtree sitting). Tolerance: at most 0.5 % of pixels may differ by more than 8/255 between
//! the palette and the reference picture (the same pose rasterised from GPU- and CPU-skinned
//! vertices), while the masked picture differs from the plain base clip's in more than 0.5 %
//! (the mask moved something). Images and diffs go to the test target dir.

mod common;

use common::{
    asset_and_gpu, diff_image, differing, ok, ok_stderr, out_dir, read_png, run, s, save,
};
use std::path::{Path, PathBuf};

const SIZE: &str = "256x256";
const MAX_DIFFERING: f64 = 0.005;

fn render(baked: &str, name: &str, args: &[&str]) -> PathBuf {
    let png = out_dir("masks").join(format!("{name}.png"));
    let png_arg = s(&png);
    let mut all: Vec<&str> = vec!["render", baked, "-o", png_arg.as_str(), "--size", SIZE];
    all.extend_from_slice(args);
    ok_stderr(&all);
    png
}

/// Fraction of pixels of `a` and `b` that differ by more than 8/255; saves the diff.
fn fraction(a: &Path, b: &Path, diff: &str) -> f64 {
    let (a, b) = (read_png(a), read_png(b));
    assert_eq!(a.dimensions(), b.dimensions());
    save(&diff_image(&a, &b, 8), &format!("masks/{diff}-diff.png"));
    differing(&a, &b, 8) as f64 / (a.width() * a.height()) as f64
}

/// The flags of `render` that blend `clip` at `weight` over the base clip, under `mask` if any.
fn blend<'a>(clip: &'a str, mask: Option<&'a str>, weight: &'a str) -> Vec<&'a str> {
    let mut flags = vec!["--blend", clip, "--blend-weight", weight];
    if let Some(mask) = mask {
        flags.extend(["--blend-mask", mask]);
    }
    flags
}

/// Palette vs reference for the [`blend`] `flags` over `clip`, and the masked picture vs the
/// plain clip's.
fn check(baked: &str, name: &str, clip: &str, flags: &[&str]) {
    let mut base = vec!["--clip", clip, "--time", "0.3"];
    base.extend_from_slice(flags);
    let mut pal = base.clone();
    pal.extend(["--path", "palette"]);
    let mut reference = base.clone();
    reference.extend(["--path", "reference"]);
    let p = render(baked, &format!("{name}-palette"), &pal);
    let r = render(baked, &format!("{name}-reference"), &reference);
    let plain = render(
        baked,
        &format!("{name}-plain"),
        &["--clip", clip, "--time", "0.3", "--path", "palette"],
    );
    let off = fraction(&p, &r, name);
    let moved = fraction(&p, &plain, &format!("{name}-vs-plain"));
    eprintln!("{name}: palette vs reference {off:.4}, masked vs plain {moved:.4}");
    assert!(off <= MAX_DIFFERING, "{name}: {off} of the pixels differ");
    assert!(
        moved > MAX_DIFFERING,
        "{name}: the overlay changed nothing ({moved})"
    );
}

#[test]
fn masked_and_additive_blends_draw_the_cpu_pose() {
    let Some(fox) = asset_and_gpu("Fox.glb") else {
        return;
    };
    let baked = bake_fox_with_masks(&fox, "fox-masks.glb", "mat3x4-f32");
    // "run with the upper body walking"
    check(
        &baked,
        "fox-run-upper-walk",
        "Run",
        &blend("Walk", Some("upper"), "1"),
    );
    // Survey as an additive layer over Walk, masked to the upper body and not
    check(
        &baked,
        "fox-walk-additive-survey",
        "Walk",
        &blend("Survey", None, "1"),
    );
    check(
        &baked,
        "fox-walk-additive-survey-upper",
        "Walk",
        &blend("Survey", Some("upper"), "0.7"),
    );
    // a mask the asset does not have: the error lists the masks
    let err = masked_render_error(&baked, "lower", "palette");
    assert!(err.contains("\"lower\"") && err.contains("upper"), "{err}");
    // the texture path does not draw masks: a typed error, not a wrong picture
    let err = masked_render_error(&baked, "upper", "texture");
    assert!(err.contains("--path palette"), "{err}");
}

/// Fox baked at 30 fps with `encoding`, an "upper" mask from b_Spine01_02 down and Survey as an
/// additive clip on its first frame, as `name` in the test folder.
fn bake_fox_with_masks(fox: &Path, name: &str, encoding: &str) -> String {
    let baked = s(&out_dir("masks").join(name));
    ok(&[
        "bake",
        &s(fox),
        "-o",
        &baked,
        "--fps",
        "30",
        "--encoding",
        encoding,
        "--mask",
        "upper=b_Spine01_02",
        "--additive",
        "Survey:0",
        "--no-verify",
    ]);
    baked
}

/// `render` of Run with Walk blended under `mask` on `path`, which must fail with exit 1; its
/// stderr.
fn masked_render_error(baked: &str, mask: &str, path: &str) -> String {
    let png = s(&out_dir("masks").join("bad.png"));
    let out = run(&[
        "render",
        baked,
        "-o",
        &png,
        "--clip",
        "Run",
        "--blend",
        "Walk",
        "--blend-mask",
        mask,
        "--path",
        path,
    ]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{err}");
    err
}

#[test]
fn masked_and_additive_blends_under_dual_quaternions_draw_the_cpu_pose() {
    let Some(fox) = asset_and_gpu("Fox.glb") else {
        return;
    };
    let baked = bake_fox_with_masks(&fox, "fox-masks-dq.glb", "quat-f32");
    // The palette pass blends the overlays' dual quaternions; the reference path skins the same
    // pose on the CPU (throng_asset::decode::pose_dual_quat per entry).
    let dq = ["--skinning", "dq"];
    let walk_upper = [&dq[..], &blend("Walk", Some("upper"), "1")].concat();
    check(&baked, "fox-dq-run-upper-walk", "Run", &walk_upper);
    let survey = [&dq[..], &blend("Survey", Some("upper"), "0.7")].concat();
    check(&baked, "fox-dq-walk-additive-survey-upper", "Walk", &survey);
}

#[test]
fn the_demo_fox_runs_with_its_chest_sitting() {
    let Some(_) = asset_and_gpu("Fox.glb") else {
        return;
    };
    let src = s(&out_dir("masks").join("demo.glb"));
    ok(&["demo-asset", "-o", &src]);
    let baked = s(&out_dir("masks").join("demo-masks.glb"));
    ok(&[
        "bake",
        &src,
        "-o",
        &baked,
        "--mask",
        "front=chest",
        "--no-verify",
    ]);
    check(
        &baked,
        "demo-run-front-sit",
        "run",
        &blend("sit", Some("front"), "1"),
    );
}
