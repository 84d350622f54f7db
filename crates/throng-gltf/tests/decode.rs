//! Decoded values checked against independent computations on real and hand-written files.

mod common;

use common::{import, triangle};
use glam::{Mat4, Quat, Vec3};
use serde_json::json;
use throng_anim::model::{ChannelValues, Interpolation, LocalTransform, LoopMode, Model};
use throng_gltf::import as import_path;

fn load(name: &str) -> Option<Model> {
    let path = throng_testdata::asset(name)?;
    Some(import_path(&path).unwrap_or_else(|e| panic!("{e}")))
}

fn bounding_diagonal(points: &[Vec3]) -> f32 {
    let (mut lo, mut hi) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
    for p in points {
        lo = lo.min(*p);
        hi = hi.max(*p);
    }
    (hi - lo).length()
}

#[test]
fn fox_flat_normals_and_sequential_indices() {
    let Some(m) = load("Fox.glb") else { return };
    let p = &m.meshes[0].primitives[0];
    assert!(p.generated_normals);
    assert_eq!(p.vertex_count(), 1728);
    let seq: Vec<u32> = (0..1728).collect();
    assert_eq!(p.indices, seq);
    let diag = bounding_diagonal(&p.positions);
    for tri in p.indices.chunks_exact(3) {
        let [a, b, c] = [tri[0], tri[1], tri[2]].map(|i| i as usize);
        let (e1, e2) = (
            p.positions[b] - p.positions[a],
            p.positions[c] - p.positions[a],
        );
        // Skip slivers whose normal direction is not well defined in f32.
        if e1.cross(e2).length() < 1e-6 * diag * diag {
            continue;
        }
        let n = p.normals[a];
        assert_eq!(p.normals[b], n);
        assert_eq!(p.normals[c], n);
        assert!((n.length() - 1.0).abs() < 1e-5);
        // Perpendicular to both edges (cosine below 1e-4), and counter-clockwise facing.
        assert!(n.dot(e1).abs() <= 1e-4 * e1.length(), "{n} {e1}");
        assert!(n.dot(e2).abs() <= 1e-4 * e2.length(), "{n} {e2}");
        assert!(n.dot(e1.cross(e2)) > 0.0);
    }
}

#[test]
fn skin_types_decode_identically() {
    // Values in the files' .bin (same in all four, in u8/u16 joints and f32/unorm8/unorm16
    // weights): every vertex has joints [0, 1, 0, 0]; the two vertices at z = -0.5 have weights
    // [1, 0, 0, 0] (joint 0), the four others [0, 1, 0, 0] (joint 1).
    let mut decoded = Vec::new();
    for i in 0..4 {
        let Some(m) = load(&format!("asset-generator/Animation_SkinType_0{i}.gltf")) else {
            return;
        };
        let p = &m.meshes[0].primitives[0];
        assert_eq!(p.joint_sets.len(), 1);
        let sets = p.joint_sets[0].iter().zip(&p.weight_sets[0]);
        for ((j, w), pos) in sets.zip(&p.positions) {
            assert_eq!(*j, [0, 1, 0, 0], "SkinType_0{i}");
            let want = if pos.z == -0.5 {
                [1.0, 0.0, 0.0, 0.0]
            } else {
                [0.0, 1.0, 0.0, 0.0]
            };
            for (got, want) in w.iter().zip(want) {
                assert!((got - want).abs() <= 1.0 / 255.0, "SkinType_0{i}: {w:?}");
            }
        }
        decoded.push((
            p.positions.clone(),
            p.joint_sets.clone(),
            p.weight_sets.clone(),
        ));
    }
    for d in &decoded[1..] {
        assert_eq!(d, &decoded[0]);
    }
}

/// Per vertex, the total weight given to each joint over all sets.
fn joint_weights(p: &throng_anim::model::Primitive) -> Vec<std::collections::BTreeMap<u16, f32>> {
    (0..p.vertex_count())
        .map(|v| {
            let mut map = std::collections::BTreeMap::new();
            for (js, ws) in p.joint_sets.iter().zip(&p.weight_sets) {
                for k in 0..4 {
                    if ws[v][k] > 0.0 {
                        *map.entry(js[v][k]).or_insert(0.0) += ws[v][k];
                    }
                }
            }
            map
        })
        .collect()
}

