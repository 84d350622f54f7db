//! The [`Renderer`]: a device plus the pipelines built on first use, and the options of a frame.
//! A frame is drawn by [`Renderer::render_scene`] (offscreen, read back to RGBA8) or recorded
//! into an application's own encoder and target by [`Renderer::encode_frame`] (crate::scene).

use std::collections::HashMap;

use throng_asset::BakedAsset;
use wgpu::util::DeviceExt;

use crate::device::{AdapterSummary, Gpu};
use crate::error::RenderError;
use crate::gpu_asset::GpuAsset;
use crate::gpu_types::{InstanceRecord, InstanceTransform, Playback};
use crate::layouts;
use crate::material::MaterialResources;
use crate::pipelines::{CullPipelines, PipelineKey, TexturePipeline};
use crate::scene::Crowd;
use throng_contract::Skinning;

/// Format of the offscreen colour target of [`Renderer::render_scene`].
pub const COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
/// Depth format of the main pass and the shadow map.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// Base colour of primitives without a material (linear RGBA).
pub const DEFAULT_COLOR: [f32; 4] = [0.6, 0.6, 0.62, 1.0];

/// How the vertices of a baked asset are animated on the GPU (DESIGN.md §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SkinPath {
    /// The vertex shader skins with matrices read from the bone texture.
    #[default]
    Texture,
    /// The vertex shader fetches baked positions and normals (every primitive needs a VAT).
    Vat,
}

/// What a debug view colours the crowd by (DESIGN.md §5 "Debug views").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DebugView {
    /// Normal shading.
    #[default]
    None,
    /// Heat map (blue 0 → red 1) of the weight of palette entry `joint`; without one, of
    /// 1 − the vertex's largest weight (red where joints share a vertex).
    Weights { joint: Option<u32> },
    /// A colour per palette index of each vertex's strongest influence.
    Palette,
    /// Heat map of the frame row (bone-texture row) of the first active layer.
    Row,
    /// A colour per LOD level.
    Lod,
}

impl DebugView {
    /// The `FrameUniform.debug` words.
    pub(crate) fn words(&self) -> [u32; 4] {
        match *self {
            DebugView::None => [0, 0, 0, 0],
            DebugView::Weights { joint } => [1, joint.unwrap_or(u32::MAX), 0, 0],
            DebugView::Palette => [2, 0, 0, 0],
            DebugView::Row => [3, 0, 0, 0],
            DebugView::Lod => [4, 0, 0, 0],
        }
    }
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
    /// `None`: framed from the crowd's bounds ([`crate::Camera::framing`]).
    pub camera: Option<crate::Camera>,
    /// Draw the checkered ground plane under the crowd.
    pub ground: bool,
    /// Cull instances on the GPU (view frustum and shadow camera vs clip bounds), pick LODs and
    /// draw with indirect draws; off: draw every instance at LOD 0.
    pub cull: bool,
    /// Shadows of the directional light (a depth pass with the same skinning).
    pub shadows: bool,
    /// Shadow map size, texels per side.
    pub shadow_map_size: u32,
    /// Largest projected LOD simplification error allowed, pixels: larger picks coarser LODs
    /// nearer the camera; 0 keeps LOD 0 everywhere.
    pub lod_bias: f32,
    /// Influences per vertex used by LOD 0, 1, 2 and 3+ (0: all the asset has).
    pub lod_influences: [u32; 4],
    pub debug: DebugView,
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
            shadows: true,
            shadow_map_size: crate::shadow::DEFAULT_SHADOW_MAP_SIZE,
            lod_bias: 1.0,
            lod_influences: [0; 4],
            debug: DebugView::None,
            background: [0.55, 0.66, 0.8, 1.0],
        }
    }
}

impl RenderOptions {
    /// Influences used at LOD `lod` (1..=8).
    pub fn influences_at(&self, lod: u32) -> u32 {
        match self.lod_influences[(lod as usize).min(3)] {
            0 => 8,
            k => k.min(8),
        }
    }
}

