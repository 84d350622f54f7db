//! Bind group layouts of the skinning programs (bindings as declared in resources.wgsl,
//! bones_*.wgsl, frame.wgsl, mesh_fs.wgsl and cs_skin.wgsl).

use throng_asset::Encoding;
use wgpu::util::DeviceExt;

use crate::gpu_asset::{bone_sample_type, GpuAsset};
use crate::gpu_types::{GpuInstanceRecord, InstanceRecord, Playback, TimingUniform};
use crate::shaders::Timing;

fn storage(binding: u32, vis: wgpu::ShaderStages, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: vis,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

fn uniform(binding: u32, vis: wgpu::ShaderStages) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: vis,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// Bindings 0–4: bone texture, bone params, clip table, instance transforms, playback records;
/// GPU-timed adds the clock uniform (9).
fn skin_entries(
    encoding: Encoding,
    timing: Timing,
    vis: wgpu::ShaderStages,
) -> Vec<wgpu::BindGroupLayoutEntry> {
    let mut v = vec![
        wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: vis,
            ty: wgpu::BindingType::Texture {
                sample_type: bone_sample_type(encoding),
                view_dimension: wgpu::TextureViewDimension::D2Array,
                multisampled: false,
            },
            count: None,
        },
        uniform(1, vis),
        storage(2, vis, true),
        storage(3, vis, true),
        storage(4, vis, true),
    ];
    if timing == Timing::Gpu {
        v.push(uniform(9, vis));
    }
    v
}

/// Group 0 of the texture draw: skin bindings 0–4 plus the frame uniform (5).
pub fn texture_draw(
    device: &wgpu::Device,
    encoding: Encoding,
    timing: Timing,
    culled: bool,
) -> wgpu::BindGroupLayout {
    let vis = wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT;
    let mut e = skin_entries(encoding, timing, vis);
    e.push(uniform(5, vis));
    if culled {
        e.push(storage(12, wgpu::ShaderStages::VERTEX, true));
    }
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("throng texture draw"),
        entries: &e,
    })
}

/// Group 0 of the compute skinning job: skin bindings 0–4, inputs (6), outputs (7), job (8).
pub fn skin_compute(
    device: &wgpu::Device,
    encoding: Encoding,
    timing: Timing,
) -> wgpu::BindGroupLayout {
    let vis = wgpu::ShaderStages::COMPUTE;
    let mut e = skin_entries(encoding, timing, vis);
    e.push(storage(6, vis, true));
    e.push(storage(7, vis, false));
    e.push(uniform(8, vis));
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("throng skin compute"),
        entries: &e,
    })
}

/// Group 0 of the reference draw and the ground: instance transforms (3) and frame uniform (5).
pub fn reference_draw(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    let vis = wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT;
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("throng reference draw"),
        entries: &[storage(3, vis, true), uniform(5, vis)],
    })
}

pub fn shader_module(device: &wgpu::Device, label: &str, source: String) -> wgpu::ShaderModule {
    device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(label),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    })
}

/// Group 0 of the layers job: bone params (1), clips (2), records (4), clock (9, GPU-timed),
/// output (10).
pub fn layers_compute(device: &wgpu::Device, timing: Timing) -> wgpu::BindGroupLayout {
    let vis = wgpu::ShaderStages::COMPUTE;
    let mut e = vec![
        uniform(1, vis),
        storage(2, vis, true),
        storage(4, vis, true),
    ];
    if timing == Timing::Gpu {
        e.push(uniform(9, vis));
    }
    e.push(storage(10, vis, false));
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("throng layers compute"),
        entries: &e,
    })
}

/// GPU buffers of one [`Playback`]: the records (binding 4) and, GPU-timed, the clock (9).
pub struct PlaybackBuffers {
    pub records: wgpu::Buffer,
    pub clock: Option<wgpu::Buffer>,
}

impl PlaybackBuffers {
    pub fn new(device: &wgpu::Device, playback: &Playback) -> PlaybackBuffers {
        let storage = |contents: &[u8]| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("throng playback records"),
                contents,
                usage: wgpu::BufferUsages::STORAGE,
            })
        };
        // A storage binding may not be empty: one zeroed (disabled) record stands in.
        let zero_cpu = [InstanceRecord::default()];
        let zero_gpu = [GpuInstanceRecord::default()];
        match playback {
            Playback::Cpu(r) => PlaybackBuffers {
                records: storage(bytemuck::cast_slice(if r.is_empty() {
                    &zero_cpu
                } else {
                    r
                })),
                clock: None,
            },
            Playback::Gpu { records, clock } => PlaybackBuffers {
                records: storage(bytemuck::cast_slice(if records.is_empty() {
                    &zero_gpu
                } else {
                    records
                })),
                clock: Some(
                    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                        label: Some("throng clock"),
                        contents: bytemuck::bytes_of(&TimingUniform {
                            clock: *clock,
                            _pad: [0; 3],
                        }),
                        usage: wgpu::BufferUsages::UNIFORM,
                    }),
                ),
            },
        }
    }

    /// Bind group entries 4 and (GPU-timed) 9.
    pub fn entries(&self) -> Vec<wgpu::BindGroupEntry<'_>> {
        let mut v = vec![wgpu::BindGroupEntry {
            binding: 4,
            resource: self.records.as_entire_binding(),
        }];
        if let Some(c) = &self.clock {
            v.push(wgpu::BindGroupEntry {
                binding: 9,
                resource: c.as_entire_binding(),
            });
        }
        v
    }
}

