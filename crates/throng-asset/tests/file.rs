//! The baked file: round trips, determinism, atomic writes, damaged files, versions, and the
//! Khronos glTF-Validator.

mod common;
mod glb_edit;

use glb_edit::{repack, reseal, split};
use std::path::Path;

use throng_asset::*;

#[test]
fn write_read_round_trip_every_encoding() {
    let dir = common::temp_dir("roundtrip");
    for enc in Encoding::ALL {
        let asset = common::asset(enc);
        let path = dir.join(format!("{}.glb", enc.as_str()));
        write(&asset, &path).expect("write");
        let back = read(&path).expect("read");
        assert_eq!(back, asset, "{}", enc.as_str());
        // Bytes and path readers agree.
        let bytes = std::fs::read(&path).expect("bytes");
        assert_eq!(from_glb_bytes(&bytes, "x").expect("parse"), asset);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The hand-built asset with every optional part empty: no clips, anchors, LODs, and an
/// empty primitive (which gets no static mesh).
fn sparse_asset() -> BakedAsset {
    let mut asset = common::asset(Encoding::Mat4F32);
    asset.anchors = None;
    asset.clips.clear();
    let rows = 1;
    asset.bone_texture = common::encode(Encoding::Mat4F32, &common::frames(3)[..rows], 8192);
    asset.row_bounds.truncate(rows);
    asset.row_bounds[0] = Aabb::EMPTY;
    asset.primitives[0].lods.clear();
    asset.primitives[1].indices.clear();
    asset.primitives[1].positions.clear();
    asset.primitives[1].normals.clear();
    asset.primitives[1].joints.clear();
    asset.primitives[1].weights.clear();
    asset
}

#[test]
fn empty_optional_parts_round_trip() {
    let asset = sparse_asset();
    let bytes = to_glb_bytes(&asset).expect("write");
    assert_eq!(from_glb_bytes(&bytes, "empty").expect("read"), asset);
}

#[test]
fn repeated_writes_are_byte_identical() {
    let dir = common::temp_dir("determinism");
    let asset = common::asset(Encoding::QuatSnorm16);
    let (a, b) = (dir.join("a.glb"), dir.join("b.glb"));
    write(&asset, &a).expect("write a");
    write(&asset, &b).expect("write b");
    let (ba, bb) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    assert_eq!(ba, bb);
    assert_eq!(ba, to_glb_bytes(&asset.clone()).expect("bytes"));
    // Read → write gives the same bytes again.
    assert_eq!(to_glb_bytes(&read(&a).expect("read")).expect("rewrite"), ba);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn file_layout_is_aligned_glb_with_extension_not_required() {
    let bytes = to_glb_bytes(&common::asset(Encoding::QuatSnorm16)).expect("write");
    assert_eq!(&bytes[0..4], b"glTF");
    assert_eq!(bytes.len() % 4, 0);
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let json: serde_json::Value = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
    assert_eq!(
        json["extensionsUsed"],
        serde_json::json!(["KHR_texture_transform", "THRONG_baked_animation"])
    );
    assert!(json.get("extensionsRequired").is_none());
    let ext = &json["extensions"]["THRONG_baked_animation"];
    assert_eq!(ext["version"], FORMAT_VERSION);
    assert_eq!(ext["boneTexture"]["encoding"], "quat-snorm16");
    for v in json["bufferViews"].as_array().unwrap() {
        assert_eq!(v["byteOffset"].as_u64().unwrap() % 16, 0, "{v}");
    }
    // One mesh and one node per primitive, all in scene 0.
    assert_eq!(json["meshes"].as_array().unwrap().len(), 2);
    assert_eq!(json["scenes"][0]["nodes"], serde_json::json!([0, 1]));
}

#[test]
fn static_part_is_the_rest_pose() {
    let asset = common::asset(Encoding::Mat3x4F32);
    let bytes = to_glb_bytes(&asset).expect("write");
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let json: serde_json::Value = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
    let bin = &bytes[20 + json_len + 8..];
    let acc = &json["accessors"][json["meshes"][0]["primitives"][0]["attributes"]["POSITION"]
        .as_u64()
        .unwrap() as usize];
    let view = &json["bufferViews"][acc["bufferView"].as_u64().unwrap() as usize];
    let off = view["byteOffset"].as_u64().unwrap() as usize;
    let rest = decode::skin_positions(&asset, 0, &[], decode::Skinning::Linear).expect("rest pose");
    // Independent: Σ w_i S_j(row 0) p in f64 from the texture's own matrices.
    for (v, p) in asset.primitives[0].positions.iter().enumerate() {
        let mut want = glam::DVec3::ZERO;
        for i in 0..4 {
            let j = asset.primitives[0].joints[v * 4 + i] as u32;
            let w = asset.primitives[0].weights[v * 4 + i] as f64 / 65535.0;
            let m = decode::skin_matrix(&asset.bone_texture, j, 0)
                .unwrap()
                .as_dmat4();
            want += w * m.transform_point3(p.as_dvec3());
        }
        let got: Vec<f32> = (0..3)
            .map(|c| {
                let o = off + v * 12 + c * 4;
                f32::from_le_bytes(bin[o..o + 4].try_into().unwrap())
            })
            .collect();
        let got = glam::Vec3::from_slice(&got);
        assert_eq!(got, rest[v]);
        assert!((got.as_dvec3() - want).length() < 1e-5, "{got} vs {want}");
    }
}

#[test]
fn truncated_files_are_errors_not_panics() {
    let bytes = to_glb_bytes(&common::asset(Encoding::QuatSnorm16)).expect("write");
    let mut cuts: Vec<usize> = (0..bytes.len()).step_by(7).collect();
    cuts.extend([1, 4, 11, 12, 19, 20, 21, bytes.len() - 1]);
    for cut in cuts {
        let err = from_glb_bytes(&bytes[..cut], "cut.glb").expect_err("a cut file must fail");
        let msg = err.to_string();
        assert!(msg.starts_with("cut.glb: "), "{msg}");
    }
}

#[test]
fn flipped_bytes_are_errors() {
    let bytes = to_glb_bytes(&common::asset(Encoding::QuatF32)).expect("write");
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    // Every byte of the JSON chunk, and a sample of the binary chunk.
    let positions = (12..20 + json_len).chain((20 + json_len..bytes.len()).step_by(13));
    for at in positions {
        for bit in [0x01u8, 0x10, 0x80] {
            let mut b = bytes.clone();
            b[at] ^= bit;
            assert!(
                from_glb_bytes(&b, "flip.glb").is_err(),
                "flipping bit {bit:#x} of byte {at} ({:?}) went unnoticed",
                bytes[at] as char
            );
        }
    }
}

fn replace_once(bytes: &[u8], from: &str, to: &str) -> Vec<u8> {
    assert_eq!(from.len(), to.len());
    let at = bytes
        .windows(from.len())
        .position(|w| w == from.as_bytes())
        .expect("pattern in file");
    let mut b = bytes.to_vec();
    b[at..at + to.len()].copy_from_slice(to.as_bytes());
    b
}

#[test]
fn other_versions_are_typed_errors() {
    let bytes = to_glb_bytes(&common::asset(Encoding::QuatSnorm16)).expect("write");
    let key = format!("\"version\":{FORMAT_VERSION},\"minorVersion\"");
    for other in ["4", "0", "9"] {
        let b = replace_once(
            &bytes,
            &key,
            &key.replacen(&FORMAT_VERSION.to_string(), other, 1),
        );
        match from_glb_bytes(&b, "old.glb") {
            Err(e @ AssetError::Version { .. }) => {
                let msg = e.to_string();
                assert!(msg.contains("re-bake"), "{msg}");
                assert!(msg.contains(other), "{msg}");
            }
            other => panic!("expected a version error, got {other:?}"),
        }
    }
}

#[test]
fn frame_time_lists_round_trip_and_drive_the_time_rules() {
    let asset = common::listed_asset(Encoding::QuatF32);
    let back = from_glb_bytes(&to_glb_bytes(&asset).expect("write"), "listed.glb").expect("read");
    assert_eq!(back, asset);
    let walk = &back.clips[0];
    // 0.3125 s lies halfway between frames 2 and 3 (at 0.25 and 0.375 s)
    let s = walk.sample(0.3125);
    assert_eq!(s.row, walk.first_row + 2);
    assert!((s.frac - 0.5).abs() < 1e-6, "{}", s.frac);
    assert_eq!(walk.frame_time(1), 0.03125);
    let table = throng_asset::gpu_clip_table(&back.clips);
    assert_ne!(table.clips[0].times_offset, throng_asset::UNIFORM_FRAMES);
    assert_eq!(table.clips[1].times_offset, throng_asset::UNIFORM_FRAMES);
}

#[test]
fn versions_1_and_2_still_load() {
    // Version 1 is version 2 without frame-time lists, version 2 is version 3 with linear rows
    // only: a uniform linear bake resealed as either reads back equal.
    let asset = common::asset(Encoding::QuatSnorm16);
    assert!(asset.clips.iter().all(|c| c.times.is_none()));
    let bytes = to_glb_bytes(&asset).expect("write");
    let key = format!("\"version\":{FORMAT_VERSION},\"minorVersion\"");
    for old in ["1", "2"] {
        let mut b = replace_once(
            &bytes,
            &key,
            &key.replacen(&FORMAT_VERSION.to_string(), old, 1),
        );
        reseal(&mut b);
        assert_eq!(from_glb_bytes(&b, "old.glb").expect(old), asset);
    }
}

#[test]
fn a_newer_minor_version_is_read_and_edits_need_the_checksum() {
    let asset = common::asset(Encoding::Mat4F32);
    let bytes = to_glb_bytes(&asset).expect("write");
    let current = format!("\"minorVersion\":{}", asset.minor_version());
    let mut b = replace_once(&bytes, &current, "\"minorVersion\":7");
    // Edited without updating the checksum: corruption.
    assert!(matches!(
        from_glb_bytes(&b, "m.glb"),
        Err(AssetError::Corrupt { .. })
    ));
    // Minor versions only add what older readers may ignore: resealed, it reads.
    reseal(&mut b);
    assert_eq!(from_glb_bytes(&b, "m.glb").expect("newer minor"), asset);
    // The resealing above is the writer's own checksum: unchanged bytes reseal to themselves.
    let mut same = bytes.clone();
    reseal(&mut same);
    assert_eq!(same, bytes);
}

#[test]
fn plain_gltf_is_not_a_baked_asset() {
    let bytes = to_glb_bytes(&common::asset(Encoding::QuatSnorm16)).expect("write");
    let mut b = bytes.clone();
    let pat = b"THRONG_baked_animation";
    let mut i = 0;
    while i + pat.len() <= b.len() {
        if &b[i..i + pat.len()] == pat {
            b[i + pat.len() - 1] = b'X';
        }
        i += 1;
    }
    assert!(matches!(
        from_glb_bytes(&b, "plain.glb"),
        Err(AssetError::NotBaked { .. })
    ));
    assert!(matches!(
        from_glb_bytes(b"PK\x03\x04 zip", "z"),
        Err(AssetError::NotGlb { .. })
    ));
}

#[test]
fn writes_are_atomic() {
    let dir = common::temp_dir("atomic");
    let path = dir.join("asset.glb");
    let asset = common::asset(Encoding::QuatSnorm16);
    std::fs::write(&path, b"old contents").unwrap();
    write(&asset, &path).expect("overwrite");
    assert_eq!(read(&path).expect("read"), asset);

    // An invalid asset writes nothing and leaves the old file alone.
    let mut bad = asset.clone();
    bad.primitives[0].indices[0] = 1000;
    let err = write(&bad, &path).expect_err("invalid");
    assert!(err.to_string().contains("indices"), "{err}");
    assert_eq!(read(&path).expect("still readable"), asset);

    // A folder that does not exist is an error, not a partial file.
    let missing = dir.join("no/such/folder/a.glb");
    assert!(matches!(
        write(&asset, &missing),
        Err(AssetError::Write { .. })
    ));
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        names,
        vec![std::ffi::OsString::from("asset.glb")],
        "temp files left behind"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn missing_file_names_the_file() {
    let err = read(Path::new("/nonexistent/x.glb")).expect_err("missing");
    assert!(err.to_string().contains("/nonexistent/x.glb"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// Khronos glTF-Validator (node package), through the workspace's one runner in throng-testdata:
// skipped outside CI when node or the package is missing, a failure under CI.

#[test]
fn khronos_validator_reports_no_errors() {
    let dir = common::temp_dir("validator");
    let mut assets: Vec<(&str, BakedAsset)> = Encoding::ALL
        .iter()
        .map(|e| (e.as_str(), common::asset(*e)))
        .collect();
    assets.push(("sparse", sparse_asset()));
    let mut bare = sparse_asset();
    bare.primitives.clear();
    bare.materials.clear();
    bare.images.clear();
    assets.push(("bare", bare));
    for (name, asset) in assets {
        let path = dir.join(format!("{name}.glb"));
        write(&asset, &path).expect("write");
        let Some(report) = throng_testdata::validate_gltf(&path) else {
            return;
        };
        for m in &report.messages {
            eprintln!("{name}: {m}");
        }
        assert_eq!(report.errors, 0, "{name}: {:#?}", report.messages);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------------
// Structural damage behind a valid checksum: the reader's own checks, not the checksum, must
// catch it. Each case edits the JSON (or BIN) of a good file, repacks and reseals it.

#[test]
fn repacking_an_unchanged_file_reads_back() {
    let asset = common::asset(Encoding::QuatSnorm16);
    let (json, bin) = split(&to_glb_bytes(&asset).unwrap());
    assert_eq!(
        from_glb_bytes(&repack(&json, &bin), "r").expect("repacked"),
        asset
    );
}

#[test]
fn structural_damage_is_a_typed_error() {
    use serde_json::json;
    let asset = common::asset(Encoding::QuatSnorm16);
    let (json, bin) = split(&to_glb_bytes(&asset).unwrap());
    let ext = "/extensions/THRONG_baked_animation";
    let p0 = format!("{ext}/primitives/0");
    let cases: Vec<(String, serde_json::Value)> = vec![
        ("/bufferViews/0/byteOffset".into(), json!(1u64 << 60)),
        ("/bufferViews/0/byteLength".into(), json!(u64::MAX)),
        ("/bufferViews/1/byteLength".into(), json!(bin.len() + 1)),
        ("/bufferViews/2/buffer".into(), json!(3)),
        (format!("{ext}/version"), json!("1")),
        (format!("{ext}/boneTexture/rows"), json!(10)),
        (format!("{ext}/boneTexture/rows"), json!(u32::MAX)),
        (format!("{ext}/boneTexture/entries"), json!(4)),
        (format!("{ext}/boneTexture/width"), json!(7)),
        (format!("{ext}/boneTexture/rowsPerLayer"), json!(0)),
        (format!("{ext}/boneTexture/encoding"), json!("quat-snorm8")),
        (format!("{ext}/boneTexture/bufferView"), json!(999)),
        (format!("{ext}/boneTexture/bufferView"), json!(null)),
        (format!("{ext}/rowBounds"), json!(2)),
        (format!("{p0}/vertexCount"), json!(9)),
        (format!("{p0}/vertexCount"), json!(u64::MAX)),
        (format!("{p0}/indexCount"), json!(35)),
        (format!("{p0}/influences"), json!(0)),
        (format!("{p0}/influences"), json!(2)),
        (format!("{p0}/positions"), json!(999)),
        (format!("{p0}/material"), json!(9)),
        (format!("{p0}/lods/0/indexCount"), json!(17)),
        (format!("{ext}/clips/0/firstRow"), json!(0)),
        (format!("{ext}/clips/0/frames"), json!(1000)),
        (format!("{ext}/clips/1/firstRow"), json!(u32::MAX)),
        (
            format!("{ext}/clips/0/rootMotion"),
            json!([[0.0, 0.0, 0.0]]),
        ),
        (format!("{ext}/clips/0/loop"), json!("forever")),
        (format!("{ext}/anchors/rows"), json!(3)),
        (format!("{ext}/palette"), json!([])),
        (
            "/materials/0/pbrMetallicRoughness/baseColorTexture/index".into(),
            json!(5),
        ),
        ("/textures/0/source".into(), json!(null)),
        ("/images/0/bufferView".into(), json!(null)),
        ("/images/0/bufferView".into(), json!(-1)),
    ];
    for (pointer, value) in cases {
        let mut j = json.clone();
        *j.pointer_mut(&pointer)
            .unwrap_or_else(|| panic!("{pointer}")) = value.clone();
        match from_glb_bytes(&repack(&j, &bin), "damaged.glb") {
            Ok(_) => panic!("{pointer} = {value} was accepted"),
            Err(e) => {
                let msg = e.to_string();
                assert!(msg.starts_with("damaged.glb: "), "{msg}");
                assert!(
                    !matches!(e, AssetError::Corrupt { ref element, .. } if element.ends_with("checksum")),
                    "{pointer}: resealed file failed the checksum: {msg}"
                );
            }
        }
    }
}

#[test]
fn damaged_streams_are_typed_errors() {
    let asset = common::asset(Encoding::Mat3x4F32);
    let (json, bin) = split(&to_glb_bytes(&asset).unwrap());
    let ext = &json["extensions"]["THRONG_baked_animation"];
    let view = |i: &serde_json::Value| {
        let v = &json["bufferViews"][i.as_u64().unwrap() as usize];
        v["byteOffset"].as_u64().unwrap() as usize
    };
    // A joint index past the palette, and an index past the vertices.
    for (key, bytes) in [
        ("joints", vec![0xff, 0x00]),
        ("indices", vec![0x40, 0, 0, 0]),
    ] {
        let at = view(&ext["primitives"][0][key]);
        let mut b = bin.clone();
        b[at..at + bytes.len()].copy_from_slice(&bytes);
        match from_glb_bytes(&repack(&json, &b), "s.glb") {
            Err(AssetError::Invalid { element, .. }) => assert!(element.contains(key), "{element}"),
            other => panic!("{key}: expected Invalid, got {other:?}"),
        }
    }
}

#[test]
fn random_damage_behind_a_valid_checksum_never_panics() {
    let bytes = to_glb_bytes(&common::asset(Encoding::QuatSnorm16)).unwrap();
    let (json, bin) = split(&bytes);
    let text = serde_json::to_vec(&json).unwrap();
    let mut rng = common::Rng(5);
    let (mut ok, mut err) = (0, 0);
    for _ in 0..3000 {
        // Damage the JSON text (if it still parses) or the binary chunk, then reseal.
        let mut j = json.clone();
        let mut b = bin.clone();
        if rng.next_u64().is_multiple_of(2) {
            let mut t = text.clone();
            let at = (rng.next_u64() as usize) % t.len();
            t[at] = b"0123456789-.e,[]{}\"x"[(rng.next_u64() % 20) as usize];
            match serde_json::from_slice(&t) {
                Ok(v) => j = v,
                Err(_) => continue,
            }
        } else {
            for _ in 0..4 {
                let at = (rng.next_u64() as usize) % b.len();
                b[at] = rng.next_u64() as u8;
            }
        }
        match from_glb_bytes(&repack(&j, &b), "fuzz.glb") {
            Ok(_) => ok += 1,
            Err(_) => err += 1,
        }
    }
    eprintln!("random damage: {ok} read, {err} rejected");
    assert!(err > 0);
}

#[test]
fn numbers_round_trip_bit_exactly() {
    // serde_json parses floats exactly only with its `float_roundtrip` feature; Fox's clip
    // durations were off by one ulp without it.
    let mut asset = common::asset(Encoding::QuatF32);
    let mut rng = common::Rng(17);
    for k in 0..200 {
        let d = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 10.0;
        let mut c = asset.clips[1].clone();
        c.name = format!("clip{k}");
        c.duration = d;
        c.step = d / 2.0;
        c.fps = 1.0 / (d + 1e-3);
        c.events = vec![ClipEvent {
            time: rng.range(0.0, 3.0),
            name: String::new(),
        }];
        asset.clips.push(c);
    }
    for p in &mut asset.palette {
        p.inverse_bind_matrix = rng.similarity();
    }
    asset.clips[0].duration = 1.1583333015441895;
    // The reader checks step = duration / (frames − 1).
    asset.clips[0].step = asset.clips[0].duration / (asset.clips[0].frames - 1) as f64;
    let back = from_glb_bytes(&to_glb_bytes(&asset).unwrap(), "n").unwrap();
    for (a, b) in back.clips.iter().zip(&asset.clips) {
        assert_eq!(a.duration.to_bits(), b.duration.to_bits(), "{}", b.duration);
        assert_eq!(a.fps.to_bits(), b.fps.to_bits());
    }
    assert_eq!(back, asset);
}

/// Row interpolation that does not fit the clip's frames is refused, naming the clip
/// (docs/format.md "clips"): pieces that do not tile the gaps, Catmull-Rom on listed frames, a
/// degree without pieces; pieces that tile them read back.
#[test]
fn row_interpolation_must_fit_the_frames() {
    use throng_asset::RowInterpolation;
    let good = {
        let mut a = common::asset(Encoding::QuatSnorm16);
        // Idle: 3 frames, one degree-2 piece.
        a.clips[1].interpolation = RowInterpolation::Pieces;
        a.clips[1].degree = 2;
        a
    };
    let back = from_glb_bytes(&to_glb_bytes(&good).expect("write"), "pieces.glb").expect("read");
    assert_eq!(back, good);
    let bad: [(usize, RowInterpolation, u8); 3] = [
        // Walk: 5 frames, 4 gaps, no whole degree-3 pieces.
        (0, RowInterpolation::Pieces, 3),
        (0, RowInterpolation::Pieces, 4),
        (0, RowInterpolation::Linear, 2),
    ];
    for (clip, interpolation, degree) in bad {
        let mut a = common::asset(Encoding::QuatSnorm16);
        a.clips[clip].interpolation = interpolation;
        a.clips[clip].degree = degree;
        let err = match to_glb_bytes(&a) {
            Err(e) => e.to_string(),
            Ok(b) => from_glb_bytes(&b, "bad.glb")
                .expect_err("refused")
                .to_string(),
        };
        assert!(err.contains("interpolation"), "{err}");
        assert!(err.contains("Walk"), "{err}");
    }
}
