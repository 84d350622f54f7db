//! Meshes (one primitive per material part, triangulated) and skins (one per FBX skin
//! deformer: its clusters' bones, then the skeleton's other bones, as joints).

use std::collections::HashMap;

use glam::{DVec3, Mat4, Vec2, Vec3};
use throng_anim::model::{Mesh, Primitive, Skin};

use crate::convert::{finite, label, mat4, v2, v3};
use crate::error::{ImportError, ImportErrorKind as K};
use crate::nodes::{node_label, Nodes};
use crate::Ctx;

/// Joints of one skin: joint indices are u16 in the source model (glTF's JOINTS_n).
const MAX_JOINTS: usize = u16::MAX as usize;

/// A skin under construction: joints, inverse bind matrices, and the joint index of each
/// cluster.
struct SkinBuild {
    skin: Skin,
    /// Control point → (joint, weight) with weight > 0, heaviest first.
    influences: Vec<Vec<(u16, f32)>>,
}

pub(crate) fn read_meshes(
    ctx: &mut Ctx,
    nodes: &mut Nodes,
    materials: &[Option<usize>],
) -> Result<(Vec<Mesh>, Vec<Skin>), ImportError> {
    let scene = ctx.scene;
    let mut meshes = Vec::with_capacity(scene.meshes.len());
    let mut skins = Vec::new();
    for (mi, mesh) in scene.meshes.iter().enumerate() {
        let element = label("mesh", &mesh.element.name, mi);
        for bd in mesh.blend_deformers.iter() {
            let names: Vec<String> = bd
                .channels
                .iter()
                .map(|c| format!("{:?}", c.element.name.to_string()))
                .collect();
            ctx.warn(format!(
                "{element}: blend shapes are not imported (throng bakes skeletal animation only); ignored: {}",
                names.join(", ")
            ));
        }
        if mesh.skin_deformers.len() > 1 {
            ctx.warn(format!(
                "{element} has {} skin deformers; only the first is used",
                mesh.skin_deformers.len()
            ));
        }
        let instance = mesh.element.instances.iter().find_map(|n| nodes.of(n));
        let skin = match mesh.skin_deformers.first() {
            Some(sd) => Some(read_skin(ctx, nodes, mesh, sd, &element)?),
            None => None,
        };
        let primitives = read_primitives(ctx, mesh, &element, skin.as_ref(), materials)?;
        let skin_index = skin.map(|s| {
            skins.push(s.skin);
            skins.len() - 1
        });
        for n in mesh.element.instances.iter() {
            if let Some(ni) = nodes.of(n) {
                nodes.nodes[ni].mesh = Some(meshes.len());
                nodes.nodes[ni].skin = skin_index;
            }
        }
        if instance.is_none() {
            ctx.warn(format!("{element} is on no node; it is kept but not drawn"));
        }
        meshes.push(Mesh {
            name: Some(mesh.element.name.to_string()),
            primitives,
        });
    }
    Ok((meshes, skins))
}

