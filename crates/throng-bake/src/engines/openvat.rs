//! OpenVAT 1.1 (docs/export.md "OpenVAT"): what OpenVAT's Blender tool writes and its engine
//! decoders read.
//!
//! - `<name>_vat.png` (16-bit RGBA) or `<name>_vat.exr` (half RGBA): [`RowGroups`] layout,
//!   positions in the top half, normals packed in the bottom half. A position texel holds the
//!   offset `d` of the vertex from the mesh (the rest pose) in **Blender's axes**
//!   (`d_b = (x, −z, y)` of glTF's), remapped per channel: `(d_b − Min) / (Max − Min)`; a
//!   normal texel `(n_b + 1) / 2`; alpha 1 on every written texel, 0 elsewhere.
//! - `<name>-remap_info.json`: `{"os-remap": {"Min", "Max", "Frames"}, "animations": {name:
//!   {"startFrame", "endFrame", "framerate", "looping"}}}` with frames counted from 1 (OpenVAT's
//!   Unity importer reads frame f at row offset f − 1), plus a `throng` object (rate, layout)
//!   that OpenVAT's readers ignore.
//! - `<name>.glb`: the mesh in the rest pose, its VAT UV in `TEXCOORD_1` (texel centres of
//!   frame 0, v down).
//!
//! A decoder adds `Min + tex · (Max − Min)` to the vertex and converts Blender's axes to its
//! own (Godot and glTF: `(x, z, −y)`); frame f is one texel row `f / H` below the VAT UV.

use glam::{Vec2, Vec3};
use serde_json::json;

use super::frames::{self, Pose};
use super::layout::RowGroups;
use super::mesh;
use super::{texture, EngineExportError, ExportInput, VatContainer, Written};

/// glTF's axes (Y up, right-handed) to Blender's (Z up, right-handed): `(x, −z, y)`.
pub fn gltf_to_blender(v: Vec3) -> Vec3 {
    Vec3::new(v.x, -v.z, v.y)
}

/// Blender's axes to glTF's (and Godot's): `(x, z, −y)`.
pub fn blender_to_gltf(v: Vec3) -> Vec3 {
    Vec3::new(v.x, v.z, -v.y)
}

/// Vertices of every primitive of `asset`: a vertex texture's texels per frame.
pub fn vertex_total(asset: &throng_asset::BakedAsset) -> u32 {
    asset
        .primitives
        .iter()
        .map(|p| p.vertex_count() as u32)
        .sum()
}

/// A unit normal as a colour texel: each component from [−1, 1] to [0, 1], alpha 1.
pub fn normal_texel(n: Vec3) -> [f32; 4] {
    let c = (n + 1.0) * 0.5;
    [c.x, c.y, c.z, 1.0]
}

/// The RGB of the texels written so far in an RGBA texture: alpha 1 marks a written texel,
/// the padding stays 0, and only what was written may widen a remap range.
pub fn written_texels(rgba: &[f32]) -> impl Iterator<Item = Vec3> + '_ {
    rgba.chunks_exact(4)
        .filter(|t| t[3] == 1.0)
        .map(|t| Vec3::new(t[0], t[1], t[2]))
}

/// The VAT of an export: texture, remap and mesh, and where things went.
pub struct OpenVat {
    pub layout: RowGroups,
    /// Per channel, Blender's axes, as written to the JSON.
    pub min: [f32; 3],
    pub max: [f32; 3],
    /// (relative file name, bytes): texture, remap JSON, mesh.
    pub files: Vec<(String, Vec<u8>)>,
    pub texture_name: String,
    pub mesh_name: String,
    pub remap_name: String,
}

/// Clip names as OpenVAT's `animations` object keys: unique (a repeated name gets ` (2)`, …).
pub fn unique_names(names: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    names
        .into_iter()
        .map(|n| {
            let mut name = n.clone();
            let mut k = 2;
            while !seen.insert(name.clone()) {
                name = format!("{n} ({k})");
                k += 1;
            }
            name
        })
        .collect()
}

