//! throng's FBX import against an independent conversion: Blender 3.4's own FBX importer and
//! glTF exporter (`fbx/NAME.blender.glb`, made by `fbx/fbx2glb_blender.py`), read by throng's
//! glTF importer. Both models are skinned by throng-anim's reference CPU skinning (linear blend)
//! at every time at which the FBX take has an authored key (read with ufbx directly), and every
//! glb vertex must lie within 1e-3 of the bounding diagonal of the FBX vertex it matches.
//!
//! Why at authored keys only: there both importers must give the file's exact pose. Between
//! sparse cubic keys Blender's importer draws its own Bezier handles instead of the FBX tangents
//! (3ds Max's take here has keys at 0, 0.4 and 0.8 s only: the two curves part by up to 6 % of
//! the diagonal between keys, and meet again at each key). Every other file here is keyed at
//! every frame, so this is every frame.
//!
//! Why 1e-3 of the diagonal: at a key both sides evaluate the same values, so the poses differ
//! only by rounding through two different chains of transforms (Blender keeps bones in its own
//! bone space and writes f32 glTF; ufbx works in f64 and throng rounds once to f32): measured
//! below 1e-5 of the diagonal on every file. 1e-3 is the budget; it still catches a
//! wrong bind matrix, axis or unit (whole bone lengths) and a key shifted by one frame
//! (centimetres on a walking character).
//!
//! Vertices do not correspond one to one (Blender splits vertices by UV and normal differently),
//! so each glb vertex is matched, at the first key of the first clip, with the FBX vertices at
//! the same position (within 1e-5 of the diagonal); at each time the nearest of them counts.
//! Every FBX vertex must also be matched by some glb vertex, so nothing is missing on either
//! side.
//!
//! Maya's segment scale compensation (the sausage's `deform` take scales joints with children)
//! is ignored by Blender's importer: those files are compared with
//! `ImportOptions::scale_compensation` off, and `tests/scale_compensation.rs` checks throng's
//! default (compensated) result on its own terms.

mod common;

use std::collections::HashMap;
use std::path::Path;

use glam::Vec3;
use throng_anim::ModelSkinner;

use common::{diagonal, fbx_asset, posed};

/// Blender names an FBX-SDK take `TAKE|BaseLayer` (its action per animation layer).
fn strip_layer(name: &str) -> &str {
    name.strip_suffix("|BaseLayer").unwrap_or(name)
}

/// Rest-position matches: for each glb vertex, the FBX vertices within `eps` of it.
fn correspond(glb: &[Vec3], fbx: &[Vec3], eps: f32) -> Vec<Vec<usize>> {
    let cell = |p: Vec3| {
        let q = (p / eps).floor();
        (q.x as i64, q.y as i64, q.z as i64)
    };
    let mut grid: HashMap<(i64, i64, i64), Vec<usize>> = HashMap::new();
    for (i, p) in fbx.iter().enumerate() {
        grid.entry(cell(*p)).or_default().push(i);
    }
    glb.iter()
        .map(|p| {
            let c = cell(*p);
            let mut out = Vec::new();
            for dx in -1..=1 {
                for dy in -1..=1 {
                    for dz in -1..=1 {
                        if let Some(v) = grid.get(&(c.0 + dx, c.1 + dy, c.2 + dz)) {
                            out.extend(v.iter().copied().filter(|&i| fbx[i].distance(*p) <= eps));
                        }
                    }
                }
            }
            out
        })
        .collect()
}

/// What one file's comparison measured.
#[derive(Debug)]
struct Report {
    clips: usize,
    samples: usize,
    /// Largest distance over all samples, as a fraction of that sample's diagonal.
    worst: f32,
    worst_at: String,
}

/// The times (seconds) at which each take of the file has an authored key on a node, read with
/// ufbx directly (not through throng-fbx's bake).
fn authored_key_times(path: &Path) -> HashMap<String, Vec<f32>> {
    let bytes = std::fs::read(path).expect("read the FBX");
    let scene = ufbx::load_memory(&bytes, ufbx::LoadOpts::default()).expect("ufbx loads it");
    let mut out = HashMap::new();
    for stack in scene.anim_stacks.iter() {
        let mut times: Vec<f32> = Vec::new();
        for layer in stack.layers.iter() {
            for prop in layer.anim_props.iter() {
                if prop.element.type_ != ufbx::ElementType::Node {
                    continue;
                }
                for curve in prop.anim_value.curves.iter().flatten() {
                    times.extend(curve.keyframes.iter().map(|k| k.time as f32));
                }
            }
        }
        times.sort_by(f32::total_cmp);
        times.dedup_by(|a, b| (*a - *b).abs() < 1e-5);
        out.insert(stack.element.name.to_string(), times);
    }
    out
}

