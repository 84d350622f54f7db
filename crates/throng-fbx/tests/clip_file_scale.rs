//! Scale animated in a separate clip file (`--clips`): the sausage's `deform` take scales
//! joints whose children compensate (Maya's segment scale compensation). Bound to the mesh
//! file's skeleton (which has no scale helper nodes, since nothing is scaled in it) after
//! `throng_fbx::add_scale_helpers`, the take must move the vertices as ufbx's own evaluation of
//! the clip file does: the clip file loaded with its inherit modes preserved (no helper
//! nodes), each node's world matrix evaluated by ufbx at each frame, and the vertices skinned
//! here in f64 from ufbx's clusters. That path shares no code with throng's helper nodes,
//! baking, binding or posing.

mod common;

use glam::{DMat4, DVec3, Vec3};
use throng_anim::{ChannelValues, ModelSkinner};

use common::{diagonal, fbx_asset, posed};

fn dmat(m: &ufbx::Matrix) -> DMat4 {
    DMat4::from_cols_array(&[
        m.m00, m.m10, m.m20, 0.0, m.m01, m.m11, m.m21, 0.0, m.m02, m.m12, m.m22, 0.0, m.m03, m.m13,
        m.m23, 1.0,
    ])
}

/// Every control point of the file's first skinned mesh at `t`, skinned from ufbx's evaluated
/// node matrices in the same target space as throng's import (+Y up, metres).
fn ufbx_skinned(scene: &ufbx::Scene, t: f64) -> Vec<DVec3> {
    let anim = &scene.anim_stacks[0].anim;
    let eval = ufbx::evaluate_scene(scene, anim, t, ufbx::EvaluateOpts::default())
        .unwrap_or_else(|e| panic!("{e:?}"));
    let mesh = &eval.meshes[0];
    let skin = &mesh.skin_deformers[0];
    (0..mesh.num_vertices)
        .map(|v| {
            let p = mesh.vertices[v];
            let p = DVec3::new(p.x, p.y, p.z);
            let sv = &skin.vertices[v];
            (0..sv.num_weights as usize)
                .map(|k| {
                    let w = &skin.weights[sv.weight_begin as usize + k];
                    let cluster = &skin.clusters[w.cluster_index as usize];
                    let bone = cluster.bone_node.as_ref().expect("a bone");
                    let m = dmat(&bone.node_to_world) * dmat(&cluster.geometry_to_bone);
                    m.transform_point3(p) * w.weight
                })
                .sum()
        })
        .collect()
}

#[test]
fn scale_from_a_clip_file_moves_vertices_as_ufbx_evaluates_it() {
    let Some(base) = fbx_asset("ufbx/maya_game_sausage_7500_binary.fbx") else {
        return;
    };
    let clip_file = base.with_file_name("maya_game_sausage_7500_binary_deform.fbx");
    let mut model = throng_fbx::import(&base).unwrap_or_else(|e| panic!("{e}"));
    let other = throng_fbx::import(&clip_file).unwrap_or_else(|e| panic!("{e}"));
    let notes = throng_fbx::add_scale_helpers(&mut model, &other);
    assert!(
        notes.iter().any(|n| n.starts_with("joint1 (scale)")),
        "{notes:?}"
    );
    let warnings = throng_gltf::import_clips_from(&mut model, &other, "deform");
    assert!(warnings.is_empty(), "{warnings:?}");
    let clip = &model.clips[0];
    // Not vacuous: the take scales a joint (its helper's scale keys leave 1).
    let scaled = clip.channels.iter().any(|c| match &c.values {
        ChannelValues::Scale(s) => s.iter().any(|s| (*s - Vec3::ONE).abs().max_element() > 0.1),
        _ => false,
    });
    assert!(scaled, "the deform take scales no node");

    let opts = ufbx::LoadOpts {
        target_axes: ufbx::CoordinateAxes::right_handed_y_up(),
        target_unit_meters: 1.0,
        space_conversion: ufbx::SpaceConversion::ModifyGeometry,
        inherit_mode_handling: ufbx::InheritModeHandling::Preserve,
        ..Default::default()
    };
    let scene =
        ufbx::load_file(&clip_file.display().to_string(), opts).unwrap_or_else(|e| panic!("{e:?}"));
    // Each of throng's vertices is a control point of the FBX mesh: the one at its rest position.
    let prim = &model.meshes[0].primitives[0];
    let rest = &scene.meshes[0].vertices;
    let control: Vec<usize> = prim
        .positions
        .iter()
        .map(|p| {
            rest.iter()
                .position(|q| Vec3::new(q.x as f32, q.y as f32, q.z as f32) == *p)
                .expect("a control point at this rest position")
        })
        .collect();
    let mut skinner = ModelSkinner::with_static_meshes(&model);
    let (mut worst, mut moved) = (0.0f64, 0.0f64);
    let frames = (clip.duration * 24.0).round() as usize;
    for k in 0..=frames {
        let t = k as f64 / 24.0;
        let ours = posed(&model, &mut skinner, Some(0), t as f32);
        let theirs = ufbx_skinned(&scene, t);
        let diag = f64::from(diagonal(&ours));
        for (v, p) in ours.iter().enumerate() {
            let q = theirs[control[v]];
            worst = worst.max(p.as_dvec3().distance(q) / diag);
            moved = moved.max(prim.positions[v].as_dvec3().distance(q) / diag);
        }
    }
    // Same curves evaluated at their own frames: the difference is f32 rounding of keys,
    // matrices and positions (throng poses in f32), a few 1e-7 of the size.
    eprintln!("deform from its clip file vs ufbx: largest difference {worst:e} of the diagonal; vertices move up to {moved:.3} of it");
    assert!(worst < 1e-5, "{worst}");
    assert!(moved > 0.05, "the take barely moves the mesh");
}
