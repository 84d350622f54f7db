//! Locates the real glTF test assets for throng's tests.
//!
//! `THRONG_ASSETS` names the folder; by default it is `shared/assets` beside the repository
//! root. Outside CI a missing folder skips asset tests with a message; with `CI` set it is a
//! test failure, so a misconfigured CI never passes by skipping.

use std::path::PathBuf;

/// The asset folder, or `None` (after printing why) when it is missing outside CI.
///
/// # Panics
/// When `CI` is set and the folder does not exist.
pub fn assets_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("THRONG_ASSETS") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/assets"),
    };
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var_os("CI").is_some() {
        panic!(
            "test assets not found at {} (set THRONG_ASSETS to the shared/assets folder)",
            dir.display()
        );
    }
    eprintln!("skipping: test assets not found at {}", dir.display());
    None
}

/// Path of one asset, e.g. `asset("Fox.glb")`; `None` when the folder is missing outside CI.
///
/// # Panics
/// When `CI` is set and the folder or the file is missing.
pub fn asset(name: &str) -> Option<PathBuf> {
    let p = assets_dir()?.join(name);
    if !p.exists() {
        panic!("test asset {} is missing", p.display());
    }
    Some(p)
}
