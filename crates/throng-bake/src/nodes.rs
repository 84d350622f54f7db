//! Nodes by name, and their ancestors: the lookup that anchors, layer masks and the motion root
//! share (each names nodes the same way, docs/settings.md). It sits below all three, so none of
//! them needs another to find a node. Whole-tree questions ([`below_marked`], [`depths`]) are
//! one pass over the nodes parents first, so they stay linear in deep hierarchies.

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

/// Per node, whether it lies strictly below a node marked in `marks` (one of its ancestors is
/// marked): one pass over the nodes parents first, linear in the node count however deep the
/// tree (a walk up from every node would be quadratic on a long chain).
pub fn below_marked(model: &Model, marks: &[bool]) -> Vec<bool> {
    let mut below = vec![false; model.nodes.len()];
    for &n in &model.eval_order {
        if let Some(p) = model.nodes.get(n).and_then(|x| x.parent) {
            let marked = marks.get(p).copied().unwrap_or(false);
            let inherited = below.get(p).copied().unwrap_or(false);
            if let Some(b) = below.get_mut(n) {
                *b = marked || inherited;
            }
        }
    }
    below
}

/// Per node, its number of ancestors (0 for a root), in one pass parents first.
pub fn depths(model: &Model) -> Vec<usize> {
    let mut depth = vec![0usize; model.nodes.len()];
    for &n in &model.eval_order {
        if let Some(p) = model.nodes.get(n).and_then(|x| x.parent) {
            let d = depth.get(p).copied().unwrap_or(0) + 1;
            if let Some(x) = depth.get_mut(n) {
                *x = d;
            }
        }
    }
    depth
}

/// The ancestors of node `n`, its parent first. The importer rejects cycles; the walk stops
/// after as many steps as there are nodes all the same, so it stays finite even if it did not.
pub fn ancestors(model: &Model, n: usize) -> impl Iterator<Item = usize> + '_ {
    std::iter::successors(model.nodes.get(n).and_then(|x| x.parent), |&i| {
        model.nodes.get(i).and_then(|x| x.parent)
    })
    .take(model.nodes.len() + 1)
}
