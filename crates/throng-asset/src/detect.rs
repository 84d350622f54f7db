//! Telling a baked throng asset from a source glTF without reading either whole.

use std::io::Read;
use std::path::Path;

/// The root-level extension every baked file carries (docs/format.md).
pub const EXTENSION_NAME: &str = "THRONG_baked_animation";

/// Largest JSON chunk read to decide (a baked file's JSON is a few hundred KiB at most; a
/// source file with a larger JSON chunk is not baked by throng).
const MAX_JSON_SNIFF: u64 = 64 << 20;

/// Whether `bytes` begin a GLB whose JSON chunk names the `THRONG_baked_animation` extension.
/// Looks at the GLB header and the JSON chunk only.
pub fn is_baked_glb(bytes: &[u8]) -> bool {
    if bytes.len() < 20 || &bytes[0..4] != b"glTF" || &bytes[16..20] != b"JSON" {
        return false;
    }
    let json_len = u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]) as usize;
    let end = 20usize.saturating_add(json_len).min(bytes.len());
    let needle = format!("\"{EXTENSION_NAME}\"");
    bytes[20..end]
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

/// Whether the file at `path` is a baked throng asset ([`is_baked_glb`]), reading at most its
/// header and JSON chunk. Unreadable files are not baked (the loader that follows reports why).
pub fn is_baked_file(path: &Path) -> bool {
    let Ok(f) = std::fs::File::open(path) else {
        return false;
    };
    let mut head = [0u8; 20];
    let mut r = f.take(20);
    if r.read_exact(&mut head).is_err() {
        return false;
    }
    if &head[0..4] != b"glTF" || &head[16..20] != b"JSON" {
        return false;
    }
    let json_len = u32::from_le_bytes([head[12], head[13], head[14], head[15]]) as u64;
    let mut bytes = head.to_vec();
    let mut f = r.into_inner().take(json_len.min(MAX_JSON_SNIFF));
    if f.read_to_end(&mut bytes).is_err() {
        return false;
    }
    is_baked_glb(&bytes)
}
