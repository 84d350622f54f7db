//! Editing a baked file the way a tool (or an attacker) would: split it into JSON and BIN,
//! change either, repack and reseal the checksum, so that the reader's own checks, not the
//! checksum, must catch the damage. Independent of the writer (docs/format.md).
#![allow(dead_code)]

mod checksum;

pub use checksum::reseal;
use serde_json::Value;

/// The JSON and the BIN chunk (with its padding) of a baked file.
pub fn split(bytes: &[u8]) -> (Value, Vec<u8>) {
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let json = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
    let bin = bytes[20 + json_len + 8..].to_vec();
    (json, bin)
}

/// A GLB of `json` and `bin` (the BIN chunk as given), resealed.
pub fn repack(json: &Value, bin: &[u8]) -> Vec<u8> {
    let mut out = throng_testdata::glb::pack(&serde_json::to_vec(json).unwrap(), Some(bin));
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
