//! Malformed input gives the right typed error (never a panic), and the message names the file
//! first.

mod common;

use common::{import, triangle, Doc};
use serde_json::json;
use throng_gltf::{import_slice, ImportErrorKind as K};

fn mesh_root(extra: serde_json::Value) -> serde_json::Value {
    let mut root = json!({
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "scenes": [{"nodes": [0]}],
    });
    if let (Some(r), Some(e)) = (root.as_object_mut(), extra.as_object()) {
        for (k, v) in e {
            r.insert(k.clone(), v.clone());
        }
    }
    root
}

#[test]
fn minimal_file_imports() {
    let d = triangle();
    let m = import(&d.gltf(mesh_root(json!({})))).unwrap();
    assert_eq!(m.meshes[0].primitives[0].positions.len(), 3);
    assert_eq!(m.meshes[0].primitives[0].indices, vec![0, 1, 2]);
    // Flat normal of a counter-clockwise triangle in the z = 0 plane.
    assert_eq!(m.meshes[0].primitives[0].normals[0], glam::Vec3::Z);
}

#[test]
fn truncated_glb() {
    let Some(path) = throng_testdata::asset("Fox.glb") else {
        return;
    };
    let bytes = std::fs::read(&path).unwrap();
    for cut in [bytes.len() / 2, bytes.len() - 1, 100, 16, 11, 4] {
        let e = import_slice(&bytes[..cut], None, "Fox.glb").unwrap_err();
        assert!(matches!(e.kind, K::Truncated { .. }), "cut at {cut}: {e}");
        assert!(e.to_string().starts_with("Fox.glb: truncated file"), "{e}");
    }
}

