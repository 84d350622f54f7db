//! Anchor selection and naming (docs/design.md §3 "Anchors"): which nodes get a model-space transform
//! per frame-table row. Anchors are named by node name (`node<index>` when unnamed); a name
//! already taken by an earlier anchor gets `#<node index>` appended, so names stay unique.

use crate::error::BakeError;
use crate::nodes::{below_marked, find_node};
use crate::sample::Sampled;
use crate::settings::AnchorSelection;
use glam::Mat4;
use std::collections::HashSet;
use throng_anim::Model;
use throng_asset::{AnchorInfo, AnchorTexture};

/// Every node that is a joint of some skin.
pub fn joints(model: &Model) -> Vec<bool> {
    let mut j = vec![false; model.nodes.len()];
    for s in &model.skins {
        for &n in &s.joints {
            if let Some(x) = j.get_mut(n) {
                *x = true;
            }
        }
    }
    j
}

/// Nodes that are not joints but have a joint among their ancestors (weapon sockets, props), in
/// node-index order: what [`AnchorSelection::Auto`] picks.
pub fn auto_nodes(model: &Model) -> Vec<usize> {
    let is_joint = joints(model);
    let below = below_marked(model, &is_joint);
    (0..model.nodes.len())
        .filter(|&n| !is_joint[n] && below[n])
        .collect()
}

/// The anchors `sel` asks for, named and in order. A node named twice is an error.
pub fn resolve(
    model: &Model,
    sel: &AnchorSelection,
    file: &str,
) -> Result<Vec<AnchorInfo>, BakeError> {
    let nodes = match sel {
        AnchorSelection::None => return Ok(Vec::new()),
        AnchorSelection::Auto => auto_nodes(model),
        AnchorSelection::Nodes(names) => {
            let mut v = Vec::with_capacity(names.len());
            for n in names {
                let i = find_node(model, n, file, "anchor")?;
                if v.contains(&i) {
                    return Err(BakeError::InvalidOption {
                        file: file.to_string(),
                        what: format!("anchor {n:?} is asked for twice"),
                    });
                }
                v.push(i);
            }
            v
        }
    };
    let mut taken = HashSet::new();
    Ok(nodes
        .into_iter()
        .map(|n| {
            let base = model.nodes[n].display_name(n);
            let name = if taken.contains(&base) {
                format!("{base}#{n}")
            } else {
                base
            };
            taken.insert(name.clone());
            AnchorInfo { name, node: n }
        })
        .collect())
}

/// Stage: the anchor texture (`mat3x4-f32`), `None` without anchors. Per row and anchor the 3
/// rows of the affine part of the anchor node's model-space transform, which `sampled` tracked
/// as its first `anchors.len()` nodes, with root motion taken off (`corrections`, `G⁻¹` per
/// row) when it was extracted: anchors ride on the same motion as the poses.
pub fn texture(
    anchors: &[AnchorInfo],
    sampled: &Sampled,
    corrections: Option<&[Mat4]>,
) -> Option<AnchorTexture> {
    if anchors.is_empty() {
        return None;
    }
    let rows = sampled.rows();
    let mut data = Vec::with_capacity(rows * anchors.len() * 12);
    for r in 0..rows {
        for a in 0..anchors.len() {
            let mut m = sampled.node(r, a);
            if let Some(c) = corrections {
                m = c[r] * m;
            }
            for row in 0..3 {
                for col in 0..4 {
                    data.push(m.col(col)[row]);
                }
            }
        }
    }
    Some(AnchorTexture {
        anchors: anchors.to_vec(),
        rows: rows as u32,
        data,
    })
}