/// A renderer: a device plus pipelines built on first use. Holds no per-frame state: every
/// frame's buffers are made from its inputs.
pub struct Renderer {
    pub gpu: Gpu,
    pub(crate) materials: MaterialResources,
    pub(crate) vat_bgl: wgpu::BindGroupLayout,
    pub(crate) vat_dummies: crate::vat::VatDummies,
    pub(crate) reference_bgl: wgpu::BindGroupLayout,
    /// Group 3 of the main pass (draw params, shadow map) and of the shadow pass.
    pub(crate) draw_main_bgl: wgpu::BindGroupLayout,
    pub(crate) draw_shadow_bgl: wgpu::BindGroupLayout,
    pub(crate) shadow_sampler: wgpu::Sampler,
    pub(crate) texture_pipelines: HashMap<PipelineKey, TexturePipeline>,
    pub(crate) cull_pipelines: HashMap<throng_contract::Timing, CullPipelines>,
    /// Reference pipelines by colour format (None: the shadow pass).
    pub(crate) reference_pipelines: HashMap<Option<wgpu::TextureFormat>, wgpu::RenderPipeline>,
    pub(crate) ground_pipelines: HashMap<wgpu::TextureFormat, wgpu::RenderPipeline>,
    /// Depth textures kept between frames: (size, texture view) of the shadow map and of the
    /// main pass of [`Renderer::encode_frame`].
    pub(crate) shadow_map: Option<(u32, wgpu::TextureView)>,
    pub(crate) depth_target: Option<((u32, u32), wgpu::TextureView)>,
    /// Draw each primitive's LODs with one multi-draw (first instances point each LOD's draw at
    /// its visible-id list). On when the device has `INDIRECT_FIRST_INSTANCE`; turning it off
    /// gives one indirect draw per primitive and LOD, the path every device can take.
    pub multi_draw: bool,
}

impl Renderer {
    /// Creates a device on any adapter ([`Gpu::new`]).
    pub fn new() -> Result<Renderer, RenderError> {
        Ok(Self::with_gpu(Gpu::new()?))
    }

    /// A renderer on an existing device (e.g. an application's, see [`Gpu::from_device`]).
    pub fn with_gpu(gpu: Gpu) -> Renderer {
        let device = &gpu.device;
        let materials = MaterialResources::new(device, &gpu.queue);
        let vat_bgl = layouts::vat_textures(device);
        let vat_dummies = crate::vat::VatDummies::new(device);
        let reference_bgl = layouts::reference_draw(device);
        let draw_main_bgl = layouts::draw_params(device, true);
        let draw_shadow_bgl = layouts::draw_params(device, false);
        let shadow_sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("throng shadow sampler"),
            address_mode_u: wgpu::AddressMode::ClampToEdge,
            address_mode_v: wgpu::AddressMode::ClampToEdge,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            compare: Some(wgpu::CompareFunction::LessEqual),
            ..Default::default()
        });
        let multi_draw = gpu
            .device
            .features()
            .contains(wgpu::Features::INDIRECT_FIRST_INSTANCE);
        Renderer {
            multi_draw,
            gpu,
            materials,
            vat_bgl,
            vat_dummies,
            reference_bgl,
            draw_main_bgl,
            draw_shadow_bgl,
            shadow_sampler,
            texture_pipelines: HashMap::new(),
            cull_pipelines: HashMap::new(),
            reference_pipelines: HashMap::new(),
            ground_pipelines: HashMap::new(),
            shadow_map: None,
            depth_target: None,
        }
    }

    pub fn adapter(&self) -> &AdapterSummary {
        &self.gpu.summary
    }

    /// Uploads a baked asset ([`GpuAsset::new`]).
    pub fn upload(&self, asset: &BakedAsset) -> Result<GpuAsset, RenderError> {
        GpuAsset::new(&self.gpu, asset)
    }

    /// A storage buffer of `data` (one `fallback` element when empty: a storage binding may not
    /// be empty).
    pub(crate) fn storage<T: bytemuck::Pod>(
        &self,
        label: &str,
        data: &[T],
        fallback: T,
    ) -> wgpu::Buffer {
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

    pub(crate) fn check_size(&self, opts: &RenderOptions) -> Result<(), RenderError> {
        let limit = self.gpu.device.limits().max_texture_dimension_2d;
        let bad = |v: u32| v == 0 || v > limit;
        if bad(opts.width) || bad(opts.height) || bad(opts.shadow_map_size) {
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
        records: &[InstanceRecord],
        opts: &RenderOptions,
    ) -> Result<image::RgbaImage, RenderError> {
        self.render_playback(asset, transforms, Playback::Cpu(records), opts)
    }

    /// Draws one crowd, CPU- or GPU-timed ([`Playback`]); see [`Renderer::render_scene`].
    pub fn render_playback(
        &mut self,
        asset: &GpuAsset,
        transforms: &[InstanceTransform],
        playback: Playback,
        opts: &RenderOptions,
    ) -> Result<image::RgbaImage, RenderError> {
        let crowd = Crowd {
            asset,
            transforms,
            playback,
        };
        Ok(self.render_scene(&[crowd], opts)?.image)
    }
}

/// One-call render of a baked asset for the CLI: a device, an upload and a texture-path draw.
pub fn render_png(
    asset: &BakedAsset,
    transforms: &[InstanceTransform],
    records: &[InstanceRecord],
    opts: &RenderOptions,
) -> Result<image::RgbaImage, RenderError> {
    let mut r = Renderer::new()?;
    let g = r.upload(asset)?;
    r.render_texture(&g, transforms, records, opts)
}
