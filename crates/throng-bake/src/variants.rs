//! Stage: material variants (docs/design.md §3 "Meshes"). The asset's
//! [`MaterialVariant`]s, in this order:
//!
//! - the source's own (glTF `KHR_materials_variants`), in file order: per baked primitive the
//!   material its source primitive maps that variant to, copied into the asset's material list
//!   after the materials the primitives use themselves;
//! - one per texture variant ([`TextureVariant`], in option order): every baked primitive whose
//!   own material has a base-colour texture gets a copy of that material with the variant's
//!   texture in its place (factor, transform and sidedness kept); primitives whose material has
//!   no base-colour texture (or no material) keep their own material in that variant.
//!
//! Variant textures are drawn from a texture array, so each copy's texture has the size of the
//! texture it replaces: a variant texture of another size is resized to it (the `image` crate's
//! triangle filter in sRGB, re-encoded as PNG) with a warning; one of the same size is embedded
//! byte for byte as given.
//!
//! Texture files are read before any long work ([`load`]), so a wrong path fails at once.

use std::io::Read;
use std::path::{Path, PathBuf};

use image::{ImageFormat, RgbaImage};
use throng_anim::Model;
use throng_asset::{BakedImage, BakedPrimitive, MaterialVariant, MAX_MATERIAL_VARIANTS};

use crate::error::BakeError;
use crate::materials::Copied;

/// Largest texture file read for a variant, bytes: the importer's limit for one image.
pub const MAX_TEXTURE_FILE_BYTES: u64 = 256 << 20;

/// An extra base-colour texture baked as the material variant `name`.
#[derive(Debug, Clone, PartialEq)]
pub struct TextureVariant {
    pub name: String,
    /// A PNG or JPEG file.
    pub path: PathBuf,
}

/// A texture variant's image, read and decoded.
#[derive(Debug)]
pub struct LoadedTexture {
    pub name: String,
    encoded: Vec<u8>,
    mime_type: &'static str,
    rgba: RgbaImage,
}

fn texture_error(file: &str, v: &TextureVariant, what: String) -> BakeError {
    BakeError::VariantTexture {
        file: file.to_string(),
        variant: v.name.clone(),
        path: v.path.display().to_string(),
        what,
    }
}

/// Reads and decodes every texture variant: PNG or JPEG, at most [`MAX_TEXTURE_FILE_BYTES`],
/// at most `max_size` pixels on a side (checked from the header, before decoding).
pub fn load(
    variants: &[TextureVariant],
    max_size: u32,
    file: &str,
) -> Result<Vec<LoadedTexture>, BakeError> {
    variants
        .iter()
        .map(|v| load_one(v, max_size, file))
        .collect()
}

fn load_one(v: &TextureVariant, max_size: u32, file: &str) -> Result<LoadedTexture, BakeError> {
    let fail = |what: String| texture_error(file, v, what);
    let encoded = read_bounded(&v.path, MAX_TEXTURE_FILE_BYTES)
        .map_err(|e| fail(format!("cannot read it ({e}); check the path")))?;
    if encoded.len() as u64 > MAX_TEXTURE_FILE_BYTES {
        return Err(fail(format!(
            "the file is larger than {} MiB, the limit for one texture; scale it down",
            MAX_TEXTURE_FILE_BYTES >> 20
        )));
    }
    let not_image = |reason: String| {
        fail(format!(
            "is not a PNG or JPEG image ({reason}); give a PNG or JPEG file"
        ))
    };
    // Sniffed from the bytes, as the importer does: the file name's extension may lie.
    let format = image::guess_format(&encoded).map_err(|e| not_image(e.to_string()))?;
    let mime_type = match format {
        ImageFormat::Png => "image/png",
        ImageFormat::Jpeg => "image/jpeg",
        other => return Err(not_image(format!("it is {other:?}"))),
    };
    let reader = image::ImageReader::with_format(std::io::Cursor::new(&encoded), format);
    let (w, h) = reader
        .into_dimensions()
        .map_err(|e| not_image(e.to_string()))?;
    if w == 0 || h == 0 || w > max_size || h > max_size {
        return Err(fail(format!(
            "is {w}×{h} pixels; a texture must be 1 to {max_size} pixels on each side (the maximum texture size), scale it down"
        )));
    }
    let rgba = image::load_from_memory_with_format(&encoded, format)
        .map_err(|e| not_image(e.to_string()))?
        .to_rgba8();
    Ok(LoadedTexture {
        name: v.name.clone(),
        encoded,
        mime_type,
        rgba,
    })
}

