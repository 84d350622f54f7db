//! Reference CPU skinning: the classic per-vertex baseline every baked and GPU result is measured
//! against. All influences of every JOINTS_n/WEIGHTS_n set are used (no truncation).
//!
//! - Linear blend skinning: `p' = Σ w_i · S_i · p`; normals by the inverse-transpose of the
//!   blended linear part, tangents by the linear part with w flipped where its determinant is
//!   negative (docs/design.md §2).
//! - Dual quaternion skinning (Kavan, Collins, Žára, O'Sullivan 2007, "Skinning with dual
//!   quaternions"): each skin matrix as rotation + translation (+ uniform scale, blended
//!   linearly), dual quaternions blended linearly in the first one's hemisphere, then normalised.

use crate::model::{BindingKind, MeshBinding, Model, Primitive};
use crate::sample::skin_matrices;
use glam::{Mat3, Mat4, Quat, Vec3, Vec4};

/// Per-vertex influences in compressed-row form, repaired as docs/design.md §2 says: zero weights
/// dropped, all-zero vertices bound to joint 0 with weight 1, sums renormalised to 1.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Influences {
    /// `offsets[v]..offsets[v + 1]` indexes `joints`/`weights` for vertex v.
    pub offsets: Vec<u32>,
    /// Joint indices into the skin's joint list (rigid parts: always 0).
    pub joints: Vec<u16>,
    pub weights: Vec<f32>,
}

/// What [`Influences::from_primitive`] repaired.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct InfluenceRepairs {
    /// Vertices whose weights were all zero (bound to joint 0).
    pub zero_weight_vertices: usize,
    /// Vertices whose weight sum differed from 1 by more than [`WEIGHT_SUM_TOLERANCE`].
    pub renormalised_vertices: usize,
    /// The sum furthest from 1 that was renormalised.
    pub worst_sum: f32,
}

/// Weight sums within this of 1 are renormalised silently: unorm8 weights cannot always sum to
/// exactly 1 (each is a multiple of 1/255).
pub const WEIGHT_SUM_TOLERANCE: f32 = 2.0e-3;

impl Influences {
    /// Every vertex bound to joint 0 with weight 1 (a rigid part).
    pub fn rigid(vertex_count: usize) -> Influences {
        Influences {
            offsets: (0..=vertex_count as u32).collect(),
            joints: vec![0; vertex_count],
            weights: vec![1.0; vertex_count],
        }
    }

    /// Gathers every JOINTS_n/WEIGHTS_n set of `prim` and repairs the weights.
    pub fn from_primitive(prim: &Primitive) -> (Influences, InfluenceRepairs) {
        let v_count = prim.vertex_count();
        let mut out = Influences {
            offsets: Vec::with_capacity(v_count + 1),
            joints: Vec::new(),
            weights: Vec::new(),
        };
        let mut rep = InfluenceRepairs {
            worst_sum: 1.0,
            ..Default::default()
        };
        out.offsets.push(0);
        let sets = prim.joint_sets.len().min(prim.weight_sets.len());
        for v in 0..v_count {
            let start = out.joints.len();
            for s in 0..sets {
                let (js, ws) = (&prim.joint_sets[s][v], &prim.weight_sets[s][v]);
                for i in 0..4 {
                    if ws[i] > 0.0 {
                        out.joints.push(js[i]);
                        out.weights.push(ws[i]);
                    }
                }
            }
            let sum: f32 = out.weights[start..].iter().sum();
            if out.joints.len() == start {
                rep.zero_weight_vertices += 1;
                out.joints.push(0);
                out.weights.push(1.0);
            } else {
                if (sum - 1.0).abs() > WEIGHT_SUM_TOLERANCE {
                    rep.renormalised_vertices += 1;
                    if (sum - 1.0).abs() > (rep.worst_sum - 1.0).abs() {
                        rep.worst_sum = sum;
                    }
                }
                for w in &mut out.weights[start..] {
                    *w /= sum;
                }
            }
            out.offsets.push(out.joints.len() as u32);
        }
        (out, rep)
    }

    pub fn vertex_count(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// (joint, weight) pairs of vertex `v`.
    pub fn of(&self, v: usize) -> impl Iterator<Item = (u16, f32)> + '_ {
        let (a, b) = (self.offsets[v] as usize, self.offsets[v + 1] as usize);
        self.joints[a..b]
            .iter()
            .copied()
            .zip(self.weights[a..b].iter().copied())
    }
}

