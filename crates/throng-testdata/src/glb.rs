//! Packing a GLB container (glTF 2.0 §4.4) from its chunks, for tests that build or edit files
//! byte by byte. Independent of the readers and writers under test, so a bug there cannot hide
//! itself by being mirrored here.

/// A GLB of the `json` chunk (padded to 4 bytes with spaces) and, when given, a BIN chunk
/// written exactly as passed: callers that test the reader's padding and alignment checks must
/// be able to write a chunk the writer never would. The header's length counts every byte.
pub fn pack(json: &[u8], bin: Option<&[u8]>) -> Vec<u8> {
    let mut j = json.to_vec();
    while !j.len().is_multiple_of(4) {
        j.push(b' ');
    }
    let total = 12 + 8 + j.len() + bin.map_or(0, |b| 8 + b.len());
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(j.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&j);
    if let Some(b) = bin {
        out.extend_from_slice(&(b.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(b);
    }
    out
}
