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
