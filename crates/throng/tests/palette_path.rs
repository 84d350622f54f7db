//! `throng render --path palette` draws what `--path texture` draws (docs/design.md §5
//! "Skinning paths"), on real assets the palette path was not tuned on: 8 influences
//! (RiggedFigure_8infl), two-layer blends with dual quaternions (Quaternius Enemy), GPU-timed
//! playback (CesiumMan, MantaRay with DQ), LODs with fewer influences and occlusion culling's two
//! phases (Fox over several frames), no culling, and several assets in one frame.
//!
//! Tolerance: at most 0.5 % of pixels may differ by more than 8/255. The LBS palette is the
//! texture path's blended matrices written once, so LBS images are expected equal; DQ blends
//! each entry's terms first and then the influences, which differs from the texture path's
//! single accumulator only where a term's hemisphere flips differently, so a few pixels may
//! move. Images and diffs go to the test target dir.
//!
//! Without the asset folder or an adapter the test skips outside CI and fails under `CI`.

mod common;

use common::{asset_and_gpu, diff_image, differing, ok_stderr, out_dir, read_png, s, save};
use std::path::PathBuf;

const SIZE: &str = "256x256";
const MAX_DIFFERING: f64 = 0.005;

/// Renders `inputs` with `args` on `path` into `name-path.png`.
fn render(inputs: &[String], name: &str, path: &str, args: &[&str]) -> PathBuf {
    let png = out_dir("palette-path").join(format!("{name}-{path}.png"));
    let png_arg = s(&png);
    let mut all: Vec<&str> = vec!["render"];
    all.extend(inputs.iter().map(String::as_str));
    all.extend(["-o", png_arg.as_str(), "--size", SIZE, "--path", path]);
    all.extend_from_slice(args);
    let stderr = ok_stderr(&all);
    if path == "palette" {
        assert!(
            stderr.contains("palette"),
            "{name}: the statistics do not mention the palette pass:\n{stderr}"
        );
    }
    png
}

/// Fraction of pixels of the palette picture that differ from the texture picture's.
fn compare(inputs: &[String], name: &str, args: &[&str]) -> f64 {
    let tex = read_png(&render(inputs, name, "texture", args));
    let pal = read_png(&render(inputs, name, "palette", args));
    assert_eq!(tex.dimensions(), pal.dimensions());
    let n = differing(&tex, &pal, 8);
    save(
        &diff_image(&tex, &pal, 8),
        &format!("palette-path/{name}-diff.png"),
    );
    n as f64 / (tex.width() * tex.height()) as f64
}

#[test]
fn palette_path_draws_what_the_texture_path_draws() {
    let names = [
        "derived/RiggedFigure_8infl.glb",
        "Quaternius_Enemy.glb",
        "CesiumMan.glb",
        "Quaternius_MantaRay.glb",
        "Fox.glb",
    ];
    let mut paths = Vec::new();
    for n in names {
        let Some(p) = asset_and_gpu(n) else {
            return;
        };
        paths.push(s(&p));
    }
    let [rigged, enemy, cesium, manta, fox] = [0, 1, 2, 3, 4].map(|i| vec![paths[i].clone()]);
    // Fox baked with LODs, for LODs that skin with fewer influences.
    let fox_lod = s(&out_dir("palette-path").join("fox-lod.glb"));
    ok_stderr(&["bake", &fox[0], "-o", &fox_lod, "--lod", "0.5,0.25"]);
    let two = vec![cesium[0].clone(), fox[0].clone()];
    let cases: Vec<(&str, Vec<String>, Vec<&str>)> = vec![
        (
            "rigged-8-influences",
            rigged,
            vec!["--influences", "8", "--instances", "4", "--random-phase"],
        ),
        (
            "enemy-blend-dq",
            enemy.clone(),
            vec![
                "--encoding",
                "quat-f32",
                "--instances",
                "6",
                "--blend",
                "1",
                "--blend-weight",
                "0.4",
                "--skinning",
                "dq",
                "--time",
                "0.3",
            ],
        ),
        (
            "enemy-blend-lbs-gpu-timed",
            enemy,
            vec![
                "--encoding",
                "mat3x4-f16",
                "--instances",
                "6",
                "--blend",
                "2",
                "--timing",
                "gpu",
                "--time",
                "0.45",
            ],
        ),
        (
            "cesium-gpu-timed",
            cesium,
            vec![
                "--encoding",
                "mat4-f32",
                "--instances",
                "4",
                "--timing",
                "gpu",
                "--time",
                "0.7",
            ],
        ),
        (
            "manta-dq-gpu-timed-no-cull",
            manta,
            vec![
                "--encoding",
                "quat-snorm16",
                "--instances",
                "3",
                "--timing",
                "gpu",
                "--skinning",
                "dq",
                "--no-cull",
                "--time",
                "1.1",
            ],
        ),
        (
            "fox-lods-fewer-influences-occlusion",
            vec![fox_lod],
            vec![
                "--instances",
                "36",
                "--lod-bias",
                "4",
                "--lod-influences",
                "4,2,1",
                "--random-phase",
                "--frames",
                "1",
            ],
        ),
        (
            "two-assets",
            two,
            vec![
                "--encoding",
                "quat-snorm16",
                "--instances",
                "6",
                "--random-phase",
            ],
        ),
    ];
    let mut results = Vec::new();
    for (name, inputs, args) in &cases {
        results.push((*name, compare(inputs, name, args)));
    }
    let report: Vec<String> = results
        .iter()
        .map(|(name, f)| format!("{name}: {:.3} % of pixels differ", f * 100.0))
        .collect();
    eprintln!("{}", report.join("\n"));
    for (name, f) in &results {
        assert!(
            *f <= MAX_DIFFERING,
            "{name}: {:.3} % of pixels differ by more than 8/255 (at most {} %)\n{}",
            f * 100.0,
            MAX_DIFFERING * 100.0,
            report.join("\n")
        );
    }
}
