//! Editing a baked file the way a tool (or an attacker) would: split it into JSON and BIN,
//! change either, repack and reseal the checksum, so that the reader's own checks, not the
//! checksum, must catch the damage. Independent of the writer (docs/format.md).
#![allow(dead_code)]

use serde_json::Value;

/// FNV-1a 64 of docs/format.md "Checksum", written over the 16 digits of the last checksum key.
pub fn reseal(bytes: &mut [u8]) {
    let key = b"\"checksum\":\"fnv1a64:";
    let Some(at) = bytes.windows(key.len()).rposition(|w| w == key) else {
        return;
    };
    let at = at + key.len();
    if at + 16 > bytes.len() {
        return;
    }
    bytes[at..at + 16].copy_from_slice(b"0000000000000000");
    let mut h: u64 = 0xcbf29ce484222325;
    for &b in bytes.iter() {
        h = (h ^ b as u64).wrapping_mul(0x100000001b3);
    }
    bytes[at..at + 16].copy_from_slice(format!("{h:016x}").as_bytes());
}

/// The JSON and the BIN chunk (with its padding) of a baked file.
pub fn split(bytes: &[u8]) -> (Value, Vec<u8>) {
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let json = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
    let bin = bytes[20 + json_len + 8..].to_vec();
    (json, bin)
}

/// A GLB of `json` and `bin` (the BIN chunk as given), resealed.
pub fn repack(json: &Value, bin: &[u8]) -> Vec<u8> {
    let mut j = serde_json::to_vec(json).unwrap();
    while !j.len().is_multiple_of(4) {
        j.push(b' ');
    }
    let total = 12 + 8 + j.len() + 8 + bin.len();
    let mut out = Vec::new();
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(j.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&j);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(bin);
    reseal(&mut out);
    out
}

/// `json` with each pointer's value replaced (or added to its object).
pub fn edit(json: &Value, edits: &[(String, Value)]) -> Value {
    let mut v = json.clone();
    for (pointer, value) in edits {
        if let Some(slot) = v.pointer_mut(pointer) {
            *slot = value.clone();
            continue;
        }
        let (parent, key) = pointer.rsplit_once('/').unwrap();
        v.pointer_mut(parent)
            .and_then(Value::as_object_mut)
            .unwrap_or_else(|| panic!("no object {parent}"))
            .insert(key.to_string(), value.clone());
    }
    v
}

/// Byte offset in the BIN chunk of buffer view `view`.
pub fn view_offset(json: &Value, view: &Value) -> usize {
    let v = view.as_u64().expect("a view index") as usize;
    json["bufferViews"][v]["byteOffset"].as_u64().unwrap() as usize
}
