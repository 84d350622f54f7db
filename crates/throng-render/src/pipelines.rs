//! A composed program on the device: its shader module (handed over as naga IR, no second WGSL
//! parse) and, for the compute programs, a pipeline over one bind group.

use crate::error::RenderError;
use crate::shaders::{compose, Program, ShaderError};

/// The device's shader module of a composed program.
pub fn shader_module(
    device: &wgpu::Device,
    program: Program,
) -> Result<wgpu::ShaderModule, ShaderError> {
    let module = compose(program)?;
    Ok(device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(&program.name()),
        source: wgpu::ShaderSource::Naga(std::borrow::Cow::Owned(module)),
    }))
}

/// The compute pipeline of `program`'s `entry` over the one bind group of layout `bgl`.
pub(crate) fn compute_pipeline(
    device: &wgpu::Device,
    program: Program,
    bgl: &wgpu::BindGroupLayout,
    entry: &str,
) -> Result<wgpu::ComputePipeline, RenderError> {
    let module = shader_module(device, program)?;
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(entry),
        bind_group_layouts: &[Some(bgl)],
        immediate_size: 0,
    });
    Ok(
        device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(entry),
            layout: Some(&layout),
            module: &module,
            entry_point: Some(entry),
            compilation_options: Default::default(),
            cache: None,
        }),
    )
}
