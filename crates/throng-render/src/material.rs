//! Materials: base colour factor (linear), base colour texture (sRGB, sampled with linear
//! filtering and repeat addressing, no mipmaps), KHR_texture_transform, in slots per draw (the
//! own material and the asset's material variants, [`MaterialSet`]). Base colour textures are
//! 2D arrays, one layer per distinct image of a draw's slots (resampled to one size), so one
//! draw serves every variant. Untextured materials sample a white layer so every mesh uses one
//! pipeline.

use wgpu::util::DeviceExt;

use crate::gpu_types::MaterialSet;

/// Decodes an embedded PNG/JPEG image to an sRGB texture array of one layer (its `D2Array`
/// view).
pub fn upload_image(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    bytes: &[u8],
) -> Result<wgpu::TextureView, image::ImageError> {
    let img = image::load_from_memory(bytes)?.to_rgba8();
    Ok(layered_texture(device, queue, &[img]))
}

/// An sRGB 2D array texture of `images` (one layer each, resampled to the first's size; at
/// least one layer) and its `D2Array` view. On GL a one-layer array gets a second (see
/// [`crate::upload::array_layers`]).
pub(crate) fn layered_texture(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    images: &[image::RgbaImage],
) -> wgpu::TextureView {
    let white = image::RgbaImage::from_pixel(1, 1, image::Rgba([255; 4]));
    let first = images.first().unwrap_or(&white);
    let (w, h) = first.dimensions();
    let layers =
        crate::upload::array_layers(images.len().max(1) as u32, device.adapter_info().backend);
    let mut pixels = Vec::with_capacity((w * h * 4 * layers) as usize);
    for l in 0..layers as usize {
        let img = images.get(l).unwrap_or(first);
        if img.dimensions() == (w, h) {
            pixels.extend_from_slice(img.as_raw());
        } else {
            let r = image::imageops::resize(img, w, h, image::imageops::FilterType::Triangle);
            pixels.extend_from_slice(r.as_raw());
        }
    }
    let texture = device.create_texture_with_data(
        queue,
        &wgpu::TextureDescriptor {
            label: Some("throng base colour"),
            size: wgpu::Extent3d {
                width: w,
                height: h,
                depth_or_array_layers: layers,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba8UnormSrgb,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        },
        wgpu::util::TextureDataOrder::LayerMajor,
        &pixels,
    );
    texture.create_view(&wgpu::TextureViewDescriptor {
        dimension: Some(wgpu::TextureViewDimension::D2Array),
        ..Default::default()
    })
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
                        view_dimension: wgpu::TextureViewDimension::D2Array,
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
        let white = layered_texture(device, queue, &[]);
        MaterialResources {
            bgl,
            sampler,
            white,
        }
    }

    /// Bind group of one draw's material slots (`texture`: the slots' `D2Array` view; None:
    /// white).
    pub fn group(
        &self,
        device: &wgpu::Device,
        uniform: &MaterialSet,
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
