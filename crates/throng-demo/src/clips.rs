//! The fox's animation clips, generated from periodic pose functions and sampled at 30 fps
//! with LINEAR interpolation (glTF 2.0 §3.11). Every joint but the root gets a rotation channel;
//! the hips also get a translation channel (the body bob). Clips play in place (no forward root
//! motion). Looping clips are periodic in their duration and their last key is a copy of the
//! first, so they loop seamlessly. Angles in radians, times in seconds, lengths in metres.
//!
//! Rotation conventions (bind rotations are identity, so these are model axes): a positive
//! angle about +X swings a downward-pointing limb backwards (towards −Z) and lifts a
//! backward-pointing tail; +Y yaws towards the fox's left (+X).

use crate::skeleton::{
    self, Joint, Leg, CHEST, EAR_L, EAR_R, HEAD, HIPS, LEGS, NECK, SPINE, TAIL, TAIL_LEN,
};
use glam::{Mat4, Quat, Vec3};
use std::f32::consts::{PI, TAU};

/// Key rate of every clip (frames per second).
pub const FPS: u32 = 30;

/// How a clip plays past its end; written to `animations[i].extras.throng.loop`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DemoLoop {
    Loop,
    Once,
}

impl DemoLoop {
    pub fn as_str(self) -> &'static str {
        match self {
            DemoLoop::Loop => "loop",
            DemoLoop::Once => "once",
        }
    }
}

/// One sampled clip: key times and, per animated joint, its rotation keys.
#[derive(Debug, Clone)]
pub(crate) struct ClipData {
    pub name: &'static str,
    pub duration: f32,
    pub loop_mode: DemoLoop,
    pub times: Vec<f32>,
    /// `rotations[j][k]`: local rotation of joint `j` at key `k` (joint 0, the root, unused).
    pub rotations: Vec<Vec<Quat>>,
    /// Local translation of the hips at each key.
    pub hips_translation: Vec<Vec3>,
    /// (time in seconds, name), sorted by time.
    pub events: Vec<(f32, String)>,
}

/// Local pose of every joint: rotations and the hips' translation.
struct Pose {
    rot: Vec<Quat>,
    hips: Vec3,
}

/// How the hips height is corrected so the paws meet the ground (y = 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ground {
    /// Keep the designed height.
    Free,
    /// The lowest paw touches the ground at every key (walking: always a foot in stance).
    Contact,
    /// Lift the body only where a paw would go below the ground (running keeps its flight).
    NoPenetration,
}

pub(crate) fn build_clips(joints: &[Joint]) -> Vec<ClipData> {
    let walk_steps = footsteps(1.0, &WALK_PHASE);
    let run_steps = footsteps(0.5, &RUN_PHASE);
    let sit_events = vec![(0.8, "hips_down".to_string()), (1.2, "seated".to_string())];
    vec![
        sample(
            joints,
            "idle",
            3.0,
            DemoLoop::Loop,
            Ground::Free,
            Vec::new(),
            idle,
        ),
        sample(
            joints,
            "walk",
            1.0,
            DemoLoop::Loop,
            Ground::Contact,
            walk_steps,
            walk,
        ),
        sample(
            joints,
            "run",
            0.5,
            DemoLoop::Loop,
            Ground::NoPenetration,
            run_steps,
            run,
        ),
        sample(
            joints,
            "sit",
            1.2,
            DemoLoop::Once,
            Ground::Free,
            sit_events,
            sit,
        ),
    ]
}

/// Points on the sole of each paw in the bind pose (model space, metres): pad, toe, toe tip.
fn sole_points(leg: &Leg) -> [Vec3; 3] {
    if leg.front {
        let x = leg.side * skeleton::FRONT_X;
        [
            Vec3::new(x, 0.002, 0.18),
            Vec3::new(x, 0.002, 0.22),
            Vec3::new(x, 0.02, 0.24),
        ]
    } else {
        let x = leg.side * skeleton::HIND_X;
        [
            Vec3::new(x, 0.005, -0.245),
            Vec3::new(x, 0.002, -0.20),
            Vec3::new(x, 0.02, -0.182),
        ]
    }
}