#[test]
fn eight_influence_files_have_two_sets_and_match_originals() {
    for (derived, original) in [
        ("derived/SimpleSkin_8infl.gltf", "SimpleSkin.gltf"),
        ("derived/RiggedFigure_8infl.glb", "RiggedFigure.glb"),
    ] {
        let (Some(d), Some(o)) = (load(derived), load(original)) else {
            return;
        };
        let (pd, po) = (&d.meshes[0].primitives[0], &o.meshes[0].primitives[0]);
        assert_eq!(pd.joint_sets.len(), 2, "{derived}");
        assert_eq!(pd.weight_sets.len(), 2, "{derived}");
        assert_eq!(pd.positions, po.positions, "{derived}");
        let (wd, wo) = (joint_weights(pd), joint_weights(po));
        for (v, (a, b)) in wd.iter().zip(&wo).enumerate() {
            // Splitting a weight over two sets may round it in f32.
            let keys: std::collections::BTreeSet<_> = a.keys().chain(b.keys()).collect();
            for k in keys {
                let (x, y) = (a.get(k).unwrap_or(&0.0), b.get(k).unwrap_or(&0.0));
                assert!(
                    (x - y).abs() < 1e-5,
                    "{derived} vertex {v} joint {k}: {x} vs {y}"
                );
            }
        }
    }
}

#[test]
fn missing_inverse_bind_matrices_are_identity() {
    let Some(m) = load("asset-generator/Animation_Skin_04.gltf") else {
        return;
    };
    assert_eq!(m.skins[0].joints.len(), 2);
    assert_eq!(m.skins[0].inverse_bind_matrices, vec![Mat4::IDENTITY; 2]);
}

#[test]
// The JSON's decimal text verbatim: the importer must give its f32 rounding exactly.
#[allow(clippy::excessive_precision)]
fn matrix_nodes_are_kept_exactly() {
    let Some(m) = load("RiggedSimple.glb") else {
        return;
    };
    // Values from the file's JSON (node 3).
    let want = Mat4::from_cols_array(&[
        1.0,
        0.0,
        0.0,
        0.0,
        0.0,
        1.0,
        0.0,
        0.0,
        0.0,
        0.0,
        1.0,
        0.0,
        0.0,
        -1.3597299641787686e-07,
        -4.1803297996521,
        1.0,
    ]);
    assert_eq!(m.nodes[3].local, LocalTransform::Matrix(want));
    assert!(matches!(m.nodes[2].local, LocalTransform::Trs(_)));
}

fn world_matrices(m: &Model) -> Vec<Mat4> {
    let mut world = vec![Mat4::IDENTITY; m.nodes.len()];
    for &n in &m.eval_order {
        let local = m.nodes[n].local.to_mat4();
        world[n] = match m.nodes[n].parent {
            Some(p) => world[p] * local,
            None => local,
        };
    }
    world
}

#[test]
fn quantized_positions_match_float_file() {
    let (Some(q), Some(f)) = (
        load("quantized/AnimatedMorphCube-Quantized.gltf"),
        load("AnimatedMorphCube.glb"),
    ) else {
        return;
    };
    // Compare in world space: the quantized file moves dequantisation into a node transform.
    let place = |m: &Model| -> Vec<Vec3> {
        let w = world_matrices(m);
        let (node, _) = m
            .nodes
            .iter()
            .enumerate()
            .find(|(_, n)| n.mesh.is_some())
            .unwrap();
        m.meshes[0].primitives[0]
            .positions
            .iter()
            .map(|p| w[node].transform_point3(*p))
            .collect()
    };
    let (pq, pf) = (place(&q), place(&f));
    assert_eq!(pq.len(), 24);
    assert_eq!(pf.len(), 24);
    let diag = bounding_diagonal(&pf);
    let nearest =
        |p: Vec3, set: &[Vec3]| set.iter().map(|s| s.distance(p)).fold(f32::MAX, f32::min);
    for p in &pf {
        assert!(
            nearest(*p, &pq) <= 1e-3 * diag,
            "{p}: {}",
            nearest(*p, &pq) / diag
        );
    }
    for p in &pq {
        assert!(nearest(*p, &pf) <= 1e-3 * diag);
    }
    // Quantized normals (i8 normalised) are unit after import.
    for n in &q.meshes[0].primitives[0].normals {
        assert!((n.length() - 1.0).abs() < 1e-5);
    }
    assert_eq!(q.clips[0].skipped_morph_channels, 1);
    assert_eq!(f.clips[0].skipped_morph_channels, 1);
}

