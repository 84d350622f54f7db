//! Stage: additive clips (docs/design.md §4 "Layer masks and additive layers"). Their rows in
//! the bone texture become deltas `Δ = S_ref⁻¹ · S` from the clip's pose at its reference time,
//! so a layer adds them on top of another clip; LODs and VATs keep the poses.

use crate::error::BakeError;
use crate::frames::clip_duration;
use crate::options::BakeOptions;
use crate::palette::Palette;
use glam::Mat4;
use throng_anim::{Model, Poser};
use throng_asset::ClipInfo;

/// Replaces every additive clip's skin matrices (`rows × entries`, row-major) by deltas and
/// marks the clip additive in `clips`. Returns the poses as they were, when any clip is
/// additive (for the stages that need poses). Errors when a reference matrix cannot be inverted.
pub fn apply(
    model: &Model,
    options: &BakeOptions,
    palette: &Palette,
    clips: &mut [ClipInfo],
    matrices: &mut [Mat4],
) -> Result<Option<Vec<Mat4>>, BakeError> {
    if options.additive.is_empty() {
        return Ok(None);
    }
    let poses = matrices.to_vec();
    let entries = palette.entries.len();
    for (name, &t_ref) in &options.additive {
        let Some(c) = model.clips.iter().position(|c| &c.name == name) else {
            continue; // validation reported it
        };
        let time = t_ref.min(clip_duration(&model.clips[c]) as f32);
        let mut poser = Poser::new(model);
        let ms = poser.pose(model, Some(c), time);
        let mut inverse = Vec::with_capacity(entries);
        for (j, s) in palette.skin_matrices(ms).enumerate() {
            let det = s.determinant();
            if !(det.is_finite() && det.abs() > 1e-12) {
                return Err(BakeError::SingularReference {
                    file: options.source_name.clone(),
                    clip: name.clone(),
                    time,
                    entry: j,
                    node: palette.entries[j].name.clone(),
                });
            }
            inverse.push(s.inverse());
        }
        let info = &mut clips[c];
        let (a, b) = (
            info.first_row as usize,
            (info.first_row + info.frames) as usize,
        );
        for r in a..b {
            for (m, inv) in matrices[r * entries..(r + 1) * entries]
                .iter_mut()
                .zip(&inverse)
            {
                *m = *inv * *m;
            }
        }
        info.additive = Some(time);
    }
    Ok(Some(poses))
}
