//! The bad baked-file corpus (docs/design.md §6 "a baked file is cross-checked on load"): every
//! field the decoders and the renderer trust, corrupted behind a valid checksum, is an
//! `AssetError` that names the field; declared sizes far beyond the file fail before anything
//! is allocated; GLB container lengths that lie, and cuts at every offset, are typed errors.

mod common;
mod glb_edit;

use glb_edit::{edit, repack, split, view_offset};
use serde_json::{json, Value};
use throng_asset::*;

const EXT: &str = "/extensions/THRONG_baked_animation";

fn p(path: &str) -> String {
    format!("{EXT}{path}")
}

/// The asset of tests/common with a vertex animation texture on primitive 0.
fn with_vat(mut asset: BakedAsset) -> BakedAsset {
    let rows = asset.bone_texture.rows;
    let v = asset.primitives[0].vertex_count() as u32;
    let mut positions = Vec::new();
    for f in 0..rows {
        for i in 0..v {
            for x in [i as f32 * 0.1, f as f32 * 0.01, 0.5, 1.0] {
                positions.extend_from_slice(&x.to_le_bytes());
            }
        }
    }
    asset.primitives[0].vat = Some(Vat {
        encoding: VatEncoding::F32,
        width: v,
        vertices: v,
        rows,
        rows_per_layer: asset.settings.max_texture_size,
        min: glam::Vec3::ZERO,
        max: glam::Vec3::new(1.0, 1.0, 1.0),
        positions,
        normals: vec![0; (rows * v * 2) as usize],
    });
    asset
}

/// What reading a file must give: an error of that kind whose element contains the text.
#[derive(Clone)]
enum Want {
    Invalid(String),
    Corrupt(String),
    /// A schema error (`AssetError::Json`).
    Json,
    Ok,
}

fn invalid(field: impl Into<String>) -> Want {
    Want::Invalid(field.into())
}

fn corrupt(field: impl Into<String>) -> Want {
    Want::Corrupt(field.into())
}

fn check(case: &str, bytes: &[u8], want: Want) {
    let result = from_glb_bytes(bytes, "bad.glb");
    let (element, field, msg) = match (&result, &want) {
        (Ok(_), Want::Ok) | (Err(AssetError::Json { .. }), Want::Json) => return,
        (Err(e @ AssetError::Invalid { element, .. }), Want::Invalid(f))
        | (Err(e @ AssetError::Corrupt { element, .. }), Want::Corrupt(f)) => {
            (element, f.as_str(), e.to_string())
        }
        (Err(e), _) => panic!("{case}: wrong error: {e}"),
        (Ok(_), _) => panic!("{case}: accepted"),
    };
    assert!(
        element.contains(field),
        "{case}: element {element:?}, want {field:?}"
    );
    assert!(msg.starts_with("bad.glb: "), "{case}: {msg}");
    assert!(!element.ends_with("checksum"), "{case}: the reseal failed");
}

/// Applies each case's JSON edits to the file of `asset` and checks the result.
/// A named list of JSON edits and what reading the edited file must give.
type Case<'a> = (&'a str, Vec<(String, Value)>, Want);

fn run_json_cases(asset: &BakedAsset, cases: Vec<Case>) {
    let (json, bin) = split(&to_glb_bytes(asset).unwrap());
    for (case, edits, want) in cases {
        check(case, &repack(&edit(&json, &edits), &bin), want);
    }
}

#[test]
fn an_unchanged_file_reads_back() {
    for asset in [
        common::asset(Encoding::QuatSnorm16),
        with_vat(common::asset(Encoding::QuatF32)),
    ] {
        let (json, bin) = split(&to_glb_bytes(&asset).unwrap());
        assert_eq!(
            from_glb_bytes(&repack(&json, &bin), "ok.glb").unwrap(),
            asset
        );
    }
}

