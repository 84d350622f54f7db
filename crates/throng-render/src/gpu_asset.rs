//! A baked asset uploaded to the GPU: the bone texture as a 2D array texture (rows beyond
//! `rows_per_layer` in further layers, docs/design.md §3), bone parameters, the clip table, and per
//! primitive an interleaved vertex buffer and an index buffer.

use std::collections::HashMap;

use glam::Vec3;
use throng_asset::gpu::{vertex::influences, TexelFormat};
use throng_asset::{Aabb, BakedAsset, BakedPrimitive, Encoding};
use wgpu::util::DeviceExt;

use crate::device::Gpu;
use crate::error::RenderError;
use crate::formats::texture_format;
use crate::gpu_types::{AnchorAffine, BoneParams, MaterialUniform, SkinInput};
use crate::upload::{array_texture, storage_buffer, Layered};

/// The texture path's interleaved vertex, shared with throng-bevy ([`throng_asset::gpu`]; the
/// crate's `formats` module makes its wgpu vertex layouts).
pub use throng_asset::gpu::{GpuVertex, GPU_INFLUENCES};

/// Vertices of a primitive as inputs of the compute skinning job.
pub fn skin_inputs(p: &BakedPrimitive) -> Vec<SkinInput> {
    (0..p.vertex_count())
        .map(|v| {
            let (j, w) = influences(p, v);
            let t = p
                .tangents
                .as_ref()
                .and_then(|t| t.get(v).copied())
                .unwrap_or(glam::Vec4::new(1.0, 0.0, 0.0, 1.0));
            SkinInput {
                position: p.positions[v].extend(1.0).into(),
                normal: p
                    .normals
                    .get(v)
                    .copied()
                    .unwrap_or(Vec3::Y)
                    .extend(0.0)
                    .into(),
                tangent: t.into(),
                joints: j.map(u32::from),
                weights: w.map(u32::from),
            }
        })
        .collect()
}

pub struct GpuPrimitive {
    pub vertices: wgpu::Buffer,
    /// LOD 0's triangle list followed by every simplified LOD's.
    pub indices: wgpu::Buffer,
    /// LOD 0's index count.
    pub index_count: u32,
    /// (first index, index count) of each LOD in `indices`; `[0]` is LOD 0. Levels the
    /// primitive lacks (or whose simplification came out empty) repeat its coarsest one.
    pub lods: Vec<(u32, u32)>,
    pub vertex_count: u32,
    pub material: Option<usize>,
    /// The primitive's vertex animation texture, when it was baked with one.
    pub vat: Option<crate::vat::GpuVat>,
    /// Its index in the baked asset (the part-mask bit, `Appearance::parts`), its material slots
    /// (own material, then each material variant's) and their base colour texture array (None:
    /// untextured, white).
    pub part: u32,
    pub material_set: crate::gpu_types::MaterialSet,
    pub base_texture: Option<wgpu::TextureView>,
}

impl GpuPrimitive {
    /// (first index, index count) of LOD `l`, or of the coarsest LOD the primitive has.
    pub fn lod(&self, l: u32) -> (u32, u32) {
        let i = (l as usize).min(self.lods.len().saturating_sub(1));
        self.lods.get(i).copied().unwrap_or((0, self.index_count))
    }
}

