//! Compute twins of the texture path: run the shaders' own `skin_vertex()` (and
//! `instance_layers()`) over chosen vertices and instances and read the results back. Used by
//! the numerical tests against throng-asset's CPU decoder and throng-runtime's GPU-timed twin,
//! and by tools that want GPU-skinned vertices.

use wgpu::util::DeviceExt;

use crate::crowd::{CrowdBuffers, Playback};
use crate::device::Gpu;
use crate::error::RenderError;
use crate::gpu_asset::GpuAsset;
use crate::gpu_types::{AnchorAffine, SkinInput, SkinJob, SkinOutput};
use crate::layouts;
use crate::pipelines::compute_pipeline;
use crate::readback::{map_read, read_buffer};
use crate::shaders::Program;
use throng_contract::Skinning;
use throng_contract::{InstanceRecord, InstanceTransform};

/// Dispatches `threads` invocations and copies `out` (of `size` bytes) back.
fn run_and_read(
    gpu: &Gpu,
    pipeline: &wgpu::ComputePipeline,
    bind: &wgpu::BindGroup,
    threads: u32,
    out: &wgpu::Buffer,
    size: u64,
) -> Result<Vec<u8>, RenderError> {
    let device = &gpu.device;
    let read = read_buffer(device, "throng compute readback", size);
    let mut enc = device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(pipeline);
        pass.set_bind_group(crate::bindings::group::SKIN, bind, &[]);
        pass.dispatch_workgroups(threads.div_ceil(64), 1, 1);
    }
    enc.copy_buffer_to_buffer(out, 0, &read, 0, size);
    gpu.queue.submit([enc.finish()]);
    map_read(gpu, &read)
}

fn output_buffer(device: &wgpu::Device, size: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("throng compute output"),
        size,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    })
}

/// Skins every vertex of `inputs` for every instance of `playback` on the GPU; result index =
/// instance · inputs.len() + vertex. Positions and normals are in model space (file units; no
/// instance transform).
pub fn skin_on_gpu(
    gpu: &Gpu,
    asset: &GpuAsset,
    inputs: &[SkinInput],
    playback: Playback,
    skinning: Skinning,
) -> Result<Vec<SkinOutput>, RenderError> {
    let device = &gpu.device;
    let total = inputs.len() * playback.len();
    if total == 0 {
        return Ok(Vec::new());
    }
    let timing = playback.timing();
    let bgl = layouts::skin_compute(device, asset.encoding, timing);
    let program = Program::SkinCompute {
        encoding: asset.encoding,
        skinning,
        timing,
    };
    let pipeline = compute_pipeline(device, program, &bgl, "cs_skin")?;
    let init = |label, contents: &[u8], usage| {
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents,
            usage,
        })
    };
    let transforms = vec![InstanceTransform::IDENTITY; playback.len()];
    let mut owned = None;
    let buffers = CrowdBuffers::for_playback(device, &transforms, playback, &mut owned);
    let inputs_buf = init(
        "throng skin inputs",
        bytemuck::cast_slice(inputs),
        wgpu::BufferUsages::STORAGE,
    );
    let job = SkinJob {
        vertex_count: inputs.len() as u32,
        instance_count: playback.len() as u32,
        _pad: [0; 2],
    };
    let job_buf = init(
        "throng skin job",
        bytemuck::bytes_of(&job),
        wgpu::BufferUsages::UNIFORM,
    );
    let out_size = (total * std::mem::size_of::<SkinOutput>()) as u64;
    let out_buf = output_buffer(device, out_size);
    let mut entries = buffers.skin_entries(asset, true);
    entries.extend([
        wgpu::BindGroupEntry {
            binding: crate::bindings::SKIN_INPUTS,
            resource: inputs_buf.as_entire_binding(),
        },
        wgpu::BindGroupEntry {
            binding: crate::bindings::SKIN_OUTPUTS,
            resource: out_buf.as_entire_binding(),
        },
        wgpu::BindGroupEntry {
            binding: crate::bindings::SKIN_JOB,
            resource: job_buf.as_entire_binding(),
        },
    ]);
    let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("throng skin compute"),
        layout: &bgl,
        entries: &entries,
    });
    let bytes = run_and_read(gpu, &pipeline, &bind, total as u32, &out_buf, out_size)?;
    Ok(bytemuck::pod_collect_to_vec(&bytes))
}

