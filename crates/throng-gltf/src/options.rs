//! How an import treats the files around the one it reads.

use std::path::{Path, PathBuf};

/// Options of [`crate::import_with`] and [`crate::import_slice_with`].
///
/// ```no_run
/// use std::path::Path;
/// // Textures shared by several models live in `library/textures/`, next to `library/models/`.
/// let options = throng_gltf::ImportOptions::with_asset_root("library");
/// let model = throng_gltf::import_with(Path::new("library/models/knight.gltf"), &options)?;
/// # Ok::<(), throng_gltf::ImportError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportOptions {
    /// The folder that a `.gltf`'s external buffers and images may come from. It must contain
    /// the file's folder; `None` (the default) is the file's folder itself. URIs are still
    /// relative to the file's folder: a root only lets `..` climb up to it.
    pub asset_root: Option<PathBuf>,
}

impl ImportOptions {
    /// Options with `asset_root` set.
    pub fn with_asset_root(root: impl Into<PathBuf>) -> Self {
        ImportOptions {
            asset_root: Some(root.into()),
        }
    }
}

/// The GLB container's lengths are u32 (glTF 2.0 §4.4.2), so no glTF file is larger; a `.gltf`
/// that is would be no model anyone exports.
pub(crate) const MAX_INPUT_BYTES: u64 = u32::MAX as u64;

/// Reads the file the caller named, at most [`MAX_INPUT_BYTES`]: the caller chose the path, but
/// it may be a pipe or a device that never ends.
pub(crate) fn read_input(path: &Path) -> std::io::Result<Vec<u8>> {
    throng_anim::read_bounded(path, MAX_INPUT_BYTES, "the largest a glTF file can be")
}
