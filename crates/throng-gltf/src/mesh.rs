//! Mesh primitives (glTF 2.0 §3.7.2): every attribute throng uses decoded to f32, including
//! KHR_mesh_quantization's integer attributes; flat normals and sequential indices where the
//! file has none (§3.7.2.1).

use std::collections::BTreeMap;

use glam::{Vec2, Vec3, Vec4};
use gltf_json::mesh::{Mode, Semantic};
use gltf_json::validation::Checked;
use throng_anim::model::{Mesh, Model, Primitive};

use crate::accessor;
use crate::error::{ImportError, ImportErrorKind as K};
use crate::nodes::node_label;
use crate::Ctx;

pub(crate) fn read_meshes(ctx: &mut Ctx) -> Result<Vec<Mesh>, ImportError> {
    let src = ctx.src;
    let mut meshes = Vec::with_capacity(src.root.meshes.len());
    for (mi, jm) in src.root.meshes.iter().enumerate() {
        let mut primitives = Vec::with_capacity(jm.primitives.len());
        let mesh_name = match &jm.name {
            Some(n) => format!("mesh {mi} ({n:?})"),
            None => format!("mesh {mi}"),
        };
        for (pi, jp) in jm.primitives.iter().enumerate() {
            let element = format!("{mesh_name} primitive {pi}");
            if let Some(p) = read_primitive(ctx, jp, &element)? {
                primitives.push(p);
            }
        }
        if jm.primitives.iter().any(|p| p.targets.is_some()) {
            ctx.warn(format!(
                "{mesh_name} has morph targets; they are not applied (the base shape is used)"
            ));
        }
        meshes.push(Mesh {
            name: jm.name.clone(),
            primitives,
        });
    }
    Ok(meshes)
}

