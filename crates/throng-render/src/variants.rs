//! Material variants on the GPU (docs/design.md §5 "Appearance"): per primitive, the material
//! each slot draws as one [`MaterialSet`] uniform (the rule is throng-asset's, shared with
//! throng-bevy: [`throng_asset::gpu::material`]), and the slots' base colour images as the
//! layers of one texture array, so an instance's variant is a number the fragment stage
//! indexes by, not another draw.
//! Images of one array are resampled to the size of its first (a 2D array has one size);
//! primitives whose slots use the same images share the array.

use std::collections::HashMap;

use throng_asset::BakedAsset;

use crate::device::Gpu;
use crate::gpu_types::{MaterialSet, MaterialUniform};

/// The image of each layer of a texture array (None: a white layer).
pub(crate) use throng_asset::gpu::material::Layers;

/// Primitive `part`'s material slots (its own material `own`, then one per variant) and the
/// images its texture array holds (empty: no slot is textured), by the shared slot rule
/// ([`throng_asset::gpu::material::material_slots`]); a slot without a material draws the
/// renderer's default colour. Errors name what is wrong.
pub(crate) fn material_set(
    asset: &BakedAsset,
    part: usize,
    own: Option<usize>,
) -> Result<(MaterialSet, Layers), String> {
    let fallback = MaterialUniform::color(crate::options::DEFAULT_COLOR);
    throng_asset::gpu::material::material_slots(asset, part, own, fallback)
        .map_err(|e| e.to_string())
}

/// The texture array of `layers` (None when empty), made once per distinct list; `images` are
/// the asset's decoded base colour images (an undecodable one draws white).
pub(crate) fn texture_array(
    gpu: &Gpu,
    images: &[Option<image::RgbaImage>],
    layers: Layers,
    made: &mut HashMap<Layers, wgpu::TextureView>,
) -> Option<wgpu::TextureView> {
    if layers.is_empty() {
        return None;
    }
    if let Some(v) = made.get(&layers) {
        return Some(v.clone());
    }
    let decoded = |k: &Option<usize>| k.and_then(|i| images.get(i)).and_then(|i| i.as_ref());
    let size = layers
        .iter()
        .find_map(decoded)
        .map_or((1, 1), |i| i.dimensions());
    let white = image::RgbaImage::from_pixel(size.0, size.1, image::Rgba([255; 4]));
    let list: Vec<image::RgbaImage> = layers
        .iter()
        .map(|k| decoded(k).unwrap_or(&white).clone())
        .collect();
    let view = crate::material::layered_texture(&gpu.device, &gpu.queue, &list);
    made.insert(layers, view.clone());
    Some(view)
}
