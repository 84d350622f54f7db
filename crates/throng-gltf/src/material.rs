//! Materials (glTF 2.0 §3.9): base colour factor and texture (with KHR_texture_transform),
//! double-sidedness; images (§3.10.2) decoded to RGBA8 with their encoded bytes kept.

use glam::{Vec2, Vec4};
use throng_anim::model::{Image, Material, TextureRef, TextureTransform};

use crate::error::{ImportError, ImportErrorKind as K};
use crate::Ctx;

/// Largest image file read from a URI. No texture a crowd renderer uploads comes near it (a
/// 16384² PNG of photographic content is about 500 MB raw, far less encoded), and it keeps a
/// URI that names a huge file from filling memory.
pub(crate) const MAX_IMAGE_FILE_BYTES: u64 = 256 << 20;

pub(crate) fn read_materials(ctx: &mut Ctx) -> Result<Vec<Material>, ImportError> {
    let src = ctx.src;
    let mut out = Vec::with_capacity(src.root.materials.len());
    for (mi, jm) in src.root.materials.iter().enumerate() {
        let element = format!("material {mi}");
        let pbr = &jm.pbr_metallic_roughness;
        let f = pbr.base_color_factor.0;
        crate::accessor::check_finite(&f, 4, &format!("{element} baseColorFactor"), ctx.file)?;
        let mr = [pbr.metallic_factor.0, pbr.roughness_factor.0];
        crate::accessor::check_finite(
            &mr,
            2,
            &format!("{element} metallicFactor/roughnessFactor"),
            ctx.file,
        )?;
        if mr.iter().any(|v| !(0.0..=1.0).contains(v)) {
            ctx.warn(format!(
                "{element}: metallicFactor {} / roughnessFactor {} outside [0, 1] (glTF 2.0 §5.22); clamped",
                mr[0], mr[1]
            ));
        }
        let base_color_texture = match &pbr.base_color_texture {
            None => None,
            Some(info) => {
                let ti = info.index.value();
                let Some(tex) = src.root.textures.get(ti) else {
                    return Err(ctx.err(K::BadReference {
                        element,
                        target: format!("texture {ti}"),
                    }));
                };
                let image = tex.source.value();
                if image >= src.root.images.len() {
                    return Err(ctx.err(K::BadReference {
                        element: format!("texture {ti}"),
                        target: format!("image {image}"),
                    }));
                }
                if info.tex_coord != 0 {
                    ctx.warn(format!(
                        "{element} samples its base colour with TEXCOORD_{}; throng imports TEXCOORD_0 only",
                        info.tex_coord
                    ));
                }
                let transform = info
                    .extensions
                    .as_ref()
                    .and_then(|e| e.texture_transform.as_ref())
                    .map(|t| TextureTransform {
                        offset: Vec2::from_array(t.offset.0),
                        rotation: t.rotation.0,
                        scale: Vec2::from_array(t.scale.0),
                    })
                    .unwrap_or_default();
                // JSON has no NaN, but 1e39 reads as an f32 infinity.
                crate::accessor::check_finite(
                    &[
                        transform.offset.x,
                        transform.offset.y,
                        transform.rotation,
                        transform.scale.x,
                        transform.scale.y,
                    ],
                    5,
                    &format!("{element} baseColorTexture KHR_texture_transform"),
                    ctx.file,
                )?;
                Some(TextureRef { image, transform })
            }
        };
        out.push(Material {
            name: jm.name.clone(),
            base_color_factor: Vec4::from_array(f),
            base_color_texture,
            metallic_factor: mr[0].clamp(0.0, 1.0),
            roughness_factor: mr[1].clamp(0.0, 1.0),
            double_sided: jm.double_sided,
        });
    }
    Ok(out)
}

/// Decodes every image. An image that a base-colour texture uses must decode (PNG or JPEG);
/// any other image that cannot be read or decoded is kept empty (0×0) with a warning, since
/// throng draws base colour only.
pub(crate) fn read_images(
    ctx: &mut Ctx,
    materials: &[Material],
) -> Result<Vec<Image>, ImportError> {
    let src = ctx.src;
    let mut out = Vec::with_capacity(src.root.images.len());
    for (ii, ji) in src.root.images.iter().enumerate() {
        let element = match &ji.name {
            Some(n) => format!("image {ii} ({n:?})"),
            None => format!("image {ii}"),
        };
        let needed = materials
            .iter()
            .any(|m| m.base_color_texture.as_ref().is_some_and(|t| t.image == ii));
        match read_image(ctx, ji, &element) {
            Ok(img) => out.push(img),
            Err(e) if !needed => {
                ctx.warn(format!(
                    "{e}; the image is not a base colour texture, so it is left empty"
                ));
                out.push(Image {
                    name: ji.name.clone(),
                    width: 0,
                    height: 0,
                    rgba8: Vec::new(),
                    encoded: Vec::new(),
                    mime_type: String::new(),
                });
            }
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}

fn read_image(ctx: &Ctx, ji: &gltf_json::Image, element: &str) -> Result<Image, ImportError> {
    let src = ctx.src;
    let encoded = match (&ji.uri, ji.buffer_view) {
        (Some(uri), _) => {
            let bytes = src.loader.load(uri, element, MAX_IMAGE_FILE_BYTES + 1)?;
            if bytes.len() as u64 > MAX_IMAGE_FILE_BYTES {
                return Err(ctx.err(K::InvalidData {
                    element: element.into(),
                    reason: format!(
                        "the image file is larger than {} MiB, throng's limit for one image",
                        MAX_IMAGE_FILE_BYTES >> 20
                    ),
                }));
            }
            bytes
        }
        (None, Some(view)) => {
            let (bytes, _stride) =
                crate::accessor::view_bytes(src, view.value(), element, ctx.file)?;
            bytes.to_vec()
        }
        (None, None) => {
            return Err(ctx.err(K::InvalidData {
                element: element.into(),
                reason: "has neither a uri nor a bufferView".into(),
            }))
        }
    };
    // Sniff the bytes rather than trust mimeType or the file extension.
    let format = image::guess_format(&encoded).map_err(|e| {
        ctx.err(K::ImageDecode {
            element: element.into(),
            reason: e.to_string(),
        })
    })?;
    let mime_type = match format {
        image::ImageFormat::Png => "image/png",
        image::ImageFormat::Jpeg => "image/jpeg",
        other => {
            return Err(ctx.err(K::ImageDecode {
                element: element.into(),
                reason: format!("{other:?} is not a glTF core image format"),
            }))
        }
    };
    let decoded = image::load_from_memory_with_format(&encoded, format).map_err(|e| {
        ctx.err(K::ImageDecode {
            element: element.into(),
            reason: e.to_string(),
        })
    })?;
    let rgba = decoded.to_rgba8();
    Ok(Image {
        name: ji.name.clone(),
        width: rgba.width(),
        height: rgba.height(),
        rgba8: rgba.into_raw(),
        encoded,
        mime_type: mime_type.to_string(),
    })
}
