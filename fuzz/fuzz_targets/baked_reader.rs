//! The baked-file reader (seeds: files baked from the shared assets).
//!
//! The checksum is resealed before reading (as an attacker, or a tool editing a file, would):
//! otherwise nearly every mutation stops at the checksum and the checks behind it go untested.
//! A file the reader accepts must write again (the writer validates and skins the rest pose
//! with the CPU decoder) and read back equal: the reader's checks are the writer's.
#![no_main]

use libfuzzer_sys::fuzz_target;

/// FNV-1a 64 of docs/format.md "Checksum", over the digits of the last checksum key.
fn reseal(bytes: &mut [u8]) {
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

fuzz_target!(|data: &[u8]| {
    let mut bytes = data.to_vec();
    reseal(&mut bytes);
    if let Ok(asset) = throng_asset::from_glb_bytes(&bytes, "fuzz.glb") {
        let written = throng_asset::to_glb_bytes(&asset)
            .unwrap_or_else(|e| panic!("the reader accepted what the writer refuses: {e}"));
        let back = throng_asset::from_glb_bytes(&written, "rewritten.glb")
            .unwrap_or_else(|e| panic!("a rewritten file does not read: {e}"));
        assert!(back == asset, "a rewritten file reads back different");
    }
});
