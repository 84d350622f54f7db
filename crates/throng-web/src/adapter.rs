//! What an engine's own renderer needs to draw a throng crowd (docs/web.md "In three.js"): the
//! baked primitives' vertex streams in bind space with four influences, the bone texture decoded
//! to float rows, and per instance the world matrix and the CPU-timed record. Independent of the
//! browser: the JavaScript adapters read these through `Crowd`'s methods, the native tests call
//! them directly.

use throng_asset::decode::skin_matrix;
use throng_asset::{BakedAsset, DecodeError};
use throng_runtime::{PlaybackControl, Records};

use crate::player::Player;

/// One primitive's streams as an engine's vertex buffers take them.
#[derive(Debug, Clone, PartialEq)]
pub struct MeshData {
    /// Bind space, file units: x, y, z per vertex.
    pub positions: Vec<f32>,
    pub normals: Vec<f32>,
    /// u, v per vertex (glTF's convention, v down); empty without texture coordinates.
    pub uvs: Vec<f32>,
    /// Four palette indices and weights (summing to 1) per vertex: the bake's largest four.
    pub joints: Vec<u16>,
    pub weights: Vec<f32>,
    /// Triangle list of LOD 0, then each LOD's.
    pub lods: Vec<Vec<u32>>,
    /// LOD l's simplification error relative to the mesh's extent (0 for LOD 0).
    pub lod_errors: Vec<f32>,
    /// Base colour factor (linear RGBA) and texture of the primitive's own material.
    pub base_color: [f32; 4],
    /// Index into the asset's images.
    pub image: Option<usize>,
}

/// Every primitive's [`MeshData`].
pub fn meshes(asset: &BakedAsset) -> Vec<MeshData> {
    asset
        .primitives
        .iter()
        .map(|p| {
            let (j, w, _) = p.four_influences();
            let material = p.material.and_then(|m| asset.materials.get(m));
            let mut lods = vec![p.indices.clone()];
            let mut lod_errors = vec![0.0];
            for l in &p.lods {
                lods.push(l.indices.clone());
                lod_errors.push(l.error);
            }
            MeshData {
                positions: p.positions.iter().flat_map(|v| v.to_array()).collect(),
                normals: p.normals.iter().flat_map(|v| v.to_array()).collect(),
                uvs: p
                    .uv0
                    .as_ref()
                    .map(|uv| uv.iter().flat_map(|v| v.to_array()).collect())
                    .unwrap_or_default(),
                joints: j.into_iter().flatten().collect(),
                weights: w.into_iter().flatten().collect(),
                lods,
                lod_errors,
                base_color: material.map_or([1.0; 4], |m| m.base_color_factor),
                image: material.and_then(|m| m.base_color_texture),
            }
        })
        .collect()
}

/// The bone texture decoded: `rows` rows of `3 · entries` RGBA f32 texels, texel `(3j + r, row)`
/// the row r of palette entry j's skin matrix `S_j = W_j · IBM_j` (model space from bind space).
/// Every encoding decodes to this, so one shader reads them all.
pub struct BoneRows {
    pub width: u32,
    pub rows: u32,
    pub data: Vec<f32>,
}

pub fn bone_rows(asset: &BakedAsset) -> Result<BoneRows, DecodeError> {
    let tex = &asset.bone_texture;
    let rows = asset.row_bounds.len() as u32;
    let mut data = Vec::with_capacity((rows * tex.entries * 12) as usize);
    for row in 0..rows {
        for j in 0..tex.entries {
            let m = skin_matrix(tex, j, row)?.transpose();
            for r in [m.x_axis, m.y_axis, m.z_axis] {
                data.extend_from_slice(&r.to_array());
            }
        }
    }
    Ok(BoneRows {
        width: 3 * tex.entries,
        rows,
        data,
    })
}

/// Per instance its world matrix, column-major (16 numbers, three.js `Matrix4.elements`).
pub fn instance_matrices(player: &Player) -> Vec<f32> {
    player
        .runtime()
        .transforms()
        .iter()
        .flat_map(|t| t.to_mat4().to_cols_array())
        .collect()
}

/// Per instance the CPU-timed record as 16 floats: per layer `(weight, frac, row, clip word)`
/// (the clip word's bits; a shader reads the first three). `None` for a GPU-timed crowd, whose
/// records an adapter's shader does not read yet.
pub fn records(player: &Player) -> Option<Vec<f32>> {
    match player.runtime().records() {
        Records::Cpu(r) => Some(bytemuck::cast_slice(r).to_vec()),
        Records::Gpu { .. } => None,
    }
}
