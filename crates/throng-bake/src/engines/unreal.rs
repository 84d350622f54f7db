//! Unreal Engine's AnimToTexture plugin (docs/export.md "Unreal"): the textures and material
//! parameters its material functions read, in Unreal's axes and centimetres.
//!
//! Unreal is Z up, X forward, left-handed, in centimetres; its glTF importer maps glTF's
//! `(x, y, z)` metres to `100 · (x, z, y)` (the swap of y and z is the change of handedness),
//! so the mesh ships as glTF and every texture value is converted that way. Textures are 16-bit
//! RGBA PNGs (the plugin's `SixteenBits` precision: unorm16, import as `HDR`/`VectorDisplacementmap`
//! compression, sRGB off, nearest filtering, no mipmaps), in [`FrameBlocks`] layout: element e of
//! frame f at `(e mod W, f · RowsPerFrame + e div W)`.
//!
//! - **Vertex mode**: `<name>_position.png` holds each vertex's offset from the mesh (the rest
//!   pose) as `(Δ − MinBBox) / SizeBBox`, `<name>_normal.png` its normal as `(n + 1) / 2`; the
//!   mesh's UV channel 1 is each vertex's frame-0 texel centre.
//! - **Bone mode**: `<name>_bone_position.png` and `<name>_bone_rotation.png` hold NumFrames + 1
//!   frames of NumBones elements (one bone per palette entry): frame 0 the reference pose (bone
//!   position P_ref, the joint's bind position, and its rotation), frame k + 1 the position change
//!   `Δ = P(k) − P_ref` (remapped by the one MinBBox/SizeBBox of every position) and the rotation
//!   relative to the reference as axis-angle (`(axis + 1) / 2`, `angle / 2π`). A vertex is
//!   `Σ_i w_i · (R_i · (p − P_ref,i) + P_ref,i + Δ_i)`, which for the skin matrix
//!   `S_j = W_j · IBM_j` (docs/design.md §2) with `R = S_j`'s rotation and
//!   `Δ = S_j · P_ref − P_ref` is linear blend skinning of the mesh in bind space.
//!   `<name>_bone_weights.png` holds four influences per vertex (indices `j / NumBones` in the
//!   first `BoneWeightsRowsPerFrame` rows, weights below); UV channel 1 is each vertex's texel.
//!   Skin matrices that scale are refused (the format keeps rotation and translation only).
//! - `<name>-a2t.json`: the data asset's and material's parameters.

use glam::{Mat3, Quat, Vec2, Vec3};
use serde_json::json;

use super::frames::{self, Pose};
use super::layout::FrameBlocks;
use super::mesh;
use super::openvat::{normal_texel, unique_names, vertex_total, written_texels};
use super::{texture, EngineExportError, ExportInput, Written};

/// glTF (metres, Y up, right-handed) to Unreal (centimetres, Z up, left-handed): `100 · (x, z, y)`.
pub fn gltf_to_unreal_point(v: Vec3) -> Vec3 {
    Vec3::new(v.x, v.z, v.y) * 100.0
}

/// A direction (normal, axis) from glTF's axes to Unreal's: `(x, z, y)`.
pub fn gltf_to_unreal_dir(v: Vec3) -> Vec3 {
    Vec3::new(v.x, v.z, v.y)
}

/// A rotation from glTF's axes to Unreal's as axis and angle (radians, in [0, π]): the swap of
/// y and z mirrors, so the axis is swapped and negated.
pub fn gltf_to_unreal_rotation(q: Quat) -> (Vec3, f32) {
    let q = if q.w < 0.0 { -q } else { q };
    let (axis, angle) = q.normalize().to_axis_angle();
    if angle.abs() < 1e-12 || !axis.is_finite() {
        return (Vec3::Z, 0.0);
    }
    (-gltf_to_unreal_dir(axis).normalize(), angle)
}

