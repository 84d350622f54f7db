//! The two FBX encodings and clip files: the ASCII file equals its binary twin exactly, and a
//! mesh file plus one file per take (bound by node name, as `--clips` does) equals the file
//! that holds all the takes.

mod common;

use glam::Vec4;
use throng_anim::{ChannelValues, Model, ModelSkinner};

use common::{diagonal, fbx_asset, posed};

/// The twin files differ in one way (docs/fbx.md "Binary and ASCII", measured with the FBX
/// text itself): the ASCII file prints each f64 (vertices, normals, UVs, matrices, weights,
/// properties) with 15 significant digits, which the binary stores exactly, and each f32 curve
/// key (`KeyValueFloat`) with 7 significant digits (`-25.41161` for the binary's
/// `-25.4116116`), which does not hold every f32. Key times (`KeyTime`, integers), tangent data
/// (`KeyAttrDataFloat`: the f32 bit patterns written as integers), flags, every index array
/// (`PolygonVertexIndex`, `UVIndex`, `Edges`, cluster `Indexes`) and the order of the polygons
/// and of their corners are identical.
///
/// Here, through ufbx without any conversion: every key time and tangent is bit-identical, and
/// every ASCII key value is the binary's f32 printed with 7 significant digits, so the two
/// differ by at most half a unit in the 7th digit (5e-7 of the value).
#[test]
fn the_twin_files_differ_only_in_the_digits_of_their_keys() {
    let Some(ascii) = fbx_asset("ufbx/max_transformed_skin_7500_ascii.fbx") else {
        return;
    };
    let binary = ascii.with_file_name("max_transformed_skin_7500_binary.fbx");
    let load = |p: &std::path::Path| {
        ufbx::load_file(&p.display().to_string(), ufbx::LoadOpts::default())
            .unwrap_or_else(|e| panic!("{}: {e:?}", p.display()))
    };
    let (a, b) = (load(&ascii), load(&binary));
    assert!(a.metadata.ascii && !b.metadata.ascii);
    assert_eq!(a.anim_curves.len(), b.anim_curves.len());
    let (mut keys, mut same, mut same_f64) = (0, 0, 0);
    for (ca, cb) in a.anim_curves.iter().zip(b.anim_curves.iter()) {
        assert_eq!(ca.keyframes.len(), cb.keyframes.len());
        for (ka, kb) in ca.keyframes.iter().zip(cb.keyframes.iter()) {
            assert_eq!(ka.time.to_bits(), kb.time.to_bits());
            assert_eq!(ka.interpolation, kb.interpolation);
            let tangent = |k: &ufbx::Keyframe| {
                [k.left.dx, k.left.dy, k.right.dx, k.right.dy].map(f32::to_bits)
            };
            assert_eq!(tangent(ka), tangent(kb));
            // The binary key is an f32 (ufbx widens it to f64); the ASCII key is that f32
            // printed with 7 significant digits, and ufbx keeps that decimal as an f64
            // (ufbx.c reads `KeyValueFloat` as `ufbx_real`), not rounded to f32 as the FBX
            // SDK's float array would be.
            let vb = kb.value as f32;
            assert_eq!(f64::from(vb), kb.value);
            let seven: f64 = format!("{vb:.6e}").parse().expect("a number");
            assert_eq!(
                ka.value, seven,
                "ASCII {} is not binary {vb} to 7 digits",
                ka.value
            );
            keys += 1;
            same += usize::from((ka.value as f32).to_bits() == vb.to_bits());
            same_f64 += usize::from(ka.value == kb.value);
        }
    }
    // Measured: the 7-digit text of 12 of the 30 keys rounds back to the binary's f32; 18 are
    // off by 1 to 5 units in the last place (e.g. `11.4626` for 11.4626045).
    // Only 0 and 1 (4 keys) are the same f64 both ways.
    eprintln!("curve keys equal as f32: {same} of {keys}, as f64: {same_f64}");
    assert_eq!((same, same_f64, keys), (12, 4, 30));
}

/// The largest difference of two key values, per component.
fn key_difference(x: &ChannelValues, y: &ChannelValues) -> Vec<f32> {
    match (x, y) {
        (ChannelValues::Translation(p), ChannelValues::Translation(q))
        | (ChannelValues::Scale(p), ChannelValues::Scale(q)) => p
            .iter()
            .zip(q)
            .map(|(u, v)| (*u - *v).abs().max_element())
            .collect(),
        (ChannelValues::Rotation(p), ChannelValues::Rotation(q)) => p
            .iter()
            .zip(q)
            .map(|(u, v)| (Vec4::from(*u) - Vec4::from(*v)).abs().max_element())
            .collect(),
        _ => panic!("channel kinds differ"),
    }
}

