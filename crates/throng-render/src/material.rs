//! Materials: base colour factor (linear), base colour texture (sRGB, sampled with linear
//! filtering and repeat addressing, no mipmaps), KHR_texture_transform. Untextured materials
//! sample a 1×1 white texture so every mesh uses one pipeline.

use wgpu::util::DeviceExt;

use crate::gpu_types::MaterialUniform;

/// Decodes an embedded PNG/JPEG image to an sRGB texture.
pub fn upload_image(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    bytes: &[u8],
) -> Result<wgpu::Texture, image::ImageError> {
    let img = image::load_from_memory(bytes)?.to_rgba8();
    Ok(rgba_texture(
        device,
        queue,
        img.width(),
        img.height(),
        img.as_raw(),
    ))
}

fn rgba_texture(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    width: u32,
    height: u32,
    pixels: &[u8],
) -> wgpu::Texture {
    device.create_texture_with_data(
        queue,
        &crate::target::texture_2d(
            "throng base colour",
            (width, height),
            wgpu::TextureFormat::Rgba8UnormSrgb,
            wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        ),
        wgpu::util::TextureDataOrder::LayerMajor,
        pixels,
    )
}

/// The material bind group layout (group 1) with its sampler and the white fallback texture.
pub struct MaterialResources {
    pub bgl: wgpu::BindGroupLayout,
    sampler: wgpu::Sampler,
    white: wgpu::TextureView,
}

impl MaterialResources {
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> MaterialResources {
        let vis = wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT;
        let bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("throng material"),
            entries: &[
                crate::layouts::uniform(crate::bindings::MATERIAL, vis),
                wgpu::BindGroupLayoutEntry {
                    binding: crate::bindings::BASE_TEXTURE,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: true },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: crate::bindings::BASE_SAMPLER,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
            ],
        });
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("throng base colour sampler"),
            address_mode_u: wgpu::AddressMode::Repeat,
            address_mode_v: wgpu::AddressMode::Repeat,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        let white = rgba_texture(device, queue, 1, 1, &[255; 4]).create_view(&Default::default());
        MaterialResources {
            bgl,
            sampler,
            white,
        }
    }

    /// Bind group of one material (`texture` None: white).
    pub fn group(
        &self,
        device: &wgpu::Device,
        uniform: &MaterialUniform,
        texture: Option<&wgpu::TextureView>,
    ) -> wgpu::BindGroup {
        let buf = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("throng material"),
            contents: bytemuck::bytes_of(uniform),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("throng material"),
            layout: &self.bgl,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: crate::bindings::MATERIAL,
                    resource: buf.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: crate::bindings::BASE_TEXTURE,
                    resource: wgpu::BindingResource::TextureView(texture.unwrap_or(&self.white)),
                },
                wgpu::BindGroupEntry {
                    binding: crate::bindings::BASE_SAMPLER,
                    resource: wgpu::BindingResource::Sampler(&self.sampler),
                },
            ],
        })
    }
}