/// Skinned vertex streams in model space.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SkinnedVertices {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    pub tangents: Option<Vec<Vec4>>,
}

/// Skinning method of the reference: throng-contract's one skinning enum (`Linear`, `DualQuat`).
pub use throng_contract::Skinning;

fn safe_normalize(v: Vec3) -> Vec3 {
    let n = v.normalize_or_zero();
    if n == Vec3::ZERO {
        v
    } else {
        n
    }
}

/// Sizes `out`'s streams to `prim`'s vertex count (tangents only when the primitive has them),
/// keeping their allocations; returns the vertex count. Every vertex is written after this.
fn size_outputs(prim: &Primitive, out: &mut SkinnedVertices) -> usize {
    let n = prim.vertex_count();
    out.positions.resize(n, Vec3::ZERO);
    out.normals.resize(n, Vec3::ZERO);
    if let Some(t) = &prim.tangents {
        out.tangents
            .get_or_insert_with(Vec::new)
            .resize(t.len(), Vec4::ZERO);
    } else {
        out.tangents = None;
    }
    n
}

/// Linear blend skinning job: skins `prim`'s vertices with `matrices` (one per joint of the
/// binding) into `out` (resized to the vertex count).
pub fn skin_lbs(
    prim: &Primitive,
    influences: &Influences,
    matrices: &[Mat4],
    out: &mut SkinnedVertices,
) {
    skin_primitive(Skinning::Linear, prim, influences, matrices, out)
}

/// One source vertex: position, normal and (when the primitive has them) tangent.
type Vertex = (Vec3, Vec3, Option<Vec4>);

/// Vertex by linear blend skinning: the weighted sum of its joints' matrices applied to the
/// position, its inverse-transpose to the normal.
fn lbs_vertex(joints: impl Iterator<Item = (Mat4, f32)>, (p, n, t): Vertex) -> Vertex {
    let m = joints.fold(Mat4::ZERO, |m, (j, w)| m + j * w);
    let lin = Mat3::from_mat4(m);
    let det = lin.determinant();
    let normal_m = if det.abs() > f32::MIN_POSITIVE {
        lin.inverse().transpose()
    } else {
        lin
    };
    let tangent = t.map(|t| {
        let w = if det < 0.0 { -t.w } else { t.w };
        safe_normalize(lin * t.truncate()).extend(w)
    });
    (m.transform_point3(p), safe_normalize(normal_m * n), tangent)
}

/// A unit dual quaternion `real + ε·dual` for a rigid transform (rotation, then translation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DualQuat {
    pub real: Quat,
    pub dual: Quat,
}

impl DualQuat {
    /// From a rotation and a translation: dual = ½ · (t, 0) · real.
    pub fn from_rotation_translation(r: Quat, t: Vec3) -> DualQuat {
        let tq = Quat::from_xyzw(t.x, t.y, t.z, 0.0);
        DualQuat {
            real: r,
            dual: (tq * r) * 0.5,
        }
    }

    pub fn translation(&self) -> Vec3 {
        let t = (self.dual * self.real.conjugate()) * 2.0;
        Vec3::new(t.x, t.y, t.z)
    }

    /// Transforms a point (assumes unit `real`).
    pub fn transform_point(&self, p: Vec3) -> Vec3 {
        self.real * p + self.translation()
    }
}

/// Splits an affine matrix into (rotation, translation, uniform scale); the scale is the mean
/// column norm (exact for uniform scale, which dual-quaternion skinning requires).
pub fn decompose_uniform(m: &Mat4) -> (Quat, Vec3, f32) {
    let lin = Mat3::from_mat4(*m);
    let s = (lin.x_axis.length() + lin.y_axis.length() + lin.z_axis.length()) / 3.0;
    let rot = if s > 0.0 { lin * (1.0 / s) } else { lin };
    let mut q = Quat::from_mat3(&rot).normalize();
    if lin.determinant() < 0.0 {
        // A mirrored matrix has no rotation quaternion; keep the closest rotation.
        q = Quat::from_mat3(&(rot * -1.0)).normalize();
    }
    (q, m.w_axis.truncate(), s)
}

