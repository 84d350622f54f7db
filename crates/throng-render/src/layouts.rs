//! Bind group layouts of the programs, with the binding numbers of [`crate::bindings`] (the
//! WGSL reads the same numbers as shader defs).
//!
//! Each layout is written as the list of its bindings; the runs several programs share (what the
//! time rules read, a crowd's instances, a crowd draw's frame and visible ids) are one function
//! each, so a program's layout and its WGSL can be read side by side.

use throng_asset::Encoding;

use crate::bindings as b;
use crate::formats::sample_type;
use throng_asset::gpu::TexelFormat;
use throng_contract::Timing;

/// Vertex and fragment stages: what a draw's bindings are visible to.
const DRAW: wgpu::ShaderStages = wgpu::ShaderStages::VERTEX_FRAGMENT;
const COMPUTE: wgpu::ShaderStages = wgpu::ShaderStages::COMPUTE;
const VERTEX: wgpu::ShaderStages = wgpu::ShaderStages::VERTEX;

fn layout(
    device: &wgpu::Device,
    label: &str,
    entries: &[wgpu::BindGroupLayoutEntry],
) -> wgpu::BindGroupLayout {
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries,
    })
}

fn entry(
    binding: u32,
    vis: wgpu::ShaderStages,
    ty: wgpu::BindingType,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: vis,
        ty,
        count: None,
    }
}

fn buffer(
    binding: u32,
    vis: wgpu::ShaderStages,
    ty: wgpu::BufferBindingType,
) -> wgpu::BindGroupLayoutEntry {
    let ty = wgpu::BindingType::Buffer {
        ty,
        has_dynamic_offset: false,
        min_binding_size: None,
    };
    entry(binding, vis, ty)
}

fn storage(binding: u32, vis: wgpu::ShaderStages, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    buffer(binding, vis, wgpu::BufferBindingType::Storage { read_only })
}

pub(crate) fn uniform(binding: u32, vis: wgpu::ShaderStages) -> wgpu::BindGroupLayoutEntry {
    buffer(binding, vis, wgpu::BufferBindingType::Uniform)
}

/// A uniform read at a dynamic offset (one slot per dispatch or draw).
fn dynamic_uniform(
    binding: u32,
    vis: wgpu::ShaderStages,
    min_binding_size: Option<wgpu::BufferSize>,
) -> wgpu::BindGroupLayoutEntry {
    let ty = wgpu::BindingType::Buffer {
        ty: wgpu::BufferBindingType::Uniform,
        has_dynamic_offset: true,
        min_binding_size,
    };
    entry(binding, vis, ty)
}

fn texture(
    binding: u32,
    vis: wgpu::ShaderStages,
    sample_type: wgpu::TextureSampleType,
    view_dimension: wgpu::TextureViewDimension,
) -> wgpu::BindGroupLayoutEntry {
    let ty = wgpu::BindingType::Texture {
        sample_type,
        view_dimension,
        multisampled: false,
    };
    entry(binding, vis, ty)
}

/// The bone texture of an encoding (a 2D array of its texel format).
fn bone_texture(encoding: Encoding, vis: wgpu::ShaderStages) -> wgpu::BindGroupLayoutEntry {
    let sample = sample_type(TexelFormat::bone(encoding));
    texture(
        b::BONE_TEXTURE,
        vis,
        sample,
        wgpu::TextureViewDimension::D2Array,
    )
}

/// An Rgba32Uint data texture of the downlevel mode read with `textureLoad`.
fn data_texture(binding: u32, vis: wgpu::ShaderStages) -> wgpu::BindGroupLayoutEntry {
    let uint = wgpu::TextureSampleType::Uint;
    texture(binding, vis, uint, wgpu::TextureViewDimension::D2)
}

