//! `throng inspect` of a baked file shows its layer masks and which clips are additive (text and
//! `--json`), and any command whose output pipe closes early (`throng inspect … | head`) ends
//! quietly instead of panicking with a stack trace.

mod common;

use common::{ok, ok_json, out_dir, s};
use std::process::{Command, Stdio};

#[test]
fn inspect_shows_layer_masks_and_additive_clips() {
    let Some(fox) = common::asset_arg("Fox.glb") else {
        return;
    };
    let baked = s(&out_dir("inspect-layers").join("fox-layers.glb"));
    ok(&[
        "bake",
        &fox,
        "-o",
        &baked,
        "--fps",
        "10",
        "--mask",
        "upper=b_Spine01_02",
        "--additive",
        "Survey:0.5",
        "--no-verify",
    ]);
    let j = ok_json(&["inspect", &baked, "--json"]);
    let palette: Vec<&str> = j["palette"]
        .as_array()
        .expect("palette")
        .iter()
        .map(|e| e["name"].as_str().unwrap_or(""))
        .collect();
    let entry = |name: &str| palette.iter().position(|n| *n == name).expect(name);
    let masks = j["masks"].as_array().expect("masks in the JSON");
    assert_eq!(masks.len(), 1, "{masks:?}");
    let m = &masks[0];
    assert_eq!(m["number"], 1);
    assert_eq!(m["name"], "upper");
    assert_eq!(m["roots"], serde_json::json!(["b_Spine01_02"]));
    let entries: Vec<usize> = m["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter_map(|v| v.as_u64().map(|v| v as usize))
        .collect();
    let weights = m["weights"].as_array().expect("weights");
    assert_eq!(weights.len(), palette.len(), "one weight per palette entry");
    // The named joint and its head are in; the root and the hips above it are not.
    assert!(entries.contains(&entry("b_Spine01_02")), "{entries:?}");
    assert!(entries.contains(&entry("b_Head_05")), "{entries:?}");
    assert!(!entries.contains(&entry("b_Root_00")), "{entries:?}");
    assert!(!entries.contains(&entry("b_Hip_01")), "{entries:?}");
    for (k, w) in weights.iter().enumerate() {
        assert_eq!(w.as_f64().unwrap_or(-1.0) > 0.0, entries.contains(&k));
    }
    for c in j["clips"].as_array().expect("clips") {
        let expect = if c["name"] == "Survey" {
            serde_json::json!(0.5)
        } else {
            serde_json::Value::Null
        };
        assert_eq!(c["additive"], expect, "{c}");
    }
    let text = ok(&["inspect", &baked]);
    assert!(text.contains("layer masks: 1"), "{text}");
    let mask_line = format!(
        "1 upper (subtrees of b_Spine01_02): {} of {} palette entries",
        entries.len(),
        palette.len()
    );
    assert!(text.contains(&mask_line), "{text}");
    let survey = text
        .lines()
        .find(|l| l.contains("Survey"))
        .expect("Survey's line");
    assert!(
        survey.contains("additive (deltas from its pose at 0.500 s)"),
        "{survey}"
    );
    let walk = text.lines().find(|l| l.contains("Walk")).expect("Walk");
    assert!(!walk.contains("additive"), "{walk}");
}

/// Runs throng with standard output on a pipe whose reader is already gone, so every write
/// fails with a broken pipe (EPIPE: Rust ignores SIGPIPE).
fn run_into_closed_pipe(args: &[&str]) -> std::process::Output {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(args)
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .output()
        .expect("run throng")
}

#[test]
fn a_closed_output_pipe_ends_quietly() {
    let Some(fox) = common::asset_arg("Fox.glb") else {
        return;
    };
    // The table (println!), the JSON (one write) and --help (clap) all meet the closed pipe.
    for args in [
        vec!["inspect", fox.as_str()],
        vec!["inspect", fox.as_str(), "--json"],
        vec!["bake", "--help"],
    ] {
        let out = run_into_closed_pipe(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !err.contains("panicked") && !err.contains("Broken pipe"),
            "{args:?}: {err}"
        );
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
    }
}
