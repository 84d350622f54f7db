//! The reference path (docs/design.md §5): vertices skinned elsewhere — on the CPU, from the
//! source glTF or the baked asset's decoder — uploaded per frame and drawn with the same camera,
//! light, shadows and ground as the GPU paths. The baseline of the benchmarks and image tests.
//! Input: [`ReferenceMesh`]es. Output: draws recorded into the shadow and main passes.

use std::collections::HashMap;

use throng_asset::Aabb;

use super::{groups, mesh_pipeline, DrawLayouts};
use crate::bindings as b;
use crate::camera::crowd_bounds;
use crate::data_texture::InstanceData;
use crate::error::RenderError;
use crate::gpu_types::MaterialUniform;
use crate::layouts;
use crate::prop::PropMesh;
use crate::shaders::Program;
use crate::static_mesh::{
    check_mesh, decode_texture, index_buffer, vertex_buffer, MeshBuffers, MeshStreams, RefVertex,
};
use throng_contract::{Appearance, InstanceTransform};

/// Bytes of vertex data uploaded between flushes of wgpu's staging (see `upload`).
const STAGING_FLUSH: usize = 8 << 20;

/// Vertices skinned elsewhere (on the CPU, e.g. from the source glTF), drawn once per
/// transform.
#[derive(Debug, Clone, Copy)]
pub struct ReferenceMesh<'a> {
    /// The mesh, its positions in model space (file units): a static mesh as a prop's.
    pub mesh: PropMesh<'a>,
    /// Where to draw it (one instance per transform).
    pub transforms: &'a [InstanceTransform],
}

/// A baked asset skinned on the CPU by throng-asset's decoder (the twin of the shaders) for the
/// reference path: one copy per instance and primitive, since instances show different frames.
pub struct DecodedMeshes<'a> {
    asset: &'a throng_asset::BakedAsset,
    skinned: Vec<throng_asset::decode::SkinnedVertices>,
    transforms: &'a [InstanceTransform],
}

impl<'a> DecodedMeshes<'a> {
    /// Skins every primitive of `asset` for each instance's CPU-timed `records[i]`, to be drawn
    /// at `transforms[i]`.
    pub fn new(
        asset: &'a throng_asset::BakedAsset,
        records: &[throng_contract::InstanceRecord],
        transforms: &'a [InstanceTransform],
        skinning: throng_contract::Skinning,
    ) -> Result<DecodedMeshes<'a>, RenderError> {
        if records.len() != transforms.len() {
            return Err(RenderError::BadInput {
                what: "instance records (one per transform)",
                got: records.len(),
                expected: transforms.len(),
            });
        }
        let mut skinned = Vec::with_capacity(records.len() * asset.primitives.len());
        for r in records {
            for p in 0..asset.primitives.len() {
                skinned.push(
                    throng_asset::decode::skin_vertices(asset, p, &r.layers, skinning).map_err(
                        |e| RenderError::BadAsset {
                            asset: asset.source_name.clone(),
                            what: format!("primitive {p}: {e}"),
                        },
                    )?,
                );
            }
        }
        Ok(DecodedMeshes {
            asset,
            skinned,
            transforms,
        })
    }

    /// The meshes to hand to [`crate::Renderer::render_reference`], with the asset's materials.
    pub fn meshes(&self) -> Vec<ReferenceMesh<'_>> {
        self.meshes_with(&[])
    }

    /// [`Self::meshes`] as each instance's appearance shows it (docs/design.md §5
    /// "Appearance"; an instance past `appearances` has the default): hidden parts left out,
    /// each primitive in its variant's material (`BakedAsset::variants`), the tint multiplied
    /// into the base colour factor — the CPU statement of what the crowd paths draw.
    pub fn meshes_with(&self, appearances: &[Appearance]) -> Vec<ReferenceMesh<'_>> {
        let np = self.asset.primitives.len().max(1);
        self.skinned
            .iter()
            .enumerate()
            .filter_map(|(k, s)| {
                let part = k % np;
                let look = appearances.get(k / np).copied().unwrap_or_default();
                if !look.shows_part(part) {
                    return None;
                }
                let prim = &self.asset.primitives[part];
                let variant = (look.variant as usize)
                    .checked_sub(1)
                    .and_then(|v| self.asset.variants.get(v))
                    .and_then(|v| v.materials.get(part).copied().flatten());
                let mat = variant
                    .or(prim.material)
                    .and_then(|m| self.asset.materials.get(m));
                let tint = look.tint_linear();
                let tinted = |c: [f32; 4]| [0, 1, 2, 3].map(|i| c[i] * tint[i]);
                let mesh = PropMesh {
                    positions: &s.positions,
                    normals: &s.normals,
                    indices: &prim.indices,
                    uvs: prim.uv0.as_deref(),
                    material: mat
                        .map(|m| {
                            MaterialUniform::new(tinted(m.base_color_factor), &m.texture_transform)
                        })
                        .unwrap_or(MaterialUniform::color(tinted(
                            crate::options::DEFAULT_COLOR,
                        ))),
                    texture: mat
                        .and_then(|m| m.base_color_texture)
                        .and_then(|i| self.asset.images.get(i))
                        .map(|img| img.bytes.as_slice()),
                };
                let transforms = std::slice::from_ref(&self.transforms[k / np]);
                Some(ReferenceMesh { mesh, transforms })
            })
            .collect()
    }
}

