//! Render and compute pipelines, built on first use and kept by the [`Renderer`]. A mesh
//! program has two pipelines: the main pass (colour + depth) and the shadow pass (depth only,
//! no fragment stage), both from the same vertex shader.

use throng_asset::Encoding;

use crate::error::RenderError;
use crate::gpu_asset::GpuVertex;
use crate::layouts;
use crate::render::{Renderer, DEPTH_FORMAT};
use crate::shaders::Program;
use throng_contract::{Skinning, Timing};

/// (encoding, skinning, timing, culled, VAT, colour format — None for the shadow pass); VAT
/// pipelines use the asset's encoding and LBS.
pub(crate) type PipelineKey = (
    Encoding,
    Skinning,
    Timing,
    bool,
    bool,
    Option<wgpu::TextureFormat>,
);

pub(crate) struct TexturePipeline {
    pub bgl: wgpu::BindGroupLayout,
    pub pipeline: wgpu::RenderPipeline,
}

pub(crate) struct CullPipelines {
    pub bgl: wgpu::BindGroupLayout,
    pub cull: wgpu::ComputePipeline,
    pub finish: wgpu::ComputePipeline,
}

/// Interleaved vertex of the reference path (CPU-skinned, model space).
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct RefVertex {
    pub position: [f32; 3],
    pub normal: [f32; 3],
    pub uv: [f32; 2],
}

/// A triangle-list pipeline with depth test from the (vertex, fragment) entry points; `color`: the colour target's format, or None for
/// a depth-only shadow pipeline (slope-scaled depth bias against shadow acne).
pub(crate) fn mesh_pipeline(
    device: &wgpu::Device,
    label: &str,
    module: &wgpu::ShaderModule,
    layouts: &[Option<&wgpu::BindGroupLayout>],
    buffers: &[Option<wgpu::VertexBufferLayout>],
    (vs, fs): (&str, &str),
    color: Option<wgpu::TextureFormat>,
) -> wgpu::RenderPipeline {
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(label),
        bind_group_layouts: layouts,
        immediate_size: 0,
    });
    let targets = color.map(|format| {
        [Some(wgpu::ColorTargetState {
            format,
            blend: None,
            write_mask: wgpu::ColorWrites::ALL,
        })]
    });
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(label),
        layout: Some(&layout),
        vertex: wgpu::VertexState {
            module,
            entry_point: Some(vs),
            compilation_options: Default::default(),
            buffers,
        },
        // No culling: double-sided materials and mirrored instances need none, and one-sided
        // ones only lose a little speed (fs_main lights back faces with the flipped normal).
        primitive: wgpu::PrimitiveState {
            topology: wgpu::PrimitiveTopology::TriangleList,
            cull_mode: None,
            ..Default::default()
        },
        depth_stencil: Some(wgpu::DepthStencilState {
            format: DEPTH_FORMAT,
            depth_write_enabled: Some(true),
            depth_compare: Some(wgpu::CompareFunction::Less),
            stencil: Default::default(),
            bias: if color.is_some() {
                Default::default()
            } else {
                wgpu::DepthBiasState {
                    constant: 2,
                    slope_scale: 2.0,
                    clamp: 0.0,
                }
            },
        }),
        multisample: Default::default(),
        fragment: targets.as_ref().map(|t| wgpu::FragmentState {
            module,
            entry_point: Some(fs),
            compilation_options: Default::default(),
            targets: t,
        }),
        multiview_mask: None,
        cache: None,
    })
}

impl Renderer {
    fn draw_bgl(&self, color: Option<wgpu::TextureFormat>) -> &wgpu::BindGroupLayout {
        if color.is_some() {
            &self.draw_main_bgl
        } else {
            &self.draw_shadow_bgl
        }
    }

