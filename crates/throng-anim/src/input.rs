//! Reading a source file whole with a bound, for the importers (throng-gltf, throng-fbx): the
//! path is the caller's, but it may name a pipe or a device that never ends, or a file larger
//! than the format allows (docs/design.md §6: never an unbounded read).

use std::io::Read;
use std::path::Path;

/// The bytes of the file at `path`, at most `limit` of them; a longer file is an
/// `InvalidData` error saying `it is larger than {limit} bytes, {why}` (e.g. "the largest a
/// glTF file can be").
pub fn read_bounded(path: &Path, limit: u64, why: &str) -> std::io::Result<Vec<u8>> {
    let file = std::fs::File::open(path)?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    let mut bytes = Vec::with_capacity(usize::try_from(size.min(limit)).unwrap_or(0));
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("it is larger than {limit} bytes, {why}"),
        ));
    }
    Ok(bytes)
}

/// An import failure of one file, shared by the importers (throng-gltf, throng-fbx): the file's
/// name (first in `Display`: `FILE: what went wrong`) and what went wrong, as the importer's own
/// error kind, which names the element and says what to do.
#[derive(Debug)]
pub struct FileError<K> {
    /// The file name (or the name given to the importer's `import_slice`).
    pub file: String,
    pub kind: K,
}

impl<K> FileError<K> {
    pub fn new(file: &str, kind: K) -> Self {
        FileError {
            file: file.to_string(),
            kind,
        }
    }
}

impl<K: std::fmt::Display> std::fmt::Display for FileError<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.file, self.kind)
    }
}

impl<K: std::error::Error + 'static> std::error::Error for FileError<K> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.kind.source()
    }
}

/// An importer's file entry point: reads `path` with `read` (a bounded read, see
/// [`read_bounded`]) and imports the bytes with `import(bytes, folder, name)`, where the folder
/// is the file's own (for the files it names) and the name is the path as displayed, used in
/// errors and warnings. A failed read is the importer's error kind made from the I/O error.
pub fn import_file<T, K: From<std::io::Error>>(
    path: &Path,
    read: impl FnOnce(&Path) -> std::io::Result<Vec<u8>>,
    import: impl FnOnce(&[u8], Option<&Path>, &str) -> Result<T, FileError<K>>,
) -> Result<T, FileError<K>> {
    let name = path.display().to_string();
    let bytes = read(path).map_err(|e| FileError::new(&name, K::from(e)))?;
    import(&bytes, path.parent(), &name)
}
