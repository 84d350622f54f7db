//! Headless rendering: the texture skinning path and the reference path into an offscreen
//! colour + depth target, read back to an RGBA8 image (sRGB). One instanced draw per primitive;
//! the ground is one more draw.

use std::collections::HashMap;

use glam::Vec3;
use throng_asset::{Aabb, BakedAsset, Encoding};
use wgpu::util::DeviceExt;

use crate::camera::{crowd_bounds, frame_uniform, Camera};
use crate::device::{AdapterSummary, Gpu};
use crate::error::RenderError;
use crate::gpu_asset::{GpuAsset, GpuVertex};
use crate::gpu_types::{
    CullParams, DrawIndexedArgs, InstanceTransform, LayerRecord, MaterialUniform, Playback,
};
use crate::layouts;
use crate::material::MaterialResources;
use crate::readback::map_read;
use crate::shaders::{compose, Program, Skinning, Timing};

const COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// Base colour of primitives without a material (linear).
const DEFAULT_COLOR: [f32; 4] = [0.6, 0.6, 0.62, 1.0];

/// How the vertices of a baked asset are animated on the GPU (DESIGN.md §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SkinPath {
    /// The vertex shader skins with matrices read from the bone texture.
    #[default]
    Texture,
    /// The vertex shader fetches baked positions and normals (every primitive needs a VAT).
    Vat,
}

/// What to draw around the crowd and how.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RenderOptions {
    /// Image size in pixels.
    pub width: u32,
    pub height: u32,
    pub skinning: Skinning,
    /// Texture skinning or VAT.
    pub path: SkinPath,
    /// `None`: framed from the crowd's bounds ([`Camera::framing`]).
    pub camera: Option<Camera>,
    /// Draw the checkered ground plane under the crowd.
    pub ground: bool,
    /// Texture path: cull instances on the GPU (frustum vs clip bounds) and draw the visible
    /// ones with indirect draws; off: draw every instance.
    pub cull: bool,
    /// Linear RGBA clear colour.
    pub background: [f32; 4],
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            width: 256,
            height: 256,
            skinning: Skinning::Linear,
            path: SkinPath::Texture,
            camera: None,
            ground: true,
            cull: true,
            background: [0.55, 0.66, 0.8, 1.0],
        }
    }
}

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

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct RefVertex {
    position: [f32; 3],
    normal: [f32; 3],
    uv: [f32; 2],
}

/// (encoding, skinning, timing, culled, VAT); VAT pipelines use the asset's encoding and LBS.
type PipelineKey = (Encoding, Skinning, Timing, bool, bool);

struct CullPipelines {
    bgl: wgpu::BindGroupLayout,
    cull: wgpu::ComputePipeline,
    finish: wgpu::ComputePipeline,
}

/// Buffers of one culling run: visible ids and per-primitive indirect arguments.
struct CullRun {
    bind: wgpu::BindGroup,
    visible: wgpu::Buffer,
    args: wgpu::Buffer,
    instances: u32,
    primitives: u32,
}

struct TexturePipeline {
    bgl: wgpu::BindGroupLayout,
    pipeline: wgpu::RenderPipeline,
}

/// A headless renderer: a device plus pipelines built on first use.
pub struct Renderer {
    pub gpu: Gpu,
    materials: MaterialResources,
    vat_bgl: wgpu::BindGroupLayout,
    vat_dummies: crate::vat::VatDummies,
    reference_bgl: wgpu::BindGroupLayout,
    texture_pipelines: HashMap<PipelineKey, TexturePipeline>,
    cull_pipelines: HashMap<Timing, CullPipelines>,
    reference_pipeline: Option<wgpu::RenderPipeline>,
    ground_pipeline: Option<wgpu::RenderPipeline>,
}

fn mesh_pipeline(
    device: &wgpu::Device,
    label: &str,
    module: &wgpu::ShaderModule,
    layouts: &[Option<&wgpu::BindGroupLayout>],
    buffers: &[Option<wgpu::VertexBufferLayout>],
    vs: &str,
    fs: &str,
) -> wgpu::RenderPipeline {
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(label),
        bind_group_layouts: layouts,
        immediate_size: 0,
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
            bias: Default::default(),
        }),
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module,
            entry_point: Some(fs),
            compilation_options: Default::default(),
            targets: &[Some(wgpu::ColorTargetState {
                format: COLOR_FORMAT,
                blend: None,
                write_mask: wgpu::ColorWrites::ALL,
            })],
        }),
        multiview_mask: None,
        cache: None,
    })
}

