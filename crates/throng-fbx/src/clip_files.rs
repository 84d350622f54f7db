//! Clips from other FBX files (`--clips`): giving the model the scale helper nodes that a
//! clip file has and the model's own file lacked.
//!
//! Maya's segment scale compensation (a joint ignores its parent's scale) has no glTF
//! counterpart, so ufbx moves a compensating joint's parent's scale onto a helper node,
//! `JOINT (scale)`, a child of `JOINT` that carries its scale, its skin clusters and its
//! children that do inherit the scale, while the compensating children stay under `JOINT`
//! itself. ufbx makes the helper only where the scale differs from 1 somewhere in the file: a
//! mesh file at rest has none, its clip file animating `joint1`'s scale has `joint1 (scale)`,
//! and the helper's scale keys had no node to bind to. Adding the helper to the model — at
//! identity, so that the rest pose is unchanged — gives them one.

use throng_anim::model::{LocalTransform, Model, Node, Trs};

use crate::nodes::breadth_first;

/// Suffix of ufbx's scale helper nodes' names (`nodes::node_name`).
const SCALE_HELPER: &str = " (scale)";

/// Adds to `model` every scale helper node of `clips` (an FBX import whose clips are to be
/// bound to `model` by node name) that `model` lacks: `NAME (scale)` under the node `NAME`, at
/// identity, taking over `NAME`'s skin joints, mesh and those children that are the helper's
/// children in `clips`. Call it before binding the clips (`throng_gltf::import_clips_from`).
///
/// Returns one note per helper added, for the model's warnings. Helpers whose node `model`
/// lacks are not added; binding then reports their channels as unmatched.
pub fn add_scale_helpers(model: &mut Model, clips: &Model) -> Vec<String> {
    let mut notes = Vec::new();
    for (hi, helper) in clips.nodes.iter().enumerate() {
        let Some(name) = helper.name.as_deref() else {
            continue;
        };
        let Some(owner) = name.strip_suffix(SCALE_HELPER) else {
            continue;
        };
        let parent_name = helper
            .parent
            .and_then(|p| clips.nodes.get(p))
            .and_then(|p| p.name.as_deref());
        if parent_name != Some(owner) || find(model, name).is_some() {
            continue;
        }
        let Some(x) = find(model, owner) else {
            continue;
        };
        let inheriting: Vec<&str> = clips
            .nodes
            .iter()
            .filter(|n| n.parent == Some(hi))
            .filter_map(|n| n.name.as_deref())
            .collect();
        insert_helper(model, x, name, &inheriting);
        notes.push(format!(
            "{name}: added under {owner:?} (at identity) to carry the scale that the clip files animate and that {owner:?}'s compensating children do not inherit"
        ));
    }
    if !notes.is_empty() {
        if let Some(order) = breadth_first(&model.nodes) {
            model.eval_order = order;
        }
    }
    notes
}

fn find(model: &Model, name: &str) -> Option<usize> {
    model
        .nodes
        .iter()
        .position(|n| n.name.as_deref() == Some(name))
}

/// Puts a helper named `name` under node `x`, moving `x`'s children named in `inheriting`,
/// its mesh and its skin joints onto the helper, as ufbx does in the files that have it.
fn insert_helper(model: &mut Model, x: usize, name: &str, inheriting: &[&str]) {
    let h = model.nodes.len();
    let moved: Vec<usize> = model.nodes[x]
        .children
        .iter()
        .copied()
        .filter(|&c| {
            model.nodes[c]
                .name
                .as_deref()
                .is_some_and(|n| inheriting.contains(&n))
        })
        .collect();
    for &c in &moved {
        model.nodes[c].parent = Some(h);
    }
    let owner = &mut model.nodes[x];
    owner.children.retain(|c| !moved.contains(c));
    owner.children.push(h);
    let helper = Node {
        name: Some(name.to_string()),
        parent: Some(x),
        children: moved,
        local: LocalTransform::Trs(Trs::IDENTITY),
        mesh: owner.mesh.take(),
        skin: owner.skin.take(),
    };
    model.nodes.push(helper);
    // The helper is at identity, so its world transform at rest is `x`'s and the inverse bind
    // matrices stay as they are.
    for skin in &mut model.skins {
        for j in &mut skin.joints {
            if *j == x {
                *j = h;
            }
        }
    }
}