/// Lowest height (metres) of any paw's sole point in `pose` (forward kinematics, parents first).
fn lowest_paw(joints: &[Joint], pose: &Pose) -> f32 {
    let mut global: Vec<Mat4> = Vec::with_capacity(joints.len());
    for (i, j) in joints.iter().enumerate() {
        let t = if i == HIPS {
            pose.hips
        } else {
            skeleton::local_translation(joints, i)
        };
        let local = Mat4::from_rotation_translation(pose.rot[i], t);
        let g = match j.parent {
            Some(p) => global[p] * local,
            None => local,
        };
        global.push(g);
    }
    let mut lowest = f32::INFINITY;
    for leg in &LEGS {
        // Skinning matrix of the foot joint: global · inverse bind (a pure translation here).
        let skin = global[leg.foot] * Mat4::from_translation(-joints[leg.foot].bind_pos);
        for p in sole_points(leg) {
            lowest = lowest.min(skin.transform_point3(p).y);
        }
    }
    lowest
}

fn sample(
    joints: &[Joint],
    name: &'static str,
    duration: f32,
    loop_mode: DemoLoop,
    ground: Ground,
    events: Vec<(f32, String)>,
    pose_fn: fn(f32, f32, &mut Pose),
) -> ClipData {
    let joint_count = joints.len();
    let hips_bind = skeleton::local_translation(joints, HIPS);
    let frames = (duration * FPS as f32).round() as usize + 1;
    let mut times = Vec::with_capacity(frames);
    let mut rotations = vec![Vec::with_capacity(frames); joint_count];
    let mut hips_translation = Vec::with_capacity(frames);
    for k in 0..frames {
        // Computed in f64 so the last key time is exactly the duration.
        let t = (k as f64 / FPS as f64) as f32;
        let mut pose = Pose {
            rot: vec![Quat::IDENTITY; joint_count],
            hips: hips_bind,
        };
        pose_fn(t, duration, &mut pose);
        let lowest = lowest_paw(joints, &pose);
        match ground {
            Ground::Free => {}
            Ground::Contact => pose.hips.y -= lowest,
            Ground::NoPenetration => pose.hips.y -= lowest.min(0.0),
        }
        times.push(t);
        for (j, q) in pose.rot.iter().enumerate() {
            rotations[j].push(q.normalize());
        }
        hips_translation.push(pose.hips);
    }
    if loop_mode == DemoLoop::Loop {
        // Bit-exact seam: the periodic functions agree up to rounding; make it exact.
        for r in rotations.iter_mut() {
            r[frames - 1] = r[0];
        }
        hips_translation[frames - 1] = hips_translation[0];
    }
    let mut events = events;
    events.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
    ClipData {
        name,
        duration,
        loop_mode,
        times,
        rotations,
        hips_translation,
        events,
    }
}

fn rx(a: f32) -> Quat {
    Quat::from_rotation_x(a)
}
fn ry(a: f32) -> Quat {
    Quat::from_rotation_y(a)
}
fn rz(a: f32) -> Quat {
    Quat::from_rotation_z(a)
}

/// Phase offsets (fraction of a cycle) of the legs in `LEGS` order (front_l, front_r, hind_l,
/// hind_r). A foot lands at cycle fraction 0.75 − offset (see `footsteps`). Walk: lateral-
/// sequence walk, footfalls hind_l, front_l, hind_r, front_r a quarter cycle apart.
const WALK_PHASE: [f32; 4] = [0.75, 0.25, 0.0, 0.5];
/// Run: transverse gallop, footfalls hind_r, hind_l, then front_r, front_l half a cycle later.
const RUN_PHASE: [f32; 4] = [0.5, 0.6, 0.0, 0.1];

