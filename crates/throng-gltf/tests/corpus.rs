//! Every asset in the shared folder imports (or fails with its documented error), and the main
//! files have the skin/joint/clip/vertex counts of the assets README.

use std::path::{Path, PathBuf};

use throng_gltf::{import, ImportErrorKind};

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else if matches!(
            p.extension().and_then(|x| x.to_str()),
            Some("gltf") | Some("glb")
        ) {
            out.push(p);
        }
    }
}

#[test]
fn every_asset_imports_or_fails_as_documented() {
    let Some(dir) = throng_testdata::assets_dir() else {
        return;
    };
    let mut files = Vec::new();
    walk(&dir, &mut files);
    files.sort();
    assert!(files.len() >= 40, "only {} assets found", files.len());
    for f in &files {
        let name = f.strip_prefix(&dir).unwrap().display().to_string();
        let result = import(f);
        if name.starts_with("draco") {
            let e = result.expect_err("draco files need an extension throng cannot decode");
            match &e.kind {
                ImportErrorKind::UnsupportedExtension { extension } => {
                    assert_eq!(extension, "KHR_draco_mesh_compression")
                }
                other => panic!("{name}: wrong error {other:?}"),
            }
            let msg = e.to_string();
            assert!(msg.starts_with(&f.display().to_string()), "{msg}");
            assert!(msg.contains("gltf-transform"), "{msg}");
            continue;
        }
        let model = result.unwrap_or_else(|e| panic!("{name}: {e}"));
        // Structural invariants every importer output must hold.
        assert_eq!(model.eval_order.len(), model.nodes.len(), "{name}");
        let mut pos = vec![usize::MAX; model.nodes.len()];
        for (k, &n) in model.eval_order.iter().enumerate() {
            pos[n] = k;
        }
        for (i, n) in model.nodes.iter().enumerate() {
            if let Some(p) = n.parent {
                assert!(pos[p] < pos[i], "{name}: parent after child");
            }
        }
        for mesh in &model.meshes {
            for p in &mesh.primitives {
                let v = p.vertex_count();
                assert_eq!(p.normals.len(), v, "{name}");
                assert_eq!(p.indices.len() % 3, 0, "{name}");
                assert!(p.indices.iter().all(|&i| (i as usize) < v), "{name}");
                assert_eq!(p.joint_sets.len(), p.weight_sets.len(), "{name}");
                for n in &p.normals {
                    assert!((n.length() - 1.0).abs() < 1e-4, "{name}: normal {n}");
                }
            }
        }
        for clip in &model.clips {
            for ch in &clip.channels {
                assert!(ch.times.windows(2).all(|w| w[0] < w[1]), "{name}");
                assert!(*ch.times.last().unwrap() <= clip.duration, "{name}");
            }
        }
    }
}

/// (file, skins, joints of skin 0, vertices, clips) from shared/assets/README.md. Vertices are
/// the file's vertex count; files without normals are unwelded by the importer (see the crate
/// docs), so for those the count is the number of indices.
const TABLE: &[(&str, usize, usize, usize, usize)] = &[
    ("SimpleSkin.gltf", 1, 2, 24, 1),
    ("RiggedSimple.glb", 1, 2, 160, 1),
    ("RiggedFigure.glb", 1, 19, 370, 1),
    ("CesiumMan.glb", 1, 19, 3273, 1),
    ("Fox.glb", 1, 24, 1728, 3),
    ("Quaternius_Enemy.glb", 3, 7, 1454, 10),
    ("Quaternius_MantaRay.glb", 1, 13, 1432, 1),
    ("kaykit/manny_med_mod.gltf", 1, 21, 6578, 0),
    ("kaykit/Med_MovementBasic.glb", 1, 23, 0, 11),
    ("kenney/character.glb", 0, 0, 1038, 4),
    ("InterpolationTest.glb", 0, 0, 220, 9),
    ("BoxAnimated.glb", 0, 0, 320, 1),
    ("CesiumMilkTruck.glb", 0, 0, 3995, 1),
    ("AnimatedMorphCube.glb", 0, 0, 24, 1),
    ("Box.glb", 0, 0, 24, 0),
    ("NegativeScaleTest.glb", 0, 0, 2032, 0),
    ("derived/RiggedFigure_8infl.glb", 1, 19, 370, 1),
    ("derived/Avocado_notex.glb", 0, 0, 406, 0),
    ("quantized/AnimatedMorphCube-Quantized.gltf", 0, 0, 24, 1),
];

#[test]
fn readme_counts() {
    for &(file, skins, joints, verts, clips) in TABLE {
        let Some(path) = throng_testdata::asset(file) else {
            return;
        };
        let m = import(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.skins.len(), skins, "{file} skins");
        if skins > 0 {
            assert_eq!(m.skins[0].joints.len(), joints, "{file} joints");
        }
        let v: usize = m
            .meshes
            .iter()
            .flat_map(|me| &me.primitives)
            .map(|p| p.vertex_count())
            .sum();
        assert_eq!(v, verts, "{file} vertices");
        assert_eq!(m.clips.len(), clips, "{file} clips");
    }
}

#[test]
fn recursive_skeletons_counts() {
    let Some(path) = throng_testdata::asset("RecursiveSkeletons.glb") else {
        return;
    };
    let m = import(&path).unwrap();
    assert_eq!(m.skins.len(), 84);
    assert!(m.skins.iter().all(|s| s.joints.len() == 10));
    assert_eq!(m.clips.len(), 1);
    assert_eq!(m.nodes.len(), 924);
}

#[test]
fn fox_clip_durations() {
    let Some(path) = throng_testdata::asset("Fox.glb") else {
        return;
    };
    let m = import(&path).unwrap();
    let got: Vec<(&str, f32)> = m
        .clips
        .iter()
        .map(|c| (c.name.as_str(), c.duration))
        .collect();
    let want = [("Survey", 3.42), ("Walk", 0.71), ("Run", 1.16)];
    for ((gn, gd), (wn, wd)) in got.iter().zip(want) {
        assert_eq!(*gn, wn);
        // README durations are rounded to 0.01 s.
        assert!((gd - wd).abs() < 0.01, "{gn}: {gd} s vs {wd} s");
    }
}

#[test]
fn rigid_files_have_bindings() {
    for file in [
        "kenney/character.glb",
        "BoxAnimated.glb",
        "CesiumMilkTruck.glb",
    ] {
        let Some(path) = throng_testdata::asset(file) else {
            return;
        };
        let m = import(&path).unwrap();
        assert!(!m.mesh_bindings().is_empty(), "{file}");
        throng_gltf::check_animatable(&m, &path).unwrap();
    }
    // Static files and animation-only files import, but have nothing to animate.
    for file in ["Box.glb", "kaykit/Med_MovementBasic.glb"] {
        let Some(path) = throng_testdata::asset(file) else {
            return;
        };
        let m = import(&path).unwrap();
        let e = throng_gltf::check_animatable(&m, &path).unwrap_err();
        assert!(
            matches!(e.kind, ImportErrorKind::NothingToAnimate),
            "{file}"
        );
    }
}
