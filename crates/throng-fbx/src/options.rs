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

/// Whether `path` is an FBX file: its first bytes are FBX's ([`looks_like_fbx`]), or its
/// extension is `.fbx` (any case) and its first bytes are not a GLB's (a GLB named `.fbx` is
/// read as the glTF it is). A file that cannot be opened is FBX by its extension alone (the
/// caller's own reader reports why).
pub fn is_fbx_path(path: &Path) -> bool {
    let ext = path
        .extension()
        .map(|x| x.to_string_lossy().to_ascii_lowercase());
    let named_fbx = ext.as_deref() == Some("fbx");
    // Only regular files are sniffed: opening a FIFO would block until someone writes to it.
    if !path.is_file() {
        return named_fbx;
    }
    let Ok(file) = std::fs::File::open(path) else {
        return named_fbx;
    };
    let mut head = Vec::with_capacity(1024);
    if file.take(1024).read_to_end(&mut head).is_err() {
        return named_fbx;
    }
    looks_like_fbx(&head) || (named_fbx && !head.starts_with(b"glTF"))
}

#[cfg(test)]
mod tests {
    use super::is_fbx_path;

    /// The content decides where it can: a GLB named `.fbx` is glTF, an FBX named `.glb` is
    /// FBX; what neither sniff recognises goes by its extension.
    #[test]
    fn fbx_is_told_by_content_then_by_name() {
        let dir = std::env::temp_dir().join(format!("throng-fbx-sniff-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let file = |name: &str, bytes: &[u8]| {
            let p = dir.join(name);
            std::fs::write(&p, bytes).expect("write");
            p
        };
        let glb = b"glTF\x02\0\0\0\x0c\0\0\0";
        let fbx = b"Kaydara FBX Binary  \0\x1a\0";
        assert!(!is_fbx_path(&file("a-glb.fbx", glb)));
        assert!(is_fbx_path(&file("an-fbx.glb", fbx)));
        assert!(is_fbx_path(&file("garbage.fbx", b"not a model")));
        assert!(!is_fbx_path(&file("garbage.glb", b"not a model")));
        assert!(is_fbx_path(&dir.join("missing.fbx")));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
