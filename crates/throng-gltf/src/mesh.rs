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
use crate::source::Source;
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

/// Imports one primitive; `None` (with a warning) for one throng does not draw: not a triangle
/// list, or without POSITION.
fn read_primitive(
    ctx: &mut Ctx,
    jp: &gltf_json::mesh::Primitive,
    element: &str,
) -> Result<Option<Primitive>, ImportError> {
    if !is_triangle_list(ctx, jp, element) {
        return Ok(None);
    }
    let acc = Accessors::of(jp);
    let Some(pos_acc) = acc.position else {
        ctx.warn(format!("{element} has no POSITION; it is skipped"));
        return Ok(None);
    };
    let mut r = Reader {
        src: ctx.src,
        file: ctx.file,
        element,
        vertices: None,
    };
    let positions: Vec<Vec3> = r
        .floats::<3>(pos_acc, "POSITION")?
        .into_iter()
        .map(Vec3::from_array)
        .collect();
    let vcount = positions.len();
    r.vertices = Some(vcount);
    let normals = r
        .optional::<3, _>(acc.normal, "NORMAL", |n| n)?
        .map(|rows| unit_normals(ctx, element, rows));
    let tangents = r.optional(acc.tangent, "TANGENT", Vec4::from_array)?;
    let uv0 = r.optional(acc.uv0, "TEXCOORD_0", Vec2::from_array)?;
    let (joint_sets, weight_sets) = read_skin_sets(ctx, &r, &acc)?;
    let file_indices = match jp.indices {
        None => None,
        Some(a) => Some(r.indices(a.value(), vcount)?),
    };

    let material = jp.material.map(|m| m.value());
    if let Some(m) = material {
        ctx.check_index(element, "material", m, ctx.src.root.materials.len())?;
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
        variant_materials: crate::variants::read_mappings(ctx, jp, element)?,
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
            let degenerate = generate_normals(&mut prim, indices, jp.indices.is_some());
            if degenerate > 0 {
                ctx.warn(format!(
                    "{element} has no normals and {degenerate} degenerate triangles; +Y used as their normal"
                ));
            }
        }
    }
    Ok(Some(prim))
}

/// Whether the primitive is a triangle list (glTF 2.0 §3.7.2.1 `mode`); warns that any other
/// is skipped.
fn is_triangle_list(ctx: &mut Ctx, jp: &gltf_json::mesh::Primitive, element: &str) -> bool {
    match jp.mode {
        Checked::Valid(Mode::Triangles) => true,
        Checked::Valid(m) => {
            ctx.warn(format!(
                "{element} has mode {m:?}; only triangle lists are imported, it is skipped"
            ));
            false
        }
        Checked::Invalid => {
            ctx.warn(format!("{element} has an unknown mode; it is skipped"));
            false
        }
    }
}

/// The accessor of each attribute throng imports (the last one listed when a semantic repeats),
/// skin sets by their set number.
#[derive(Default)]
struct Accessors {
    position: Option<usize>,
    normal: Option<usize>,
    tangent: Option<usize>,
    uv0: Option<usize>,
    joints: BTreeMap<u32, usize>,
    weights: BTreeMap<u32, usize>,
}

impl Accessors {
    fn of(jp: &gltf_json::mesh::Primitive) -> Accessors {
        let mut a = Accessors::default();
        for (sem, acc) in &jp.attributes {
            let acc = acc.value();
            match sem {
                Checked::Valid(Semantic::Positions) => a.position = Some(acc),
                Checked::Valid(Semantic::Normals) => a.normal = Some(acc),
                Checked::Valid(Semantic::Tangents) => a.tangent = Some(acc),
                Checked::Valid(Semantic::TexCoords(0)) => a.uv0 = Some(acc),
                Checked::Valid(Semantic::Joints(n)) => {
                    a.joints.insert(*n, acc);
                }
                Checked::Valid(Semantic::Weights(n)) => {
                    a.weights.insert(*n, acc);
                }
                _ => {}
            }
        }
        a
    }
}

/// Reads the accessors of one primitive, each named "WHAT of ELEMENT" in errors and, once
/// POSITION has given the vertex count, held to it.
struct Reader<'a> {
    src: &'a Source,
    file: &'a str,
    element: &'a str,
    vertices: Option<usize>,
}

