//! Root-motion extraction (docs/design.md §2 "Root motion").
//!
//! For clip row k the motion root's model-space transform `M_k` (translation `p_k`, rotation
//! `R_k`) is compared with the clip's first frame `M_0`: `dyaw` = the twist about +Y of
//! `R_k · R_0⁻¹` (radians, right-handed, unwrapped so the curve is continuous), and the extracted
//! motion is the rigid transform `G_k = T(dx, 0, dz) · R_y(dyaw)` — the composition
//! throng-runtime's `Rm` uses, rotation about the model origin — with `(dx, dz)` the X, Z of
//! `p_k − R_y(dyaw) · p_0` (file units): `G_k` carries the frame-0 root onto frame k's
//! horizontally, so the baked root keeps its frame-0 X, Z and yaw. Without yaw (or with the root
//! over the origin at frame 0) `(dx, dz)` is simply the root's horizontal travel `p_k − p_0`.
//! Every baked pose, anchor and bound of row k is stored as `G_k⁻¹ · (source)`; putting it back
//! is `G_k · (baked)` ([`motion_matrix`]).
//!
//! Hook for other per-row data (VAT): [`corrections`] returns `G_k⁻¹` per frame-table row (identity
//! on the rest row and without extraction); pre-multiply model-space positions by it (normals by
//! its rotation part, which it is).

use crate::error::BakeError;
use crate::nodes::{depths, find_node};
use crate::palette::Palette;
use crate::settings::RootMotion;
use glam::{Mat4, Quat, Vec3};
use rayon::prelude::*;
use throng_anim::Model;
use throng_asset::ClipInfo;

/// `G = T(dx, 0, dz) · R_y(dyaw)` for one curve sample `(dx, dz, dyaw)` (file units, radians).
pub fn motion_matrix(rm: [f32; 3]) -> Mat4 {
    Mat4::from_translation(Vec3::new(rm[0], 0.0, rm[1])) * Mat4::from_rotation_y(rm[2])
}

/// The motion root node asked for: the named node, or the top-most non-rigid palette entry
/// (fewest ancestors; the first in palette order on a tie; a rigid part when there is no skin).
pub fn motion_root(
    model: &Model,
    palette: &Palette,
    setting: &RootMotion,
    file: &str,
) -> Result<Option<usize>, BakeError> {
    let RootMotion::Extract { motion_root } = setting else {
        return Ok(None);
    };
    if let Some(name) = motion_root {
        return find_node(model, name, file, "motion root").map(Some);
    }
    let depth = depths(model);
    let pick = |rigid: bool| {
        palette
            .entries
            .iter()
            .filter(|e| e.rigid == rigid)
            .min_by_key(|e| depth.get(e.node).copied().unwrap_or(0))
            .map(|e| e.node)
    };
    Ok(pick(false).or_else(|| pick(true)))
}

/// Wraps an angle into (−π, π].
fn wrap(a: f64) -> f64 {
    let tau = std::f64::consts::TAU;
    let w = a - tau * ((a + std::f64::consts::PI) / tau).floor();
    if w <= -std::f64::consts::PI {
        w + tau
    } else {
        w
    }
}

/// Twist of `q` about +Y (radians in (−π, π]): swing-twist decomposition, where the twist is the
/// normalised `(0, q.y, 0, q.w)`.
fn yaw_of(q: Quat) -> f64 {
    if q.y.abs() < 1e-12 && q.w.abs() < 1e-12 {
        return 0.0; // a pure half-turn about a horizontal axis: no defined yaw
    }
    wrap(2.0 * (q.y as f64).atan2(q.w as f64))
}

fn rotation_of(m: &Mat4) -> Quat {
    let (_, r, _) = m.to_scale_rotation_translation();
    r.normalize()
}

/// Per clip the `(dx, dz, dyaw)` curve (one per frame) from the motion root's model-space
/// transform at every frame-table row (`root[row]`), and per row the correction `G⁻¹`.
pub fn extract(root: &[Mat4], clips: &[ClipInfo]) -> (Vec<Vec<[f32; 3]>>, Vec<Mat4>) {
    let mut corr = vec![Mat4::IDENTITY; root.len()];
    let mut curves = Vec::with_capacity(clips.len());
    for c in clips {
        let first = c.first_row as usize;
        let m0 = root[first];
        let (t0, r0) = (m0.w_axis.truncate(), rotation_of(&m0));
        let r0_inv = r0.inverse();
        let mut curve = Vec::with_capacity(c.frames as usize);
        let mut prev = 0.0f64;
        for k in 0..c.frames as usize {
            let m = root[first + k];
            let t = m.w_axis.truncate();
            let raw = yaw_of(rotation_of(&m) * r0_inv);
            // Unwrap: the step from the previous frame is taken as the short way round.
            let yaw = if k == 0 { 0.0 } else { prev + wrap(raw - prev) };
            prev = yaw;
            // Translation of G chosen so that G maps the frame-0 root onto frame k's
            // horizontally: t = p_k − R_y(yaw) · p_0 (X, Z), so the baked root stays put even
            // while turning about a pivot away from the origin. Equals p_k − p_0 without yaw.
            let p0 =
                Mat4::from_rotation_y(yaw as f32).transform_vector3(Vec3::new(t0.x, 0.0, t0.z));
            let rm = [t.x - p0.x, t.z - p0.z, yaw as f32];
            corr[first + k] = motion_matrix(rm).inverse();
            curve.push(rm);
        }
        curves.push(curve);
    }
    (curves, corr)
}

