//! Clip sampling jobs: clip time → local TRS of every node → model-space transforms → skin
//! matrices `S_j = W_j · IBM_j` (docs/design.md §2).
//!
//! Keyframe interpolation follows glTF 2.0 Appendix C: STEP holds the previous key, LINEAR lerps
//! translation and scale and slerps rotation along the short path, CUBICSPLINE is a Hermite
//! spline whose tangents are scaled by the key interval (rotations normalised afterwards).
//! Before the first key the first value holds, after the last key the last value (docs/cases.md 7).
//!
//! The jobs take explicit inputs and `&mut` outputs and allocate nothing per call; the scratch
//! they need lives in a [`Poser`] created once per model.

use crate::model::{Channel, ChannelValues, Clip, Interpolation, LocalTransform, Model, Skin, Trs};
use std::sync::Arc;

use glam::{Mat4, Quat, Vec3};

/// Position of `t` among `times`: the key index `k` and the fraction `s` ∈ [0, 1] towards key
/// `k + 1`. Clamps outside the key range (`s = 0` on the first or last key).
fn locate(times: &[f32], t: f32) -> (usize, f32) {
    let last = times.len().saturating_sub(1);
    if times.is_empty() || t <= times[0] {
        return (0, 0.0);
    }
    if t >= times[last] {
        return (last, 0.0);
    }
    // First key strictly greater than t; t is inside [times[k], times[k+1]).
    let k = times.partition_point(|&x| x <= t) - 1;
    let dt = times[k + 1] - times[k];
    let s = if dt > 0.0 { (t - times[k]) / dt } else { 0.0 };
    (k, s.clamp(0.0, 1.0))
}

/// Hermite basis (glTF 2.0 Appendix C, "Cubic Spline Interpolation").
fn hermite<T>(v0: T, out_tangent0: T, v1: T, in_tangent1: T, dt: f32, s: f32) -> T
where
    T: std::ops::Mul<f32, Output = T> + std::ops::Add<Output = T>,
{
    let s2 = s * s;
    let s3 = s2 * s;
    v0 * (2.0 * s3 - 3.0 * s2 + 1.0)
        + out_tangent0 * ((s3 - 2.0 * s2 + s) * dt)
        + v1 * (-2.0 * s3 + 3.0 * s2)
        + in_tangent1 * ((s3 - s2) * dt)
}

fn sample_vec3(interp: Interpolation, times: &[f32], values: &[Vec3], t: f32) -> Vec3 {
    let (k, s) = locate(times, t);
    match interp {
        Interpolation::Step => values[k],
        Interpolation::Linear => {
            if s == 0.0 || k + 1 >= times.len() {
                values[k]
            } else {
                values[k].lerp(values[k + 1], s)
            }
        }
        Interpolation::CubicSpline => {
            if s == 0.0 || k + 1 >= times.len() {
                values[3 * k + 1]
            } else {
                let dt = times[k + 1] - times[k];
                hermite(
                    values[3 * k + 1],
                    values[3 * k + 2],
                    values[3 * (k + 1) + 1],
                    values[3 * (k + 1)],
                    dt,
                    s,
                )
            }
        }
    }
}

fn sample_quat(interp: Interpolation, times: &[f32], values: &[Quat], t: f32) -> Quat {
    let (k, s) = locate(times, t);
    let q = match interp {
        Interpolation::Step => values[k],
        Interpolation::Linear => {
            if s == 0.0 || k + 1 >= times.len() {
                values[k]
            } else {
                let a = values[k];
                let mut b = values[k + 1];
                // Short path (docs/cases.md 10).
                if a.dot(b) < 0.0 {
                    b = -b;
                }
                a.slerp(b, s)
            }
        }
        Interpolation::CubicSpline => {
            if s == 0.0 || k + 1 >= times.len() {
                values[3 * k + 1]
            } else {
                let dt = times[k + 1] - times[k];
                let v = hermite(
                    glam::Vec4::from(values[3 * k + 1]),
                    glam::Vec4::from(values[3 * k + 2]),
                    glam::Vec4::from(values[3 * (k + 1) + 1]),
                    glam::Vec4::from(values[3 * (k + 1)]),
                    dt,
                    s,
                );
                Quat::from_vec4(v)
            }
        }
    };
    let len = q.length();
    if len > 0.0 {
        q / len
    } else {
        Quat::IDENTITY
    }
}

