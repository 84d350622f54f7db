//! Material variants in Bevy (docs/design.md §4 "Appearance"): per primitive, its material
//! slots — slot 0 its own material, slot v the asset's variant v − 1's — as one
//! `MaterialSet` uniform (bound at [`bindings::MATERIALS`]) and the slots' base colour images
//! as the layers of one texture array (at [`bindings::BASE_COLOR_LAYERS`]), so an instance's
//! variant is a number the vertex stage turns into a slot (`throng::material::variant_slot`,
//! handed on as a flat varying) and the fragment stage indexes by, not another draw or
//! pipeline.
//!
//! Which material and image each slot uses is throng-asset's rule
//! ([`throng_asset::gpu::material::material_slots`]), the one throng-render uploads too. The
//! array is made here as throng-render makes its own: images decoded from the baked file,
//! every layer resampled (triangle filter) to the first layer's size, an untextured slot a
//! white layer, `Rgba8UnormSrgb`, sampled with linear filtering and repeat addressing, no
//! mipmaps; one array per distinct list of images, shared between primitives. Arrays have at
//! least 2 layers (wgpu's GL backend binds a 1-layer texture as plain 2D). A primitive whose
//! slots use no image samples a 1×1 white array (the asset's one).

use std::collections::HashMap;

use bevy::render::render_resource::{
    AddressMode, Buffer, BufferInitDescriptor, BufferUsages, Extent3d, FilterMode, Sampler,
    SamplerDescriptor, TextureDataOrder, TextureDescriptor, TextureDimension, TextureFormat,
    TextureUsages, TextureView, TextureViewDescriptor, TextureViewDimension,
};
use bevy::render::renderer::{RenderDevice, RenderQueue};
use throng_asset::gpu::material::{material_slots, Layers, MaterialSet};
use throng_asset::gpu::MaterialUniform;
use throng_asset::BakedAsset;

#[cfg(doc)]
use super::bindings;

/// A primitive's material slots on the GPU.
pub struct GpuMaterials {
    pub set: MaterialSet,
    /// `set` as a uniform buffer.
    pub uniform: Buffer,
    /// The slots' base colour texture array (1×1 white when no slot is textured).
    pub layers: TextureView,
}

/// What the primitives of one asset share while their materials are made: the decoded images
/// and the arrays made so far.
pub(crate) struct MaterialUpload {
    images: Vec<Option<image::RgbaImage>>,
    made: HashMap<Layers, TextureView>,
}

impl MaterialUpload {
    /// Decodes `baked`'s images (an undecodable one draws white, with a warning).
    pub(crate) fn new(baked: &BakedAsset) -> MaterialUpload {
        let images = baked
            .images
            .iter()
            .enumerate()
            .map(|(i, img)| match image::load_from_memory(&img.bytes) {
                Ok(d) => Some(d.to_rgba8()),
                Err(e) => {
                    bevy::log::warn!(
                        "{}: image {i} ({}) not decoded: {e}; its layers draw white",
                        baked.source_name,
                        img.mime_type
                    );
                    None
                }
            })
            .collect();
        MaterialUpload {
            images,
            made: HashMap::new(),
        }
    }

    /// Primitive `part`'s slots (own material `own`; a slot without a material draws white ×
    /// its texture, as the plugin's default material). An asset whose variants cannot be
    /// drawn (more than 15) draws every primitive's own material, with a warning.
    pub(crate) fn primitive(
        &mut self,
        baked: &BakedAsset,
        part: usize,
        own: Option<usize>,
        device: &RenderDevice,
        queue: &RenderQueue,
    ) -> GpuMaterials {
        let fallback = MaterialUniform::color([1.0; 4]);
        let (set, layers) = match material_slots(baked, part, own, fallback) {
            Ok(s) => s,
            Err(e) => {
                bevy::log::warn!(
                    "{}: primitive {part}: {e}; drawn with its own material only",
                    baked.source_name
                );
                own_only(baked, part, own, fallback)
            }
        };
        let layers = self.array(layers, device, queue);
        GpuMaterials {
            set,
            uniform: device.create_buffer_with_data(&BufferInitDescriptor {
                label: Some("throng material slots"),
                contents: bytemuck::bytes_of(&set),
                usage: BufferUsages::UNIFORM,
            }),
            layers,
        }
    }

    /// The texture array of `layers` (white when empty), made once per distinct list.
    fn array(&mut self, layers: Layers, device: &RenderDevice, queue: &RenderQueue) -> TextureView {
        let layers = if layers.is_empty() {
            vec![None]
        } else {
            layers
        };
        if let Some(v) = self.made.get(&layers) {
            return v.clone();
        }
        let (size, pixels) = layer_pixels(&self.images, &layers);
        let view = layered_texture(device, queue, size, &pixels);
        self.made.insert(layers, view.clone());
        view
    }
}