/// The 4 playback layers of every instance as the skinning shaders derive them (CPU-timed: the
/// records themselves; GPU-timed: computed from the record and the clock).
pub fn layers_on_gpu(
    gpu: &Gpu,
    asset: &GpuAsset,
    playback: Playback,
) -> Result<Vec<InstanceRecord>, RenderError> {
    let device = &gpu.device;
    let n = playback.len();
    if n == 0 {
        return Ok(Vec::new());
    }
    let timing = playback.timing();
    let bgl = layouts::layers_compute(device, timing);
    let pipeline = compute_pipeline(device, Program::LayersCompute { timing }, &bgl, "cs_layers")?;
    let mut owned = None;
    let buffers = CrowdBuffers::for_playback(device, &[], playback, &mut owned);
    let out_size = (n * std::mem::size_of::<InstanceRecord>()) as u64;
    let out_buf = output_buffer(device, out_size);
    let mut entries = vec![wgpu::BindGroupEntry {
        binding: crate::bindings::BONE_PARAMS,
        resource: asset.params_buffer.as_entire_binding(),
    }];
    entries.extend(asset.clip_entries());
    entries.extend(buffers.playback_entries());
    entries.push(wgpu::BindGroupEntry {
        binding: crate::bindings::LAYERS_OUT,
        resource: out_buf.as_entire_binding(),
    });
    let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("throng layers compute"),
        layout: &bgl,
        entries: &entries,
    });
    let bytes = run_and_read(gpu, &pipeline, &bind, n as u32, &out_buf, out_size)?;
    Ok(bytemuck::pod_collect_to_vec(&bytes))
}

/// Every instance's world transform of `anchor` as the prop draw places it (column-major, file
/// units): `transforms[i] · Σ_l w_l · Σ_k w_k A(row_k)` over each layer's row taps (on a linear
/// clip `lerp(A(row_l), A(next_l), frac_l)`) on the GPU, for the
/// layers of `playback` (CPU-timed: the records; GPU-timed: derived from the record and the
/// clock). The twin of `throng_runtime::anchor::anchor_world`.
pub fn anchors_on_gpu(
    gpu: &Gpu,
    asset: &GpuAsset,
    transforms: &[InstanceTransform],
    playback: Playback,
    anchor: u32,
) -> Result<Vec<glam::Mat4>, RenderError> {
    let device = &gpu.device;
    asset.check_anchor(anchor)?;
    let n = playback.len();
    if transforms.len() != n {
        return Err(RenderError::BadInput {
            what: "instance records (one per transform)",
            got: n,
            expected: transforms.len(),
        });
    }
    if n == 0 {
        return Ok(Vec::new());
    }
    let timing = playback.timing();
    let bgl = layouts::anchors_compute(device, timing);
    let pipeline = compute_pipeline(
        device,
        Program::AnchorsCompute { timing },
        &bgl,
        "cs_anchors",
    )?;
    let mut owned = None;
    let buffers = CrowdBuffers::for_playback(device, transforms, playback, &mut owned);
    let params = crate::passes::props::prop_params(device, asset, anchor, n as u32);
    let out_size = (n * std::mem::size_of::<AnchorAffine>()) as u64;
    let out_buf = output_buffer(device, out_size);
    let mut entries = crate::passes::props::anchor_entries(buffers, asset, &params);
    entries.push(wgpu::BindGroupEntry {
        binding: crate::bindings::ANCHORS_OUT,
        resource: out_buf.as_entire_binding(),
    });
    let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("throng anchors compute"),
        layout: &bgl,
        entries: &entries,
    });
    let bytes = run_and_read(gpu, &pipeline, &bind, n as u32, &out_buf, out_size)?;
    let out: Vec<AnchorAffine> = bytemuck::pod_collect_to_vec(&bytes);
    Ok(out.iter().map(AnchorAffine::to_mat4).collect())
}