fn read_primitive(
    ctx: &mut Ctx,
    jp: &gltf_json::mesh::Primitive,
    element: &str,
) -> Result<Option<Primitive>, ImportError> {
    let src = ctx.src;
    let file = ctx.file;
    match jp.mode {
        Checked::Valid(Mode::Triangles) => {}
        Checked::Valid(m) => {
            ctx.warn(format!(
                "{element} has mode {m:?}; only triangle lists are imported, it is skipped"
            ));
            return Ok(None);
        }
        Checked::Invalid => {
            ctx.warn(format!("{element} has an unknown mode; it is skipped"));
            return Ok(None);
        }
    }
    let mut joints_acc = BTreeMap::new();
    let mut weights_acc = BTreeMap::new();
    let (mut pos_acc, mut nrm_acc, mut tan_acc, mut uv_acc) = (None, None, None, None);
    for (sem, acc) in &jp.attributes {
        let acc = acc.value();
        match sem {
            Checked::Valid(Semantic::Positions) => pos_acc = Some(acc),
            Checked::Valid(Semantic::Normals) => nrm_acc = Some(acc),
            Checked::Valid(Semantic::Tangents) => tan_acc = Some(acc),
            Checked::Valid(Semantic::TexCoords(0)) => uv_acc = Some(acc),
            Checked::Valid(Semantic::Joints(n)) => {
                joints_acc.insert(*n, acc);
            }
            Checked::Valid(Semantic::Weights(n)) => {
                weights_acc.insert(*n, acc);
            }
            _ => {}
        }
    }
    let Some(pos_acc) = pos_acc else {
        ctx.warn(format!("{element} has no POSITION; it is skipped"));
        return Ok(None);
    };
    let usage = |what: &str| format!("{what} of {element}");

    let positions: Vec<Vec3> = {
        let u = usage("POSITION");
        let rows = accessor::read_vec::<3>(src, pos_acc, &u, file)?;
        let flat: Vec<f32> = rows.iter().flatten().copied().collect();
        accessor::check_finite(&flat, 3, &accessor::label(pos_acc, &u), file)?;
        rows.into_iter().map(Vec3::from_array).collect()
    };
    let vcount = positions.len();
    let check_count = |n: usize, acc: usize, what: &str| -> Result<(), ImportError> {
        if n != vcount {
            return Err(ImportError::new(
                file,
                K::InvalidData {
                    element: accessor::label(acc, &usage(what)),
                    reason: format!("has {n} elements but POSITION has {vcount}"),
                },
            ));
        }
        Ok(())
    };

    let normals: Option<Vec<Vec3>> = match nrm_acc {
        None => None,
        Some(a) => {
            let u = usage("NORMAL");
            let rows = accessor::read_vec::<3>(src, a, &u, file)?;
            check_count(rows.len(), a, "NORMAL")?;
            let flat: Vec<f32> = rows.iter().flatten().copied().collect();
            accessor::check_finite(&flat, 3, &accessor::label(a, &u), file)?;
            let mut zero = 0;
            let n = rows
                .into_iter()
                .map(|r| {
                    let v = Vec3::from_array(r);
                    v.try_normalize().unwrap_or_else(|| {
                        zero += 1;
                        Vec3::Y
                    })
                })
                .collect();
            if zero > 0 {
                ctx.warn(format!(
                    "{element} has {zero} zero-length normals; +Y used for them"
                ));
            }
            Some(n)
        }
    };
    let tangents: Option<Vec<Vec4>> = match tan_acc {
        None => None,
        Some(a) => {
            let u = usage("TANGENT");
            let rows = accessor::read_vec::<4>(src, a, &u, file)?;
            check_count(rows.len(), a, "TANGENT")?;
            let flat: Vec<f32> = rows.iter().flatten().copied().collect();
            accessor::check_finite(&flat, 4, &accessor::label(a, &u), file)?;
            Some(rows.into_iter().map(Vec4::from_array).collect())
        }
    };
    let uv0: Option<Vec<Vec2>> = match uv_acc {
        None => None,
        Some(a) => {
            let u = usage("TEXCOORD_0");
            let rows = accessor::read_vec::<2>(src, a, &u, file)?;
            check_count(rows.len(), a, "TEXCOORD_0")?;
            let flat: Vec<f32> = rows.iter().flatten().copied().collect();
            accessor::check_finite(&flat, 2, &accessor::label(a, &u), file)?;
            Some(rows.into_iter().map(Vec2::from_array).collect())
        }
    };

    let mut joint_sets = Vec::new();
    let mut weight_sets = Vec::new();
    for (&set, &ja) in &joints_acc {
        let Some(&wa) = weights_acc.get(&set) else {
            ctx.warn(format!(
                "{element} has JOINTS_{set} without WEIGHTS_{set}; the set is ignored"
            ));
            continue;
        };
        let ju = usage(&format!("JOINTS_{set}"));
        let j = accessor::read_uint(src, ja, &ju, 4, file)?;
        check_count(j.len() / 4, ja, &format!("JOINTS_{set}"))?;
        if let Some(big) = j.iter().find(|&&v| v > u16::MAX as u32) {
            return Err(ctx.err(K::InvalidData {
                element: accessor::label(ja, &ju),
                reason: format!("joint index {big} does not fit 16 bits"),
            }));
        }
        let wu = usage(&format!("WEIGHTS_{set}"));
        let w = accessor::read_vec::<4>(src, wa, &wu, file)?;
        check_count(w.len(), wa, &format!("WEIGHTS_{set}"))?;
        let flat: Vec<f32> = w.iter().flatten().copied().collect();
        accessor::check_finite(&flat, 4, &accessor::label(wa, &wu), file)?;
        joint_sets.push(
            j.chunks_exact(4)
                .map(|c| [c[0] as u16, c[1] as u16, c[2] as u16, c[3] as u16])
                .collect::<Vec<_>>(),
        );
        weight_sets.push(w);
    }
    for set in weights_acc.keys() {
        if !joints_acc.contains_key(set) {
            ctx.warn(format!(
                "{element} has WEIGHTS_{set} without JOINTS_{set}; the set is ignored"
            ));
        }
    }

    let file_indices = match jp.indices {
        None => None,
        Some(a) => {
            let u = usage("indices");
            let idx = accessor::read_uint(src, a.value(), &u, 1, file)?;
            if let Some(bad) = idx.iter().find(|&&i| i as usize >= vcount) {
                return Err(ctx.err(K::InvalidData {
                    element: accessor::label(a.value(), &u),
                    reason: format!("index {bad} is not below the vertex count {vcount}"),
                }));
            }
            Some(idx)
        }
    };

    let material = jp.material.map(|m| m.value());
    if let Some(m) = material {
        if m >= src.root.materials.len() {
            return Err(ctx.err(K::BadReference {
                element: element.into(),
                target: format!("material {m}"),
            }));
        }
    }

    let mut prim = Primitive {
        positions,
        normals: Vec::new(),
        generated_normals: false,
        tangents,
        uv0,
        indices: Vec::new(),
        joint_sets,
        weight_sets,
        material,
    };
    let mut indices = file_indices.unwrap_or_else(|| (0..vcount as u32).collect());
    if indices.len() % 3 != 0 {
        ctx.warn(format!(
            "{element} has {} indices, not a multiple of 3; the last {} are dropped",
            indices.len(),
            indices.len() % 3
        ));
        indices.truncate(indices.len() - indices.len() % 3);
    }
    match normals {
        Some(n) => {
            prim.normals = n;
            prim.indices = indices;
        }
        None => {
            // Flat shading needs one normal per face, so vertices shared by several faces are
            // duplicated (unwelded) first; a triangle soup (Fox) is left as it is.
            let shared = jp.indices.is_some();
            if shared {
                unweld(&mut prim, &indices);
                prim.indices = (0..indices.len() as u32).collect();
            } else {
                prim.indices = indices;
            }
            let degenerate = flat_normals(&mut prim);
            prim.generated_normals = true;
            if degenerate > 0 {
                ctx.warn(format!(
                    "{element} has no normals and {degenerate} degenerate triangles; +Y used as their normal"
                ));
            }
        }
    }
    Ok(Some(prim))
}

