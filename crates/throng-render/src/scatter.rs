//! GPU-timed uploads that follow changes (docs/design.md §5 "Uploads"): a frame's changed
//! records arrive as one sequential list of [`GpuRecordWrite`]s (`GpuRuntime::record_writes`)
//! and `shaders/record_scatter.wgsl` writes each into the crowd's record buffer — the CPU
//! never writes into a mirror of every record, and the upload is as long as the changes.

use crate::bindings as b;
use crate::error::RenderError;
use crate::shaders::Program;
use throng_contract::GpuRecordWrite;

/// `ScatterParams` of `shaders/record_scatter.wgsl`.
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct ScatterParams {
    pub count: u32,
    pub len: u32,
    pub _pad: [u32; 2],
}

/// Workgroups per dimension the scatter uses at most (WebGPU's default limit is 65,535).
const MAX_GROUPS_X: u32 = 65_535;

/// The scatter program and the buffer its writes go through, made on first use.
pub(crate) struct Scatter {
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
    writes: wgpu::Buffer,
    /// Writes the buffer holds.
    capacity: usize,
    params: wgpu::Buffer,
}

impl Scatter {
    pub fn new(device: &wgpu::Device) -> Result<Scatter, RenderError> {
        let layout = crate::layouts::record_scatter(device);
        let pipeline = crate::pipelines::compute_pipeline(
            device,
            Program::RecordScatter,
            &layout,
            "cs_scatter",
        )?;
        let params = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("throng scatter params"),
            size: std::mem::size_of::<ScatterParams>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Ok(Scatter {
            pipeline,
            layout,
            writes: writes_buffer(device, 1),
            capacity: 1,
            params,
        })
    }

    /// Uploads `writes` and scatters them into `records` (a crowd of `len` records); returns
    /// the bytes uploaded. Submitted at once, so draws submitted after it see the records.
    pub fn run(
        &mut self,
        gpu: &crate::Gpu,
        records: &wgpu::Buffer,
        len: usize,
        writes: &[GpuRecordWrite],
    ) -> Result<u64, RenderError> {
        if writes.is_empty() {
            return Ok(0);
        }
        let device = &gpu.device;
        let limit = device.limits().max_storage_buffer_binding_size;
        let bytes = std::mem::size_of_val(writes) as u64;
        if bytes > limit {
            return Err(RenderError::BadInput {
                what: "record writes in one update (within the device's storage-buffer limit)",
                got: writes.len(),
                expected: (limit / std::mem::size_of::<GpuRecordWrite>() as u64) as usize,
            });
        }
        if writes.len() > self.capacity {
            self.capacity = writes.len().next_power_of_two();
            self.writes = writes_buffer(device, self.capacity);
        }
        gpu.queue
            .write_buffer(&self.writes, 0, bytemuck::cast_slice(writes));
        let p = ScatterParams {
            count: writes.len() as u32,
            len: len as u32,
            _pad: [0; 2],
        };
        gpu.queue
            .write_buffer(&self.params, 0, bytemuck::bytes_of(&p));
        let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("throng record scatter"),
            layout: &self.layout,
            entries: &[
                b::buffer_entry(b::RECORD_WRITES, &self.writes),
                b::buffer_entry(b::GPU_RECORDS, records),
                b::buffer_entry(b::SCATTER_PARAMS, &self.params),
            ],
        });
        let groups = (writes.len() as u32).div_ceil(64);
        let (x, y) = (groups.min(MAX_GROUPS_X), groups.div_ceil(MAX_GROUPS_X));
        let mut enc = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("throng record scatter"),
        });
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("throng record scatter"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(b::group::SKIN, &bind, &[]);
            pass.dispatch_workgroups(x, y, 1);
        }
        gpu.queue.submit([enc.finish()]);
        Ok(bytes + std::mem::size_of::<ScatterParams>() as u64)
    }
}

fn writes_buffer(device: &wgpu::Device, n: usize) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("throng record writes"),
        size: (n * std::mem::size_of::<GpuRecordWrite>()) as u64,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}
