//! Nodes by name, and their ancestors: the lookup that anchors, layer masks and the motion root
//! share (each names nodes the same way, docs/settings.md). It sits below all three, so none of
//! them needs another to find a node.

use crate::error::BakeError;
use throng_anim::Model;

/// Finds a node by name, by `node<index>`, or by `name#<index>` (to pick one of several nodes
/// with the same name). `what` says what the name is for in the error (`anchor`, `motion
/// root`, …), which names the node and says what to do.
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

/// The ancestors of node `n`, its parent first. The importer rejects cycles; the walk stops
/// after as many steps as there are nodes all the same, so it stays finite even if it did not.
pub fn ancestors(model: &Model, n: usize) -> impl Iterator<Item = usize> + '_ {
    std::iter::successors(model.nodes.get(n).and_then(|x| x.parent), |&i| {
        model.nodes.get(i).and_then(|x| x.parent)
    })
    .take(model.nodes.len() + 1)
}
