//! throng's own bone texture for any engine (docs/export.md "Bone texture"): the skin matrices
//! `S_j = W_j · IBM_j` (docs/design.md §2) of every palette entry at every exported frame, and
//! each vertex's influences, so a vertex shader skins the bind-space mesh with linear blend
//! skinning: `p' = Σ_i w_i · S_{j_i}(f) · p`. It grows with joints, not vertices.
//!
//! - `<name>-bones.json`: clips, palette and the data as base64 of little-endian numbers:
//!   `boneTexture.data` is `height × width` RGBA f32 texels, texel `(3j + r, f)` the row r of
//!   `S_j`'s affine part at frame f (model space from bind space, file units);
//!   `influences.joints` u16 palette indices and `influences.weights` unorm16 weights
//!   (`q / 65535`, each vertex's summing to 65535), `perVertex` of each per vertex, in the
//!   mesh's vertex order (primitive after primitive).
//! - `<name>.glb`: the mesh in bind space, and in `TEXCOORD_1` each vertex's index as
//!   `(index mod 65536, index div 65536)` (exact in f32), for shaders that read the influences
//!   from a buffer.

use base64::Engine as _;
use glam::{Mat4, Vec2, Vec3};
use serde_json::json;

use super::frames;
use super::mesh;
use super::{EngineExportError, ExportInput, Written};

/// The bone set of an export: skin matrices per frame as 3 RGBA rows each, and influences.
pub struct BoneSet {
    /// `frames × entries × 12` floats: per frame and entry the three rows of `S_j`'s affine part.
    pub rows: Vec<f32>,
    pub entries: u32,
    pub frames: u32,
    /// Largest influence count of any primitive (every vertex is padded to it).
    pub per_vertex: u32,
    /// `V × per_vertex` palette indices and unorm16 weights.
    pub joints: Vec<u16>,
    pub weights: Vec<u16>,
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
}

/// Row r of `m`'s affine part (`m`'s column-major storage read across).
pub fn affine_rows(m: &Mat4) -> [f32; 12] {
    let r = m.transpose();
    let (a, b, c) = (r.x_axis, r.y_axis, r.z_axis);
    [a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, c.x, c.y, c.z, c.w]
}

pub fn bone_set(input: &ExportInput<'_>) -> Result<BoneSet, EngineExportError> {
    let asset = input.asset;
    let entries = asset.palette.len() as u32;
    let frames_n = input.plan.total_frames();
    input.too_large("bone texture", 3 * entries as u64, frames_n as u64, "")?;
    let mats = frames::skin_matrices(asset, &input.plan).map_err(input.decode_err())?;
    let rows: Vec<f32> = mats.iter().flatten().flat_map(affine_rows).collect();
    let per_vertex = asset
        .primitives
        .iter()
        .map(|p| p.influences)
        .max()
        .unwrap_or(1)
        .max(1);
    let mut joints = Vec::new();
    let mut weights = Vec::new();
    let mut positions = Vec::new();
    let mut normals = Vec::new();
    for p in &asset.primitives {
        let k = p.influences as usize;
        for i in 0..p.vertex_count() {
            for c in 0..per_vertex as usize {
                joints.push(if c < k {
                    p.joints.get(i * k + c).copied().unwrap_or(0)
                } else {
                    0
                });
                weights.push(if c < k {
                    p.weights.get(i * k + c).copied().unwrap_or(0)
                } else {
                    0
                });
            }
        }
        positions.extend_from_slice(&p.positions);
        normals.extend_from_slice(&p.normals);
    }
    Ok(BoneSet {
        rows,
        entries,
        frames: frames_n,
        per_vertex,
        joints,
        weights,
        positions,
        normals,
    })
}

/// The bind-space mesh with `uv1` per vertex (concatenated over primitives).
pub fn bind_mesh(
    input: &ExportInput<'_>,
    set: &BoneSet,
    uv1: &[Vec2],
) -> Result<Vec<u8>, EngineExportError> {
    let asset = input.asset;
    let prims = mesh::primitives(asset, &set.positions, &set.normals, Some(uv1), None);
    mesh::glb(asset, &input.options.name, &prims).map_err(input.encode_err("the mesh"))
}

fn b64<T: Copy>(v: &[T], bytes: fn(T) -> Vec<u8>) -> String {
    let raw: Vec<u8> = v.iter().flat_map(|x| bytes(*x)).collect();
    base64::engine::general_purpose::STANDARD.encode(raw)
}

/// `--format bone-texture-json`.
pub fn write(input: &ExportInput<'_>) -> Result<Written, EngineExportError> {
    let name = &input.options.name;
    let set = bone_set(input)?;
    let uv1: Vec<Vec2> = (0..set.positions.len() as u32)
        .map(|i| Vec2::new((i % 65536) as f32, (i / 65536) as f32))
        .collect();
    let glb = bind_mesh(input, &set, &uv1)?;
    let clips: Vec<serde_json::Value> = input
        .plan
        .clips
        .iter()
        .map(|c| json!({"name": c.name, "start": c.start, "end": c.end(), "frames": c.frames, "fps": c.fps, "duration": c.duration, "loop": c.loop_mode.as_str()}))
        .collect();
    let palette: Vec<serde_json::Value> = input
        .asset
        .palette
        .iter()
        .map(|e| json!({"name": e.name, "node": e.node, "rigid": e.rigid}))
        .collect();
    let doc = json!({
        "format": "throng-bone-texture",
        "version": 1,
        "generator": concat!("throng export ", env!("CARGO_PKG_VERSION")),
        "fps": input.plan.fps,
        "frames": set.frames,
        "clips": clips,
        "palette": palette,
        "mesh": format!("{name}.glb"),
        "boneTexture": {
            "width": 3 * set.entries,
            "height": set.frames,
            "texelFormat": "rgba32float",
            "layout": "texel (3j + r, f) = row r of the affine part of S_j = W_j * IBM_j at frame f (model space from bind space, file units)",
            "data": b64(&set.rows, |x: f32| x.to_le_bytes().to_vec()),
        },
        "influences": {
            "vertices": set.positions.len(),
            "perVertex": set.per_vertex,
            "joints": b64(&set.joints, |x: u16| x.to_le_bytes().to_vec()),
            "weights": b64(&set.weights, |x: u16| x.to_le_bytes().to_vec()),
            "encoding": "joints u16 palette indices, weights unorm16 (q / 65535, each vertex's sum 65535), little-endian, mesh vertex order",
        },
    });
    let bytes =
        serde_json::to_vec_pretty(&doc).map_err(|e| input.encode_err("the JSON")(e.to_string()))?;
    Ok(Written {
        files: vec![
            (format!("{name}-bones.json"), bytes),
            (format!("{name}.glb"), glb),
        ],
        texture: (3 * set.entries, set.frames),
        notes: vec![format!(
            "{} palette entries × {} frames: {} bytes of matrices ({} per entry and frame)",
            set.entries,
            set.frames,
            set.rows.len() * 4,
            48
        )],
    })
}

/// Every vertex's four largest influences of every primitive, in mesh order
/// ([`throng_asset::BakedPrimitive::four_influences`]), and the largest share of weight lost.
pub fn four_influences(asset: &throng_asset::BakedAsset) -> (Vec<[u16; 4]>, Vec<[f32; 4]>, f32) {
    let mut joints = Vec::new();
    let mut weights = Vec::new();
    let mut dropped = 0.0f32;
    for p in &asset.primitives {
        let (j, w, d) = p.four_influences();
        joints.extend(j);
        weights.extend(w);
        dropped = dropped.max(d);
    }
    (joints, weights, dropped)
}