/// A rotation as the plugin's rotation texel: `((axis + 1) / 2, angle / 2π)` in Unreal's axes.
fn rotation_texel(q: Quat) -> [f32; 4] {
    let (axis, angle) = gltf_to_unreal_rotation(q);
    let a = (axis + 1.0) * 0.5;
    [a.x, a.y, a.z, angle / std::f32::consts::TAU]
}

/// The plugin's `MinBBox` and `SizeBBox` of `values`.
fn remap_box(values: impl Iterator<Item = Vec3>) -> (Vec3, Vec3) {
    let (min, max) = super::remap_range(values);
    (Vec3::from(min), Vec3::from(max) - Vec3::from(min))
}

fn unorm4(v: [f32; 4]) -> [u16; 4] {
    v.map(texture::unorm16)
}

fn animations(input: &ExportInput<'_>) -> serde_json::Value {
    let names = unique_names(input.plan.clips.iter().map(|c| c.name.clone()));
    input
        .plan
        .clips
        .iter()
        .zip(names)
        .map(|(c, n)| {
            json!({"Name": n, "StartFrame": c.start, "EndFrame": c.end(), "bLooping": c.loop_mode.as_str() == "loop", "SampleRate": c.fps})
        })
        .collect()
}

/// What an AnimToTexture export writes, under the names its parameters give them: its 16-bit
/// RGBA PNGs, each (`{name}` + suffix, what it holds for errors, its blocks, its texels), the
/// mesh (`{name}.glb`) and the parameters (`{name}-a2t.json`). The texture size reported is the
/// first PNG's.
fn a2t_written(
    input: &ExportInput<'_>,
    pngs: Vec<(&str, &str, &FrameBlocks, Vec<u16>)>,
    glb: Vec<u8>,
    params: &serde_json::Value,
    notes: Vec<String>,
) -> Result<Written, EngineExportError> {
    let name = &input.options.name;
    let texture = (pngs.first()).map_or((0, 0), |&(_, _, b, _)| (b.width, b.height));
    let mut files = Vec::new();
    for (suffix, what, blocks, texels) in pngs {
        let bytes =
            texture::png16(blocks.width, blocks.height, texels).map_err(input.encode_err(what))?;
        files.push((format!("{name}{suffix}"), bytes));
    }
    files.push((format!("{name}.glb"), glb));
    let json = serde_json::to_vec_pretty(params)
        .map_err(|e| input.encode_err("the parameters")(e.to_string()))?;
    files.push((format!("{name}-a2t.json"), json));
    Ok(Written {
        files,
        texture,
        notes,
    })
}