/// Bind group entries 0–3 of a skinning program.
pub fn skin_asset_entries<'a>(
    asset: &'a GpuAsset,
    transforms: &'a wgpu::Buffer,
) -> Vec<wgpu::BindGroupEntry<'a>> {
    vec![
        wgpu::BindGroupEntry {
            binding: 0,
            resource: wgpu::BindingResource::TextureView(&asset.bone_view),
        },
        wgpu::BindGroupEntry {
            binding: 1,
            resource: asset.params_buffer.as_entire_binding(),
        },
        wgpu::BindGroupEntry {
            binding: 2,
            resource: asset.clips_buffer.as_entire_binding(),
        },
        wgpu::BindGroupEntry {
            binding: 3,
            resource: transforms.as_entire_binding(),
        },
    ]
}

/// Group 0 of the culling job: bone params (1), clips (2), transforms (3), records (4), clock
/// (9, GPU-timed), cull params (11), visible ids (12), draw arguments (13).
pub fn cull_compute(device: &wgpu::Device, timing: Timing) -> wgpu::BindGroupLayout {
    let vis = wgpu::ShaderStages::COMPUTE;
    let mut e = vec![
        uniform(1, vis),
        storage(2, vis, true),
        storage(3, vis, true),
        storage(4, vis, true),
    ];
    if timing == Timing::Gpu {
        e.push(uniform(9, vis));
    }
    e.extend([
        uniform(11, vis),
        storage(12, vis, false),
        storage(13, vis, false),
    ]);
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("throng cull"),
        entries: &e,
    })
}

/// Group 0 of the VAT draw: bindings 1–4 (no bone texture), clock (9, GPU-timed), frame (5),
/// visible ids (12, culled).
pub fn vat_draw(device: &wgpu::Device, timing: Timing, culled: bool) -> wgpu::BindGroupLayout {
    let vis = wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT;
    let mut e = vec![
        uniform(1, vis),
        storage(2, vis, true),
        storage(3, vis, true),
        storage(4, vis, true),
        uniform(5, vis),
    ];
    if timing == Timing::Gpu {
        e.push(uniform(9, vis));
    }
    if culled {
        e.push(storage(12, wgpu::ShaderStages::VERTEX, true));
    }
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("throng vat draw"),
        entries: &e,
    })
}

/// Group 2 of the VAT draw: VAT params (0), float positions (1), unorm16 positions (2),
/// octahedral normals (3).
pub fn vat_textures(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    let vis = wgpu::ShaderStages::VERTEX;
    let tex = |binding, sample_type| wgpu::BindGroupLayoutEntry {
        binding,
        visibility: vis,
        ty: wgpu::BindingType::Texture {
            sample_type,
            view_dimension: wgpu::TextureViewDimension::D2Array,
            multisampled: false,
        },
        count: None,
    };
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("throng vat textures"),
        entries: &[
            uniform(0, vis),
            tex(1, wgpu::TextureSampleType::Float { filterable: false }),
            tex(2, wgpu::TextureSampleType::Uint),
            tex(3, wgpu::TextureSampleType::Sint),
        ],
    })
}

/// Group 3 of every mesh draw: the per-draw uniform (0, dynamic offset); the main pass adds the
/// shadow map (1) and its comparison sampler (2).
pub fn draw_params(device: &wgpu::Device, main_pass: bool) -> wgpu::BindGroupLayout {
    let mut e = vec![wgpu::BindGroupLayoutEntry {
        binding: 0,
        visibility: wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: true,
            min_binding_size: wgpu::BufferSize::new(
                std::mem::size_of::<crate::gpu_types::DrawParams>() as u64,
            ),
        },
        count: None,
    }];
    if main_pass {
        e.push(wgpu::BindGroupLayoutEntry {
            binding: 1,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Depth,
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            count: None,
        });
        e.push(wgpu::BindGroupLayoutEntry {
            binding: 2,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Comparison),
            count: None,
        });
    }
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(if main_pass {
            "throng draw params + shadow map"
        } else {
            "throng draw params"
        }),
        entries: &e,
    })
}
