//! `throng graph check` and `throng graph dot` through the built binary: the example graphs
//! pass against the assets they name, each kind of problem is reported naming its element,
//! exit codes 0 / 1 (errors) / 2 (usage), and the Graphviz text.

mod common;

use common::{ok, run, s};
use std::path::{Path, PathBuf};

fn temp_dir(tag: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("throng-graph-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&p).expect("temp dir");
    p
}

fn example(name: &str) -> String {
    s(&Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../throng-graph/graphs")
        .join(name))
}

/// The built-in fox, baked.
fn baked_demo(dir: &Path) -> String {
    let src = s(&dir.join("demo.glb"));
    let baked = s(&dir.join("demo-baked.glb"));
    ok(&["demo-asset", "-o", &src]);
    ok(&["bake", &src, "-o", &baked, "--no-verify"]);
    baked
}

fn stderr(args: &[&str]) -> (i32, String) {
    let out = run(args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn check_passes_the_examples_and_names_each_problem() {
    let dir = temp_dir("check");
    let baked = baked_demo(&dir);
    let demo = example("demo-fox-locomotion.json");
    let out = ok(&["graph", "check", &demo, "--asset", &baked]);
    assert!(
        out.contains("ok against") && out.contains("0 warnings"),
        "{out}"
    );

    // the Fox graph against the built-in fox: its clips are missing, named by state
    let (code, err) = stderr(&[
        "graph",
        "check",
        &example("fox-locomotion.json"),
        "--asset",
        &baked,
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("state \"idle\": clip \"Survey\" is not in the asset's clip table (clips: idle, walk, run, sit)"),
        "{err}"
    );

    // malformed JSON names the file
    let broken = dir.join("broken.json");
    std::fs::write(&broken, "{\"version\": 1, \"states\": [").unwrap();
    let (code, err) = stderr(&["graph", "check", &s(&broken), "--asset", &baked]);
    assert_eq!(code, 1);
    assert!(err.contains("broken.json: not a valid graph file"), "{err}");

    // a type mismatch, a transition that always fires, an unreachable state (warning only)
    let text = std::fs::read_to_string(&demo).unwrap();
    let mismatch = text.replace(
        r#""parameter": "speed",
          "points""#,
        r#""parameter": "sit",
          "points""#,
    );
    assert_ne!(mismatch, text, "the edit applied");
    let f = dir.join("mismatch.json");
    std::fs::write(&f, &mismatch).unwrap();
    let (code, err) = stderr(&["graph", "check", &s(&f), "--asset", &baked]);
    assert_eq!(code, 1);
    assert!(
        err.contains("state \"move\": parameter \"sit\" is a trigger"),
        "{err}"
    );

    let always = text.replace(r#""conditions": [ { "parameter": "sit" } ],"#, "");
    assert_ne!(always, text);
    let f = dir.join("always.json");
    std::fs::write(&f, &always).unwrap();
    let (code, err) = stderr(&["graph", "check", &s(&f), "--asset", &baked]);
    assert_eq!(code, 1);
    assert!(
        err.contains("transition 0 (\"idle\" -> \"sit\"): has no condition and no exit time"),
        "{err}"
    );

    let orphan = text.replace(
        r#""from": "idle", "to": "sit""#,
        r#""from": "sit", "to": "sit""#,
    );
    let f = dir.join("orphan.json");
    std::fs::write(&f, &orphan).unwrap();
    let out = run(&["graph", "check", &s(&f), "--asset", &baked]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("warning: ") && err.contains("state \"sit\" is unreachable"),
        "{err}"
    );

    // usage
    assert_eq!(run(&["graph", "check", &demo]).status.code(), Some(2));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn check_passes_the_fox_example_against_baked_fox() {
    let Some(fox) = common::asset_arg("Fox.glb") else {
        return;
    };
    let dir = temp_dir("fox");
    let baked = s(&dir.join("fox.glb"));
    ok(&["bake", &fox, "-o", &baked, "--no-verify"]);
    let out = ok(&[
        "graph",
        "check",
        &example("fox-locomotion.json"),
        "--asset",
        &baked,
    ]);
    assert!(
        out.contains("3 states, 5 transitions, 2 parameters, 0 warnings"),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn dot_writes_graphviz_text() {
    let g = example("fox-locomotion.json");
    let out = ok(&["graph", "dot", &g]);
    assert!(out.starts_with("digraph animation {"), "{out}");
    assert!(out.contains("\"idle\" -> \"move\""), "{out}");
    assert!(out.contains("\"*\" -> \"look\""), "{out}");
    let dir = temp_dir("dot");
    let file = dir.join("g.dot");
    ok(&["graph", "dot", &g, "-o", &s(&file)]);
    assert_eq!(
        std::fs::read_to_string(&file).unwrap().trim_end(),
        out.trim_end()
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `throng bench graph` on a small crowd: the GPU graph step runs (lavapipe in CI), its report
/// holds a round with both sides timed and the GPU time where the adapter has timestamps, with
/// `--clip-events` the pass fires the footsteps, and flags out of range are usage errors.
#[test]
fn bench_graph_reports_both_sides() {
    // 2,000 instances, a round of 3 frames
    let bench = |extra: &[&str]| {
        let mut args = vec![
            "bench",
            "graph",
            "--instances",
            "2000",
            "--frames",
            "3",
            "--rounds",
            "1",
            "--json",
        ];
        args.extend_from_slice(extra);
        common::ok_json(&args)
    };
    let v = bench(&[]);
    assert_eq!(v["instances"], 2000);
    assert_eq!(v["changes_per_frame"], 20);
    let round = &v["rounds"][0];
    for key in [
        "runtime_ms",
        "graph_cpu_ms",
        "step_ms",
        "events_ms",
        "ratio",
    ] {
        let x = round[key].as_f64().unwrap_or(-1.0);
        assert!(x.is_finite() && x >= 0.0, "{key}: {round}");
    }
    assert_eq!(v["clip_events"], false);
    // with the footsteps, the pass fires clip events (2,000 foxes walking and running: a
    // footstep each about every third of a second, some tens a 1/60 s frame)
    let v = bench(&["--clip-events"]);
    assert_eq!(v["clip_events"], true);
    let per_frame = v["events_per_frame"].as_f64().unwrap_or(0.0);
    assert!(per_frame > 20.0, "{per_frame} events a frame");
    assert_eq!(stderr(&["bench", "graph", "--instances", "0"]).0, 2);
    assert_eq!(stderr(&["bench", "graph", "--changing", "2"]).0, 2);
}