/// The reference pass's group 0 layout (instance transforms and the frame uniform; the ground
/// uses it too) and its pipelines by colour format (None: the shadow pass).
pub(crate) struct ReferencePass {
    pub bgl: wgpu::BindGroupLayout,
    /// The device has no storage buffers in the vertex stage: transforms from a data texture
    /// (docs/downlevel.md).
    downlevel: bool,
    pipelines: HashMap<Option<wgpu::TextureFormat>, wgpu::RenderPipeline>,
}

/// Reference meshes on the GPU for one frame.
pub(crate) struct ReferenceUpload {
    draws: Vec<(MeshBuffers, std::ops::Range<u32>, wgpu::BindGroup)>,
    /// All meshes' instance transforms, in mesh order.
    pub transforms: InstanceData,
    /// World bounds of every instance of every mesh.
    pub bounds: Aabb,
}

impl ReferencePass {
    pub fn new(device: &wgpu::Device, downlevel: bool) -> ReferencePass {
        ReferencePass {
            bgl: if downlevel {
                layouts::reference_draw_downlevel(device)
            } else {
                layouts::reference_draw(device)
            },
            downlevel,
            pipelines: HashMap::new(),
        }
    }

    /// Builds the main-pass pipeline for `format` and the shadow pipeline if missing.
    pub fn prepare(
        &mut self,
        device: &wgpu::Device,
        layouts: &DrawLayouts,
        format: wgpu::TextureFormat,
    ) -> Result<(), RenderError> {
        for color in [Some(format), None] {
            if self.pipelines.contains_key(&color) {
                continue;
            }
            let program = if self.downlevel {
                Program::ReferenceDrawDownlevel
            } else {
                Program::ReferenceDraw
            };
            let module = crate::pipelines::shader_module(device, program)?;
            let p = mesh_pipeline(
                device,
                "throng reference draw",
                &module,
                groups(
                    &self.bgl,
                    Some(&layouts.materials.bgl),
                    None,
                    layouts.draw(color),
                ),
                &[Some(RefVertex::layout())],
                ("vs_main", "fs_main"),
                (color, false),
            );
            self.pipelines.insert(color, p);
        }
        Ok(())
    }

