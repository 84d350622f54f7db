//! Baking an FBX and Blender's glb of it gives the same clip table (names with Blender's
//! `|BaseLayer` suffix removed, durations: both the key span, docs/fbx.md "Clip length") and
//! both bakes meet the error budget on every clip (the baker's own check against reference
//! skinning of each source), with the same settings for both: 8 influences, the default budget.
//!
//! Not here (to keep the default run short): the Stegosaurus and the barbarian; docs/fbx.md
//! lists the folder bakes of every shared FBX file and its glb.

mod common;

use std::path::Path;

use throng_bake::{bake, BakeOptions};

fn strip_layer(name: &str) -> &str {
    name.strip_suffix("|BaseLayer").unwrap_or(name)
}

fn bake_both(rel: &str, fbx_options: &throng_fbx::ImportOptions) {
    let Some(fbx_path) = common::fbx_asset(&format!("{rel}.fbx")) else {
        return;
    };
    let glb_path = fbx_path.with_file_name(format!(
        "{}.blender.glb",
        fbx_path.file_stem().unwrap().to_string_lossy()
    ));
    let options = BakeOptions {
        influences: 8,
        ..Default::default()
    };
    let bake_one = |model: throng_anim::Model, path: &Path| {
        let options = BakeOptions {
            source_name: path.display().to_string(),
            ..options.clone()
        };
        bake(&model, &options).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    let fbx = throng_fbx::import_with(&fbx_path, fbx_options).unwrap_or_else(|e| panic!("{e}"));
    let glb = throng_gltf::import(&glb_path).unwrap_or_else(|e| panic!("{e}"));
    let (fa, fr) = bake_one(fbx, &fbx_path);
    let (ga, gr) = bake_one(glb, &glb_path);
    let table = |clips: &[throng_asset::ClipInfo]| {
        let mut v: Vec<(String, f64)> = clips
            .iter()
            .map(|c| (strip_layer(&c.name).to_string(), c.duration))
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    };
    let (ft, gt) = (table(&fa.clips), table(&ga.clips));
    assert_eq!(ft.len(), gt.len(), "{rel}: clip counts");
    for ((fname, fd), (gname, gd)) in ft.iter().zip(&gt) {
        assert_eq!(fname, gname, "{rel}");
        assert!(
            (fd - gd).abs() < 1e-4,
            "{rel}: {fname} lasts {fd} s, Blender's {gd} s"
        );
    }
    for (report, what) in [(&fr, "FBX"), (&gr, "glb")] {
        for c in &report.clips {
            let e = c
                .error
                .as_ref()
                .expect("an error-budget bake reports its error");
            let budget = match e.budget {
                throng_bake::sampling::MaxError::Relative(x) => x,
                throng_bake::sampling::MaxError::Absolute(x) => x,
            };
            assert!(
                e.between + e.at_samples <= budget * (1.0 + 1e-9),
                "{rel} {what}: clip {} errs {} + {} over {budget}",
                c.name,
                e.between,
                e.at_samples
            );
        }
    }
    eprintln!(
        "{rel}: {} clips; rows FBX {} / glb {}; worst clip error FBX {:.2e} / glb {:.2e}",
        ft.len(),
        fr.rows,
        gr.rows,
        worst(&fr),
        worst(&gr)
    );
}

fn worst(r: &throng_bake::BakeReport) -> f64 {
    r.clips
        .iter()
        .filter_map(|c| c.error.as_ref())
        .map(|e| e.between + e.at_samples)
        .fold(0.0, f64::max)
}

#[test]
fn male_casual_bakes_like_its_glb() {
    bake_both("quaternius/Male_Casual", &Default::default());
}

#[test]
fn small_files_bake_like_their_glbs() {
    bake_both("ufbx/max_transformed_skin_7500_binary", &Default::default());
    bake_both(
        "ufbx/maya_kenney_character_7700_binary",
        &Default::default(),
    );
    // Blender ignores segment scale compensation (tests/blender_oracle.rs).
    let blender_scale = throng_fbx::ImportOptions {
        scale_compensation: false,
        ..Default::default()
    };
    bake_both(
        "ufbx/maya_game_sausage_7500_binary_combined",
        &blender_scale,
    );
}
