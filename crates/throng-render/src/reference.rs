//! The reference path (DESIGN.md §5): vertices skinned elsewhere — on the CPU, from the source
//! glTF or the baked asset's decoder — uploaded per frame and drawn with the same camera, light,
//! shadows and ground as the GPU paths. The baseline of the benchmarks and image tests.

use glam::Vec3;
use throng_asset::Aabb;
use wgpu::util::DeviceExt;

use crate::camera::crowd_bounds;
use crate::error::RenderError;
use crate::gpu_types::{InstanceTransform, MaterialUniform, DRAW_PARAMS_STRIDE};
use crate::pipelines::RefVertex;
use crate::render::{RenderOptions, Renderer, COLOR_FORMAT};
use crate::target::{depth_pass, main_pass, OffscreenTarget};

/// Vertices skinned elsewhere (on the CPU, e.g. from the source glTF) in model space, drawn once
/// per transform: the reference path (DESIGN.md §5).
#[derive(Debug, Clone, Copy)]
pub struct ReferenceMesh<'a> {
    /// Model-space positions (file units).
    pub positions: &'a [Vec3],
    /// Unit normals, one per position.
    pub normals: &'a [Vec3],
    /// Triangle list.
    pub indices: &'a [u32],
    /// UV0 per position, for `texture` (None: the texture's corner).
    pub uvs: Option<&'a [glam::Vec2]>,
    /// Linear RGBA base colour and texture transform.
    pub material: MaterialUniform,
    /// Base colour texture: an encoded PNG/JPEG image (sRGB).
    pub texture: Option<&'a [u8]>,
    /// Where to draw it (one instance per transform).
    pub transforms: &'a [InstanceTransform],
}

impl Renderer {
    pub(crate) fn reference_group(
        &self,
        transforms: &wgpu::Buffer,
        frame: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        self.gpu
            .device
            .create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("throng reference/ground"),
                layout: &self.reference_bgl,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: crate::bindings::INSTANCE_TRANSFORMS,
                        resource: transforms.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: crate::bindings::FRAME,
                        resource: frame.as_entire_binding(),
                    },
                ],
            })
    }

    /// Draws CPU-skinned meshes (the reference path) with the same camera, light, shadows and
    /// ground as [`Renderer::render_scene`]; each mesh once per its transforms.
    pub fn render_reference(
        &mut self,
        meshes: &[ReferenceMesh],
        opts: &RenderOptions,
    ) -> Result<image::RgbaImage, RenderError> {
        self.check_size(opts)?;
        self.ensure_reference_and_ground(COLOR_FORMAT)?;
        let device = &self.gpu.device;
        let mut all_transforms = Vec::new();
        let mut scene = Aabb::EMPTY;
        let mut draws = Vec::new();
        for (mi, m) in meshes.iter().enumerate() {
            let v = m.positions.len();
            if m.normals.len() != v {
                return Err(RenderError::BadInput {
                    what: "reference mesh normals (one per position)",
                    got: m.normals.len(),
                    expected: v,
                });
            }
            if let Some(&i) = m.indices.iter().find(|&&i| i as usize >= v) {
                return Err(RenderError::BadInput {
                    what: "reference mesh index (below the vertex count)",
                    got: i as usize,
                    expected: v,
                });
            }
            let mut b = Aabb::EMPTY;
            for &p in m.positions {
                b.extend(p);
            }
            scene = scene.union(&crowd_bounds(&b, m.transforms));
            let first = all_transforms.len() as u32;
            all_transforms.extend_from_slice(m.transforms);
            if v == 0 || m.indices.is_empty() || m.transforms.is_empty() {
                continue;
            }
            let verts: Vec<RefVertex> = (0..v)
                .map(|i| RefVertex {
                    position: m.positions[i].into(),
                    normal: m.normals[i].into(),
                    uv: m
                        .uvs
                        .and_then(|u| u.get(i).copied())
                        .unwrap_or(glam::Vec2::ZERO)
                        .into(),
                })
                .collect();
            let texture = match m
                .texture
                .map(|b| crate::material::upload_image(device, &self.gpu.queue, b))
            {
                Some(Ok(t)) => Some(t.create_view(&Default::default())),
                Some(Err(e)) => {
                    eprintln!("warning: reference mesh {mi}: texture cannot be decoded ({e}); drawing untextured");
                    None
                }
                None => None,
            };
            let vb = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("throng reference vertices"),
                contents: bytemuck::cast_slice(&verts),
                usage: wgpu::BufferUsages::VERTEX,
            });
            let ib = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("throng reference indices"),
                contents: bytemuck::cast_slice(m.indices),
                usage: wgpu::BufferUsages::INDEX,
            });
            let count = m.transforms.len() as u32;
            draws.push((
                vb,
                ib,
                m.indices.len() as u32,
                first..first + count,
                self.materials.group(device, &m.material, texture.as_ref()),
            ));
        }
        let transforms_buf = self.storage(
            "throng transforms",
            &all_transforms,
            InstanceTransform::IDENTITY,
        );
        let shadow_map = self.shadow_view(if opts.shadows {
            opts.shadow_map_size
        } else {
            1
        });
        let depth = self.depth_view(opts.width, opts.height);
        let setup = self.frame_setup(opts, &scene, &scene);
        let group = self.reference_group(&transforms_buf, &setup.frame);
        let params = self.draw_params_buffer(1, 0, opts, false);
        let (draw_main, draw_shadow) = self.draw_groups(&params, &shadow_map);
        let target = OffscreenTarget::new(&self.gpu.device, opts.width, opts.height);
        let mut enc = self.gpu.device.create_command_encoder(&Default::default());
        let record = |pass: &mut wgpu::RenderPass<'_>, pipeline: &wgpu::RenderPipeline| {
            pass.set_pipeline(pipeline);
            pass.set_bind_group(crate::bindings::group::SKIN, &group, &[]);
            for (vb, ib, count, instances, mat) in &draws {
                pass.set_bind_group(crate::bindings::group::MATERIAL, mat, &[]);
                pass.set_vertex_buffer(0, vb.slice(..));
                pass.set_index_buffer(ib.slice(..), wgpu::IndexFormat::Uint32);
                pass.draw_indexed(0..*count, 0, instances.clone());
            }
        };
        if opts.shadows {
            if let Some(p) = self.reference_pipelines.get(&None) {
                let mut pass = depth_pass(&mut enc, &shadow_map, "throng shadow pass");
                pass.set_bind_group(
                    crate::bindings::group::DRAW,
                    &draw_shadow,
                    &[DRAW_PARAMS_STRIDE as u32],
                );
                record(&mut pass, p);
            }
        }
        {
            let mut pass = main_pass(&mut enc, &target.view, &depth, opts.background);
            pass.set_bind_group(crate::bindings::group::DRAW, &draw_main, &[0]);
            if opts.ground {
                if let Some(g) = self.ground_pipelines.get(&COLOR_FORMAT) {
                    pass.set_pipeline(g);
                    pass.set_bind_group(crate::bindings::group::SKIN, &group, &[]);
                    pass.draw(0..6, 0..1);
                }
            }
            if let Some(p) = self.reference_pipelines.get(&Some(COLOR_FORMAT)) {
                record(&mut pass, p);
            }
        }
        let read = target.copy_out(&self.gpu.device, &mut enc);
        self.gpu.queue.submit([enc.finish()]);
        target.read(&self.gpu, &read)
    }
}