/// Vertex by dual quaternion skinning (Kavan et al. 2007, dual-quaternion linear blending):
/// each joint's matrix as a unit dual quaternion and a uniform scale, blended with the sign of
/// the first influence's rotation.
fn dq_vertex(joints: impl Iterator<Item = (Mat4, f32)>, (p, n, t): Vertex) -> Vertex {
    let mut real = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
    let mut dual = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
    let mut scale = 0.0;
    let mut first: Option<Quat> = None;
    for (m, w) in joints {
        let (r, t, s) = decompose_uniform(&m);
        let dq = DualQuat::from_rotation_translation(r, t);
        let pivot = *first.get_or_insert(dq.real);
        let sign = if pivot.dot(dq.real) < 0.0 { -w } else { w };
        real += dq.real * sign;
        dual += dq.dual * sign;
        scale += s * w;
    }
    let len = real.length();
    let dq = if len > 0.0 {
        DualQuat {
            real: real / len,
            dual: dual / len,
        }
    } else {
        DualQuat::from_rotation_translation(Quat::IDENTITY, Vec3::ZERO)
    };
    (
        dq.transform_point(p * scale),
        safe_normalize(dq.real * n),
        t.map(|t| safe_normalize(dq.real * t.truncate()).extend(t.w)),
    )
}

/// The matrices that move one binding: the skin matrices of its skin, or (rigid part) the
/// node's own model-space transform as the single "joint" 0.
pub fn binding_matrices(
    model: &Model,
    binding: &MeshBinding,
    model_space: &[Mat4],
    out: &mut Vec<Mat4>,
) {
    match binding.kind {
        BindingKind::Skinned { skin } => {
            let skin = &model.skins[skin];
            out.resize(skin.joints.len(), Mat4::IDENTITY);
            skin_matrices(skin, model_space, out);
        }
        BindingKind::Rigid => {
            out.clear();
            out.push(model_space[binding.node]);
        }
    }
}

/// Influences of one primitive of a binding (rigid parts: every vertex on joint 0).
pub fn binding_influences(
    binding: &MeshBinding,
    prim: &Primitive,
) -> (Influences, InfluenceRepairs) {
    match binding.kind {
        BindingKind::Skinned { .. } => Influences::from_primitive(prim),
        BindingKind::Rigid => (
            Influences::rigid(prim.vertex_count()),
            InfluenceRepairs {
                worst_sum: 1.0,
                ..Default::default()
            },
        ),
    }
}

