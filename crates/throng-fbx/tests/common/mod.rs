//! Shared helpers of the FBX tests: the asset folder, and skinned positions of a whole model.

#![allow(dead_code)]

use std::path::PathBuf;

use glam::Vec3;
use throng_anim::{Model, ModelSkinner, SkinnedPart, Skinning};

/// `fbx/<rel>` in the shared assets, or None (outside CI) when the folder is missing.
pub fn fbx_asset(rel: &str) -> Option<PathBuf> {
    throng_testdata::asset(&format!("fbx/{rel}"))
}

/// Every vertex of every mesh of `model` (skinned, rigid and static parts), posed by `clip` at
/// `t` seconds (None: the rest pose), skinned on the CPU by throng-anim's reference linear
/// blend skinning, in model space.
pub fn posed(model: &Model, skinner: &mut ModelSkinner, clip: Option<usize>, t: f32) -> Vec<Vec3> {
    let mut parts: Vec<SkinnedPart> = Vec::new();
    skinner.skin(model, clip, t, Skinning::Linear, &mut parts);
    parts
        .iter()
        .flat_map(|p| p.vertices.positions.iter().copied())
        .collect()
}

/// Diagonal of the box around `points`.
pub fn diagonal(points: &[Vec3]) -> f32 {
    let (lo, hi) = points.iter().fold(
        (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        |(lo, hi), p| (lo.min(*p), hi.max(*p)),
    );
    if points.is_empty() {
        0.0
    } else {
        (hi - lo).length()
    }
}
