//! End-to-end tests of `throng bake` extras through the built binary: clip flags and the settings
//! file reach the baked file, `throng sample` puts root motion back and reads anchors, batch
//! baking of a folder, and per-row bounds of the built-in character.

mod common;

use common::{ok, run};
use glam::{Mat4, Vec3};
use serde_json::Value;
use std::path::{Path, PathBuf};
use throng_asset::decode::{skin_positions, Skinning};
use throng_asset::{Aabb, BakedAsset, Layer, LoopMode};

/// A fresh folder under the system temp dir (removed when dropped).
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!(
            "throng-extras-{tag}-{}-{:?}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default()
                .as_nanos()
        ));
        std::fs::create_dir_all(&p).expect("temp dir");
        TempDir(p)
    }
    fn path(&self, name: &str) -> String {
        self.0.join(name).to_string_lossy().into_owned()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn positions(json: &str) -> Vec<Vec3> {
    let v: Value = serde_json::from_str(json).expect("json");
    let mut out = Vec::new();
    for p in v["primitives"].as_array().expect("primitives") {
        for q in p["positions"].as_array().expect("positions") {
            let a: Vec<f32> = q
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap() as f32)
                .collect();
            out.push(Vec3::new(a[0], a[1], a[2]));
        }
    }
    out
}

fn diagonal(ps: &[Vec3]) -> f32 {
    let mut b = Aabb::EMPTY;
    ps.iter().for_each(|p| b.extend(*p));
    b.diagonal()
}

#[test]
fn clip_flags_anchors_and_root_motion_through_bake_and_sample() {
    let Some(fox) = common::asset_arg("Fox.glb") else {
        return;
    };
    let dir = TempDir::new("flags");
    let out = dir.path("fox.glb");
    ok(&[
        "bake",
        &fox,
        "-o",
        &out,
        "--encoding",
        "mat3x4-f32",
        "--strict",
        "--no-verify",
        "--once",
        "Survey",
        "--loop-mode",
        "Run:ping-pong",
        "--event",
        "Walk:0.5:right",
        "--event",
        "Walk:0.1:left",
        "--clip-fps",
        "Walk:60",
        "--anchor",
        "b_Head_05",
        "--root-motion",
        "extract",
    ]);
    let asset = throng_asset::read(Path::new(&out)).expect("read");
    let clip = |n: &str| asset.clips.iter().find(|c| c.name == n).expect(n);
    assert_eq!(clip("Survey").loop_mode, LoopMode::Once);
    assert_eq!(clip("Run").loop_mode, LoopMode::PingPong);
    assert_eq!(clip("Walk").fps, 60.0);
    let ev: Vec<&str> = clip("Walk")
        .events
        .iter()
        .map(|e| e.name.as_str())
        .collect();
    assert_eq!(ev, ["left", "right"]);
    assert!(asset.clips.iter().all(|c| c.root_motion.is_some()));
    let anchors = asset.anchors.as_ref().expect("anchors");
    assert_eq!(anchors.anchors[0].name, "b_Head_05");
    let listing = ok(&["inspect", &out]);
    assert!(
        listing.contains("events: left at 0.100 s, right at 0.500 s"),
        "{listing}"
    );
    assert!(listing.contains("root motion (extracted)"), "{listing}");

    // At a sample time of Walk, sampling the baked file (root motion put back) equals sampling
    // the source, within 1e-5 of the diagonal (f32 encoding).
    let walk = clip("Walk");
    let t = format!("{}", 7.0 * walk.step);
    let src = positions(&ok(&[
        "sample", &fox, "--clip", "Walk", "--time", &t, "--json",
    ]));
    let baked = positions(&ok(&[
        "sample", &out, "--clip", "Walk", "--time", &t, "--json",
    ]));
    assert_eq!(src.len(), baked.len());
    let diag = diagonal(&src);
    let worst = src
        .iter()
        .zip(&baked)
        .map(|(a, b)| (*a - *b).length())
        .fold(0.0f32, f32::max);
    println!(
        "Fox Walk t={t}: sample baked vs source max {:.2e} of the diagonal",
        worst / diag
    );
    assert!(worst <= 1e-5 * diag);

    // The anchor at that time equals the head's model-space transform in the source.
    let model = throng_gltf::import(Path::new(&fox)).expect("import");
    let mut poser = throng_anim::Poser::new(&model);
    let ci = model.clips.iter().position(|c| c.name == "Walk").unwrap();
    let want = poser.pose(&model, Some(ci), t.parse::<f32>().unwrap())[anchors.anchors[0].node];
    let j: Value = serde_json::from_str(&ok(&[
        "sample",
        &out,
        "--anchor",
        "b_Head_05",
        "--clip",
        "Walk",
        "--time",
        &t,
        "--json",
    ]))
    .expect("json");
    let m: Vec<f32> = j["matrix"]
        .as_array()
        .expect("matrix")
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect();
    let got = Mat4::from_cols_slice(&m);
    assert!(got.abs_diff_eq(want, 1e-5 * diag), "{got} vs {want}");

    // Errors: an unknown clip is named (exit 1); a bad loop mode is a usage error (exit 2).
    let o = run(&["bake", &fox, "-o", &out, "--once", "Wlak", "--no-verify"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("\"Wlak\""));
    let o = run(&["bake", &fox, "-o", &out, "--loop-mode", "Walk:bounce"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("bounce"));
    let o = run(&["sample", &out, "--anchor", "b_Nose"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("b_Head_05"));
}

#[test]
fn settings_file_with_auto_anchors_on_quaternius_enemy() {
    let Some(src) = common::asset_arg("Quaternius_Enemy.glb") else {
        return;
    };
    let dir = TempDir::new("settings");
    let settings = dir.path("s.json");
    std::fs::write(
        &settings,
        r#"{ "clips": { "MonsterArmature|Death": { "loop": "once",
               "events": [{ "time": 0.25, "name": "fall" }] } },
             "anchors": "auto", "rootMotion": "extract" }"#,
    )
    .expect("write settings");
    let out = dir.path("enemy.glb");
    // The flag wins over the file's loop mode.
    ok(&[
        "bake",
        &src,
        "-o",
        &out,
        "--settings",
        &settings,
        "--no-verify",
        "--loop-mode",
        "MonsterArmature|Death:clamp",
    ]);
    let asset = throng_asset::read(Path::new(&out)).expect("read");
    let death = asset
        .clips
        .iter()
        .find(|c| c.name == "MonsterArmature|Death")
        .expect("Death");
    assert_eq!(death.loop_mode, LoopMode::Clamp);
    assert_eq!(death.events.len(), 1);
    assert_eq!(death.events[0].name, "fall");
    let at = asset.anchors.as_ref().expect("auto anchors");
    assert!(!at.anchors.is_empty());
    let listing = ok(&["inspect", &out]);
    assert!(listing.contains(&at.anchors[0].name), "{listing}");
}