/// Phase angle of a leg at time t.
fn phase(t: f32, d: f32, offset: f32) -> f32 {
    TAU * (t / d + offset)
}

/// A foot touches down when its leg is furthest forward: upper angle `A·sin φ` is at its minimum,
/// φ = 3π/2, i.e. at cycle fraction 0.75 − offset.
fn footsteps(d: f32, offsets: &[f32; 4]) -> Vec<(f32, String)> {
    LEGS.iter()
        .zip(offsets)
        .map(|(leg, &o)| {
            let frac = (0.75 - o).rem_euclid(1.0);
            // Round to the key grid so the event sits on a key.
            let t = (frac * d * FPS as f32).round() / FPS as f32;
            (t % d, format!("footstep_{}", leg.label))
        })
        .collect()
}

/// One leg's swing: `amp` (radians) forward/back, and how much the lower leg and foot fold
/// while the leg swings forward (`lift` is 0 in stance, up to 1 mid-swing).
fn leg_swing(pose: &mut Pose, leg: &Leg, phi: f32, amp: f32, fold: f32) {
    let swing = amp * phi.sin();
    let lift = (-phi.cos()).max(0.0);
    if leg.front {
        // Front legs: the wrist folds the paw back in swing.
        pose.rot[leg.upper] = rx(swing);
        pose.rot[leg.lower] = rx(0.6 * fold * lift - 0.15 * swing);
        pose.rot[leg.foot] = rx(1.1 * fold * lift - 0.4 * swing);
    } else {
        // Hind legs: the stifle flexes and the hock pulls the paw up and forward in swing.
        pose.rot[leg.upper] = rx(swing - 0.3 * fold * lift);
        pose.rot[leg.lower] = rx(0.8 * fold * lift);
        pose.rot[leg.foot] = rx(-0.5 * fold * lift - 0.6 * swing);
    }
}

/// Every leg swinging at its phase offset of the stride (`offsets`, in `LEGS` order), with the
/// swing amplitude of the (front, hind) legs and the fold of [`leg_swing`].
fn gait(pose: &mut Pose, t: f32, d: f32, offsets: &[f32; 4], (front, hind): (f32, f32), fold: f32) {
    for (leg, &o) in LEGS.iter().zip(offsets) {
        let amp = if leg.front { front } else { hind };
        leg_swing(pose, leg, phase(t, d, o), amp, fold);
    }
}

fn tail_sway(pose: &mut Pose, t: f32, d: f32, cycles: f32, yaw: f32, lift: f32, pitch_wave: f32) {
    for k in 0..TAIL_LEN {
        let lag = 0.6 * k as f32;
        let w = TAU * cycles * t / d - lag;
        let a = yaw * (0.6 + 0.25 * k as f32) * w.sin();
        let p = lift + pitch_wave * (w + 0.5 * PI).sin();
        pose.rot[TAIL + k] = ry(a) * rx(p * (1.0 - 0.3 * k as f32));
    }
}

fn idle(t: f32, d: f32, pose: &mut Pose) {
    let w = TAU * t / d;
    // Two breaths per cycle.
    let breath = (2.0 * w).sin();
    pose.hips.y += 0.003 * breath;
    pose.rot[SPINE] = rx(0.01 * breath);
    pose.rot[CHEST] = rx(-0.015 * breath);
    // Looks left and right once, nods twice.
    pose.rot[NECK] = ry(0.25 * w.sin()) * rx(0.05 * (2.0 * w).sin());
    pose.rot[HEAD] = ry(0.15 * w.sin()) * rx(0.06 * (2.0 * w + 1.0).sin());
    // Ear twitches: short pulses, three per cycle, the ears out of phase.
    let pulse = |x: f32| x.sin().max(0.0).powi(8);
    pose.rot[EAR_L] = rz(-0.35 * pulse(3.0 * w));
    pose.rot[EAR_R] = rz(0.35 * pulse(3.0 * w + PI));
    for leg in LEGS {
        // Weight shifts a little from side to side.
        pose.rot[leg.upper] = rz(0.02 * w.sin());
    }
    tail_sway(pose, t, d, 1.0, 0.25, 0.1, 0.05);
}

