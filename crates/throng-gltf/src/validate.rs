//! Checks that need only the JSON, run before any buffer is loaded: buffer lengths against the
//! buffer views that use them, and scenes against the nodes. Per case, an error where glTF 2.0
//! makes the file invalid and no reading of it is safe to guess, a warning with a repair where
//! the meaning is unambiguous and other importers read the file.

use gltf_json::Root;

use crate::error::{ImportError, ImportErrorKind as K};

/// Checks `root`; returns the warnings of the repairs it asks the importer to make.
pub(crate) fn document(root: &Root, file: &str) -> Result<Vec<String>, ImportError> {
    let err = |kind| ImportError::new(file, kind);
    let mut warnings = Vec::new();
    for (i, b) in root.buffers.iter().enumerate() {
        // Error: the schema's minimum is 1, and a buffer of no bytes can back no view, so a 0
        // here means the length was lost (a writer bug), not an empty buffer.
        if b.byte_length.0 == 0 {
            return Err(err(K::InvalidData {
                element: format!("buffer {i}"),
                reason: "byteLength is 0 (glTF 2.0 requires at least 1)".into(),
            }));
        }
    }
    for (i, v) in root.buffer_views.iter().enumerate() {
        let element = format!("bufferView {i}");
        let bi = v.buffer.value();
        let Some(b) = root.buffers.get(bi) else {
            return Err(err(K::BadReference {
                element,
                target: format!("buffer {bi}"),
            }));
        };
        // Error: a view past its buffer's byteLength reads bytes the buffer does not declare
        // (glTF 2.0 §3.6.1.1 "MUST NOT exceed"); which bytes a writer meant is unknowable.
        let offset = v.byte_offset.map_or(0, |o| o.0);
        let end = offset.checked_add(v.byte_length.0);
        if end.is_none_or(|e| e > b.byte_length.0) {
            return Err(err(K::InvalidData {
                element,
                reason: format!(
                    "bytes {offset}..+{} run past the end of buffer {bi} (byteLength {})",
                    v.byte_length.0, b.byte_length.0
                ),
            }));
        }
    }
    for (si, scene) in root.scenes.iter().enumerate() {
        let element = format!("scene {si}");
        let mut seen = std::collections::BTreeSet::new();
        for n in &scene.nodes {
            let n = n.value();
            // Error: a dangling index means the node list was damaged.
            if n >= root.nodes.len() {
                return Err(err(K::BadReference {
                    element,
                    target: format!("node {n}"),
                }));
            }
            // Warning: the schema asks for unique items, but listing a root twice means nothing
            // else; throng imports the whole node hierarchy whatever scenes list.
            if !seen.insert(n) {
                warnings.push(format!(
                    "{element} lists node {n} more than once (glTF 2.0 requires unique nodes); the duplicate is ignored"
                ));
            }
        }
    }
    if let Some(s) = root.scene {
        let s = s.value();
        if s >= root.scenes.len() {
            return Err(err(K::BadReference {
                element: "the default scene (`scene`)".into(),
                target: format!("scene {s}"),
            }));
        }
    }
    Ok(warnings)
}
