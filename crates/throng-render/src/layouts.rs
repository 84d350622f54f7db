//! Bind group layouts of the skinning programs (bindings as declared in resources.wgsl,
//! bones_*.wgsl, frame.wgsl, mesh_fs.wgsl and cs_skin.wgsl).

use throng_asset::Encoding;

use crate::gpu_asset::bone_sample_type;

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

/// Bindings 0–4: bone texture, bone params, clip table, instance transforms, instance records.
fn skin_entries(encoding: Encoding, vis: wgpu::ShaderStages) -> Vec<wgpu::BindGroupLayoutEntry> {
    vec![
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
    ]
}

/// Group 0 of the texture draw: skin bindings 0–4 plus the frame uniform (5).
pub fn texture_draw(device: &wgpu::Device, encoding: Encoding) -> wgpu::BindGroupLayout {
    let vis = wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT;
    let mut e = skin_entries(encoding, vis);
    e.push(uniform(5, vis));
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("throng texture draw"),
        entries: &e,
    })
}

/// Group 0 of the compute skinning job: skin bindings 0–4, inputs (6), outputs (7), job (8).
pub fn skin_compute(device: &wgpu::Device, encoding: Encoding) -> wgpu::BindGroupLayout {
    let vis = wgpu::ShaderStages::COMPUTE;
    let mut e = skin_entries(encoding, vis);
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

/// Group 1 of every mesh draw: the material uniform.
pub fn material(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("throng material"),
        entries: &[uniform(
            0,
            wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT,
        )],
    })
}

pub fn shader_module(device: &wgpu::Device, label: &str, source: String) -> wgpu::ShaderModule {
    device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(label),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    })
}
