//! The two FBX encodings and clip files: the ASCII file equals its binary twin exactly, and a
//! mesh file plus one file per take (bound by node name, as `--clips` does) equals the file
//! that holds all the takes.

mod common;

use throng_anim::{ChannelValues, Model, ModelSkinner};

use common::{diagonal, fbx_asset, posed};

/// One vertex with every attribute, as bits, so vertex sets can be sorted and compared exactly.
type VertexBits = Vec<u32>;

fn vertex_set(p: &throng_anim::Primitive) -> Vec<VertexBits> {
    let mut out: Vec<VertexBits> = (0..p.vertex_count())
        .map(|v| {
            let mut bits: Vec<u32> = Vec::new();
            bits.extend(p.positions[v].to_array().map(f32::to_bits));
            bits.extend(p.normals[v].to_array().map(f32::to_bits));
            if let Some(uv) = &p.uv0 {
                bits.extend(uv[v].to_array().map(f32::to_bits));
            }
            for (j, w) in p.joint_sets.iter().zip(&p.weight_sets) {
                bits.extend(j[v].map(u32::from));
                bits.extend(w[v].map(f32::to_bits));
            }
            bits
        })
        .collect();
    out.sort();
    out
}

/// Everything but the warnings (whose first line names the encoding) and the order of
/// vertices and triangles: the two files list some polygons from a different first corner, so
/// vertices come out in another order and square quads (equal diagonals) split along the other
/// diagonal. Every vertex, with all its attributes, is bit-identical.
fn same_model(a: &Model, b: &Model) {
    assert_eq!(a.nodes, b.nodes);
    assert_eq!(a.eval_order, b.eval_order);
    assert_eq!(a.skins, b.skins);
    assert_eq!(a.materials, b.materials);
    assert_eq!(a.images, b.images);
    assert_eq!(a.warnings[1..], b.warnings[1..]);
    // Keys: the ASCII file writes curve values as shortest decimal text of their f32 values
    // while the binary stores the f32 itself, and the FBX SDK wrote both from its own f64
    // evaluation; the baked values differ by a few f32 ulps (measured below 1e-6).
    assert_eq!(a.clips.len(), b.clips.len());
    let mut worst = 0.0f32;
    for (c, d) in a.clips.iter().zip(&b.clips) {
        assert_eq!((&c.name, c.duration), (&d.name, d.duration));
        assert_eq!(c.channels.len(), d.channels.len());
        for (x, y) in c.channels.iter().zip(&d.channels) {
            assert_eq!(
                (x.node, x.interpolation, &x.times),
                (y.node, y.interpolation, &y.times)
            );
            let diff: Vec<f32> = match (&x.values, &y.values) {
                (ChannelValues::Translation(p), ChannelValues::Translation(q))
                | (ChannelValues::Scale(p), ChannelValues::Scale(q)) => p
                    .iter()
                    .zip(q)
                    .map(|(u, v)| (*u - *v).abs().max_element())
                    .collect(),
                (ChannelValues::Rotation(p), ChannelValues::Rotation(q)) => p
                    .iter()
                    .zip(q)
                    .map(|(u, v)| {
                        (*u - *v)
                            .to_array()
                            .iter()
                            .fold(0.0f32, |m, e| m.max(e.abs()))
                    })
                    .collect(),
                _ => panic!("channel kinds differ"),
            };
            worst = diff.into_iter().fold(worst, f32::max);
        }
    }
    eprintln!("largest key difference ASCII vs binary: {worst:e}");
    assert!(worst < 1e-6, "keys differ by {worst}");
    assert_eq!(a.meshes.len(), b.meshes.len());
    for (m, n) in a.meshes.iter().zip(&b.meshes) {
        assert_eq!(m.name, n.name);
        assert_eq!(m.primitives.len(), n.primitives.len());
        for (p, q) in m.primitives.iter().zip(&n.primitives) {
            assert_eq!(
                vertex_set(p),
                vertex_set(q),
                "vertices of mesh {:?}",
                m.name
            );
            assert_eq!(p.indices.len(), q.indices.len());
            assert_eq!(p.material, q.material);
        }
    }
}