/// A baked asset on the GPU.
pub struct GpuAsset {
    pub name: String,
    pub encoding: Encoding,
    pub bone_texture: wgpu::Texture,
    pub bone_view: wgpu::TextureView,
    pub params: BoneParams,
    pub params_buffer: wgpu::Buffer,
    pub clips_buffer: wgpu::Buffer,
    /// The clip table's frame-time lists (throng_contract::FrameTimeTable words).
    pub frame_times_buffer: wgpu::Buffer,
    pub primitives: Vec<GpuPrimitive>,
    /// Per material: uniform (colour, texture transform) and base colour texture index.
    pub materials: Vec<(MaterialUniform, Option<usize>)>,
    /// Material variants of the asset (`BakedAsset::variants`): slot v ≥ 1 of every
    /// primitive's [`GpuPrimitive::material_set`] is variant v − 1.
    pub variant_names: Vec<String>,
    /// Union of every frame-table row's bounds (model space, file units).
    pub bounds: Aabb,
    /// Every frame-table row's bounds for culling, `array<vec4<f32>>` of (min, 0), (max, 0) per
    /// row (an empty row's min exceeds its max).
    pub row_bounds_buffer: wgpu::Buffer,
    /// Simplification error of each LOD level in model units (file units): the largest over
    /// the primitives of meshoptimizer's relative error × the primitive's largest extent.
    /// `[0]` = 0; the length is the asset's LOD count (at most [`MAX_LODS`]).
    pub lod_errors: Vec<f32>,
    /// The anchors (docs/design.md §3), `array<AnchorAffine>` in model space: anchor a of
    /// frame-table row r at `r · anchor_names.len() + a` (one identity entry when the asset has
    /// none: a storage binding may not be empty).
    pub anchors_buffer: wgpu::Buffer,
    /// The anchors' names in the asset's order; a [`crate::Prop`]'s `anchor` indexes them.
    pub anchor_names: Vec<String>,
    /// The layer masks (docs/design.md §4), `array<f32>`: mask number m's weight of palette
    /// entry j at `(m − 1) · entries + j` (one zero word when the asset has none).
    pub masks: wgpu::Buffer,
    /// Influences per vertex of the primitive with the most (0..=8): at most 4 lets the
    /// skinned draws take their 4-influence programs.
    pub influences: u32,
    /// The downlevel mode (docs/downlevel.md): the clip table and the row boxes on the CPU
    /// (its culling and GPU-timed layers read them) and the clip table as a data texture.
    pub(crate) downlevel: DownlevelTables,
    /// The far tier (docs/design.md §5 "Far tier"), when the asset has one: the last LOD level
    /// of [`Self::lod_errors`].
    pub far: Option<GpuFar>,
}

/// The far tier on the GPU: what WGSL `throng::far` and the far draw read, and the LOD level
/// culling lists far instances under.
pub struct GpuFar {
    pub colour: wgpu::TextureView,
    pub surface: wgpu::TextureView,
    pub params: wgpu::Buffer,
    pub clips: wgpu::Buffer,
    /// Every frame-table row's frame coordinate (`FarTier::row_coordinates`).
    pub rows: wgpu::Buffer,
    /// The material variants' colour maps (`FarAtlas::variant_colours`).
    pub variants: wgpu::TextureView,
    /// Per tile, the texels a card covers (`throng_asset::gpu::far::tile_rects`), `array<u32>`.
    pub rects: wgpu::Buffer,
    /// Its LOD level: the mesh LODs come before it.
    pub level: u32,
    /// Its "simplification error" for the LOD rule: one texel of a tile, `2 · radius / tile`
    /// (model units), so culling picks it where a texel covers at most `lod_bias` pixels.
    pub error: f32,
    /// The diameter of the sphere its tiles frame (model units).
    pub diameter: f32,
    /// That sphere: model centre (xyz) and radius (w).
    pub sphere: [f32; 4],
    /// [`Self::clips`], [`Self::rects`] and [`Self::rows`] as the downlevel mode reads them.
    pub(crate) tables: FarTables,
}

/// A far tier's clips, tile rects and row coordinates as Rgba32Uint data textures of one-texel
/// records (the downlevel mode, docs/downlevel.md; WGSL `far_clip`, `far_rect` and `far_row` in
/// `shaders/far_draw.wgsl`): [`far::FarUpload::clip_table`]; four rows' coordinates (f32 bits)
/// a texel.
///
/// [`far::FarUpload::clip_table`]: throng_asset::gpu::far::FarUpload::clip_table
pub(crate) struct FarTables {
    pub clips: wgpu::TextureView,
    pub rows: wgpu::TextureView,
}

impl FarTables {
    fn new(gpu: &Gpu, up: &throng_asset::gpu::far::FarUpload) -> Result<Self, RenderError> {
        let row_texels: Vec<[u32; 4]> = up
            .rows
            .chunks(4)
            .map(|r| std::array::from_fn(|k| r.get(k).copied().unwrap_or(0.0).to_bits()))
            .collect();
        let table = |what, texels: &[[u32; 4]]| {
            crate::data_texture::data_texture(&gpu.device, &gpu.queue, what, texels, 1)
                .map(|(_, view)| view)
        };
        Ok(Self {
            clips: table("far tier clip table", &up.clip_table())?,
            rows: table("far tier row table", &row_texels)?,
        })
    }
}

