//! The baked-file reader (seeds: files baked from the shared assets).
//!
//! The checksum is resealed before reading (as an attacker, or a tool editing a file, would):
//! otherwise nearly every mutation stops at the checksum and the checks behind it go untested.
//! A file the reader accepts must write again (the writer validates and skins the rest pose
//! with the CPU decoder) and read back equal: the reader's checks are the writer's.
#![no_main]

use libfuzzer_sys::fuzz_target;

// The test suite's resealing, so that the fuzzer edits files the way the tests do.
#[path = "../../crates/throng-asset/tests/glb_edit/checksum.rs"]
mod checksum;

use checksum::reseal;

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