fn read_skin(
    ctx: &mut Ctx,
    nodes: &Nodes,
    mesh: &ufbx::Mesh,
    sd: &ufbx::SkinDeformer,
    mesh_label: &str,
) -> Result<SkinBuild, ImportError> {
    let element = format!(
        "skin deformer {:?} of {mesh_label}",
        sd.element.name.to_string()
    );
    if sd.clusters.len() > MAX_JOINTS {
        return Err(ctx.err(K::TooMany {
            element,
            what: "clusters".into(),
            count: sd.clusters.len(),
            limit: MAX_JOINTS,
        }));
    }
    if sd.dq_weights.iter().any(|w| *w > 0.0) {
        ctx.warn(format!(
            "{element} blends dual-quaternion and linear skinning per vertex; it is skinned linearly (bake or render with dual-quaternion skinning to use DQ for all vertices)"
        ));
    }
    let mut joints = Vec::with_capacity(sd.clusters.len());
    let mut ibms = Vec::with_capacity(sd.clusters.len());
    for (ci, cluster) in sd.clusters.iter().enumerate() {
        let cl = label("cluster", &cluster.element.name, ci);
        let Some(bone) = cluster.bone_node.as_ref().and_then(|b| nodes.of(b)) else {
            return Err(ctx.err(K::InvalidData {
                element: format!("{cl} of {element}"),
                reason: "is linked to no bone".into(),
            }));
        };
        // `geometry_to_bone` maps the mesh's vertices (geometry space) to the bone's bind space,
        // so the node holding the mesh drops out, as glTF's skinning wants (§3.7.3).
        let ibm = mat4(&cluster.geometry_to_bone);
        finite(&ibm.to_cols_array(), &format!("{cl} of {element}"), || {
            "its bind matrix".into()
        })
        .map_err(|k| ctx.err(k))?;
        joints.push(bone);
        ibms.push(ibm);
    }
    // Influences per control point, checked against the clusters.
    let n = mesh.num_vertices;
    let mut influences: Vec<Vec<(u16, f32)>> = vec![Vec::new(); n];
    let mut unweighted = false;
    for (v, inf) in influences.iter_mut().enumerate() {
        let Some(sv) = sd.vertices.get(v) else {
            unweighted = true;
            continue;
        };
        let begin = sv.weight_begin as usize;
        let end = begin.saturating_add(sv.num_weights as usize);
        let Some(ws) = sd.weights.get(begin..end) else {
            return Err(ctx.err(K::InvalidData {
                element: element.clone(),
                reason: format!("vertex {v}'s weights lie outside the weight list"),
            }));
        };
        for w in ws {
            let c = w.cluster_index as usize;
            if c >= joints.len() {
                return Err(ctx.err(K::InvalidData {
                    element: element.clone(),
                    reason: format!("vertex {v} is weighted to cluster {c}, which does not exist"),
                }));
            }
            let weight = w.weight as f32;
            if weight.is_finite() && weight > 0.0 {
                inf.push((c as u16, weight));
            }
        }
        inf.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        unweighted |= inf.is_empty();
    }
    if unweighted {
        // FBX leaves a vertex no cluster weights where the mesh's own node carries it; as a
        // joint with `geometry_to_node` as its inverse bind matrix it goes exactly there.
        let holder = mesh
            .element
            .instances
            .iter()
            .find_map(|nd| nodes.of(nd).map(|i| (i, mat4(&nd.geometry_to_node))));
        if let Some((node, ibm)) = holder {
            let j = push_joint(ctx, &mut joints, &mut ibms, node, ibm, &element)?;
            for inf in influences.iter_mut().filter(|i| i.is_empty()) {
                inf.push((j, 1.0));
            }
        }
    }
    add_skeleton_bones(ctx, nodes, sd, &mut joints, &mut ibms, &element)?;
    Ok(SkinBuild {
        skin: Skin {
            name: Some(sd.element.name.to_string()).filter(|s| !s.is_empty()),
            joints,
            inverse_bind_matrices: ibms,
            skeleton: None,
        },
        influences,
    })
}

fn push_joint(
    ctx: &Ctx,
    joints: &mut Vec<usize>,
    ibms: &mut Vec<Mat4>,
    node: usize,
    ibm: Mat4,
    element: &str,
) -> Result<u16, ImportError> {
    if joints.len() >= MAX_JOINTS {
        return Err(ctx.err(K::TooMany {
            element: element.to_string(),
            what: "joints".into(),
            count: joints.len() + 1,
            limit: MAX_JOINTS,
        }));
    }
    joints.push(node);
    ibms.push(ibm);
    Ok((joints.len() - 1) as u16)
}

/// Bones of the skeleton that no cluster names (end bones, IK helpers, a root above the hips)
/// are still joints, as in Blender's and the FBX SDK's glTF conversions: every bone below the
/// topmost bone ancestor of the clusters' bones. Their inverse bind matrix is the inverse of
/// their rest transform in model space (they carry no vertices, so it only fixes what their
/// palette entry shows at rest: identity).
fn add_skeleton_bones(
    ctx: &mut Ctx,
    nodes: &Nodes,
    sd: &ufbx::SkinDeformer,
    joints: &mut Vec<usize>,
    ibms: &mut Vec<Mat4>,
    element: &str,
) -> Result<(), ImportError> {
    let mut tops: Vec<&ufbx::Node> = Vec::new();
    for cluster in sd.clusters.iter() {
        let Some(mut top) = cluster.bone_node.as_deref() else {
            continue;
        };
        // Bounded by the node depth limit ufbx enforced at load.
        while let Some(p) = top.parent.as_deref() {
            if p.is_root || p.bone.is_none() {
                break;
            }
            top = p;
        }
        if !tops
            .iter()
            .any(|t| t.element.typed_id == top.element.typed_id)
        {
            tops.push(top);
        }
    }
    let mut stack: Vec<&ufbx::Node> = tops;
    while let Some(n) = stack.pop() {
        if let Some(i) = nodes.of(n) {
            if n.bone.is_some() && !joints.contains(&i) {
                let world = mat4(&n.node_to_world);
                let det = world.determinant();
                if det.is_finite() && det.abs() > f32::MIN_POSITIVE {
                    push_joint(ctx, joints, ibms, i, world.inverse(), element)?;
                } else {
                    ctx.warn(format!(
                        "{}: its rest transform cannot be inverted; it is not made a joint of {element}",
                        node_label(n)
                    ));
                }
            }
        }
        for c in n.children.iter().rev() {
            if c.bone.is_some() {
                stack.push(c);
            }
        }
    }
    Ok(())
}