    /// Group 0 of the reference draws and the ground.
    pub fn group(
        &self,
        device: &wgpu::Device,
        transforms: &InstanceData,
        frame: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("throng reference/ground"),
            layout: &self.bgl,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: b::INSTANCE_TRANSFORMS,
                    resource: transforms.binding(),
                },
                wgpu::BindGroupEntry {
                    binding: b::FRAME,
                    resource: frame.as_entire_binding(),
                },
            ],
        })
    }

    /// Checks and uploads the meshes (a texture that cannot be decoded is drawn untextured,
    /// with a warning).
    pub fn upload(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        layouts: &DrawLayouts,
        meshes: &[ReferenceMesh],
    ) -> Result<ReferenceUpload, RenderError> {
        let mut all_transforms = Vec::new();
        let mut bounds = Aabb::EMPTY;
        let mut draws = Vec::new();
        // Every instance's mesh names its primitive's indices and its material's image: each
        // (and each material's bind group) is made once, not once per instance (a 1 MiB
        // texture decoded for each of 3,000 instances filled memory), so a frame costs its
        // skinned vertices and little more.
        let mut textures: HashMap<(usize, usize), Option<wgpu::TextureView>> = HashMap::new();
        let mut index_buffers: HashMap<(usize, usize), wgpu::Buffer> = HashMap::new();
        let mut staged = 0usize;
        let mut groups = HashMap::new();
        // a slice by where it lies: every instance's mesh borrows the same model data
        fn key<T>(s: &[T]) -> (usize, usize) {
            (s.as_ptr() as usize, s.len())
        }
        for (mi, m) in meshes.iter().enumerate() {
            let streams = MeshStreams {
                positions: m.mesh.positions,
                normals: m.mesh.normals,
                uvs: m.mesh.uvs,
                indices: m.mesh.indices,
                texture: None,
            };
            let mut b = Aabb::EMPTY;
            for &p in m.mesh.positions {
                b.extend(p);
            }
            bounds = bounds.union(&crowd_bounds(&b, m.transforms));
            let first = all_transforms.len() as u32;
            all_transforms.extend_from_slice(m.transforms);
            if !check_mesh(&streams)? || m.transforms.is_empty() {
                continue;
            }
            let indices = index_buffers
                .entry(key(m.mesh.indices))
                .or_insert_with(|| index_buffer(device, m.mesh.indices))
                .clone();
            let texture_key = m.mesh.texture.map(key);
            let texture = m.mesh.texture.zip(texture_key).and_then(|(bytes, k)| {
                let what = format!("reference mesh {mi}");
                textures
                    .entry(k)
                    .or_insert_with(|| decode_texture(device, queue, &what, bytes))
                    .clone()
            });
            // wgpu stages each buffer's contents until the next submission: flushed every
            // STAGING_FLUSH bytes, so a crowd's upload is not held twice.
            staged += m.mesh.positions.len() * std::mem::size_of::<RefVertex>();
            if staged > STAGING_FLUSH {
                queue.submit(std::iter::empty());
                // a failed wait only leaves the staging to the frame's own submission
                let _ = device.poll(wgpu::PollType::wait_indefinitely());
                staged = 0;
            }
            let buffers = MeshBuffers {
                vertices: vertex_buffer(device, &streams),
                indices,
                index_count: m.mesh.indices.len() as u32,
                texture: None,
            };
            let count = m.transforms.len() as u32;
            let material = (bytemuck::bytes_of(&m.mesh.material).to_vec(), texture_key);
            let group = groups
                .entry(material)
                .or_insert_with(|| {
                    let set = crate::gpu_types::MaterialSet::single(m.mesh.material);
                    layouts.materials.group(device, &set, texture.as_ref())
                })
                .clone();
            draws.push((buffers, first..first + count, group));
        }
        Ok(ReferenceUpload {
            draws,
            transforms: InstanceData::transforms(device, queue, &all_transforms, self.downlevel)?,
            bounds,
        })
    }

    /// Records the uploaded meshes into a pass (`shadow`: the depth-only pipeline); group 0 is
    /// [`Self::group`] over the upload's transforms, group 3 is bound by the caller.
    pub fn record(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        upload: &ReferenceUpload,
        group: &wgpu::BindGroup,
        color: Option<wgpu::TextureFormat>,
    ) -> u32 {
        let Some(pipeline) = self.pipelines.get(&color) else {
            return 0;
        };
        pass.set_pipeline(pipeline);
        pass.set_bind_group(b::group::SKIN, group, &[]);
        for (mesh, instances, mat) in &upload.draws {
            pass.set_bind_group(b::group::MATERIAL, mat, &[]);
            pass.set_vertex_buffer(0, mesh.vertices.slice(..));
            pass.set_index_buffer(mesh.indices.slice(..), wgpu::IndexFormat::Uint32);
            pass.draw_indexed(0..mesh.index_count, 0, instances.clone());
        }
        upload.draws.len() as u32
    }
}