/// Replaces every per-vertex attribute by one copy per index.
fn unweld(p: &mut Primitive, indices: &[u32]) {
    fn gather<T: Copy>(v: &[T], idx: &[u32]) -> Vec<T> {
        idx.iter().map(|&i| v[i as usize]).collect()
    }
    p.positions = gather(&p.positions, indices);
    if let Some(t) = &mut p.tangents {
        *t = gather(t, indices);
    }
    if let Some(uv) = &mut p.uv0 {
        *uv = gather(uv, indices);
    }
    for s in &mut p.joint_sets {
        *s = gather(s, indices);
    }
    for s in &mut p.weight_sets {
        *s = gather(s, indices);
    }
}

/// Sets each vertex's normal to its triangle's normal (counter-clockwise winding, glTF 2.0
/// §3.7.2.1); needs vertices not shared between triangles. Vertices in no triangle and
/// triangles of zero area get +Y. Returns the number of degenerate triangles.
fn flat_normals(p: &mut Primitive) -> usize {
    let mut normals = vec![Vec3::Y; p.positions.len()];
    let mut degenerate = 0;
    for tri in p.indices.chunks_exact(3) {
        let [a, b, c] = [tri[0] as usize, tri[1] as usize, tri[2] as usize];
        let n = (p.positions[b] - p.positions[a]).cross(p.positions[c] - p.positions[a]);
        let n = n.try_normalize().unwrap_or_else(|| {
            degenerate += 1;
            Vec3::Y
        });
        normals[a] = n;
        normals[b] = n;
        normals[c] = n;
    }
    p.normals = normals;
    degenerate
}

/// Every joint index with a non-zero weight must lie inside the skin of every node that binds
/// the mesh (glTF 2.0 §3.7.3.3). Zero-weight out-of-range indices are set to 0 with a warning.
pub(crate) fn check_joint_ranges(ctx: &mut Ctx, model: &mut Model) -> Result<(), ImportError> {
    let src = ctx.src;
    for (ni, node) in model.nodes.iter().enumerate() {
        let (Some(mi), Some(si)) = (node.mesh, node.skin) else {
            continue;
        };
        let joint_count = model.skins[si].joints.len();
        let mesh = &mut model.meshes[mi];
        let mut repaired = 0usize;
        for (pi, p) in mesh.primitives.iter_mut().enumerate() {
            for (js, ws) in p.joint_sets.iter_mut().zip(&p.weight_sets) {
                for (v, (j, w)) in js.iter_mut().zip(ws).enumerate() {
                    for k in 0..4 {
                        if (j[k] as usize) < joint_count {
                            continue;
                        }
                        if w[k] != 0.0 {
                            return Err(ctx.err(K::JointOutOfRange {
                                element: format!(
                                    "mesh {mi} primitive {pi} (bound by {})",
                                    node_label(&src.root, ni)
                                ),
                                vertex: v,
                                joint: j[k] as u32,
                                weight: w[k],
                                skin: format!("skin {si}"),
                                joint_count,
                            }));
                        }
                        j[k] = 0;
                        repaired += 1;
                    }
                }
            }
        }
        if repaired > 0 {
            ctx.warn(format!(
                "mesh {mi} has {repaired} zero-weight joint indices outside skin {si}; set to 0"
            ));
        }
    }
    Ok(())
}