/// Everything but the warnings (whose first line names the encoding) and the key values is
/// bit for bit the same, in the same order: nodes, skins (inverse bind matrices), meshes
/// (vertices with every attribute, triangles), materials, clip names, durations and key
/// times. The f64s that differ in the files' last digits round to the same f32s, and quads
/// are split from those f32s (`mesh::quad_triangles`). Key values follow the 7-digit key text
/// (see the test above) and are bounded by it.
fn same_model(a: &Model, b: &Model) {
    assert_eq!(a.nodes, b.nodes);
    assert_eq!(a.eval_order, b.eval_order);
    assert_eq!(a.skins, b.skins);
    assert_eq!(a.meshes, b.meshes);
    assert_eq!(a.materials, b.materials);
    assert_eq!(a.images, b.images);
    assert_eq!(a.warnings[1..], b.warnings[1..]);
    assert_eq!(a.clips.len(), b.clips.len());
    let (mut keys, mut same, mut worst) = (0usize, 0usize, 0.0f32);
    let mut worst_ulps = 0.0f32;
    for (c, d) in a.clips.iter().zip(&b.clips) {
        assert_eq!(
            (&c.name, c.duration.to_bits()),
            (&d.name, d.duration.to_bits())
        );
        assert_eq!(c.channels.len(), d.channels.len());
        for (x, y) in c.channels.iter().zip(&d.channels) {
            assert_eq!((x.node, x.interpolation), (y.node, y.interpolation));
            let bits = |t: &[f32]| t.iter().map(|t| t.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&x.times), bits(&y.times));
            let name = a.nodes[x.node].name.as_deref().unwrap_or("");
            let diffs = key_difference(&x.values, &y.values);
            if let (ChannelValues::Rotation(p), ChannelValues::Rotation(q)) = (&x.values, &y.values)
            {
                if name == "Bone001" {
                    // Its three rotation curves' text holds the binary's f32s exactly (90.00002,
                    // -6.664692, 0 and 79.82052), yet ufbx keeps the text's decimal as an f64
                    // (90.00002) where the binary gives the f32 (90.0000228881836): the baked
                    // quaternions differ, by at most two f32 units in the last place of their largest
                    // component.
                    for (u, v) in p.iter().zip(q) {
                        let big = Vec4::from(*u).abs().max_element();
                        let ulp = f32::from_bits(big.to_bits() + 1) - big;
                        let d = (Vec4::from(*u) - Vec4::from(*v)).abs().max_element();
                        worst_ulps = worst_ulps.max(d / ulp);
                    }
                }
            }
            for diff in diffs {
                keys += 1;
                same += usize::from(diff == 0.0);
                worst = worst.max(diff);
            }
        }
    }
    // The bound from the text: 7 significant digits put a key within 5e-7 of its value. The
    // take keys translations below 60 cm (in metres after the cm → m conversion: below 3e-7 m)
    // and Euler angles below 180°: 5e-7 × π rad each, three of them, half-angles in the
    // quaternion: 2.4e-6. Measured: 1.8e-7.
    eprintln!("Bone001 rotation keys: at most {worst_ulps} units in the last place apart");
    assert!(worst_ulps <= 2.0);
    eprintln!("baked keys equal bit for bit: {same} of {keys}; largest difference {worst:e}");
    assert!(
        worst <= 3.0 * 0.5 * 5e-7 * std::f32::consts::PI,
        "keys differ by {worst}"
    );
    assert!(
        same < keys,
        "the ASCII file's rounded keys must show somewhere"
    );
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
    // `deform` scales joints whose children ignore their scale: ufbx carries that scale on
    // helper nodes that only a file animating the scale has; `add_scale_helpers` gives the
    // mesh file's model the same ones (docs/fbx.md "Clips in other files").
    for take in ["wiggle", "spin", "deform"] {
        let path = base.with_file_name(format!("maya_game_sausage_7500_binary_{take}.fbx"));
        let other = throng_fbx::import(&path).unwrap_or_else(|e| panic!("{e}"));
        let notes = throng_fbx::add_scale_helpers(&mut model, &other);
        assert_eq!(
            notes.len(),
            if take == "deform" { 3 } else { 0 },
            "{notes:?}"
        );
        let warnings = throng_gltf::import_clips_from(&mut model, &other, take);
        assert!(warnings.is_empty(), "{take}: {warnings:?}");
    }
    let combined =
        throng_fbx::import(&base.with_file_name("maya_game_sausage_7500_binary_combined.fbx"))
            .unwrap_or_else(|e| panic!("{e}"));
    let names = |m: &Model| m.clips.iter().map(|c| c.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&model), names(&combined));
    let mut ms = ModelSkinner::with_static_meshes(&model);
    let mut cs = ModelSkinner::with_static_meshes(&combined);
    for (ci, (c, d)) in model.clips.iter().zip(&combined.clips).enumerate() {
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
