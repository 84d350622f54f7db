//! Reading the container: GLB (glTF 2.0 §4.4) or JSON, the JSON document, and the bytes of
//! every buffer (GLB BIN chunk, data URIs, external files) and image.
//!
//! The JSON is parsed with `gltf-json`'s types but not with its validation: that validation
//! rejects every required extension it does not know (KHR_mesh_quantization among them) and
//! indexes arrays unchecked, and `gltf-json` cannot deserialize a channel without `target.node`
//! (valid glTF). So the JSON is first read as a `serde_json::Value`, such channels are removed
//! (and counted), and every index is then checked where the importer uses it.

use std::path::Path;

use base64::Engine;
use gltf_json::Root;

use crate::error::{ImportError, ImportErrorKind as K};

/// The extensions throng decodes when a file requires them.
pub const SUPPORTED_REQUIRED_EXTENSIONS: &[&str] =
    &["KHR_mesh_quantization", "KHR_texture_transform"];

/// A parsed document with its buffers loaded.
pub(crate) struct Source {
    pub root: Root,
    pub buffers: Vec<Vec<u8>>,
    /// Channels dropped before deserialization because they have no `target.node`.
    pub channels_without_node: usize,
    pub base_dir: Option<std::path::PathBuf>,
}

const GLB_MAGIC: &[u8; 4] = b"glTF";
const GLB_HEADER_LEN: usize = 12;

pub(crate) fn parse(
    bytes: &[u8],
    base_dir: Option<&Path>,
    file: &str,
) -> Result<Source, ImportError> {
    let err = |kind| ImportError::new(file, kind);
    let (json_bytes, bin): (&[u8], Option<Vec<u8>>) = if bytes.starts_with(GLB_MAGIC) {
        // gltf's Glb::from_slice subtracts the header size from the declared length without a
        // check, so the header is validated here first.
        if bytes.len() < GLB_HEADER_LEN {
            return Err(err(K::Truncated {
                element: "GLB header".into(),
                needed: GLB_HEADER_LEN as u64,
                available: bytes.len() as u64,
            }));
        }
        let declared = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as u64;
        if declared < GLB_HEADER_LEN as u64 + 8 {
            return Err(err(K::MalformedGlb {
                reason: format!(
                    "declared length {declared} is shorter than a GLB header and JSON chunk"
                ),
            }));
        }
        if declared > bytes.len() as u64 {
            return Err(err(K::Truncated {
                element: "GLB container".into(),
                needed: declared,
                available: bytes.len() as u64,
            }));
        }
        let glb = gltf::binary::Glb::from_slice(&bytes[..declared as usize]).map_err(|e| {
            err(K::MalformedGlb {
                reason: e.to_string(),
            })
        })?;
        let json_len = glb.json.len();
        // The JSON chunk borrows `bytes`; find it again to avoid a copy-and-borrow tangle.
        let json_start = GLB_HEADER_LEN + 8;
        let json = &bytes[json_start..json_start + json_len];
        (json, glb.bin.map(|b| b.into_owned()))
    } else {
        let first = bytes
            .iter()
            .copied()
            .find(|b| !(b.is_ascii_whitespace() || *b == 0xEF || *b == 0xBB || *b == 0xBF));
        if first != Some(b'{') {
            return Err(err(K::NotGltf));
        }
        // serde_json rejects a UTF-8 byte order mark, which some tools write.
        (bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes), None)
    };

    let mut value: serde_json::Value =
        serde_json::from_slice(json_bytes).map_err(|source| err(K::MalformedJson { source }))?;
    if !value.is_object() || value.get("asset").is_none() {
        return Err(err(K::NotGltf));
    }
    let channels_without_node = drop_channels_without_node(&mut value);
    let root: Root = serde_json::from_value(value).map_err(|source| {
        // Parsing the text again gives the same complaint with a line and column.
        let source = serde_json::from_slice::<Root>(json_bytes)
            .err()
            .unwrap_or(source);
        err(K::NotGltfSchema { source })
    })?;

    for ext in &root.extensions_required {
        if !SUPPORTED_REQUIRED_EXTENSIONS.contains(&ext.as_str()) {
            return Err(err(K::UnsupportedExtension {
                extension: ext.clone(),
            }));
        }
    }

    let mut buffers = Vec::with_capacity(root.buffers.len());
    let mut bin = bin;
    for (i, buffer) in root.buffers.iter().enumerate() {
        let element = match &buffer.name {
            Some(n) => format!("buffer {i} ({n:?})"),
            None => format!("buffer {i}"),
        };
        let data = match &buffer.uri {
            None => match bin.take() {
                Some(b) if i == 0 => b,
                _ => {
                    return Err(err(K::InvalidData {
                        element,
                        reason: "has no uri and is not the GLB binary chunk".into(),
                    }))
                }
            },
            Some(uri) => load_uri(uri, base_dir, &element, file)?,
        };
        let declared = buffer.byte_length.0;
        if (data.len() as u64) < declared {
            return Err(err(K::Truncated {
                element,
                needed: declared,
                available: data.len() as u64,
            }));
        }
        buffers.push(data);
    }

    Ok(Source {
        root,
        buffers,
        channels_without_node,
        base_dir: base_dir.map(Path::to_path_buf),
    })
}