/// What the time rules read: bone params, the clip table and its frame-time lists, the
/// playback records of a timing (CPU- or GPU-timed) and (GPU-timed) the clock.
fn timing_entries(timing: Timing, vis: wgpu::ShaderStages) -> Vec<wgpu::BindGroupLayoutEntry> {
    let mut e = vec![
        uniform(b::BONE_PARAMS, vis),
        storage(b::CLIPS, vis, true),
        storage(b::FRAME_TIMES, vis, true),
    ];
    match timing {
        Timing::Cpu => e.push(storage(b::CPU_RECORDS, vis, true)),
        Timing::Gpu => e.extend([storage(b::GPU_RECORDS, vis, true), uniform(b::CLOCK, vis)]),
    }
    e
}

/// A crowd's instances: [`timing_entries`] and the instance transforms.
fn instance_entries(timing: Timing, vis: wgpu::ShaderStages) -> Vec<wgpu::BindGroupLayoutEntry> {
    let mut e = timing_entries(timing, vis);
    e.push(storage(b::INSTANCE_TRANSFORMS, vis, true));
    e
}

/// What every crowd draw reads: [`instance_entries`], the frame uniform and (culled) the
/// visible ids.
fn crowd_draw_entries(timing: Timing, culled: bool) -> Vec<wgpu::BindGroupLayoutEntry> {
    let mut e = instance_entries(timing, DRAW);
    e.push(uniform(b::FRAME, DRAW));
    if culled {
        e.push(storage(b::VISIBLE_IDS, VERTEX, true));
    }
    e
}

/// Group 0 of the record scatter (GPU-timed uploads): the writes, the records it writes and
/// its parameters.
pub fn record_scatter(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    let entries = [
        storage(b::RECORD_WRITES, COMPUTE, true),
        storage(b::GPU_RECORDS, COMPUTE, false),
        uniform(b::SCATTER_PARAMS, COMPUTE),
    ];
    layout(device, "throng record scatter", &entries)
}

/// Group 0 of the texture draw: the bone texture and [`crowd_draw_entries`].
pub fn texture_draw(
    device: &wgpu::Device,
    encoding: Encoding,
    timing: Timing,
    culled: bool,
) -> wgpu::BindGroupLayout {
    let mut e = vec![bone_texture(encoding, DRAW)];
    e.extend(crowd_draw_entries(timing, culled));
    layout(device, "throng texture draw", &e)
}

/// Group 0 of the palette draw (docs/design.md §5): [`crowd_draw_entries`] (bone params for
/// the palette's size, clips and records for the debug views) and the palette; with `motion`,
/// also the previous frame's palette and transforms.
pub fn palette_draw(
    device: &wgpu::Device,
    timing: Timing,
    culled: bool,
    motion: bool,
) -> wgpu::BindGroupLayout {
    let mut e = crowd_draw_entries(timing, culled);
    e.push(storage(b::PALETTE, VERTEX, true));
    if motion {
        e.push(storage(b::PREV_PALETTE, VERTEX, true));
        e.push(storage(b::PREV_TRANSFORMS, VERTEX, true));
    }
    layout(device, "throng palette draw", &e)
}

/// Group 0 of the VAT draw: [`crowd_draw_entries`] (the VAT path reads no bone texture).
pub fn vat_draw(device: &wgpu::Device, timing: Timing, culled: bool) -> wgpu::BindGroupLayout {
    let e = crowd_draw_entries(timing, culled);
    layout(device, "throng vat draw", &e)
}

/// Group 0 of the palette pass: the bone texture, [`instance_entries`], the job, the palette it
/// writes, the layer masks and (culled) the visible ids and the argument buffer's words.
pub fn palette_compute(
    device: &wgpu::Device,
    encoding: Encoding,
    timing: Timing,
    culled: bool,
) -> wgpu::BindGroupLayout {
    let mut e = vec![bone_texture(encoding, COMPUTE)];
    e.extend(instance_entries(timing, COMPUTE));
    e.extend([
        uniform(b::PALETTE_JOB, COMPUTE),
        storage(b::PALETTE, COMPUTE, false),
        storage(b::MASKS, COMPUTE, true),
    ]);
    if culled {
        e.push(storage(b::VISIBLE_IDS, COMPUTE, true));
        e.push(storage(b::PALETTE_COUNT, COMPUTE, true));
    }
    layout(device, "throng palette compute", &e)
}