impl Reader<'_> {
    fn usage(&self, what: &str) -> String {
        format!("{what} of {}", self.element)
    }

    /// Errors unless `n` elements of accessor `acc` match the vertex count.
    fn check_count(&self, n: usize, acc: usize, what: &str) -> Result<(), ImportError> {
        match self.vertices {
            Some(vcount) if n != vcount => Err(ImportError::new(
                self.file,
                K::InvalidData {
                    element: accessor::label(acc, &self.usage(what)),
                    reason: format!("has {n} elements but POSITION has {vcount}"),
                },
            )),
            _ => Ok(()),
        }
    }

    /// A float attribute of N components: one element per vertex, every value finite.
    fn floats<const N: usize>(&self, acc: usize, what: &str) -> Result<Vec<[f32; N]>, ImportError> {
        let u = self.usage(what);
        let rows = accessor::read_vec::<N>(self.src, acc, &u, self.file)?;
        self.check_count(rows.len(), acc, what)?;
        accessor::check_finite_rows(&rows, acc, &u, self.file)?;
        Ok(rows)
    }

    /// [`Reader::floats`] of an attribute the primitive may lack, each element made a `T`.
    fn optional<const N: usize, T>(
        &self,
        acc: Option<usize>,
        what: &str,
        to: fn([f32; N]) -> T,
    ) -> Result<Option<Vec<T>>, ImportError> {
        acc.map(|a| Ok(self.floats::<N>(a, what)?.into_iter().map(to).collect()))
            .transpose()
    }

    /// A JOINTS_n set: four 16-bit joint indices per vertex.
    fn joints(&self, acc: usize, set: u32) -> Result<Vec<[u16; 4]>, ImportError> {
        let what = format!("JOINTS_{set}");
        let u = self.usage(&what);
        let j = accessor::read_uint(self.src, acc, &u, 4, self.file)?;
        self.check_count(j.len() / 4, acc, &what)?;
        if let Some(big) = j.iter().find(|&&v| v > u16::MAX as u32) {
            return Err(ImportError::new(
                self.file,
                K::InvalidData {
                    element: accessor::label(acc, &u),
                    reason: format!("joint index {big} does not fit 16 bits"),
                },
            ));
        }
        Ok(j.chunks_exact(4)
            .map(|c| [c[0] as u16, c[1] as u16, c[2] as u16, c[3] as u16])
            .collect())
    }

    /// The file's indices, each below the vertex count.
    fn indices(&self, acc: usize, vcount: usize) -> Result<Vec<u32>, ImportError> {
        let u = self.usage("indices");
        let idx = accessor::read_uint(self.src, acc, &u, 1, self.file)?;
        if let Some(bad) = idx.iter().find(|&&i| i as usize >= vcount) {
            return Err(ImportError::new(
                self.file,
                K::InvalidData {
                    element: accessor::label(acc, &u),
                    reason: format!("index {bad} is not below the vertex count {vcount}"),
                },
            ));
        }
        Ok(idx)
    }
}

/// The file's normals made unit length; a zero-length one becomes +Y, with a warning.
fn unit_normals(ctx: &mut Ctx, element: &str, rows: Vec<[f32; 3]>) -> Vec<Vec3> {
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
    n
}

/// Every JOINTS_n set that has its WEIGHTS_n, in set order, each (joints, weights) pair read
/// together; a set missing its partner is ignored with a warning.
#[allow(clippy::type_complexity)]
fn read_skin_sets(
    ctx: &mut Ctx,
    r: &Reader,
    acc: &Accessors,
) -> Result<(Vec<Vec<[u16; 4]>>, Vec<Vec<[f32; 4]>>), ImportError> {
    let element = r.element;
    let mut joint_sets = Vec::new();
    let mut weight_sets = Vec::new();
    for (&set, &ja) in &acc.joints {
        let Some(&wa) = acc.weights.get(&set) else {
            ctx.warn(format!(
                "{element} has JOINTS_{set} without WEIGHTS_{set}; the set is ignored"
            ));
            continue;
        };
        joint_sets.push(r.joints(ja, set)?);
        weight_sets.push(r.floats::<4>(wa, &format!("WEIGHTS_{set}"))?);
    }
    for set in acc.weights.keys() {
        if !acc.joints.contains_key(set) {
            ctx.warn(format!(
                "{element} has WEIGHTS_{set} without JOINTS_{set}; the set is ignored"
            ));
        }
    }
    Ok((joint_sets, weight_sets))
}

/// Flat normals for a primitive whose file has none; returns the number of degenerate
/// triangles. Flat shading needs one normal per face, so vertices shared by several faces
/// (`shared`: the file has indices) are duplicated (unwelded) first; a triangle soup (Fox) is
/// left as it is.
fn generate_normals(prim: &mut Primitive, indices: Vec<u32>, shared: bool) -> usize {
    if shared {
        unweld(prim, &indices);
        prim.indices = (0..indices.len() as u32).collect();
    } else {
        prim.indices = indices;
    }
    let degenerate = flat_normals(prim);
    prim.generated_normals = true;
    degenerate
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