impl Renderer {
    /// Creates a device on any adapter ([`Gpu::new`]).
    pub fn new() -> Result<Renderer, RenderError> {
        Ok(Self::with_gpu(Gpu::new()?))
    }

    pub fn with_gpu(gpu: Gpu) -> Renderer {
        let materials = MaterialResources::new(&gpu.device, &gpu.queue);
        let vat_bgl = layouts::vat_textures(&gpu.device);
        let vat_dummies = crate::vat::VatDummies::new(&gpu.device);
        let reference_bgl = layouts::reference_draw(&gpu.device);
        Renderer {
            gpu,
            materials,
            vat_bgl,
            vat_dummies,
            reference_bgl,
            texture_pipelines: HashMap::new(),
            cull_pipelines: HashMap::new(),
            reference_pipeline: None,
            ground_pipeline: None,
        }
    }

    pub fn adapter(&self) -> &AdapterSummary {
        &self.gpu.summary
    }

    /// Uploads a baked asset ([`GpuAsset::new`]).
    pub fn upload(&self, asset: &BakedAsset) -> Result<GpuAsset, RenderError> {
        GpuAsset::new(&self.gpu, asset)
    }

    fn ensure_texture_pipeline(&mut self, key: PipelineKey) -> Result<(), RenderError> {
        if !self.texture_pipelines.contains_key(&key) {
            let (encoding, skinning, timing, culled, vat) = key;
            let device = &self.gpu.device;
            let pipeline;
            let bgl;
            if vat {
                let src = compose(Program::VatDraw { timing, culled })?;
                let module = layouts::shader_module(device, "throng vat draw", src);
                bgl = layouts::vat_draw(device, timing, culled);
                // Only UV0 of the interleaved vertex is read; the vertex index addresses the VAT.
                let uv_only = [wgpu::VertexAttribute {
                    format: wgpu::VertexFormat::Float32x2,
                    offset: std::mem::offset_of!(GpuVertex, uv) as u64,
                    shader_location: 0,
                }];
                pipeline = mesh_pipeline(
                    device,
                    "throng vat draw",
                    &module,
                    &[Some(&bgl), Some(&self.materials.bgl), Some(&self.vat_bgl)],
                    &[Some(wgpu::VertexBufferLayout {
                        array_stride: std::mem::size_of::<GpuVertex>() as u64,
                        step_mode: wgpu::VertexStepMode::Vertex,
                        attributes: &uv_only,
                    })],
                    "vs_main",
                    "fs_main",
                );
            } else {
                let src = compose(Program::TextureDraw {
                    encoding,
                    skinning,
                    timing,
                    culled,
                })?;
                let module = layouts::shader_module(device, "throng texture draw", src);
                bgl = layouts::texture_draw(device, encoding, timing, culled);
                pipeline = mesh_pipeline(
                    device,
                    "throng texture draw",
                    &module,
                    &[Some(&bgl), Some(&self.materials.bgl)],
                    &[Some(GpuVertex::layout())],
                    "vs_main",
                    "fs_main",
                );
            }
            self.texture_pipelines
                .insert(key, TexturePipeline { bgl, pipeline });
        }
        Ok(())
    }