#[test]
fn garbage_and_non_gltf() {
    let e = import(&[0x13, 0x37, 0xff, 0x00, 0x42, 0x99]).unwrap_err();
    assert!(matches!(e.kind, K::NotGltf), "{e}");
    let e = import(b"").unwrap_err();
    assert!(matches!(e.kind, K::NotGltf), "{e}");
    // Valid JSON that is not glTF.
    let e = import(br#"{"hello": "world"}"#).unwrap_err();
    assert!(matches!(e.kind, K::NotGltf), "{e}");
    // glTF magic with a bad version.
    let mut glb = b"glTF".to_vec();
    glb.extend_from_slice(&7u32.to_le_bytes());
    glb.extend_from_slice(&28u32.to_le_bytes());
    glb.extend_from_slice(&[0; 16]);
    let e = import(&glb).unwrap_err();
    assert!(matches!(e.kind, K::MalformedGlb { .. }), "{e}");
}

#[test]
fn truncated_json() {
    let d = triangle();
    let bytes = d.gltf(mesh_root(json!({})));
    let e = import(&bytes[..bytes.len() - 10]).unwrap_err();
    assert!(matches!(e.kind, K::MalformedJson { .. }), "{e}");
    // Wrong schema: a node's mesh is a string.
    let e = import(br#"{"asset": {"version": "2.0"}, "nodes": [{"mesh": "x"}]}"#).unwrap_err();
    assert!(matches!(e.kind, K::NotGltfSchema { .. }), "{e}");
}

#[test]
fn non_finite_values() {
    // 1e39 overflows f32 to infinity.
    let d = triangle();
    let root = mesh_root(json!({"nodes": [{"mesh": 0, "translation": [1e39, 0, 0]}]}));
    let e = import(&d.gltf(root)).unwrap_err();
    match &e.kind {
        K::NonFinite { element, .. } => assert_eq!(element, "node 0 translation"),
        other => panic!("{other:?}"),
    }
    // NaN in a position.
    let mut d = Doc::default();
    d.f32s(&[0., 0., 0., f32::NAN, 0., 0., 0., 1., 0.], "VEC3");
    let e = import(&d.gltf(mesh_root(json!({})))).unwrap_err();
    match &e.kind {
        K::NonFinite { element, at } => {
            assert_eq!(element, "accessor 0 (POSITION of mesh 0 primitive 0)");
            assert_eq!(at, "element 1 component 0");
        }
        other => panic!("{other:?}"),
    }
    // Infinity in an inverse bind matrix.
    let mut d = triangle();
    let mut ibm = glam::Mat4::IDENTITY.to_cols_array();
    ibm[12] = f32::INFINITY;
    let acc = d.f32s(&ibm, "MAT4");
    let root =
        json!({"nodes": [{"name": "j"}], "skins": [{"joints": [0], "inverseBindMatrices": acc}]});
    let e = import(&d.gltf(root)).unwrap_err();
    assert!(matches!(e.kind, K::NonFinite { .. }), "{e}");
    // NaN key time.
    let mut d = triangle();
    let t = d.f32s(&[0.0, f32::NAN], "SCALAR");
    let v = d.f32s(&[0., 0., 0., 1., 1., 1.], "VEC3");
    let root = mesh_root(json!({"animations": [{
        "samplers": [{"input": t, "output": v}],
        "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}]
    }]}));
    let e = import(&d.gltf(root)).unwrap_err();
    assert!(matches!(e.kind, K::NonFinite { .. }), "{e}");
}

#[test]
fn missing_external_buffer() {
    let dir = tempfile::tempdir().unwrap();
    let gltf = json!({
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": 36, "uri": "missing.bin"}],
    });
    let path = dir.path().join("scene.gltf");
    std::fs::write(&path, serde_json::to_vec(&gltf).unwrap()).unwrap();
    let e = throng_gltf::import(&path).unwrap_err();
    match &e.kind {
        K::MissingExternalFile { element, uri, .. } => {
            assert_eq!(element, "buffer 0");
            assert_eq!(uri, "missing.bin");
        }
        other => panic!("{other:?}"),
    }
    assert!(e.to_string().starts_with(&path.display().to_string()));
    // A file that is too short for its declared byteLength.
    std::fs::write(dir.path().join("missing.bin"), [0u8; 20]).unwrap();
    let e = throng_gltf::import(&path).unwrap_err();
    assert!(
        matches!(
            e.kind,
            K::Truncated {
                needed: 36,
                available: 20,
                ..
            }
        ),
        "{e}"
    );
    // Missing file.
    let e = throng_gltf::import(&dir.path().join("nope.gltf")).unwrap_err();
    assert!(matches!(e.kind, K::Io { .. }), "{e}");
}

#[test]
fn unsupported_required_extensions() {
    for ext in [
        "EXT_meshopt_compression",
        "KHR_draco_mesh_compression",
        "VENDOR_thing",
    ] {
        let d = triangle();
        let root = mesh_root(json!({"extensionsUsed": [ext], "extensionsRequired": [ext]}));
        let e = import(&d.gltf(root)).unwrap_err();
        match &e.kind {
            K::UnsupportedExtension { extension } => assert_eq!(extension, ext),
            other => panic!("{other:?}"),
        }
        assert!(e.to_string().contains(ext));
    }
}

#[test]
fn accessor_out_of_bounds() {
    let mut d = triangle();
    d.accessors[0]["count"] = json!(4);
    let e = import(&d.gltf(mesh_root(json!({})))).unwrap_err();
    assert!(matches!(e.kind, K::Truncated { .. }), "{e}");
    let d = triangle();
    let root = mesh_root(json!({"meshes": [{"primitives": [{"attributes": {"POSITION": 9}}]}]}));
    let e = import(&d.gltf(root)).unwrap_err();
    assert!(matches!(e.kind, K::BadReference { .. }), "{e}");
    let d = triangle();
    let root = mesh_root(json!({"nodes": [{"mesh": 3}]}));
    let e = import(&d.gltf(root)).unwrap_err();
    assert!(matches!(e.kind, K::BadReference { .. }), "{e}");
}

#[test]
fn hierarchy_errors() {
    let d = triangle();
    let root = mesh_root(json!({"nodes": [{"children": [1]}, {"children": [0]}]}));
    let e = import(&d.gltf(root)).unwrap_err();
    assert!(matches!(e.kind, K::HierarchyCycle { .. }), "{e}");
    let root = mesh_root(json!({"nodes": [{"children": [0]}]}));
    let e = import(&d.gltf(root)).unwrap_err();
    assert!(matches!(e.kind, K::HierarchyCycle { .. }), "{e}");
    let root = mesh_root(json!({"nodes": [{"children": [2]}, {"children": [2]}, {}]}));
    let e = import(&d.gltf(root)).unwrap_err();
    match &e.kind {
        K::MultipleParents { element, parents } => {
            assert_eq!(element, "node 2");
            assert_eq!(parents, "node 0, node 1");
        }
        other => panic!("{other:?}"),
    }
}

/// A skinned triangle: joints/weights given as u8 and f32.
fn skinned(joints: [u8; 12], weights: [f32; 12]) -> Vec<u8> {
    let mut d = triangle();
    let jv = d.view(&joints);
    let ja =
        d.accessor(json!({"bufferView": jv, "componentType": 5121, "count": 3, "type": "VEC4"}));
    let wa = d.f32s(&weights, "VEC4");
    d.gltf(json!({
        "nodes": [{"mesh": 0, "skin": 0}, {"name": "a", "children": [2]}, {"name": "b"}],
        "skins": [{"joints": [1, 2]}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": ja, "WEIGHTS_0": wa}}]}],
    }))
}

#[test]
fn joint_out_of_range() {
    let w = [1., 0., 0., 0., 0.5, 0.5, 0., 0., 1., 0., 0., 0.];
    let e = import(&skinned([0, 0, 0, 0, 1, 5, 0, 0, 0, 0, 0, 0], w)).unwrap_err();
    match &e.kind {
        K::JointOutOfRange {
            vertex,
            joint,
            joint_count,
            ..
        } => assert_eq!((*vertex, *joint, *joint_count), (1, 5, 2)),
        other => panic!("{other:?}"),
    }
    // Out of range with zero weight: repaired with a warning.
    let m = import(&skinned([0, 9, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0], w)).unwrap();
    assert_eq!(m.meshes[0].primitives[0].joint_sets[0][0], [0, 0, 0, 0]);
    assert!(
        m.warnings.iter().any(|w| w.contains("zero-weight")),
        "{:?}",
        m.warnings
    );
}

fn animated(times: &[f32], values: &[f32], interp: &str) -> Vec<u8> {
    let mut d = triangle();
    let t = d.f32s(times, "SCALAR");
    let v = d.f32s(values, "VEC3");
    d.gltf(mesh_root(json!({"animations": [{
        "samplers": [{"input": t, "output": v, "interpolation": interp}],
        "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}]
    }]})))
}

#[test]
fn key_time_errors_and_repairs() {
    let e = import(&animated(&[0.0, 1.0, 0.5], &[0.0; 9], "LINEAR")).unwrap_err();
    match &e.kind {
        K::BadKeyTimes { element, .. } => {
            assert!(element.contains("animation 0 channel 0"), "{element}")
        }
        other => panic!("{other:?}"),
    }
    // Duplicate times: the later key is kept, with a warning.
    let m = import(&animated(
        &[0.0, 1.0, 1.0, 2.0],
        &[0., 0., 0., 1., 1., 1., 2., 2., 2., 3., 3., 3.],
        "LINEAR",
    ))
    .unwrap();
    let ch = &m.clips[0].channels[0];
    assert_eq!(ch.times, vec![0.0, 1.0, 2.0]);
    match &ch.values {
        throng_anim::model::ChannelValues::Translation(v) => {
            assert_eq!(v[1], glam::Vec3::splat(2.0))
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(m.warnings.len(), 1, "{:?}", m.warnings);
    // CUBICSPLINE needs two keys and three outputs per key.
    let e = import(&animated(&[0.0], &[0.0; 9], "CUBICSPLINE")).unwrap_err();
    assert!(matches!(e.kind, K::BadSampler { .. }), "{e}");
    let e = import(&animated(&[0.0, 1.0], &[0.0; 9], "CUBICSPLINE")).unwrap_err();
    assert!(matches!(e.kind, K::BadSampler { .. }), "{e}");
    let m = import(&animated(&[0.0, 1.0], &[0.0; 18], "CUBICSPLINE")).unwrap();
    assert_eq!(m.clips[0].duration, 1.0);
}

/// A valid file whose last key time is 3.4e38 s: refused while reading, naming the accessor and
/// the limit, before anything is sampled or allocated for the clip's frames (it used to end a
/// bake in an allocation abort). A clip of exactly the limit still imports.
#[test]
fn clip_longer_than_the_limit() {
    let e = import(&animated(&[0.0, 3.4e38], &[0.0; 6], "LINEAR")).unwrap_err();
    match &e.kind {
        K::BadKeyTimes { element, reason } => {
            assert!(element.contains("animation 0 channel 0"), "{element}");
            assert!(
                reason.contains("3.4e38") && reason.contains("1e6"),
                "{reason}"
            );
        }
        other => panic!("{other:?}"),
    }
    let limit = throng_anim::model::MAX_CLIP_SECONDS as f32;
    let m = import(&animated(&[0.0, limit], &[0.0; 6], "LINEAR")).unwrap();
    assert_eq!(m.clips[0].duration, limit);
}

#[test]
fn bad_image_used_by_material() {
    let d = triangle();
    let root = mesh_root(json!({
        "images": [{"uri": "data:image/png;base64,AAAA"}],
        "textures": [{"source": 0}],
        "materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}],
    }));
    let e = import(&d.gltf(root)).unwrap_err();
    assert!(matches!(e.kind, K::ImageDecode { .. }), "{e}");
}
