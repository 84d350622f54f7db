//! Babylon.js's baked vertex animation (docs/export.md "Babylon.js"): the texture its
//! `BakedVertexAnimationManager` plays, made offline from a throng bake instead of in the browser.
//!
//! - `<name>-babylon-vat.json`: `{"vertexData": base64, "width", "height"}` as Babylon's
//!   `VertexAnimationBaker.serializeBakedVertexDataToJSON` writes it (its loader reads
//!   `vertexData`): little-endian f32 RGBA texels, `width = (bones + 1) · 4`, one row per frame;
//!   texel `4m + k` of a row is column k of bone m's skin matrix `S_m = W_m · IBM_m` (glTF's
//!   numbers, which Babylon's glTF loader keeps below its handedness root), the last bone the
//!   identity.
//! - `<name>.glb`: the mesh in bind space with a skin of one joint per palette entry (so Babylon's
//!   skeleton has the texture's bone count and `matricesIndices` are palette indices) and four
//!   influences per vertex.
//! - `<name>-babylon.json`: per clip the `(start, end, offset, speed)` of
//!   `bakedVertexAnimationSettingsInstanced` (`speed` in frames per second).
//!
//! Babylon's manager shows whole frames (no interpolation) and one clip at a time.

use base64::Engine as _;
use serde_json::json;

use super::bone_json::{bone_set, four_influences};
use super::mesh;
use super::openvat::unique_names;
use super::{EngineExportError, ExportInput, Written};

/// `--format babylon`.
pub fn write(input: &ExportInput<'_>) -> Result<Written, EngineExportError> {
    let asset = input.asset;
    let name = &input.options.name;
    let set = bone_set(input)?;
    let bones = set.entries as usize;
    let width = (bones + 1) * 4;
    input.too_large(
        "Babylon.js VAT texture",
        width as u64,
        set.frames as u64,
        "",
    )?;
    let mut data: Vec<f32> = Vec::with_capacity(width * 4 * set.frames as usize);
    for f in 0..set.frames as usize {
        for m in 0..bones {
            // The three stored rows of S_m's affine part, back to its four columns.
            let r = &set.rows[(f * bones + m) * 12..][..12];
            for k in 0..4 {
                data.extend_from_slice(&[r[k], r[4 + k], r[8 + k], if k == 3 { 1.0 } else { 0.0 }]);
            }
        }
        data.extend_from_slice(&[
            1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
        ]);
    }
    let raw: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
    let vat = json!({
        "vertexData": base64::engine::general_purpose::STANDARD.encode(raw),
        "width": width,
        "height": set.frames,
    });
    let (joints, weights, dropped) = four_influences(asset);
    let prims = mesh::primitives(
        asset,
        &set.positions,
        &set.normals,
        None,
        Some((&joints, &weights)),
    );
    let glb = mesh::glb_skinned(asset, name, &prims, true).map_err(input.encode_err("the mesh"))?;
    let names = unique_names(input.plan.clips.iter().map(|c| c.name.clone()));
    let clips: Vec<serde_json::Value> = input
        .plan
        .clips
        .iter()
        .zip(names)
        .map(|(c, n)| json!({"name": n, "start": c.start, "end": c.end(), "fps": c.fps, "loop": c.loop_mode.as_str() == "loop",
            "settings": [c.start, c.end(), 0, c.fps]}))
        .collect();
    let params = json!({
        "format": "babylon-baked-vertex-animation",
        "texture": format!("{name}-babylon-vat.json"),
        "mesh": format!("{name}.glb"),
        "bones": bones,
        "frames": set.frames,
        "clips": clips,
        "settings": "bakedVertexAnimationSettingsInstanced = (start, end, offset, speed in frames per second)",
    });
    let enc = |what: &str, v: &serde_json::Value| {
        serde_json::to_vec(v).map_err(|e| input.encode_err(what)(e.to_string()))
    };
    let mut notes = vec![format!(
        "{bones} bones + 1 × {} frames, float32 RGBA",
        set.frames
    )];
    if dropped > 0.0 {
        notes.push(format!("4 influences per vertex kept (largest weight dropped {dropped:.3}, the rest renormalised)"));
    }
    Ok(Written {
        files: vec![
            (
                format!("{name}-babylon-vat.json"),
                enc("the VAT JSON", &vat)?,
            ),
            (
                format!("{name}-babylon.json"),
                enc("the clip settings", &params)?,
            ),
            (format!("{name}.glb"), glb),
        ],
        texture: (width as u32, set.frames),
        notes,
    })
}
