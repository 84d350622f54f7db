//! Bind group layouts of the programs, with the binding numbers of [`crate::bindings`] (the
//! WGSL reads the same numbers as shader defs).

use throng_asset::Encoding;

use crate::bindings as b;
use crate::formats::sample_type;
use throng_asset::gpu::TexelFormat;
use throng_contract::Timing;

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

pub(crate) fn uniform(binding: u32, vis: wgpu::ShaderStages) -> wgpu::BindGroupLayoutEntry {
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

/// The playback record binding of a timing (CPU- or GPU-timed records), and the clock.
fn playback_entries(timing: Timing, vis: wgpu::ShaderStages) -> Vec<wgpu::BindGroupLayoutEntry> {
    match timing {
        Timing::Cpu => vec![storage(b::CPU_RECORDS, vis, true)],
        Timing::Gpu => vec![storage(b::GPU_RECORDS, vis, true), uniform(b::CLOCK, vis)],
    }
}

/// Bone texture, bone params, clip table, instance transforms and the playback records.
fn skin_entries(
    encoding: Encoding,
    timing: Timing,
    vis: wgpu::ShaderStages,
) -> Vec<wgpu::BindGroupLayoutEntry> {
    let mut v = vec![
        wgpu::BindGroupLayoutEntry {
            binding: b::BONE_TEXTURE,
            visibility: vis,
            ty: wgpu::BindingType::Texture {
                sample_type: sample_type(TexelFormat::bone(encoding)),
                view_dimension: wgpu::TextureViewDimension::D2Array,
                multisampled: false,
            },
            count: None,
        },
        uniform(b::BONE_PARAMS, vis),
        storage(b::INSTANCE_TRANSFORMS, vis, true),
    ];
    v.extend(clip_table(vis));
    v.extend(playback_entries(timing, vis));
    v
}

/// The clip table and its frame-time lists (what the time rules read).
fn clip_table(vis: wgpu::ShaderStages) -> [wgpu::BindGroupLayoutEntry; 2] {
    [
        storage(b::CLIPS, vis, true),
        storage(b::FRAME_TIMES, vis, true),
    ]
}

/// Group 0 of the record scatter (GPU-timed uploads): the writes, the records it writes and
/// its parameters.
pub fn record_scatter(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    let c = wgpu::ShaderStages::COMPUTE;
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("throng record scatter"),
        entries: &[
            storage(b::RECORD_WRITES, c, true),
            storage(b::GPU_RECORDS, c, false),
            uniform(b::SCATTER_PARAMS, c),
        ],
    })
}

/// Group 0 of the texture draw: the skin bindings, the frame uniform and (culled) the visible
/// ids.
pub fn texture_draw(
    device: &wgpu::Device,
    encoding: Encoding,
    timing: Timing,
    culled: bool,
) -> wgpu::BindGroupLayout {
    let vis = wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT;
    let mut e = skin_entries(encoding, timing, vis);
    e.push(uniform(b::FRAME, vis));
    if culled {
        e.push(storage(b::VISIBLE_IDS, wgpu::ShaderStages::VERTEX, true));
    }
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("throng texture draw"),
        entries: &e,
    })
}

/// Group 0 of the palette draw (docs/design.md §5): the texture draw's bindings without the bone
/// texture (bone params for the palette's size, clips and records for the debug views), the
/// frame uniform, (culled) the visible ids, and the palette; with `motion`, also the previous
/// frame's palette and transforms.
pub fn palette_draw(
    device: &wgpu::Device,
    timing: Timing,
    culled: bool,
    motion: bool,
) -> wgpu::BindGroupLayout {
    let vis = wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT;
    let mut e = vec![
        uniform(b::BONE_PARAMS, vis),
        storage(b::INSTANCE_TRANSFORMS, vis, true),
        uniform(b::FRAME, vis),
        storage(b::PALETTE, wgpu::ShaderStages::VERTEX, true),
    ];
    e.extend(clip_table(vis));
    e.extend(playback_entries(timing, vis));
    if culled {
        e.push(storage(b::VISIBLE_IDS, wgpu::ShaderStages::VERTEX, true));
    }
    if motion {
        e.push(storage(b::PREV_PALETTE, wgpu::ShaderStages::VERTEX, true));
        e.push(storage(
            b::PREV_TRANSFORMS,
            wgpu::ShaderStages::VERTEX,
            true,
        ));
    }
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("throng palette draw"),
        entries: &e,
    })
}

/// Group 0 of the palette pass: the skin bindings (bone texture, params, clips, transforms,
/// records), the job, the palette it writes and (culled) the visible ids and the argument
/// buffer's words.
pub fn palette_compute(
    device: &wgpu::Device,
    encoding: Encoding,
    timing: Timing,
    culled: bool,
) -> wgpu::BindGroupLayout {
    let vis = wgpu::ShaderStages::COMPUTE;
    let mut e = skin_entries(encoding, timing, vis);
    e.push(uniform(b::PALETTE_JOB, vis));
    e.push(storage(b::PALETTE, vis, false));
    e.push(storage(b::MASKS, vis, true));
    if culled {
        e.push(storage(b::VISIBLE_IDS, vis, true));
        e.push(storage(b::PALETTE_COUNT, vis, true));
    }
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("throng palette compute"),
        entries: &e,
    })
}