fn compare(fbx_path: &Path, glb_path: &Path, options: &throng_fbx::ImportOptions) -> Report {
    let fbx = throng_fbx::import_with(fbx_path, options).unwrap_or_else(|e| panic!("{e}"));
    let key_times = authored_key_times(fbx_path);
    let glb = throng_gltf::import(glb_path).unwrap_or_else(|e| panic!("{e}"));
    let mut fs = ModelSkinner::with_static_meshes(&fbx);
    let mut gs = ModelSkinner::with_static_meshes(&glb);
    // Vertices are matched where both files are surely in the same pose: the first key of the
    // first clip. The rest poses differ on purpose: glTF nodes rest in the bind pose (Blender
    // writes it), FBX nodes in the pose the file was saved in (docs/fbx.md "Rest pose").
    let first = fbx.clips.first().map(|c| {
        let g = glb
            .clips
            .iter()
            .position(|g| strip_layer(&g.name) == c.name)
            .unwrap_or_else(|| panic!("{}: no glb clip {:?}", glb_path.display(), c.name));
        (0, g)
    });
    let f_rest = posed(&fbx, &mut fs, first.map(|f| f.0), 0.0);
    let g_rest = posed(&glb, &mut gs, first.map(|f| f.1), 0.0);
    let d_rest = diagonal(&g_rest);
    assert!(d_rest > 0.0, "{}: empty glb", glb_path.display());
    let matches = correspond(&g_rest, &f_rest, 1e-5 * d_rest);
    let unmatched_glb = matches.iter().filter(|m| m.is_empty()).count();
    assert_eq!(
        unmatched_glb,
        0,
        "{}: {unmatched_glb} of {} glb vertices have no FBX vertex at their position (FBX diagonal {}, glb {})",
        fbx_path.display(),
        g_rest.len(),
        diagonal(&f_rest),
        d_rest
    );
    let mut used = vec![false; f_rest.len()];
    matches.iter().flatten().for_each(|&i| used[i] = true);
    let unused = used.iter().filter(|u| !**u).count();
    assert_eq!(
        unused,
        0,
        "{}: {unused} FBX vertices have no glb vertex",
        fbx_path.display()
    );

    // Clip tables: the same names once Blender's layer suffix is removed, and the same
    // durations (both are the key span: docs/fbx.md "Clip length").
    let mut f_names: Vec<&str> = fbx.clips.iter().map(|c| c.name.as_str()).collect();
    let mut g_names: Vec<&str> = glb.clips.iter().map(|c| strip_layer(&c.name)).collect();
    f_names.sort();
    g_names.sort();
    assert_eq!(f_names, g_names, "{}: clip names", fbx_path.display());

    let mut report = Report {
        clips: 0,
        samples: 0,
        worst: 0.0,
        worst_at: String::new(),
    };
    let mut check = |fc: Option<usize>,
                     gc: Option<usize>,
                     t: f32,
                     what: &str,
                     report: &mut Report| {
        let f = posed(&fbx, &mut fs, fc, t);
        let g = posed(&glb, &mut gs, gc, t);
        let d = diagonal(&g);
        let mut worst = 0.0f32;
        for (gi, m) in matches.iter().enumerate() {
            let e = m
                .iter()
                .map(|&i| f[i].distance(g[gi]))
                .fold(f32::MAX, f32::min);
            worst = worst.max(e);
        }
        report.samples += 1;
        if worst / d > report.worst {
            report.worst = worst / d;
            report.worst_at = format!("{what} t={t:.4}");
        }
        assert!(
            worst <= 1e-3 * d,
            "{}: {what} at t = {t} s: a vertex is {worst} from Blender's (diagonal {d}, budget 1e-3 of it)",
            fbx_path.display()
        );
    };
    if first.is_none() {
        check(None, None, 0.0, "rest pose", &mut report);
    }
    for (ci, clip) in fbx.clips.iter().enumerate() {
        let gi = glb
            .clips
            .iter()
            .position(|g| strip_layer(&g.name) == clip.name)
            .expect("matched above");
        let gclip = &glb.clips[gi];
        assert!(
            (clip.duration - gclip.duration).abs() < 1e-3,
            "{}: clip {:?} lasts {} s, Blender's {} s",
            fbx_path.display(),
            clip.name,
            clip.duration,
            gclip.duration
        );
        report.clips += 1;
        for &t in key_times.get(&clip.name).map(Vec::as_slice).unwrap_or(&[]) {
            check(Some(ci), Some(gi), t, &clip.name, &mut report);
        }
    }
    report
}

fn run(rel: &str) {
    run_with(rel, &throng_fbx::ImportOptions::default());
}

fn run_with(rel: &str, options: &throng_fbx::ImportOptions) {
    let Some(fbx) = fbx_asset(&format!("{rel}.fbx")) else {
        return;
    };
    let glb = fbx.with_file_name(format!(
        "{}.blender.glb",
        fbx.file_stem().unwrap().to_string_lossy()
    ));
    let start = std::time::Instant::now();
    let r = compare(&fbx, &glb, options);
    eprintln!(
        "{rel}: {} clips, {} samples, worst {:.2e} of the diagonal ({}), {:.2} s",
        r.clips,
        r.samples,
        r.worst,
        r.worst_at,
        start.elapsed().as_secs_f32()
    );
}

#[test]
fn max_transformed_skin_z_up_cm_geometry_transform() {
    run("ufbx/max_transformed_skin_7500_binary");
}

#[test]
fn stegosaurus_fourteen_influences() {
    run("quaternius/Stegosaurus");
}

/// Blender's importer ignores segment scale compensation (see the module docs).
fn blender_scale() -> throng_fbx::ImportOptions {
    throng_fbx::ImportOptions {
        scale_compensation: false,
        ..Default::default()
    }
}

#[test]
fn sausage_takes_not_at_zero() {
    run_with(
        "ufbx/maya_game_sausage_7500_binary_combined",
        &blender_scale(),
    );
    run("ufbx/maya_game_sausage_7500_binary_wiggle");
}

#[test]
fn kenney_fbx_7700_bones_without_cluster() {
    run("ufbx/maya_kenney_character_7700_binary");
}

#[test]
fn barbarian_two_skins_blend_shapes_props() {
    run("ufbx/blender_293_barbarian_7400_binary");
}

#[test]
fn male_casual_eleven_takes() {
    run("quaternius/Male_Casual");
}

#[test]
fn sausage_mesh_and_clip_files() {
    run("ufbx/maya_game_sausage_7500_binary");
    run("ufbx/maya_game_sausage_7500_binary_spin");
    run_with(
        "ufbx/maya_game_sausage_7500_binary_deform",
        &blender_scale(),
    );
}
