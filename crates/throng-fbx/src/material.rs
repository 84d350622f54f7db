//! Materials: base colour factor and base colour texture (embedded, or a file next to the FBX
//! found by its base name only).

use std::io::Read;
use std::path::Path;

use glam::Vec4;
use throng_anim::model::{Image, Material, TextureRef};

use crate::convert::{label, v4};
use crate::error::{ImportError, ImportErrorKind as K};
use crate::Ctx;

/// Largest texture file read (the glTF importer's bound, for the same reason: a name that
/// points at a huge file must not fill memory).
const MAX_IMAGE_FILE_BYTES: u64 = 256 << 20;

/// Materials in ufbx order, their images, and for each ufbx material (by `typed_id`) its index.
pub(crate) struct Materials {
    pub materials: Vec<Material>,
    pub images: Vec<Image>,
    pub index: Vec<Option<usize>>,
}

pub(crate) fn read_materials(
    ctx: &mut Ctx,
    base_dir: Option<&Path>,
) -> Result<Materials, ImportError> {
    let scene = ctx.scene;
    let mut materials = Vec::with_capacity(scene.materials.len());
    let mut images: Vec<Image> = Vec::new();
    let mut by_texture: Vec<(u32, usize)> = Vec::new();
    let mut index = vec![None; scene.materials.len()];
    for (mi, m) in scene.materials.iter().enumerate() {
        let element = label("material", &m.element.name, mi);
        // The PBR view ufbx derives from whichever shading model the file uses (Lambert/Phong
        // diffuse × factor for classic FBX materials).
        let map = &m.pbr.base_color;
        let mut color = if map.has_value {
            v4(&map.value_vec4)
        } else {
            Vec4::ONE
        };
        if map.value_components < 4 {
            color.w = 1.0;
        }
        if m.pbr.base_factor.has_value {
            let f = m.pbr.base_factor.value_vec4.x as f32;
            color = (color.truncate() * f).extend(color.w);
        }
        if !color.is_finite() {
            ctx.warn(format!(
                "{element}: its base colour is not finite; white is used"
            ));
            color = Vec4::ONE;
        }
        let texture = map
            .texture
            .as_deref()
            .or(m.fbx.diffuse_color.texture.as_deref());
        let mut base_color_texture = None;
        if let Some(tex) = texture {
            let id = tex.element.typed_id;
            let image = match by_texture.iter().find(|(t, _)| *t == id) {
                Some((_, i)) => Some(*i),
                None => match read_texture(ctx, tex, base_dir) {
                    Ok(img) => {
                        images.push(img);
                        by_texture.push((id, images.len() - 1));
                        Some(images.len() - 1)
                    }
                    Err(reason) => {
                        ctx.warn(format!(
                            "{element}: its base colour texture {:?} is not used: {reason}",
                            tex.filename.to_string()
                        ));
                        None
                    }
                },
            };
            base_color_texture = image.map(|image| TextureRef {
                image,
                transform: Default::default(),
            });
        }
        index[mi] = Some(materials.len());
        materials.push(Material {
            name: Some(m.element.name.to_string()),
            base_color_factor: color,
            base_color_texture,
            // FBX's Phong and PBR models do not map onto glTF's factors one to one: a plain
            // dielectric, as before
            ..Default::default()
        });
    }
    Ok(Materials {
        materials,
        images,
        index,
    })
}

/// The texture's encoded bytes (embedded, else `base_dir/<base name>`), decoded.
fn read_texture(ctx: &Ctx, tex: &ufbx::Texture, base_dir: Option<&Path>) -> Result<Image, String> {
    let encoded: Vec<u8> = if !tex.content.is_empty() {
        tex.content.to_vec()
    } else {
        let name: &str = if tex.relative_filename.is_empty() {
            &tex.filename
        } else {
            &tex.relative_filename
        };
        // Only the base name, only in the FBX's own folder: the path inside the file is the
        // artist's machine's, and an untrusted file must not make throng read elsewhere.
        let base = name.rsplit(['/', '\\']).next().unwrap_or("");
        if base.is_empty() || base == "." || base == ".." {
            return Err("it names no file".into());
        }
        let Some(dir) = base_dir else {
            return Err("it is not embedded and the FBX was read from memory".into());
        };
        let path = dir.join(base);
        let meta = std::fs::symlink_metadata(&path).map_err(|e| {
            format!(
                "{}: {e}; put it next to the FBX or embed it",
                path.display()
            )
        })?;
        if !meta.is_file() {
            return Err(format!("{} is not a regular file", path.display()));
        }
        let mut bytes = Vec::new();
        std::fs::File::open(&path)
            .and_then(|f| f.take(MAX_IMAGE_FILE_BYTES + 1).read_to_end(&mut bytes))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if bytes.len() as u64 > MAX_IMAGE_FILE_BYTES {
            return Err(format!(
                "{} is larger than {} MiB",
                path.display(),
                MAX_IMAGE_FILE_BYTES >> 20
            ));
        }
        bytes
    };
    decode(ctx, &encoded, &tex.element.name).map_err(|e| e.kind.to_string())
}

fn decode(ctx: &Ctx, encoded: &[u8], name: &str) -> Result<Image, ImportError> {
    let element = format!("texture {name:?}");
    let bad = |reason: String| {
        ctx.err(K::ImageDecode {
            element: element.clone(),
            reason,
        })
    };
    let format = image::guess_format(encoded).map_err(|e| bad(e.to_string()))?;
    let mime = match format {
        image::ImageFormat::Png => "image/png",
        image::ImageFormat::Jpeg => "image/jpeg",
        other => return Err(bad(format!("{other:?} is not PNG or JPEG"))),
    };
    let mut reader = image::ImageReader::with_format(std::io::Cursor::new(encoded), format);
    // The decoder's own limits (512 MiB per image by default) bound a crafted header.
    reader.limits(image::Limits::default());
    let decoded = reader.decode().map_err(|e| bad(e.to_string()))?;
    let rgba = decoded.to_rgba8();
    Ok(Image {
        name: Some(name.to_string()),
        width: rgba.width(),
        height: rgba.height(),
        rgba8: rgba.into_raw(),
        encoded: encoded.to_vec(),
        mime_type: mime.to_string(),
    })
}