    pub(crate) fn ensure_texture_pipeline(&mut self, key: PipelineKey) -> Result<(), RenderError> {
        if self.texture_pipelines.contains_key(&key) {
            return Ok(());
        }
        let (encoding, skinning, timing, culled, vat, color) = key;
        let device = &self.gpu.device;
        let draw_bgl = self.draw_bgl(color);
        let pass = if color.is_some() { "" } else { " (shadow)" };
        let pipeline;
        let bgl;
        if vat {
            let module = layouts::shader_module(device, Program::VatDraw { timing, culled })?;
            bgl = layouts::vat_draw(device, timing, culled);
            // Only UV0 of the interleaved vertex is read; the vertex index addresses the VAT.
            let uv_only = [wgpu::VertexAttribute {
                format: wgpu::VertexFormat::Float32x2,
                offset: std::mem::offset_of!(GpuVertex, uv) as u64,
                shader_location: 0,
            }];
            pipeline = mesh_pipeline(
                device,
                &format!("throng vat draw{pass}"),
                &module,
                &[
                    Some(&bgl),
                    Some(&self.materials.bgl),
                    Some(&self.vat_bgl),
                    Some(draw_bgl),
                ],
                &[Some(wgpu::VertexBufferLayout {
                    array_stride: std::mem::size_of::<GpuVertex>() as u64,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &uv_only,
                })],
                ("vs_main", "fs_main"),
                color,
            );
        } else {
            let module = layouts::shader_module(
                device,
                Program::TextureDraw {
                    encoding,
                    skinning,
                    timing,
                    culled,
                },
            )?;
            bgl = layouts::texture_draw(device, encoding, timing, culled);
            pipeline = mesh_pipeline(
                device,
                &format!("throng texture draw{pass}"),
                &module,
                &[Some(&bgl), Some(&self.materials.bgl), None, Some(draw_bgl)],
                &[Some(GpuVertex::layout())],
                ("vs_main", "fs_main"),
                color,
            );
        }
        self.texture_pipelines
            .insert(key, TexturePipeline { bgl, pipeline });
        Ok(())
    }

    pub(crate) fn ensure_cull_pipelines(&mut self, timing: Timing) -> Result<(), RenderError> {
        if self.cull_pipelines.contains_key(&timing) {
            return Ok(());
        }
        let device = &self.gpu.device;
        let bgl = layouts::cull_compute(device, timing);
        let program = Program::Cull { timing };
        let cull = crate::skin::compute_pipeline(device, program, &bgl, "cs_cull")?;
        let finish = crate::skin::compute_pipeline(device, program, &bgl, "cs_cull_finish")?;
        self.cull_pipelines
            .insert(timing, CullPipelines { bgl, cull, finish });
        Ok(())
    }

    /// The reference pipelines (main pass into `format` and the shadow pass) and the ground's.
    pub(crate) fn ensure_reference_and_ground(
        &mut self,
        format: wgpu::TextureFormat,
    ) -> Result<(), RenderError> {
        let device = &self.gpu.device;
        for color in [Some(format), None] {
            if self.reference_pipelines.contains_key(&color) {
                continue;
            }
            let module = layouts::shader_module(device, Program::ReferenceDraw)?;
            let p = mesh_pipeline(
                device,
                "throng reference draw",
                &module,
                &[
                    Some(&self.reference_bgl),
                    Some(&self.materials.bgl),
                    None,
                    Some(self.draw_bgl(color)),
                ],
                &[Some(wgpu::VertexBufferLayout {
                    array_stride: std::mem::size_of::<RefVertex>() as u64,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Float32x2],
                })],
                ("vs_main", "fs_main"),
                color,
            );
            self.reference_pipelines.insert(color, p);
        }
        if !self.ground_pipelines.contains_key(&format) {
            let module = layouts::shader_module(device, Program::Ground)?;
            let p = mesh_pipeline(
                device,
                "throng ground",
                &module,
                &[
                    Some(&self.reference_bgl),
                    None,
                    None,
                    Some(&self.draw_main_bgl),
                ],
                &[],
                ("vs_ground", "fs_ground"),
                Some(format),
            );
            self.ground_pipelines.insert(format, p);
        }
        Ok(())
    }
}