/// What the downlevel mode reads of an asset besides the GPU resources of the full mode.
pub(crate) struct DownlevelTables {
    pub clip_table: throng_contract::GpuClipTable,
    /// Per frame-table row (min, 0), (max, 0), as `row_bounds_buffer` holds them.
    pub row_bounds: Vec<[f32; 4]>,
    /// The clip table, [`crate::downlevel::CLIP_TEXELS`] texels per clip.
    pub clip_view: wgpu::TextureView,
}

/// LOD levels the renderer selects between (LOD 0 included).
pub const MAX_LODS: usize = throng_asset::gpu::cull::MAX_LODS;

impl GpuAsset {
    /// LOD levels (1 without simplified LODs), the far tier's included.
    pub fn lod_count(&self) -> u32 {
        self.lod_errors.len().max(1) as u32
    }

    /// The mesh LOD levels (those before the far tier's).
    pub fn mesh_lod_count(&self) -> u32 {
        self.far.as_ref().map_or(self.lod_count(), |f| f.level)
    }

    /// The index of the anchor called `name`, for a [`crate::Prop`]. Errors name the asset and
    /// list its anchors, or say that it has none.
    pub fn anchor(&self, name: &str) -> Result<u32, RenderError> {
        find_anchor(&self.name, &self.anchor_names, name)
    }

    /// Checks that anchor index `anchor` exists (a prop's).
    pub(crate) fn check_anchor(&self, anchor: u32) -> Result<(), RenderError> {
        if self.anchor_names.is_empty() {
            return Err(RenderError::NoAnchors {
                asset: self.name.clone(),
            });
        }
        if anchor as usize >= self.anchor_names.len() {
            return Err(RenderError::AnchorOutOfRange {
                asset: self.name.clone(),
                anchor,
                count: self.anchor_names.len(),
                names: self.anchor_names.clone(),
            });
        }
        Ok(())
    }

    /// Bind group entries of the clip table and its frame-time lists.
    pub fn clip_entries(&self) -> [wgpu::BindGroupEntry<'_>; 2] {
        [
            wgpu::BindGroupEntry {
                binding: crate::bindings::CLIPS,
                resource: self.clips_buffer.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: crate::bindings::FRAME_TIMES,
                resource: self.frame_times_buffer.as_entire_binding(),
            },
        ]
    }
}

/// Primitive `p`'s index buffer with every LOD, their ranges and errors
/// (`throng_asset::gpu::cull::LodRanges`, the rule throng-bevy draws by too).
fn lod_ranges(p: &BakedPrimitive) -> (Vec<u32>, Vec<(u32, u32)>, Vec<f32>) {
    let l = throng_asset::gpu::cull::LodRanges::of(p);
    (l.indices, l.ranges, l.errors)
}

/// The typed error of an asset whose arrays disagree with each other.
fn bad_asset(asset: &BakedAsset, what: String) -> RenderError {
    RenderError::BadAsset {
        asset: asset.source_name.clone(),
        what,
    }
}

/// The bone texture's description and its texture, checked against its own sizes and the
/// adapter's limits.
struct BoneUpload {
    params: BoneParams,
    texture: wgpu::Texture,
    view: wgpu::TextureView,
}