/// `--format ue-a2t-vertex`.
pub fn write_vertex(input: &ExportInput<'_>) -> Result<Written, EngineExportError> {
    let asset = input.asset;
    let name = &input.options.name;
    let vertices = vertex_total(asset);
    let frames_n = input.plan.total_frames();
    let (w, h, r) = FrameBlocks::size(vertices, frames_n, FrameBlocks::MAX_WIDTH);
    input.too_large(
        "AnimToTexture vertex texture",
        w,
        h,
        ", or bone mode (--format ue-a2t-bone), which grows with bones, not vertices",
    )?;
    let blocks = FrameBlocks::new(w, h, r);
    let rest = frames::rest_pose(asset).map_err(input.decode_err())?;
    let (wu, hu) = (w as usize, h as usize);
    let mut pos = vec![0f32; wu * hu * 4];
    let mut nrm = vec![0u16; wu * hu * 4];
    let mut f = 0u32;
    frames::for_each_pose(asset, &input.plan, |pose: &Pose| {
        for i in 0..vertices as usize {
            let (x, y) = blocks.texel(i as u32, f);
            let at = (y as usize * wu + x as usize) * 4;
            let d =
                gltf_to_unreal_point(pose.positions[i]) - gltf_to_unreal_point(rest.positions[i]);
            pos[at..at + 4].copy_from_slice(&[d.x, d.y, d.z, 1.0]);
            let n = normal_texel(gltf_to_unreal_dir(pose.normals[i]));
            nrm[at..at + 4].copy_from_slice(&unorm4(n));
        }
        f += 1;
    })
    .map_err(input.decode_err())?;
    let (min, size) = remap_box(written_texels(&pos));
    let pos16: Vec<u16> = pos
        .chunks_exact(4)
        .flat_map(|t| {
            if t[3] == 1.0 {
                let v = (Vec3::new(t[0], t[1], t[2]) - min) / size;
                unorm4([v.x, v.y, v.z, 1.0])
            } else {
                [0; 4]
            }
        })
        .collect();
    drop(pos);
    let uv1: Vec<Vec2> = (0..vertices).map(|i| Vec2::from(blocks.uv(i))).collect();
    let glb = mesh_glb(input, &rest.positions, &rest.normals, &uv1)?;
    let params = json!({
        "Mode": "Vertex",
        "Precision": "SixteenBits",
        "UVChannel": 1,
        "NumFrames": frames_n,
        "SampleRate": input.plan.fps,
        "RowsPerFrame": blocks.rows_per_frame,
        "VertexRowsPerFrame": blocks.rows_per_frame,
        "MinBBox": min.to_array(),
        "SizeBBox": size.to_array(),
        "VertexMinBBox": min.to_array(),
        "VertexSizeBBox": size.to_array(),
        "NumVertices": vertices,
        "Width": blocks.width,
        "Height": blocks.height,
        "PositionTexture": format!("{name}_position.png"),
        "NormalTexture": format!("{name}_normal.png"),
        "StaticMesh": format!("{name}.glb"),
        "Animations": animations(input),
        "Units": "centimetres, Unreal axes (X forward, Y right, Z up): (x, z, y) x 100 of glTF's",
    });
    let pngs = vec![
        ("_position.png", "the position texture", &blocks, pos16),
        ("_normal.png", "the normal texture", &blocks, nrm),
    ];
    let notes = vec![
        format!("{vertices} vertices × {frames_n} frames, {} row(s) per frame", blocks.rows_per_frame),
        "import the PNGs with sRGB off, compression HDR (or VectorDisplacementmap), filter Nearest, no mipmaps; set the material's parameters from the JSON".into(),
    ];
    a2t_written(input, pngs, glb, &params, notes)
}

/// The mesh (glTF axes and units; Unreal's importer converts them) with `uv1` in UV channel 1.
fn mesh_glb(
    input: &ExportInput<'_>,
    positions: &[Vec3],
    normals: &[Vec3],
    uv1: &[Vec2],
) -> Result<Vec<u8>, EngineExportError> {
    let asset = input.asset;
    let prims = mesh::primitives(asset, positions, normals, Some(uv1), None);
    mesh::glb(asset, &input.options.name, &prims).map_err(input.encode_err("the mesh"))
}

/// Largest relative scale a skin matrix may carry in bone mode (the format has no scale). Matrices
/// interpolated between baked rows shrink a little (a lerp of rotations: `cos(θ / 2)` for a step
/// of θ), which a budgeted bake keeps near 1e-3; a joint that really scales is refused.
pub const MAX_SCALE_ERROR: f32 = 1e-2;

