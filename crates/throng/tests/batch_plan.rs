//! A folder bake checks its whole plan before writing anything: two sources that would bake to
//! one file, or an output that would replace a source, are errors (exit 1) and nothing is
//! written; subfolders are named as not baked.

mod common;

use common::{run, s};
use std::path::{Path, PathBuf};
use std::process::Output;

/// Runs `throng bake SRC -o OUT` and returns its output with stderr as text, for the checks
/// on its exit status and message.
fn bake(src: &Path, out: &Path) -> (Output, String) {
    let o = run(&["bake", &s(src), "-o", &s(out)]);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    (o, err)
}

fn temp_dir(tag: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("throng-batch-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&p);
    std::fs::create_dir_all(&p).expect("temp dir");
    p
}

#[test]
fn a_folder_bake_refuses_clashes_and_overwrites_before_writing() {
    let (Some(man), Some(simple)) = (
        throng_testdata::asset("CesiumMan.glb"),
        throng_testdata::asset("RiggedSimple.glb"),
    ) else {
        return;
    };
    // X.glb and X.gltf (a .glb under another ending still imports) would both give X.glb.
    let src = temp_dir("clash");
    std::fs::copy(&man, src.join("X.glb")).expect("copy");
    std::fs::copy(&simple, src.join("X.gltf")).expect("copy");
    std::fs::create_dir_all(src.join("more")).expect("subfolder");
    let out = src.with_extension("out");
    let (o, err) = bake(&src, &out);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("would both bake to"), "{err}");
    assert!(!out.exists(), "nothing is written");
    // Into its own folder: Fox.glb would replace itself.
    let own = temp_dir("own");
    std::fs::copy(&man, own.join("Fox.glb")).expect("copy");
    std::fs::copy(&simple, own.join("Simple.glb")).expect("copy");
    let (o, err) = bake(&own, &own);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("would be overwritten"), "{err}");
    let names: Vec<_> = std::fs::read_dir(&own)
        .expect("list")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names.len(), 2, "no file added or replaced: {names:?}");
    // A clean plan names the subfolders it does not bake.
    std::fs::remove_file(src.join("X.gltf")).expect("remove");
    let (o, err) = bake(&src, &out);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("subfolders are not baked") && err.contains("more"),
        "{err}"
    );
    for d in [src, own, out] {
        let _ = std::fs::remove_dir_all(d);
    }
}