#[test]
fn clip_timing() {
    let walk = common::asset(Encoding::QuatSnorm16).clips[0].clone();
    let (d, step) = (walk.duration, walk.step);
    let fps = "clips[0] (\"Walk\").fps";
    let st = "clips[0] (\"Walk\").step";
    let du = "clips[0] (\"Walk\").duration";
    let cases = vec![
        ("fps 0", vec![(p("/clips/0/fps"), json!(0.0))], invalid(fps)),
        (
            "fps 1e308",
            vec![(p("/clips/0/fps"), json!(1e308))],
            invalid(fps),
        ),
        (
            "fps -30",
            vec![(p("/clips/0/fps"), json!(-30.0))],
            invalid(fps),
        ),
        (
            "fps 2e6",
            vec![(p("/clips/0/fps"), json!(2e6))],
            invalid(fps),
        ),
        ("fps 1e6", vec![(p("/clips/0/fps"), json!(1e6))], Want::Ok),
        // below one frame in the longest clip: no bake writes it (issue 52)
        (
            "fps 1e-300",
            vec![(p("/clips/0/fps"), json!(1e-300))],
            invalid(fps),
        ),
        (
            "fps 1e-7",
            vec![(p("/clips/0/fps"), json!(1e-7))],
            invalid(fps),
        ),
        ("fps 1e-6", vec![(p("/clips/0/fps"), json!(1e-6))], Want::Ok),
        (
            "step 0",
            vec![(p("/clips/0/step"), json!(0.0))],
            invalid(st),
        ),
        (
            "step 1e308",
            vec![(p("/clips/0/step"), json!(1e308))],
            invalid(st),
        ),
        (
            "step negative",
            vec![(p("/clips/0/step"), json!(-step))],
            invalid(st),
        ),
        (
            "duration 0",
            vec![(p("/clips/0/duration"), json!(0.0))],
            invalid(du),
        ),
        (
            "duration 1e308",
            vec![
                (p("/clips/0/duration"), json!(1e308)),
                (p("/clips/0/step"), json!(1e308 / 4.0)),
            ],
            invalid(du),
        ),
        (
            "duration -1",
            vec![(p("/clips/0/duration"), json!(-1.0))],
            invalid(du),
        ),
        (
            "duration doubled",
            vec![(p("/clips/0/duration"), json!(2.0 * d))],
            invalid(st),
        ),
        (
            "duration and step doubled",
            vec![
                (p("/clips/0/duration"), json!(2.0 * d)),
                (p("/clips/0/step"), json!(2.0 * step)),
            ],
            Want::Ok,
        ),
        (
            "one frame fewer",
            vec![(p("/clips/0/frames"), json!(4))],
            invalid(st),
        ),
        (
            "one-frame clip with a step",
            vec![(p("/clips/1/frames"), json!(1))],
            invalid("clips[1] (\"Idle\").step"),
        ),
    ];
    run_json_cases(&common::asset(Encoding::QuatSnorm16), cases);
}

#[test]
fn frame_times() {
    let asset = common::listed_asset(Encoding::QuatSnorm16);
    let d = asset.clips[0].duration as f32;
    let t = "clips[0] (\"Walk\").times";
    let cases = vec![
        ("as written", vec![], Want::Ok),
        (
            "one time short",
            vec![(p("/clips/0/times"), json!([0.0, 0.25, 0.375, d]))],
            invalid(t),
        ),
        (
            "not starting at 0",
            vec![(p("/clips/0/times"), json!([0.01, 0.03125, 0.25, 0.375, d]))],
            invalid(t),
        ),
        (
            "not ending at the duration",
            vec![(p("/clips/0/times"), json!([0.0, 0.03125, 0.25, 0.375, 0.5]))],
            invalid(t),
        ),
        (
            "going back",
            vec![(p("/clips/0/times"), json!([0.0, 0.25, 0.03125, 0.375, d]))],
            invalid("clips[0] (\"Walk\").times[2]"),
        ),
        (
            "a repeated time",
            vec![(p("/clips/0/times"), json!([0.0, 0.25, 0.25, 0.375, d]))],
            invalid("clips[0] (\"Walk\").times[2]"),
        ),
        (
            "not numbers",
            vec![(p("/clips/0/times"), json!([0.0, "x", 0.25, 0.375, d]))],
            Want::Json,
        ),
    ];
    run_json_cases(&asset, cases);
}

