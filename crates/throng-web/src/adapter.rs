//! What an engine's own renderer needs to draw a throng crowd (docs/web.md "In three.js"): the
//! baked primitives' vertex streams in bind space with four influences, the bone texture decoded
//! to float rows, and per instance the world matrix and the CPU-timed record. Independent of the
//! browser: the JavaScript adapters read these through `Crowd`'s methods, the native tests call
//! them directly.

use throng_asset::decode::skin_matrix;
use throng_asset::{BakedAsset, DecodeError};
use throng_contract::gpu_timed::{
    CLIP_MASK, GPU_ENABLED, GPU_HELD, GPU_TWO_LAYERS, LAYER_MASK_SHIFT, MODE_LOOP, MODE_PINGPONG,
    MODE_SHIFT, TWO_NEG_32,
};
use throng_contract::{
    GpuInstanceRecord, CLIP_ADDITIVE, CLIP_CUBIC, CLIP_DEGREE_SHIFT, CLIP_PERIODIC, UNIFORM_FRAMES,
};
use throng_runtime::Records;

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

/// Per instance the CPU-timed record as 16 floats: per layer `(weight, frac, row, clip)`, the
/// clip index (the clip word's bits 0..23, exact in an f32) as a number rather than as bits, so
/// no driver's flush of denormal floats can change it on its way through a float texture; the
/// mask bits are left out (the adapters blend no masks). `None` for a GPU-timed crowd and for
/// a graph stepped on the GPU (its records stay on the device).
pub fn records(player: &Player) -> Option<Vec<f32>> {
    match player.records()? {
        Records::Cpu(r) => Some(
            r.iter()
                .flat_map(|rec| rec.layers)
                .flat_map(|l| [l.weight, l.frac, l.row, (l.clip & CLIP_MASK) as f32])
                .collect(),
        ),
        Records::Gpu { .. } => None,
    }
}

/// Width in texels of the adapters' tables (instance transforms, records, clips, frame times):
/// WebGL2's smallest guaranteed `MAX_TEXTURE_SIZE`, so 512 instances per row.
pub const TABLE_WIDTH: u32 = 2048;

/// Words per instance in the GPU-timed record table: the 14 words of a [`GpuInstanceRecord`]
/// and 2 unused, 4 RGBA32UI texels.
pub const GPU_RECORD_WORDS: usize = 16;

/// Per instance the GPU-timed record as [`GPU_RECORD_WORDS`] words (rows derive from it and
/// [`clock`]); `None` for a CPU-timed crowd.
pub fn gpu_records(player: &Player) -> Option<Vec<u32>> {
    match player.runtime().records() {
        Records::Gpu { records, .. } => {
            let mut out = vec![0u32; records.len() * GPU_RECORD_WORDS];
            for (r, o) in records.iter().zip(out.chunks_exact_mut(GPU_RECORD_WORDS)) {
                o[..14].copy_from_slice(bytemuck::cast_slice(std::slice::from_ref(r)));
            }
            Some(out)
        }
        Records::Cpu(_) => None,
    }
}

/// The clock GPU-timed rows derive from (low 32 bits of the runtime's ticks); 0 CPU-timed.
pub fn clock(player: &Player) -> u32 {
    match player.runtime().records() {
        Records::Gpu { clock, .. } => clock,
        Records::Cpu(_) => 0,
    }
}

const _: () = assert!(std::mem::size_of::<GpuInstanceRecord>() == 14 * 4);

/// The GPU-timed clip table as the adapters' shader reads it: per clip `(first_row, frames,
/// times_offset, flags)`, and the frame-time table's words.
pub fn clip_table(asset: &BakedAsset) -> (Vec<u32>, Vec<u32>) {
    let t = throng_asset::gpu_clip_table(&asset.clips);
    let clips = t
        .clips
        .iter()
        .flat_map(|c| [c.first_row, c.frames, c.times_offset, c.flags])
        .collect();
    (clips, t.frame_times.upload_words().to_vec())
}

