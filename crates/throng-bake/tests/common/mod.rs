//! Hand-built models for tests that need exact control over the rig, and the shared keyframed
//! characters the fidelity measurements read.
#![allow(dead_code)]

use glam::{Mat4, Quat, Vec3};
use throng_anim::{
    Channel, ChannelValues, Clip, Interpolation, LocalTransform, Mesh, Model, Node, Primitive,
    Skin, Trs,
};

fn node(name: &str, parent: Option<usize>, children: Vec<usize>, trs: Trs) -> Node {
    Node {
        name: Some(name.into()),
        parent,
        children,
        local: LocalTransform::Trs(trs),
        mesh: None,
        skin: None,
    }
}

/// Two joints (`root` at the origin, `tip` 1 unit up) skinning a 4-vertex strip, with one clip
/// of `duration` seconds that bends `tip` about Z (keys at 0, d/2, d), and — when `scale` is
/// given — scales `tip` by it at the middle key (e.g. non-uniform).
pub fn two_joint_rig(duration: f32, scale: Option<Vec3>) -> Model {
    let tip_bind = Vec3::new(0.0, 1.0, 0.0);
    let mut nodes = vec![
        node("root", None, vec![1], Trs::IDENTITY),
        node(
            "tip",
            Some(0),
            vec![],
            Trs {
                translation: tip_bind,
                ..Trs::IDENTITY
            },
        ),
        node("mesh", None, vec![], Trs::IDENTITY),
    ];
    nodes[2].mesh = Some(0);
    nodes[2].skin = Some(0);
    let skin = Skin {
        name: None,
        joints: vec![0, 1],
        inverse_bind_matrices: vec![Mat4::IDENTITY, Mat4::from_translation(-tip_bind)],
        skeleton: None,
    };
    let positions = vec![
        Vec3::new(0.1, 0.0, 0.0),
        Vec3::new(0.1, 1.0, 0.0),
        Vec3::new(0.1, 2.0, 0.0),
        Vec3::new(-0.1, 2.0, 0.0),
    ];
    let prim = Primitive {
        normals: vec![Vec3::Z; positions.len()],
        positions,
        indices: vec![0, 1, 2, 0, 2, 3],
        joint_sets: vec![vec![[0, 1, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0]]],
        weight_sets: vec![vec![
            [1.0, 0.0, 0.0, 0.0],
            [0.5, 0.5, 0.0, 0.0],
            [1.0, 0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0, 0.0],
        ]],
        ..Default::default()
    };
    let times = vec![0.0, duration * 0.5, duration];
    let mut channels = vec![Channel {
        node: 1,
        interpolation: Interpolation::Linear,
        times: times.clone(),
        values: ChannelValues::Rotation(vec![
            Quat::IDENTITY,
            Quat::from_rotation_z(0.8),
            Quat::from_rotation_z(1.6),
        ]),
    }];
    if let Some(s) = scale {
        channels.push(Channel {
            node: 1,
            interpolation: Interpolation::Linear,
            times,
            values: ChannelValues::Scale(vec![Vec3::ONE, s, Vec3::ONE]),
        });
    }
    one_primitive_model(
        nodes,
        vec![0, 1, 2],
        skin,
        prim,
        clip("bend", duration, channels),
    )
}

/// A clip of `duration` seconds with `channels`, the default loop mode and no events.
fn clip(name: &str, duration: f32, channels: Vec<Channel>) -> Clip {
    Clip {
        name: name.into(),
        duration,
        channels,
        loop_mode: Default::default(),
        events: vec![],
        skipped_morph_channels: 0,
    }
}

/// A model of `nodes` (evaluated in `eval_order`) with one skin, one mesh of one primitive and
/// one clip: the shape every hand-built rig here has.
fn one_primitive_model(
    nodes: Vec<Node>,
    eval_order: Vec<usize>,
    skin: Skin,
    prim: Primitive,
    clip: Clip,
) -> Model {
    Model {
        nodes,
        eval_order,
        skins: vec![skin],
        meshes: vec![Mesh {
            name: None,
            primitives: vec![prim],
        }],
        clips: vec![clip],
        ..Default::default()
    }
}

/// A chain of `joints` joints 0.1 apart on +Y, each rotating about Z with keys at 30 fps, one
/// clip of exactly `frames` frames at 30 fps, and 10 vertices per joint skinned 70/30 to the
/// joint and its parent.
pub fn chain_rig(joints: usize, frames: usize) -> Model {
    dense_chain_rig(joints, frames, 10)
}

