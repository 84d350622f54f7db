//! Reading the container: GLB (glTF 2.0 §4.4) or JSON, the JSON document, and the bytes of
//! every buffer (GLB BIN chunk, data URIs, external files) and image.
//!
//! The JSON is parsed with `gltf-json`'s types but not with its validation: that validation
//! rejects every required extension it does not know (KHR_mesh_quantization among them) and
//! indexes arrays unchecked, and `gltf-json` cannot deserialize a channel without `target.node`
//! (valid glTF). So the JSON is first read as a `serde_json::Value`, such channels are removed
//! (and counted), and every index is then checked where the importer uses it.

use std::path::{Path, PathBuf};

use base64::Engine;
use gltf_json::Root;

use crate::confine::{read_bounded, Confinement, ReadError, Refusal, RootError};
use crate::error::{ImportError, ImportErrorKind as K};
use crate::uri::{UriProblem, UriRef};
use crate::ImportOptions;

/// The extensions throng decodes when a file requires them.
pub const SUPPORTED_REQUIRED_EXTENSIONS: &[&str] = &[
    "KHR_mesh_quantization",
    "KHR_texture_transform",
    "KHR_materials_variants",
];

/// A parsed document with its buffers loaded.
pub(crate) struct Source {
    pub root: Root,
    pub buffers: Vec<Vec<u8>>,
    /// Channels dropped before deserialization because they have no `target.node`.
    pub channels_without_node: usize,
    /// Resolves and reads the images' URIs the way the buffers' were.
    pub loader: Loader,
    /// Repairs made while reading the container and the buffers.
    pub warnings: Vec<String>,
}

const GLB_MAGIC: &[u8; 4] = b"glTF";
const GLB_HEADER_LEN: usize = 12;

pub(crate) fn parse(
    bytes: &[u8],
    base_dir: Option<&Path>,
    options: &ImportOptions,
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

    // Everything the JSON alone can contradict is checked before any external file is read.
    let mut warnings = crate::validate::document(&root, file)?;
    let loader = Loader {
        base_dir: base_dir.map(Path::to_path_buf),
        asset_root: options.asset_root.clone(),
        file: file.to_string(),
    };
    let buffers = load_buffers(&root, bin, &loader, &mut warnings)?;
    Ok(Source {
        root,
        buffers,
        channels_without_node,
        loader,
        warnings,
    })
}

/// Bytes of every buffer, each exactly its `byteLength` long.
fn load_buffers(
    root: &Root,
    mut bin: Option<Vec<u8>>,
    loader: &Loader,
    warnings: &mut Vec<String>,
) -> Result<Vec<Vec<u8>>, ImportError> {
    let err = |kind| ImportError::new(&loader.file, kind);
    let mut buffers = Vec::with_capacity(root.buffers.len());
    for (i, buffer) in root.buffers.iter().enumerate() {
        let element = match &buffer.name {
            Some(n) => format!("buffer {i} ({n:?})"),
            None => format!("buffer {i}"),
        };
        let declared = buffer.byte_length.0;
        let (mut data, slack) = match &buffer.uri {
            None => match bin.take() {
                // glTF 2.0 §4.4.3.3: the BIN chunk may end with up to 3 bytes of padding.
                Some(b) if i == 0 => (b, 3),
                _ => {
                    return Err(err(K::InvalidData {
                        element,
                        reason: "has no uri and is not the GLB binary chunk".into(),
                    }))
                }
            },
            Some(uri) => (loader.load(uri, &element, declared)?, 0),
        };
        if (data.len() as u64) < declared {
            return Err(err(K::Truncated {
                element,
                needed: declared,
                available: data.len() as u64,
            }));
        }
        let extra = data.len() as u64 - declared;
        if extra > slack {
            // Tolerated (the Khronos validator warns for GLB, three.js and Blender read such
            // files): no buffer view may reach past byteLength, so the extra bytes cannot change
            // what is imported; they are dropped.
            warnings.push(format!(
                "{element} holds {extra} bytes more than its byteLength {declared}; they are ignored"
            ));
        }
        data.truncate(declared as usize);
        buffers.push(data);
    }
    Ok(buffers)
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

/// Reads what buffer and image URIs name: `data:` URIs, or files confined to the asset root
/// (docs/design.md §6, see [`crate::confine`]).
pub(crate) struct Loader {
    base_dir: Option<PathBuf>,
    asset_root: Option<PathBuf>,
    file: String,
}

impl Loader {
    /// At most `limit` bytes behind `uri`, used by `element` (e.g. "buffer 0"). A data URI is
    /// decoded whole: its payload is already in memory, and decodes to less than it.
    pub fn load(&self, uri: &str, element: &str, limit: u64) -> Result<Vec<u8>, ImportError> {
        let err = |kind| ImportError::new(&self.file, kind);
        let unsafe_uri = |problem| {
            err(K::UnsafeUri {
                element: element.into(),
                uri: shorten(uri),
                problem,
            })
        };
        let segments = match crate::uri::parse(uri).map_err(unsafe_uri)? {
            UriRef::Data { base64, payload } => {
                let bad = |reason: String| {
                    err(K::BadUri {
                        element: element.into(),
                        reason,
                    })
                };
                let Some(payload) = payload else {
                    return Err(bad("data URI has no ',' before its payload".into()));
                };
                if !base64 {
                    return Err(bad("data URI is not base64-encoded".into()));
                }
                return base64::engine::general_purpose::STANDARD
                    .decode(payload.trim())
                    .map_err(|e| bad(format!("data URI is not valid base64 ({e})")));
            }
            UriRef::Path(segments) => segments,
        };
        let missing = |reason: String| {
            err(K::MissingExternalFile {
                element: element.into(),
                uri: shorten(uri),
                reason,
            })
        };
        let base_dir = match (&self.base_dir, &self.asset_root) {
            (Some(b), _) => b.as_path(),
            // Bytes without a folder, with an explicit root: URIs are relative to the root.
            (None, Some(r)) => r.as_path(),
            (None, None) => {
                return Err(missing("no base directory was given to resolve it".into()))
            }
        };
        let confinement =
            Confinement::new(base_dir, self.asset_root.as_deref()).map_err(|e| match e {
                RootError::Folder(reason) => missing(format!("its folder: {reason}")),
                RootError::Root(reason) => err(K::AssetRoot { reason }),
            })?;
        let path = confinement.resolve(&segments).map_err(|r| match r {
            Refusal::Unsafe(p) => unsafe_uri(p),
            Refusal::Io(path, e) => missing(format!("{}: {e}", path.display())),
        })?;
        read_bounded(&path, limit).map_err(|e| match e {
            ReadError::NotRegular(kind) => unsafe_uri(UriProblem::NotRegularFile(kind)),
            ReadError::Io(e) => missing(format!("{}: {e}", path.display())),
        })
    }
}

/// A URI for a message: at most 200 characters, so a megabyte-long path is not echoed whole.
fn shorten(uri: &str) -> String {
    const MAX: usize = 200;
    match uri.char_indices().nth(MAX) {
        None => uri.to_string(),
        Some((at, _)) => format!("{}…", &uri[..at]),
    }
}