/// Builds the OpenVAT files of an export (shared by the Godot and Unity folders).
pub fn build(
    input: &ExportInput<'_>,
    container: VatContainer,
) -> Result<OpenVat, EngineExportError> {
    let asset = input.asset;
    let name = &input.options.name;
    let vertices = vertex_total(asset);
    let frames_n = input.plan.total_frames();
    let max = input.options.max_texture_size;
    let layout = RowGroups::power_of_two(vertices, frames_n, true, max).ok_or_else(|| {
        let (w, h) = RowGroups::needed(vertices, frames_n, true, max);
        EngineExportError::TextureTooLarge {
            file: input.file(),
            what: "OpenVAT texture",
            width: w,
            height: h,
            limit: max,
            advice: ", or the bone texture (--format godot --bones, bone-texture-json or ue-a2t-bone), which grows with joints, not vertices",
        }
    })?;
    let rest = frames::rest_pose(asset).map_err(input.decode_err())?;
    let (w, h) = (layout.width as usize, layout.height as usize);
    // Raw offsets first (Blender's axes), remapped once their range is known; poses are made a
    // chunk of frames at a time so memory stays that of the texture.
    let mut data = vec![0f32; w * h * 4];
    let mut f = 0u32;
    frames::for_each_pose(asset, &input.plan, |pose: &Pose| {
        for i in 0..vertices as usize {
            let d = gltf_to_blender(pose.positions[i] - rest.positions[i]);
            let (x, y) = layout.position_texel(i as u32, f);
            data[(y as usize * w + x as usize) * 4..][..4].copy_from_slice(&[d.x, d.y, d.z, 1.0]);
            let (x, y) = layout.normal_texel(i as u32, f);
            data[(y as usize * w + x as usize) * 4..][..4]
                .copy_from_slice(&normal_texel(gltf_to_blender(pose.normals[i])));
        }
        f += 1;
    })
    .map_err(input.decode_err())?;
    let top = &mut data[..w * h * 2];
    let (min, max_v) = super::remap_range(written_texels(top));
    for t in top.chunks_exact_mut(4).filter(|t| t[3] == 1.0) {
        for c in 0..3 {
            t[c] = (t[c] - min[c]) / (max_v[c] - min[c]);
        }
    }
    let (texture_name, texture_bytes) = match container {
        VatContainer::Png16 => (
            format!("{name}_vat.png"),
            texture::png16(
                layout.width,
                layout.height,
                data.iter().map(|&v| texture::unorm16(v)).collect(),
            ),
        ),
        VatContainer::ExrHalf => (
            format!("{name}_vat.exr"),
            texture::exr_half(layout.width, layout.height, &data),
        ),
    };
    let texture_bytes = texture_bytes.map_err(input.encode_err("the VAT texture"))?;
    drop(data);

    let names = unique_names(input.plan.clips.iter().map(|c| c.name.clone()));
    let mut animations = serde_json::Map::new();
    for (c, n) in input.plan.clips.iter().zip(&names) {
        animations.insert(
            n.clone(),
            json!({
                "startFrame": c.start + 1,
                "endFrame": c.end() + 1,
                "framerate": c.fps,
                "looping": c.loop_mode.as_str() == "loop",
            }),
        );
    }
    let remap = json!({
        "os-remap": {"Min": min, "Max": max_v, "Frames": frames_n},
        "animations": animations,
        "throng": {
            "fps": input.plan.fps,
            "vertices": vertices,
            "width": layout.width,
            "height": layout.height,
            "rowGroups": layout.groups,
            "normals": "packed",
            "axes": "Blender (Z up): offset = (x, -z, y) of glTF's",
            "frames": "startFrame/endFrame count from 1; frame f is texel row f - 1 below the VAT UV",
        },
    });
    let remap_name = format!("{name}-remap_info.json");
    let remap_bytes = serde_json::to_vec_pretty(&remap)
        .map_err(|e| input.encode_err("the remap JSON")(e.to_string()))?;

    let uv1: Vec<Vec2> = (0..vertices).map(|i| Vec2::from(layout.uv(i))).collect();
    let prims = mesh::primitives(asset, &rest.positions, &rest.normals, Some(&uv1), None);
    let mesh_name = format!("{name}.glb");
    let glb = mesh::glb(asset, name, &prims).map_err(input.encode_err("the mesh"))?;
    Ok(OpenVat {
        layout,
        min,
        max: max_v,
        files: vec![
            (texture_name.clone(), texture_bytes),
            (remap_name.clone(), remap_bytes),
            (mesh_name.clone(), glb),
        ],
        texture_name,
        mesh_name,
        remap_name,
    })
}

/// `--format openvat`.
pub fn write(input: &ExportInput<'_>) -> Result<Written, EngineExportError> {
    let container = input.options.container.unwrap_or(VatContainer::Png16);
    let vat = build(input, container)?;
    let notes = vec![
        format!(
            "{}: {} × {} texels, {} row group(s) of {} frames, normals packed below",
            vat.texture_name, vat.layout.width, vat.layout.height, vat.layout.groups, vat.layout.frames
        ),
        "import the texture linear (not sRGB), no mipmaps, point filtering, uncompressed; keep the mesh's second UV set".into(),
    ];
    Ok(Written {
        texture: (vat.layout.width, vat.layout.height),
        files: vat.files,
        notes,
    })
}