fn walk(t: f32, d: f32, pose: &mut Pose) {
    let w = TAU * t / d;
    gait(pose, t, d, &WALK_PHASE, (0.38, 0.34), 0.9);
    // Two bobs per stride (one per pair of footfalls), lowest just after each front footfall.
    pose.hips.y += 0.008 * (2.0 * w).cos();
    pose.rot[HIPS] = ry(0.04 * w.sin()) * rz(0.03 * w.cos());
    pose.rot[SPINE] = ry(-0.03 * w.sin());
    pose.rot[CHEST] = ry(-0.03 * w.sin()) * rz(-0.03 * w.cos());
    pose.rot[NECK] = rx(0.04 * (2.0 * w).cos());
    pose.rot[HEAD] = rx(-0.04 * (2.0 * w).cos());
    pose.rot[EAR_L] = rx(0.05 * (2.0 * w).sin());
    pose.rot[EAR_R] = rx(0.05 * (2.0 * w).sin());
    tail_sway(pose, t, d, 1.0, 0.22, 0.05, 0.03);
}

fn run(t: f32, d: f32, pose: &mut Pose) {
    let w = TAU * t / d;
    gait(pose, t, d, &RUN_PHASE, (0.75, 0.65), 1.2);
    // Gallop: one big bob per stride; the back flexes while the hind legs reach forward and
    // extends while they push off.
    pose.hips.y += -0.02 + 0.03 * (w + 0.5 * PI).sin();
    let flex = w.sin();
    pose.rot[HIPS] = rx(-0.12 * flex);
    pose.rot[SPINE] = rx(0.1 * flex);
    pose.rot[CHEST] = rx(0.08 * flex);
    pose.rot[NECK] = rx(-0.1 * flex + 0.1);
    pose.rot[HEAD] = rx(-0.06 * flex + 0.1);
    pose.rot[EAR_L] = rx(0.35);
    pose.rot[EAR_R] = rx(0.35);
    tail_sway(pose, t, d, 1.0, 0.08, 0.12, 0.08);
}

fn sit(t: f32, d: f32, pose: &mut Pose) {
    let s = (t / d).clamp(0.0, 1.0);
    let e = s * s * (3.0 - 2.0 * s);
    // The rear goes down and the body tilts nose-up; the front legs stay planted vertically.
    let tilt = -0.62 * e;
    pose.hips += Vec3::new(0.0, -0.21, 0.05) * e;
    pose.rot[HIPS] = rx(tilt);
    pose.rot[SPINE] = rx(0.05 * e);
    pose.rot[CHEST] = rx(0.05 * e);
    pose.rot[NECK] = rx(0.25 * e);
    pose.rot[HEAD] = rx(0.22 * e);
    pose.rot[EAR_L] = rz(-0.1 * e);
    pose.rot[EAR_R] = rz(0.1 * e);
    for leg in LEGS {
        if leg.front {
            pose.rot[leg.upper] = rx(0.52 * e);
            pose.rot[leg.lower] = rx(0.0);
            pose.rot[leg.foot] = rx(0.0);
        } else {
            // Hind legs fold under the body: thigh forward, shin back, paw flat.
            pose.rot[leg.upper] = rx(-0.9 * e) * rz(leg.side * 0.12 * e);
            pose.rot[leg.lower] = rx(2.0 * e);
            pose.rot[leg.foot] = rx(-0.5 * e);
        }
    }
    // The tail lies down and curls to one side.
    for k in 0..TAIL_LEN {
        pose.rot[TAIL + k] = ry(0.35 * e) * rx(if k == 0 { 0.5 * e } else { 0.1 * e });
    }
}
