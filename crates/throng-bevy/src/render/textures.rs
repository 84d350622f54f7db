//! Textures the plugin uploads once per asset (the bone texture, VATs) as 2D arrays: rows
//! past a layer's height continue in the next layer, so a texture taller than the device's
//! largest dimension still binds as one.

use bevy::render::render_resource::{
    Extent3d, TextureDataOrder, TextureDescriptor, TextureDimension, TextureUsages, TextureView,
    TextureViewDescriptor, TextureViewDimension,
};
use bevy::render::renderer::{RenderDevice, RenderQueue};
use throng_asset::gpu::TexelFormat;

use super::formats::texture_format;

/// A 2D array texture of `width × rows_per_layer` texels and `layers` layers of `format`,
/// holding `bytes` (row after row, over every layer; the rest zero).
pub fn array_texture(
    device: &RenderDevice,
    queue: &RenderQueue,
    label: &'static str,
    format: TexelFormat,
    (width, rows_per_layer, layers): (u32, u32, u32),
    bytes: &[u8],
) -> TextureView {
    let mut data = bytes.to_vec();
    data.resize(
        (width * format.bytes_per_texel()) as usize * rows_per_layer as usize * layers as usize,
        0,
    );
    let texture = device.create_texture_with_data(
        queue,
        &TextureDescriptor {
            label: Some(label),
            size: Extent3d {
                width,
                height: rows_per_layer,
                depth_or_array_layers: layers,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: TextureDimension::D2,
            format: texture_format(format),
            usage: TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        },
        TextureDataOrder::LayerMajor,
        &data,
    );
    texture.create_view(&TextureViewDescriptor {
        dimension: Some(TextureViewDimension::D2Array),
        ..Default::default()
    })
}
