//! Anchor (attachment socket) world transforms, blended exactly like skin matrices.

use crate::{InstanceRecord, InstanceTransform, RuntimeError};
use glam::Mat4;
use throng_asset::AnchorTexture;

/// World transform (column-major, file units) of `anchor` for an instance showing `record`:
/// per layer the model-space anchor matrices of `row` and `row + 1` (clamped to the table) are
/// lerped by `frac`, the layers are summed by weight (a lerp of matrices, as the shader blends
/// skin matrices, so props stay on the skinned hands), and the result is composed with the
/// instance transform: `world = T · Σ w_l · lerp(A(row_l), A(row_l + 1), frac_l)`. All weights 0
/// (disabled) shows the rest row 0.
pub fn anchor_world(
    record: &InstanceRecord,
    transform: &InstanceTransform,
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
        let next = (row + 1).min(rows - 1);
        let m =
            anchors.matrix(anchor, row) * (1.0 - l.frac) + anchors.matrix(anchor, next) * l.frac;
        acc += m * l.weight;
        wsum += l.weight;
    }
    if wsum <= 0.0 {
        acc = anchors.matrix(anchor, 0);
    }
    Ok(transform.to_mat4() * acc)
}