/// Group 0 of the compute skinning job: the bone texture, [`instance_entries`], inputs, outputs
/// and the job.
pub fn skin_compute(
    device: &wgpu::Device,
    encoding: Encoding,
    timing: Timing,
) -> wgpu::BindGroupLayout {
    let mut e = vec![bone_texture(encoding, COMPUTE)];
    e.extend(instance_entries(timing, COMPUTE));
    e.extend([
        storage(b::SKIN_INPUTS, COMPUTE, true),
        storage(b::SKIN_OUTPUTS, COMPUTE, false),
        uniform(b::SKIN_JOB, COMPUTE),
    ]);
    layout(device, "throng skin compute", &e)
}

/// Group 0 of the reference draw and the ground: instance transforms and the frame uniform.
pub fn reference_draw(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    let entries = [
        storage(b::INSTANCE_TRANSFORMS, DRAW, true),
        uniform(b::FRAME, DRAW),
    ];
    layout(device, "throng reference draw", &entries)
}

/// Group 0 of the downlevel mode's draws (docs/downlevel.md; no storage buffer): with
/// `encoding` (the texture path) the bone texture, the bone params, the clip table's and the
/// instances' data textures and the frame uniform.
pub fn downlevel_draw(device: &wgpu::Device, encoding: Option<Encoding>) -> wgpu::BindGroupLayout {
    layout(
        device,
        "throng downlevel draw",
        &downlevel_entries(encoding),
    )
}

/// The entries of [`downlevel_draw`].
fn downlevel_entries(encoding: Option<Encoding>) -> Vec<wgpu::BindGroupLayoutEntry> {
    let mut e = vec![
        uniform(b::BONE_PARAMS, DRAW),
        data_texture(b::CLIPS, DRAW),
        data_texture(b::INSTANCE_TRANSFORMS, DRAW),
        uniform(b::FRAME, DRAW),
    ];
    e.extend(encoding.map(|encoding| bone_texture(encoding, DRAW)));
    e
}

/// Group 0 of the reference draw and the ground on a device without storage buffers in the
/// vertex stage: the transforms' data texture and the frame uniform.
pub fn reference_draw_downlevel(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    let entries = [
        data_texture(b::INSTANCE_TRANSFORMS, DRAW),
        uniform(b::FRAME, DRAW),
    ];
    layout(device, "throng reference draw (downlevel)", &entries)
}

/// Group 0 of the layers job: [`timing_entries`] and the output.
pub fn layers_compute(device: &wgpu::Device, timing: Timing) -> wgpu::BindGroupLayout {
    let mut e = timing_entries(timing, COMPUTE);
    e.push(storage(b::LAYERS_OUT, COMPUTE, false));
    layout(device, "throng layers compute", &e)
}

/// Group 0 of the culling job: [`instance_entries`], the cull params, the visible ids, the draw
/// arguments, the rows' bounds and (occlusion) the boxes kept for the second phase.
pub fn cull_compute(
    device: &wgpu::Device,
    timing: Timing,
    occlusion: bool,
) -> wgpu::BindGroupLayout {
    let mut e = instance_entries(timing, COMPUTE);
    e.extend([
        uniform(b::CULL_PARAMS, COMPUTE),
        storage(b::VISIBLE_IDS, COMPUTE, false),
        storage(b::DRAW_ARGS, COMPUTE, false),
        storage(b::ROW_BOUNDS, COMPUTE, true),
    ]);
    if occlusion {
        e.push(storage(b::CULL_BOXES, COMPUTE, false));
    }
    layout(device, "throng cull", &e)
}