/// [`chain_rig`] with `per_joint` vertices per joint (a ring climbing the joint's segment).
pub fn dense_chain_rig(joints: usize, frames: usize, per_joint: usize) -> Model {
    let fps = 30.0f32;
    let duration = (frames - 1) as f32 / fps;
    let mut nodes = Vec::with_capacity(joints + 1);
    for j in 0..joints {
        nodes.push(Node {
            name: Some(format!("j{j}")),
            parent: j.checked_sub(1),
            children: if j + 1 < joints { vec![j + 1] } else { vec![] },
            local: LocalTransform::Trs(Trs {
                translation: if j == 0 { Vec3::ZERO } else { Vec3::Y * 0.1 },
                ..Trs::IDENTITY
            }),
            mesh: None,
            skin: None,
        });
    }
    nodes.push(Node {
        name: Some("mesh".into()),
        parent: None,
        children: vec![],
        local: LocalTransform::Trs(Trs::IDENTITY),
        mesh: Some(0),
        skin: Some(0),
    });
    let ibms = (0..joints)
        .map(|j| Mat4::from_translation(-Vec3::Y * 0.1 * j as f32))
        .collect();
    let (mut positions, mut js, mut ws) = (Vec::new(), Vec::new(), Vec::new());
    for j in 0..joints {
        for v in 0..per_joint {
            let a = v as f32 * 0.628;
            positions.push(Vec3::new(
                0.05 * a.cos(),
                0.1 * j as f32 + 0.1 * v as f32 / per_joint as f32,
                0.05 * a.sin(),
            ));
            js.push([j as u16, j.saturating_sub(1) as u16, 0, 0]);
            ws.push(if j == 0 {
                [1.0, 0.0, 0.0, 0.0]
            } else {
                [0.7, 0.3, 0.0, 0.0]
            });
        }
    }
    let n = positions.len() as u32;
    let prim = Primitive {
        normals: vec![Vec3::Z; positions.len()],
        positions,
        indices: (0..n - n % 3).collect(),
        joint_sets: vec![js],
        weight_sets: vec![ws],
        ..Default::default()
    };
    let times: Vec<f32> = (0..frames).map(|k| k as f32 / fps).collect();
    let channels = (0..joints)
        .map(|j| Channel {
            node: j,
            interpolation: Interpolation::Linear,
            times: times.clone(),
            values: ChannelValues::Rotation(
                times
                    .iter()
                    .map(|t| Quat::from_rotation_z(0.3 * (t * 2.0 + j as f32 * 0.1).sin()))
                    .collect(),
            ),
        })
        .collect();
    let skin = Skin {
        name: None,
        joints: (0..joints).collect(),
        inverse_bind_matrices: ibms,
        skeleton: None,
    };
    let order = (0..=joints).collect();
    one_primitive_model(nodes, order, skin, prim, clip("wave", duration, channels))
}

/// A glTF binary whose scene is one chain of `nodes` plain nodes (no names, no transforms),
/// the last holding a triangle, the first rotated by a 1 s clip: a rigid part under an
/// animated node `nodes − 1` levels deep (the deep-hierarchy case of the loaders and the bake,
/// about 23 bytes of JSON per node).
pub fn chain_glb(nodes: usize) -> Vec<u8> {
    let nodes = nodes.max(1);
    let mut bin: Vec<u8> = Vec::new();
    for f in [0.0f32, 0., 0., 1., 0., 0., 0., 1., 0.] {
        bin.extend_from_slice(&f.to_le_bytes());
    }
    for f in [0.0f32, 1.0] {
        bin.extend_from_slice(&f.to_le_bytes());
    }
    let h = std::f32::consts::FRAC_1_SQRT_2;
    for f in [0.0f32, 0., 0., 1., 0., h, 0., h] {
        bin.extend_from_slice(&f.to_le_bytes());
    }
    let mut json = String::with_capacity(nodes * 24 + 1024);
    json.push_str(r#"{"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],"nodes":["#);
    for i in 0..nodes - 1 {
        json.push_str(&format!(r#"{{"children":[{}]}},"#, i + 1));
    }
    json.push_str(r#"{"mesh":0}],"meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],"#);
    json.push_str(&format!(r#""buffers":[{{"byteLength":{}}}],"#, bin.len()));
    json.push_str(
        r#""bufferViews":[{"buffer":0,"byteOffset":0,"byteLength":36},{"buffer":0,"byteOffset":36,"byteLength":8},{"buffer":0,"byteOffset":44,"byteLength":32}],"accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]},{"bufferView":1,"componentType":5126,"count":2,"type":"SCALAR","min":[0],"max":[1]},{"bufferView":2,"componentType":5126,"count":2,"type":"VEC4"}],"animations":[{"channels":[{"sampler":0,"target":{"node":0,"path":"rotation"}}],"samplers":[{"input":1,"output":2}]}]}"#,
    );
    throng_testdata::glb::pack(json.as_bytes(), Some(&bin))
}

/// `THRONG_ASSETS/name` imported; `None` when the asset is missing (the caller decides whether
/// that fails).
pub fn import(name: &str) -> Option<Model> {
    let p = throng_testdata::asset(name)?;
    Some(throng_gltf::import(&p).unwrap_or_else(|e| panic!("{name}: {e}")))
}

/// The shared keyframed characters (the fidelity gate's table, `tests/joint_rates.rs`): each
/// one found in `THRONG_ASSETS`, kaykit's Manny with its movement clips.
pub fn keyframed_characters() -> Vec<(String, Model)> {
    let mut out: Vec<(String, Model)> = [
        "Fox.glb",
        "CesiumMan.glb",
        "Quaternius_Enemy.glb",
        "Quaternius_MantaRay.glb",
        "RiggedFigure.glb",
        "kenney/character.glb",
    ]
    .iter()
    .filter_map(|n| import(n).map(|m| (n.to_string(), m)))
    .collect();
    if let (Some(mut manny), Some(anims)) = (
        import("kaykit/manny_med_mod.gltf"),
        import("kaykit/Med_MovementBasic.glb"),
    ) {
        throng_gltf::import_clips_from(&mut manny, &anims, "Med_MovementBasic.glb");
        out.push(("kaykit/manny+Med_MovementBasic".into(), manny));
    }
    out
}
