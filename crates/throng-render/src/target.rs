//! Render targets: textures the renderer keeps between frames (the main pass's depth, the
//! shadow map), the passes that draw into them, and the offscreen colour target read back to
//! an image.

use crate::error::RenderError;
use crate::readback::map_read;
use crate::render::{Renderer, COLOR_FORMAT, DEPTH_FORMAT};

/// Description of a 2D texture of one mip level and sample (render targets, base colour
/// images).
pub(crate) fn texture_2d<'a>(
    label: &'a str,
    (width, height): (u32, u32),
    format: wgpu::TextureFormat,
    usage: wgpu::TextureUsages,
) -> wgpu::TextureDescriptor<'a> {
    wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage,
        view_formats: &[],
    }
}

/// A 2D render target texture.
fn target_texture(
    device: &wgpu::Device,
    label: &str,
    size: (u32, u32),
    format: wgpu::TextureFormat,
    usage: wgpu::TextureUsages,
) -> wgpu::Texture {
    device.create_texture(&texture_2d(label, size, format, usage))
}

impl Renderer {
    /// The shadow map (cached by size; 1 texel when shadows are off, so the binding exists).
    pub(crate) fn shadow_view(&mut self, size: u32) -> wgpu::TextureView {
        if let Some((s, v)) = &self.shadow_map {
            if *s == size {
                return v.clone();
            }
        }
        let t = target_texture(
            &self.gpu.device,
            "throng shadow map",
            (size, size),
            DEPTH_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
        );
        let v = t.create_view(&Default::default());
        self.shadow_map = Some((size, v.clone()));
        v
    }

    /// The main pass's depth target (cached by size).
    pub(crate) fn depth_view(&mut self, width: u32, height: u32) -> wgpu::TextureView {
        if let Some((s, v)) = &self.depth_target {
            if *s == (width, height) {
                return v.clone();
            }
        }
        let t = target_texture(
            &self.gpu.device,
            "throng depth target",
            (width, height),
            DEPTH_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT,
        );
        let v = t.create_view(&Default::default());
        self.depth_target = Some(((width, height), v.clone()));
        v
    }
}

/// A depth-only pass clearing `view` to the far plane.
pub(crate) fn depth_pass<'e>(
    enc: &'e mut wgpu::CommandEncoder,
    view: &wgpu::TextureView,
    label: &str,
) -> wgpu::RenderPass<'e> {
    enc.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some(label),
        color_attachments: &[],
        depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
            view,
            depth_ops: Some(wgpu::Operations {
                load: wgpu::LoadOp::Clear(1.0),
                store: wgpu::StoreOp::Store,
            }),
            stencil_ops: None,
        }),
        timestamp_writes: None,
        occlusion_query_set: None,
        multiview_mask: None,
    })
}

/// The main pass: colour cleared to `background` (linear RGBA), depth to the far plane.
pub(crate) fn main_pass<'e>(
    enc: &'e mut wgpu::CommandEncoder,
    color: &wgpu::TextureView,
    depth: &wgpu::TextureView,
    background: [f32; 4],
) -> wgpu::RenderPass<'e> {
    let bg = background.map(f64::from);
    enc.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some("throng main pass"),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view: color,
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
            view: depth,
            depth_ops: Some(wgpu::Operations {
                load: wgpu::LoadOp::Clear(1.0),
                store: wgpu::StoreOp::Discard,
            }),
            stencil_ops: None,
        }),
        timestamp_writes: None,
        occlusion_query_set: None,
        multiview_mask: None,
    })
}

/// An offscreen sRGB colour target and its readback.
pub(crate) struct OffscreenTarget {
    texture: wgpu::Texture,
    pub view: wgpu::TextureView,
    width: u32,
    height: u32,
    padded_row: u32,
}

impl OffscreenTarget {
    pub(crate) fn new(device: &wgpu::Device, width: u32, height: u32) -> OffscreenTarget {
        let texture = target_texture(
            device,
            "throng colour target",
            (width, height),
            COLOR_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        );
        let view = texture.create_view(&Default::default());
        let padded_row = (width * 4).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
            * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        OffscreenTarget {
            texture,
            view,
            width,
            height,
            padded_row,
        }
    }

    /// Records the copy of the target into a new mappable buffer.
    pub(crate) fn copy_out(
        &self,
        device: &wgpu::Device,
        enc: &mut wgpu::CommandEncoder,
    ) -> wgpu::Buffer {
        let read = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("throng image readback"),
            size: self.padded_row as u64 * self.height as u64,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        enc.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: &self.texture,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &read,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(self.padded_row),
                    rows_per_image: Some(self.height),
                },
            },
            self.texture.size(),
        );
        read
    }

    pub(crate) fn read(
        &self,
        gpu: &crate::device::Gpu,
        read: &wgpu::Buffer,
    ) -> Result<image::RgbaImage, RenderError> {
        let bytes = map_read(gpu, read)?;
        let row = (self.width * 4) as usize;
        let mut pixels = Vec::with_capacity(row * self.height as usize);
        for y in 0..self.height as usize {
            let start = y * self.padded_row as usize;
            pixels.extend_from_slice(&bytes[start..start + row]);
        }
        image::RgbaImage::from_raw(self.width, self.height, pixels)
            .ok_or_else(|| RenderError::Readback("image buffer size".into()))
    }
}
