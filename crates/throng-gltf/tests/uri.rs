//! External URIs (docs/design.md §6): every form that could reach outside the asset folder is a
//! typed error naming the element and the URI, for buffers and images; what is inside the
//! folder still loads, through links too; an asset root widens the folder; only regular files
//! are read, and no more of them than declared.

mod common;
mod escape;

use escape::{assert_no_canary, buffer_doc, image_doc, Fixture, CANARY_LEN};
use serde_json::json;
use throng_gltf::{import_with, ImportErrorKind as K, ImportOptions, UriProblem as P};

fn expect_unsafe(e: &throng_gltf::ImportError, want_element: &str, want_uri: &str, want: &P) {
    match &e.kind {
        K::UnsafeUri {
            element,
            uri,
            problem,
        } => {
            assert_eq!(element, want_element, "{e}");
            assert_eq!(uri, want_uri, "{e}");
            assert_eq!(problem, want, "{want_uri}: {e}");
        }
        other => panic!("{want_uri}: expected UnsafeUri, got {other:?}"),
    }
}

#[test]
fn escaping_buffer_uris_are_refused() {
    let f = Fixture::new();
    for (uri, problem) in f.escaping_uris() {
        // The canary's true length: a file that was read would then import.
        let e = f
            .import("scene.gltf", &buffer_doc(&uri, CANARY_LEN as u64))
            .expect_err(&uri);
        expect_unsafe(&e, "buffer 0", &uri, &problem);
        let msg = e.to_string();
        assert!(msg.contains("buffer 0: uri"), "{msg}");
        assert!(msg.contains("asset's folder"), "{msg}");
        assert_no_canary(&msg);
    }
}

#[test]
fn escaping_image_uris_are_refused() {
    let f = Fixture::new();
    for (uri, problem) in f.escaping_uris() {
        let e = f
            .import("scene.gltf", &image_doc(&uri, true))
            .expect_err(&uri);
        expect_unsafe(&e, "image 0", &uri, &problem);
        assert_no_canary(&e.to_string());
        // An image no material uses is left empty with a warning that says why.
        let m = f
            .import("scene.gltf", &image_doc(&uri, false))
            .unwrap_or_else(|e| panic!("{uri}: {e}"));
        assert_eq!((m.images[0].width, m.images[0].rgba8.len()), (0, 0));
        assert_eq!(m.warnings.len(), 1, "{:?}", m.warnings);
        assert!(
            m.warnings[0].contains(&problem.to_string()),
            "{}",
            m.warnings[0]
        );
        assert_no_canary(&m.warnings[0]);
    }
}