/// Stage: takes the root motion out of the sampled rows. From the motion root's model-space
/// transform per row (`root`), stores each clip's curve in `clips` and applies `G⁻¹` per row to
/// every skin matrix (`rows × entries`, row-major), so bounds, the bone texture and VATs, which
/// derive from them, carry no motion. Returns `G⁻¹` per row for the anchors.
pub fn remove(
    root: &[Mat4],
    clips: &mut [ClipInfo],
    matrices: &mut [Mat4],
    entries: usize,
) -> Vec<Mat4> {
    let (curves, corr) = extract(root, clips);
    for (c, curve) in clips.iter_mut().zip(curves) {
        c.root_motion = Some(curve);
    }
    matrices
        .par_chunks_mut(entries.max(1))
        .zip(corr.par_iter())
        .for_each(|(m, g)| m.iter_mut().for_each(|x| *x = *g * *x));
    corr
}

/// The extracted motion `G` of `clip` at frame `frame` plus `frac` towards the next one (the
/// curve lerped like the rows, as throng-runtime does); `None` when the clip has no root motion.
/// Putting it back: `G · (decoded baked position)`.
pub fn motion_at(clip: &ClipInfo, frame: u32, frac: f32) -> Option<Mat4> {
    let c = clip.root_motion.as_ref()?;
    let last = c.len().checked_sub(1)?;
    let i = (frame as usize).min(last);
    let (a, b) = (c[i], c[(i + 1).min(last)]);
    let l = |x: f32, y: f32| x + (y - x) * frac;
    Some(motion_matrix([l(a[0], b[0]), l(a[1], b[1]), l(a[2], b[2])]))
}

/// Per frame-table row, the correction `G⁻¹` that a baked asset's root motion applied to row
/// data (identity on the rest row and when the asset has no root motion): the hook for data baked
/// from the same rows elsewhere (VAT).
pub fn corrections(clips: &[ClipInfo], rows: u32) -> Vec<Mat4> {
    let mut out = vec![Mat4::IDENTITY; rows as usize];
    for c in clips {
        if let Some(curve) = &c.root_motion {
            for (k, rm) in curve.iter().enumerate() {
                if let Some(slot) = out.get_mut(c.first_row as usize + k) {
                    *slot = motion_matrix(*rm).inverse();
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaw_is_the_twist_about_y_even_under_a_tilted_frame_zero() {
        // Frame 0 tilted 90° about X (a Z-up export); frame k = the same turned 0.7 rad about Y.
        let r0 = Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
        let rk = Quat::from_rotation_y(0.7) * r0;
        assert!((yaw_of(rk * r0.inverse()) - 0.7).abs() < 1e-6);
    }

    #[test]
    fn curve_unwraps_past_half_turns() {
        let clip = ClipInfo {
            times: None,
            name: "spin".into(),
            first_row: 1,
            frames: 5,
            fps: 1.0,
            step: 1.0,
            duration: 4.0,
            loop_mode: Default::default(),
            events: vec![],
            root_motion: None,
            bounds: throng_asset::Aabb::EMPTY,
            additive: None,
            interpolation: Default::default(),
            periodic: false,
            degree: 0,
        };
        let mut root = vec![Mat4::IDENTITY];
        for k in 0..5 {
            root.push(
                Mat4::from_translation(Vec3::new(k as f32, 2.0, -(k as f32)))
                    * Mat4::from_rotation_y(k as f32 * 1.5),
            );
        }
        let (curves, corr) = extract(&root, &[clip]);
        for (k, rm) in curves[0].iter().enumerate() {
            assert!((rm[0] - k as f32).abs() < 1e-6 && (rm[1] + k as f32).abs() < 1e-6);
            assert!((rm[2] - k as f32 * 1.5).abs() < 1e-5, "{k}: {}", rm[2]);
            // The corrected root has no horizontal motion or yaw left.
            let c = corr[1 + k] * root[1 + k];
            assert!(c.abs_diff_eq(Mat4::from_translation(Vec3::new(0.0, 2.0, 0.0)), 1e-5));
        }
    }
}
