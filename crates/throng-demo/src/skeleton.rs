//! The fox's skeleton: 24 joints in a parent-before-child list. The bind pose has identity
//! rotations and unit scale, so every joint's local bind transform is a pure translation and
//! animation rotations read directly in model axes (+X = the fox's left, +Y up, +Z forward).
//! Positions are model-space metres.

use glam::{Mat4, Vec3};

pub(crate) const ROOT: usize = 0;
pub(crate) const HIPS: usize = 1;
pub(crate) const SPINE: usize = 2;
pub(crate) const CHEST: usize = 3;
pub(crate) const NECK: usize = 4;
pub(crate) const HEAD: usize = 5;
pub(crate) const EAR_L: usize = 6;
pub(crate) const EAR_R: usize = 7;
/// First joint of the tail chain (four joints, base to tip).
pub(crate) const TAIL: usize = 20;
pub(crate) const TAIL_LEN: usize = 4;

/// One leg: three joints (upper, lower, foot) and which side/end of the body it is on.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Leg {
    pub upper: usize,
    pub lower: usize,
    pub foot: usize,
    /// +1 for the left legs (+X), −1 for the right legs.
    pub side: f32,
    pub front: bool,
    /// Short name used in event names: "front_l", "hind_r", ...
    pub label: &'static str,
}

pub(crate) const LEGS: [Leg; 4] = [
    Leg {
        upper: 8,
        lower: 9,
        foot: 10,
        side: 1.0,
        front: true,
        label: "front_l",
    },
    Leg {
        upper: 11,
        lower: 12,
        foot: 13,
        side: -1.0,
        front: true,
        label: "front_r",
    },
    Leg {
        upper: 14,
        lower: 15,
        foot: 16,
        side: 1.0,
        front: false,
        label: "hind_l",
    },
    Leg {
        upper: 17,
        lower: 18,
        foot: 19,
        side: -1.0,
        front: false,
        label: "hind_r",
    },
];

/// Lateral offset of the front and hind legs from the midline (metres).
pub(crate) const FRONT_X: f32 = 0.075;
pub(crate) const HIND_X: f32 = 0.07;

#[derive(Debug, Clone)]
pub(crate) struct Joint {
    pub name: &'static str,
    pub parent: Option<usize>,
    /// Bind-pose position in model space (metres).
    pub bind_pos: Vec3,
}

/// Joint names, in joint order.
pub(crate) const NAMES: [&str; 24] = [
    "root",
    "hips",
    "spine",
    "chest",
    "neck",
    "head",
    "ear_l",
    "ear_r",
    "front_upper_l",
    "front_lower_l",
    "front_foot_l",
    "front_upper_r",
    "front_lower_r",
    "front_foot_r",
    "hind_upper_l",
    "hind_lower_l",
    "hind_foot_l",
    "hind_upper_r",
    "hind_lower_r",
    "hind_foot_r",
    "tail_0",
    "tail_1",
    "tail_2",
    "tail_3",
];

/// The joints, parents before children; index = skin joint index = glTF node index.
pub(crate) fn joints() -> Vec<Joint> {
    let (fx, hx) = (FRONT_X, HIND_X);
    // (parent, model-space bind position in metres), in the order of `NAMES`.
    let table: [(Option<usize>, [f32; 3]); 24] = [
        (None, [0.0, 0.0, 0.0]),
        (Some(ROOT), [0.0, 0.42, -0.20]),
        (Some(HIPS), [0.0, 0.435, -0.02]),
        (Some(SPINE), [0.0, 0.44, 0.15]),
        (Some(CHEST), [0.0, 0.47, 0.23]),
        (Some(NECK), [0.0, 0.59, 0.31]),
        (Some(HEAD), [0.04, 0.65, 0.295]),
        (Some(HEAD), [-0.04, 0.65, 0.295]),
        // Front legs: shoulder, elbow, wrist.
        (Some(CHEST), [fx, 0.40, 0.17]),
        (Some(8), [fx, 0.24, 0.15]),
        (Some(9), [fx, 0.07, 0.16]),
        (Some(CHEST), [-fx, 0.40, 0.17]),
        (Some(11), [-fx, 0.24, 0.15]),
        (Some(12), [-fx, 0.07, 0.16]),
        // Hind legs: hip, stifle (knee, forward), hock (back).
        (Some(HIPS), [hx, 0.40, -0.22]),
        (Some(14), [hx, 0.23, -0.17]),
        (Some(15), [hx, 0.09, -0.27]),
        (Some(HIPS), [-hx, 0.40, -0.22]),
        (Some(17), [-hx, 0.23, -0.17]),
        (Some(18), [-hx, 0.09, -0.27]),
        // Tail, base to tip.
        (Some(HIPS), [0.0, 0.45, -0.30]),
        (Some(TAIL), [0.0, 0.42, -0.42]),
        (Some(TAIL + 1), [0.0, 0.37, -0.53]),
        (Some(TAIL + 2), [0.0, 0.31, -0.63]),
    ];
    NAMES
        .iter()
        .zip(table)
        .map(|(name, (parent, p))| Joint {
            name,
            parent,
            bind_pos: Vec3::from(p),
        })
        .collect()
}

/// Local bind translation of joint `i` (its position relative to its parent, metres).
pub(crate) fn local_translation(joints: &[Joint], i: usize) -> Vec3 {
    match joints[i].parent {
        Some(p) => joints[i].bind_pos - joints[p].bind_pos,
        None => joints[i].bind_pos,
    }
}

/// Model-space bind matrices, composed from the local translations exactly as a glTF reader
/// does (parent · local), so the inverse bind matrices match what importers compute.
pub(crate) fn bind_globals(joints: &[Joint]) -> Vec<Mat4> {
    let mut g: Vec<Mat4> = Vec::with_capacity(joints.len());
    for (i, j) in joints.iter().enumerate() {
        let local = Mat4::from_translation(local_translation(joints, i));
        let m = match j.parent {
            Some(p) => g[p] * local,
            None => local,
        };
        g.push(m);
    }
    g
}
