//! A Godot 4 folder (docs/export.md "Godot"): copied into a project, it plays a MultiMesh crowd.
//!
//! - the OpenVAT data ([`super::openvat`]; half-float EXR by default, which Godot imports as
//!   RGBA half — its PNG importer is not relied on for 16 bits) with `.import` files that keep
//!   textures lossless, without mipmaps and out of VRAM compression;
//! - `throng_vat.gdshader`: per instance from `INSTANCE_CUSTOM` (two clips, time offset, speed,
//!   blend weight), the clip table as constants, frames interpolated, the OpenVAT decode;
//! - bone mode: `<name>_bones.exr` (f32, texel `(3j + r, f)` = row r of `S_j` at frame f),
//!   `<name>_influences.exr` (per vertex a texel of four palette indices and, one row below,
//!   four weights), `<name>_bind.glb` (the mesh in bind space, `UV2` = its influence texel) and
//!   `throng_bones.gdshader`;
//! - `throng_crowd.gd` and `<name>_crowd.tscn`: a sample scene of N instances;
//! - `README.md`: what to copy and how to play it.
//!
//! The shaders and the script cannot run here (no Godot 4 on these machines); their decode is
//! the one the tests check on the data (`tests/engine_export.rs`), written in Godot's language.

use glam::Vec2;

use super::bone_json;
use super::openvat;
use super::{texture, EngineExportError, ExportInput, VatContainer, Written};

const VAT_SHADER: &str = include_str!("../../templates/godot/throng_vat.gdshader");
const BONES_SHADER: &str = include_str!("../../templates/godot/throng_bones.gdshader");
const SCRIPT: &str = include_str!("../../templates/godot/throng_crowd.gd");
const SCENE: &str = include_str!("../../templates/godot/crowd.tscn");
const IMPORT: &str = include_str!("../../templates/godot/texture.import");
const README: &str = include_str!("../../templates/godot/README.md");

/// `{{KEY}}` → value.
pub fn fill(template: &str, values: &[(&str, String)]) -> String {
    let mut out = template.to_string();
    for (k, v) in values {
        out = out.replace(&format!("{{{{{k}}}}}"), v);
    }
    out
}

/// A float as a shader literal (always with a point).
pub fn lit(x: f64) -> String {
    let s = format!("{x:?}");
    if s.contains('.') || s.contains('e') {
        s
    } else {
        format!("{s}.0")
    }
}

