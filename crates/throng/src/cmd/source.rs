//! Loading source glTF files for the subcommands: the file itself plus any `--clips` files
//! bound to it by joint name.

use anyhow::Context;
use std::path::{Path, PathBuf};
use throng_anim::Model;

/// Imports `input` and appends the clips of every `clips` file, printing binding warnings.
pub fn load_model(input: &Path, clips: &[PathBuf]) -> anyhow::Result<Model> {
    if is_baked(input) {
        anyhow::bail!(
            "{} is already a baked throng asset; pass the source glTF it was baked from",
            input.display()
        );
    }
    let mut model = throng_gltf::import(input)?;
    for other_path in clips {
        let other = throng_gltf::import(other_path)
            .with_context(|| format!("loading clips from {}", other_path.display()))?;
        let name = other_path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| other_path.display().to_string());
        let warnings = throng_gltf::import_clips_from(&mut model, &other, &name);
        model.warnings.extend(warnings);
    }
    Ok(model)
}

/// Resolves a clip given by name or by index.
pub fn find_clip(model: &Model, clip: &str) -> anyhow::Result<usize> {
    if let Some(i) = model.clips.iter().position(|c| c.name == clip) {
        return Ok(i);
    }
    if let Ok(i) = clip.parse::<usize>() {
        if i < model.clips.len() {
            return Ok(i);
        }
    }
    let names: Vec<String> = model
        .clips
        .iter()
        .enumerate()
        .map(|(i, c)| format!("{i}: {}", c.name))
        .collect();
    anyhow::bail!(
        "no clip named or numbered {clip:?}; the file has {} clip(s): {}",
        model.clips.len(),
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    )
}

/// True when `path` is a baked throng asset (a GLB whose JSON uses `THRONG_baked_animation`).
pub fn is_baked(path: &Path) -> bool {
    let Ok(bytes) = std::fs::read(path) else {
        return false;
    };
    if bytes.len() < 20 || &bytes[0..4] != b"glTF" {
        return false;
    }
    let json_len = u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]) as usize;
    let end = (20 + json_len).min(bytes.len());
    let json = String::from_utf8_lossy(&bytes[20..end]);
    json.contains("\"THRONG_baked_animation\"")
}
