//! The glTF 2.0 binary container (glTF 2.0 §4.4 "GLB File Format Specification"): a 12-byte
//! header, a JSON chunk padded with spaces, a BIN chunk padded with zeros, all little-endian and
//! 4-byte aligned.

use crate::error::AssetError;

/// `glTF` read as a little-endian u32.
pub const GLB_MAGIC: u32 = 0x4654_6C67;
pub const CHUNK_JSON: u32 = 0x4E4F_534A;
pub const CHUNK_BIN: u32 = 0x004E_4942;

/// Packs a JSON document and binary buffer into GLB bytes.
pub fn pack(json: &[u8], bin: &[u8]) -> Result<Vec<u8>, String> {
    let json_len = json.len().next_multiple_of(4);
    let bin_len = bin.len().next_multiple_of(4);
    let total = 12 + 8 + json_len + if bin.is_empty() { 0 } else { 8 + bin_len };
    let total32 = u32::try_from(total).map_err(|_| {
        format!("the file would be {total} bytes, over the 4 GiB limit of the GLB container")
    })?;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&GLB_MAGIC.to_le_bytes());
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&total32.to_le_bytes());
    out.extend_from_slice(&(json_len as u32).to_le_bytes());
    out.extend_from_slice(&CHUNK_JSON.to_le_bytes());
    out.extend_from_slice(json);
    out.resize(20 + json_len, b' ');
    if !bin.is_empty() {
        out.extend_from_slice(&(bin_len as u32).to_le_bytes());
        out.extend_from_slice(&CHUNK_BIN.to_le_bytes());
        out.extend_from_slice(bin);
        out.resize(total, 0);
    }
    Ok(out)
}

/// The two chunks of a GLB file.
pub struct Chunks<'a> {
    pub json: &'a [u8],
    pub bin: &'a [u8],
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

/// Splits GLB bytes into the JSON and BIN chunks, checking every length against the data.
pub fn unpack<'a>(bytes: &'a [u8], file: &str) -> Result<Chunks<'a>, AssetError> {
    let not_glb = |what: &str| AssetError::NotGlb {
        file: file.to_string(),
        what: what.to_string(),
    };
    let corrupt = |element: &str, what: String| AssetError::Corrupt {
        file: file.to_string(),
        element: element.to_string(),
        what,
    };
    if bytes.len() < 4 || u32_at(bytes, 0) != Some(GLB_MAGIC) {
        return Err(not_glb("it does not start with the bytes `glTF`"));
    }
    let (Some(version), Some(length)) = (u32_at(bytes, 4), u32_at(bytes, 8)) else {
        return Err(corrupt("GLB header", format!("only {} bytes", bytes.len())));
    };
    if version != 2 {
        return Err(not_glb(&format!(
            "GLB container version {version}, expected 2"
        )));
    }
    if length as usize != bytes.len() {
        return Err(corrupt(
            "GLB header",
            format!(
                "the header says {length} bytes but the file has {}",
                bytes.len()
            ),
        ));
    }
    let mut at = 12usize;
    let mut chunk = |name: &str| -> Result<Option<(u32, &'a [u8])>, AssetError> {
        if at == bytes.len() {
            return Ok(None);
        }
        let (Some(len), Some(kind)) = (u32_at(bytes, at), u32_at(bytes, at + 4)) else {
            return Err(corrupt(name, format!("chunk header cut off at byte {at}")));
        };
        let start = at + 8;
        let end = start
            .checked_add(len as usize)
            .filter(|e| *e <= bytes.len())
            .ok_or_else(|| {
                corrupt(
                    name,
                    format!(
                        "chunk of {len} bytes at byte {start} runs past the end ({} bytes)",
                        bytes.len()
                    ),
                )
            })?;
        at = end;
        Ok(Some((kind, &bytes[start..end])))
    };
    // The JSON chunk must come first, then an optional BIN chunk (glTF 2.0 §4.4.3).
    let mut expect = |name: &str, which: &str, want: u32, label: &str| match chunk(name)? {
        Some((kind, b)) if kind == want => Ok(Some(b)),
        Some((kind, _)) => Err(corrupt(
            name,
            format!("{which} chunk has type {kind:#010x}, expected {label}"),
        )),
        None => Ok(None),
    };
    let json = expect("JSON chunk", "first", CHUNK_JSON, "JSON")?
        .ok_or_else(|| corrupt("JSON chunk", "missing".into()))?;
    let bin = expect("BIN chunk", "second", CHUNK_BIN, "BIN")?.unwrap_or(&[][..]);
    Ok(Chunks { json, bin })
}

/// The bytes of the one buffer of a baked file: the BIN chunk without its padding. Its
/// `byteLength` must match the chunk (glTF 2.0 §4.4.3.3: the chunk may be up to 3 bytes longer,
/// for alignment), so that no view can reach bytes the buffer does not declare.
pub fn buffer_bytes<'a>(
    bin: &'a [u8],
    buffers: &[crate::schema::Buffer],
    file: &str,
) -> Result<&'a [u8], AssetError> {
    let corrupt = |element: &str, what: String| AssetError::Corrupt {
        file: file.to_string(),
        element: element.to_string(),
        what,
    };
    match buffers {
        [] if bin.is_empty() => Ok(bin),
        [] => Err(corrupt(
            "buffers",
            format!("none, but the file has a BIN chunk of {} bytes", bin.len()),
        )),
        [b] => {
            let declared = b.byte_length;
            if declared > bin.len() || bin.len() - declared > 3 {
                return Err(corrupt(
                    "buffers[0].byteLength",
                    format!(
                        "{declared} bytes, but the BIN chunk has {} (it may only add up to 3 bytes of padding)",
                        bin.len()
                    ),
                ));
            }
            Ok(&bin[..declared])
        }
        more => Err(corrupt(
            "buffers",
            format!(
                "{} buffers; a baked file has one, its BIN chunk",
                more.len()
            ),
        )),
    }
}
