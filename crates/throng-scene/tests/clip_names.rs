//! Clips that share a name (every Mixamo export names its take `mixamo.com`) get names of their
//! own on import, so a name chooses one clip and every fidelity figure is measured against the
//! clip that was baked. The independent computation: the same motion under its own, unique
//! name in the untouched file; a clip's figures must equal its twin's exactly (the bake and the
//! verification are deterministic, so the same keys give the same rows and the same errors).

use std::path::{Path, PathBuf};

use serde_json::Value;
use throng_scene::source::{find_clip, load_model, SourceOptions};

/// (JSON, BIN) chunks of a GLB (glTF 2.0 §4.4), read here without throng's readers.
fn chunks(glb: &[u8]) -> (Value, Vec<u8>) {
    let word = |at: usize| u32::from_le_bytes(glb[at..at + 4].try_into().unwrap()) as usize;
    let json_len = word(12);
    let json = serde_json::from_slice(&glb[20..20 + json_len]).expect("JSON chunk");
    let bin_at = 20 + json_len;
    let bin_len = word(bin_at);
    (json, glb[bin_at + 8..bin_at + 8 + bin_len].to_vec())
}

/// Fox.glb with its animations replaced by `edit`'s, written to `dir/name`.
fn edited_fox(fox: &Path, dir: &Path, name: &str, edit: impl Fn(&mut Vec<Value>)) -> PathBuf {
    let (mut json, bin) = chunks(&std::fs::read(fox).expect("read Fox.glb"));
    let anims = json["animations"].as_array_mut().expect("animations");
    edit(anims);
    let out = dir.join(name);
    let text = serde_json::to_vec(&json).expect("JSON");
    std::fs::write(&out, throng_testdata::glb::pack(&text, Some(&bin))).expect("write");
    out
}

fn fidelity(model: &throng_anim::Model) -> Vec<throng_bake::verify::ClipFidelity> {
    let options = throng_bake::BakeOptions {
        source_name: "Fox.glb".into(),
        ..Default::default()
    };
    let (asset, _) = throng_bake::bake(model, &options).expect("bake");
    throng_bake::verify::verify(&asset, model).expect("verify")
}

fn assert_same_figures(
    a: &throng_bake::verify::ClipFidelity,
    b: &throng_bake::verify::ClipFidelity,
) {
    assert_eq!(
        (a.frames, a.max_rel_samples, a.max_rel_mid, a.p99_rel_mid),
        (b.frames, b.max_rel_samples, b.max_rel_mid, b.p99_rel_mid),
        "clip {:?} against its twin {:?}",
        a.clip,
        b.clip
    );
}

#[test]
fn same_named_clips_of_one_file_are_renamed_and_measured_against_themselves() {
    let Some(fox) = throng_testdata::asset("Fox.glb") else {
        return;
    };
    let dir = tempfile_dir("one_file");
    let path = edited_fox(&fox, &dir, "Walks.glb", |anims| {
        for a in anims.iter_mut() {
            a["name"] = Value::from("Walk");
        }
    });
    let model = load_model(&path, &SourceOptions::default()).expect("load");
    let names: Vec<&str> = model.clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["Walk", "Walk (2)", "Walk (3)"]);
    assert_eq!(
        model
            .warnings
            .iter()
            .filter(|w| w.contains("renamed"))
            .count(),
        2,
        "{:#?}",
        model.warnings
    );
    assert_eq!(find_clip(&model, "Walk (3)").expect("by its new name"), 2);

    let original = throng_gltf::import(&fox).expect("Fox.glb");
    let (renamed, twin) = (fidelity(&model), fidelity(&original));
    for (a, b) in renamed.iter().zip(&twin) {
        assert_same_figures(a, b);
    }
    // the finest budget a bake of the Fox keeps: no clip compared with another clip's motion
    assert!(renamed.iter().all(|f| f.max_rel_mid < 2e-3), "{renamed:#?}");
}

#[test]
fn a_clip_file_clip_with_a_taken_name_is_named_after_its_file() {
    let Some(fox) = throng_testdata::asset("Fox.glb") else {
        return;
    };
    let dir = tempfile_dir("clip_file");
    // Run alone, under the name of the model's first clip, as Mixamo's exports all say
    // `mixamo.com`
    let sprint = edited_fox(&fox, &dir, "FoxSprint.glb", |anims| {
        let mut run = anims[2].clone();
        run["name"] = Value::from("Survey");
        *anims = vec![run];
    });
    let source = SourceOptions {
        clips: vec![sprint],
        ..Default::default()
    };
    let model = load_model(&fox, &source).expect("load");
    let names: Vec<&str> = model.clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["Survey", "Walk", "Run", "FoxSprint"]);
    assert!(
        model
            .warnings
            .iter()
            .any(|w| w.contains("FoxSprint.glb") && w.contains("added as \"FoxSprint\"")),
        "{:#?}",
        model.warnings
    );
    let figures = fidelity(&model);
    assert_same_figures(&figures[3], &figures[2]);

    // a name that differs only in case is suggested, not silently matched
    let e = find_clip(&model, "foxsprint")
        .expect_err("case differs")
        .to_string();
    assert!(e.contains("did you mean \"FoxSprint\"?"), "{e}");
}

/// A fresh folder under the target directory (cargo's `CARGO_TARGET_TMPDIR`).
fn tempfile_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("clip_names_{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp folder");
    dir
}