impl BoneUpload {
    fn new(gpu: &Gpu, asset: &BakedAsset) -> Result<BoneUpload, RenderError> {
        let bones = &asset.bone_texture;
        let name = || asset.source_name.clone();
        let enc = bones.encoding;
        let width = bones.width();
        if bones.rows == 0 || bones.entries == 0 {
            return Err(bad_asset(
                asset,
                "bone texture is empty (no rows or no palette entries)".into(),
            ));
        }
        let texel = enc.bytes_per_texel() as usize;
        let row_bytes = width as usize * texel;
        let expected = row_bytes * bones.rows as usize;
        if bones.data.len() != expected {
            return Err(bad_asset(asset, format!(
                "bone texture holds {} bytes, expected {expected} ({} rows × {width} texels × {texel} B)",
                bones.data.len(),
                bones.rows
            )));
        }
        let limits = gpu.device.limits();
        if width > limits.max_texture_dimension_2d {
            return Err(RenderError::BoneTextureTooWide {
                asset: name(),
                width,
                entries: bones.entries,
                texels: enc.texels_per_entry(),
                limit: limits.max_texture_dimension_2d,
            });
        }
        let mut params = BoneParams::new(bones, asset.clips.len());
        // Rows continue in further layers at the device's side where the file's layers are
        // taller (WebGL2's 2048, docs/downlevel.md): the shaders read the layering from here.
        params.rows_per_layer = params
            .rows_per_layer
            .min(limits.max_texture_dimension_2d)
            .max(1);
        let rpl = params.rows_per_layer;
        let layers = bones.rows.div_ceil(rpl);
        if rpl > limits.max_texture_dimension_2d || layers > limits.max_texture_array_layers {
            return Err(RenderError::BoneTextureTooTall {
                asset: name(),
                layers,
                rows_per_layer: rpl,
                max_layers: limits.max_texture_array_layers,
                max_rows: limits.max_texture_dimension_2d,
            });
        }
        let at = Layered {
            width,
            rows: bones.rows,
            rows_per_layer: rpl,
            row_bytes,
        };
        let format = texture_format(TexelFormat::bone(enc));
        let (texture, view) = array_texture(gpu, "throng bone texture", format, at, &bones.data);
        Ok(BoneUpload {
            params,
            texture,
            view,
        })
    }
}

/// Checks primitive `pi`'s arrays against each other (vertices, influences, indices); `Err`
/// says what disagrees.
fn check_primitive(pi: usize, p: &BakedPrimitive) -> Result<(), String> {
    let v = p.vertex_count();
    let k = p.influences as usize;
    if p.joints.len() != v * k || p.weights.len() != v * k || p.normals.len() != v {
        return Err(format!(
            "primitive {pi} (node {}, mesh {}): {v} positions, {} normals, {} joint and {} weight entries for K = {k}",
            p.node_index,
            p.mesh,
            p.normals.len(),
            p.joints.len(),
            p.weights.len()
        ));
    }
    if k > GPU_INFLUENCES {
        return Err(format!(
            "primitive {pi}: {k} influences per vertex, the renderer reads at most {GPU_INFLUENCES}"
        ));
    }
    if let Some(i) = p
        .indices
        .iter()
        .chain(p.lods.iter().flat_map(|l| &l.indices))
        .find(|&&i| i as usize >= v)
    {
        return Err(format!(
            "primitive {pi}: index {i} out of range ({v} vertices)"
        ));
    }
    Ok(())
}

/// Primitive `pi`'s VAT on the GPU after checking it against the adapter's limits and the
/// primitive's vertex count.
fn upload_vat(
    gpu: &Gpu,
    pi: usize,
    p: &BakedPrimitive,
) -> Result<Option<crate::vat::GpuVat>, String> {
    let Some(vat) = &p.vat else {
        return Ok(None);
    };
    let limits = gpu.device.limits();
    let vat = crate::vat::fitted(vat, limits.max_texture_dimension_2d);
    crate::vat::check(
        &vat,
        limits.max_texture_dimension_2d,
        limits.max_texture_array_layers,
    )
    .map_err(|e| format!("primitive {pi}: {e}"))?;
    let v = p.vertex_count();
    if vat.vertices as usize != v {
        return Err(format!(
            "primitive {pi}: VAT of {} vertices for {v} vertices",
            vat.vertices
        ));
    }
    Ok(Some(crate::vat::GpuVat::new(gpu, &vat)))
}