#[test]
fn interpolation_modes() {
    let Some(m) = load("InterpolationTest.glb") else {
        return;
    };
    for clip in &m.clips {
        let ch = &clip.channels[0];
        let want = if clip.name.starts_with("Step") {
            Interpolation::Step
        } else if clip.name.starts_with("Linear") {
            Interpolation::Linear
        } else {
            Interpolation::CubicSpline
        };
        assert_eq!(ch.interpolation, want, "{}", clip.name);
        let per_key = if want == Interpolation::CubicSpline {
            3
        } else {
            1
        };
        let n = match &ch.values {
            ChannelValues::Translation(v) | ChannelValues::Scale(v) => v.len(),
            ChannelValues::Rotation(v) => v.len(),
        };
        assert_eq!(n, ch.times.len() * per_key, "{}", clip.name);
    }
}

#[test]
fn sparse_accessor_applied() {
    let mut d = triangle();
    // Replace vertex 2 with (5, 6, 7) through a sparse accessor.
    let idx = d.view(&2u16.to_le_bytes());
    let vals: Vec<u8> = [5f32, 6., 7.]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let val = d.view(&vals);
    d.accessors[0]["sparse"] = json!({
        "count": 1,
        "indices": {"bufferView": idx, "componentType": 5123},
        "values": {"bufferView": val}
    });
    // A sparse accessor without a bufferView: zeros plus substitutions.
    let acc = d.accessor(json!({
        "componentType": 5126, "count": 3, "type": "VEC3", "min": [0,0,0], "max": [5,6,7],
        "sparse": {"count": 1, "indices": {"bufferView": idx, "componentType": 5123},
                   "values": {"bufferView": val}}
    }));
    let bytes = d.gltf(json!({
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}, {"attributes": {"POSITION": acc}}]}],
    }));
    let m = import(&bytes).unwrap();
    let p = &m.meshes[0].primitives;
    assert_eq!(
        p[0].positions,
        vec![Vec3::ZERO, Vec3::X, Vec3::new(5., 6., 7.)]
    );
    assert_eq!(
        p[1].positions,
        vec![Vec3::ZERO, Vec3::ZERO, Vec3::new(5., 6., 7.)]
    );
}

#[test]
fn normalised_integer_keyframes_and_extras() {
    let mut d = triangle();
    let t = d.f32s(&[0.0, 2.0], "SCALAR");
    // Rotations as normalised i16: identity, and 90° about Z (sin/cos 45° = 0.70710677).
    let c = (0.70710677f32 * 32767.0).round() as i16;
    let q: Vec<u8> = [0i16, 0, 0, 32767, 0, 0, c, c]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let qv = d.view(&q);
    let qa = d.accessor(json!({"bufferView": qv, "componentType": 5122, "normalized": true, "count": 2, "type": "VEC4"}));
    // Scales as normalised u8: 255 → 1.0, 51 → 0.2.
    let s = d.view(&[255, 255, 255, 51, 51, 51]);
    let sa = d.accessor(json!({"bufferView": s, "componentType": 5121, "normalized": true, "count": 2, "type": "VEC3"}));
    let bytes = d.gltf(json!({
        "nodes": [{"mesh": 0}, {"name": "other"}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "animations": [
            {"name": "spin",
             "samplers": [{"input": t, "output": qa, "interpolation": "STEP"}, {"input": t, "output": sa}],
             "channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"}},
                          {"sampler": 1, "target": {"node": 0, "path": "scale"}},
                          {"sampler": 1, "target": {"path": "scale"}}],
             "extras": {"throng": {"loop": "ping-pong", "events": [{"time": 1.5, "name": "b"}, {"time": 0.5, "name": "a"}]}}},
            {"samplers": [{"input": t, "output": sa}],
             "channels": [{"sampler": 0, "target": {"node": 1, "path": "scale"}}],
             "extras": {"throng": {"loop": "sometimes", "events": 3}}}
        ]
    }));
    let m = import(&bytes).unwrap();
    let spin = &m.clips[0];
    assert_eq!(spin.name, "spin");
    assert_eq!(spin.duration, 2.0);
    assert_eq!(spin.loop_mode, LoopMode::PingPong);
    let events: Vec<(f32, &str)> = spin
        .events
        .iter()
        .map(|e| (e.time, e.name.as_str()))
        .collect();
    assert_eq!(events, vec![(0.5, "a"), (1.5, "b")]);
    assert_eq!(
        spin.channels.len(),
        2,
        "the channel without a node is ignored"
    );
    match &spin.channels[0].values {
        ChannelValues::Rotation(r) => {
            assert!(r[0].abs_diff_eq(Quat::IDENTITY, 1e-6));
            let want = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
            assert!(r[1].abs_diff_eq(want, 1e-4), "{}", r[1]);
            assert!((r[1].length() - 1.0).abs() < 1e-6);
        }
        other => panic!("{other:?}"),
    }
    match &spin.channels[1].values {
        ChannelValues::Scale(s) => {
            assert_eq!(s[0], Vec3::ONE);
            assert!(s[1].abs_diff_eq(Vec3::splat(0.2), 1e-6));
        }
        other => panic!("{other:?}"),
    }
    let second = &m.clips[1];
    assert_eq!(second.name, "clip1");
    assert_eq!(second.loop_mode, LoopMode::Loop);
    assert!(second.events.is_empty());
    assert!(
        m.warnings.iter().any(|w| w.contains("sometimes")),
        "{:?}",
        m.warnings
    );
    assert!(m
        .warnings
        .iter()
        .any(|w| w.contains("events is not a list")));
    assert!(m.warnings.iter().any(|w| w.contains("no target node")));
}