/// Removes animation channels whose target has no `node` (glTF 2.0 §3.11: such channels are
/// ignored; extensions such as KHR_animation_pointer use them). Returns how many were removed.
fn drop_channels_without_node(value: &mut serde_json::Value) -> usize {
    let mut dropped = 0;
    if let Some(anims) = value.get_mut("animations").and_then(|a| a.as_array_mut()) {
        for anim in anims {
            if let Some(channels) = anim.get_mut("channels").and_then(|c| c.as_array_mut()) {
                let before = channels.len();
                channels.retain(|ch| ch.get("target").and_then(|t| t.get("node")).is_some());
                dropped += before - channels.len();
            }
        }
    }
    dropped
}

/// Bytes behind a buffer or image URI: a `data:` URI (base64) or a file relative to `base_dir`.
pub(crate) fn load_uri(
    uri: &str,
    base_dir: Option<&Path>,
    element: &str,
    file: &str,
) -> Result<Vec<u8>, ImportError> {
    let err = |kind| ImportError::new(file, kind);
    if let Some(rest) = uri.strip_prefix("data:") {
        let Some((header, payload)) = rest.split_once(',') else {
            return Err(err(K::BadUri {
                element: element.into(),
                reason: "data URI has no ',' before its payload".into(),
            }));
        };
        if !header.ends_with(";base64") {
            return Err(err(K::BadUri {
                element: element.into(),
                reason: "data URI is not base64-encoded".into(),
            }));
        }
        return base64::engine::general_purpose::STANDARD
            .decode(payload.trim())
            .map_err(|e| {
                err(K::BadUri {
                    element: element.into(),
                    reason: format!("data URI is not valid base64 ({e})"),
                })
            });
    }
    let decoded = percent_decode(uri);
    let Some(dir) = base_dir else {
        return Err(err(K::MissingExternalFile {
            element: element.into(),
            uri: uri.into(),
            reason: "no base directory was given to resolve it".into(),
        }));
    };
    let path = dir.join(&decoded);
    std::fs::read(&path).map_err(|e| {
        err(K::MissingExternalFile {
            element: element.into(),
            uri: uri.into(),
            reason: format!("{}: {e}", path.display()),
        })
    })
}

/// RFC 3986 percent-decoding of a relative URI path (glTF 2.0 §2.8: URIs are percent-encoded).
fn percent_decode(uri: &str) -> String {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
            if let Some(v) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::percent_decode;

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("a%20b.bin"), "a b.bin");
        assert_eq!(percent_decode("plain.bin"), "plain.bin");
        assert_eq!(percent_decode("bad%2"), "bad%2");
        assert_eq!(percent_decode("end%41"), "endA");
    }
}