/// Primitive `pi` on the GPU, with each of its LOD levels' error in model units; None for a
/// primitive without vertices or triangles (nothing to draw).
fn upload_primitive(
    gpu: &Gpu,
    pi: usize,
    p: &BakedPrimitive,
) -> Result<Option<(GpuPrimitive, Vec<f32>)>, String> {
    check_primitive(pi, p)?;
    let v = p.vertex_count();
    if v == 0 || p.indices.is_empty() {
        return Ok(None);
    }
    let device = &gpu.device;
    let vertices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("throng vertices"),
        contents: bytemuck::cast_slice(&GpuVertex::all(p)),
        usage: wgpu::BufferUsages::VERTEX,
    });
    let (all_indices, lods, errors) = lod_ranges(p);
    let indices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("throng indices"),
        contents: bytemuck::cast_slice(&all_indices),
        usage: wgpu::BufferUsages::INDEX,
    });
    let primitive = GpuPrimitive {
        vertices,
        indices,
        index_count: p.indices.len() as u32,
        lods,
        vertex_count: v as u32,
        material: p.material,
        vat: upload_vat(gpu, pi, p)?,
        part: pi as u32,
        material_set: crate::gpu_types::MaterialSet::single(MaterialUniform::color(
            crate::options::DEFAULT_COLOR,
        )),
        base_texture: None,
    };
    Ok(Some((primitive, errors)))
}

/// The base colour images the asset's materials use, decoded (RGBA8, sRGB), by image index;
/// None for an image no material uses or one that cannot be decoded (drawn untextured, with a
/// warning).
fn decode_images(asset: &BakedAsset) -> Vec<Option<image::RgbaImage>> {
    let mut out = Vec::with_capacity(asset.images.len());
    for (i, img) in asset.images.iter().enumerate() {
        let used = asset
            .materials
            .iter()
            .any(|m| m.base_color_texture == Some(i));
        if !used {
            out.push(None);
            continue;
        }
        match image::load_from_memory(&img.bytes) {
            Ok(t) => out.push(Some(t.to_rgba8())),
            Err(e) => {
                eprintln!(
                    "warning: {}: image {i} ({}) cannot be decoded ({e}); drawing untextured",
                    asset.source_name, img.mime_type
                );
                out.push(None);
            }
        }
    }
    out
}

/// The union of every frame-table row's bounds, or of the bind-space positions when the asset
/// has no row bounds (model space, file units).
fn asset_bounds(asset: &BakedAsset) -> Aabb {
    throng_asset::gpu::cull::cull_bounds(asset)
}

/// One box per row of the table the shaders index, as `(min, 0), (max, 0)` (a row without one
/// culls by its clip's box).
fn row_bounds(asset: &BakedAsset) -> Vec<[f32; 4]> {
    throng_asset::gpu::cull::row_bound_words(asset)
}

/// The downlevel mode's tables of `asset`.
fn downlevel_tables(
    gpu: &Gpu,
    clip_table: throng_contract::GpuClipTable,
    row_bounds: Vec<[f32; 4]>,
) -> Result<DownlevelTables, RenderError> {
    let texels: Vec<[u32; 4]> = clip_table
        .clips
        .iter()
        .flat_map(crate::downlevel::clip_texels)
        .collect();
    let (_, clip_view) = crate::data_texture::data_texture(
        &gpu.device,
        &gpu.queue,
        "clip table texture",
        &texels,
        crate::downlevel::CLIP_TEXELS,
    )?;
    Ok(DownlevelTables {
        clip_table,
        row_bounds,
        clip_view,
    })
}

/// A storage buffer of `words` (never empty: the callers' tables always have a word).
fn storage_words<T: bytemuck::Pod>(
    device: &wgpu::Device,
    label: &str,
    words: &[T],
) -> wgpu::Buffer {
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents: bytemuck::cast_slice(words),
        usage: wgpu::BufferUsages::STORAGE,
    })
}