#[test]
fn clip_rows() {
    let cases = vec![
        (
            "Idle starts inside Walk",
            vec![(p("/clips/1/firstRow"), json!(5))],
            invalid("clips[1] (\"Idle\")"),
        ),
        (
            "Walk runs into Idle",
            vec![
                (p("/clips/0/frames"), json!(6)),
                (p("/clips/0/step"), json!(0.5333333333333333 / 5.0)),
                (p("/clips/0/rootMotion"), Value::Null),
            ],
            invalid("clips[1] (\"Idle\")"),
        ),
        (
            "Walk starts inside Idle",
            vec![(p("/clips/1/firstRow"), json!(1))],
            invalid("clips[0] (\"Walk\")"),
        ),
        (
            "past the table",
            vec![(p("/clips/1/firstRow"), json!(8))],
            invalid("clips[1] (\"Idle\")"),
        ),
        (
            "2^32 - 1 frames",
            vec![(p("/clips/1/frames"), json!(u32::MAX))],
            invalid("clips[1] (\"Idle\")"),
        ),
        // The same rows under another name: an alias, allowed.
        (
            "an alias of Idle",
            vec![
                (p("/clips/0/firstRow"), json!(6)),
                (p("/clips/0/frames"), json!(3)),
                (p("/clips/0/step"), json!(0.5333333333333333 / 2.0)),
                (p("/clips/0/rootMotion"), Value::Null),
            ],
            Want::Ok,
        ),
    ];
    run_json_cases(&common::asset(Encoding::QuatSnorm16), cases);
}

#[test]
fn snorm_ranges() {
    let tr = "boneTexture.translationRange";
    let sr = "boneTexture.scaleRange";
    let mut cases = Vec::new();
    for (key, field) in [("translationRange", tr), ("scaleRange", sr)] {
        for v in [-1.0, -1e38, 1e38, 1e13, -0.0001] {
            cases.push((
                "bad range",
                vec![(p(&format!("/boneTexture/{key}")), json!(v))],
                invalid(field),
            ));
        }
        // 0 decodes to 0 (docs/format.md); the largest allowed range reads.
        cases.push((
            "range 0",
            vec![(p(&format!("/boneTexture/{key}")), json!(0.0))],
            Want::Ok,
        ));
        cases.push((
            "range 1e12",
            vec![(p(&format!("/boneTexture/{key}")), json!(1e12))],
            Want::Ok,
        ));
    }
    run_json_cases(&common::asset(Encoding::QuatSnorm16), cases);
}

#[test]
fn rows_per_layer() {
    let rpl = "boneTexture.rowsPerLayer";
    let layers = |r: u32, l: u32| {
        vec![
            (p("/boneTexture/rowsPerLayer"), json!(r)),
            (p("/boneTexture/layers"), json!(l)),
        ]
    };
    let mut huge = layers(u32::MAX, 1);
    huge.push((p("/settings/maxTextureSize"), json!(u32::MAX)));
    let cases = vec![
        ("0", layers(0, 1), corrupt(rpl)),
        ("2^32 - 1", layers(u32::MAX, 1), invalid(rpl)),
        ("2^32 - 1, also the texture size", huge, invalid(rpl)),
        ("more than the rows", layers(10, 1), invalid(rpl)),
        (
            "the texture size, as the baker writes it",
            layers(8192, 1),
            Want::Ok,
        ),
        ("all rows in one layer", layers(9, 1), Want::Ok),
        (
            "layers disagree",
            layers(4, 9),
            corrupt("boneTexture.layers"),
        ),
    ];
    run_json_cases(&common::asset(Encoding::QuatSnorm16), cases);
    let vat = "primitives[0] (node 4, mesh 0, primitive 0).vat.rowsPerLayer";
    let vat_layers = |r: u32, l: u32| {
        vec![
            (p("/primitives/0/vat/rowsPerLayer"), json!(r)),
            (p("/primitives/0/vat/layers"), json!(l)),
        ]
    };
    let cases = vec![
        ("VAT 2^32 - 1", vat_layers(u32::MAX, 1), invalid(vat)),
        ("VAT more than its rows", vat_layers(10, 1), invalid(vat)),
        ("VAT 0", vat_layers(0, 1), corrupt("primitives[0].vat")),
    ];
    run_json_cases(&with_vat(common::asset(Encoding::QuatSnorm16)), cases);
}