/// The adapters' vertex-stage GLSL (`adapter.glsl`) with the contract's constants and
/// [`TABLE_WIDTH`] as `#define`s, written from the Rust values so none is typed twice.
pub fn glsl() -> String {
    let mut s = String::from("// throng: generated from throng_contract's constants\n");
    for (name, v) in [
        ("MODE_LOOP", MODE_LOOP),
        ("MODE_PINGPONG", MODE_PINGPONG),
        ("MODE_SHIFT", MODE_SHIFT),
        ("CLIP_MASK", CLIP_MASK),
        ("GPU_HELD", GPU_HELD),
        ("GPU_ENABLED", GPU_ENABLED),
        ("GPU_TWO_LAYERS", GPU_TWO_LAYERS),
        ("LAYER_MASK_SHIFT", LAYER_MASK_SHIFT),
        ("CLIP_ADDITIVE", CLIP_ADDITIVE),
        ("UNIFORM_FRAMES", UNIFORM_FRAMES),
        ("CLIP_CUBIC", CLIP_CUBIC),
        ("CLIP_PERIODIC", CLIP_PERIODIC),
        ("CLIP_DEGREE_SHIFT", CLIP_DEGREE_SHIFT),
    ] {
        s.push_str(&format!("#define THRONG_{name} {v}u\n"));
    }
    s.push_str(&format!("#define THRONG_TWO_NEG_32 {TWO_NEG_32:?}\n"));
    s.push_str(&format!("#define THRONG_WIDTH {TABLE_WIDTH}\n"));
    s.push_str(include_str!("adapter.glsl"));
    s
}

/// The far tier as the adapters' card shader (`adapter_far.glsl`) reads it: throng-asset's
/// [`throng_asset::gpu::far::upload`] laid out as WebGL2 textures and uniforms. `None` when the
/// asset has no far tier; an error says why the tier does not fit WebGL2's smallest textures
/// ([`TABLE_WIDTH`] texels a side), and the adapters then draw the coarsest mesh instead.
#[derive(Debug, Clone, PartialEq)]
pub struct FarData {
    /// The colour and surface atlases, RGBA8 rows of `width` texels, top first
    /// ([`throng_asset::gpu::far::FarAtlas`]).
    pub width: u32,
    pub height: u32,
    pub colour: Vec<u8>,
    pub surface: Vec<u8>,
    /// Model centre (xyz, file units) and radius (w) of the sphere every tile frames.
    pub sphere: [f32; 4],
    /// Texels per tile side, azimuths, elevations, tiles per atlas row.
    pub grid: [u32; 4],
    /// Between elevations i and i + 1: the sine of their midpoint.
    pub elevation_bounds: [f32; 8],
    /// The clip table as an RGBA32UI table of [`TABLE_WIDTH`] texels a row: texel 0 the clip
    /// count, then per clip `(first_frame, frames, looped, 0)`, then the tiles' rects four a
    /// texel ([`throng_asset::gpu::far::FarUpload::clip_table`]).
    pub clips: Vec<u32>,
    /// Every frame-table row's frame coordinate in its clip's far frames, four a texel.
    pub rows: Vec<f32>,
    /// The far level's simplification error (one texel of a tile), file units: an instance is
    /// drawn as a card where this covers at most the LOD bias in pixels.
    pub error: f32,
}

/// `asset`'s far tier as [`FarData`].
pub fn far(asset: &BakedAsset) -> Result<Option<FarData>, String> {
    let Some(tier) = &asset.far_tier else {
        return Ok(None);
    };
    let up = throng_asset::gpu::far::upload(asset, tier, TABLE_WIDTH)?;
    let clips = up.clip_table().concat();
    let mut rows = up.rows;
    rows.resize(rows.len().div_ceil(4).max(1) * 4, 0.0);
    Ok(Some(FarData {
        width: up.atlas.width,
        height: up.atlas.height,
        colour: up.atlas.colour,
        surface: up.atlas.surface,
        sphere: up.sphere,
        grid: up.atlas.params.grid,
        elevation_bounds: up.atlas.params.elevation_bounds,
        clips,
        rows,
        error: up.error,
    }))
}

/// The adapters' card GLSL (`adapter_far.glsl`), for both stages: define
/// `THRONG_FAR_FRAGMENT` before it in the fragment stage; the vertex stage appends it to
/// [`glsl`].
pub fn far_glsl() -> String {
    include_str!("adapter_far.glsl").to_string()
}