/// `--format ue-a2t-bone`.
pub fn write_bone(input: &ExportInput<'_>) -> Result<Written, EngineExportError> {
    let asset = input.asset;
    let name = &input.options.name;
    let bones = asset.palette.len() as u32;
    let vertices = vertex_total(asset);
    let frames_n = input.plan.total_frames();
    let (w, h, r) = FrameBlocks::size(bones, frames_n + 1, FrameBlocks::MAX_WIDTH);
    input.too_large("AnimToTexture bone texture", w, h, "")?;
    let blocks = FrameBlocks::new(w, h, r);
    let (ww, wh, wr) = FrameBlocks::size(vertices, 2, FrameBlocks::MAX_WIDTH);
    input.too_large("AnimToTexture weight texture", ww, wh, "")?;
    let wblocks = FrameBlocks::new(ww, wh, wr);

    let mats = frames::skin_matrices(asset, &input.plan).map_err(input.decode_err())?;
    // A skin whose every matrix carries one uniform scale (a skeleton scaled to other units)
    // keeps it in the mesh: S = R · s + T skins p as the scale-free S · s⁻¹ skins s · p.
    let scale_of = |m: &glam::Mat4| Mat3::from_mat4(*m).determinant().abs().cbrt();
    // Entries some vertex reads (among its four kept influences): the only ones checked.
    let (joints4, weights4, dropped) = super::bone_json::four_influences(asset);
    let mut used = vec![false; asset.palette.len()];
    for (js, ws) in joints4.iter().zip(&weights4) {
        for c in 0..4 {
            if ws[c] > 0.0 {
                if let Some(u) = used.get_mut(js[c] as usize) {
                    *u = true;
                }
            }
        }
    }
    let mut first: Vec<f32> = mats
        .first()
        .map(|f| {
            f.iter()
                .zip(&used)
                .filter(|(_, u)| **u)
                .map(|(m, _)| scale_of(m))
                .filter(|s| s.is_finite() && *s > 0.0)
                .collect()
        })
        .unwrap_or_default();
    first.sort_by(f32::total_cmp);
    let global = first.get(first.len() / 2).copied().unwrap_or(1.0);
    // Reference pose: each bone at its joint's bind position (the inverse bind matrix's
    // inverse, scaled with the mesh), its bind rotation; the mesh is in bind space.
    let p_ref: Vec<Vec3> = asset
        .palette
        .iter()
        .map(|e| e.inverse_bind_matrix.inverse().w_axis.truncate() * global)
        .collect();
    let mut positions: Vec<Vec3> = p_ref.iter().map(|p| gltf_to_unreal_point(*p)).collect();
    let mut rotations: Vec<[f32; 4]> = asset
        .palette
        .iter()
        .map(|e| {
            let (_, q, _) = e
                .inverse_bind_matrix
                .inverse()
                .to_scale_rotation_translation();
            rotation_texel(q)
        })
        .collect();
    let unscale = glam::Mat4::from_scale(Vec3::splat(1.0 / global));
    for (f, frame) in mats.iter().enumerate() {
        for (j, s) in frame.iter().enumerate() {
            let s = *s * unscale;
            let m3 = Mat3::from_mat4(s);
            let scale = m3.determinant().abs().cbrt();
            if used[j] && (!scale.is_finite() || (scale - 1.0).abs() > MAX_SCALE_ERROR) {
                return Err(EngineExportError::Unsupported {
                    file: input.file(),
                    what: format!(
                        "palette entry {j} (node {}) scales by {:.4} at frame {f}; AnimToTexture's bone mode stores rotation and translation only: export ue-a2t-vertex instead",
                        asset.palette[j].node,
                        scale * global
                    ),
                });
            }
            let q = if scale.is_finite() && scale > 0.0 {
                Quat::from_mat3(&(m3 * (1.0 / scale))).normalize()
            } else {
                Quat::IDENTITY
            };
            let p = s.transform_point3(p_ref[j]);
            positions.push(gltf_to_unreal_point(p) - gltf_to_unreal_point(p_ref[j]));
            rotations.push(rotation_texel(q));
        }
    }
    let (min, size) = remap_box(positions.iter().copied());
    let (wu, hu) = (blocks.width as usize, blocks.height as usize);
    let mut pos16 = vec![0u16; wu * hu * 4];
    let mut rot16 = vec![0u16; wu * hu * 4];
    for f in 0..=frames_n {
        for j in 0..bones {
            let k = (f * bones + j) as usize;
            let (x, y) = blocks.texel(j, f);
            let at = (y as usize * wu + x as usize) * 4;
            let v = (positions[k] - min) / size;
            pos16[at..at + 4].copy_from_slice(&unorm4([v.x, v.y, v.z, 1.0]));
            rot16[at..at + 4].copy_from_slice(&unorm4(rotations[k]));
        }
    }
    // Four influences per vertex, the largest (sorted by weight in the bake), renormalised.
    let (wwu, whu) = (wblocks.width as usize, wblocks.height as usize);
    let mut weights16 = vec![0u16; wwu * whu * 4];
    for (v, (js, ws)) in joints4.iter().zip(&weights4).enumerate() {
        let idx = js.map(|j| j as f32 / bones as f32);
        let (x, y) = wblocks.texel(v as u32, 0);
        let at = (y as usize * wwu + x as usize) * 4;
        weights16[at..at + 4].copy_from_slice(&unorm4(idx));
        let (x, y) = wblocks.texel(v as u32, 1);
        let at = (y as usize * wwu + x as usize) * 4;
        weights16[at..at + 4].copy_from_slice(&unorm4(*ws));
    }
    let bind_positions: Vec<Vec3> = asset
        .primitives
        .iter()
        .flat_map(|p| p.positions.iter().map(|x| *x * global))
        .collect();
    let bind_normals: Vec<Vec3> = asset
        .primitives
        .iter()
        .flat_map(|p| p.normals.iter().copied())
        .collect();
    let uv1: Vec<Vec2> = (0..vertices).map(|i| Vec2::from(wblocks.uv(i))).collect();
    let glb = mesh_glb(input, &bind_positions, &bind_normals, &uv1)?;
    let influences = asset
        .primitives
        .iter()
        .map(|p| p.influences)
        .max()
        .unwrap_or(4)
        .min(4);
    let params = json!({
        "Mode": "Bone",
        "Precision": "SixteenBits",
        "UVChannel": 1,
        "NumFrames": frames_n,
        "SampleRate": input.plan.fps,
        "NumBones": bones,
        "RowsPerFrame": blocks.rows_per_frame,
        "BoneRowsPerFrame": blocks.rows_per_frame,
        "BoneWeightRowsPerFrame": wblocks.rows_per_frame,
        "BoneWeightsRowsPerFrame": wblocks.rows_per_frame,
        "MinBBox": min.to_array(),
        "SizeBBox": size.to_array(),
        "BoneMinBBox": min.to_array(),
        "BoneSizeBBox": size.to_array(),
        "Influences": influences,
        "UseFourInfluences": influences > 2,
        "UseTwoInfluences": influences == 2,
        "BonePositionTexture": format!("{name}_bone_position.png"),
        "BoneRotationTexture": format!("{name}_bone_rotation.png"),
        "BoneWeightsTexture": format!("{name}_bone_weights.png"),
        "BoneTextureSize": [blocks.width, blocks.height],
        "WeightTextureSize": [wblocks.width, wblocks.height],
        "StaticMesh": format!("{name}.glb"),
        "Animations": animations(input),
        "Frames": "the bone textures hold NumFrames + 1 frames: frame 0 is the reference pose, animation frame f is texture frame f + 1",
        "Units": "centimetres, Unreal axes (X forward, Y right, Z up): (x, z, y) x 100 of glTF's",
    });
    let mut notes = vec![format!(
        "{bones} bones × {} frames (reference pose first); {vertices} vertices' weights in {} × {}",
        frames_n + 1,
        wblocks.width,
        wblocks.height
    )];
    if dropped > 0.0 {
        notes.push(format!(
            "the bake keeps more than 4 influences; bone mode keeps 4 (largest weight dropped {dropped:.3}, the rest renormalised)"
        ));
    }
    let pngs = vec![
        (
            "_bone_position.png",
            "the bone position texture",
            &blocks,
            pos16,
        ),
        (
            "_bone_rotation.png",
            "the bone rotation texture",
            &blocks,
            rot16,
        ),
        (
            "_bone_weights.png",
            "the bone weight texture",
            &wblocks,
            weights16,
        ),
    ];
    a2t_written(input, pngs, glb, &params, notes)
}