    fn ensure_cull_pipelines(&mut self, timing: Timing) -> Result<(), RenderError> {
        if self.cull_pipelines.contains_key(&timing) {
            return Ok(());
        }
        let device = &self.gpu.device;
        let module =
            layouts::shader_module(device, "throng cull", compose(Program::Cull { timing })?);
        let bgl = layouts::cull_compute(device, timing);
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("throng cull"),
            bind_group_layouts: &[Some(&bgl)],
            immediate_size: 0,
        });
        let make = |entry| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry),
                layout: Some(&layout),
                module: &module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            })
        };
        let cull = make("cs_cull");
        let finish = make("cs_cull_finish");
        self.cull_pipelines
            .insert(timing, CullPipelines { bgl, cull, finish });
        Ok(())
    }

    /// Buffers and bind group of a culling run over `transforms` / `play` seen by `view_proj`.
    fn cull_run(
        &self,
        asset: &GpuAsset,
        transforms_buf: &wgpu::Buffer,
        play: &layouts::PlaybackBuffers,
        instances: u32,
        view_proj: &glam::Mat4,
        timing: Timing,
    ) -> Option<CullRun> {
        let cp = self.cull_pipelines.get(&timing)?;
        let device = &self.gpu.device;
        let planes = crate::camera::frustum_planes(view_proj).map(|p| p.to_array());
        let b = &asset.bounds;
        let (lo, hi) = if b.is_empty() {
            (Vec3::splat(-f32::MAX), Vec3::splat(f32::MAX))
        } else {
            (b.min, b.max)
        };
        let params = CullParams {
            planes,
            fallback_min: lo.extend(0.0).into(),
            fallback_max: hi.extend(0.0).into(),
            instance_count: instances,
            primitive_count: asset.primitives.len() as u32,
            _pad: [0; 2],
        };
        let params_buf = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("throng cull params"),
            contents: bytemuck::bytes_of(&params),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let visible = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("throng visible instances"),
            size: 4 * instances.max(1) as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let mut args: Vec<DrawIndexedArgs> = asset
            .primitives
            .iter()
            .map(|p| DrawIndexedArgs {
                index_count: p.index_count,
                ..Default::default()
            })
            .collect();
        if args.is_empty() {
            args.push(DrawIndexedArgs::default());
        }
        let args_buf = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("throng draw arguments"),
            contents: bytemuck::cast_slice(&args),
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::INDIRECT
                | wgpu::BufferUsages::COPY_SRC,
        });
        let mut entries = vec![
            wgpu::BindGroupEntry {
                binding: 1,
                resource: asset.params_buffer.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: asset.clips_buffer.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 3,
                resource: transforms_buf.as_entire_binding(),
            },
        ];
        entries.extend(play.entries());
        entries.extend([
            wgpu::BindGroupEntry {
                binding: 11,
                resource: params_buf.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 12,
                resource: visible.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 13,
                resource: args_buf.as_entire_binding(),
            },
        ]);
        let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("throng cull"),
            layout: &cp.bgl,
            entries: &entries,
        });
        Some(CullRun {
            bind,
            visible,
            args: args_buf,
            instances,
            primitives: args.len() as u32,
        })
    }

    fn encode_cull(&self, run: &CullRun, timing: Timing, enc: &mut wgpu::CommandEncoder) {
        let Some(cp) = self.cull_pipelines.get(&timing) else {
            return;
        };
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_bind_group(0, &run.bind, &[]);
        pass.set_pipeline(&cp.cull);
        pass.dispatch_workgroups(run.instances.div_ceil(64).max(1), 1, 1);
        pass.set_pipeline(&cp.finish);
        pass.dispatch_workgroups(run.primitives.div_ceil(64).max(1), 1, 1);
    }

    /// Runs only the GPU culling pass and returns the visible instance indices, ascending (for
    /// tests and statistics). `camera` None: framed as [`Renderer::render_playback`] frames it.
    pub fn visible_instances(
        &mut self,
        asset: &GpuAsset,
        transforms: &[InstanceTransform],
        playback: Playback,
        opts: &RenderOptions,
    ) -> Result<Vec<u32>, RenderError> {
        if transforms.len() != playback.len() {
            return Err(RenderError::BadInput {
                what: "instance records (one per transform)",
                got: playback.len(),
                expected: transforms.len(),
            });
        }
        if transforms.is_empty() {
            return Ok(Vec::new());
        }
        let timing = playback.timing();
        self.ensure_cull_pipelines(timing)?;
        let scene = crowd_bounds(&asset.bounds, transforms);
        let (_, view_proj) = self.frame_buffer(opts, &scene);
        let transforms_buf =
            self.storage("throng transforms", transforms, InstanceTransform::IDENTITY);
        let play = layouts::PlaybackBuffers::new(&self.gpu.device, &playback);
        let n = transforms.len() as u32;
        let Some(run) = self.cull_run(asset, &transforms_buf, &play, n, &view_proj, timing) else {
            return Ok(Vec::new());
        };
        let device = &self.gpu.device;
        let read = |size: u64| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("throng cull readback"),
                size,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        };
        let ids_read = read(4 * n as u64);
        let args_read = read(20);
        let mut enc = device.create_command_encoder(&Default::default());
        self.encode_cull(&run, timing, &mut enc);
        enc.copy_buffer_to_buffer(&run.visible, 0, &ids_read, 0, 4 * n as u64);
        enc.copy_buffer_to_buffer(&run.args, 0, &args_read, 0, 20);
        self.gpu.queue.submit([enc.finish()]);
        let args: Vec<DrawIndexedArgs> =
            bytemuck::pod_collect_to_vec(&map_read(&self.gpu, &args_read)?);
        let ids: Vec<u32> = bytemuck::pod_collect_to_vec(&map_read(&self.gpu, &ids_read)?);
        let count = args
            .first()
            .map_or(0, |a| a.instance_count as usize)
            .min(ids.len());
        let mut v = ids[..count].to_vec();
        v.sort_unstable();
        Ok(v)
    }

    fn ensure_reference_and_ground(&mut self) -> Result<(), RenderError> {
        let device = &self.gpu.device;
        if self.reference_pipeline.is_none() {
            let module = layouts::shader_module(
                device,
                "throng reference draw",
                compose(Program::ReferenceDraw)?,
            );
            self.reference_pipeline = Some(mesh_pipeline(
                device,
                "throng reference draw",
                &module,
                &[Some(&self.reference_bgl), Some(&self.materials.bgl)],
                &[Some(wgpu::VertexBufferLayout {
                    array_stride: std::mem::size_of::<RefVertex>() as u64,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Float32x2],
                })],
                "vs_main",
                "fs_main",
            ));
        }
        if self.ground_pipeline.is_none() {
            let module = layouts::shader_module(device, "throng ground", compose(Program::Ground)?);
            self.ground_pipeline = Some(mesh_pipeline(
                device,
                "throng ground",
                &module,
                &[Some(&self.reference_bgl)],
                &[],
                "vs_ground",
                "fs_ground",
            ));
        }
        Ok(())
    }

    fn storage<T: bytemuck::Pod>(&self, label: &str, data: &[T], fallback: T) -> wgpu::Buffer {
        // A storage binding may not be empty.
        let bytes: &[u8] = if data.is_empty() {
            bytemuck::bytes_of(&fallback)
        } else {
            bytemuck::cast_slice(data)
        };
        self.gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents: bytes,
                usage: wgpu::BufferUsages::STORAGE,
            })
    }

    fn check_size(&self, opts: &RenderOptions) -> Result<(), RenderError> {
        let limit = self.gpu.device.limits().max_texture_dimension_2d;
        if opts.width == 0 || opts.height == 0 || opts.width > limit || opts.height > limit {
            return Err(RenderError::BadImageSize {
                width: opts.width,
                height: opts.height,
                limit,
            });
        }
        Ok(())
    }

    /// Draws a crowd of `asset` with the texture skinning path: instance i has transform
    /// `transforms[i]` and CPU-timed record `records[i]` (DESIGN.md §4).
    pub fn render_texture(
        &mut self,
        asset: &GpuAsset,
        transforms: &[InstanceTransform],
        records: &[LayerRecord],
        opts: &RenderOptions,
    ) -> Result<image::RgbaImage, RenderError> {
        self.render_playback(asset, transforms, Playback::Cpu(records), opts)
    }

    /// Draws a crowd with the texture skinning path, CPU- or GPU-timed ([`Playback`]).
    pub fn render_playback(
        &mut self,
        asset: &GpuAsset,
        transforms: &[InstanceTransform],
        playback: Playback,
        opts: &RenderOptions,
    ) -> Result<image::RgbaImage, RenderError> {
        self.check_size(opts)?;
        if transforms.len() != playback.len() {
            return Err(RenderError::BadInput {
                what: "instance records (one per transform)",
                got: playback.len(),
                expected: transforms.len(),
            });
        }
        let timing = playback.timing();
        let culled = opts.cull && !transforms.is_empty();
        let vat = opts.path == SkinPath::Vat;
        if vat && asset.primitives.iter().any(|p| p.vat.is_none()) {
            return Err(RenderError::BadAsset {
                asset: asset.name.clone(),
                what: "the VAT path needs a vertex animation texture for every primitive; bake with VAT output".into(),
            });
        }
        let skinning = if vat { Skinning::Linear } else { opts.skinning };
        let key = (asset.encoding, skinning, timing, culled, vat);
        self.ensure_reference_and_ground()?;
        self.ensure_texture_pipeline(key)?;
        if culled {
            self.ensure_cull_pipelines(timing)?;
        }
        let scene = crowd_bounds(&asset.bounds, transforms);
        let transforms_buf =
            self.storage("throng transforms", transforms, InstanceTransform::IDENTITY);
        let play = layouts::PlaybackBuffers::new(&self.gpu.device, &playback);
        let (frame, view_proj) = self.frame_buffer(opts, &scene);
        let n = transforms.len() as u32;
        let cull = if culled {
            self.cull_run(asset, &transforms_buf, &play, n, &view_proj, timing)
        } else {
            None
        };
        let materials: Vec<wgpu::BindGroup> = asset
            .primitives
            .iter()
            .map(|p| {
                let (uniform, tex) = p
                    .material
                    .and_then(|m| asset.materials.get(m).copied())
                    .unwrap_or((MaterialUniform::color(DEFAULT_COLOR), None));
                let view = tex
                    .and_then(|t| asset.textures.get(t))
                    .and_then(|v| v.as_ref());
                self.materials.group(&self.gpu.device, &uniform, view)
            })
            .collect();
        let ground_group = self.reference_group(&transforms_buf, &frame);
        let Some(tp) = self.texture_pipelines.get(&key) else {
            return Ok(image::RgbaImage::new(opts.width, opts.height));
        };
        let mut entries = layouts::skin_asset_entries(asset, &transforms_buf);
        if vat {
            // The VAT path reads no bone texture.
            entries.retain(|e| e.binding != 0);
        }
        entries.extend(play.entries());
        entries.push(wgpu::BindGroupEntry {
            binding: 5,
            resource: frame.as_entire_binding(),
        });
        if let Some(run) = &cull {
            entries.push(wgpu::BindGroupEntry {
                binding: 12,
                resource: run.visible.as_entire_binding(),
            });
        }
        let skin_group = self
            .gpu
            .device
            .create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("throng texture draw"),
                layout: &tp.bgl,
                entries: &entries,
            });
        let pipeline = &tp.pipeline;
        let vat_groups: Vec<Option<wgpu::BindGroup>> = asset
            .primitives
            .iter()
            .map(|p| {
                let v = p.vat.as_ref().filter(|_| vat)?;
                let unorm = v.encoding == throng_asset::VatEncoding::Unorm16;
                let (float, uint) = if unorm {
                    (&self.vat_dummies.float, &v.positions)
                } else {
                    (&v.positions, &self.vat_dummies.uint)
                };
                Some(
                    self.gpu
                        .device
                        .create_bind_group(&wgpu::BindGroupDescriptor {
                            label: Some("throng vat"),
                            layout: &self.vat_bgl,
                            entries: &[
                                wgpu::BindGroupEntry {
                                    binding: 0,
                                    resource: v.params.as_entire_binding(),
                                },
                                wgpu::BindGroupEntry {
                                    binding: 1,
                                    resource: wgpu::BindingResource::TextureView(float),
                                },
                                wgpu::BindGroupEntry {
                                    binding: 2,
                                    resource: wgpu::BindingResource::TextureView(uint),
                                },
                                wgpu::BindGroupEntry {
                                    binding: 3,
                                    resource: wgpu::BindingResource::TextureView(&v.normals),
                                },
                            ],
                        }),
                )
            })
            .collect();
        let ground = opts.ground.then_some(()).and(self.ground_pipeline.as_ref());
        let pre = |enc: &mut wgpu::CommandEncoder| {
            if let Some(run) = &cull {
                self.encode_cull(run, timing, enc);
            }
        };
        self.draw_and_read(opts, pre, |pass| {
            if let Some(g) = ground {
                pass.set_pipeline(g);
                pass.set_bind_group(0, &ground_group, &[]);
                pass.draw(0..6, 0..1);
            }
            if n == 0 {
                return;
            }
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, &skin_group, &[]);
            for (i, (p, mat)) in asset.primitives.iter().zip(&materials).enumerate() {
                pass.set_bind_group(1, mat, &[]);
                if let Some(Some(g)) = vat_groups.get(i) {
                    pass.set_bind_group(2, g, &[]);
                }
                pass.set_vertex_buffer(0, p.vertices.slice(..));
                pass.set_index_buffer(p.indices.slice(..), wgpu::IndexFormat::Uint32);
                match &cull {
                    Some(run) => pass.draw_indexed_indirect(
                        &run.args,
                        (i * std::mem::size_of::<DrawIndexedArgs>()) as u64,
                    ),
                    None => pass.draw_indexed(0..p.index_count, 0, 0..n),
                }
            }
        })
    }

    /// Draws CPU-skinned meshes (the reference path); each mesh once per its transforms.
    pub fn render_reference(
        &mut self,
        meshes: &[ReferenceMesh],
        opts: &RenderOptions,
    ) -> Result<image::RgbaImage, RenderError> {
        self.check_size(opts)?;
        self.ensure_reference_and_ground()?;
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
        let (frame, _) = self.frame_buffer(opts, &scene);
        let group = self.reference_group(&transforms_buf, &frame);
        let ground = opts.ground.then_some(()).and(self.ground_pipeline.as_ref());
        let pipeline = self.reference_pipeline.as_ref();
        self.draw_and_read(
            opts,
            |_| {},
            |pass| {
                pass.set_bind_group(0, &group, &[]);
                if let Some(g) = ground {
                    pass.set_pipeline(g);
                    pass.draw(0..6, 0..1);
                }
                let Some(p) = pipeline else { return };
                pass.set_pipeline(p);
                for (vb, ib, count, instances, mat) in &draws {
                    pass.set_bind_group(1, mat, &[]);
                    pass.set_vertex_buffer(0, vb.slice(..));
                    pass.set_index_buffer(ib.slice(..), wgpu::IndexFormat::Uint32);
                    pass.draw_indexed(0..*count, 0, instances.clone());
                }
            },
        )
    }

    /// The frame uniform buffer and its clip-from-world matrix.
    fn frame_buffer(&self, opts: &RenderOptions, scene: &Aabb) -> (wgpu::Buffer, glam::Mat4) {
        let aspect = opts.width as f32 / opts.height.max(1) as f32;
        let camera = opts
            .camera
            .unwrap_or_else(|| Camera::framing(scene, aspect));
        let u = frame_uniform(&camera, aspect, scene);
        let buf = self
            .gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("throng frame"),
                contents: bytemuck::bytes_of(&u),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        (buf, camera.view_proj(aspect))
    }

    fn reference_group(&self, transforms: &wgpu::Buffer, frame: &wgpu::Buffer) -> wgpu::BindGroup {
        self.gpu
            .device
            .create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("throng reference/ground"),
                layout: &self.reference_bgl,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 3,
                        resource: transforms.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 5,
                        resource: frame.as_entire_binding(),
                    },
                ],
            })
    }

    /// Runs one render pass into a fresh offscreen target and reads it back.
    fn draw_and_read(
        &self,
        opts: &RenderOptions,
        pre: impl FnOnce(&mut wgpu::CommandEncoder),
        draw: impl FnOnce(&mut wgpu::RenderPass<'_>),
    ) -> Result<image::RgbaImage, RenderError> {
        let device = &self.gpu.device;
        let size = wgpu::Extent3d {
            width: opts.width,
            height: opts.height,
            depth_or_array_layers: 1,
        };
        let target = |format, usage, label| {
            device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size,
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats: &[],
            })
        };
        let color = target(
            COLOR_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            "throng colour target",
        );
        let depth = target(
            DEPTH_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT,
            "throng depth target",
        );
        let color_view = color.create_view(&Default::default());
        let depth_view = depth.create_view(&Default::default());
        let bg = opts.background.map(f64::from);
        let mut enc = device.create_command_encoder(&Default::default());
        pre(&mut enc);
        {
            let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("throng main pass"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &color_view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color {
                            r: bg[0],
                            g: bg[1],
                            b: bg[2],
                            a: bg[3],
                        }),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &depth_view,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Discard,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            draw(&mut pass);
        }
        let row = opts.width * 4;
        let padded =
            row.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        let read = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("throng image readback"),
            size: padded as u64 * opts.height as u64,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        enc.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: &color,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &read,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(padded),
                    rows_per_image: Some(opts.height),
                },
            },
            size,
        );
        self.gpu.queue.submit([enc.finish()]);
        let bytes = map_read(&self.gpu, &read)?;
        let mut pixels = Vec::with_capacity((row * opts.height) as usize);
        for y in 0..opts.height as usize {
            let start = y * padded as usize;
            pixels.extend_from_slice(&bytes[start..start + row as usize]);
        }
        image::RgbaImage::from_raw(opts.width, opts.height, pixels)
            .ok_or_else(|| RenderError::Readback("image buffer size".into()))
    }
}

/// One-call render of a baked asset for the CLI: a device, an upload and a texture-path draw.
pub fn render_png(
    asset: &BakedAsset,
    transforms: &[InstanceTransform],
    records: &[LayerRecord],
    opts: &RenderOptions,
) -> Result<image::RgbaImage, RenderError> {
    let mut r = Renderer::new()?;
    let g = r.upload(asset)?;
    r.render_texture(&g, transforms, records, opts)
}
