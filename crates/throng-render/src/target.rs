//! Render targets: 2D texture descriptions, targets kept between frames (the main pass's depth,
//! the shadow map), and the offscreen colour target read back to an image.

use glam::Vec2;

use crate::error::RenderError;
use crate::options::COLOR_FORMAT;
use crate::readback::{map_read, read_buffer};

/// A motion vector target read back (docs/design.md §5 "Motion vectors"): per pixel, row by
/// row from the top left, the screen-space motion since the previous frame in UV units
/// (fractions of the width and height; +x right, +y down), 0 where nothing was drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct MotionImage {
    pub width: u32,
    pub height: u32,
    pub uv: Vec<[f32; 2]>,
}

impl MotionImage {
    /// The motion at pixel (x, y) in pixels (None outside the image).
    pub fn pixels_at(&self, x: u32, y: u32) -> Option<Vec2> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let [u, v] = self.uv[(y * self.width + x) as usize];
        Some(Vec2::new(u * self.width as f32, v * self.height as f32))
    }
}

/// Description of a 2D texture of one mip level and sample (render targets, base colour
/// images): what throng makes its own targets with, for an application that draws into a
/// texture of its own.
pub fn texture_2d<'a>(
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
    made: Option<((u32, u32), wgpu::Texture, wgpu::TextureView)>,
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
        if let Some((s, _, v)) = &self.made {
            if *s == size {
                return v.clone();
            }
        }
        let t = device.create_texture(&texture_2d(label, size, format, usage));
        let v = t.create_view(&Default::default());
        self.made = Some((size, t, v.clone()));
        v
    }

    /// The texture last made, and its view.
    pub fn made(&self) -> Option<(&wgpu::Texture, &wgpu::TextureView)> {
        self.made.as_ref().map(|(_, t, v)| (t, v))
    }
}

/// Bytes per row of a copy of `width` texels of `texel_bytes` each into a buffer (rows padded to
/// wgpu's copy alignment).
fn padded_row(width: u32, texel_bytes: u32) -> u32 {
    (width * texel_bytes).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
        * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT
}

/// Records the copy of `texture` (one mip level and layer, `texel_bytes` per texel) into a new
/// mappable buffer of rows padded as [`padded_row`].
pub(crate) fn copy_out(
    device: &wgpu::Device,
    enc: &mut wgpu::CommandEncoder,
    texture: &wgpu::Texture,
    texel_bytes: u32,
) -> wgpu::Buffer {
    let size = texture.size();
    let row = padded_row(size.width, texel_bytes);
    let read = read_buffer(
        device,
        "throng image readback",
        row as u64 * size.height as u64,
    );
    enc.copy_texture_to_buffer(
        wgpu::TexelCopyTextureInfo {
            texture,
            mip_level: 0,
            origin: wgpu::Origin3d::ZERO,
            aspect: wgpu::TextureAspect::All,
        },
        wgpu::TexelCopyBufferInfo {
            buffer: &read,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(row),
                rows_per_image: Some(size.height),
            },
        },
        size,
    );
    read
}

/// Maps a buffer [`copy_out`] filled and returns its rows without the padding.
pub(crate) fn read_rows(
    gpu: &crate::device::Gpu,
    read: &wgpu::Buffer,
    (width, height): (u32, u32),
    texel_bytes: u32,
) -> Result<Vec<u8>, RenderError> {
    let bytes = map_read(gpu, read)?;
    let row = (width * texel_bytes) as usize;
    let padded = padded_row(width, texel_bytes) as usize;
    let mut out = Vec::with_capacity(row * height as usize);
    for y in 0..height as usize {
        let start = y * padded;
        let line = bytes
            .get(start..start + row)
            .ok_or_else(|| RenderError::Readback("image buffer size".into()))?;
        out.extend_from_slice(line);
    }
    Ok(out)
}

/// Reads a [`crate::MOTION_FORMAT`] target that [`copy_out`] copied (4 B per texel: two f16).
pub(crate) fn read_motion(
    gpu: &crate::device::Gpu,
    read: &wgpu::Buffer,
    (width, height): (u32, u32),
) -> Result<MotionImage, RenderError> {
    let bytes = read_rows(gpu, read, (width, height), 4)?;
    let half = |b: &[u8]| half::f16::from_le_bytes([b[0], b[1]]).to_f32();
    let uv = bytes
        .chunks_exact(4)
        .map(|t| [half(&t[0..2]), half(&t[2..4])])
        .collect();
    Ok(MotionImage { width, height, uv })
}

/// An offscreen sRGB colour target and its readback.
pub(crate) struct OffscreenTarget {
    texture: wgpu::Texture,
    pub view: wgpu::TextureView,
    width: u32,
    height: u32,
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
        OffscreenTarget {
            texture,
            view,
            width,
            height,
        }
    }

    /// Records the copy of the target into a new mappable buffer.
    pub(crate) fn copy_out(
        &self,
        device: &wgpu::Device,
        enc: &mut wgpu::CommandEncoder,
    ) -> wgpu::Buffer {
        copy_out(device, enc, &self.texture, 4)
    }

    pub(crate) fn read(
        &self,
        gpu: &crate::device::Gpu,
        read: &wgpu::Buffer,
    ) -> Result<image::RgbaImage, RenderError> {
        let pixels = read_rows(gpu, read, (self.width, self.height), 4)?;
        image::RgbaImage::from_raw(self.width, self.height, pixels)
            .ok_or_else(|| RenderError::Readback("image buffer size".into()))
    }
}
