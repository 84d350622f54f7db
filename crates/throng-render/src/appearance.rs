//! Per-instance appearances on the GPU (docs/design.md §5 "Appearance"): one
//! [`Appearance`] (16 B) per instance as one texel of an `Rgba32Uint` texture, row-major in rows
//! of [`ROW`] texels, bound in every mesh draw's group 3 (`throng_render::appearance`). A
//! texture rather than a storage buffer: the palette draw with motion vectors already binds
//! WebGPU's 8 storage buffers per stage, and the downlevel mode has none in the vertex stage.
//!
//! A crowd's appearances come as a slice uploaded for one frame, or from an
//! [`AppearanceUpload`] the application keeps across frames and updates with the instances that
//! changed (16 B each; all of them only when the count changed).

use throng_contract::{appearance_runs, appearance_texture_size, Appearance, AppearanceChanges};

/// Texels per row of the appearance texture (the contract's: throng-bevy lays it out alike).
pub use throng_contract::APPEARANCE_ROW as ROW;

/// The appearances of a crowd's instances for a frame.
#[derive(Debug, Clone, Copy, Default)]
pub enum CrowdAppearance<'a> {
    /// Every instance [`Appearance::DEFAULT`]: untinted, own materials, all parts and props.
    #[default]
    Default,
    /// One per instance in dense order, uploaded this frame.
    Slice(&'a [Appearance]),
    /// Kept on the GPU across frames by the application.
    Uploaded(&'a AppearanceUpload),
}

impl CrowdAppearance<'_> {
    /// Appearance of instance `i` (the default past the slice), as the shaders read it.
    pub fn get(&self, i: usize) -> Appearance {
        match self {
            CrowdAppearance::Slice(s) => s.get(i).copied().unwrap_or_default(),
            CrowdAppearance::Uploaded(u) => u.values.get(i).copied().unwrap_or_default(),
            CrowdAppearance::Default => Appearance::DEFAULT,
        }
    }
}

/// The texture size holding `n` texels (at least 1×1).
fn size_for(n: usize) -> (u32, u32) {
    appearance_texture_size(n as u64)
}

/// A texture of `values` (padded with defaults to whole rows) and its view.
pub(crate) fn appearance_texture(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    values: &[Appearance],
) -> (wgpu::Texture, wgpu::TextureView) {
    use wgpu::util::DeviceExt;
    let (w, h) = size_for(values.len());
    let mut texels = values.to_vec();
    texels.resize((w * h) as usize, Appearance::DEFAULT);
    let texture = device.create_texture_with_data(
        queue,
        &crate::target::texture_2d(
            "throng appearances",
            (w, h),
            wgpu::TextureFormat::Rgba32Uint,
            // COPY_SRC: tests read it back.
            wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_DST
                | wgpu::TextureUsages::COPY_SRC,
        ),
        wgpu::util::TextureDataOrder::LayerMajor,
        bytemuck::cast_slice(&texels),
    );
    let view = texture.create_view(&Default::default());
    (texture, view)
}

/// A crowd's appearances kept on the GPU across frames.
#[derive(Debug)]
pub struct AppearanceUpload {
    texture: wgpu::Texture,
    pub(crate) view: wgpu::TextureView,
    /// What the texture holds (the downlevel mode lays it out again in list order; 16 B per
    /// instance).
    values: Vec<Appearance>,
    /// Bytes the last [`Self::update`] wrote.
    pub last_bytes: u64,
}