#[test]
fn indices_and_bounds() {
    let cases = vec![
        (
            "staticMesh 9999",
            vec![(p("/primitives/0/staticMesh"), json!(9999))],
            corrupt("primitives[0].staticMesh"),
        ),
        (
            "staticMesh one past",
            vec![(p("/primitives/1/staticMesh"), json!(2))],
            corrupt("primitives[1].staticMesh"),
        ),
        (
            "clip bounds min > max on x",
            vec![(
                p("/clips/0/bounds"),
                json!({"min": [1, 0, 0], "max": [0, 1, 1]}),
            )],
            invalid("clips[0] (\"Walk\").bounds"),
        ),
        (
            "clip bounds min > max on z",
            vec![(
                p("/clips/0/bounds"),
                json!({"min": [0, 0, 2], "max": [1, 1, 1]}),
            )],
            invalid("clips[0] (\"Walk\").bounds"),
        ),
        (
            "flat clip bounds",
            vec![(
                p("/clips/0/bounds"),
                json!({"min": [0, 0, 0], "max": [0, 0, 0]}),
            )],
            Want::Ok,
        ),
    ];
    run_json_cases(&common::asset(Encoding::QuatSnorm16), cases);
    let cases = vec![(
        "VAT min > max",
        vec![(p("/primitives/0/vat/min"), json!([0, 2, 0]))],
        invalid("vat.min/max"),
    )];
    run_json_cases(&with_vat(common::asset(Encoding::QuatSnorm16)), cases);
}

#[test]
fn buffers_and_views() {
    let asset = common::asset(Encoding::QuatSnorm16);
    let (json, bin) = split(&to_glb_bytes(&asset).unwrap());
    let declared = json["buffers"][0]["byteLength"].as_u64().unwrap();
    let bl = "buffers[0].byteLength";
    let mut cases = vec![
        (
            "byteLength + 4",
            vec![("/buffers/0/byteLength".to_string(), json!(declared + 4))],
            corrupt(bl),
        ),
        (
            "byteLength - 16",
            vec![("/buffers/0/byteLength".into(), json!(declared - 16))],
            corrupt(bl),
        ),
        (
            "byteLength 0",
            vec![("/buffers/0/byteLength".into(), json!(0))],
            corrupt(bl),
        ),
        (
            "no buffer",
            vec![("/buffers".into(), json!([]))],
            corrupt("buffers"),
        ),
        (
            "two buffers",
            vec![(
                "/buffers".into(),
                json!([{"byteLength": declared}, {"byteLength": 4}]),
            )],
            corrupt("buffers"),
        ),
    ];
    // Every view moved off its 16-byte boundary.
    let views = json["bufferViews"].as_array().unwrap().len();
    for i in 0..views {
        let off = json["bufferViews"][i]["byteOffset"].as_u64().unwrap();
        let field = format!("bufferViews[{i}].byteOffset");
        cases.push((
            "misaligned view",
            vec![(format!("/bufferViews/{i}/byteOffset"), json!(off + 4))],
            corrupt(field),
        ));
    }
    for (case, edits, want) in cases {
        check(case, &repack(&edit(&json, &edits), &bin), want);
    }
    // The BIN chunk may be up to 3 bytes longer than byteLength, no more.
    for extra in [4usize, 16] {
        let mut b = bin.clone();
        b.resize(bin.len() + extra, 0);
        check("a longer BIN chunk", &repack(&json, &b), corrupt(bl));
    }
}

