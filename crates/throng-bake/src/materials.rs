//! Stage: materials (docs/design.md §3 "Meshes"). The materials the baked primitives use, and
//! their images still encoded, copied from the source and renumbered in order of first use, so
//! the asset holds nothing it does not draw.

use throng_anim::Model;
use throng_asset::{BakedImage, BakedMaterial, BakedPrimitive, TextureTransform};

/// A source material's base colour factor (linear RGBA) and its base colour texture's
/// KHR_texture_transform (identity without a texture), as the baked asset stores them.
pub fn material_factors(m: &throng_anim::Material) -> ([f32; 4], TextureTransform) {
    let transform = m
        .base_color_texture
        .as_ref()
        .map(|t| TextureTransform {
            offset: t.transform.offset.to_array(),
            rotation: t.transform.rotation,
            scale: t.transform.scale.to_array(),
        })
        .unwrap_or_default();
    (m.base_color_factor.to_array(), transform)
}

/// The asset's materials and images as they are copied from the source: each source material
/// and image at most once, numbered in order of first use.
#[derive(Debug, Default)]
pub struct Copied {
    pub materials: Vec<BakedMaterial>,
    pub images: Vec<BakedImage>,
    /// Pixel size (width, height) of each of `images`, from the decoded source image.
    pub image_sizes: Vec<(u32, u32)>,
    material_map: Vec<Option<usize>>,
    image_map: Vec<Option<usize>>,
}

impl Copied {
    pub fn new(model: &Model) -> Self {
        Copied {
            material_map: vec![None; model.materials.len()],
            image_map: vec![None; model.images.len()],
            ..Copied::default()
        }
    }

    /// The asset's index of source material `m` (copied, with its image, on first use); `None`
    /// when the source has no material `m`.
    pub fn material(&mut self, model: &Model, m: usize) -> Option<usize> {
        let src = model.materials.get(m)?;
        if let Some(done) = self.material_map[m] {
            return Some(done);
        }
        let image = src
            .base_color_texture
            .as_ref()
            .and_then(|t| self.image(model, t.image));
        let (base_color_factor, texture_transform) = material_factors(src);
        self.materials.push(BakedMaterial {
            name: src.name.clone(),
            base_color_factor,
            base_color_texture: image,
            texture_transform,
            metallic_factor: src.metallic_factor,
            roughness_factor: src.roughness_factor,
            double_sided: src.double_sided,
        });
        self.material_map[m] = Some(self.materials.len() - 1);
        self.material_map[m]
    }

    fn image(&mut self, model: &Model, i: usize) -> Option<usize> {
        let img = model.images.get(i)?;
        if let Some(done) = self.image_map[i] {
            return Some(done);
        }
        self.images.push(BakedImage {
            mime_type: img.mime_type.clone(),
            bytes: img.encoded.clone(),
        });
        self.image_sizes.push((img.width, img.height));
        self.image_map[i] = Some(self.images.len() - 1);
        self.image_map[i]
    }
}

/// Copies the materials and images `prims` use (their `material` in source indices, rewritten to
/// the asset's; a material the source lacks becomes none). Materials that only variants use are
/// added after these ([`crate::variants`]), so an asset without variants is numbered as before.
pub fn copy(model: &Model, mut prims: Vec<BakedPrimitive>) -> (Vec<BakedPrimitive>, Copied) {
    let mut copied = Copied::new(model);
    for p in &mut prims {
        p.material = p.material.and_then(|m| copied.material(model, m));
    }
    (prims, copied)
}
