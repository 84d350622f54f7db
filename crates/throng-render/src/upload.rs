//! Host data into GPU buffers and textures, for every upload of the crate: storage buffers that
//! may not be empty, and 2D array textures whose rows continue in further layers
//! (docs/design.md §3), with the GL backend's extra layer.

use wgpu::util::DeviceExt;

use crate::device::Gpu;

/// A storage buffer of `data` (one `fallback` element when empty: a storage binding may not be
/// empty); a copy source too (motion vectors keep a crowd's transforms for the next frame).
pub(crate) fn storage_buffer<T: bytemuck::Pod>(
    device: &wgpu::Device,
    label: &str,
    data: &[T],
    fallback: T,
) -> wgpu::Buffer {
    let bytes: &[u8] = if data.is_empty() {
        bytemuck::bytes_of(&fallback)
    } else {
        bytemuck::cast_slice(data)
    };
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents: bytes,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    })
}

/// Array layers to allocate for a texture of `layers` layers of data on `backend`. wgpu's GL
/// backend has no texture views: it gives a texture of one layer the GL target `TEXTURE_2D`,
/// which the shaders' `texture_2d_array` (GLSL `sampler2DArray`) cannot read — every fetch
/// returns zero and every skinned vertex collapses to the origin. On GL a one-layer array
/// therefore gets a second layer, never read.
pub(crate) fn array_layers(layers: u32, backend: wgpu::Backend) -> u32 {
    if backend == wgpu::Backend::Gl {
        layers.max(2)
    } else {
        layers
    }
}

/// Where an upload goes: `rows` rows of `width` texels, `row_bytes` bytes each, in layers of
/// `rows_per_layer` rows (docs/design.md §3: row r lives in layer r / rows_per_layer).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Layered {
    pub width: u32,
    pub rows: u32,
    pub rows_per_layer: u32,
    pub row_bytes: usize,
}

/// A 2D array texture of `format` laid out as `at` says (layers as [`array_layers`] allocates
/// them), filled with row-major `data`, and its `D2Array` view.
pub(crate) fn array_texture(
    gpu: &Gpu,
    label: &str,
    format: wgpu::TextureFormat,
    at: Layered,
    data: &[u8],
) -> (wgpu::Texture, wgpu::TextureView) {
    let rpl = at.rows_per_layer.max(1);
    let layers = at.rows.div_ceil(rpl).max(1);
    let texture = gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width: at.width.max(1),
            height: rpl,
            depth_or_array_layers: array_layers(layers, gpu.adapter.get_info().backend),
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });
    write_layers(&gpu.queue, &texture, data, at);
    let view = texture.create_view(&wgpu::TextureViewDescriptor {
        label: Some(label),
        dimension: Some(wgpu::TextureViewDimension::D2Array),
        ..Default::default()
    });
    (texture, view)
}

/// Uploads row-major `data` into a 2D array texture laid out as `at` says; stops at the data's
/// end rather than reading past it.
fn write_layers(queue: &wgpu::Queue, texture: &wgpu::Texture, data: &[u8], at: Layered) {
    let Layered {
        width,
        rows,
        rows_per_layer,
        row_bytes,
    } = at;
    let rpl = rows_per_layer.max(1);
    for layer in 0..rows.div_ceil(rpl) {
        let first = layer * rpl;
        let count = (rows - first).min(rpl);
        let start = first as usize * row_bytes;
        let Some(bytes) = data.get(start..start + count as usize * row_bytes) else {
            break;
        };
        queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture,
                mip_level: 0,
                origin: wgpu::Origin3d {
                    x: 0,
                    y: 0,
                    z: layer,
                },
                aspect: wgpu::TextureAspect::All,
            },
            bytes,
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(row_bytes as u32),
                rows_per_image: Some(count),
            },
            wgpu::Extent3d {
                width,
                height: count,
                depth_or_array_layers: 1,
            },
        );
    }
}
