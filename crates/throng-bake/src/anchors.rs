//! Anchor selection and naming (docs/design.md §3 "Anchors"): which nodes get a model-space transform
//! per frame-table row. Anchors are named by node name (`node<index>` when unnamed); a name
//! already taken by an earlier anchor gets `#<node index>` appended, so names stay unique.

use crate::error::BakeError;
use crate::settings::AnchorSelection;
use std::collections::HashSet;
use throng_anim::Model;
use throng_asset::AnchorInfo;

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
/// node-index order: what `--anchors auto` picks.
pub fn auto_nodes(model: &Model) -> Vec<usize> {
    let is_joint = joints(model);
    (0..model.nodes.len())
        .filter(|&n| !is_joint[n])
        .filter(|&n| {
            // Walk up at most node-count steps (the importer rejects cycles; this stays finite
            // even if it did not).
            let mut p = model.nodes[n].parent;
            let mut steps = 0;
            while let Some(i) = p {
                if is_joint.get(i).copied().unwrap_or(false) {
                    return true;
                }
                steps += 1;
                if steps > model.nodes.len() {
                    break;
                }
                p = model.nodes.get(i).and_then(|x| x.parent);
            }
            false
        })
        .collect()
}

/// Finds a node by name, by `node<index>`, or by `name#<index>` (to pick one of several nodes
/// with the same name). The error names the node and says what to do.
pub fn find_node(model: &Model, name: &str, file: &str, what: &str) -> Result<usize, BakeError> {
    let bad = |why: String| BakeError::InvalidOption {
        file: file.to_string(),
        what: format!("{what} {name:?}: {why}"),
    };
    if let Some((base, idx)) = name.rsplit_once('#') {
        if let Ok(i) = idx.parse::<usize>() {
            if i < model.nodes.len() && model.nodes[i].display_name(i) == base {
                return Ok(i);
            }
        }
    }
    let hits: Vec<usize> = (0..model.nodes.len())
        .filter(|&i| model.nodes[i].display_name(i) == name)
        .collect();
    match hits.as_slice() {
        [one] => Ok(*one),
        [] => Err(bad(
            "no node has this name (give a glTF node name, or node<index> for an unnamed node)"
                .into(),
        )),
        many => Err(bad(format!(
            "{} nodes have this name; pick one as {}",
            many.len(),
            many.iter()
                .map(|i| format!("{name}#{i}"))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
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