#[test]
fn ascii_equals_its_binary_twin() {
    let Some(ascii) = fbx_asset("ufbx/max_transformed_skin_7500_ascii.fbx") else {
        return;
    };
    let binary = ascii.with_file_name("max_transformed_skin_7500_binary.fbx");
    let a = throng_fbx::import(&ascii).unwrap_or_else(|e| panic!("{e}"));
    let b = throng_fbx::import(&binary).unwrap_or_else(|e| panic!("{e}"));
    assert!(a.warnings[0].contains("ASCII") && b.warnings[0].contains("binary"));
    same_model(&a, &b);
    // Not vacuous: a skinned mesh with a geometric transform and one take.
    assert_eq!(a.skins.len(), 1);
    assert_eq!(a.clips.len(), 1);
    assert!(a.meshes[0].primitives[0].vertex_count() > 0);
}

#[test]
fn clip_files_bind_by_name_like_the_combined_file() {
    let Some(base) = fbx_asset("ufbx/maya_game_sausage_7500_binary.fbx") else {
        return;
    };
    let mut model = throng_fbx::import(&base).unwrap_or_else(|e| panic!("{e}"));
    assert!(model.clips.is_empty(), "the mesh file has no take");
    for take in ["wiggle", "spin"] {
        let path = base.with_file_name(format!("maya_game_sausage_7500_binary_{take}.fbx"));
        let other = throng_fbx::import(&path).unwrap_or_else(|e| panic!("{e}"));
        let warnings = throng_gltf::import_clips_from(&mut model, &other, take);
        assert!(warnings.is_empty(), "{take}: {warnings:?}");
    }
    // `deform` scales a joint whose children ignore its scale: ufbx carries that scale on a
    // helper node that only files animating the scale have, so those channels cannot bind to
    // the mesh file's skeleton, and the warning says so (docs/fbx.md "Clips in other files").
    let deform = base.with_file_name("maya_game_sausage_7500_binary_deform.fbx");
    let other = throng_fbx::import(&deform).unwrap_or_else(|e| panic!("{e}"));
    let warnings = throng_gltf::import_clips_from(&mut model, &other, "deform");
    assert!(
        warnings.len() == 1 && warnings[0].contains("joint1 (scale)"),
        "{warnings:?}"
    );
    let combined =
        throng_fbx::import(&base.with_file_name("maya_game_sausage_7500_binary_combined.fbx"))
            .unwrap_or_else(|e| panic!("{e}"));
    let names = |m: &Model| m.clips.iter().map(|c| c.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&model), names(&combined));
    let mut ms = ModelSkinner::with_static_meshes(&model);
    let mut cs = ModelSkinner::with_static_meshes(&combined);
    for (ci, (c, d)) in model.clips.iter().zip(&combined.clips).enumerate().take(2) {
        // Takes that do not start at 0 keep their FBX times (docs/fbx.md "Clip length").
        assert!(c.channels.iter().all(|ch| ch.times[0] > 0.0), "{}", c.name);
        assert_eq!(c.duration, d.duration, "{}", c.name);
        for k in 0..=(c.duration * 24.0).round() as usize {
            let t = k as f32 / 24.0;
            let a = posed(&model, &mut ms, Some(ci), t);
            let b = posed(&combined, &mut cs, Some(ci), t);
            let diag = diagonal(&b);
            let worst = a
                .iter()
                .zip(&b)
                .map(|(p, q)| p.distance(*q))
                .fold(0.0f32, f32::max);
            // Same curves, same skeleton: equal up to f32 rounding.
            assert!(
                worst <= 1e-6 * diag,
                "{} t = {t}: {worst} (diagonal {diag})",
                c.name
            );
        }
    }
}
