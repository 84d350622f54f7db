//! The fox's shape: torso, neck, head, ears, four legs and a bushy tail, each a swept tube
//! (`shape.rs`) whose control points sit on the skeleton (`skeleton.rs`). Model-space metres,
//! +Y up, facing +Z; about 0.78 m tall at the ear tips and 1.1 m from nose to tail tip.

use crate::band::Band;
use crate::shape::{ctrl, MeshData, Tube};
use crate::skeleton::{
    Leg, CHEST, EAR_L, EAR_R, FRONT_X, HEAD, HIND_X, HIPS, LEGS, NECK, SPINE, TAIL,
};
use glam::Vec3;

/// Ring spacing along every tube (metres).
const SPACING: f32 = 0.012;

pub(crate) fn build_mesh() -> MeshData {
    let mut mesh = MeshData::default();
    for tube in tubes() {
        mesh.add_tube(&tube);
    }
    mesh
}

fn tubes() -> Vec<Tube> {
    let mut t = vec![torso(), neck(), head()];
    t.push(ear(EAR_L, 1.0));
    t.push(ear(EAR_R, -1.0));
    for leg in LEGS {
        t.push(if leg.front {
            front_leg(leg)
        } else {
            hind_leg(leg)
        });
    }
    t.push(tail());
    t
}

fn torso() -> Tube {
    Tube {
        ctrl: vec![
            ctrl([0.0, 0.445, -0.31], 0.07, 0.075, &[(HIPS, 1.0)]),
            ctrl([0.0, 0.435, -0.23], 0.092, 0.10, &[(HIPS, 1.0)]),
            ctrl(
                [0.0, 0.43, -0.11],
                0.088,
                0.098,
                &[(HIPS, 0.5), (SPINE, 0.5)],
            ),
            ctrl([0.0, 0.435, 0.01], 0.082, 0.094, &[(SPINE, 1.0)]),
            ctrl(
                [0.0, 0.435, 0.09],
                0.092,
                0.108,
                &[(SPINE, 0.5), (CHEST, 0.5)],
            ),
            ctrl([0.0, 0.43, 0.17], 0.098, 0.118, &[(CHEST, 1.0)]),
            ctrl(
                [0.0, 0.45, 0.25],
                0.075,
                0.085,
                &[(CHEST, 0.6), (NECK, 0.4)],
            ),
        ],
        side: Vec3::X,
        segments: 32,
        spacing: SPACING,
        band: Band::Body,
    }
}

fn neck() -> Tube {
    Tube {
        ctrl: vec![
            ctrl([0.0, 0.45, 0.18], 0.068, 0.075, &[(CHEST, 1.0)]),
            ctrl(
                [0.0, 0.50, 0.25],
                0.058,
                0.064,
                &[(CHEST, 0.3), (NECK, 0.7)],
            ),
            ctrl(
                [0.0, 0.555, 0.285],
                0.052,
                0.055,
                &[(NECK, 0.5), (HEAD, 0.5)],
            ),
            ctrl([0.0, 0.60, 0.305], 0.05, 0.05, &[(HEAD, 1.0)]),
        ],
        side: Vec3::X,
        segments: 20,
        spacing: SPACING,
        band: Band::Neck,
    }
}

fn head() -> Tube {
    Tube {
        ctrl: vec![
            ctrl([0.0, 0.605, 0.262], 0.05, 0.046, &[(HEAD, 1.0)]),
            ctrl([0.0, 0.61, 0.30], 0.068, 0.058, &[(HEAD, 1.0)]),
            ctrl([0.0, 0.59, 0.36], 0.046, 0.04, &[(HEAD, 1.0)]),
            ctrl([0.0, 0.57, 0.41], 0.024, 0.022, &[(HEAD, 1.0)]),
            ctrl([0.0, 0.56, 0.45], 0.012, 0.011, &[(HEAD, 1.0)]),
        ],
        side: Vec3::X,
        segments: 24,
        spacing: SPACING * 0.75,
        band: Band::Head,
    }
}

fn ear(joint: usize, s: f32) -> Tube {
    Tube {
        ctrl: vec![
            ctrl([s * 0.035, 0.63, 0.295], 0.034, 0.012, &[(HEAD, 1.0)]),
            ctrl(
                [s * 0.042, 0.66, 0.293],
                0.033,
                0.011,
                &[(HEAD, 0.5), (joint, 0.5)],
            ),
            ctrl([s * 0.052, 0.72, 0.29], 0.022, 0.008, &[(joint, 1.0)]),
            ctrl([s * 0.062, 0.78, 0.285], 0.004, 0.003, &[(joint, 1.0)]),
        ],
        side: Vec3::X,
        segments: 12,
        spacing: SPACING * 0.75,
        band: Band::Ear,
    }
}

