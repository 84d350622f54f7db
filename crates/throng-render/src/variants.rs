//! Material variants on the GPU (docs/design.md §5 "Appearance"): per primitive, the material
//! each slot draws — slot 0 its own, slot v the asset's variant v − 1's
//! (`BakedAsset::variants`, a `None` entry meaning the own material) — as one
//! [`MaterialSet`] uniform, and the slots' base colour images as the layers of one texture
//! array, so an instance's variant is a number the fragment stage indexes by, not another draw.
//! Images of one array are resampled to the size of its first (a 2D array has one size);
//! primitives whose slots use the same images share the array.

use std::collections::HashMap;

use throng_asset::BakedAsset;

use crate::device::Gpu;
use crate::gpu_types::{MaterialSet, MaterialUniform, MAX_MATERIAL_SLOTS};

/// The image of each layer of a texture array (None: a white layer).
pub(crate) type Layers = Vec<Option<usize>>;

/// Primitive `part`'s material slots (its own material `own`, then one per variant) and the
/// images its texture array holds (empty: no slot is textured). Errors name what is wrong.
pub(crate) fn material_set(
    asset: &BakedAsset,
    part: usize,
    own: Option<usize>,
) -> Result<(MaterialSet, Layers), String> {
    let count = 1 + asset.variants.len();
    if count > MAX_MATERIAL_SLOTS {
        return Err(format!(
            "{} material variants; at most {} are drawn",
            asset.variants.len(),
            MAX_MATERIAL_SLOTS - 1
        ));
    }
    let mut mats = vec![own];
    for v in &asset.variants {
        let m = v.materials.get(part).copied().flatten().or(own);
        if let Some(i) = m.filter(|&i| i >= asset.materials.len()) {
            return Err(format!(
                "material variant '{}': primitive {part} names material {i} of {}",
                v.name,
                asset.materials.len()
            ));
        }
        mats.push(m);
    }
    let mut set = MaterialSet::single(MaterialUniform::color(crate::options::DEFAULT_COLOR));
    set.part = part as u32;
    set.count = count as u32;
    let image = |m: Option<usize>| {
        m.and_then(|i| asset.materials.get(i))
            .and_then(|m| m.base_color_texture)
            .filter(|&i| i < asset.images.len())
    };
    let textured = mats.iter().any(|&m| image(m).is_some());
    let mut layers: Layers = Vec::new();
    for (s, &m) in mats.iter().enumerate() {
        if let Some(mat) = m.and_then(|i| asset.materials.get(i)) {
            set.slots[s] = MaterialUniform::new(mat.base_color_factor, &mat.texture_transform);
        }
        if textured {
            let key = image(m);
            let layer = match layers.iter().position(|&k| k == key) {
                Some(l) => l,
                None => {
                    layers.push(key);
                    layers.len() - 1
                }
            };
            set.layers[s / 4][s % 4] = layer as u32;
        }
    }
    Ok((set, layers))
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