/// A probe of [`far_on_gpu`]: where a card is read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FarProbe {
    /// Clip index into the tier's clips.
    pub clip: u32,
    /// Frame coordinate (`throng_asset::FarTier::frame_coordinate`).
    pub x: f32,
    /// Direction from the character towards the viewer, model space.
    pub toward: glam::Vec3,
    /// Point on the card, 0..1 from the top-left.
    pub uv: glam::Vec2,
    /// The appearance the card is seen in (its material variant and part mask count).
    pub look: throng_contract::Appearance,
}

/// What WGSL `throng::far::far_shown` gives at each probe of `tier` (`looped[c]`: clip c's
/// frames close on its first): the GPU twin of `throng_asset::FarTier::shown_at`.
pub fn far_on_gpu(
    gpu: &Gpu,
    tier: &throng_asset::FarTier,
    looped: &[bool],
    probes: &[FarProbe],
) -> Result<Vec<throng_asset::far_tier::FarTexel>, RenderError> {
    use throng_asset::gpu::far;
    let device = &gpu.device;
    if probes.is_empty() {
        return Ok(Vec::new());
    }
    let max = device.limits().max_texture_dimension_2d;
    let atlas = far::atlas(tier, max).map_err(|what| RenderError::BadAsset {
        asset: "far tier".into(),
        what,
    })?;
    let colour = crate::gpu_asset::far_texture(gpu, &atlas, &atlas.colour, "throng far colour");
    let surface = crate::gpu_asset::far_texture(gpu, &atlas, &atlas.surface, "throng far surface");
    let variants = crate::gpu_asset::far_variant_texture(gpu, &atlas);
    let init = |label: &str, contents: &[u8], usage| {
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents,
            usage,
        })
    };
    let params = init(
        "throng far params",
        bytemuck::bytes_of(&atlas.params),
        wgpu::BufferUsages::UNIFORM,
    );
    let clips = far::clip_words(tier, |c| looped.get(c).copied().unwrap_or(false));
    let clips = init(
        "throng far clips",
        bytemuck::cast_slice(&clips),
        wgpu::BufferUsages::STORAGE,
    );
    let words: Vec<[u32; 12]> = probes
        .iter()
        .map(|p| {
            let f = [
                p.toward.x,
                p.toward.y,
                p.toward.z,
                p.x,
                p.uv.x,
                p.uv.y,
                p.clip as f32,
                0.0,
            ]
            .map(f32::to_bits);
            let l = p.look.words();
            [
                f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], l[0], l[1], l[2], l[3],
            ]
        })
        .collect();
    let probe_buf = init(
        "throng far probes",
        bytemuck::cast_slice(&words),
        wgpu::BufferUsages::STORAGE,
    );
    let out_size = (probes.len() * 32) as u64;
    let out_buf = output_buffer(device, out_size);
    let bgl = layouts::far_compute(device);
    let pipeline = compute_pipeline(device, Program::FarCompute, &bgl, "cs_far")?;
    let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("throng far compute"),
        layout: &bgl,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(&colour),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::TextureView(&surface),
            },
            crate::bindings::buffer_entry(2, &params),
            crate::bindings::buffer_entry(3, &clips),
            crate::bindings::buffer_entry(4, &probe_buf),
            crate::bindings::buffer_entry(5, &out_buf),
            wgpu::BindGroupEntry {
                binding: 6,
                resource: wgpu::BindingResource::TextureView(&variants),
            },
        ],
    });
    let bytes = run_and_read(
        gpu,
        &pipeline,
        &bind,
        probes.len() as u32,
        &out_buf,
        out_size,
    )?;
    let v: Vec<[f32; 8]> = bytemuck::pod_collect_to_vec(&bytes);
    Ok(v.into_iter()
        .map(|w| throng_asset::far_tier::FarTexel {
            albedo: glam::Vec3::new(w[0], w[1], w[2]),
            coverage: w[3],
            normal: glam::Vec3::new(w[4], w[5], w[6]),
        })
        .collect())
}