/// A triangle whose buffer is an external file at `uri` (written by the caller).
fn triangle_doc(uri: &str) -> (serde_json::Value, Vec<u8>) {
    let d = common::triangle();
    let mut v: serde_json::Value = serde_json::from_slice(&d.gltf(json!({"nodes": [{"mesh": 0}],
            "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}]})))
    .unwrap();
    v["buffers"][0]["uri"] = json!(uri);
    (v, d.bin.clone())
}

#[test]
fn files_inside_the_folder_load() {
    let f = Fixture::new();
    let (_, bin) = triangle_doc("");
    std::fs::write(f.assets.join("tri.bin"), &bin).unwrap();
    std::fs::write(f.assets.join("subdir/tri 2.bin"), &bin).unwrap();
    let mut uris = vec![
        "tri.bin",
        "./tri.bin",
        "subdir/../tri.bin",
        "%74ri.bin",
        "subdir/tri%202.bin",
        "subdir\\tri%202.bin",
        "tri.bin?version=3#x",
    ];
    #[cfg(unix)]
    {
        use std::os::unix::fs::symlink;
        symlink("tri.bin", f.assets.join("alias.bin")).unwrap();
        symlink(f.assets.join("subdir"), f.assets.join("dirlink")).unwrap();
        symlink("../tri.bin", f.assets.join("subdir/up.bin")).unwrap();
        uris.extend(["alias.bin", "dirlink/tri%202.bin", "subdir/up.bin"]);
    }
    for uri in uris {
        let (doc, _) = triangle_doc(uri);
        let m = f
            .import("scene.gltf", &doc)
            .unwrap_or_else(|e| panic!("{uri}: {e}"));
        assert_eq!(
            m.meshes[0].primitives[0].positions[1],
            glam::Vec3::X,
            "{uri}"
        );
        assert!(m.warnings.is_empty(), "{uri}: {:?}", m.warnings);
    }
}

#[test]
fn an_asset_root_widens_the_folder() {
    let f = Fixture::new();
    let (_, bin) = triangle_doc("");
    std::fs::create_dir_all(f.assets.join("models")).unwrap();
    std::fs::create_dir_all(f.assets.join("shared")).unwrap();
    std::fs::write(f.assets.join("shared/tri.bin"), &bin).unwrap();
    let (doc, _) = triangle_doc("../shared/tri.bin");
    let path = f.assets.join("models/knight.gltf");
    std::fs::write(&path, serde_json::to_vec(&doc).unwrap()).unwrap();

    // By default the folder is models/.
    let e = throng_gltf::import(&path).unwrap_err();
    expect_unsafe(&e, "buffer 0", "../shared/tri.bin", &P::Escapes);
    // With the root, ../shared is inside.
    let opts = ImportOptions::with_asset_root(&f.assets);
    let m = import_with(&path, &opts).expect("inside the root");
    assert_eq!(m.meshes[0].primitives[0].positions[2], glam::Vec3::Y);
    // The root bounds it still: one more level up is outside.
    let (doc, _) = triangle_doc("../../outside/canary.bin");
    std::fs::write(&path, serde_json::to_vec(&doc).unwrap()).unwrap();
    let e = import_with(&path, &opts).unwrap_err();
    expect_unsafe(&e, "buffer 0", "../../outside/canary.bin", &P::Escapes);
    // A root that does not contain the file's folder is a usage error.
    let opts = ImportOptions::with_asset_root(&f.outside);
    let e = import_with(&path, &opts).unwrap_err();
    assert!(matches!(e.kind, K::AssetRoot { .. }), "{e}");
    assert!(e.to_string().contains("does not contain"), "{e}");
    // Bytes without a folder resolve against the root.
    let (doc, _) = triangle_doc("shared/tri.bin");
    let bytes = serde_json::to_vec(&doc).unwrap();
    let opts = ImportOptions::with_asset_root(&f.assets);
    let m = throng_gltf::import_slice_with(&bytes, None, "mem.gltf", &opts).expect("root");
    assert_eq!(m.meshes[0].primitives[0].positions.len(), 3);
}

#[test]
fn only_regular_files_are_read() {
    let f = Fixture::new();
    let mut cases = vec![
        ("subdir", P::NotRegularFile("folder")),
        ("subdir/", P::NotRegularFile("folder")),
        (".", P::NotRegularFile("folder")),
    ];
    #[cfg(target_os = "linux")]
    {
        let fifo = f.assets.join("pipe.bin");
        let c = std::ffi::CString::new(fifo.display().to_string()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo only creates a file.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        // Opened for reading without a writer, a FIFO would block this test forever.
        cases.push(("pipe.bin", P::NotRegularFile("FIFO (named pipe)")));
        cases.push(("loop1.bin", P::SymlinkLoop(40)));
    }
    for (uri, problem) in cases {
        let e = f.import("scene.gltf", &buffer_doc(uri, 4)).unwrap_err();
        expect_unsafe(&e, "buffer 0", uri, &problem);
        let e = f.import("scene.gltf", &image_doc(uri, true)).unwrap_err();
        expect_unsafe(&e, "image 0", uri, &problem);
    }
}

#[test]
fn reads_are_bounded_by_the_declared_length() {
    let f = Fixture::new();
    let (doc, bin) = triangle_doc("big.bin");
    // A file far longer than its byteLength: only byteLength bytes are used, without warning.
    let mut long = bin.clone();
    long.resize(1 << 20, 0xAB);
    std::fs::write(f.assets.join("big.bin"), &long).unwrap();
    let m = f.import("scene.gltf", &doc).expect("long file");
    assert_eq!(m.meshes[0].primitives[0].positions[1], glam::Vec3::X);
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    // A byteLength of 2^53 - 1 for a 36-byte file: an error, not a 9-petabyte allocation.
    std::fs::write(f.assets.join("big.bin"), &bin).unwrap();
    let e = f
        .import("scene.gltf", &buffer_doc("big.bin", (1u64 << 53) - 1))
        .unwrap_err();
    assert!(
        matches!(e.kind, K::Truncated { needed, available: 36, .. } if needed == (1 << 53) - 1),
        "{e}"
    );
}

#[test]
fn missing_files_name_the_element_and_uri() {
    let f = Fixture::new();
    let e = f
        .import("scene.gltf", &buffer_doc("nope/none.bin", 4))
        .unwrap_err();
    match &e.kind {
        K::MissingExternalFile { element, uri, .. } => {
            assert_eq!(
                (element.as_str(), uri.as_str()),
                ("buffer 0", "nope/none.bin")
            )
        }
        other => panic!("{other:?}"),
    }
    // A very long URI is shortened in the error.
    let long = "a/".repeat(5000) + "x.bin";
    let e = f.import("scene.gltf", &buffer_doc(&long, 4)).unwrap_err();
    match &e.kind {
        K::MissingExternalFile { uri, .. } => {
            assert_eq!(uri.chars().count(), 201);
            assert!(uri.ends_with('…'));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_missing_folder_is_a_missing_file() {
    let bytes = serde_json::to_vec(&buffer_doc("a.bin", 4)).unwrap();
    let e = throng_gltf::import_slice(&bytes, Some(std::path::Path::new("/no/such/dir")), "m")
        .unwrap_err();
    match &e.kind {
        K::MissingExternalFile { reason, .. } => {
            assert!(reason.contains("/no/such/dir"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
    let opts = ImportOptions::with_asset_root("/no/such/root");
    let e = throng_gltf::import_slice_with(&bytes, Some(std::path::Path::new(".")), "m", &opts)
        .unwrap_err();
    assert!(matches!(e.kind, K::AssetRoot { .. }), "{e}");
}

#[test]
fn without_a_folder_only_embedded_data_loads() {
    let e = throng_gltf::import_slice(
        &serde_json::to_vec(&buffer_doc("a.bin", 4)).unwrap(),
        None,
        "mem.gltf",
    )
    .unwrap_err();
    assert!(matches!(e.kind, K::MissingExternalFile { .. }), "{e}");
    // Refused forms are refused before the folder question comes up.
    let e = throng_gltf::import_slice(
        &serde_json::to_vec(&buffer_doc("/etc/passwd", 4)).unwrap(),
        None,
        "mem.gltf",
    )
    .unwrap_err();
    expect_unsafe(&e, "buffer 0", "/etc/passwd", &P::Absolute);
}

#[test]
fn data_uris_are_validated() {
    let cases = [
        ("data:application/octet-stream,AAAA", "not base64"),
        ("data:application/octet-stream;base64", "no ','"),
        (
            "data:application/octet-stream;base64,A!==",
            "not valid base64",
        ),
        (
            "data:application/octet-stream;base64,AAAAA",
            "not valid base64",
        ),
    ];
    for (uri, want) in cases {
        let e = common::import(&serde_json::to_vec(&buffer_doc(uri, 3)).unwrap()).unwrap_err();
        match &e.kind {
            K::BadUri { element, reason } => {
                assert_eq!(element, "buffer 0");
                assert!(reason.contains(want), "{uri}: {reason}");
            }
            other => panic!("{uri}: {other:?}"),
        }
    }
    // Shorter than declared: truncated. Longer: the extra bytes are dropped with a warning.
    let uri = "data:application/octet-stream;base64,AAAA";
    let e = common::import(&serde_json::to_vec(&buffer_doc(uri, 4)).unwrap()).unwrap_err();
    assert!(
        matches!(
            e.kind,
            K::Truncated {
                needed: 4,
                available: 3,
                ..
            }
        ),
        "{e}"
    );
    let m = common::import(&serde_json::to_vec(&buffer_doc(uri, 2)).unwrap()).unwrap();
    assert_eq!(
        m.warnings,
        vec!["buffer 0 holds 1 bytes more than its byteLength 2; they are ignored".to_string()]
    );
}