/// At most `limit + 1` bytes of the file at `path` (one more shows it is too large).
fn read_bounded(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    let f = std::fs::File::open(path)?;
    if !f.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut out = Vec::new();
    f.take(limit + 1).read_to_end(&mut out)?;
    Ok(out)
}

/// Checks the variant names before any long work: non-empty, distinct from each other and from
/// the source's variants, and not more than [`MAX_MATERIAL_VARIANTS`] in all.
pub fn check_names(
    model: &Model,
    variants: &[TextureVariant],
    file: &str,
) -> Result<(), BakeError> {
    let bad = |variant: &str, what: String| BakeError::BadVariant {
        file: file.to_string(),
        variant: variant.to_string(),
        what,
    };
    let total = model.variants.len() + variants.len();
    if total > MAX_MATERIAL_VARIANTS {
        return Err(bad(
            "",
            format!(
                "{total} material variants ({} in the source, {} texture variants), more than the {MAX_MATERIAL_VARIANTS} an instance can pick; bake fewer",
                model.variants.len(),
                variants.len()
            ),
        ));
    }
    // The importers give unique, non-empty names; a model built in code may not.
    for (i, name) in model.variants.iter().enumerate() {
        if name.is_empty() || model.variants[..i].contains(name) {
            return Err(bad(
                name,
                format!(
                    "source variant {i} has an empty or repeated name; give each variant its own"
                ),
            ));
        }
    }
    for (i, v) in variants.iter().enumerate() {
        if v.name.trim().is_empty() {
            return Err(bad(&v.name, "a texture variant needs a name".into()));
        }
        if model.variants.contains(&v.name) {
            return Err(bad(
                &v.name,
                "the source already has a material variant of this name; pick another".into(),
            ));
        }
        if variants[..i].iter().any(|o| o.name == v.name) {
            return Err(bad(
                &v.name,
                "two texture variants have this name; give each its own".into(),
            ));
        }
    }
    Ok(())
}

/// The asset's variants for `prims` (materials already in asset numbering, see
/// [`crate::materials::copy`]); materials and images the variants need are appended to
/// `copied`. Returns the variants and the warnings.
pub fn build(
    model: &Model,
    prims: &[BakedPrimitive],
    copied: &mut Copied,
    textures: &[LoadedTexture],
    file: &str,
) -> Result<(Vec<MaterialVariant>, Vec<String>), BakeError> {
    let mut warnings = Vec::new();
    let mut out = Vec::with_capacity(model.variants.len() + textures.len());
    for (v, name) in model.variants.iter().enumerate() {
        let materials: Vec<Option<usize>> = prims
            .iter()
            .map(|p| {
                let src = model.meshes.get(p.mesh)?.primitives.get(p.primitive)?;
                copied.material(model, src.variant_material(v)?)
            })
            .collect();
        if materials.iter().all(Option::is_none) {
            warnings.push(format!(
                "material variant '{name}' maps no baked primitive; it shows the primitives' own materials"
            ));
        }
        let materials = fit_sizes(prims, copied, materials, name, file, &mut warnings)?;
        out.push(MaterialVariant {
            name: name.clone(),
            materials,
        });
    }
    for t in textures {
        out.push(texture_variant(prims, copied, t, file, &mut warnings)?);
    }
    Ok((out, warnings))
}

/// A source variant's textures at the size of the textures they replace, as texture variants
/// are (the renderer draws a primitive's variants from one texture array, and the reference
/// path draws each image as stored): per primitive whose own and variant materials both have
/// base-colour textures, of different sizes, a copy of the variant material with its image
/// resized (with a warning). An image that does not decode is left as it is.
fn fit_sizes(
    prims: &[BakedPrimitive],
    copied: &mut Copied,
    mut materials: Vec<Option<usize>>,
    name: &str,
    file: &str,
    warnings: &mut Vec<String>,
) -> Result<Vec<Option<usize>>, BakeError> {
    // Per (variant material, size), its resized copy.
    type Key = (usize, (u32, u32));
    let mut fitted: Vec<(Key, usize)> = Vec::new();
    for (p, slot) in prims.iter().zip(&mut materials) {
        let (Some(own), Some(vm)) = (p.material, *slot) else {
            continue;
        };
        let texture = |m: usize| copied.materials.get(m).and_then(|m| m.base_color_texture);
        let (Some(oi), Some(vi)) = (texture(own), texture(vm)) else {
            continue;
        };
        let (size, given) = (copied.image_sizes[oi], copied.image_sizes[vi]);
        if size == given || size.0 == 0 || size.1 == 0 || given.0 == 0 || given.1 == 0 {
            continue;
        }
        if let Some(&(_, c)) = fitted.iter().find(|(k, _)| *k == (vm, size)) {
            *slot = Some(c);
            continue;
        }
        let Ok(decoded) = image::load_from_memory(&copied.images[vi].bytes) else {
            continue;
        };
        let t = LoadedTexture {
            name: name.to_string(),
            encoded: Vec::new(),
            mime_type: "image/png",
            rgba: decoded.to_rgba8(),
        };
        let img = sized_image(&t, size, file, warnings)?;
        copied.images.push(img);
        copied.image_sizes.push(size);
        let mut m = copied.materials[vm].clone();
        let base_name = m.name.clone().unwrap_or_else(|| format!("material {vm}"));
        m.name = Some(format!("{base_name} ({}×{})", size.0, size.1));
        m.base_color_texture = Some(copied.images.len() - 1);
        copied.materials.push(m);
        let c = copied.materials.len() - 1;
        fitted.push(((vm, size), c));
        *slot = Some(c);
    }
    Ok(materials)
}

