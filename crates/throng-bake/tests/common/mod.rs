//! Hand-built models for tests that need exact control over the rig.
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
    Model {
        nodes,
        eval_order: vec![0, 1, 2],
        skins: vec![skin],
        meshes: vec![Mesh {
            name: None,
            primitives: vec![prim],
        }],
        materials: vec![],
        images: vec![],
        clips: vec![Clip {
            name: "bend".into(),
            duration,
            channels,
            loop_mode: Default::default(),
            events: vec![],
            skipped_morph_channels: 0,
        }],
        warnings: vec![],
    }
}