impl GpuAsset {
    /// Uploads `asset`. Fails with a typed error when the bone texture does not fit the
    /// adapter or the asset's arrays disagree with each other.
    pub fn new(gpu: &Gpu, asset: &BakedAsset) -> Result<GpuAsset, RenderError> {
        let device = &gpu.device;
        let bones = BoneUpload::new(gpu, asset)?;
        let params_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("throng bone params"),
            contents: bytemuck::bytes_of(&bones.params),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let clip_table = throng_asset::gpu_clip_table(&asset.clips);
        let mut primitives = Vec::with_capacity(asset.primitives.len());
        let mut lod_errors: Vec<f32> = Vec::new();
        for (pi, p) in asset.primitives.iter().enumerate() {
            let Some((primitive, errors)) =
                upload_primitive(gpu, pi, p).map_err(|what| bad_asset(asset, what))?
            else {
                continue;
            };
            for (l, e) in errors.into_iter().enumerate() {
                if l >= lod_errors.len() {
                    lod_errors.push(e);
                } else {
                    lod_errors[l] = lod_errors[l].max(e);
                }
            }
            primitives.push(primitive);
        }
        let images = decode_images(asset);
        let mut arrays = HashMap::new();
        for p in &mut primitives {
            let (set, layers) = crate::variants::material_set(asset, p.part as usize, p.material)
                .map_err(|what| bad_asset(asset, what))?;
            p.material_set = set;
            p.base_texture = crate::variants::texture_array(gpu, &images, layers, &mut arrays);
        }
        let materials = asset
            .materials
            .iter()
            .map(|m| {
                (
                    MaterialUniform::new(m.base_color_factor, &m.texture_transform),
                    m.base_color_texture,
                )
            })
            .collect();
        if lod_errors.is_empty() {
            lod_errors.push(0.0);
        }
        let far = match &asset.far_tier {
            Some(tier) if lod_errors.len() < MAX_LODS => {
                let far = upload_far(gpu, asset, tier, lod_errors.len() as u32)?;
                lod_errors.push(far.error);
                Some(far)
            }
            Some(_) => {
                return Err(bad_asset(
                    asset,
                    format!(
                        "{} mesh LODs and a far tier: a renderer selects between at most {MAX_LODS} levels; bake fewer LODs",
                        lod_errors.len()
                    ),
                ))
            }
            None => None,
        };
        let (anchor_names, anchor_rows) =
            anchor_upload(asset).map_err(|what| bad_asset(asset, what))?;
        let rows = row_bounds(asset);
        Ok(GpuAsset {
            anchors_buffer: storage_buffer(
                device,
                "throng anchors",
                &anchor_rows,
                AnchorAffine::IDENTITY,
            ),
            anchor_names,
            name: asset.source_name.clone(),
            encoding: asset.bone_texture.encoding,
            bone_texture: bones.texture,
            bone_view: bones.view,
            params: bones.params,
            params_buffer,
            clips_buffer: storage_words(device, "throng clip table", clip_table.clip_upload()),
            frame_times_buffer: storage_words(
                device,
                "throng frame times",
                clip_table.frame_times.upload_words(),
            ),
            primitives,
            materials,
            variant_names: asset.variants.iter().map(|v| v.name.clone()).collect(),
            bounds: asset_bounds(asset),
            row_bounds_buffer: storage_buffer(
                device,
                "throng row bounds",
                &rows,
                [f32::MAX, f32::MAX, f32::MAX, 0.0],
            ),
            lod_errors,
            masks: storage_words(
                device,
                "throng layer masks",
                &throng_asset::gpu::mask_words(asset),
            ),
            influences: asset
                .primitives
                .iter()
                .map(|p| p.influences)
                .max()
                .unwrap_or(0),
            downlevel: downlevel_tables(gpu, clip_table, rows)?,
            far,
        })
    }
}

/// The index of the anchor called `name` among `names` of asset `asset` (GpuAsset::anchor and
/// crate::Prop::anchor_of).
pub(crate) fn find_anchor(asset: &str, names: &[String], name: &str) -> Result<u32, RenderError> {
    if names.is_empty() {
        return Err(RenderError::NoAnchors {
            asset: asset.to_string(),
        });
    }
    names
        .iter()
        .position(|n| n == name)
        .map(|i| i as u32)
        .ok_or_else(|| RenderError::UnknownAnchor {
            asset: asset.to_string(),
            anchor: name.to_string(),
            anchors: names.to_vec(),
        })
}