#[test]
fn indexed_primitive_without_normals_is_unwelded() {
    // A quad of two triangles sharing an edge, folded 90° along it.
    let mut d = common::Doc::default();
    d.f32s(&[0., 0., 0., 1., 0., 0., 0., 1., 0., 0., 0., 1.], "VEC3");
    let ia = d.u16s(&[0, 1, 2, 0, 3, 1], "SCALAR");
    let m = import(&d.gltf(json!({
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": ia, "mode": 4}, {"attributes": {"POSITION": 0}, "mode": 1}]}],
    })))
    .unwrap();
    let p = &m.meshes[0].primitives;
    assert_eq!(p.len(), 1, "the LINES primitive is skipped");
    assert!(
        m.warnings.iter().any(|w| w.contains("Lines")),
        "{:?}",
        m.warnings
    );
    let p = &p[0];
    assert_eq!(p.indices, vec![0, 1, 2, 3, 4, 5]);
    assert_eq!(p.positions[3], Vec3::ZERO);
    assert_eq!(p.positions[4], Vec3::Z);
    assert_eq!(p.normals[..3], [Vec3::Z; 3]);
    assert_eq!(p.normals[3..], [Vec3::Y; 3]);
}

#[test]
fn quantized_strided_positions() {
    // KHR_mesh_quantization layout: VEC3 of normalised i8 padded to a 4-byte stride, and
    // non-normalised u16 texture coordinates.
    let mut d = common::Doc::default();
    let v = d.view(&[127, 0x80, 0, 0xEE, 0x81, 64, 1, 0xEE, 0, 0, 127, 0xEE]);
    d.views[v]["byteStride"] = json!(4);
    let pos = d.accessor(
        json!({"bufferView": v, "componentType": 5120, "normalized": true,
        "count": 3, "type": "VEC3", "min": [-1, -1, 0], "max": [1, 1, 1]}),
    );
    let uva = d.u16s(&[0, 1, 2, 3, 65535, 7], "VEC2");
    let m = import(&d.gltf(json!({
        "extensionsUsed": ["KHR_mesh_quantization"],
        "extensionsRequired": ["KHR_mesh_quantization"],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pos, "TEXCOORD_0": uva}}]}],
    })))
    .unwrap();
    let p = &m.meshes[0].primitives[0];
    // Signed normalised: max(c / 127, -1), so -128 and -127 both give -1 (glTF 2.0 §3.11).
    assert_eq!(
        p.positions,
        vec![
            Vec3::new(1.0, -1.0, 0.0),
            Vec3::new(-1.0, 64.0 / 127.0, 1.0 / 127.0),
            Vec3::new(0.0, 0.0, 1.0),
        ]
    );
    let uv = p.uv0.as_ref().unwrap();
    assert_eq!(uv[2], glam::Vec2::new(65535.0, 7.0));
}

fn encode(img: &image::RgbaImage, format: image::ImageFormat) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    if format == image::ImageFormat::Jpeg {
        image::DynamicImage::ImageRgba8(img.clone())
            .to_rgb8()
            .write_to(&mut out, format)
            .unwrap();
    } else {
        img.write_to(&mut out, format).unwrap();
    }
    out.into_inner()
}