#[test]
fn declared_sizes_beyond_the_file_fail_before_allocating() {
    // Each of these would ask for terabytes if a count were trusted before the check.
    let big = 1u64 << 40;
    let cases = vec![
        // The first stream read with the vertex count is the tangents.
        (
            "vertexCount",
            vec![(p("/primitives/0/vertexCount"), json!(big))],
            corrupt("primitives[0].tangents"),
        ),
        (
            "indexCount",
            vec![(p("/primitives/0/indexCount"), json!(big))],
            corrupt("primitives[0].indices"),
        ),
        (
            "LOD indexCount",
            vec![(p("/primitives/0/lods/0/indexCount"), json!(big))],
            corrupt("primitives[0].lods[0].indices"),
        ),
        (
            "anchor rows",
            vec![(p("/anchors/rows"), json!(u32::MAX))],
            corrupt("anchors.bufferView"),
        ),
        (
            "texture rows",
            vec![(p("/boneTexture/rows"), json!(u32::MAX))],
            corrupt("boneTexture.bufferView"),
        ),
        (
            "texture entries",
            vec![
                (p("/boneTexture/entries"), json!(u32::MAX / 2)),
                (p("/boneTexture/width"), json!(u32::MAX - 1)),
            ],
            corrupt("boneTexture.bufferView"),
        ),
    ];
    run_json_cases(&common::asset(Encoding::QuatSnorm16), cases);
    let cases = vec![(
        "VAT rows",
        vec![
            (p("/primitives/0/vat/rows"), json!(u32::MAX)),
            (p("/primitives/0/vat/layers"), json!(524288)),
        ],
        corrupt("primitives[0].vat"),
    )];
    run_json_cases(&with_vat(common::asset(Encoding::QuatSnorm16)), cases);
}

/// Overwrites 4 bytes at `at` of the BIN chunk of `asset`'s file and reads it back.
fn check_bin(
    case: &str,
    asset: &BakedAsset,
    locate: impl Fn(&Value) -> usize,
    bytes: &[u8],
    want: Want,
) {
    let (json, mut bin) = split(&to_glb_bytes(asset).unwrap());
    let at = locate(&json);
    bin[at..at + bytes.len()].copy_from_slice(bytes);
    check(case, &repack(&json, &bin), want);
}

#[test]
fn non_finite_and_absurd_binary_values() {
    let asset = common::asset(Encoding::QuatF32);
    let prim = "primitives[0] (node 4, mesh 0, primitive 0)";
    let ext = |j: &Value| j["extensions"]["THRONG_baked_animation"].clone();
    // What skinning multiplies must also stay within 1e12 in magnitude; the rest only finite.
    let multiplied = ["positions", "normals", "tangents"];
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1e13, -1e38] {
        let absurd_only = bad.is_finite();
        for key in ["positions", "normals", "tangents", "uv0"] {
            let want = if absurd_only && !multiplied.contains(&key) {
                Want::Ok
            } else {
                invalid(format!("{prim}.{key}"))
            };
            check_bin(
                key,
                &asset,
                |j| view_offset(j, &ext(j)["primitives"][0][key]) + 4,
                &bad.to_le_bytes(),
                want,
            );
        }
        // A texel of row 2 of an f32 bone texture.
        let row2 = 2 * common::ENTRIES * 32;
        check_bin(
            "f32 texel",
            &asset,
            |j| view_offset(j, &ext(j)["boneTexture"]["bufferView"]) + row2,
            &bad.to_le_bytes(),
            invalid("boneTexture data"),
        );
        let vat = with_vat(common::asset(Encoding::QuatSnorm16));
        check_bin(
            "VAT position",
            &vat,
            |j| view_offset(j, &ext(j)["primitives"][0]["vat"]["positions"]) + 100,
            &bad.to_le_bytes(),
            invalid("vat.positions"),
        );
        if absurd_only {
            continue;
        }
        // Row 3's box; its min.x.
        check_bin(
            "row bounds",
            &asset,
            |j| view_offset(j, &ext(j)["rowBounds"]) + 3 * 24,
            &bad.to_le_bytes(),
            invalid("rowBounds[3]"),
        );
        check_bin(
            "anchors",
            &asset,
            |j| view_offset(j, &ext(j)["anchors"]["bufferView"]) + 40,
            &bad.to_le_bytes(),
            invalid("anchors data"),
        );
    }
    // A finite box with min above max on x.
    check_bin(
        "inverted row box",
        &asset,
        |j| view_offset(j, &ext(j)["rowBounds"]) + 2 * 24,
        &1e30f32.to_le_bytes(),
        invalid("rowBounds[2]"),
    );
    // f16 infinity and NaN in a mat3x4-f16 texture.
    let f16 = common::asset(Encoding::Mat3x4F16);
    for bits in [0x7C00u16, 0xFC00, 0x7E00] {
        check_bin(
            "f16 texel",
            &f16,
            |j| view_offset(j, &ext(j)["boneTexture"]["bufferView"]) + 6,
            &bits.to_le_bytes(),
            invalid("boneTexture data"),
        );
    }
    // VAT range beyond 1e12.
    let cases = vec![(
        "VAT max 1e13",
        vec![(p("/primitives/0/vat/max"), json!([1e13, 1, 1]))],
        invalid("vat"),
    )];
    run_json_cases(&with_vat(common::asset(Encoding::QuatSnorm16)), cases);
}