/// Group 0 of occlusion culling's second phase: the culling parameters, lists and arguments,
/// the boxes the culling pass kept, the depth pyramid.
pub fn occlusion_compute(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    let entries = [
        uniform(b::CULL_PARAMS, COMPUTE),
        storage(b::VISIBLE_IDS, COMPUTE, false),
        storage(b::DRAW_ARGS, COMPUTE, false),
        storage(b::CULL_BOXES, COMPUTE, false),
        uniform(b::PYRAMID_PARAMS, COMPUTE),
        storage(b::PYRAMID, COMPUTE, true),
    ];
    layout(device, "throng occlusion", &entries)
}

/// Group 0 of the depth pyramid's build: its parameters, the level of a dispatch (dynamic
/// offset), the main pass's depth and the pyramid.
pub fn depth_pyramid(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    // A depth texture bound as unfilterable floats (read with textureLoad).
    let depth = wgpu::TextureSampleType::Float { filterable: false };
    let entries = [
        uniform(b::PYRAMID_PARAMS, COMPUTE),
        dynamic_uniform(b::PYRAMID_STEP, COMPUTE, None),
        texture(
            b::PYRAMID_DEPTH,
            COMPUTE,
            depth,
            wgpu::TextureViewDimension::D2,
        ),
        storage(b::PYRAMID, COMPUTE, false),
    ];
    layout(device, "throng depth pyramid", &entries)
}

/// What placing a prop reads: [`instance_entries`] (the rows a layer shows, the transforms),
/// the anchors and the prop's parameters.
fn anchor_entries(timing: Timing, vis: wgpu::ShaderStages) -> Vec<wgpu::BindGroupLayoutEntry> {
    let mut e = instance_entries(timing, vis);
    e.push(storage(b::ANCHORS, vis, true));
    e.push(uniform(b::PROP_PARAMS, vis));
    e
}

/// Group 0 of the prop draw: [`anchor_entries`] and the frame uniform.
pub fn prop_draw(device: &wgpu::Device, timing: Timing) -> wgpu::BindGroupLayout {
    let mut e = anchor_entries(timing, DRAW);
    e.push(uniform(b::FRAME, DRAW));
    layout(device, "throng prop draw", &e)
}

/// Group 0 of the anchors job: [`anchor_entries`] and the output.
pub fn anchors_compute(device: &wgpu::Device, timing: Timing) -> wgpu::BindGroupLayout {
    let mut e = anchor_entries(timing, COMPUTE);
    e.push(storage(b::ANCHORS_OUT, COMPUTE, false));
    layout(device, "throng anchors compute", &e)
}

/// Group 2 of the VAT draw: VAT params, float positions, unorm16 positions, octahedral normals.
pub fn vat_textures(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    let tex = |binding, sample_type| {
        texture(
            binding,
            VERTEX,
            sample_type,
            wgpu::TextureViewDimension::D2Array,
        )
    };
    let float = wgpu::TextureSampleType::Float { filterable: false };
    let entries = [
        uniform(b::VAT_PARAMS, VERTEX),
        tex(b::VAT_POSITIONS_FLOAT, float),
        tex(b::VAT_POSITIONS_UINT, wgpu::TextureSampleType::Uint),
        tex(b::VAT_NORMALS, wgpu::TextureSampleType::Sint),
    ];
    layout(device, "throng vat textures", &entries)
}

/// Group 3 of every mesh draw: the per-draw uniform (dynamic offset) and the appearances; the
/// main pass adds the shadow map and its comparison sampler (both stages).
pub fn draw_params(device: &wgpu::Device, main_pass: bool) -> wgpu::BindGroupLayout {
    let params_size = std::mem::size_of::<crate::gpu_types::DrawParams>() as u64;
    let mut e = vec![
        dynamic_uniform(b::DRAW_PARAMS, DRAW, wgpu::BufferSize::new(params_size)),
        data_texture(b::APPEARANCES, VERTEX),
    ];
    if main_pass {
        // Both stages: the far tier's one-pixel cards are lit in the vertex stage.
        let (depth, d2) = (
            wgpu::TextureSampleType::Depth,
            wgpu::TextureViewDimension::D2,
        );
        let comparison = wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Comparison);
        e.push(texture(b::SHADOW_MAP, DRAW, depth, d2));
        e.push(entry(b::SHADOW_SAMPLER, DRAW, comparison));
    }
    let label = if main_pass {
        "throng draw params + shadow map"
    } else {
        "throng draw params"
    };
    layout(device, label, &e)
}

