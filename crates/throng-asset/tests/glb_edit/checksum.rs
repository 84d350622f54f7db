//! Resealing a baked file's checksum after an edit. On its own and without dependencies so that
//! the fuzz target of the reader (fuzz/fuzz_targets/baked_reader.rs) includes it too.

/// FNV-1a 64 of docs/format.md "Checksum", written over the 16 digits of the last checksum key.
pub fn reseal(bytes: &mut [u8]) {
    let key = b"\"checksum\":\"fnv1a64:";
    // A damaged key cannot be resealed: the file then fails as unsealed.
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