#[test]
fn cut_at_every_offset_and_lying_container_lengths() {
    let bytes = to_glb_bytes(&common::asset(Encoding::QuatSnorm16)).unwrap();
    for cut in 0..bytes.len() {
        match from_glb_bytes(&bytes[..cut], "cut.glb") {
            Err(AssetError::NotGlb { .. } | AssetError::Corrupt { .. }) => {}
            other => panic!("cut at {cut}: {other:?}"),
        }
    }
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap());
    let put = |at: usize, v: u32| {
        let mut b = bytes.clone();
        b[at..at + 4].copy_from_slice(&v.to_le_bytes());
        b
    };
    let bin_at = 20 + json_len as usize;
    for (case, b, field) in [
        (
            "total length + 4",
            put(8, bytes.len() as u32 + 4),
            "GLB header",
        ),
        (
            "total length - 4",
            put(8, bytes.len() as u32 - 4),
            "GLB header",
        ),
        (
            "JSON chunk past the end",
            put(12, bytes.len() as u32),
            "JSON chunk",
        ),
        ("JSON chunk of 2^32 - 1", put(12, u32::MAX), "JSON chunk"),
        ("BIN chunk past the end", put(bin_at, u32::MAX), "BIN chunk"),
        ("BIN chunk type", put(bin_at + 4, 0x1234_5678), "BIN chunk"),
    ] {
        match from_glb_bytes(&b, "lie.glb") {
            Err(AssetError::Corrupt { element, .. }) => assert_eq!(element, field, "{case}"),
            other => panic!("{case}: {other:?}"),
        }
    }
}

/// The asset of tests/common with a small far tier: 2 × 2 texel tiles, 3 azimuths at one
/// elevation, 2 frames per clip.
fn with_far_tier(mut asset: BakedAsset) -> BakedAsset {
    let clips: Vec<FarClip> = (0..asset.clips.len() as u32)
        .map(|c| FarClip {
            first_frame: 2 * c,
            frames: 2,
        })
        .collect();
    let texels = clips.len() * 2 * 3 * 4;
    asset.far_tier = Some(Box::new(FarTier {
        tile: 2,
        azimuths: 3,
        elevations: vec![0.5],
        centre: glam::Vec3::ZERO,
        radius: 1.0,
        clips,
        colour: (0..texels * 4).map(|i| i as u8).collect(),
        surface: (0..texels * 4).map(|i| (i * 7) as u8).collect(),
        variant_colours: Vec::new(),
    }));
    asset
}

/// [`with_far_tier`] with one material variant (every primitive in its own material) and the
/// tier's colour map of each primitive in it.
fn with_far_variant(asset: BakedAsset) -> BakedAsset {
    let mut asset = with_far_tier(asset);
    let prims = asset.primitives.len();
    asset.variants.push(throng_asset::MaterialVariant {
        name: "v".into(),
        materials: vec![None; prims],
    });
    let map = throng_asset::FarVariantColour(throng_contract::Affine3x4 {
        rows: [
            [0.5, 0.0, 0.0, 0.1],
            [0.0, 1.0, 0.0, 0.0],
            [0.25, 0.0, 1.0, 0.0],
        ],
    });
    if let Some(t) = asset.far_tier.as_mut() {
        t.variant_colours = vec![vec![map; prims.min(255)]];
    }
    asset
}

