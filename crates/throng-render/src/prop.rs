//! Props (docs/design.md §5 "Props"): static meshes attached to an anchor of a crowd's asset — a
//! sword in a hand, a hat on a head. Every prop of a crowd is drawn in one instanced draw per
//! pass (instance index = crowd instance), placed on the GPU by the anchor rows each instance
//! shows, interpolated and blended as its skin matrices are (`throng_render::anchor`; CPU twin
//! `throng_runtime::anchor::anchor_world`).

use glam::{Vec2, Vec3};
use throng_asset::Aabb;

use crate::device::Gpu;
use crate::error::RenderError;
use crate::gpu_types::MaterialUniform;
use crate::static_mesh::{upload_mesh, MeshBuffers, MeshStreams};

/// A static mesh to attach to anchors, as [`crate::Renderer::upload_prop`] takes it. Its own
/// space is the anchor's: the anchor's transform (model space of the asset, then the instance
/// transform) places it, so positions are in the asset's file units. The reference path draws
/// the same kind of mesh, skinned on the CPU, in model space ([`crate::ReferenceMesh`]).
#[derive(Debug, Clone, Copy)]
pub struct PropMesh<'a> {
    /// Positions in the anchor's space (file units of the asset).
    pub positions: &'a [Vec3],
    /// Unit normals, one per position.
    pub normals: &'a [Vec3],
    /// Triangle list.
    pub indices: &'a [u32],
    /// UV0 per position, for `texture` (None: the texture's corner).
    pub uvs: Option<&'a [Vec2]>,
    /// Linear RGBA base colour and texture transform.
    pub material: MaterialUniform,
    /// Base colour texture: an encoded PNG/JPEG image (sRGB).
    pub texture: Option<&'a [u8]>,
}

/// A prop mesh on the GPU ([`crate::Renderer::upload_prop`]); one [`Prop`] per anchor it is
/// attached to.
pub struct GpuProp {
    pub(crate) mesh: MeshBuffers,
    pub(crate) material: MaterialUniform,
    /// Bounds of the mesh in the anchor's space (file units).
    pub bounds: Aabb,
}

impl std::fmt::Debug for GpuProp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuProp")
            .field("index_count", &self.mesh.index_count)
            .field("bounds", &self.bounds)
            .finish()
    }
}

impl GpuProp {
    /// Checks and uploads `mesh` (a normal per position, indices in range, at least one
    /// triangle); a texture that cannot be decoded is drawn untextured, with a warning.
    pub fn new(gpu: &Gpu, mesh: &PropMesh) -> Result<GpuProp, RenderError> {
        let streams = MeshStreams {
            positions: mesh.positions,
            normals: mesh.normals,
            uvs: mesh.uvs,
            indices: mesh.indices,
            texture: mesh.texture,
        };
        let Some(buffers) = upload_mesh(&gpu.device, &gpu.queue, "prop mesh", &streams)? else {
            return Err(RenderError::BadInput {
                what: "prop mesh indices (at least one triangle)",
                got: mesh.indices.len(),
                expected: 3,
            });
        };
        let mut bounds = Aabb::EMPTY;
        for &p in mesh.positions {
            bounds.extend(p);
        }
        Ok(GpuProp {
            mesh: buffers,
            material: mesh.material,
            bounds,
        })
    }
}

/// A prop of a crowd: `mesh` drawn at anchor `anchor` of the crowd's asset (an index into
/// [`crate::GpuAsset::anchor_names`]; [`crate::GpuAsset::anchor`] finds it by name) for every
/// instance of the crowd.
#[derive(Debug, Clone, Copy)]
pub struct Prop<'a> {
    pub anchor: u32,
    pub mesh: &'a GpuProp,
}

impl Prop<'_> {
    /// The index of `asset`'s anchor called `name`, as [`crate::GpuAsset::anchor`] finds it,
    /// before any upload (to check a request early). Errors name the asset and list its
    /// anchors, or say that it has none.
    pub fn anchor_of(asset: &throng_asset::BakedAsset, name: &str) -> Result<u32, RenderError> {
        let names: Vec<String> = asset
            .anchors
            .iter()
            .flat_map(|a| a.anchors.iter().map(|i| i.name.clone()))
            .collect();
        crate::gpu_asset::find_anchor(&asset.source_name, &names, name)
    }
}
