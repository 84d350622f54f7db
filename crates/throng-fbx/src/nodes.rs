//! The node hierarchy: every ufbx node but the scene root, with its local transform.

use throng_anim::model::{LocalTransform, Node, Trs};

use crate::convert::{finite, label, mat4, quat, v3};
use crate::error::ImportError;
use crate::Ctx;

/// Relative difference above which a node's TRS is not its exact matrix (shear from
/// non-uniform scale under rotation, or pivots TRS cannot hold): f32 rounding of a skeleton's
/// transforms stays far below it.
const TRS_MISMATCH: f32 = 1e-4;

/// Throng nodes, their evaluation order, and for each ufbx node (by `typed_id`) its throng
/// index (None for the scene root).
pub(crate) struct Nodes {
    pub nodes: Vec<Node>,
    pub eval_order: Vec<usize>,
    pub index: Vec<Option<usize>>,
}

impl Nodes {
    /// The throng node of a ufbx node.
    pub fn of(&self, node: &ufbx::Node) -> Option<usize> {
        self.index
            .get(node.element.typed_id as usize)
            .copied()
            .flatten()
    }
}

pub(crate) fn node_label(node: &ufbx::Node) -> String {
    label("node", &node.element.name, node.element.typed_id as usize)
}

/// The node's name; ufbx's helper nodes (which carry a scale that children must not inherit,
/// or a geometry transform) are named after the node they belong to, so that clips from other
/// files, which have the same helpers, bind to them by name.
fn node_name(n: &ufbx::Node) -> String {
    let parent = || {
        n.parent
            .as_ref()
            .map(|p| p.element.name.to_string())
            .unwrap_or_default()
    };
    if n.is_scale_helper && n.element.name.is_empty() {
        format!("{} (scale)", parent())
    } else if n.is_geometry_transform_helper && n.element.name.is_empty() {
        format!("{} (geometry)", parent())
    } else {
        n.element.name.to_string()
    }
}

pub(crate) fn read_nodes(ctx: &mut Ctx) -> Result<Nodes, ImportError> {
    let scene = ctx.scene;
    let mut index = vec![None; scene.nodes.len()];
    let mut nodes = Vec::with_capacity(scene.nodes.len());
    for (i, n) in scene.nodes.iter().enumerate() {
        if n.is_root {
            continue;
        }
        index[i] = Some(nodes.len());
        let element = node_label(n);
        let t = &n.local_transform;
        let trs = Trs {
            translation: v3(&t.translation),
            rotation: quat(&t.rotation).normalize(),
            scale: v3(&t.scale),
        };
        let m = mat4(&n.node_to_parent);
        finite(&m.to_cols_array(), &element, || "its transform".into()).map_err(|k| ctx.err(k))?;
        finite(&trs.translation.to_array(), &element, || {
            "its translation".into()
        })
        .map_err(|k| ctx.err(k))?;
        let exact = trs.to_mat4();
        let scale = m
            .abs()
            .to_cols_array()
            .iter()
            .fold(1.0f32, |a, b| a.max(*b));
        let off = (exact - m)
            .abs()
            .to_cols_array()
            .iter()
            .fold(0.0f32, |a, b| a.max(*b));
        let local = if off > TRS_MISMATCH * scale || !trs.rotation.is_finite() {
            ctx.warn(format!(
                "{element}: its transform holds shear or pivots that translation/rotation/scale cannot express; its matrix is kept (animating it uses a decomposition)"
            ));
            LocalTransform::Matrix(m)
        } else {
            LocalTransform::Trs(trs)
        };
        nodes.push(Node {
            name: Some(node_name(n)),
            parent: None,
            children: Vec::new(),
            local,
            mesh: None,
            skin: None,
        });
    }
    let mut out = Nodes {
        nodes,
        eval_order: Vec::new(),
        index,
    };
    for n in scene.nodes.iter() {
        let Some(me) = out.of(n) else { continue };
        let parent = n.parent.as_ref().and_then(|p| out.of(p));
        out.nodes[me].parent = parent;
        if let Some(p) = parent {
            out.nodes[p].children.push(me);
        }
    }
    let Some(order) = breadth_first(&out.nodes) else {
        return Err(ctx.err(crate::ImportErrorKind::InvalidData {
            element: "node hierarchy".into(),
            reason: "some nodes are not reachable from a root".into(),
        }));
    };
    out.eval_order = order;
    Ok(out)
}

/// Breadth first from the roots: parents before children, every node once, or None when some
/// node is not reachable from a root (ufbx's parent links form a tree, so there is no cycle
/// to guard against).
pub(crate) fn breadth_first(nodes: &[Node]) -> Option<Vec<usize>> {
    let mut order: Vec<usize> = (0..nodes.len())
        .filter(|&i| nodes[i].parent.is_none())
        .collect();
    let mut k = 0;
    while k < order.len() && order.len() <= nodes.len() {
        let n = order[k];
        order.extend(nodes[n].children.iter().copied());
        k += 1;
    }
    (order.len() == nodes.len()).then_some(order)
}