/// One case of [`graph_time_on_gpu`] (26 words; the layout of `GraphTimeCase` in
/// `shaders/graph_time_compute.wgsl`): the inputs of every function of
/// `throng_contract::graph_time`'s WGSL twin but the clip events'.
pub type GraphTimeCase = [u32; 26];

/// What `cs_graph_time` gives for one case (24 words, `GraphTimeOut`).
pub type GraphTimeOut = [u32; 24];

/// One case of [`graph_events_on_gpu`] (16 words, `GraphEventCase`): an advance (four
/// words, lowest first), a distance (four), the start phase's fraction (two), the mark's low two
/// words, the start phase's whole cycles, an event cycle code, the mark's top word, fresh.
pub type GraphEventCase = [u32; 16];

/// What `cs_graph_events` gives for one case (24 words, `GraphEventOut`): per series (0, 1)
/// its first distance (four words), from, n, shift and the step fractions of its first and last
/// crossings kept; then `step_fraction(distance, advance)`; five unused words.
pub type GraphEventOut = [u32; 24];

/// Runs every function of WGSL `throng::graph_time` on each case and reads the results back:
/// the GPU side of `throng_contract::graph_time`'s twin test.
pub fn graph_time_on_gpu(
    gpu: &Gpu,
    cases: &[GraphTimeCase],
) -> Result<Vec<GraphTimeOut>, RenderError> {
    graph_time_entry(
        gpu,
        bytemuck::cast_slice(cases),
        cases.len(),
        "cs_graph_time",
    )
}

/// Runs WGSL `throng::graph_time`'s clip event rule (`event_series`, `step_fraction`) on each
/// case and reads the results back: the GPU side of its twin test.
pub fn graph_events_on_gpu(
    gpu: &Gpu,
    cases: &[GraphEventCase],
) -> Result<Vec<GraphEventOut>, RenderError> {
    graph_time_entry(
        gpu,
        bytemuck::cast_slice(cases),
        cases.len(),
        "cs_graph_events",
    )
}

/// Runs entry point `entry` of `shaders/graph_time_compute.wgsl` on `len` cases of `words`;
/// every output is 24 words.
fn graph_time_entry(
    gpu: &Gpu,
    words: &[u32],
    len: usize,
    entry: &str,
) -> Result<Vec<[u32; 24]>, RenderError> {
    let device = &gpu.device;
    if len == 0 {
        return Ok(Vec::new());
    }
    let input = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("throng graph time cases"),
        contents: bytemuck::cast_slice(words),
        usage: wgpu::BufferUsages::STORAGE,
    });
    let out_size = std::mem::size_of::<[u32; 24]>() as u64 * len as u64;
    let out_buf = output_buffer(device, out_size);
    let bgl = layouts::graph_time_compute(device);
    let pipeline = compute_pipeline(device, Program::GraphTimeCompute, &bgl, entry)?;
    let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("throng graph time compute"),
        layout: &bgl,
        entries: &[
            crate::bindings::buffer_entry(0, &input),
            crate::bindings::buffer_entry(1, &out_buf),
        ],
    });
    let bytes = run_and_read(gpu, &pipeline, &bind, len as u32, &out_buf, out_size)?;
    Ok(bytemuck::pod_collect_to_vec(&bytes))
}
