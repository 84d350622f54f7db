//! The bad-input corpus, generated here from one complete small document (a skinned, animated,
//! textured triangle) and from real assets: truncations at every offset, lying lengths and
//! counts, NaN and infinities in every float accessor and JSON number, cycles, out-of-range
//! indices and the cases of docs/design.md §6. Each must give its typed error, or import with the
//! documented warning (a repair). Path-escaping URIs are in tests/uri.rs and tests/canary.rs.

mod common;

use common::{import, pack_glb, Doc};
use std::f32::consts::FRAC_1_SQRT_2;

use serde_json::{json, Value};
use throng_gltf::{ImportError, ImportErrorKind as K};

/// Accessor indices of [`rich`].
const POSITION: usize = 0;
const NORMAL: usize = 1;
const TANGENT: usize = 2;
const TEXCOORD: usize = 3;
const JOINTS: usize = 4;
const WEIGHTS: usize = 5;
const INDICES: usize = 6;
const IBM: usize = 7;
const TIMES: usize = 8;
const TRANSLATIONS: usize = 9;
const ROTATIONS: usize = 10;
const SCALES: usize = 11;

fn png_2x2() -> Vec<u8> {
    let img = image::RgbaImage::from_pixel(2, 2, image::Rgba([10, 20, 30, 255]));
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

/// A skinned triangle with every attribute throng reads, a TRS animation of its root joint, an
/// embedded PNG base colour texture with a texture transform, one scene.
fn rich() -> (Doc, Value) {
    let mut d = Doc::default();
    d.f32s(&[0., 0., 0., 1., 0., 0., 0., 1., 0.], "VEC3");
    d.f32s(&[0., 0., 1., 0., 0., 1., 0., 0., 1.], "VEC3");
    d.f32s(&[1., 0., 0., 1., 1., 0., 0., 1., 1., 0., 0., 1.], "VEC4");
    d.f32s(&[0., 0., 1., 0., 0., 1.], "VEC2");
    let jv = d.view(&[0, 1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0]);
    d.accessor(json!({"bufferView": jv, "componentType": 5121, "count": 3, "type": "VEC4"}));
    d.f32s(
        &[1., 0., 0., 0., 0.5, 0.5, 0., 0., 0.25, 0.75, 0., 0.],
        "VEC4",
    );
    d.u16s(&[0, 1, 2], "SCALAR");
    let ibm: Vec<f32> = [
        glam::Mat4::IDENTITY,
        glam::Mat4::from_translation(-glam::Vec3::Y),
    ]
    .iter()
    .flat_map(|m| m.to_cols_array())
    .collect();
    d.f32s(&ibm, "MAT4");
    d.f32s(&[0.0, 1.0], "SCALAR");
    d.f32s(&[0., 0., 0., 0., 1., 0.], "VEC3");
    d.f32s(
        &[0., 0., 0., 1., 0., 0., FRAC_1_SQRT_2, FRAC_1_SQRT_2],
        "VEC4",
    );
    d.f32s(&[1., 1., 1., 2., 2., 2.], "VEC3");
    let image_view = d.view(&png_2x2());
    let attributes = json!({"POSITION": POSITION, "NORMAL": NORMAL, "TANGENT": TANGENT,
        "TEXCOORD_0": TEXCOORD, "JOINTS_0": JOINTS, "WEIGHTS_0": WEIGHTS});
    let root = json!({
        "extensionsUsed": ["KHR_texture_transform"],
        "scene": 0,
        "scenes": [{"nodes": [0, 1]}],
        "nodes": [
            {"mesh": 0, "skin": 0},
            {"name": "hips", "children": [2], "translation": [0, 1, 0], "rotation": [0, 0, 0, 1], "scale": [1, 1, 1]},
            {"name": "chest", "translation": [0, 1, 0]},
        ],
        "skins": [{"joints": [1, 2], "inverseBindMatrices": IBM, "skeleton": 1}],
        "meshes": [{"primitives": [{"attributes": attributes, "indices": INDICES, "material": 0}]}],
        "materials": [{"pbrMetallicRoughness": {"baseColorFactor": [1, 0.5, 0.5, 1],
            "baseColorTexture": {"index": 0, "extensions": {"KHR_texture_transform":
                {"offset": [0.5, 0], "rotation": 0.25, "scale": [2, 2]}}}}}],
        "textures": [{"source": 0}],
        "images": [{"bufferView": image_view, "mimeType": "image/png"}],
        "animations": [{"name": "move",
            "samplers": [
                {"input": TIMES, "output": TRANSLATIONS},
                {"input": TIMES, "output": ROTATIONS},
                {"input": TIMES, "output": SCALES},
            ],
            "channels": [
                {"sampler": 0, "target": {"node": 1, "path": "translation"}},
                {"sampler": 1, "target": {"node": 1, "path": "rotation"}},
                {"sampler": 2, "target": {"node": 1, "path": "scale"}},
            ]}],
    });
    (d, root)
}

/// The complete JSON of [`rich`] (buffer as a data URI), ready for edits.
fn rich_json() -> Value {
    let (d, root) = rich();
    serde_json::from_slice(&d.gltf(root)).unwrap()
}

fn bytes(v: &Value) -> Vec<u8> {
    serde_json::to_vec(v).unwrap()
}

/// `v` with the value at each JSON pointer replaced (or added, when its object lacks the key).
fn edit(v: &Value, edits: &[(&str, Value)]) -> Value {
    let mut v = v.clone();
    for (pointer, value) in edits {
        if let Some(slot) = v.pointer_mut(pointer) {
            *slot = value.clone();
            continue;
        }
        let (parent, key) = pointer.rsplit_once('/').unwrap();
        let object = v
            .pointer_mut(parent)
            .and_then(Value::as_object_mut)
            .unwrap_or_else(|| panic!("no object {parent} in the document"));
        object.insert(key.to_string(), value.clone());
    }
    v
}

/// Asserts that `result` is an error matching `want`, whose message names `element`.
fn assert_err<T>(case: &str, result: Result<T, ImportError>, want: fn(&K) -> bool, element: &str) {
    match result {
        Ok(_) => panic!("{case}: imported"),
        Err(e) => {
            assert!(want(&e.kind), "{case}: wrong kind {:?}", e.kind);
            let msg = e.to_string();
            assert!(msg.starts_with("test.gltf: "), "{case}: {msg}");
            assert!(
                msg.contains(element),
                "{case}: {msg} does not name {element:?}"
            );
        }
    }
}

#[test]
fn the_rich_document_imports_cleanly() {
    let (d, root) = rich();
    for bytes in [d.gltf(root.clone()), d.glb(root)] {
        let m = import(&bytes).unwrap();
        assert!(m.warnings.is_empty(), "{:?}", m.warnings);
        let p = &m.meshes[0].primitives[0];
        assert_eq!(p.positions.len(), 3);
        assert_eq!(p.weight_sets[0][2], [0.25, 0.75, 0.0, 0.0]);
        assert_eq!(m.clips[0].channels.len(), 3);
        assert_eq!((m.images[0].width, m.images[0].height), (2, 2));
        assert_eq!(
            m.materials[0]
                .base_color_texture
                .as_ref()
                .unwrap()
                .transform
                .rotation,
            0.25
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Truncations

#[test]
fn truncated_glb_at_every_offset() {
    let (d, root) = rich();
    let glb = d.glb(root);
    for cut in 0..glb.len() {
        let e = import(&glb[..cut]).expect_err("a cut GLB");
        match (&e.kind, cut) {
            (K::NotGltf, 0..4) => {}
            (
                K::Truncated {
                    needed, available, ..
                },
                4..,
            ) => {
                assert_eq!(*available, cut as u64, "{e}");
                assert!(*needed > *available, "{e}");
            }
            (other, _) => panic!("cut at {cut}: {other:?}"),
        }
    }
}

#[test]
fn truncated_json_at_every_offset() {
    let json = bytes(&rich_json());
    for cut in 0..json.len() {
        let e = import(&json[..cut]).expect_err("a cut .gltf");
        match (&e.kind, cut) {
            (K::NotGltf, 0) | (K::MalformedJson { .. }, 1..) => {}
            (other, _) => panic!("cut at {cut}: {other:?}"),
        }
    }
}

#[test]
fn truncated_real_files() {
    for name in [
        "RiggedSimple.glb",
        "BoxAnimated.glb",
        "Fox.glb",
        "CesiumMan.glb",
    ] {
        let Some(path) = throng_testdata::asset(name) else {
            return;
        };
        let bytes = std::fs::read(&path).unwrap();
        let step = (bytes.len() / 300).max(1);
        for cut in (0..bytes.len()).step_by(step).chain([bytes.len() - 1]) {
            let e = throng_gltf::import_slice(&bytes[..cut], None, name).expect_err(name);
            assert!(
                matches!(
                    (&e.kind, cut),
                    (K::NotGltf, 0..4) | (K::Truncated { .. }, 4..)
                ),
                "{name} cut at {cut}: {e}"
            );
        }
    }
}

#[test]
fn truncated_external_buffer_and_data_uri() {
    let (d, root) = rich();
    let mut v: Value = serde_json::from_slice(&d.gltf(root)).unwrap();
    let len = d.bin.len();
    let dir = tempfile::tempdir().unwrap();
    v["buffers"][0]["uri"] = json!("rich.bin");
    let path = dir.path().join("rich.gltf");
    std::fs::write(&path, bytes(&v)).unwrap();
    for cut in (0..len).step_by(5) {
        std::fs::write(dir.path().join("rich.bin"), &d.bin[..cut]).unwrap();
        let e = throng_gltf::import(&path).unwrap_err();
        match e.kind {
            K::Truncated {
                needed, available, ..
            } => assert_eq!((needed, available), (len as u64, cut as u64)),
            other => panic!("cut at {cut}: {other:?}"),
        }
    }
    // A cut base64 payload: invalid base64, or valid but too short.
    let uri = rich_json()["buffers"][0]["uri"]
        .as_str()
        .unwrap()
        .to_string();
    let start = uri.find(',').unwrap() + 1;
    for cut in (start..uri.len()).step_by(7) {
        let v = edit(&rich_json(), &[("/buffers/0/uri", json!(&uri[..cut]))]);
        let e = import(&bytes(&v)).unwrap_err();
        assert!(
            matches!(e.kind, K::BadUri { .. } | K::Truncated { .. }),
            "cut at {cut}: {e}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Lying lengths and counts

type Case = (
    &'static str,
    Vec<(&'static str, Value)>,
    fn(&K) -> bool,
    &'static str,
);

/// [`Case`]s of one edit each, one a line: `case: pointer = value => kind, element;` (what
/// the message must name), or `kind KIND;` first and then `case: pointer = value, element;`
/// when every case expects the same kind.
macro_rules! one_edit_cases {
    (kind $want:expr; $($case:literal: $pointer:tt = $value:expr, $element:literal;)*) => {
        one_edit_cases![$($case: $pointer = $value => $want, $element;)*]
    };
    ($($case:literal: $pointer:tt = $value:expr => $want:expr, $element:literal;)*) => {
        vec![$(($case, vec![($pointer, $value)], $want as fn(&K) -> bool, $element)),*]
    };
}

fn truncated(k: &K) -> bool {
    matches!(k, K::Truncated { .. })
}

fn invalid_data(k: &K) -> bool {
    matches!(k, K::InvalidData { .. })
}

fn bad_reference(k: &K) -> bool {
    matches!(k, K::BadReference { .. })
}

fn bad_sampler(k: &K) -> bool {
    matches!(k, K::BadSampler { .. })
}

fn malformed_glb(k: &K) -> bool {
    matches!(k, K::MalformedGlb { .. })
}

#[test]
fn lying_lengths_and_counts() {
    let len = rich().0.bin.len() as u64;
    let sparse = json!({"count": 9,
        "indices": {"bufferView": 6, "componentType": 5123}, "values": {"bufferView": 0}});
    let mut cases: Vec<Case> = one_edit_cases![
        "byteLength past the data":
            "/buffers/0/byteLength" = json!(len + 4) => truncated, "buffer 0";
        "byteLength 0": "/buffers/0/byteLength" = json!(0) => invalid_data, "byteLength is 0";
        "byteLength shorter than its views":
            "/buffers/0/byteLength" = json!(8) => invalid_data, "bufferView 0";
        "view longer than its buffer":
            "/bufferViews/3/byteLength" = json!(1 << 20) => invalid_data, "bufferView 3";
        "view offset near 2^64":
            "/bufferViews/0/byteOffset" = json!(u64::MAX - 8) => invalid_data, "bufferView 0";
        "view in a missing buffer": "/bufferViews/0/buffer" = json!(3) => bad_reference, "buffer 3";
        "count past the view":
            "/accessors/0/count" = json!(4) => truncated, "accessor 0 (POSITION";
        "count of 2^40": "/accessors/0/count" = json!(1u64 << 40) => truncated, "accessor 0";
        "byteOffset past the view":
            "/accessors/1/byteOffset" = json!(28) => truncated, "accessor 1 (NORMAL";
        "byteStride below the element size":
            "/bufferViews/0/byteStride" = json!(4) => invalid_data, "byteStride 4";
        "more key times than the view": "/accessors/8/count" = json!(3) => truncated, "accessor 8";
        "fewer outputs than keys":
            "/accessors/9/count" = json!(1) => bad_sampler, "animation 0 (\"move\") channel 0";
        "fewer matrices than joints":
            "/accessors/7/count" = json!(1) => invalid_data, "1 matrices for 2 joints";
        "normals for fewer vertices":
            "/accessors/1/count" = json!(2) => invalid_data, "2 elements but POSITION has 3";
        "unknown componentType":
            "/accessors/0/componentType" = json!(5130) => invalid_data, "unknown componentType";
        "sparse count past its views":
            "/accessors/0/sparse" = sparse => truncated, "sparse data of accessor 0";
    ];
    cases.extend::<[Case; 2]>([
        (
            "count of 2^40 without a view",
            vec![
                ("/accessors/0/count", json!(1u64 << 40)),
                ("/accessors/0/bufferView", Value::Null),
            ],
            invalid_data,
            "implausibly large",
        ),
        (
            "joint accessor of floats",
            vec![
                ("/accessors/4/componentType", json!(5122)),
                ("/accessors/4/count", json!(1)),
            ],
            invalid_data,
            "not an unsigned integer type",
        ),
    ]);
    run_cases(&cases);
}

fn run_cases(cases: &[Case]) {
    let base = rich_json();
    for (case, edits, want, element) in cases {
        let v = edit(&base, edits);
        assert_err(case, import(&bytes(&v)), *want, element);
    }
}

#[test]
fn lying_glb_lengths() {
    let (d, root) = rich();
    let glb = d.glb(root.clone());
    let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let put = |at: usize, v: u32| {
        let mut b = glb.clone();
        b[at..at + 4].copy_from_slice(&v.to_le_bytes());
        b
    };
    let bin_at = 20 + json_len;
    type GlbCase = (&'static str, Vec<u8>, fn(&K) -> bool);
    let cases: Vec<GlbCase> = vec![
        (
            "total length past the end",
            put(8, glb.len() as u32 + 4),
            truncated,
        ),
        ("total length below a header", put(8, 16), malformed_glb),
        (
            "JSON chunk past the end",
            put(12, glb.len() as u32),
            malformed_glb,
        ),
        (
            "BIN chunk past the end",
            put(bin_at, glb.len() as u32),
            malformed_glb,
        ),
        ("BIN chunk shorter than byteLength", put(bin_at, 16), |k| {
            matches!(k, K::MalformedGlb { .. } | K::Truncated { .. })
        }),
        ("version 1", put(4, 1), malformed_glb),
        (
            "JSON chunk of another type",
            put(16, 0x1234_5678),
            malformed_glb,
        ),
    ];
    for (case, b, want) in cases {
        let e = import(&b).expect_err(case);
        assert!(want(&e.kind), "{case}: {e}");
    }
    // A BIN chunk longer than byteLength + 3 bytes of padding: repaired, with a warning.
    let mut v: Value = serde_json::from_slice(&glb[20..20 + json_len]).unwrap();
    let len = d.bin.len();
    v["buffers"][0]["byteLength"] = json!(len);
    let mut bin = d.bin.clone();
    bin.extend_from_slice(&[0; 64]);
    let m = import(&pack_glb(&bytes(&v), &bin)).unwrap();
    let chunk = (len + 64).next_multiple_of(4);
    assert_eq!(
        m.warnings,
        vec![format!(
            "buffer 0 holds {} bytes more than its byteLength {len}; they are ignored",
            chunk - len
        )]
    );
    // The padding to 4 bytes that the GLB format asks for (at most 3) is no reason to warn.
    v["buffers"][0]["byteLength"] = json!(len);
    for pad in 0..8 {
        let mut bin = d.bin.clone();
        bin.resize(len + pad, 0);
        let m = import(&pack_glb(&bytes(&v), &bin)).unwrap();
        let extra = (len + pad).next_multiple_of(4) - len;
        assert_eq!(
            m.warnings.is_empty(),
            extra <= 3,
            "{extra}: {:?}",
            m.warnings
        );
    }
}

// ---------------------------------------------------------------------------------------------
// NaN and infinities

/// Byte offset in the buffer of accessor `a`'s first value.
fn value_offset(d: &Doc, a: usize) -> usize {
    let view = d.accessors[a]["bufferView"].as_u64().unwrap() as usize;
    d.views[view]["byteOffset"].as_u64().unwrap() as usize
}

#[test]
fn non_finite_values_in_every_float_accessor() {
    let float_accessors = [
        (POSITION, "POSITION of mesh 0 primitive 0"),
        (NORMAL, "NORMAL of mesh 0 primitive 0"),
        (TANGENT, "TANGENT of mesh 0 primitive 0"),
        (TEXCOORD, "TEXCOORD_0 of mesh 0 primitive 0"),
        (WEIGHTS, "WEIGHTS_0 of mesh 0 primitive 0"),
        (IBM, "inverseBindMatrices of skin 0"),
        (
            TIMES,
            "input of animation 0 (\"move\") channel 0 (sampler 0)",
        ),
        (
            TRANSLATIONS,
            "output of animation 0 (\"move\") channel 0 (sampler 0)",
        ),
        (
            ROTATIONS,
            "output of animation 0 (\"move\") channel 1 (sampler 1)",
        ),
        (
            SCALES,
            "output of animation 0 (\"move\") channel 2 (sampler 2)",
        ),
    ];
    for (a, usage) in float_accessors {
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            let (mut d, root) = rich();
            // The last component of the second element (the first for one-element accessors).
            let n = d.accessors[a]["count"].as_u64().unwrap() as usize;
            let comps = match d.accessors[a]["type"].as_str().unwrap() {
                "SCALAR" => 1,
                "VEC2" => 2,
                "VEC3" => 3,
                "VEC4" => 4,
                _ => 16,
            };
            let (element, component) = if n > 1 { (1, comps - 1) } else { (0, 0) };
            let at = value_offset(&d, a) + (element * comps + component) * 4;
            d.bin[at..at + 4].copy_from_slice(&bad.to_le_bytes());
            for (form, bytes) in [("gltf", d.gltf(root.clone())), ("glb", d.glb(root.clone()))] {
                let e = import(&bytes).unwrap_err();
                match &e.kind {
                    K::NonFinite { element: el, at } => {
                        assert_eq!(el, &format!("accessor {a} ({usage})"), "{form} {bad}");
                        assert_eq!(at, &format!("element {element} component {component}"));
                    }
                    other => panic!("{form}: accessor {a} with {bad}: {other:?}"),
                }
            }
        }
    }
}

#[test]
fn non_finite_values_through_sparse_substitution() {
    let (mut d, root) = rich();
    let idx = d.view(&1u16.to_le_bytes());
    let vals: Vec<u8> = [0f32, f32::NAN, 0.]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let val = d.view(&vals);
    d.accessors[POSITION]["sparse"] = json!({"count": 1,
        "indices": {"bufferView": idx, "componentType": 5123}, "values": {"bufferView": val}});
    let e = import(&d.gltf(root)).unwrap_err();
    assert!(
        matches!(&e.kind, K::NonFinite { at, .. } if at == "element 1 component 1"),
        "{e}"
    );
}

#[test]
fn non_finite_json_numbers() {
    // JSON has no NaN or infinity; numbers beyond f32 read as infinities.
    let base = rich_json();
    let tex = "/materials/0/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform";
    let cases = [
        (
            "/nodes/1/translation/1",
            "node 1 (\"hips\") translation".to_string(),
        ),
        (
            "/nodes/1/rotation/3",
            "node 1 (\"hips\") rotation".to_string(),
        ),
        ("/nodes/1/scale/0", "node 1 (\"hips\") scale".to_string()),
        (
            "/materials/0/pbrMetallicRoughness/baseColorFactor/2",
            "material 0 baseColorFactor".to_string(),
        ),
        (
            &format!("{tex}/offset/0")[..],
            "material 0 baseColorTexture KHR_texture_transform".to_string(),
        ),
        (
            &format!("{tex}/rotation")[..],
            "material 0 baseColorTexture KHR_texture_transform".to_string(),
        ),
        (
            &format!("{tex}/scale/1")[..],
            "material 0 baseColorTexture KHR_texture_transform".to_string(),
        ),
    ];
    for (pointer, want) in cases {
        for big in [1e39, -1e39] {
            let v = edit(&base, &[(pointer, json!(big))]);
            let e = import(&bytes(&v)).unwrap_err();
            match &e.kind {
                K::NonFinite { element, .. } => assert_eq!(element, &want, "{pointer}"),
                other => panic!("{pointer} = {big}: {other:?}"),
            }
        }
    }
    let mut matrix = glam::Mat4::IDENTITY.to_cols_array().map(|x| json!(x));
    matrix[13] = json!(1e39);
    let v = edit(
        &base,
        &[("/nodes/2", json!({"name": "chest", "matrix": matrix}))],
    );
    let e = import(&bytes(&v)).unwrap_err();
    assert!(
        matches!(&e.kind, K::NonFinite { element, .. } if element == "node 2 (\"chest\") matrix"),
        "{e}"
    );
    // A NaN token is not JSON at all.
    let text = String::from_utf8(bytes(&base)).unwrap();
    let text = text.replacen("\"rotation\":0.25", "\"rotation\":NaN", 1);
    assert!(matches!(
        import(text.as_bytes()).unwrap_err().kind,
        K::MalformedJson { .. }
    ));
}

// ---------------------------------------------------------------------------------------------
// Hierarchy

#[test]
fn cycles_and_parents() {
    let cycle = |k: &K| matches!(k, K::HierarchyCycle { .. });
    let mut cases: Vec<Case> = one_edit_cases![
        "two-node cycle": "/nodes/2/children" = json!([1]) => cycle, "node 1 (\"hips\")";
        "self child": "/nodes/2/children" = json!([2]) => cycle, "node 2 (\"chest\")";
        "two parents": "/nodes/0/children" = json!([2])
            => |k| matches!(k, K::MultipleParents { .. }), "node 0, node 1 (\"hips\")";
    ];
    cases.push((
        "three-node cycle",
        vec![
            ("/nodes/0/children", json!([1])),
            ("/nodes/2/children", json!([0])),
        ],
        cycle,
        "cycle",
    ));
    run_cases(&cases);
}

#[test]
fn a_child_listed_twice_is_a_warning() {
    let v = edit(&rich_json(), &[("/nodes/1/children", json!([2, 2]))]);
    let m = import(&bytes(&v)).unwrap();
    assert_eq!(m.nodes[1].children, vec![2]);
    assert_eq!(m.nodes[2].parent, Some(1));
    assert_eq!(
        m.warnings,
        vec!["node 1 (\"hips\") lists child node 2 more than once (glTF 2.0 requires unique children); the duplicate is ignored".to_string()]
    );
}

// ---------------------------------------------------------------------------------------------
// Out-of-range indices

#[test]
fn out_of_range_indices() {
    let position = "/meshes/0/primitives/0/attributes/POSITION";
    let texture = "/materials/0/pbrMetallicRoughness/baseColorTexture/index";
    let cases: Vec<Case> = one_edit_cases![kind bad_reference;
        "node mesh": "/nodes/0/mesh" = json!(9), "mesh 9";
        "node skin": "/nodes/0/skin" = json!(9), "skin 9";
        "node child": "/nodes/1/children" = json!([99]), "child node 99";
        "skin joint": "/skins/0/joints" = json!([1, 99]), "joint node 99";
        "skin skeleton": "/skins/0/skeleton" = json!(99), "skeleton node 99";
        "skin matrices": "/skins/0/inverseBindMatrices" = json!(99), "accessor 99";
        "attribute": position = json!(99), "accessor 99";
        "indices": "/meshes/0/primitives/0/indices" = json!(99), "accessor 99";
        "material": "/meshes/0/primitives/0/material" = json!(9), "material 9";
        "texture": texture = json!(9), "texture 9";
        "texture source": "/textures/0/source" = json!(9), "image 9";
        "image view": "/images/0/bufferView" = json!(99), "bufferView 99";
        "accessor view": "/accessors/1/bufferView" = json!(99), "bufferView 99";
        "channel node": "/animations/0/channels/0/target/node" = json!(99), "node 99";
        "channel sampler": "/animations/0/channels/0/sampler" = json!(9), "sampler 9";
        "sampler input": "/animations/0/samplers/0/input" = json!(99), "accessor 99";
        "sampler output": "/animations/0/samplers/0/output" = json!(99), "accessor 99";
        "scene node": "/scenes/0/nodes" = json!([0, 99]), "scene 0 refers to node 99";
        "default scene": "/scene" = json!(5), "scene 5";
    ];
    run_cases(&cases);
}

#[test]
fn out_of_range_values_in_buffers() {
    // A vertex index past the vertices.
    let (mut d, root) = rich();
    let at = value_offset(&d, INDICES) + 2;
    d.bin[at..at + 2].copy_from_slice(&7u16.to_le_bytes());
    assert_err(
        "index",
        import(&d.gltf(root)),
        invalid_data,
        "index 7 is not below the vertex count 3",
    );
    // A weighted joint past the skin's joints.
    let (mut d, root) = rich();
    let at = value_offset(&d, JOINTS);
    d.bin[at] = 5;
    let e = import(&d.gltf(root)).unwrap_err();
    assert!(
        matches!(
            e.kind,
            K::JointOutOfRange {
                vertex: 0,
                joint: 5,
                joint_count: 2,
                ..
            }
        ),
        "{e}"
    );
    // Sparse indices: past the count, and not strictly increasing.
    for (indices, want) in [
        (vec![1u16, 3], "sparse index 3 is not below count 3"),
        (
            vec![2u16, 1],
            "sparse indices must strictly increase, but index 1 is 1 after 2",
        ),
        (
            vec![1u16, 1],
            "sparse indices must strictly increase, but index 1 is 1 after 1",
        ),
    ] {
        let (mut d, root) = rich();
        let idx_bytes: Vec<u8> = indices.iter().flat_map(|i| i.to_le_bytes()).collect();
        let idx = d.view(&idx_bytes);
        let val = d.view(&[0u8; 24]);
        d.accessors[POSITION]["sparse"] = json!({"count": 2,
            "indices": {"bufferView": idx, "componentType": 5123}, "values": {"bufferView": val}});
        assert_err(want, import(&d.gltf(root)), invalid_data, want);
    }
}

#[test]
fn a_scene_listing_a_node_twice_is_a_warning() {
    let v = edit(&rich_json(), &[("/scenes/0/nodes", json!([0, 1, 0]))]);
    let m = import(&bytes(&v)).unwrap();
    assert_eq!(
        m.warnings,
        vec!["scene 0 lists node 0 more than once (glTF 2.0 requires unique nodes); the duplicate is ignored".to_string()]
    );
}
