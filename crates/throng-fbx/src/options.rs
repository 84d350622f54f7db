//! What an import may use: the memory ufbx may take and the size of the file it reads.

use std::io::Read;
use std::path::Path;

/// Options of [`crate::import_with`] and [`crate::import_slice_with`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportOptions {
    /// Bytes each of ufbx's two allocators (parsing scratch, result scene) and each clip's bake
    /// may hold. ufbx is C, inside throng's trust boundary (docs/design.md §6): this bound keeps
    /// a file with huge declared counts or a zlib bomb from taking the machine's memory; going
    /// past it is [`crate::ImportErrorKind::MemoryLimit`].
    pub memory_limit: usize,
    /// Honour FBX inherit types (Maya's "segment scale compensate": a joint ignores its
    /// parent's scale) as Maya and the FBX SDK do. `false` makes every node inherit its
    /// parent's scale, which is what Blender's FBX importer does (docs/fbx.md); the two differ
    /// only where a joint with children is scaled.
    pub scale_compensation: bool,
}

/// 2 GiB: about 60 times what the largest test character needs (Male_Casual: 1.9 MB file,
/// ~30 MB in ufbx), far more than any crowd character, well below a desktop's memory.
pub const DEFAULT_MEMORY_LIMIT: usize = 2 << 30;

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            memory_limit: DEFAULT_MEMORY_LIMIT,
            scale_compensation: true,
        }
    }
}

/// FBX binary offsets are u32 below version 7.5 and the FBX SDK refuses files over 4 GiB in
/// practice; like the glTF importer, no larger file is read.
pub(crate) const MAX_INPUT_BYTES: u64 = u32::MAX as u64;

/// Reads the file the caller named, at most [`MAX_INPUT_BYTES`]: it may be a pipe or a device
/// that never ends.
pub(crate) fn read_input(path: &Path) -> std::io::Result<Vec<u8>> {
    throng_anim::read_bounded(path, MAX_INPUT_BYTES, "the largest FBX throng reads")
}

/// The binary FBX magic (FBX SDK): 21 bytes followed by 0x1A 0x00.
const BINARY_MAGIC: &[u8] = b"Kaydara FBX Binary  \0";

/// Whether `head` (the first bytes of a file; 1 KiB is plenty) is an FBX file: the binary magic,
/// or ASCII FBX, which starts with a `; FBX` comment or an `FBXHeaderExtension:` block.
pub fn looks_like_fbx(head: &[u8]) -> bool {
    if head.starts_with(BINARY_MAGIC) {
        return true;
    }
    let text = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let start = text
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(text.len());
    let text = &text[start..];
    text.starts_with(b"; FBX")
        || text.starts_with(b";FBX")
        || text.starts_with(b"FBXHeaderExtension:")
}

/// Whether `path` is an FBX file: its extension is `.fbx` (any case), or its first bytes are
/// FBX's ([`looks_like_fbx`]). A file that cannot be opened is not (the caller's own reader
/// reports why).
pub fn is_fbx_path(path: &Path) -> bool {
    let ext = path
        .extension()
        .map(|x| x.to_string_lossy().to_ascii_lowercase());
    if ext.as_deref() == Some("fbx") {
        return true;
    }
    // Only regular files are sniffed: opening a FIFO would block until someone writes to it.
    if !path.is_file() {
        return false;
    }
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let mut head = Vec::with_capacity(1024);
    if file.take(1024).read_to_end(&mut head).is_err() {
        return false;
    }
    looks_like_fbx(&head)
}
