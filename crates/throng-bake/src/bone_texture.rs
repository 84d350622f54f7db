//! Stage: the bone texture (docs/design.md §3 "Bone texture"). The sampled skin matrices
//! encoded as the options ask ([`crate::encode`]), falling back from a `quat-*` encoding to
//! `mat3x4-f32` (unless strict) when a matrix is one a quaternion cannot hold, with a warning
//! that says where.

use crate::encode::{self, QuatFailure};
use crate::error::BakeError;
use crate::frame_table::RowTime;
use crate::options::{BakeOptions, WEBGPU_DEFAULT_MAX_LAYERS};
use crate::palette::Palette;
use crate::report::Fallback;
use crate::validate;
use glam::Mat4;
use throng_anim::Model;
use throng_asset::{BoneTexture, Encoding};

/// The bone texture and what went into it.
pub struct EncodedBones {
    pub texture: BoneTexture,
    /// The encoding used (the one asked for, or mat3x4-f32 after a fallback).
    pub encoding: Encoding,
    pub fallback: Option<Fallback>,
    pub warnings: Vec<String>,
}

/// Encodes `matrices` (`rows × entries`, row-major) of `rows`.
pub fn encode(
    model: &Model,
    palette: &Palette,
    rows: &[RowTime],
    matrices: &[Mat4],
    options: &BakeOptions,
) -> Result<EncodedBones, BakeError> {
    let file = options.source_name.as_str();
    let entries = palette.entries.len();
    // A quaternion keeps to the hemisphere of the previous frame of its clip.
    let continues: Vec<bool> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| i > 0 && r.clip.is_some() && r.frame > 0)
        .collect();
    let mut encoding = options.encoding;
    let mut fallback = None;
    let mut quats = None;
    let mut warnings = Vec::new();
    if encoding.is_quat() {
        match encode::quat_table(matrices, entries, &continues) {
            Ok(q) => quats = Some(q),
            Err(QuatFailure { entry, row, why }) => {
                let pe = &palette.entries[entry];
                let clip = rows[row].clip_name(model);
                if options.strict {
                    return Err(BakeError::EncodingUnsupported {
                        file: file.to_string(),
                        encoding,
                        entry,
                        node: pe.name.clone(),
                        clip,
                        frame: rows[row].frame,
                        why,
                    });
                }
                // The affine rows at the asked precision: 16-bit stays 16-bit.
                let used = match encoding {
                    Encoding::QuatSnorm16 => Encoding::Mat3x4Snorm16,
                    _ => Encoding::Mat3x4F32,
                };
                warnings.push(format!(
                    "{} cannot hold palette entry {entry} (node '{}') in clip '{clip}' frame {}: {why}; fell back to {}",
                    encoding.as_str(),
                    pe.name,
                    rows[row].frame,
                    used.as_str()
                ));
                fallback = Some(Fallback {
                    requested: encoding,
                    used,
                    entry,
                    node: pe.node,
                    node_name: pe.name.clone(),
                    clip,
                    frame: rows[row].frame,
                    why,
                });
                encoding = used;
                validate::width(file, entries, encoding, options.max_texture_size)?;
            }
        }
    }
    let texture = encode::encode(
        encoding,
        matrices,
        quats.as_deref(),
        entries,
        rows.len(),
        options.max_texture_size,
    )
    .map_err(|(entry, row)| BakeError::EncodingUnsupported {
        file: file.to_string(),
        encoding,
        entry,
        node: palette.entries[entry].name.clone(),
        clip: rows[row].clip_name(model),
        frame: rows[row].frame,
        why: format!("a value exceeds the f16 range (±{})", encode::F16_MAX),
    })?;
    let layers = texture.layers();
    if layers > WEBGPU_DEFAULT_MAX_LAYERS {
        warnings.push(format!(
            "the bone texture needs {layers} array layers of {} rows, more than WebGPU's default limit of {WEBGPU_DEFAULT_MAX_LAYERS}; it needs an adapter with a higher maxTextureArrayLayers",
            options.max_texture_size
        ));
    }
    Ok(EncodedBones {
        texture,
        encoding,
        fallback,
        warnings,
    })
}
