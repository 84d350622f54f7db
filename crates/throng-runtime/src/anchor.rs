//! Anchor (attachment socket) world transforms, blended exactly like skin matrices.

use crate::{InstanceRecord, InstanceTransform, RuntimeError};
use glam::Mat4;
use throng_asset::AnchorTexture;
use throng_contract::{row_taps, GpuClipTable, RowTaps};

/// World transform (column-major, file units) of `anchor` for an instance showing `record`:
/// per layer the model-space anchor matrices of the layer's row taps in `clips` (docs/design.md
/// §3 "Row interpolation": `row` and `row + 1` mixed by `frac` on a linear clip, four rows on a
/// cubic one; kept inside the clip and the table) are summed by tap weight, the layers by
/// weight (as the shader blends skin matrices, so props stay on the skinned hands), and the
/// result is composed with the instance transform: `world = T · Σ_l w_l · Σ_k w_k A(row_k)`.
/// All weights 0 (disabled) shows the rest row 0.
pub fn anchor_world(
    record: &InstanceRecord,
    transform: &InstanceTransform,
    clips: &GpuClipTable,
    anchors: &AnchorTexture,
    anchor: usize,
) -> Result<Mat4, RuntimeError> {
    if anchor >= anchors.anchors.len() {
        return Err(RuntimeError::NoSuchAnchor {
            anchor,
            anchors: anchors.anchors.len(),
        });
    }
    let rows = anchors.rows;
    let need = rows as usize * anchors.anchors.len() * 12;
    if rows == 0 || anchors.data.len() < need {
        return Err(RuntimeError::AnchorRows { rows, row: 0 });
    }
    let mut acc = Mat4::ZERO;
    let mut wsum = 0.0;
    for l in &record.layers {
        if l.weight <= 0.0 {
            continue;
        }
        let row = l.row as u32;
        if row >= rows {
            return Err(RuntimeError::AnchorRows { rows, row });
        }
        // As the shader's layer_taps: inside the layer's clip (when known) and the table.
        let known = (l.clip_index() as usize) < clips.clips.len();
        let clip = clips.clip(l.clip_index());
        let last = if known {
            (clip.first_row + clip.frames.max(1) - 1).min(rows - 1)
        } else {
            rows - 1
        };
        let next = (row + 1).min(last).max(row);
        let taps = if known && last > clip.first_row {
            row_taps(clip.first_row, last, row, next, l.frac, clip.flags)
        } else {
            RowTaps::linear(row, next, l.frac)
        };
        let mut m = Mat4::ZERO;
        for (r, w) in taps.iter() {
            m += anchors.matrix(anchor, r) * w;
        }
        acc += m * l.weight;
        wsum += l.weight;
    }
    if wsum <= 0.0 {
        acc = anchors.matrix(anchor, 0);
    }
    Ok(transform.to_mat4() * acc)
}
