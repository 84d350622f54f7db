//! Anchor (attachment socket) world transforms, blended exactly like skin matrices.

use crate::{InstanceRecord, InstanceTransform, RuntimeError};
use glam::Mat4;
use throng_asset::AnchorTexture;
use throng_contract::{layer_taps, GpuClipTable};

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
        let taps = layer_taps(l, clips, rows);
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
