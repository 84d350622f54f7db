//! The downlevel mode's data textures (docs/downlevel.md): fixed-size records of Rgba32Uint
//! texels, laid out as [`crate::downlevel`] defines, uploaded as textures the vertex stage
//! fetches.

use throng_contract::{InstanceRecord, InstanceTransform};

use crate::downlevel::{data_texture_size, instance_texels, INSTANCE_TEXELS};
use crate::error::RenderError;

/// An Rgba32Uint data texture of records of `n` texels (`texels`, record-major) and its view;
/// `what` names the table in the error when it does not fit the device.
pub(crate) fn data_texture(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    what: &'static str,
    texels: &[[u32; 4]],
    n: u32,
) -> Result<(wgpu::Texture, wgpu::TextureView), RenderError> {
    let records = (texels.len() as u64 / n as u64) as u32;
    let max_side = device.limits().max_texture_dimension_2d;
    let Some((width, height)) = data_texture_size(records, n, max_side) else {
        return Err(RenderError::DownlevelTableTooLarge {
            what,
            records: records as u64,
            most: (max_side / n) as u64 * max_side as u64,
        });
    };
    let mut data = vec![[0u32; 4]; (width * height) as usize];
    // Records fill whole rows but the last: copy them row by row.
    let per_row = (width / n) as usize;
    for (row, chunk) in texels.chunks(per_row * n as usize).enumerate() {
        let at = row * width as usize;
        data[at..at + chunk.len()].copy_from_slice(chunk);
    }
    let texture = device.create_texture(&crate::target::texture_2d(
        what,
        (width, height),
        wgpu::TextureFormat::Rgba32Uint,
        wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
    ));
    queue.write_texture(
        texture.as_image_copy(),
        bytemuck::cast_slice(&data),
        wgpu::TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: Some(width * 16),
            rows_per_image: Some(height),
        },
        wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
    );
    let view = texture.create_view(&Default::default());
    Ok((texture, view))
}

/// Instance transforms as a draw reads them: a storage buffer (full mode) or a data texture
/// of [`INSTANCE_TEXELS`] texels per instance with disabled layers (the reference draw and the
/// ground on a device without vertex-stage storage buffers).
pub(crate) enum InstanceData {
    Buffer(wgpu::Buffer),
    Texture(wgpu::TextureView),
}

impl InstanceData {
    /// `transforms` in the form a device of `downlevel` class reads.
    pub fn transforms(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        transforms: &[InstanceTransform],
        downlevel: bool,
    ) -> Result<InstanceData, RenderError> {
        if !downlevel {
            return Ok(InstanceData::Buffer(crate::upload::storage_buffer(
                device,
                "throng transforms",
                transforms,
                InstanceTransform::IDENTITY,
            )));
        }
        let none = InstanceRecord::default();
        let texels: Vec<[u32; 4]> = transforms
            .iter()
            .flat_map(|t| instance_texels(t, &none))
            .collect();
        let (_, view) = data_texture(device, queue, "instance texture", &texels, INSTANCE_TEXELS)?;
        Ok(InstanceData::Texture(view))
    }

    pub fn binding(&self) -> wgpu::BindingResource<'_> {
        match self {
            InstanceData::Buffer(b) => b.as_entire_binding(),
            InstanceData::Texture(v) => wgpu::BindingResource::TextureView(v),
        }
    }
}