/// The far tier's compute twin ([`crate::shaders::Program::FarCompute`]): the two atlases, the
/// parameters, the clips, the probes, the output and the variants' colour maps.
pub(crate) fn far_compute(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    let float = wgpu::TextureSampleType::Float { filterable: false };
    let d2 = wgpu::TextureViewDimension::D2;
    layout(
        device,
        "throng far compute",
        &[
            texture(0, COMPUTE, float, d2),
            texture(1, COMPUTE, float, d2),
            uniform(2, COMPUTE),
            storage(3, COMPUTE, true),
            storage(4, COMPUTE, true),
            storage(5, COMPUTE, false),
            texture(6, COMPUTE, float, d2),
        ],
    )
}

/// The graph time's compute twin ([`crate::shaders::Program::GraphTimeCompute`]): the cases and
/// the output.
pub(crate) fn graph_time_compute(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    layout(
        device,
        "throng graph time compute",
        &[storage(0, COMPUTE, true), storage(1, COMPUTE, false)],
    )
}

/// The graph step ([`crate::shaders::Program::GraphStep`]): its parameters, the graph's
/// tables, the machines, the parameter values, the changes, the events, the clip table, the
/// records and the clip table's frame-time lists.
pub(crate) fn graph_step(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    layout(
        device,
        "throng graph step",
        &[
            uniform(0, COMPUTE),
            storage(1, COMPUTE, true),
            storage(2, COMPUTE, false),
            storage(3, COMPUTE, false),
            storage(4, COMPUTE, true),
            storage(5, COMPUTE, false),
            storage(6, COMPUTE, true),
            storage(7, COMPUTE, false),
            storage(b::FRAME_TIMES, COMPUTE, true),
        ],
    )
}

/// Group 0 of the far draw: [`crowd_draw_entries`] (culled) and the far tier: its two atlases,
/// parameters, clips, row coordinates, variants' colour maps and tile rects. Its vertex stage
/// binds 8 storage buffers, all the full mode asks of a device (`wgpu::Limits::default`); one
/// more table must share a buffer, as the downlevel mode's clip table holds the rects.
pub fn far_draw(device: &wgpu::Device, timing: Timing) -> wgpu::BindGroupLayout {
    let mut e = crowd_draw_entries(timing, true);
    e.extend(far_entries([
        storage(b::FAR_CLIPS, VERTEX, true),
        storage(b::FAR_ROWS, VERTEX, true),
    ]));
    e.push(storage(b::FAR_RECTS, VERTEX, true));
    layout(device, "throng far draw", &e)
}

/// Group 0 of the downlevel mode's far draw: [`downlevel_draw`]'s without a bone texture and
/// the far tier, its clips and row coordinates as data textures.
pub fn far_draw_downlevel(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    let mut e = downlevel_entries(None);
    e.extend(far_entries([
        data_texture(b::FAR_CLIPS, VERTEX),
        data_texture(b::FAR_ROWS, VERTEX),
    ]));
    layout(device, "throng far draw (downlevel)", &e)
}

/// The far tier's entries of a far draw's group 0, its clips and row coordinates as `tables`.
fn far_entries(tables: [wgpu::BindGroupLayoutEntry; 2]) -> Vec<wgpu::BindGroupLayoutEntry> {
    let float = wgpu::TextureSampleType::Float { filterable: false };
    let d2 = wgpu::TextureViewDimension::D2;
    let mut e = vec![
        texture(b::FAR_COLOUR, DRAW, float, d2),
        texture(b::FAR_SURFACE, DRAW, float, d2),
        uniform(b::FAR_PARAMS, DRAW),
        texture(b::FAR_VARIANTS, DRAW, float, d2),
    ];
    e.extend(tables);
    e
}