/// Evaluates one channel at time `t` and writes the animated property into `trs`.
pub fn apply_channel(channel: &Channel, t: f32, trs: &mut Trs) {
    let times = channel.times.as_slice();
    if times.is_empty() {
        return;
    }
    match &channel.values {
        ChannelValues::Translation(v) => {
            trs.translation = sample_vec3(channel.interpolation, times, v, t)
        }
        ChannelValues::Scale(v) => trs.scale = sample_vec3(channel.interpolation, times, v, t),
        ChannelValues::Rotation(v) => {
            trs.rotation = sample_quat(channel.interpolation, times, v, t)
        }
    }
}

/// Sampling job: local transforms of every node for `clip` at time `time` (seconds, glTF time;
/// `None` = rest pose). Output `locals` has one column-major matrix per node (glTF node order).
///
/// `scratch_trs` and `scratch_touched` are working space of length `model.nodes.len()`.
pub fn sample_locals(
    model: &Model,
    clip: Option<&Clip>,
    time: f32,
    scratch_trs: &mut [Trs],
    scratch_touched: &mut [bool],
    locals: &mut [Mat4],
) {
    for (i, node) in model.nodes.iter().enumerate() {
        scratch_trs[i] = node.local.trs();
        scratch_touched[i] = false;
    }
    if let Some(clip) = clip {
        for ch in &clip.channels {
            if ch.node < scratch_trs.len() {
                apply_channel(ch, time, &mut scratch_trs[ch.node]);
                scratch_touched[ch.node] = true;
            }
        }
    }
    for (i, node) in model.nodes.iter().enumerate() {
        locals[i] = local_matrix(&node.local, &scratch_trs[i], scratch_touched[i]);
    }
}

/// A node's local matrix from its sampled TRS.
fn local_matrix(local: &LocalTransform, trs: &Trs, animated: bool) -> Mat4 {
    match local {
        // A matrix node keeps its exact matrix (it may hold shear) unless a (non-conforming)
        // channel animates it.
        LocalTransform::Matrix(m) if !animated => *m,
        _ => trs.to_mat4(),
    }
}

/// Local-to-model job: one forward pass over `model.eval_order` (parents first). Every ancestor
/// transform, animated or not, is included (docs/cases.md 2); joints need not be in a scene (docs/cases.md 3).
pub fn locals_to_model(model: &Model, locals: &[Mat4], model_space: &mut [Mat4]) {
    compose(model, &model.eval_order, |_, n| locals[n], model_space);
}

/// `model_space[n] = model_space[parent] · local(k, n)` for the k-th node `n` of `order`
/// (parents first).
fn compose(
    model: &Model,
    order: &[usize],
    local: impl Fn(usize, usize) -> Mat4,
    model_space: &mut [Mat4],
) {
    for (k, &n) in order.iter().enumerate() {
        let l = local(k, n);
        model_space[n] = match model.nodes[n].parent {
            Some(p) => model_space[p] * l,
            None => l,
        };
    }
}

/// Skin matrices of one skin: `out[j] = W(joints[j]) · IBM_j` (docs/design.md §2).
pub fn skin_matrices(skin: &Skin, model_space: &[Mat4], out: &mut [Mat4]) {
    for (j, (&node, ibm)) in skin
        .joints
        .iter()
        .zip(skin.inverse_bind_matrices.iter())
        .enumerate()
    {
        out[j] = model_space[node] * *ibm;
    }
}

/// Reusable scratch for posing one model: sample once, then read model-space transforms.
#[derive(Debug)]
pub struct Poser {
    /// Per node (per posed node with [`Poser::of_nodes`], in `Subset::order`'s order).
    trs: Vec<Trs>,
    touched: Vec<bool>,
    locals: Vec<Mat4>,
    /// Per node of the model.
    model_space: Vec<Mat4>,
    /// The nodes posed (`None`: every node, in `model.eval_order`).
    only: Option<Arc<Subset>>,
}

/// The nodes a [`Poser::of_nodes`] poses: the given ones and their ancestors, parents first,
/// and each node's place in that list (`u32::MAX`: not posed).
#[derive(Debug)]
struct Subset {
    order: Vec<usize>,
    slot: Vec<u32>,
}

impl Clone for Poser {
    fn clone(&self) -> Poser {
        Poser {
            trs: self.trs.clone(),
            touched: self.touched.clone(),
            locals: self.locals.clone(),
            // a subset poser's unposed nodes stay untouched zeroed pages: not copied
            model_space: match self.only {
                Some(_) => bytemuck::zeroed_vec(self.model_space.len()),
                None => self.model_space.clone(),
            },
            only: self.only.clone(),
        }
    }
}