impl AppearanceUpload {
    /// Uploads every appearance.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue, values: &[Appearance]) -> Self {
        let (texture, view) = appearance_texture(device, queue, values);
        AppearanceUpload {
            texture,
            view,
            values: values.to_vec(),
            last_bytes: std::mem::size_of_val(values) as u64,
        }
    }

    /// Instances it holds.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Sends what changed: the changed instances' texels (runs of neighbours in one row in one
    /// write), or everything when the list is `None` or the count changed. Returns the bytes
    /// written (16 per changed instance).
    pub fn update(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        changes: AppearanceChanges,
    ) -> u64 {
        let values = changes.values;
        let changed = match changes.changed {
            Some(c) if values.len() == self.values.len() => c,
            _ => {
                *self = AppearanceUpload::new(device, queue, values);
                return self.last_bytes;
            }
        };
        let mut bytes = 0u64;
        for (first, end) in appearance_runs(changed, values.len() as u32) {
            let at = first as usize..end as usize;
            let run = &values[at.clone()];
            self.values[at].copy_from_slice(run);
            let data: &[u8] = bytemuck::cast_slice(run);
            queue.write_texture(
                wgpu::TexelCopyTextureInfo {
                    texture: &self.texture,
                    mip_level: 0,
                    origin: wgpu::Origin3d {
                        x: first % ROW,
                        y: first / ROW,
                        z: 0,
                    },
                    aspect: wgpu::TextureAspect::All,
                },
                data,
                wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(data.len() as u32),
                    rows_per_image: None,
                },
                wgpu::Extent3d {
                    width: run.len() as u32,
                    height: 1,
                    depth_or_array_layers: 1,
                },
            );
            bytes += data.len() as u64;
        }
        self.last_bytes = bytes;
        bytes
    }
}

/// The appearance texture a crowd's draws bind (None: the default texel): an uploaded crowd's
/// own, one made for this frame from a slice, or (downlevel) its run's, in list order.
pub(crate) fn crowd_view(
    gpu: &crate::Gpu,
    crowd: &crate::Crowd,
    downlevel: Option<&crate::passes::downlevel::DownlevelRun>,
) -> Option<wgpu::TextureView> {
    if let Some(run) = downlevel {
        return run.appearance.clone();
    }
    match crowd.appearance {
        CrowdAppearance::Default => None,
        CrowdAppearance::Uploaded(u) => Some(u.view.clone()),
        CrowdAppearance::Slice(s) => Some(appearance_texture(&gpu.device, &gpu.queue, s).1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The texture's texels, read back (rows of `ROW` texels, 16 KiB: already a multiple of
    /// the copy alignment).
    fn read_back(gpu: &crate::Gpu, up: &AppearanceUpload) -> Vec<Appearance> {
        let size = up.texture.size();
        let bytes = (size.width * size.height * 16) as u64;
        let buf = crate::readback::read_buffer(&gpu.device, "appearances", bytes);
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        enc.copy_texture_to_buffer(
            up.texture.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &buf,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(size.width * 16),
                    rows_per_image: None,
                },
            },
            size,
        );
        gpu.queue.submit([enc.finish()]);
        let raw = crate::readback::map_read(gpu, &buf).expect("read back");
        bytemuck::cast_slice(&raw).to_vec()
    }

    #[test]
    fn changed_texels_land_where_the_instances_are() {
        let Some(gpu) = crate::device::test_gpu() else {
            return;
        };
        // Two full rows and part of a third (ROW = 1024), to cross row ends.
        let n = 2 * ROW as usize + 52;
        let mut values: Vec<Appearance> = (0..n)
            .map(|i| Appearance::DEFAULT.with_variant(i as u32))
            .collect();
        let mut up = AppearanceUpload::new(&gpu.device, &gpu.queue, &values);
        let changed = [5u32, 1023, 1024, 1025, 2047, 2048, n as u32 - 1, 6];
        for &i in &changed {
            values[i as usize] = Appearance::DEFAULT
                .with_tint([i as u8, 1, 2, 3])
                .with_parts(i);
        }
        let changes = AppearanceChanges {
            values: &values,
            changed: Some(&changed),
        };
        assert_eq!(up.update(&gpu.device, &gpu.queue, changes), 16 * 8);
        let texels = read_back(&gpu, &up);
        assert_eq!(&texels[..n], &values[..], "every texel as the values say");
        assert!(texels[n..].iter().all(|a| *a == Appearance::DEFAULT));
    }

    #[test]
    fn rows_hold_every_instance() {
        assert_eq!(super::size_for(0), (1, 1));
        assert_eq!(super::size_for(5), (5, 1));
        assert_eq!(super::size_for(1024), (1024, 1));
        assert_eq!(super::size_for(1025), (1024, 2));
    }
}