/// Skinning job: skins `prim`'s vertices with `matrices` (one per joint of the binding) by the
/// chosen method into `out` (resized to the vertex count).
pub fn skin_primitive(
    method: Skinning,
    prim: &Primitive,
    influences: &Influences,
    matrices: &[Mat4],
    out: &mut SkinnedVertices,
) {
    let n = size_outputs(prim, out);
    for v in 0..n {
        // A joint index past the matrices (a malformed skin) moves nothing: the identity.
        let joints = influences.of(v).map(|(j, w)| {
            let m = matrices.get(j as usize).copied().unwrap_or(Mat4::IDENTITY);
            (m, w)
        });
        let tangent = prim.tangents.as_ref().map(|t| t[v]);
        let source = (prim.positions[v], prim.normals[v], tangent);
        let (p, n, t) = match method {
            Skinning::Linear => lbs_vertex(joints, source),
            Skinning::DualQuat => dq_vertex(joints, source),
        };
        out.positions[v] = p;
        out.normals[v] = n;
        if let (Some(t), Some(dst)) = (t, out.tangents.as_mut()) {
            dst[v] = t;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prim(positions: Vec<Vec3>, joints: Vec<[u16; 4]>, weights: Vec<[f32; 4]>) -> Primitive {
        Primitive {
            normals: vec![Vec3::Y; positions.len()],
            positions,
            joint_sets: vec![joints],
            weight_sets: vec![weights],
            ..Default::default()
        }
    }

    #[test]
    fn lbs_of_known_rig_gives_analytic_positions() {
        // Joint 0: translate +2 on X. Joint 1: rotate 90° about Z. Vertex (1,0,0) half/half:
        // 0.5·(3,0,0) + 0.5·(0,1,0) = (1.5, 0.5, 0).
        let m0 = Mat4::from_translation(Vec3::new(2.0, 0.0, 0.0));
        let m1 = Mat4::from_rotation_z(std::f32::consts::FRAC_PI_2);
        let p = prim(
            vec![Vec3::X, Vec3::X],
            vec![[0, 1, 0, 0], [1, 0, 0, 0]],
            vec![[0.5, 0.5, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]],
        );
        let (inf, _) = Influences::from_primitive(&p);
        let mut out = SkinnedVertices::default();
        skin_lbs(&p, &inf, &[m0, m1], &mut out);
        assert!((out.positions[0] - Vec3::new(1.5, 0.5, 0.0)).length() < 1e-6);
        assert!((out.positions[1] - Vec3::new(0.0, 1.0, 0.0)).length() < 1e-6);
        // Normal +Y rotated 90° about Z is -X.
        assert!((out.normals[1] - Vec3::NEG_X).length() < 1e-6);
    }

    #[test]
    fn weights_are_repaired() {
        let p = prim(
            vec![Vec3::ZERO, Vec3::ZERO],
            vec![[3, 1, 0, 0], [2, 0, 0, 0]],
            vec![[0.0, 0.0, 0.0, 0.0], [0.85, 0.85, 0.0, 0.0]],
        );
        let (inf, rep) = Influences::from_primitive(&p);
        assert_eq!(rep.zero_weight_vertices, 1);
        assert_eq!(rep.renormalised_vertices, 1);
        assert!((rep.worst_sum - 1.7).abs() < 1e-6);
        assert_eq!(inf.of(0).collect::<Vec<_>>(), vec![(0, 1.0)]);
        assert_eq!(inf.of(1).collect::<Vec<_>>(), vec![(2, 0.5), (0, 0.5)]);
    }

    #[test]
    fn dq_equals_lbs_for_single_influence_and_preserves_length() {
        let m = Mat4::from_rotation_translation(
            Quat::from_rotation_y(1.0) * Quat::from_rotation_x(0.3),
            Vec3::new(1.0, 2.0, 3.0),
        );
        let p = prim(
            vec![Vec3::new(0.3, -0.2, 0.9)],
            vec![[0; 4]],
            vec![[1.0, 0.0, 0.0, 0.0]],
        );
        let (inf, _) = Influences::from_primitive(&p);
        let (mut a, mut b) = (SkinnedVertices::default(), SkinnedVertices::default());
        skin_lbs(&p, &inf, &[m], &mut a);
        skin_primitive(Skinning::DualQuat, &p, &inf, &[m], &mut b);
        assert!((a.positions[0] - b.positions[0]).length() < 1e-5);
        // Half/half between +90° and -90° about Z: DQ keeps the distance from the pivot,
        // LBS collapses the point to the axis.
        let r1 = Mat4::from_rotation_z(std::f32::consts::FRAC_PI_2);
        let r2 = Mat4::from_rotation_z(-std::f32::consts::FRAC_PI_2);
        let p = prim(
            vec![Vec3::X],
            vec![[0, 1, 0, 0]],
            vec![[0.5, 0.5, 0.0, 0.0]],
        );
        let (inf, _) = Influences::from_primitive(&p);
        skin_primitive(Skinning::DualQuat, &p, &inf, &[r1, r2], &mut b);
        skin_lbs(&p, &inf, &[r1, r2], &mut a);
        assert!((b.positions[0].length() - 1.0).abs() < 1e-5);
        assert!(a.positions[0].length() < 1e-5);
    }

    #[test]
    fn mirrored_matrix_flips_tangent_w_and_uses_inverse_transpose() {
        let m = Mat4::from_scale(Vec3::new(-1.0, 2.0, 1.0));
        let mut p = prim(vec![Vec3::ONE], vec![[0; 4]], vec![[1.0, 0.0, 0.0, 0.0]]);
        p.normals = vec![Vec3::new(1.0, 1.0, 0.0).normalize()];
        p.tangents = Some(vec![Vec4::new(1.0, 0.0, 0.0, 1.0)]);
        let (inf, _) = Influences::from_primitive(&p);
        let mut out = SkinnedVertices::default();
        skin_lbs(&p, &inf, &[m], &mut out);
        assert_eq!(out.positions[0], Vec3::new(-1.0, 2.0, 1.0));
        // Inverse-transpose of diag(-1, 2, 1) is diag(-1, 0.5, 1).
        let expect = Vec3::new(-1.0, 0.5, 0.0).normalize();
        assert!((out.normals[0] - expect).length() < 1e-6);
        let t = out.tangents.as_ref().map(|t| t[0]);
        assert_eq!(t, Some(Vec4::new(-1.0, 0.0, 0.0, -1.0)));
    }
}
