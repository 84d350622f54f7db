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

/// Copies the materials and images `prims` use (their `material` in source indices, rewritten to
/// the asset's; a material the source lacks becomes none).
pub fn copy(
    model: &Model,
    mut prims: Vec<BakedPrimitive>,
) -> (Vec<BakedPrimitive>, Vec<BakedMaterial>, Vec<BakedImage>) {
    let mut mat_map: Vec<Option<usize>> = vec![None; model.materials.len()];
    let mut img_map: Vec<Option<usize>> = vec![None; model.images.len()];
    let (mut mats, mut imgs) = (Vec::new(), Vec::new());
    for p in &mut prims {
        let Some(m) = p.material else { continue };
        let Some(src) = model.materials.get(m) else {
            p.material = None;
            continue;
        };
        if mat_map[m].is_none() {
            let tex = src.base_color_texture.as_ref();
            let image = tex.and_then(|t| {
                let img = model.images.get(t.image)?;
                Some(*img_map[t.image].get_or_insert_with(|| {
                    imgs.push(BakedImage {
                        mime_type: img.mime_type.clone(),
                        bytes: img.encoded.clone(),
                    });
                    imgs.len() - 1
                }))
            });
            let (base_color_factor, texture_transform) = material_factors(src);
            mats.push(BakedMaterial {
                name: src.name.clone(),
                base_color_factor,
                base_color_texture: image,
                texture_transform,
                double_sided: src.double_sided,
            });
            mat_map[m] = Some(mats.len() - 1);
        }
        p.material = mat_map[m];
    }
    (prims, mats, imgs)
}
