//! A crowd of one frame: instances of one uploaded asset, their transforms and their playback
//! records (docs/design.md §4), checked and put in GPU buffers for the passes.

use wgpu::util::DeviceExt;

use crate::bindings as b;
use crate::error::RenderError;
use crate::gpu_asset::GpuAsset;
use crate::gpu_types::TimingUniform;
use throng_contract::{GpuInstanceRecord, InstanceRecord, InstanceTransform, Timing};

/// Per-instance playback data of one crowd (docs/design.md §4).
#[derive(Debug, Clone, Copy)]
pub enum Playback<'a> {
    /// CPU-timed: 4 layers per instance, written by the CPU every frame (a `CpuRuntime`'s
    /// `records()`).
    Cpu(&'a [InstanceRecord]),
    /// GPU-timed: a compact record per instance plus the global clock (low 32 bits of ticks; a
    /// `GpuRuntime`'s `records()` and `gpu_clock()`).
    Gpu {
        records: &'a [GpuInstanceRecord],
        clock: u32,
    },
}

impl Playback<'_> {
    pub fn len(&self) -> usize {
        match self {
            Playback::Cpu(r) => r.len(),
            Playback::Gpu { records, .. } => records.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn timing(&self) -> Timing {
        match self {
            Playback::Cpu(_) => Timing::Cpu,
            Playback::Gpu { .. } => Timing::Gpu,
        }
    }
}

/// One crowd of a frame: instances of one asset.
#[derive(Clone, Copy)]
pub struct Crowd<'a> {
    pub asset: &'a GpuAsset,
    /// World-from-model transform per instance (file units).
    pub transforms: &'a [InstanceTransform],
    /// Playback record per instance, CPU- or GPU-timed (docs/design.md §4).
    pub playback: Playback<'a>,
}

impl Crowd<'_> {
    pub fn len(&self) -> usize {
        self.transforms.len()
    }

    pub fn is_empty(&self) -> bool {
        self.transforms.is_empty()
    }

    /// One record per transform, and buffers within the device's limits: the largest is the
    /// visible-id list (4 B × 2 passes × LODs per instance) or the records (64 B per instance).
    pub(crate) fn check(&self, limits: &wgpu::Limits) -> Result<(), RenderError> {
        if self.transforms.len() != self.playback.len() {
            return Err(RenderError::BadInput {
                what: "instance records (one per transform)",
                got: self.playback.len(),
                expected: self.transforms.len(),
            });
        }
        let lods = self.asset.lod_count() as u64;
        let per_instance = (8 * lods).max(64);
        let n = self.transforms.len() as u64;
        // Visible-id segments round each list up to 64 ids.
        let bytes = (n + 64) * per_instance;
        let limit = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        if bytes > limit {
            return Err(RenderError::TooManyInstances {
                asset: self.asset.name.clone(),
                instances: self.transforms.len(),
                bytes,
                limit,
                max_instances: (limit / per_instance).saturating_sub(64),
            });
        }
        Ok(())
    }
}

/// A storage buffer of `data` (one `fallback` element when empty: a storage binding may not be
/// empty).
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
        usage: wgpu::BufferUsages::STORAGE,
    })
}

/// A crowd's per-instance data on the GPU: transforms, records and (GPU-timed) the clock.
pub(crate) struct CrowdBuffers {
    pub transforms: wgpu::Buffer,
    pub records: wgpu::Buffer,
    pub clock: Option<wgpu::Buffer>,
}

impl CrowdBuffers {
    pub fn new(
        device: &wgpu::Device,
        transforms: &[InstanceTransform],
        playback: &Playback,
    ) -> Self {
        let transforms = storage_buffer(
            device,
            "throng transforms",
            transforms,
            InstanceTransform::IDENTITY,
        );
        // A storage binding may not be empty: one zeroed (disabled) record stands in.
        let (records, clock) = match playback {
            Playback::Cpu(r) => (
                storage_buffer(
                    device,
                    "throng playback records",
                    r,
                    InstanceRecord::default(),
                ),
                None,
            ),
            Playback::Gpu { records, clock } => (
                storage_buffer(
                    device,
                    "throng playback records",
                    records,
                    GpuInstanceRecord::default(),
                ),
                Some(
                    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                        label: Some("throng clock"),
                        contents: bytemuck::bytes_of(&TimingUniform {
                            clock: *clock,
                            _pad: [0; 3],
                        }),
                        usage: wgpu::BufferUsages::UNIFORM,
                    }),
                ),
            ),
        };
        CrowdBuffers {
            transforms,
            records,
            clock,
        }
    }

    /// Bind group entries of the records and (GPU-timed) the clock.
    pub fn playback_entries(&self) -> Vec<wgpu::BindGroupEntry<'_>> {
        let records = if self.clock.is_some() {
            b::GPU_RECORDS
        } else {
            b::CPU_RECORDS
        };
        let mut v = vec![wgpu::BindGroupEntry {
            binding: records,
            resource: self.records.as_entire_binding(),
        }];
        if let Some(c) = &self.clock {
            v.push(wgpu::BindGroupEntry {
                binding: b::CLOCK,
                resource: c.as_entire_binding(),
            });
        }
        v
    }

    /// Bind group entries of the asset (bone texture, params, clips), the transforms and the
    /// playback; `bones`: include the bone texture (the VAT path and culling read none).
    pub fn skin_entries<'a>(
        &'a self,
        asset: &'a GpuAsset,
        bones: bool,
    ) -> Vec<wgpu::BindGroupEntry<'a>> {
        let mut v = Vec::with_capacity(7);
        if bones {
            v.push(wgpu::BindGroupEntry {
                binding: b::BONE_TEXTURE,
                resource: wgpu::BindingResource::TextureView(&asset.bone_view),
            });
        }
        v.extend([
            wgpu::BindGroupEntry {
                binding: b::BONE_PARAMS,
                resource: asset.params_buffer.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: b::INSTANCE_TRANSFORMS,
                resource: self.transforms.as_entire_binding(),
            },
        ]);
        v.extend(asset.clip_entries());
        v.extend(self.playback_entries());
        v
    }
}