#[test]
fn batch_bakes_the_good_files_and_reports_the_broken_one() {
    let (Some(fox), Some(man), Some(boxed)) = (
        throng_testdata::asset("Fox.glb"),
        throng_testdata::asset("CesiumMan.glb"),
        throng_testdata::asset("Box.glb"),
    ) else {
        return;
    };
    let dir = TempDir::new("batch");
    let input = dir.0.join("in");
    std::fs::create_dir_all(&input).unwrap();
    std::fs::copy(fox, input.join("Fox.glb")).unwrap();
    std::fs::copy(man, input.join("CesiumMan.glb")).unwrap();
    std::fs::copy(boxed, input.join("Box.glb")).unwrap();
    std::fs::write(input.join("broken.glb"), b"glTF\x02\0\0\0garbage").unwrap();
    let out = dir.0.join("out");
    let o = run(&[
        "bake",
        &input.to_string_lossy(),
        "-o",
        &out.to_string_lossy(),
    ]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert_eq!(o.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stderr.contains("broken.glb"), "{stderr}");
    assert!(stdout.contains("Box.glb"), "skipped with a note: {stdout}");
    for name in ["Fox.glb", "CesiumMan.glb"] {
        let a = throng_asset::read(&out.join(name)).expect(name);
        assert!(!a.clips.is_empty());
    }
    assert!(!out.join("broken.glb").exists());
    assert!(!out.join("Box.glb").exists());
}

/// Per-row bounds (and clip bounds = union of rows) contain every skinned vertex decoded by the
/// CPU decoder, on the built-in character.
#[test]
fn bounds_contain_every_decoded_vertex_of_the_built_in_character() {
    let model =
        throng_gltf::import_slice(&throng_demo::demo_glb(), None, "demo.glb").expect("import demo");
    let o = throng_bake::BakeOptions {
        source_name: "demo.glb".into(),
        encoding: throng_asset::Encoding::Mat3x4F32,
        strict: true,
        ..Default::default()
    };
    let (asset, _) = throng_bake::bake(&model, &o).expect("bake");
    check_bounds(&asset, 1e-5);
    // With root motion extracted and every socket-like node anchored: still inside, and the
    // baked result plus its root motion matches the source at every sample time.
    let o = throng_bake::BakeOptions {
        root_motion: throng_bake::RootMotion::Extract { motion_root: None },
        anchors: throng_bake::AnchorSelection::Auto,
        ..o
    };
    let (asset, _) = throng_bake::bake(&model, &o).expect("bake");
    check_bounds(&asset, 1e-5);
    for f in throng_bake::verify::verify(&asset, &model).expect("verify") {
        assert!(
            f.max_rel_samples <= 1e-5,
            "{}: {:.2e}",
            f.clip,
            f.max_rel_samples
        );
    }
}

fn check_bounds(asset: &BakedAsset, tol: f32) {
    assert_eq!(asset.row_bounds.len(), asset.rows() as usize);
    let slack = Vec3::splat(tol * asset.rest_bounds().diagonal());
    let inside = |b: &Aabb, p: Vec3| p.cmpge(b.min - slack).all() && p.cmple(b.max + slack).all();
    let mut n = 0usize;
    for (ci, c) in asset.clips.iter().enumerate() {
        let union = asset.row_bounds[c.first_row as usize..(c.first_row + c.frames) as usize]
            .iter()
            .fold(Aabb::EMPTY, |a, b| a.union(b));
        assert_eq!(union, c.bounds, "{}", c.name);
        for k in 0..c.frames {
            let row = c.first_row + k;
            let l = Layer {
                weight: 1.0,
                frac: 0.0,
                row: row as f32,
                clip: ci as u32,
            };
            for pi in 0..asset.primitives.len() {
                for p in skin_positions(asset, pi, &[l], Skinning::Linear).expect("decode") {
                    assert!(inside(&asset.row_bounds[row as usize], p), "row {row}: {p}");
                    assert!(inside(&c.bounds, p), "{}: {p}", c.name);
                    n += 1;
                }
            }
        }
    }
    assert!(n > 0);
}

/// Baking a file onto itself is refused (exit 1) and leaves the source untouched.
#[test]
fn bake_refuses_to_replace_its_source() {
    let Some(fox) = throng_testdata::asset("Fox.glb") else {
        return;
    };
    let dir = TempDir::new("self");
    let src = dir.path("src.glb");
    std::fs::copy(&fox, &src).expect("copy");
    let before = std::fs::read(&src).expect("read");
    let o = run(&["bake", &src, "-o", &src]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("the output is the input"));
    assert_eq!(std::fs::read(&src).expect("read"), before);
}

/// `--clips` from a file made for another skeleton (Fox's clips onto CesiumMan: no joint name
/// in common) is an error naming the clip file, not a bake whose clips hold the rest pose.
#[test]
fn clips_for_another_skeleton_are_an_error() {
    let (Some(man), Some(fox)) = (
        common::asset_arg("CesiumMan.glb"),
        common::asset_arg("Fox.glb"),
    ) else {
        return;
    };
    let dir = TempDir::new("clips");
    let out = dir.path("out.glb");
    let o = run(&["bake", &man, "--clips", &fox, "-o", &out]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("Fox.glb: none of its animated nodes"), "{err}");
    assert!(!Path::new(&out).exists(), "a partial output was left");
}

#[test]
fn asset_root_lets_uris_reach_a_shared_folder_and_nothing_else() {
    let Some(src) = throng_testdata::asset("asset-generator/Animation_SkinType_00.gltf") else {
        return;
    };
    let dir = TempDir::new("root");
    std::fs::create_dir_all(dir.0.join("shared")).expect("shared");
    std::fs::create_dir_all(dir.0.join("chars")).expect("chars");
    std::fs::copy(
        src.with_extension("bin"),
        dir.0.join("shared/Animation_SkinType_00.bin"),
    )
    .expect("copy bin");
    let json = std::fs::read_to_string(&src).expect("gltf");
    let json = json.replace(
        "\"uri\": \"Animation_SkinType_00.bin\"",
        "\"uri\": \"../shared/Animation_SkinType_00.bin\"",
    );
    let input = dir.path("chars/skin.gltf");
    std::fs::write(&input, json).expect("write gltf");
    // by default a URI stays inside its file's folder: exit 1 naming the buffer and the URI
    let o = run(&["inspect", &input]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("buffer 0") && err.contains("../shared"),
        "{err}"
    );
    assert!(
        err.contains("--asset-root"),
        "the hint names the flag: {err}"
    );
    // with the common folder as the root it reads
    let root = dir.path("");
    let out = ok(&["inspect", &input, "--asset-root", &root, "--json"]);
    let v: Value = serde_json::from_str(&out).expect("json");
    let prims = v["skinned_primitives"].as_array();
    assert!(prims.is_some_and(|p| !p.is_empty()), "{out}");
    // a root that does not hold the file's folder is refused
    let o = run(&["inspect", &input, "--asset-root", &dir.path("shared")]);
    assert_eq!(o.status.code(), Some(1));
}
