//! Locates the real glTF test assets for throng's tests, packs GLB files, and builds a small
//! skinned file with material variants ([`variants`]).
//!
//! `THRONG_ASSETS` names the folder; by default it is `shared/assets` beside the repository
//! root. Outside CI a missing folder skips asset tests with a message; with `CI` set it is a
//! test failure, so a misconfigured CI never passes by skipping.

use std::path::PathBuf;

pub mod glb;
pub mod variants;

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

/// Whether the command-line tool `tool` is on the PATH (e.g. `xvfb-run`); outside CI a missing
/// tool skips the test with a message, `install` saying how to get it.
///
/// # Panics
/// When `CI` is set and the tool is missing.
pub fn have_tool(tool: &str, install: &str) -> bool {
    let found = std::process::Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI lacks {tool} ({install})"
        );
        eprintln!("skipping: no {tool}");
    }
    found
}

/// Result of the Khronos glTF-Validator on one file.
#[derive(Debug, Clone)]
pub struct ValidatorReport {
    pub errors: usize,
    pub warnings: usize,
    /// One line per issue: `severity code pointer message`.
    pub messages: Vec<String>,
}

/// Folder of the npm package `gltf-validator`: `GLTF_VALIDATOR_DIR`, else
/// `target/gltf-validator/node_modules/gltf-validator` in the workspace (where `.ci/run`
/// installs it), else `/tmp/gv/node_modules/gltf-validator`.
fn validator_dir() -> Option<PathBuf> {
    let ws = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let candidates = [
        std::env::var_os("GLTF_VALIDATOR_DIR").map(PathBuf::from),
        Some(ws.join("target/gltf-validator/node_modules/gltf-validator")),
        Some(PathBuf::from("/tmp/gv/node_modules/gltf-validator")),
    ];
    candidates.into_iter().flatten().find(|d| d.is_dir())
}

const VALIDATE_JS: &str = r#"
const v = require(process.argv[1]);
const fs = require('fs');
const bytes = new Uint8Array(fs.readFileSync(process.argv[2]));
v.validateBytes(bytes, { maxIssues: 200, writeTimestamp: false })
  .then(r => {
    const out = { errors: r.issues.numErrors, warnings: r.issues.numWarnings,
      messages: r.issues.messages.map(m => `${m.severity} ${m.code} ${m.pointer || ''} ${m.message}`) };
    console.log(JSON.stringify(out));
  })
  .catch(e => { console.error(String(e)); process.exit(1); });
"#;

/// Runs the Khronos glTF-Validator (npm `gltf-validator`, through `node`) on a `.glb`/`.gltf`
/// file. Returns `None` (after printing why) when node or the package is missing outside CI.
///
/// # Panics
/// When `CI` is set and the validator is unavailable, or when it fails to run.
pub fn validate_gltf(path: &std::path::Path) -> Option<ValidatorReport> {
    let Some(dir) = validator_dir() else {
        if std::env::var_os("CI").is_some() {
            panic!("gltf-validator not found (set GLTF_VALIDATOR_DIR; .ci/run installs it)");
        }
        eprintln!("skipping validation: npm package gltf-validator not found");
        return None;
    };
    let out = std::process::Command::new("node")
        .arg("-e")
        .arg(VALIDATE_JS)
        .arg(&dir)
        .arg(path)
        .output();
    let out = match out {
        Ok(o) => o,
        Err(e) if std::env::var_os("CI").is_none() => {
            eprintln!("skipping validation: cannot run node: {e}");
            return None;
        }
        Err(e) => panic!("cannot run node for gltf-validator: {e}"),
    };
    assert!(
        out.status.success(),
        "gltf-validator failed on {}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let num = |key: &str| -> usize {
        let pat = format!("\"{key}\":");
        text.find(&pat)
            .map(|i| {
                text[i + pat.len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_digit())
                    .collect::<String>()
            })
            .and_then(|s| s.parse().ok())
            .unwrap_or(usize::MAX)
    };
    let messages = text
        .split("\"messages\":[")
        .nth(1)
        .map(|rest| {
            rest.trim_end()
                .trim_end_matches("]}")
                .split("\",\"")
                .map(|m| m.trim_matches('"').to_string())
                .filter(|m| !m.is_empty())
                .collect()
        })
        .unwrap_or_default();
    Some(ValidatorReport {
        errors: num("errors"),
        warnings: num("warnings"),
        messages,
    })
}
