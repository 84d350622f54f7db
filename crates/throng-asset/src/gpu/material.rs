//! The material-slot contract of material variants (docs/design.md §4 "Appearance"), written
//! once for every embedding: per primitive, which material each slot draws — slot 0 its own,
//! slot v the asset's variant v − 1's (a `None` entry of [`MaterialVariant::materials`] meaning
//! the own material) — as one [`MaterialSet`] uniform (WGSL twin `MaterialSet` in
//! `throng::material`, `shaders/material.wgsl`), and which of the asset's images each layer
//! of the primitive's base colour texture array holds ([`Layers`]). An instance's variant is
//! then a number the fragment stage indexes by (`throng::material::variant_slot`), not another
//! draw. The texture array itself (decoding, resampling every layer to the first layer's size)
//! is each embedding's, in its own graphics API.

use super::MaterialUniform;
#[cfg(doc)]
use crate::MaterialVariant;
use crate::{BakedAsset, BakedMaterial};

/// Material slots per draw: the own material and up to 15 variants.
pub const MAX_MATERIAL_SLOTS: usize = 16;

/// The image of each layer of a primitive's base colour texture array (`None`: a white
/// layer); empty when no slot of the primitive is textured.
pub type Layers = Vec<Option<usize>>;

/// Material slots of one draw (WGSL `MaterialSet` of `throng::material`), 848 B: slot 0 the
/// primitive's own material, slot v the asset's material variant v − 1. An instance's
/// appearance picks the slot (`Appearance::variant`; `count` or more draws slot 0).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct MaterialSet {
    /// The part-mask bit that shows this draw: the asset's primitive index
    /// ([`MaterialSet::ALWAYS`]: not switchable).
    pub part: u32,
    /// The prop-mask bit that shows this draw: the crowd's prop index (or ALWAYS).
    pub prop: u32,
    /// Slots in use (1 + the asset's variants), at least 1.
    pub count: u32,
    pub _pad: u32,
    /// Base colour texture array layer of each slot (slot s at `[s / 4][s % 4]`).
    pub layers: [[u32; 4]; MAX_MATERIAL_SLOTS / 4],
    pub slots: [MaterialUniform; MAX_MATERIAL_SLOTS],
}

impl MaterialSet {
    /// A part or prop bit of a draw that no mask hides.
    pub const ALWAYS: u32 = u32::MAX;

    /// One material (its texture at layer 0), always shown.
    pub fn single(m: MaterialUniform) -> MaterialSet {
        MaterialSet {
            part: Self::ALWAYS,
            prop: Self::ALWAYS,
            count: 1,
            _pad: 0,
            layers: [[0; 4]; MAX_MATERIAL_SLOTS / 4],
            slots: [m; MAX_MATERIAL_SLOTS],
        }
    }

    /// Texture layer of slot `s`.
    pub fn layer(&self, s: usize) -> u32 {
        self.layers[s / 4][s % 4]
    }

    /// The slot an instance of variant `variant` draws: the variant's, or slot 0 past the
    /// last (the Rust twin of `throng::material::variant_slot`).
    pub fn slot(&self, variant: u32) -> usize {
        if variant < self.count {
            variant as usize
        } else {
            0
        }
    }
}

/// Why a primitive's material slots cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MaterialSlotError {
    #[error("{variants} material variants; at most {} are drawn (bake fewer variants)", MAX_MATERIAL_SLOTS - 1)]
    TooManyVariants { variants: usize },
    #[error(
        "material variant '{variant}': primitive {part} names material {material} of {materials}"
    )]
    MaterialOutOfRange {
        variant: String,
        part: usize,
        material: usize,
        materials: usize,
    },
}

/// The image a material's base colour samples, when it names one of the asset's images.
fn image_of(asset: &BakedAsset, m: Option<usize>) -> Option<usize> {
    m.and_then(|i| asset.materials.get(i))
        .and_then(|m| m.base_color_texture)
        .filter(|&i| i < asset.images.len())
}

/// Primitive `part`'s material slots (its own material `own`, then one per variant of
/// `asset`) and the images its texture array holds (empty: no slot is textured; layers are
/// shared between slots showing the same image). A slot without a material draws `fallback`
/// (a colour: the embedding's default). `part` is also the set's part bit.
pub fn material_slots(
    asset: &BakedAsset,
    part: usize,
    own: Option<usize>,
    fallback: MaterialUniform,
) -> Result<(MaterialSet, Layers), MaterialSlotError> {
    let count = 1 + asset.variants.len();
    if count > MAX_MATERIAL_SLOTS {
        return Err(MaterialSlotError::TooManyVariants {
            variants: asset.variants.len(),
        });
    }
    let mut mats = vec![own];
    for v in &asset.variants {
        let m = v.materials.get(part).copied().flatten().or(own);
        if let Some(i) = m.filter(|&i| i >= asset.materials.len()) {
            return Err(MaterialSlotError::MaterialOutOfRange {
                variant: v.name.clone(),
                part,
                material: i,
                materials: asset.materials.len(),
            });
        }
        mats.push(m);
    }
    let mut set = MaterialSet::single(fallback);
    set.part = part as u32;
    set.count = count as u32;
    let textured = mats.iter().any(|&m| image_of(asset, m).is_some());
    let mut layers: Layers = Vec::new();
    for (s, &m) in mats.iter().enumerate() {
        if let Some(mat) = m.and_then(|i| asset.materials.get(i)) {
            set.slots[s] = uniform_of(mat);
        }
        if textured {
            let key = image_of(asset, m);
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

/// A baked material as the draws read it.
fn uniform_of(m: &BakedMaterial) -> MaterialUniform {
    MaterialUniform::new(m.base_color_factor, &m.texture_transform)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_set_is_848_bytes_and_past_the_last_slot_draws_the_own() {
        assert_eq!(std::mem::size_of::<MaterialSet>(), 848);
        let mut set = MaterialSet::single(MaterialUniform::color([1.0; 4]));
        set.count = 3;
        assert_eq!(set.slot(0), 0);
        assert_eq!(set.slot(2), 2);
        assert_eq!(set.slot(3), 0);
        assert_eq!(set.slot(u32::MAX), 0);
    }
}