/// The far tier's colour maps (minor version 4) read back; a view of the wrong size, or one
/// holding a NaN, is refused naming `farTier.variantColours`; a file without them reads as
/// before (cards show the own colours).
#[test]
fn far_tier_variant_colours() {
    let asset = with_far_variant(common::asset(Encoding::QuatSnorm16));
    assert_eq!(asset.minor_version(), 4);
    let bytes = to_glb_bytes(&asset).unwrap();
    let (json, bin) = split(&bytes);
    assert_eq!(
        from_glb_bytes(&repack(&json, &bin), "ok.glb").unwrap(),
        asset
    );
    let colour_view = json["extensions"]["THRONG_baked_animation"]["farTier"]["colour"].clone();
    run_json_cases(
        &asset,
        vec![(
            "colour maps of the wrong size",
            vec![(p("/farTier/variantColours"), colour_view)],
            corrupt("farTier.variantColours"),
        )],
    );
    // Without the key: no maps.
    let mut plain = json.clone();
    plain["extensions"]["THRONG_baked_animation"]["farTier"]
        .as_object_mut()
        .unwrap()
        .remove("variantColours");
    let read = from_glb_bytes(&repack(&plain, &bin), "old.glb").unwrap();
    assert!(read.far_tier.unwrap().variant_colours.is_empty());
    // A NaN in the maps' bytes.
    let view = json["extensions"]["THRONG_baked_animation"]["farTier"]["variantColours"]
        .as_u64()
        .unwrap() as usize;
    let at = json["bufferViews"][view]["byteOffset"].as_u64().unwrap() as usize;
    let mut bad = bin.clone();
    bad[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    match from_glb_bytes(&repack(&json, &bad), "nan.glb") {
        Err(e) => assert!(e.to_string().contains("farTier.variantColours"), "{e}"),
        Ok(_) => panic!("a NaN in the colour maps was read"),
    }
}

/// A far tier whose layout lies about its pictures, or cannot be shown, is refused before its
/// texels are copied; an intact one reads back.
#[test]
fn far_tier_layouts() {
    let asset = with_far_tier(common::asset(Encoding::QuatSnorm16));
    let (json, bin) = split(&to_glb_bytes(&asset).unwrap());
    assert_eq!(
        from_glb_bytes(&repack(&json, &bin), "ok.glb").unwrap(),
        asset
    );
    let cases = vec![
        (
            "tile far larger than the pictures",
            vec![(p("/farTier/tile"), json!(200))],
            corrupt("farTier.colour"),
        ),
        (
            "tile past the limit",
            vec![(p("/farTier/tile"), json!(u32::MAX))],
            corrupt("farTier"),
        ),
        (
            "azimuths past the pictures",
            vec![(p("/farTier/azimuths"), json!(u32::MAX))],
            corrupt("farTier"),
        ),
        (
            "frames not contiguous",
            vec![(p("/farTier/clips/0/firstFrame"), json!(1))],
            corrupt("farTier"),
        ),
        (
            "a clip with no frames",
            vec![(p("/farTier/clips/0/frames"), json!(0))],
            corrupt("farTier"),
        ),
        (
            "a clip missing",
            vec![(p("/farTier/clips"), json!([]))],
            corrupt("farTier"),
        ),
        (
            "elevations not increasing",
            vec![(p("/farTier/elevations"), json!([0.5, 0.2]))],
            corrupt("farTier"),
        ),
        (
            "radius not positive",
            vec![(p("/farTier/radius"), json!(-1.0))],
            corrupt("farTier"),
        ),
        (
            "no elevations",
            vec![(p("/farTier/elevations"), json!([]))],
            corrupt("farTier"),
        ),
    ];
    run_json_cases(&asset, cases);
}