/// One attribute value of a ufbx vertex attribute at face-corner `ix`, or None.
fn at3(a: &ufbx::VertexVec3, ix: usize) -> Option<Vec3> {
    if !a.exists {
        return None;
    }
    let j = *a.indices.get(ix)? as usize;
    a.values.get(j).map(v3)
}

fn at2(a: &ufbx::VertexVec2, ix: usize) -> Option<Vec2> {
    if !a.exists {
        return None;
    }
    let j = *a.indices.get(ix)? as usize;
    a.values.get(j).map(v2)
}

fn read_primitives(
    ctx: &mut Ctx,
    mesh: &ufbx::Mesh,
    element: &str,
    skin: Option<&SkinBuild>,
    materials: &[Option<usize>],
) -> Result<Vec<Primitive>, ImportError> {
    let mut out = Vec::new();
    let has_uv = mesh.vertex_uv.exists;
    let sets = skin
        .map(|s| {
            s.influences
                .iter()
                .map(Vec::len)
                .max()
                .unwrap_or(0)
                .div_ceil(4)
        })
        .unwrap_or(0);
    let all_faces: Vec<u32>;
    let parts: Vec<(Option<u32>, &[u32])> = if mesh.material_parts.is_empty() {
        all_faces = (0..mesh.faces.len() as u32).collect();
        vec![(None, &all_faces[..])]
    } else {
        mesh.material_parts
            .iter()
            .map(|p| (Some(p.index), p.face_indices.as_ref()))
            .collect()
    };
    let mut tri = Vec::new();
    let mut skipped_faces = 0usize;
    for (part_material, faces) in parts {
        let mut prim = Primitive::default();
        let mut remap: HashMap<(u32, [u32; 3], [u32; 2]), u32> = HashMap::new();
        for &fi in faces {
            let Some(face) = mesh.faces.get(fi as usize).copied() else {
                return Err(ctx.err(K::InvalidData {
                    element: element.to_string(),
                    reason: format!("a material part names face {fi}, which does not exist"),
                }));
            };
            if face.num_indices < 3 {
                skipped_faces += 1;
                continue;
            }
            let need = (face.num_indices as usize - 2) * 3;
            if tri.len() < need {
                tri.resize(need, 0);
            }
            let n = if face.num_indices == 4 {
                quad_triangles(mesh, face, &mut tri)
            } else {
                ufbx::triangulate_face(&mut tri, mesh, face) as usize * 3
            };
            for &ix in &tri[..n.min(tri.len())] {
                let ix = ix as usize;
                let Some(&cp) = mesh.vertex_indices.get(ix) else {
                    return Err(ctx.err(K::InvalidData {
                        element: element.to_string(),
                        reason: format!("face corner {ix} has no vertex"),
                    }));
                };
                let Some(p) = mesh.vertices.get(cp as usize).map(v3) else {
                    return Err(ctx.err(K::InvalidData {
                        element: element.to_string(),
                        reason: format!("face corner {ix} names vertex {cp}, which does not exist"),
                    }));
                };
                let nrm = at3(&mesh.vertex_normal, ix).unwrap_or(Vec3::Y);
                // FBX's UV origin is the image's bottom left, glTF's its top left.
                let uv = at2(&mesh.vertex_uv, ix).map(|t| Vec2::new(t.x, 1.0 - t.y));
                let key = (
                    cp,
                    nrm.to_array().map(f32::to_bits),
                    uv.unwrap_or_default().to_array().map(f32::to_bits),
                );
                let next = prim.positions.len() as u32;
                let v = *remap.entry(key).or_insert(next);
                if v == next {
                    finite(&p.to_array(), element, || format!("vertex {cp}"))
                        .map_err(|k| ctx.err(k))?;
                    finite(&nrm.to_array(), element, || {
                        format!("the normal of corner {ix}")
                    })
                    .map_err(|k| ctx.err(k))?;
                    prim.positions.push(p);
                    prim.normals.push(nrm.try_normalize().unwrap_or(Vec3::Y));
                    if let Some(uv) = uv {
                        finite(&uv.to_array(), element, || format!("the UV of corner {ix}"))
                            .map_err(|k| ctx.err(k))?;
                        prim.uv0.get_or_insert_with(Vec::new).push(uv);
                    }
                    if let Some(s) = skin {
                        let inf = s.influences.get(cp as usize).map(Vec::as_slice);
                        push_influences(&mut prim, inf.unwrap_or(&[]), sets);
                    }
                }
                prim.indices.push(v);
            }
        }
        if prim.indices.is_empty() {
            continue;
        }
        if has_uv && prim.uv0.as_ref().map(Vec::len) != Some(prim.positions.len()) {
            prim.uv0 = None;
        }
        prim.generated_normals = mesh.generated_normals;
        prim.material = part_material
            .and_then(|m| mesh.materials.get(m as usize))
            .and_then(|m| {
                materials
                    .get(m.element.typed_id as usize)
                    .copied()
                    .flatten()
            });
        out.push(prim);
    }
    if skipped_faces > 0 {
        ctx.warn(format!(
            "{element}: {skipped_faces} faces with fewer than 3 corners (points or lines) are skipped"
        ));
    }
    Ok(out)
}