/// One texture variant: a copy of each textured material the primitives use, with `t`'s image
/// (resized per distinct size of the images it replaces).
fn texture_variant(
    prims: &[BakedPrimitive],
    copied: &mut Copied,
    t: &LoadedTexture,
    file: &str,
    warnings: &mut Vec<String>,
) -> Result<MaterialVariant, BakeError> {
    // Per base material, its copy; per base image size, the variant's image at that size.
    let mut copies: Vec<(usize, usize)> = Vec::new();
    let mut sized: Vec<((u32, u32), usize)> = Vec::new();
    let mut materials = Vec::with_capacity(prims.len());
    for p in prims {
        let Some((base, image)) = p.material.and_then(|m| {
            let img = copied.materials.get(m)?.base_color_texture?;
            Some((m, img))
        }) else {
            materials.push(None);
            continue;
        };
        if let Some(&(_, c)) = copies.iter().find(|(b, _)| *b == base) {
            materials.push(Some(c));
            continue;
        }
        let size = copied.image_sizes[image];
        let new_image = match sized.iter().find(|(s, _)| *s == size) {
            Some(&(_, i)) => i,
            None => {
                let img = sized_image(t, size, file, warnings)?;
                copied.images.push(img);
                copied.image_sizes.push(size);
                let i = copied.images.len() - 1;
                sized.push((size, i));
                i
            }
        };
        let mut m = copied.materials[base].clone();
        let base_name = m.name.clone().unwrap_or_else(|| format!("material {base}"));
        m.name = Some(format!("{base_name} ({})", t.name));
        m.base_color_texture = Some(new_image);
        copied.materials.push(m);
        let c = copied.materials.len() - 1;
        copies.push((base, c));
        materials.push(Some(c));
    }
    if copies.is_empty() {
        return Err(BakeError::BadVariant {
            file: file.to_string(),
            variant: t.name.clone(),
            what: "no baked primitive's material has a base-colour texture for the variant's texture to replace; give the source a textured material, or leave the variant out".into(),
        });
    }
    Ok(MaterialVariant {
        name: t.name.clone(),
        materials,
    })
}

/// `t`'s image at `size`: its own bytes when it has that size, else resized and encoded as PNG.
fn sized_image(
    t: &LoadedTexture,
    (w, h): (u32, u32),
    file: &str,
    warnings: &mut Vec<String>,
) -> Result<BakedImage, BakeError> {
    // A source image of no pixels (one FBX left undecoded) gives no size to match.
    if t.rgba.dimensions() == (w, h) || w == 0 || h == 0 {
        return Ok(BakedImage {
            mime_type: t.mime_type.to_string(),
            bytes: t.encoded.clone(),
        });
    }
    warnings.push(format!(
        "material variant '{}': its texture is {}×{} pixels, the texture it replaces {w}×{h}; it was resized to {w}×{h} (give a {w}×{h} texture to keep it as drawn)",
        t.name,
        t.rgba.width(),
        t.rgba.height()
    ));
    let resized = image::imageops::resize(&t.rgba, w, h, image::imageops::FilterType::Triangle);
    let mut bytes = Vec::new();
    resized
        .write_to(&mut std::io::Cursor::new(&mut bytes), ImageFormat::Png)
        .map_err(|e| BakeError::BadVariant {
            file: file.to_string(),
            variant: t.name.clone(),
            what: format!("cannot encode its resized texture as PNG ({e})"),
        })?;
    Ok(BakedImage {
        mime_type: "image/png".into(),
        bytes,
    })
}