impl Poser {
    pub fn new(model: &Model) -> Poser {
        let n = model.nodes.len();
        Poser {
            trs: vec![Trs::IDENTITY; n],
            touched: vec![false; n],
            locals: vec![Mat4::IDENTITY; n],
            model_space: vec![Mat4::IDENTITY; n],
            only: None,
        }
    }

    /// A poser of `nodes` (indices past the model's nodes are ignored) and their ancestors
    /// alone; the other nodes' model-space transforms are zero. A bake reads only joints, rigid
    /// parts and anchors, and a file may hold far more nodes (a 200,000-node chain beside a
    /// small skin) that would otherwise be sampled and multiplied at every candidate time.
    /// Its clones share the node list; each costs memory for the posed nodes only (the
    /// model-space array is allocated zeroed, and its unposed pages are never touched).
    pub fn of_nodes(model: &Model, nodes: impl IntoIterator<Item = usize>) -> Poser {
        const NONE: u32 = u32::MAX;
        let mut slot = vec![NONE; model.nodes.len()];
        for n in nodes {
            let mut at = Some(n);
            while let Some(i) = at.filter(|&i| i < slot.len() && slot[i] == NONE) {
                slot[i] = 0;
                at = model.nodes[i].parent;
            }
        }
        let order: Vec<usize> = (model.eval_order.iter().copied())
            .filter(|&n| slot.get(n).is_some_and(|&s| s != NONE))
            .collect();
        for (k, &n) in order.iter().enumerate() {
            slot[n] = k as u32;
        }
        Poser {
            trs: vec![Trs::IDENTITY; order.len()],
            touched: vec![false; order.len()],
            locals: Vec::new(),
            model_space: bytemuck::zeroed_vec(model.nodes.len()),
            only: Some(Arc::new(Subset { order, slot })),
        }
    }

    /// Poses `model` with `clip` (index into `model.clips`; `None` or out of range = rest pose)
    /// at `time` seconds and returns every node's model-space transform (with
    /// [`Poser::of_nodes`], those of its nodes; the others are zero).
    pub fn pose(&mut self, model: &Model, clip: Option<usize>, time: f32) -> &[Mat4] {
        let clip = clip.and_then(|c| model.clips.get(c));
        match &self.only {
            None => {
                sample_locals(
                    model,
                    clip,
                    time,
                    &mut self.trs,
                    &mut self.touched,
                    &mut self.locals,
                );
            }
            Some(only) => {
                for (k, &i) in only.order.iter().enumerate() {
                    self.trs[k] = model.nodes[i].local.trs();
                    self.touched[k] = false;
                }
                for ch in clip.iter().flat_map(|c| &c.channels) {
                    match only.slot.get(ch.node) {
                        Some(&k) if k != u32::MAX => {
                            apply_channel(ch, time, &mut self.trs[k as usize]);
                            self.touched[k as usize] = true;
                        }
                        _ => {}
                    }
                }
            }
        }
        self.compose_sampled(model, |_, local| local);
        &self.model_space
    }

    /// The last [`Poser::pose`] with node `node`'s local transform followed by `turn` (in the
    /// node's own frame), its descendants carried along: a procedural touch on a sampled pose,
    /// such as a head looking around. Each call starts again from the sampled pose (turns do
    /// not add up); a node past the model's, or one a [`Poser::of_nodes`] does not pose, moves
    /// nothing.
    pub fn turn_local(&mut self, model: &Model, node: usize, turn: Mat4) -> &[Mat4] {
        self.compose_sampled(
            model,
            |n, local| if n == node { local * turn } else { local },
        );
        &self.model_space
    }

    /// The model-space transforms of the last sampled locals (all nodes, or a subset's in its
    /// order), each node's local passed through `edit(node, local)` first.
    fn compose_sampled(&mut self, model: &Model, edit: impl Fn(usize, Mat4) -> Mat4) {
        match &self.only {
            None => {
                let locals = &self.locals;
                let local = |_: usize, n: usize| edit(n, locals[n]);
                compose(model, &model.eval_order, local, &mut self.model_space);
            }
            Some(only) => {
                let (trs, touched) = (&self.trs, &self.touched);
                let local = |k: usize, n: usize| {
                    edit(n, local_matrix(&model.nodes[n].local, &trs[k], touched[k]))
                };
                compose(model, &only.order, local, &mut self.model_space);
            }
        }
    }

