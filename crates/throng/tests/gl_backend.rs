//! wgpu's GL backend (llvmpipe GL 4.5 in CI) draws what Vulkan (lavapipe) draws: `throng
//! render` of the same Fox scene on both, on the texture path (LBS and dual quaternions, CPU- and
//! GPU-timed), the VAT path and the reference path, compared pixel by pixel. Until the bone and
//! VAT textures got a second array layer on GL (a one-layer texture is `TEXTURE_2D` there, which
//! the shaders' `sampler2DArray` reads as zeros) the texture and VAT paths drew an empty field.
//!
//! Tolerance: the two drivers rasterise and round differently at silhouette edges and in shadow
//! filtering, so at most 0.5 % of pixels may differ by more than 8/255; an empty field against a
//! drawn crowd differs in ~3 %. Images and diffs go to the test target dir.
//!
//! Without the asset folder or an adapter of either backend the test skips outside CI and
//! fails under `CI`.

mod common;

use common::{asset_arg, diff_image, differing, out_dir, read_png, run_env, s, save};
use std::path::PathBuf;

const SIZE: &str = "256x256";
const MAX_DIFFERING: f64 = 0.005;

/// Renders `args` on `backend` into `name`.png; `None` (skip) when that backend has no adapter
/// outside CI.
fn render(backend: &str, fox: &str, name: &str, args: &[&str]) -> Option<PathBuf> {
    let png = out_dir("gl-backend").join(format!("{name}-{backend}.png"));
    let png_arg = s(&png);
    let mut all = vec!["render", fox, "-o", png_arg.as_str(), "--size", SIZE];
    all.extend_from_slice(args);
    let out = run_env(&all, &[("WGPU_BACKEND", backend)]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        if std::env::var_os("CI").is_none() && stderr.contains("no GPU adapter") {
            eprintln!("skipping: no {backend} adapter: {stderr}");
            return None;
        }
        panic!("throng {all:?} on {backend} failed:\n{stderr}");
    }
    assert!(
        stderr.contains(&format!("({backend},")),
        "{name}: the adapter line does not name {backend}:\n{stderr}"
    );
    Some(png)
}

/// Fox orange: red well above green and blue (the sky and the grey ground are not).
fn orange(p: &throng_render::image::Rgba<u8>) -> bool {
    p[0] as i32 > p[1] as i32 + 40 && p[0] as i32 > p[2] as i32 + 60
}

#[test]
fn gl_draws_what_vulkan_draws_on_every_path() {
    let Some(fox) = asset_arg("Fox.glb") else {
        return;
    };
    let cases: [(&str, &[&str]); 5] = [
        ("texture", &["--instances", "4"]),
        ("texture-dq", &["--instances", "4", "--skinning", "dq"]),
        (
            "texture-gpu-timed",
            &["--instances", "4", "--timing", "gpu"],
        ),
        ("vat", &["--instances", "4", "--path", "vat"]),
        ("reference", &["--instances", "4", "--path", "reference"]),
    ];
    let mut report = Vec::new();
    for (name, args) in cases {
        let Some(vk) = render("vulkan", &fox, name, args) else {
            return;
        };
        let Some(gl) = render("gl", &fox, name, args) else {
            return;
        };
        let (a, b) = (read_png(&vk), read_png(&gl));
        assert_eq!(a.dimensions(), b.dimensions(), "{name}");
        // Two empty fields would match too: both must show foxes.
        for (img, backend) in [(&a, "Vulkan"), (&b, "GL")] {
            let fox_pixels = img.pixels().filter(|p| orange(p)).count();
            assert!(
                fox_pixels > 500,
                "{name} on {backend}: {fox_pixels} fox pixels"
            );
        }
        let n = differing(&a, &b, 8);
        let share = n as f64 / (a.width() * a.height()) as f64;
        save(
            &diff_image(&a, &b, 8),
            &format!("gl-backend-{name}-diff.png"),
        );
        report.push(format!("{name}: {n} pixels ({:.3} %)", share * 100.0));
        assert!(
            share <= MAX_DIFFERING,
            "{name}: {n} pixels ({:.2} %) differ by more than 8/255 between Vulkan and GL \
             (limit {:.1} %); see {} and {}",
            share * 100.0,
            MAX_DIFFERING * 100.0,
            vk.display(),
            gl.display()
        );
    }
    eprintln!(
        "Vulkan vs GL, pixels differing by > 8/255: {}",
        report.join(", ")
    );
}
