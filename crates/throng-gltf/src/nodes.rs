//! Nodes (glTF 2.0 §3.5): local transforms, the parent/child tree, parents-first order, and
//! skins (§3.8).

use glam::{Mat4, Quat, Vec3};
use throng_anim::model::{LocalTransform, Node, Skin, Trs};

use crate::accessor;
use crate::error::{ImportError, ImportErrorKind as K};
use crate::Ctx;

/// Names node `i` for messages: `node 4 ("Hips")`.
pub(crate) fn node_label(root: &gltf_json::Root, i: usize) -> String {
    match root.nodes.get(i).and_then(|n| n.name.as_deref()) {
        Some(n) => format!("node {i} ({n:?})"),
        None => format!("node {i}"),
    }
}

/// A rotation that is this far from unit length is reported when normalised.
const QUAT_UNIT_TOLERANCE: f32 = 1e-3;

pub(crate) fn read_nodes(ctx: &mut Ctx) -> Result<(Vec<Node>, Vec<usize>), ImportError> {
    let src = ctx.src;
    let root = &src.root;
    let n = root.nodes.len();
    let mut nodes = Vec::with_capacity(n);
    let mut parents: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, jn) in root.nodes.iter().enumerate() {
        let element = node_label(root, i);
        let local = local_transform(ctx, jn, &element)?;
        let mut children = Vec::new();
        for c in jn.children.iter().flatten() {
            let c = ctx.check_index(&element, "child node", c.value(), n)?;
            if c == i {
                return Err(ctx.err(K::HierarchyCycle { element }));
            }
            if parents[c].contains(&i) {
                // A warning, not an error: the schema asks for unique children, but a repeated
                // child means nothing but "this is my child", which is how three.js and Blender
                // read it.
                ctx.warn(format!(
                    "{element} lists child node {c} more than once (glTF 2.0 requires unique children); the duplicate is ignored"
                ));
            } else {
                parents[c].push(i);
                children.push(c);
            }
        }
        let mesh = jn.mesh.map(|m| m.value());
        if let Some(m) = mesh {
            ctx.check_index(&element, "mesh", m, root.meshes.len())?;
        }
        let skin = jn.skin.map(|s| s.value());
        if let Some(s) = skin {
            ctx.check_index(&element, "skin", s, root.skins.len())?;
        }
        nodes.push(Node {
            name: jn.name.clone(),
            parent: None,
            children,
            local,
            mesh,
            skin,
        });
    }
    for (c, ps) in parents.iter().enumerate() {
        match ps.as_slice() {
            [] => {}
            [p] => nodes[c].parent = Some(*p),
            many => {
                return Err(ctx.err(K::MultipleParents {
                    element: node_label(root, c),
                    parents: many
                        .iter()
                        .map(|p| node_label(root, *p))
                        .collect::<Vec<_>>()
                        .join(", "),
                }))
            }
        }
    }
    // Breadth-first from the roots: with one parent each, a node not reached lies on a cycle.
    let mut order: Vec<usize> = (0..n).filter(|&i| nodes[i].parent.is_none()).collect();
    let mut head = 0;
    while head < order.len() {
        let i = order[head];
        head += 1;
        order.extend(nodes[i].children.iter().copied());
    }
    if order.len() < n {
        let mut seen = vec![false; n];
        for &i in &order {
            seen[i] = true;
        }
        let first = seen.iter().position(|s| !s).unwrap_or(0);
        return Err(ctx.err(K::HierarchyCycle {
            element: node_label(root, first),
        }));
    }
    Ok((nodes, order))
}

fn local_transform(
    ctx: &mut Ctx,
    jn: &gltf_json::Node,
    element: &str,
) -> Result<LocalTransform, ImportError> {
    let has_trs = jn.translation.is_some() || jn.rotation.is_some() || jn.scale.is_some();
    if let Some(m) = jn.matrix {
        accessor::check_finite(&m, 16, &format!("{element} matrix"), ctx.file)?;
        if has_trs {
            ctx.warn(format!(
                "{element} has both a matrix and TRS properties; the matrix is used"
            ));
        }
        return Ok(LocalTransform::Matrix(Mat4::from_cols_array(&m)));
    }
    let t = jn.translation.unwrap_or([0.0; 3]);
    let r = jn.rotation.map_or([0.0, 0.0, 0.0, 1.0], |q| q.0);
    let s = jn.scale.unwrap_or([1.0; 3]);
    accessor::check_finite(&t, 3, &format!("{element} translation"), ctx.file)?;
    accessor::check_finite(&r, 4, &format!("{element} rotation"), ctx.file)?;
    accessor::check_finite(&s, 3, &format!("{element} scale"), ctx.file)?;
    let rotation = normalise_quat(ctx, Quat::from_array(r), &format!("{element} rotation"));
    Ok(LocalTransform::Trs(Trs {
        translation: Vec3::from_array(t),
        rotation,
        scale: Vec3::from_array(s),
    }))
}

