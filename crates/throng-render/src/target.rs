//! Render targets: 2D texture descriptions, targets kept between frames (the main pass's depth,
//! the shadow map), and the offscreen colour target read back to an image.

use crate::error::RenderError;
use crate::options::COLOR_FORMAT;
use crate::readback::map_read;

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

/// A render target kept between frames and remade when its size changes.
#[derive(Default)]
pub(crate) struct CachedTarget {
    made: Option<((u32, u32), wgpu::TextureView)>,
}

impl CachedTarget {
    /// The target's view at `size` (made anew when the size differs from the last call).
    pub fn view(
        &mut self,
        device: &wgpu::Device,
        label: &str,
        size: (u32, u32),
        format: wgpu::TextureFormat,
        usage: wgpu::TextureUsages,
    ) -> wgpu::TextureView {
        if let Some((s, v)) = &self.made {
            if *s == size {
                return v.clone();
            }
        }
        let v = device
            .create_texture(&texture_2d(label, size, format, usage))
            .create_view(&Default::default());
        self.made = Some((size, v.clone()));
        v
    }
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
        let texture = device.create_texture(&texture_2d(
            "throng colour target",
            (width, height),
            COLOR_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        ));
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