/// The anchors' names and their affines in the GPU layout, after checking that the anchor
/// table has a row per frame-table row and 12 f32 per anchor and row (the shaders index it by
/// the rows the bone texture is read at).
fn anchor_upload(asset: &BakedAsset) -> Result<(Vec<String>, Vec<AnchorAffine>), String> {
    let Some(at) = &asset.anchors else {
        return Ok((Vec::new(), Vec::new()));
    };
    let n = at.anchors.len();
    let rows = asset.bone_texture.rows;
    if n == 0 {
        return Ok((Vec::new(), Vec::new()));
    }
    if at.rows != rows || at.data.len() != rows as usize * n * 12 {
        return Err(format!(
            "anchor table of {} rows × {n} anchors holds {} f32, expected {rows} rows (the frame table's) × {n} × 12",
            at.rows,
            at.data.len()
        ));
    }
    let affines = at
        .data
        .chunks_exact(12)
        .map(|c| {
            let mut r = [0.0f32; 12];
            r.copy_from_slice(c);
            AnchorAffine::from_rows(&r)
        })
        .collect();
    Ok((at.anchors.iter().map(|a| a.name.clone()).collect(), affines))
}

/// Uploads `tier` as the far tier of `asset` at LOD level `level`.
fn upload_far(
    gpu: &Gpu,
    asset: &BakedAsset,
    tier: &throng_asset::FarTier,
    level: u32,
) -> Result<GpuFar, RenderError> {
    use throng_asset::gpu::far;
    let device = &gpu.device;
    let max = device.limits().max_texture_dimension_2d;
    let up = far::upload(asset, tier, max).map_err(|what| bad_asset(asset, what))?;
    let tables = FarTables::new(gpu, &up)?;
    let far::FarUpload {
        atlas,
        clips,
        rows,
        rects,
        error,
        sphere,
    } = up;
    Ok(GpuFar {
        tables,
        colour: far_texture(gpu, &atlas, &atlas.colour, "throng far colour"),
        surface: far_texture(gpu, &atlas, &atlas.surface, "throng far surface"),
        params: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("throng far params"),
            contents: bytemuck::bytes_of(&atlas.params),
            usage: wgpu::BufferUsages::UNIFORM,
        }),
        clips: storage_buffer(
            device,
            "throng far clips",
            &clips,
            far::FarClipWords::default(),
        ),
        rows: storage_buffer(device, "throng far rows", &rows, 0.0f32),
        // An empty rect (x0 > x1) stands in for none.
        rects: storage_buffer(device, "throng far rects", &rects, 1u32),
        variants: far_variant_texture(gpu, &atlas),
        level,
        error,
        diameter: 2.0 * sphere[3],
        sphere,
    })
}

/// A far-tier atlas's colour maps as the `Rgba32Float` texture WGSL `far_variant_colour` reads.
pub(crate) fn far_variant_texture(
    gpu: &Gpu,
    atlas: &throng_asset::gpu::far::FarAtlas,
) -> wgpu::TextureView {
    let [width, height] = atlas.variant_size;
    far_data_texture(
        gpu,
        "throng far variant colours",
        (width, height),
        wgpu::TextureFormat::Rgba32Float,
        bytemuck::cast_slice(&atlas.variant_colours),
    )
}

/// One of a far-tier atlas's two pictures (`data`) as an `Rgba8Unorm` texture, read with
/// `textureLoad` (throng::far decodes and filters itself).
pub(crate) fn far_texture(
    gpu: &Gpu,
    atlas: &throng_asset::gpu::far::FarAtlas,
    data: &[u8],
    label: &str,
) -> wgpu::TextureView {
    far_data_texture(
        gpu,
        label,
        (atlas.width, atlas.height),
        wgpu::TextureFormat::Rgba8Unorm,
        data,
    )
}

/// A sampled 2D texture of `size` texels holding `data`, and its view.
fn far_data_texture(
    gpu: &Gpu,
    label: &str,
    size: (u32, u32),
    format: wgpu::TextureFormat,
    data: &[u8],
) -> wgpu::TextureView {
    let usage = wgpu::TextureUsages::TEXTURE_BINDING;
    gpu.device
        .create_texture_with_data(
            &gpu.queue,
            &crate::target::texture_2d(label, size, format, usage),
            wgpu::util::TextureDataOrder::LayerMajor,
            data,
        )
        .create_view(&Default::default())
}
