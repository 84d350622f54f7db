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
    let (texture, view) = create(device, what, records, n)?;
    upload(queue, &texture, texels, n);
    Ok((texture, view))
}

/// An empty data texture with room for `records` records of `n` texels.
fn create(
    device: &wgpu::Device,
    what: &'static str,
    records: u32,
    n: u32,
) -> Result<(wgpu::Texture, wgpu::TextureView), RenderError> {
    let max_side = device.limits().max_texture_dimension_2d;
    let Some((width, height)) = data_texture_size(records, n, max_side) else {
        return Err(RenderError::DownlevelTableTooLarge {
            what,
            records: records as u64,
            most: (max_side / n) as u64 * max_side as u64,
        });
    };
    let texture = device.create_texture(&crate::target::texture_2d(
        what,
        (width, height),
        wgpu::TextureFormat::Rgba32Uint,
        wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
    ));
    let view = texture.create_view(&Default::default());
    Ok((texture, view))
}

/// Records a texture has room for: `floor(width / n)` a row (the shaders' `record_texel`
/// reads the width from the texture), every row.
fn capacity(texture: &wgpu::Texture, n: u32) -> u64 {
    (texture.width() / n) as u64 * texture.height() as u64
}

/// Writes `texels` (records of `n` texels) into the rows of `texture` they fill, laid out by
/// the texture's width; rows past them keep what they held (no list reads them).
fn upload(queue: &wgpu::Queue, texture: &wgpu::Texture, texels: &[[u32; 4]], n: u32) {
    let width = texture.width();
    let per_row = (width / n) as usize * n as usize;
    let rows = texels.len().div_ceil(per_row.max(1)).max(1) as u32;
    let mut data = vec![[0u32; 4]; (width * rows) as usize];
    // Records fill whole rows but the last: copy them row by row.
    for (row, chunk) in texels.chunks(per_row.max(1)).enumerate() {
        let at = row * width as usize;
        data[at..at + chunk.len()].copy_from_slice(chunk);
    }
    queue.write_texture(
        texture.as_image_copy(),
        bytemuck::cast_slice(&data),
        wgpu::TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: Some(width * 16),
            rows_per_image: Some(rows),
        },
        wgpu::Extent3d {
            width,
            height: rows,
            depth_or_array_layers: 1,
        },
    );
}

/// Data textures kept across frames, by slot (the downlevel mode: per crowd of a frame its
/// instance lists and its appearances), so that a frame writes into the texture its slot
/// used the frame before instead of making one — WebGL2 pays for every texture made. A slot
/// whose records outgrow its texture gets one with room for twice as many (within the
/// device's limit). Like the renderer's other per-frame state, a frame's textures are
/// rewritten by the next one: submit a frame before encoding the next.
#[derive(Default)]
pub(crate) struct DataTextures {
    slots: Vec<Option<(wgpu::Texture, wgpu::TextureView)>>,
}

impl DataTextures {
    /// Writes `texels` (records of `n` texels) into slot `slot`'s texture, made or grown as
    /// needed; its view. `what` names the table in errors.
    pub fn write(
        &mut self,
        slot: usize,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        (what, n): (&'static str, u32),
        texels: &[[u32; 4]],
    ) -> Result<wgpu::TextureView, RenderError> {
        let records = (texels.len() as u64 / n as u64) as u32;
        if self.slots.len() <= slot {
            self.slots.resize_with(slot + 1, || None);
        }
        let fits = |t: &wgpu::Texture| {
            t.format() == wgpu::TextureFormat::Rgba32Uint && capacity(t, n) >= records as u64
        };
        let entry = &mut self.slots[slot];
        let (texture, view) = match entry.take() {
            Some((t, v)) if fits(&t) => entry.insert((t, v)),
            old => {
                let had = old.as_ref().map_or(0, |(t, _)| capacity(t, n));
                let wanted = (records as u64).max(had.saturating_mul(2));
                let wanted = wanted.min(u32::MAX as u64) as u32;
                // twice the room when the device allows it, else what this frame needs
                let made = match create(device, what, wanted, n) {
                    Ok(made) => made,
                    Err(_) => create(device, what, records, n)?,
                };
                entry.insert(made)
            }
        };
        upload(queue, texture, texels, n);
        Ok(view.clone())
    }
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
