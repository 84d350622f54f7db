//! Skinning a whole source model at one clip time: every animated primitive of every mesh
//! binding, the classic CPU path that throng's bake is measured against. One job serves the
//! command line's `sample` and reference `render`, the benches and the tests.

use glam::Mat4;

use crate::model::{MeshBinding, Model};
use crate::sample::Poser;
use crate::skin::{binding_influences, binding_matrices, skin_primitive, Influences, Skinning};
use crate::SkinnedVertices;

/// One skinned primitive of a model, keyed like the source file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SkinnedPart {
    /// The glTF node that holds the mesh (its binding).
    pub node: usize,
    pub mesh: usize,
    /// Primitive index within the mesh.
    pub primitive: usize,
    /// Model-space vertex streams (file units).
    pub vertices: SkinnedVertices,
}

/// Poses and skins a whole model on the CPU. Keeps its scratch (poser, influences, matrices)
/// between calls so that repeated calls allocate nothing once the outputs have grown.
#[derive(Debug, Clone)]
pub struct ModelSkinner {
    bindings: Vec<MeshBinding>,
    /// Per binding, the influences of each of its mesh's primitives.
    influences: Vec<Vec<Influences>>,
    poser: Poser,
    matrices: Vec<Mat4>,
}

impl ModelSkinner {
    pub fn new(model: &Model) -> ModelSkinner {
        Self::of_bindings(model, model.mesh_bindings())
    }

    /// A skinner of every mesh of `model`, the static ones too: a mesh that nothing animates is
    /// bound rigidly to its own node, as a rigid part is. Skinned in the rest pose (`clip`
    /// None) it gives the model as it stands, in model space — e.g. a prop to attach to an
    /// anchor.
    pub fn with_static_meshes(model: &Model) -> ModelSkinner {
        let mut bindings = model.mesh_bindings();
        for (node, n) in model.nodes.iter().enumerate() {
            let Some(mesh) = n.mesh else { continue };
            if !bindings.iter().any(|b| b.node == node) {
                bindings.push(MeshBinding {
                    node,
                    mesh,
                    kind: crate::model::BindingKind::Rigid,
                });
            }
        }
        // Node order, as mesh_bindings gives it.
        bindings.sort_by_key(|b| b.node);
        Self::of_bindings(model, bindings)
    }

    fn of_bindings(model: &Model, bindings: Vec<MeshBinding>) -> ModelSkinner {
        let influences = bindings
            .iter()
            .map(|b| {
                model.meshes[b.mesh]
                    .primitives
                    .iter()
                    .map(|p| binding_influences(b, p).0)
                    .collect()
            })
            .collect();
        ModelSkinner {
            bindings,
            influences,
            poser: Poser::new(model),
            matrices: Vec::new(),
        }
    }

    /// Whether the model has anything animation moves (a skin, or a mesh under a joint or an
    /// animated node).
    pub fn is_empty(&self) -> bool {
        self.bindings.is_empty()
    }

    /// Vertices skinned per call.
    pub fn vertex_count(&self, model: &Model) -> usize {
        self.bindings
            .iter()
            .map(|b| {
                model.meshes[b.mesh]
                    .primitives
                    .iter()
                    .map(|p| p.vertex_count())
                    .sum::<usize>()
            })
            .sum()
    }

    /// Skins every primitive of `model` (the one this skinner was made for) posed with `clip`
    /// (`None`: the rest pose) at local clip time `time` seconds (not wrapped here: see
    /// [`crate::Clip::local_time`]), into `out` (one part per binding and primitive, in binding
    /// order; existing parts are reused).
    pub fn skin(
        &mut self,
        model: &Model,
        clip: Option<usize>,
        time: f32,
        method: Skinning,
        out: &mut Vec<SkinnedPart>,
    ) {
        let model_space = self.poser.pose(model, clip, time);
        let mut k = 0;
        for (b, infs) in self.bindings.iter().zip(&self.influences) {
            binding_matrices(model, b, model_space, &mut self.matrices);
            for (pi, (prim, inf)) in model.meshes[b.mesh].primitives.iter().zip(infs).enumerate() {
                if out.len() <= k {
                    out.push(SkinnedPart::default());
                }
                let part = &mut out[k];
                part.node = b.node;
                part.mesh = b.mesh;
                part.primitive = pi;
                skin_primitive(method, prim, inf, &self.matrices, &mut part.vertices);
                k += 1;
            }
        }
        out.truncate(k);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{LocalTransform, Mesh, Node, Primitive, Trs};
    use glam::Vec3;

    /// A static mesh (no skin, nothing animated) under a moved parent: `new` leaves it out,
    /// `with_static_meshes` gives it in model space, as the scene places it.
    #[test]
    fn static_meshes_stand_where_their_nodes_put_them() {
        let node = |parent, children, t: Vec3, mesh| Node {
            name: None,
            parent,
            children,
            local: LocalTransform::Trs(Trs {
                translation: t,
                ..Trs::IDENTITY
            }),
            mesh,
            skin: None,
        };
        let model = Model {
            nodes: vec![
                node(None, vec![1], Vec3::new(0.0, 2.0, 0.0), None),
                node(Some(0), vec![], Vec3::new(1.0, 0.0, 0.0), Some(0)),
            ],
            eval_order: vec![0, 1],
            meshes: vec![Mesh {
                name: None,
                primitives: vec![Primitive {
                    positions: vec![Vec3::ZERO, Vec3::X, Vec3::Z],
                    normals: vec![Vec3::Y; 3],
                    indices: vec![0, 1, 2],
                    ..Default::default()
                }],
            }],
            ..Default::default()
        };
        assert!(ModelSkinner::new(&model).is_empty());
        let mut parts = Vec::new();
        ModelSkinner::with_static_meshes(&model).skin(
            &model,
            None,
            0.0,
            Skinning::Linear,
            &mut parts,
        );
        assert_eq!(parts.len(), 1);
        assert_eq!(parts[0].node, 1);
        let want = [
            Vec3::new(1.0, 2.0, 0.0),
            Vec3::new(2.0, 2.0, 0.0),
            Vec3::new(1.0, 2.0, 1.0),
        ];
        for (p, w) in parts[0].vertices.positions.iter().zip(want) {
            assert!((*p - w).length() < 1e-6, "{p} vs {w}");
        }
    }
}
