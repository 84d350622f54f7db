//! `bench/gpu.sh --dry-run --fast` end to end on whatever adapter exists (lavapipe in CI): every
//! step passes within its time limit, and the summary holds the path, field, far-tier and runtime
//! tables.

#[test]
fn gpu_bench_script_dry_run_writes_its_summary() {
    if throng_render::device::test_gpu().is_none() {
        return;
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("gpu-bench-dry");
    let _ = std::fs::remove_dir_all(&out);
    let status = std::process::Command::new("bash")
        .arg(root.join("bench/gpu.sh"))
        .arg(&out)
        .args(["--dry-run", "--fast"])
        .env("THRONG_BIN", env!("CARGO_BIN_EXE_throng"))
        .status()
        .expect("run bash");
    let steps = std::fs::read_to_string(out.join("steps.tsv")).unwrap_or_default();
    assert!(status.success(), "bench/gpu.sh failed; steps:\n{steps}");
    for step in [
        "render",
        "field-500",
        "far",
        "runtime-cpu",
        "runtime-gpu",
        "demo",
    ] {
        assert!(
            steps
                .lines()
                .any(|l| l.starts_with(&format!("{step}\tok\t"))),
            "step {step} did not pass:\n{steps}"
        );
    }
    let md = std::fs::read_to_string(out.join("gpu-bench.md")).expect("gpu-bench.md");
    for table in [
        "**Paths**",
        "**Field**",
        "**Far tier**",
        "**Runtime**",
        "| 4 | texture |",
    ] {
        assert!(md.contains(table), "{table} missing from:\n{md}");
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("gpu-bench.json")).expect("json"))
            .expect("gpu-bench.json parses");
    assert_eq!(json["runtime"].as_array().map(|a| a.len()), Some(2));
}