fn front_leg(leg: Leg) -> Tube {
    let x = leg.side * FRONT_X;
    let (u, l, f) = (leg.upper, leg.lower, leg.foot);
    Tube {
        ctrl: vec![
            ctrl([x, 0.45, 0.17], 0.04, 0.05, &[(CHEST, 0.7), (u, 0.3)]),
            ctrl([x, 0.40, 0.17], 0.042, 0.05, &[(CHEST, 0.5), (u, 0.5)]),
            ctrl([x, 0.32, 0.165], 0.036, 0.042, &[(u, 1.0)]),
            ctrl([x, 0.24, 0.15], 0.028, 0.032, &[(u, 0.5), (l, 0.5)]),
            ctrl([x, 0.15, 0.155], 0.022, 0.025, &[(l, 1.0)]),
            ctrl([x, 0.07, 0.16], 0.019, 0.021, &[(l, 0.5), (f, 0.5)]),
            ctrl([x, 0.03, 0.18], 0.024, 0.028, &[(f, 1.0)]),
            ctrl([x, 0.02, 0.22], 0.022, 0.018, &[(f, 1.0)]),
        ],
        side: Vec3::X,
        segments: 16,
        spacing: SPACING,
        band: Band::Leg,
    }
}

fn hind_leg(leg: Leg) -> Tube {
    let x = leg.side * HIND_X;
    let (u, l, f) = (leg.upper, leg.lower, leg.foot);
    Tube {
        ctrl: vec![
            ctrl([x, 0.45, -0.23], 0.05, 0.06, &[(HIPS, 0.7), (u, 0.3)]),
            ctrl([x, 0.40, -0.22], 0.055, 0.07, &[(HIPS, 0.5), (u, 0.5)]),
            ctrl([x, 0.32, -0.19], 0.048, 0.06, &[(u, 1.0)]),
            ctrl([x, 0.23, -0.17], 0.032, 0.036, &[(u, 0.5), (l, 0.5)]),
            ctrl([x, 0.16, -0.22], 0.024, 0.027, &[(l, 1.0)]),
            ctrl([x, 0.09, -0.27], 0.02, 0.022, &[(l, 0.5), (f, 0.5)]),
            ctrl([x, 0.03, -0.245], 0.022, 0.025, &[(f, 1.0)]),
            ctrl([x, 0.02, -0.20], 0.022, 0.018, &[(f, 1.0)]),
        ],
        side: Vec3::X,
        segments: 16,
        spacing: SPACING,
        band: Band::Leg,
    }
}

fn tail() -> Tube {
    let (t0, t1, t2, t3) = (TAIL, TAIL + 1, TAIL + 2, TAIL + 3);
    Tube {
        ctrl: vec![
            ctrl([0.0, 0.46, -0.27], 0.03, 0.03, &[(HIPS, 1.0)]),
            ctrl([0.0, 0.45, -0.30], 0.035, 0.035, &[(HIPS, 0.5), (t0, 0.5)]),
            ctrl([0.0, 0.44, -0.36], 0.048, 0.046, &[(t0, 1.0)]),
            ctrl([0.0, 0.42, -0.42], 0.062, 0.058, &[(t0, 0.5), (t1, 0.5)]),
            ctrl([0.0, 0.395, -0.48], 0.07, 0.066, &[(t1, 1.0)]),
            ctrl([0.0, 0.37, -0.53], 0.07, 0.066, &[(t1, 0.5), (t2, 0.5)]),
            ctrl([0.0, 0.34, -0.58], 0.064, 0.06, &[(t2, 1.0)]),
            ctrl([0.0, 0.31, -0.63], 0.052, 0.05, &[(t2, 0.5), (t3, 0.5)]),
            ctrl([0.0, 0.28, -0.68], 0.036, 0.034, &[(t3, 1.0)]),
            ctrl([0.0, 0.255, -0.715], 0.016, 0.015, &[(t3, 1.0)]),
        ],
        side: Vec3::X,
        segments: 20,
        spacing: SPACING,
        band: Band::Tail,
    }
}
