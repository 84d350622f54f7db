//! URI confinement (docs/design.md §6) as a property: a `.gltf` in a folder holding links out of it,
//! a link to /dev/zero, a FIFO and small files, next to a 4096-byte canary, names a buffer of
//! 4096 bytes (and an image) by the fuzzed URI. No file inside the folder is that long or an
//! image, so an import that succeeds has read something outside it: a finding.
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

const CANARY_LEN: usize = 4096;

/// The asset folder of the fixture, built once per process under the temp folder.
fn assets() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let base = std::env::temp_dir().join(format!("throng-fuzz-uri-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let a = base.join("assets");
        std::fs::create_dir_all(a.join("sub")).unwrap();
        std::fs::create_dir_all(base.join("outside")).unwrap();
        std::fs::write(base.join("outside/canary.bin"), vec![b'C'; CANARY_LEN]).unwrap();
        std::fs::write(a.join("small.bin"), [0u8; 16]).unwrap();
        std::fs::write(a.join("sub/small.bin"), [0u8; 16]).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::symlink;
            symlink("../outside/canary.bin", a.join("out-link")).unwrap();
            symlink(base.join("outside/canary.bin"), a.join("abs-link")).unwrap();
            symlink("../outside", a.join("dir-link")).unwrap();
            symlink("/dev/zero", a.join("zero")).unwrap();
            symlink("small.bin", a.join("in-link")).unwrap();
            symlink("../small.bin", a.join("sub/up")).unwrap();
            symlink("sub/../out-link", a.join("chain")).unwrap();
            let _ = std::process::Command::new("mkfifo")
                .arg(a.join("pipe"))
                .status();
        }
        std::fs::canonicalize(&a).unwrap()
    })
}

/// `s` as a JSON string literal.
fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fuzz_target!(|data: &[u8]| {
    let Ok(uri) = std::str::from_utf8(data) else {
        return;
    };
    // A data: URI of 4096 bytes would import legitimately.
    if uri
        .get(..5)
        .is_some_and(|s| s.eq_ignore_ascii_case("data:"))
    {
        return;
    }
    let uri = json_string(uri);
    let buffer = format!(
        r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"byteLength":{CANARY_LEN},"uri":{uri}}}]}}"#
    );
    let image = format!(
        r#"{{"asset":{{"version":"2.0"}},"images":[{{"uri":{uri}}}],"textures":[{{"source":0}}],
            "materials":[{{"pbrMetallicRoughness":{{"baseColorTexture":{{"index":0}}}}}}]}}"#
    );
    for doc in [buffer, image] {
        if throng_gltf::import_slice(doc.as_bytes(), Some(assets()), "fuzz.gltf").is_ok() {
            panic!("uri {uri} was read although nothing inside the asset folder matches it");
        }
    }
});