/// A quad's two triangles as face-corner indices into `tri` (returns 6), split by ufbx's rule
/// (the shorter diagonal, unless a corner lies across it) applied to the f32 positions the
/// model keeps rather than to ufbx's f64 ones: the split is then a function of the model's own
/// values. An ASCII file holds positions as 15 significant digits and its binary twin as the
/// f64 itself, so the f64s differ in their last bits while the f32s agree; on a square (equal
/// diagonals) those bits decided ufbx's split, and the twins came out with different triangles
/// and vertex orders (docs/fbx.md "Binary and ASCII"). Ties take the 0–2 diagonal, as ufbx does.
fn quad_triangles(mesh: &ufbx::Mesh, face: ufbx::Face, tri: &mut [u32]) -> usize {
    let b = face.index_begin;
    let corner = |k: u32| {
        mesh.vertex_indices
            .get((b + k) as usize)
            .and_then(|&cp| mesh.vertices.get(cp as usize))
            .map_or(DVec3::ZERO, |p| v3(p).as_dvec3())
    };
    let [p0, p1, p2, p3] = [0, 1, 2, 3].map(corner);
    let (a, d) = (p2 - p0, p3 - p1);
    let cos_a = (a.cross(p1 - p0).normalize_or_zero()).dot(a.cross(p0 - p3).normalize_or_zero());
    let cos_d = (d.cross(p1 - p0).normalize_or_zero()).dot(d.cross(p2 - p1).normalize_or_zero());
    let split_a = if cos_a < 0.0 || cos_d < 0.0 {
        cos_a >= cos_d
    } else {
        a.length_squared() <= d.length_squared()
    };
    let corners = if split_a {
        [0, 1, 2, 2, 3, 0]
    } else {
        [1, 2, 3, 3, 0, 1]
    };
    for (slot, k) in tri.iter_mut().zip(corners) {
        *slot = b + k;
    }
    6
}

/// Appends one vertex's influences as `sets` JOINTS/WEIGHTS sets of four (zero-padded).
fn push_influences(prim: &mut Primitive, inf: &[(u16, f32)], sets: usize) {
    if prim.joint_sets.len() < sets {
        prim.joint_sets.resize(sets, Vec::new());
        prim.weight_sets.resize(sets, Vec::new());
    }
    for s in 0..sets {
        let mut j = [0u16; 4];
        let mut w = [0f32; 4];
        for k in 0..4 {
            if let Some(&(joint, weight)) = inf.get(s * 4 + k) {
                j[k] = joint;
                w[k] = weight;
            }
        }
        prim.joint_sets[s].push(j);
        prim.weight_sets[s].push(w);
    }
}