/// The clip table as shader constants: `vec4(first frame, frames, fps, loop)`.
pub fn clip_constants(input: &ExportInput<'_>) -> String {
    input
        .plan
        .clips
        .iter()
        .map(|c| {
            format!(
                "vec4({}, {}, {}, {})",
                lit(c.start as f64),
                lit(c.frames as f64),
                lit(c.fps),
                if c.loop_mode.as_str() == "loop" {
                    "1.0"
                } else {
                    "0.0"
                }
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Influence texture layout of bone mode: width W (a power of two up to 4096), per group of W
/// vertices two rows (indices, then weights).
pub fn influence_layout(vertices: u32) -> (u32, u32) {
    let w = vertices.max(1).next_power_of_two().min(4096);
    (w, 2 * vertices.div_ceil(w).max(1))
}

/// `--format godot`.
pub fn write(input: &ExportInput<'_>) -> Result<Written, EngineExportError> {
    let name = &input.options.name;
    let container = input.options.container.unwrap_or(VatContainer::ExrHalf);
    let vat = openvat::build(input, container)?;
    let mut files = vat.files.clone();
    files.push((
        format!("{}.import", vat.texture_name),
        IMPORT.as_bytes().to_vec(),
    ));

    // Bone mode.
    let set = bone_json::bone_set(input)?;
    let bones_name = format!("{name}_bones.exr");
    let bones = texture::exr_f32(3 * set.entries, set.frames, &set.rows)
        .map_err(input.encode_err("the bone texture"))?;
    let vertices = set.positions.len() as u32;
    let (iw, ih) = influence_layout(vertices);
    let (joints4, weights4, dropped) = bone_json::four_influences(input.asset);
    let mut infl = vec![0f32; (iw * ih * 4) as usize];
    let mut uv2 = Vec::with_capacity(vertices as usize);
    for v in 0..vertices {
        let (x, g) = (v % iw, v / iw);
        let at = ((2 * g * iw + x) * 4) as usize;
        infl[at..at + 4].copy_from_slice(&joints4[v as usize].map(|j| j as f32));
        let at = (((2 * g + 1) * iw + x) * 4) as usize;
        infl[at..at + 4].copy_from_slice(&weights4[v as usize]);
        uv2.push(Vec2::new(
            (x as f32 + 0.5) / iw as f32,
            (2 * g) as f32 / ih as f32 + 0.5 / ih as f32,
        ));
    }
    let infl_name = format!("{name}_influences.exr");
    let infl_bytes =
        texture::exr_f32(iw, ih, &infl).map_err(input.encode_err("the influence texture"))?;
    let bind_name = format!("{name}_bind.glb");
    let bind = bone_json::bind_mesh(input, &set, &uv2)?;
    files.push((bones_name.clone(), bones));
    files.push((format!("{bones_name}.import"), IMPORT.as_bytes().to_vec()));
    files.push((infl_name.clone(), infl_bytes));
    files.push((format!("{infl_name}.import"), IMPORT.as_bytes().to_vec()));
    files.push((bind_name.clone(), bind));

    // The box of every frame (Godot's axes), for culling.
    let bounds = input
        .plan
        .clips
        .iter()
        .map(|c| input.asset.clips[c.clip].bounds)
        .fold(throng_asset::Aabb::EMPTY, |a, b| a.union(&b));
    let (lo, size) = if bounds.is_empty() {
        (glam::Vec3::splat(-1.0), glam::Vec3::splat(2.0))
    } else {
        let pad = (bounds.max - bounds.min) * 0.05;
        (bounds.min - pad, bounds.max - bounds.min + pad * 2.0)
    };
    let extent = size.x.max(size.z).max(1e-3) as f64;
    let side = (input.options.instances as f64).sqrt().ceil().max(1.0);
    let spacing = extent * 1.5;
    let field = side * spacing;
    let v3 = |v: glam::Vec3| {
        format!(
            "{}, {}, {}",
            lit(v.x as f64),
            lit(v.y as f64),
            lit(v.z as f64)
        )
    };
    let clip_count = input.plan.clips.len().max(1);
    let values: Vec<(&str, String)> = vec![
        ("NAME", name.clone()),
        ("FOLDER", input.folder.clone()),
        ("TEXTURE", vat.texture_name.clone()),
        ("MESH", vat.mesh_name.clone()),
        ("REMAP", vat.remap_name.clone()),
        ("BIND_MESH", bind_name.clone()),
        ("BONES", bones_name.clone()),
        ("INFLUENCES", infl_name.clone()),
        ("INFLUENCE_HEIGHT", ih.to_string()),
        ("MIN", v3(glam::Vec3::from(vat.min))),
        ("MAX", v3(glam::Vec3::from(vat.max))),
        ("HEIGHT", vat.layout.height.to_string()),
        ("CLIP_COUNT", clip_count.to_string()),
        ("CLIPS", clip_constants(input)),
        ("INSTANCES", input.options.instances.to_string()),
        ("SPACING", lit(spacing)),
        ("AABB_MIN", v3(lo)),
        ("AABB_SIZE", v3(size)),
        (
            "CAMERA",
            format!(
                "{}, {}, {}",
                lit(field * 0.5),
                lit(field * 0.6),
                lit(field * 1.2)
            ),
        ),
        ("FAR", lit(field * 4.0 + 100.0)),
        ("FPS", lit(input.plan.fps)),
        ("FRAMES", input.plan.total_frames().to_string()),
        ("CLIP_LIST", clip_list(input)),
    ];
    files.push((
        "throng_vat.gdshader".into(),
        fill(VAT_SHADER, &values).into_bytes(),
    ));
    files.push((
        "throng_bones.gdshader".into(),
        fill(BONES_SHADER, &values).into_bytes(),
    ));
    files.push(("throng_crowd.gd".into(), fill(SCRIPT, &values).into_bytes()));
    files.push((
        format!("{name}_crowd.tscn"),
        fill(SCENE, &values).into_bytes(),
    ));
    files.push(("README.md".into(), fill(README, &values).into_bytes()));
    let mut notes = vec![format!(
        "copy the folder into a Godot 4 project as res://{}/ and open {name}_crowd.tscn",
        input.folder
    )];
    if dropped > 0.0 {
        notes.push(format!(
            "bone mode keeps 4 influences per vertex (largest weight dropped {dropped:.3}, the rest renormalised); the VAT keeps every one"
        ));
    }
    Ok(Written {
        files,
        texture: (vat.layout.width, vat.layout.height),
        notes,
    })
}

/// The clip table as Markdown rows: index, name, frames, rate, loop.
pub fn clip_list(input: &ExportInput<'_>) -> String {
    input
        .plan
        .clips
        .iter()
        .enumerate()
        .map(|(i, c)| {
            format!(
                "| {i} | {} | {}–{} | {:.3} | {} |",
                c.name.replace('|', "\\|"),
                c.start,
                c.end(),
                c.fps,
                c.loop_mode.as_str()
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}