/// Primitive `part`'s own material alone (slot 0, its image at layer 0).
fn own_only(
    baked: &BakedAsset,
    part: usize,
    own: Option<usize>,
    fallback: MaterialUniform,
) -> (MaterialSet, Layers) {
    let mat = own.and_then(|i| baked.materials.get(i));
    let mut set = MaterialSet::single(mat.map_or(fallback, |m| {
        MaterialUniform::new(m.base_color_factor, &m.texture_transform)
    }));
    set.part = part as u32;
    let layers = mat
        .and_then(|m| m.base_color_texture)
        .filter(|&i| i < baked.images.len())
        .map(|i| vec![Some(i)])
        .unwrap_or_default();
    (set, layers)
}

/// Layers per array at least (see the module docs).
const MIN_LAYERS: usize = 2;

/// The size of the array of `layers` (its first decoded image's; 1×1 without one) and its
/// texels, layer after layer (at least [`MIN_LAYERS`], the last repeated), each resampled to
/// that size.
pub fn layer_pixels(
    images: &[Option<image::RgbaImage>],
    layers: &[Option<usize>],
) -> ((u32, u32), Vec<u8>) {
    let decoded = |k: &Option<usize>| k.and_then(|i| images.get(i)).and_then(|i| i.as_ref());
    let (w, h) = layers
        .iter()
        .find_map(decoded)
        .map_or((1, 1), |i| i.dimensions());
    let white = image::RgbaImage::from_pixel(w, h, image::Rgba([255; 4]));
    let count = layers.len().max(MIN_LAYERS);
    let mut pixels = Vec::with_capacity(w as usize * h as usize * 4 * count);
    for l in 0..count {
        let key = &layers[l.min(layers.len().saturating_sub(1))];
        let img = decoded(key).unwrap_or(&white);
        if img.dimensions() == (w, h) {
            pixels.extend_from_slice(img.as_raw());
        } else {
            let r = image::imageops::resize(img, w, h, image::imageops::FilterType::Triangle);
            pixels.extend_from_slice(r.as_raw());
        }
    }
    ((w, h), pixels)
}

/// An sRGB 2D array texture of `pixels` (layer-major, `size` each) and its `D2Array` view.
fn layered_texture(
    device: &RenderDevice,
    queue: &RenderQueue,
    (width, height): (u32, u32),
    pixels: &[u8],
) -> TextureView {
    let layer_bytes = (width as usize * height as usize * 4).max(1);
    let texture = device.create_texture_with_data(
        queue,
        &TextureDescriptor {
            label: Some("throng base colour layers"),
            size: Extent3d {
                width,
                height,
                depth_or_array_layers: (pixels.len() / layer_bytes) as u32,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: TextureDimension::D2,
            format: TextureFormat::Rgba8UnormSrgb,
            usage: TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        },
        TextureDataOrder::LayerMajor,
        pixels,
    );
    texture.create_view(&TextureViewDescriptor {
        dimension: Some(TextureViewDimension::D2Array),
        ..Default::default()
    })
}

/// The sampler of every base colour array: linear, repeating (glTF's default sampler, as
/// throng-render samples).
pub(crate) fn base_color_sampler(device: &RenderDevice) -> Sampler {
    device.create_sampler(&SamplerDescriptor {
        label: Some("throng base colour sampler"),
        address_mode_u: AddressMode::Repeat,
        address_mode_v: AddressMode::Repeat,
        mag_filter: FilterMode::Linear,
        min_filter: FilterMode::Linear,
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layers_take_the_first_size_and_repeat_to_two() {
        let red = image::RgbaImage::from_pixel(4, 2, image::Rgba([255, 0, 0, 255]));
        let green = image::RgbaImage::from_pixel(2, 2, image::Rgba([0, 255, 0, 255]));
        let images = vec![Some(red), Some(green), None];
        // one layer: repeated to two
        let (size, px) = layer_pixels(&images, &[Some(0)]);
        assert_eq!(size, (4, 2));
        assert_eq!(px.len(), 4 * 2 * 4 * 2);
        assert_eq!(&px[32..36], &[255, 0, 0, 255]);
        // green resampled to 4×2; an undecoded image and a missing one are white
        let (size, px) = layer_pixels(&images, &[Some(0), Some(1), Some(2), None]);
        assert_eq!(size, (4, 2));
        assert_eq!(px.len(), 4 * 2 * 4 * 4);
        assert!(px[32..64]
            .chunks(4)
            .all(|p| p[0] <= 2 && p[1] >= 253 && p[2] <= 2));
        assert!(px[64..].iter().all(|&b| b == 255));
        // no decoded image: 1×1 white
        let (size, px) = layer_pixels(&images, &[None]);
        assert_eq!(size, (1, 1));
        assert_eq!(px, vec![255; 8]);
    }
}
