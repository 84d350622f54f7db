//! A temporary asset folder with a canary file outside it, and every way a URI in the folder
//! can try to reach the canary (or a device): the shared fixture of tests/uri.rs and
//! tests/canary.rs.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use throng_gltf::UriProblem;

/// The start of the canary's content: a test fails if it shows up in an error message.
pub const CANARY: &[u8] = b"CANARY-7f3a9c secret payload qwertzuiop\n";
/// The canary's size: five digits, so that finding it in a message is no accident of a
/// temporary folder's random name.
pub const CANARY_LEN: usize = 40961;

/// The canary's bytes: [`CANARY`] repeated to [`CANARY_LEN`] bytes.
pub fn canary_bytes() -> Vec<u8> {
    CANARY.iter().copied().cycle().take(CANARY_LEN).collect()
}

pub struct Fixture {
    /// Holds the folders alive; removed when dropped (`None`: made by another process).
    pub tmp: Option<tempfile::TempDir>,
    /// `tmp/assets`: the asset folder, where the .gltf files are written.
    pub assets: PathBuf,
    /// `tmp/outside`: next to the asset folder, holding only the canary.
    pub outside: PathBuf,
    pub canary: PathBuf,
}

impl Fixture {
    /// Builds the folders, the canary and the links (Unix; elsewhere only the plain forms).
    pub fn new() -> Fixture {
        let tmp = tempfile::tempdir().expect("temp dir");
        // Canonical, so that absolute link targets name the real path.
        let base = std::fs::canonicalize(tmp.path()).expect("canonical temp dir");
        let assets = base.join("assets");
        let outside = base.join("outside");
        std::fs::create_dir_all(assets.join("subdir")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        let canary = outside.join("canary.bin");
        std::fs::write(&canary, canary_bytes()).unwrap();
        let f = Fixture {
            tmp: Some(tmp),
            assets,
            outside,
            canary,
        };
        f.links();
        f
    }

    /// The fixture that [`Fixture::new`] built under `base` (in another process).
    pub fn existing(base: &Path) -> Fixture {
        Fixture {
            tmp: None,
            assets: base.join("assets"),
            outside: base.join("outside"),
            canary: base.join("outside/canary.bin"),
        }
    }

    /// The folder holding `assets` and `outside`.
    pub fn base(&self) -> PathBuf {
        self.assets.parent().unwrap().to_path_buf()
    }

    #[cfg(unix)]
    fn links(&self) {
        use std::os::unix::fs::symlink;
        let a = &self.assets;
        symlink(&self.canary, a.join("abs-link.bin")).unwrap();
        symlink("../outside/canary.bin", a.join("rel-link.bin")).unwrap();
        symlink("../outside", a.join("linkdir")).unwrap();
        symlink("/dev/zero", a.join("zero-link.bin")).unwrap();
        symlink("chain2.bin", a.join("chain1.bin")).unwrap();
        symlink("subdir/../../outside/canary.bin", a.join("chain2.bin")).unwrap();
        symlink("loop2.bin", a.join("loop1.bin")).unwrap();
        symlink("loop1.bin", a.join("loop2.bin")).unwrap();
        // A link whose absolute target starts inside the root and climbs out of it.
        symlink(a.join("../outside/canary.bin"), a.join("abs-climb.bin")).unwrap();
    }

    #[cfg(not(unix))]
    fn links(&self) {}

    /// `(uri, the refusal)` for every escaping form that exists on this platform.
    pub fn escaping_uris(&self) -> Vec<(String, UriProblem)> {
        use UriProblem as P;
        let abs = self.canary.display().to_string();
        let encoded_abs: String = abs
            .bytes()
            .map(|b| match b {
                b'/' => "%2F".to_string(),
                b if b.is_ascii_alphanumeric() => (b as char).to_string(),
                b => format!("%{b:02X}"),
            })
            .collect();
        let deep = format!("{}{}", "../".repeat(40), abs.trim_start_matches('/'));
        let mut v = vec![
            ("../outside/canary.bin".to_string(), P::Escapes),
            ("%2e%2e/outside/canary.bin".into(), P::Escapes),
            ("%2E%2E%2Foutside%2Fcanary.bin".into(), P::Escapes),
            ("..%5Coutside%5Ccanary.bin".into(), P::Escapes),
            ("..\\outside\\canary.bin".into(), P::Escapes),
            ("./../outside/canary.bin".into(), P::Escapes),
            ("subdir/../../outside/canary.bin".into(), P::Escapes),
            ("missing/../../outside/canary.bin".into(), P::Escapes),
            ("../assets/../outside/canary.bin".into(), P::Escapes),
            (deep, P::Escapes),
            (abs.clone(), P::Absolute),
            (encoded_abs, P::Absolute),
            (format!("file://{abs}"), P::Scheme("file".into())),
            (format!("file:{abs}"), P::Scheme("file".into())),
            (format!("//localhost{abs}"), P::Host),
            ("/dev/zero".into(), P::Absolute),
            ("%2Fdev%2Fzero".into(), P::Absolute),
            (
                "https://example.com/canary.bin".into(),
                P::Scheme("https".into()),
            ),
        ];
        if cfg!(unix) {
            v.extend([
                ("abs-link.bin".to_string(), P::SymlinkEscapes),
                ("rel-link.bin".into(), P::SymlinkEscapes),
                ("linkdir/canary.bin".into(), P::SymlinkEscapes),
                ("zero-link.bin".into(), P::SymlinkEscapes),
                ("chain1.bin".into(), P::SymlinkEscapes),
                ("abs-climb.bin".into(), P::SymlinkEscapes),
            ]);
        }
        v
    }

    /// Writes `json` as `name` in the asset folder and imports it.
    pub fn import(
        &self,
        name: &str,
        json: &Value,
    ) -> Result<throng_anim::model::Model, throng_gltf::ImportError> {
        let path = self.assets.join(name);
        std::fs::write(&path, serde_json::to_vec(json).unwrap()).unwrap();
        throng_gltf::import(&path)
    }
}

/// A document whose only content is buffer 0 at `uri`.
pub fn buffer_doc(uri: &str, byte_length: u64) -> Value {
    json!({
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": byte_length, "uri": uri}],
    })
}

/// A document whose material's base colour texture is the image at `uri` (so the image must
/// load), or, with `used` false, an image no material uses (a failure is then a warning).
pub fn image_doc(uri: &str, used: bool) -> Value {
    let mut v = json!({
        "asset": {"version": "2.0"},
        "images": [{"uri": uri}],
        "textures": [{"source": 0}],
    });
    if used {
        v["materials"] = json!([{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]);
    }
    v
}

/// Asserts that `message` shows nothing of the canary: not its bytes, not its size.
pub fn assert_no_canary(message: &str) {
    assert!(!message.contains("CANARY"), "{message}");
    assert!(!message.contains("secret payload"), "{message}");
    let size = CANARY_LEN.to_string();
    assert!(
        !message
            .split(|c: char| !c.is_ascii_digit())
            .any(|w| w == size),
        "the canary's size {size} appears in {message}"
    );
}

/// The URI of `path` relative to `dir` when it is inside it (for messages in tests).
pub fn rel(dir: &Path, path: &Path) -> String {
    path.strip_prefix(dir).unwrap().display().to_string()
}
