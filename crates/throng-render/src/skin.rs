//! Compute twin of the texture path: runs the shaders' own `skin_vertex()` over chosen vertices
//! and instances and reads the model-space results back. Used by the numerical tests against
//! throng-asset's CPU decoder, and by tools that want GPU-skinned vertices.

use wgpu::util::DeviceExt;

use crate::device::Gpu;
use crate::error::RenderError;
use crate::gpu_asset::GpuAsset;
use crate::gpu_types::{InstanceTransform, LayerRecord, SkinInput, SkinJob, SkinOutput};
use crate::layouts;
use crate::shaders::{compose, Program, Skinning};

/// Skins every vertex of `inputs` for every record of `records` on the GPU; result index =
/// instance · inputs.len() + vertex. Positions and normals are in model space (file units).
pub fn skin_on_gpu(
    gpu: &Gpu,
    asset: &GpuAsset,
    inputs: &[SkinInput],
    records: &[LayerRecord],
    skinning: Skinning,
) -> Result<Vec<SkinOutput>, RenderError> {
    let device = &gpu.device;
    let total = inputs.len() * records.len();
    if total == 0 {
        return Ok(Vec::new());
    }
    let program = Program::SkinCompute {
        encoding: asset.encoding,
        skinning,
    };
    let module = layouts::shader_module(device, "throng skin compute", compose(program)?);
    let bgl = layouts::skin_compute(device, asset.encoding);
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("throng skin compute"),
        bind_group_layouts: &[Some(&bgl)],
        immediate_size: 0,
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("throng skin compute"),
        layout: Some(&layout),
        module: &module,
        entry_point: Some("cs_skin"),
        compilation_options: Default::default(),
        cache: None,
    });
    let init = |label, contents: &[u8], usage| {
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents,
            usage,
        })
    };
    let transforms = vec![InstanceTransform::IDENTITY; records.len()];
    let transforms_buf = init(
        "throng transforms",
        bytemuck::cast_slice(&transforms),
        wgpu::BufferUsages::STORAGE,
    );
    let records_buf = init(
        "throng records",
        bytemuck::cast_slice(records),
        wgpu::BufferUsages::STORAGE,
    );
    let inputs_buf = init(
        "throng skin inputs",
        bytemuck::cast_slice(inputs),
        wgpu::BufferUsages::STORAGE,
    );
    let job = SkinJob {
        vertex_count: inputs.len() as u32,
        instance_count: records.len() as u32,
        _pad: [0; 2],
    };
    let job_buf = init(
        "throng skin job",
        bytemuck::bytes_of(&job),
        wgpu::BufferUsages::UNIFORM,
    );
    let out_size = (total * std::mem::size_of::<SkinOutput>()) as u64;
    let out_buf = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("throng skin outputs"),
        size: out_size,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let read_buf = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("throng skin readback"),
        size: out_size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("throng skin compute"),
        layout: &bgl,
        entries: &[
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
                resource: transforms_buf.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 4,
                resource: records_buf.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 6,
                resource: inputs_buf.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 7,
                resource: out_buf.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 8,
                resource: job_buf.as_entire_binding(),
            },
        ],
    });
    let mut enc = device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind, &[]);
        pass.dispatch_workgroups((total as u32).div_ceil(64), 1, 1);
    }
    enc.copy_buffer_to_buffer(&out_buf, 0, &read_buf, 0, out_size);
    gpu.queue.submit([enc.finish()]);
    let bytes = crate::readback::map_read(gpu, &read_buf)?;
    Ok(bytemuck::pod_collect_to_vec(&bytes))
}