    /// Model-space transforms from the last [`Poser::pose`].
    pub fn model_space(&self) -> &[Mat4] {
        &self.model_space
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locate_clamps_and_finds_interval() {
        let t = [1.0, 2.0, 4.0];
        assert_eq!(locate(&t, 0.0), (0, 0.0));
        assert_eq!(locate(&t, 1.0), (0, 0.0));
        assert_eq!(locate(&t, 1.5), (0, 0.5));
        assert_eq!(locate(&t, 3.0), (1, 0.5));
        assert_eq!(locate(&t, 4.0), (2, 0.0));
        assert_eq!(locate(&t, 9.0), (2, 0.0));
        assert_eq!(locate(&[2.0], 5.0), (0, 0.0));
    }

    #[test]
    fn step_holds_previous_key() {
        let times = [0.0, 1.0];
        let v = [Vec3::ZERO, Vec3::ONE];
        assert_eq!(
            sample_vec3(Interpolation::Step, &times, &v, 0.99),
            Vec3::ZERO
        );
        assert_eq!(sample_vec3(Interpolation::Step, &times, &v, 1.0), Vec3::ONE);
    }

    #[test]
    fn cubic_matches_hand_computed_hermite() {
        // Keys at 0 and 2 s: values 0 and 1, out-tangent of key 0 = 1, in-tangent of key 1 = -1.
        let times = [0.0, 2.0];
        let v = [
            Vec3::ZERO,
            Vec3::ZERO,
            Vec3::splat(1.0),
            Vec3::splat(-1.0),
            Vec3::splat(1.0),
            Vec3::ZERO,
        ];
        // s = 0.5: h00 = 0.5, h10 = 0.125, h01 = 0.5, h11 = -0.125, dt = 2
        // p = 0 + 0.125·2·1 + 0.5·1 + (-0.125)·2·(-1) = 0.25 + 0.5 + 0.25 = 1.0
        let p = sample_vec3(Interpolation::CubicSpline, &times, &v, 1.0);
        assert!((p - Vec3::ONE).abs().max_element() < 1e-6, "{p}");
    }

    /// A turn of the middle node of a chain root → 1 m up → 1 m up moves the tip about the
    /// middle (whole-model and subset posers alike), leaves the root, and does not add up.
    #[test]
    fn a_turned_local_carries_its_descendants() {
        let node = |parent: Option<usize>, y: f32| crate::model::Node {
            name: None,
            parent,
            children: Vec::new(),
            local: LocalTransform::Matrix(Mat4::from_translation(Vec3::new(0.0, y, 0.0))),
            mesh: None,
            skin: None,
        };
        let model = Model {
            nodes: vec![node(None, 0.0), node(Some(0), 1.0), node(Some(1), 1.0)],
            eval_order: vec![0, 1, 2],
            ..Default::default()
        };
        let turn = Mat4::from_rotation_z(std::f32::consts::FRAC_PI_2);
        for mut poser in [Poser::new(&model), Poser::of_nodes(&model, [2])] {
            poser.pose(&model, None, 0.0);
            for _ in 0..2 {
                let m = poser.turn_local(&model, 1, turn);
                assert_eq!(m[0].w_axis.truncate(), Vec3::ZERO);
                assert_eq!(m[1].w_axis.truncate(), Vec3::new(0.0, 1.0, 0.0));
                let tip = m[2].w_axis.truncate();
                assert!((tip - Vec3::new(-1.0, 1.0, 0.0)).length() < 1e-6, "{tip}");
            }
            // a node that is not there moves nothing
            let m = poser.turn_local(&model, 7, turn);
            assert_eq!(m[2].w_axis.truncate(), Vec3::new(0.0, 2.0, 0.0));
        }
    }

    #[test]
    fn rotation_takes_short_path_and_stays_unit() {
        let a = Quat::from_rotation_y(0.1);
        let b = -Quat::from_rotation_y(0.3); // same rotation, other hemisphere
        let q = sample_quat(Interpolation::Linear, &[0.0, 1.0], &[a, b], 0.5);
        let expect = Quat::from_rotation_y(0.2);
        assert!(q.dot(expect).abs() > 1.0 - 1e-6);
        assert!((q.length() - 1.0).abs() < 1e-6);
    }
}