/// Group 0 of the compute skinning job: the skin bindings, inputs, outputs and the job.
pub fn skin_compute(
    device: &wgpu::Device,
    encoding: Encoding,
    timing: Timing,
) -> wgpu::BindGroupLayout {
    let vis = wgpu::ShaderStages::COMPUTE;
    let mut e = skin_entries(encoding, timing, vis);
    e.push(storage(b::SKIN_INPUTS, vis, true));
    e.push(storage(b::SKIN_OUTPUTS, vis, false));
    e.push(uniform(b::SKIN_JOB, vis));
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("throng skin compute"),
        entries: &e,
    })
}

/// Group 0 of the reference draw and the ground: instance transforms and the frame uniform.
pub fn reference_draw(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    let vis = wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT;
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("throng reference draw"),
        entries: &[
            storage(b::INSTANCE_TRANSFORMS, vis, true),
            uniform(b::FRAME, vis),
        ],
    })
}

/// An Rgba32Uint data texture of the downlevel mode read with `textureLoad`.
fn data_texture(binding: u32, vis: wgpu::ShaderStages) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: vis,
        ty: wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Uint,
            view_dimension: wgpu::TextureViewDimension::D2,
            multisampled: false,
        },
        count: None,
    }
}

/// Group 0 of the downlevel mode's draws (docs/downlevel.md; no storage buffer): with
/// `encoding` (the texture path) the bone texture, the bone params, the clip table's and the
/// instances' data textures and the frame uniform.
pub fn downlevel_draw(device: &wgpu::Device, encoding: Option<Encoding>) -> wgpu::BindGroupLayout {
    let vis = wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT;
    let mut e = Vec::with_capacity(5);
    if let Some(encoding) = encoding {
        e.push(wgpu::BindGroupLayoutEntry {
            binding: b::BONE_TEXTURE,
            visibility: vis,
            ty: wgpu::BindingType::Texture {
                sample_type: sample_type(TexelFormat::bone(encoding)),
                view_dimension: wgpu::TextureViewDimension::D2Array,
                multisampled: false,
            },
            count: None,
        });
    }
    e.extend([
        uniform(b::BONE_PARAMS, vis),
        data_texture(b::CLIPS, vis),
        data_texture(b::INSTANCE_TRANSFORMS, vis),
        uniform(b::FRAME, vis),
    ]);
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("throng downlevel draw"),
        entries: &e,
    })
}

/// Group 0 of the reference draw and the ground on a device without storage buffers in the
/// vertex stage: the transforms' data texture and the frame uniform.
pub fn reference_draw_downlevel(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    let vis = wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT;
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("throng reference draw (downlevel)"),
        entries: &[
            data_texture(b::INSTANCE_TRANSFORMS, vis),
            uniform(b::FRAME, vis),
        ],
    })
}

/// Group 0 of the layers job: bone params, clips, the playback records and the output.
pub fn layers_compute(device: &wgpu::Device, timing: Timing) -> wgpu::BindGroupLayout {
    let vis = wgpu::ShaderStages::COMPUTE;
    let mut e = vec![uniform(b::BONE_PARAMS, vis)];
    e.extend(clip_table(vis));
    e.extend(playback_entries(timing, vis));
    e.push(storage(b::LAYERS_OUT, vis, false));
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("throng layers compute"),
        entries: &e,
    })
}

/// Group 0 of the culling job: bone params, clips, transforms, the playback records, the cull
/// params, the visible ids and the draw arguments.
pub fn cull_compute(
    device: &wgpu::Device,
    timing: Timing,
    occlusion: bool,
) -> wgpu::BindGroupLayout {
    let vis = wgpu::ShaderStages::COMPUTE;
    let mut e = vec![
        uniform(b::BONE_PARAMS, vis),
        storage(b::INSTANCE_TRANSFORMS, vis, true),
    ];
    e.extend(clip_table(vis));
    e.extend(playback_entries(timing, vis));
    e.extend([
        uniform(b::CULL_PARAMS, vis),
        storage(b::VISIBLE_IDS, vis, false),
        storage(b::DRAW_ARGS, vis, false),
        storage(b::ROW_BOUNDS, vis, true),
    ]);
    if occlusion {
        e.push(storage(b::CULL_BOXES, vis, false));
    }
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("throng cull"),
        entries: &e,
    })
}

