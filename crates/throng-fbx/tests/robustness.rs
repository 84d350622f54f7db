//! Untrusted input: files that are not FBX, cut short, corrupted, or that declare huge arrays
//! give an `ImportError` naming the file (never a panic, never unbounded memory); a memory limit
//! below what a file needs is `MemoryLimit`.

mod common;

use throng_fbx::{import_slice, import_slice_with, ImportErrorKind, ImportOptions};

fn bytes(rel: &str) -> Option<Vec<u8>> {
    common::fbx_asset(rel).map(|p| std::fs::read(p).expect("read the asset"))
}

/// A small limit, so a crafted allocation fails fast here (the default is 2 GiB).
fn small() -> ImportOptions {
    ImportOptions {
        memory_limit: 64 << 20,
        ..Default::default()
    }
}

#[test]
fn not_fbx_is_refused_before_parsing() {
    for data in [
        &b""[..],
        b"glTF\x02\x00\x00\x00",
        b"{\"asset\":{}}",
        b"o cube\nv 0 0 0\n",
    ] {
        let e = import_slice(data, None, "x.fbx").expect_err("not FBX");
        assert!(matches!(e.kind, ImportErrorKind::NotFbx), "{e}");
        assert!(e.to_string().starts_with("x.fbx: "), "{e}");
    }
}

#[test]
fn truncated_files_are_errors_naming_the_file() {
    for rel in [
        "ufbx/maya_game_sausage_7500_binary.fbx",
        "ufbx/max_transformed_skin_7500_ascii.fbx",
    ] {
        let Some(full) = bytes(rel) else { return };
        for k in 1..20 {
            let cut = &full[..full.len() * k / 20];
            // ASCII cut between tokens can still be a valid (smaller) file; binary cannot.
            match import_slice_with(cut, None, "cut.fbx", &small()) {
                Ok(_) => assert!(rel.ends_with("ascii.fbx"), "{rel} cut at {k}/20 imported"),
                Err(e) => {
                    assert!(e.to_string().starts_with("cut.fbx: "), "{e}");
                    // a binary file's own offsets tell a cut from damage (ufbx may call it
                    // bad DEFLATE data)
                    if rel.ends_with("binary.fbx") {
                        assert!(
                            matches!(e.kind, ImportErrorKind::Truncated { .. }),
                            "{rel} cut at {k}/20: {e}"
                        );
                    }
                }
            }
        }
    }
}

/// Bytes flipped at deterministic pseudo-random places: import may succeed or fail, but must
/// not crash (ufbx is C: this runs its parser and throng's checks on broken structure).
#[test]
fn corrupted_files_do_not_crash() {
    let Some(full) = bytes("ufbx/maya_game_sausage_7500_binary_wiggle.fbx") else {
        return;
    };
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut ok, mut err) = (0, 0);
    for _ in 0..300 {
        let mut data = full.clone();
        for _ in 0..(1 + next() % 8) {
            let at = (next() % data.len() as u64) as usize;
            data[at] = next() as u8;
        }
        match import_slice_with(&data, None, "bad.fbx", &small()) {
            Ok(_) => ok += 1,
            Err(e) => {
                assert!(e.to_string().starts_with("bad.fbx: "), "{e}");
                err += 1;
            }
        }
    }
    eprintln!("300 corrupted copies: {ok} imported, {err} refused");
}

/// A binary array property that declares 2^31 - 1 doubles behind a few bytes of zlib: ufbx must
/// stop at the memory limit instead of allocating 16 GiB.
#[test]
fn huge_declared_array_stops_at_the_memory_limit() {
    let Some(mut data) = bytes("ufbx/maya_game_sausage_7500_binary.fbx") else {
        return;
    };
    // FBX 7.5 binary: node "Vertices", then its property: type 'd', u32 count, u32 encoding,
    // u32 compressed length.
    let at = data
        .windows(8)
        .position(|w| w == b"Vertices")
        .expect("a Vertices node")
        + 8;
    assert_eq!(data[at], b'd', "the Vertices property is a double array");
    data[at + 1..at + 5].copy_from_slice(&0x7fff_ffffu32.to_le_bytes());
    let e = import_slice_with(&data, None, "huge.fbx", &small()).expect_err("cannot hold it");
    assert!(e.to_string().starts_with("huge.fbx: "), "{e}");
    eprintln!("{e}");
}

/// ASCII arrays declare their length (`Vertices: *N {`); a huge N must not be trusted for an
/// allocation: ufbx reads the values that are there, so the file imports as it is.
#[test]
fn huge_ascii_count_is_not_trusted() {
    let Some(full) = bytes("ufbx/max_transformed_skin_7500_ascii.fbx") else {
        return;
    };
    let text = String::from_utf8(full.clone()).expect("ASCII FBX");
    let at = text.find("Vertices: *").expect("a Vertices array") + "Vertices: *".len();
    let end = at + text[at..].find(' ').expect("count ends");
    let crafted = format!("{}{}{}", &text[..at], 4_000_000_000u64, &text[end..]);
    let a = import_slice_with(crafted.as_bytes(), None, "huge.fbx", &small())
        .unwrap_or_else(|e| panic!("{e}"));
    let b = import_slice(&full, None, "ascii.fbx").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(a.meshes, b.meshes);
}

#[test]
fn a_memory_limit_below_the_need_is_memory_limit() {
    let Some(data) = bytes("quaternius/Male_Casual.fbx") else {
        return;
    };
    let tiny = ImportOptions {
        memory_limit: 1 << 20,
        ..Default::default()
    };
    let e =
        import_slice_with(&data, None, "Male_Casual.fbx", &tiny).expect_err("1 MiB is too little");
    assert!(
        matches!(e.kind, ImportErrorKind::MemoryLimit { limit_mib: 1, .. }),
        "{e}"
    );
}
