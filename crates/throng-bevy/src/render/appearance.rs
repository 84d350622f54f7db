//! A crowd's per-instance appearances on the GPU (docs/design.md §4 "Appearance"): one
//! [`throng_contract::Appearance`] (16 B) per instance as one texel of an `Rgba32Uint` texture,
//! row-major in rows of [`ROW`] texels (the layout of throng-render's appearance texture), bound
//! in the crowd's group at [`bindings::APPEARANCES`] and read by `throng_bevy::crowd_appearance`
//! at the instance's index in every pass.
//!
//! A texture rather than a storage buffer: the crowd group already binds seven storage buffers
//! in the vertex stage (WebGPU's default limit is eight per stage), and textures are what
//! throng-render uses for the same data.
//!
//! Uploads follow the change list of `throng_runtime::Appearances`: only the changed texels
//! (16 B each, one `write_texture` per run of consecutive indices), every texel when the
//! instance count changed or the texture was (re)made for a larger capacity.
//!
//! The variant (`Appearance::variant`) picks the material slot the main pass draws
//! ([`super::materials`]); the prop mask is read in the main world (`crate::ThrongPropBit`).

use bevy::render::render_resource::{
    Extent3d, Origin3d, TexelCopyBufferLayout, TexelCopyTextureInfo, Texture, TextureAspect,
    TextureDescriptor, TextureDimension, TextureFormat, TextureUsages, TextureView,
    TextureViewDescriptor,
};
use bevy::render::renderer::{RenderDevice, RenderQueue};
use throng_contract::{Appearance, AppearanceChanges};

#[cfg(doc)]
use super::bindings;

/// Texels per row of the appearance texture: the contract's, as throng-render lays it out.
pub use throng_contract::APPEARANCE_ROW as ROW;

/// Bytes of one texel (one [`Appearance`]).
const TEXEL_BYTES: u32 = size_of::<Appearance>() as u32;

/// The texture size (width, height) holding `capacity` texels
/// ([`throng_contract::appearance_texture_size`]).
pub fn texture_size(capacity: u64) -> (u32, u32) {
    throng_contract::appearance_texture_size(capacity)
}

/// Where instance `i` lives in the texture of width `width` (as the shader reads it).
pub fn texel_of(i: u32, width: u32) -> (u32, u32) {
    (i % width, i / width)
}

/// A crowd's appearance texture.
pub struct GpuAppearances {
    pub texture: Texture,
    pub view: TextureView,
    /// Instances the texture holds.
    pub capacity: u64,
    /// Whether the texture holds every current value (false after it is made: the next upload
    /// sends them all).
    filled: bool,
    /// Bytes written by the last upload (tests and benchmarks: uploads ∝ changes).
    pub last_upload_bytes: u64,
}

impl GpuAppearances {
    /// A texture for `capacity` instances (filled by the next [`GpuAppearances::upload`]).
    pub fn new(device: &RenderDevice, capacity: u64) -> GpuAppearances {
        let (w, h) = texture_size(capacity);
        let texture = device.create_texture(&TextureDescriptor {
            label: Some("throng appearances"),
            size: Extent3d {
                width: w,
                height: h,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: TextureDimension::D2,
            format: TextureFormat::Rgba32Uint,
            usage: TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_DST,
            view_formats: &[],
        });
        let view = texture.create_view(&TextureViewDescriptor::default());
        GpuAppearances {
            texture,
            view,
            capacity,
            filled: false,
            last_upload_bytes: 0,
        }
    }

    /// Writes what changed (everything after the texture was made or when `changes` says the
    /// count changed; instances past `changes.values` up to `instances` as
    /// [`Appearance::DEFAULT`]); returns the bytes written. Nothing past the capacity is
    /// written (the caller makes the texture for the crowd's capacity first).
    pub fn upload(
        &mut self,
        queue: &RenderQueue,
        changes: AppearanceChanges,
        instances: usize,
    ) -> u64 {
        let mut padded = Vec::new();
        let mut values = changes.values;
        let n = instances.min(self.capacity as usize);
        if values.len() < n && (changes.changed.is_none() || !self.filled) {
            padded.extend_from_slice(values);
            padded.resize(n, Appearance::DEFAULT);
            values = &padded;
        }
        let n = n.min(values.len());
        let mut bytes = 0;
        match changes.changed.filter(|_| self.filled) {
            Some(changed) => {
                for (start, end) in throng_contract::appearance_runs(changed, n as u32) {
                    bytes += self.write(queue, start, &values[start as usize..end as usize]);
                }
            }
            None => {
                let mut start = 0;
                while start < n {
                    let end = (start + ROW as usize).min(n);
                    bytes += self.write(queue, start as u32, &values[start..end]);
                    start = end;
                }
                self.filled = true;
            }
        }
        self.last_upload_bytes = bytes;
        bytes
    }

    /// Writes `values` at instance `start` on (all on `start`'s row).
    fn write(&self, queue: &RenderQueue, start: u32, values: &[Appearance]) -> u64 {
        let (x, y) = texel_of(start, ROW);
        let data: &[u8] = bytemuck::cast_slice(values);
        queue.write_texture(
            TexelCopyTextureInfo {
                texture: &self.texture,
                mip_level: 0,
                origin: Origin3d { x, y, z: 0 },
                aspect: TextureAspect::All,
            },
            data,
            TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(values.len() as u32 * TEXEL_BYTES),
                rows_per_image: None,
            },
            Extent3d {
                width: values.len() as u32,
                height: 1,
                depth_or_array_layers: 1,
            },
        );
        data.len() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instance_texels_are_row_major() {
        assert_eq!(texture_size(1025), (ROW, 2));
        assert_eq!(texel_of(1025, ROW), (1, 1));
        assert_eq!(TEXEL_BYTES, 16);
    }
}