/// Group 0 of occlusion culling's second phase: the culling parameters, lists and arguments,
/// the boxes the culling pass kept, the depth pyramid.
pub fn occlusion_compute(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    let vis = wgpu::ShaderStages::COMPUTE;
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("throng occlusion"),
        entries: &[
            uniform(b::CULL_PARAMS, vis),
            storage(b::VISIBLE_IDS, vis, false),
            storage(b::DRAW_ARGS, vis, false),
            storage(b::CULL_BOXES, vis, false),
            uniform(b::PYRAMID_PARAMS, vis),
            storage(b::PYRAMID, vis, true),
        ],
    })
}

/// Group 0 of the depth pyramid's build: its parameters, the level of a dispatch (dynamic
/// offset), the main pass's depth and the pyramid.
pub fn depth_pyramid(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    let vis = wgpu::ShaderStages::COMPUTE;
    let mut step = uniform(b::PYRAMID_STEP, vis);
    if let wgpu::BindingType::Buffer {
        has_dynamic_offset, ..
    } = &mut step.ty
    {
        *has_dynamic_offset = true;
    }
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("throng depth pyramid"),
        entries: &[
            uniform(b::PYRAMID_PARAMS, vis),
            step,
            wgpu::BindGroupLayoutEntry {
                binding: b::PYRAMID_DEPTH,
                visibility: vis,
                // A depth texture bound as unfilterable floats (read with textureLoad).
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Float { filterable: false },
                    view_dimension: wgpu::TextureViewDimension::D2,
                    multisampled: false,
                },
                count: None,
            },
            storage(b::PYRAMID, vis, false),
        ],
    })
}

/// Group 0 of the VAT draw: the skin bindings without the bone texture, the frame uniform and
/// (culled) the visible ids.
pub fn vat_draw(device: &wgpu::Device, timing: Timing, culled: bool) -> wgpu::BindGroupLayout {
    let vis = wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT;
    let mut e = vec![
        uniform(b::BONE_PARAMS, vis),
        storage(b::INSTANCE_TRANSFORMS, vis, true),
        uniform(b::FRAME, vis),
    ];
    e.extend(clip_table(vis));
    e.extend(playback_entries(timing, vis));
    if culled {
        e.push(storage(b::VISIBLE_IDS, wgpu::ShaderStages::VERTEX, true));
    }
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("throng vat draw"),
        entries: &e,
    })
}

/// What placing a prop reads: bone params and clips (the rows a layer shows), the transforms,
/// the playback records, the anchors and the prop's parameters.
fn anchor_entries(timing: Timing, vis: wgpu::ShaderStages) -> Vec<wgpu::BindGroupLayoutEntry> {
    let mut e = vec![
        uniform(b::BONE_PARAMS, vis),
        storage(b::INSTANCE_TRANSFORMS, vis, true),
        storage(b::ANCHORS, vis, true),
        uniform(b::PROP_PARAMS, vis),
    ];
    e.extend(clip_table(vis));
    e.extend(playback_entries(timing, vis));
    e
}

/// Group 0 of the prop draw: [`anchor_entries`] and the frame uniform.
pub fn prop_draw(device: &wgpu::Device, timing: Timing) -> wgpu::BindGroupLayout {
    let vis = wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT;
    let mut e = anchor_entries(timing, vis);
    e.push(uniform(b::FRAME, vis));
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("throng prop draw"),
        entries: &e,
    })
}

/// Group 0 of the anchors job: [`anchor_entries`] and the output.
pub fn anchors_compute(device: &wgpu::Device, timing: Timing) -> wgpu::BindGroupLayout {
    let vis = wgpu::ShaderStages::COMPUTE;
    let mut e = anchor_entries(timing, vis);
    e.push(storage(b::ANCHORS_OUT, vis, false));
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("throng anchors compute"),
        entries: &e,
    })
}

/// Group 2 of the VAT draw: VAT params, float positions, unorm16 positions, octahedral normals.
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
            uniform(b::VAT_PARAMS, vis),
            tex(
                b::VAT_POSITIONS_FLOAT,
                wgpu::TextureSampleType::Float { filterable: false },
            ),
            tex(b::VAT_POSITIONS_UINT, wgpu::TextureSampleType::Uint),
            tex(b::VAT_NORMALS, wgpu::TextureSampleType::Sint),
        ],
    })
}

/// Group 3 of every mesh draw: the per-draw uniform (dynamic offset); the main pass adds the
/// shadow map and its comparison sampler.
pub fn draw_params(device: &wgpu::Device, main_pass: bool) -> wgpu::BindGroupLayout {
    let mut e = vec![wgpu::BindGroupLayoutEntry {
        binding: b::DRAW_PARAMS,
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
    e.push(wgpu::BindGroupLayoutEntry {
        binding: b::APPEARANCES,
        visibility: wgpu::ShaderStages::VERTEX,
        ty: wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Uint,
            view_dimension: wgpu::TextureViewDimension::D2,
            multisampled: false,
        },
        count: None,
    });
    if main_pass {
        e.push(wgpu::BindGroupLayoutEntry {
            binding: b::SHADOW_MAP,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Depth,
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            count: None,
        });
        e.push(wgpu::BindGroupLayoutEntry {
            binding: b::SHADOW_SAMPLER,
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