/// What [`unit_quat`] had to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum QuatFix {
    None,
    /// Clearly not unit length (beyond `QUAT_UNIT_TOLERANCE`); normalised.
    Normalised,
    /// Zero length; identity used.
    Zero,
}

/// Unit quaternion from a file value: always normalised (tiny deviations are quantisation).
pub(crate) fn unit_quat(q: Quat) -> (Quat, QuatFix) {
    let len = q.length();
    if len < 1e-12 {
        return (Quat::IDENTITY, QuatFix::Zero);
    }
    let fix = if (len - 1.0).abs() > QUAT_UNIT_TOLERANCE {
        QuatFix::Normalised
    } else {
        QuatFix::None
    };
    (q / len, fix)
}

/// [`unit_quat`] with a warning naming `element` when it had to repair the value.
pub(crate) fn normalise_quat(ctx: &mut Ctx, q: Quat, element: &str) -> Quat {
    let (u, fix) = unit_quat(q);
    match fix {
        QuatFix::None => {}
        QuatFix::Normalised => ctx.warn(format!(
            "{element} is not a unit quaternion (length {}); normalised",
            q.length()
        )),
        QuatFix::Zero => ctx.warn(format!("{element} is a zero quaternion; identity used")),
    }
    u
}

pub(crate) fn read_skins(ctx: &mut Ctx) -> Result<Vec<Skin>, ImportError> {
    let src = ctx.src;
    let root = &src.root;
    let mut skins = Vec::with_capacity(root.skins.len());
    for (si, js) in root.skins.iter().enumerate() {
        let element = match &js.name {
            Some(n) => format!("skin {si} ({n:?})"),
            None => format!("skin {si}"),
        };
        let mut joints = Vec::with_capacity(js.joints.len());
        for j in &js.joints {
            joints.push(ctx.check_index(&element, "joint node", j.value(), root.nodes.len())?);
        }
        let skeleton = js.skeleton.map(|s| s.value());
        if let Some(s) = skeleton {
            ctx.check_index(&element, "skeleton node", s, root.nodes.len())?;
        }
        // Missing inverseBindMatrices means identity (glTF 2.0 §3.8, docs/cases.md 5).
        let inverse_bind_matrices = match js.inverse_bind_matrices {
            None => vec![Mat4::IDENTITY; joints.len()],
            Some(a) => {
                let usage = format!("inverseBindMatrices of {element}");
                let m = accessor::read_finite::<16>(ctx.src, a.value(), &usage, ctx.file)?;
                if m.len() < joints.len() {
                    return Err(ctx.err(K::InvalidData {
                        element: accessor::label(a.value(), &usage),
                        reason: format!("has {} matrices for {} joints", m.len(), joints.len()),
                    }));
                }
                if m.len() > joints.len() {
                    ctx.warn(format!(
                        "{element} has {} inverse bind matrices for {} joints; extra ones ignored",
                        m.len(),
                        joints.len()
                    ));
                }
                m.iter()
                    .take(joints.len())
                    .map(Mat4::from_cols_array)
                    .collect()
            }
        };
        skins.push(Skin {
            name: js.name.clone(),
            joints,
            inverse_bind_matrices,
            skeleton,
        });
    }
    Ok(skins)
}

#[cfg(test)]
mod tests {
    use super::{unit_quat, QuatFix};
    use glam::Quat;

    #[test]
    fn quaternion_repairs() {
        let (q, fix) = unit_quat(Quat::from_xyzw(0.0, 0.0, 0.0, 2.0));
        assert_eq!((q, fix), (Quat::IDENTITY, QuatFix::Normalised));
        let (q, fix) = unit_quat(Quat::from_xyzw(0.0, 0.0, 0.0, 0.0));
        assert_eq!((q, fix), (Quat::IDENTITY, QuatFix::Zero));
        // Quantisation-sized deviations are normalised silently.
        let (q, fix) = unit_quat(Quat::from_xyzw(0.0, 0.0, 0.6, 0.8001));
        assert_eq!(fix, QuatFix::None);
        assert!((q.length() - 1.0).abs() < 1e-6);
    }
}