#[test]
fn materials_and_images() {
    let pixels: Vec<u8> = (0..16).map(|i| (i * 16) as u8).collect();
    let img = image::RgbaImage::from_raw(2, 2, pixels.clone()).unwrap();
    let png = encode(&img, image::ImageFormat::Png);
    let jpeg = encode(
        &image::RgbaImage::from_pixel(8, 4, image::Rgba([200, 100, 50, 255])),
        image::ImageFormat::Jpeg,
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("colour map.jpg"), &jpeg).unwrap();

    let mut d = triangle();
    let pv = d.view(&png);
    let bytes = d.gltf(json!({
        "extensionsUsed": ["KHR_texture_transform"],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "material": 0}]}],
        "images": [
            {"bufferView": pv, "mimeType": "image/png"},
            {"uri": "colour%20map.jpg"},
            {"uri": "missing_normal_map.png"}
        ],
        "textures": [{"source": 0}, {"source": 1}, {"source": 2}],
        "materials": [
            {"pbrMetallicRoughness": {
                "baseColorFactor": [0.5, 0.25, 1.0, 0.75],
                "baseColorTexture": {"index": 0, "extensions": {"KHR_texture_transform":
                    {"offset": [0.5, 0.25], "rotation": 1.5, "scale": [2.0, 3.0]}}}},
             "doubleSided": true,
             "normalTexture": {"index": 2}},
            {"pbrMetallicRoughness": {"baseColorTexture": {"index": 1}}}
        ]
    }));
    let path = dir.path().join("scene.gltf");
    std::fs::write(&path, &bytes).unwrap();
    let m = import_path(&path).unwrap();

    let mat = &m.materials[0];
    assert_eq!(mat.base_color_factor, glam::Vec4::new(0.5, 0.25, 1.0, 0.75));
    assert!(mat.double_sided);
    let tex = mat.base_color_texture.as_ref().unwrap();
    assert_eq!(tex.image, 0);
    assert_eq!(tex.transform.offset, glam::Vec2::new(0.5, 0.25));
    assert_eq!(tex.transform.rotation, 1.5);
    assert_eq!(tex.transform.scale, glam::Vec2::new(2.0, 3.0));
    let m1 = &m.materials[1];
    assert!(!m1.double_sided);
    assert_eq!(m1.base_color_factor, glam::Vec4::ONE);
    assert_eq!(
        m1.base_color_texture.as_ref().unwrap().transform,
        Default::default()
    );

    let png_img = &m.images[0];
    assert_eq!((png_img.width, png_img.height), (2, 2));
    assert_eq!(png_img.rgba8, pixels, "PNG is lossless");
    assert_eq!(png_img.encoded, png);
    assert_eq!(png_img.mime_type, "image/png");
    let jpg = &m.images[1];
    assert_eq!(
        (jpg.width, jpg.height, jpg.mime_type.as_str()),
        (8, 4, "image/jpeg")
    );
    assert_eq!(jpg.encoded, jpeg);
    // JPEG is lossy: a flat colour comes back within a few levels.
    for px in jpg.rgba8.chunks_exact(4) {
        for (got, want) in px.iter().zip([200u8, 100, 50, 255]) {
            assert!(got.abs_diff(want) <= 4, "{px:?}");
        }
    }
    // A missing image that is no base colour texture: empty, with a warning.
    assert_eq!(m.images[2].width, 0);
    assert!(
        m.warnings
            .iter()
            .any(|w| w.contains("missing_normal_map.png")),
        "{:?}",
        m.warnings
    );
}

#[test]
fn odd_channels_are_reported() {
    let mut d = triangle();
    let t = d.f32s(&[0.0, 1.0], "SCALAR");
    let v = d.f32s(&[0., 0., 0., 1., 1., 1.], "VEC3");
    let m = import(&d.gltf(json!({
        "nodes": [{"mesh": 0, "matrix": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1]}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "animations": [{
            "samplers": [{"input": t, "output": v}],
            "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}},
                         {"sampler": 0, "target": {"node": 0, "path": "translation"}}]
        }]
    })))
    .unwrap();
    assert_eq!(m.clips[0].channels.len(), 2);
    assert!(
        m.warnings.iter().any(|w| w.contains("has a matrix")),
        "{:?}",
        m.warnings
    );
    assert!(
        m.warnings.iter().any(|w| w.contains("earlier channel")),
        "{:?}",
        m.warnings
    );
}
