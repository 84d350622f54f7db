//! Baked asset types (docs/design.md §3). Everything a runtime or renderer needs, loaded without a
//! GPU and without the importer. Units: the source file's (metres per glTF), seconds; matrices
//! column-major; model space = the glTF scene root's space.

use glam::{Mat4, Vec3};
use serde::{Deserialize, Serialize};

/// Format version written into `THRONG_baked_animation.version` (see docs/format.md).
/// This is the *major* version: readers reject newer major versions and any older one they
/// cannot read ([`OLDEST_READABLE_VERSION`]).
pub const FORMAT_VERSION: u32 = 3;

/// The oldest major version this reader still loads: a version-1 file is a version-2 file
/// without frame-time lists, a version-2 file a version-3 file whose clips are all linear
/// (3 added `clips[i].interpolation` and `clips[i].periodic`, which a version-2 reader would
/// misread as linear rows).
pub const OLDEST_READABLE_VERSION: u32 = 1;

/// Minor format version (`THRONG_baked_animation.minorVersion`): bumped for additions that
/// readers of the same major version may ignore (see docs/format.md "Version policy").
/// 1: layer masks (`masks`) and additive clips (`clips[i].additive`); 2: material variants
/// (`variants`); 3: the far tier (`farTier`); 4: its variants' colour maps
/// (`farTier.variantColours`). A writer writes the lowest minor version whose keys the file uses
/// ([`BakedAsset::minor_version`]), so a file without the newer keys is byte-identical to
/// what the writers before them wrote.
pub const FORMAT_MINOR_VERSION: u32 = 4;

/// Most material variants of one asset: variant numbers 1..=255 with 0 for the primitives' own
/// materials fit one byte of per-instance data, and no crowd shows more distinct looks of one
/// character than that from one bake.
pub const MAX_MATERIAL_VARIANTS: usize = 255;

pub use throng_contract::{
    ClipFrames, Encoding, FrameRef, GpuClipTable, Layer, LoopMode, RowInterpolation, RowTaps,
    VatEncoding, UNIFORM_FRAMES,
};

/// Axis-aligned box in model space (file units).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Aabb {
    pub min: Vec3,
    pub max: Vec3,
}

impl Aabb {
    pub const EMPTY: Aabb = Aabb {
        min: Vec3::splat(f32::INFINITY),
        max: Vec3::splat(f32::NEG_INFINITY),
    };

    pub fn extend(&mut self, p: Vec3) {
        self.min = self.min.min(p);
        self.max = self.max.max(p);
    }

    pub fn union(&self, o: &Aabb) -> Aabb {
        Aabb {
            min: self.min.min(o.min),
            max: self.max.max(o.max),
        }
    }

    pub fn diagonal(&self) -> f32 {
        (self.max - self.min).length()
    }

    pub fn is_empty(&self) -> bool {
        self.min.x > self.max.x
    }

    /// The 8 corners; corner i takes max on x, y, z where bit 0, 1, 2 of i is set.
    pub fn corners(&self) -> [Vec3; 8] {
        std::array::from_fn(|i| {
            Vec3::new(
                if i & 1 == 0 { self.min.x } else { self.max.x },
                if i & 2 == 0 { self.min.y } else { self.max.y },
                if i & 4 == 0 { self.min.z } else { self.max.z },
            )
        })
    }
}

/// One palette entry: a (node, inverse bind matrix) pair; rigid parts have identity. Serialises
/// as `palette[]` of the file (docs/format.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaletteEntry {
    /// glTF node index in the source file.
    pub node: usize,
    /// Node name (`node<index>` when unnamed).
    pub name: String,
    /// Column-major inverse bind matrix.
    pub inverse_bind_matrix: Mat4,
    /// True for a rigid part's own node (identity inverse bind matrix).
    pub rigid: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClipEvent {
    /// Clip time in seconds.
    pub time: f32,
    pub name: String,
}

/// One clip of the frame table (docs/design.md §3 "Frame table"). Serialises as `clips[]` of the
/// file (docs/format.md): field order is the file's key order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClipInfo {
    pub name: String,
    /// Global frame-table row of the clip's frame 0 (row 0 is the rest pose).
    pub first_row: u32,
    /// Frame count: `n = floor(d · fps + 1e-3) + 1` for uniform frames (1 for a zero-length
    /// clip); the length of `times` for a clip with a frame-time list.
    pub frames: u32,
    /// The sample rate asked for (frames per second); for a clip with a frame-time list, its
    /// mean rate `(n − 1) / d`, which the time rules use as positions per second.
    pub fps: f64,
    /// Mean time between rows: `duration / (frames − 1)` (0 for a one-frame clip), seconds.
    pub step: f64,
    /// Seconds.
    pub duration: f64,
    #[serde(rename = "loop")]
    pub loop_mode: LoopMode,
    pub events: Vec<ClipEvent>,
    /// Per frame `(dx, dz, dyaw)` of extracted root motion relative to frame 0 (file units,
    /// radians), when extraction was on.
    pub root_motion: Option<Vec<[f32; 3]>>,
    /// Union of the per-row bounds of this clip (`null` in the file when empty).
    #[serde(with = "crate::schema::empty_as_null")]
    pub bounds: Aabb,
    /// Frame times of an error-budgeted clip (seconds, f32 as the GPU reads them): one per
    /// frame, strictly increasing from 0 to the duration. `None`: frame k sits at `k · step`.
    /// Absent from the file for uniform frames (format version 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<Vec<f32>>,
    /// An additive clip (docs/design.md §4 "Layer masks and additive layers"): its rows hold
    /// `Δ = S_ref⁻¹ · S(t)` per palette entry, the change from the pose at this reference clip
    /// time (seconds), and a layer of it is applied on top of the base layers as `S · Δ`. Its
    /// bounds stay those of the clip's own poses. Absent from the file for ordinary clips
    /// (format 2, minor version 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additive: Option<f32>,
    /// How rows are interpolated between frames (docs/design.md §3 "Row interpolation"):
    /// `catmull-rom` only on uniform frames (`times` absent). Absent from the file for linear
    /// clips (format version 3).
    #[serde(default, skip_serializing_if = "is_linear")]
    pub interpolation: RowInterpolation,
    /// The clip's last frame is its first again (a loop's seam), so a cubic clip's taps wrap
    /// around it. Absent from the file when false (format version 3).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub periodic: bool,
    /// The degree of the clip's polynomial pieces (2 or 3) when `interpolation` is `pieces`;
    /// 0 (absent from the file) otherwise (format version 3).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub degree: u8,
}

fn is_zero(x: &u8) -> bool {
    *x == 0
}

fn is_linear(i: &RowInterpolation) -> bool {
    *i == RowInterpolation::Linear
}

/// Named attachment point whose model-space transform is stored per frame-table row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnchorInfo {
    pub name: String,
    pub node: usize,
}

impl ClipInfo {
    /// A clip of uniform frames at `fps` starting at frame-table row `first_row`: the frame
    /// count and step follow the frame grid ([`throng_contract::time::frame_count`]); no events,
    /// no root motion, no bounds.
    pub fn uniform(
        name: impl Into<String>,
        first_row: u32,
        duration: f64,
        fps: f64,
        loop_mode: LoopMode,
    ) -> ClipInfo {
        let n = throng_contract::time::frame_count(duration, fps);
        ClipInfo {
            name: name.into(),
            first_row,
            frames: n.min(u32::MAX as u64) as u32,
            fps,
            step: throng_contract::time::frame_step(n, duration),
            duration,
            loop_mode,
            events: Vec::new(),
            root_motion: None,
            bounds: Aabb::EMPTY,
            times: None,
            additive: None,
            interpolation: RowInterpolation::Linear,
            periodic: false,
            degree: 0,
        }
    }

    /// The clip's frame table as the time rules read it ([`ClipFrames::sample`] maps any clip
    /// time to a row and frac for any loop mode).
    pub fn frames_table(&self) -> ClipFrames {
        match &self.times {
            Some(t) => ClipFrames::listed(self.first_row, t),
            None => ClipFrames::uniform(self.first_row, self.frames, self.duration),
        }
    }

    /// Clip time of frame `k` (seconds).
    pub fn frame_time(&self, k: u32) -> f64 {
        self.frames_table().frame_time(k)
    }

    /// `GpuClip::flags` of this clip: additive, cubic, periodic, the pieces' degree.
    pub fn gpu_flags(&self) -> u32 {
        let mut f = 0;
        if self.additive.is_some() {
            f |= throng_contract::CLIP_ADDITIVE;
        }
        if self.interpolation == RowInterpolation::CatmullRom {
            f |= throng_contract::CLIP_CUBIC;
        }
        if self.periodic {
            f |= throng_contract::CLIP_PERIODIC;
        }
        if self.interpolation == RowInterpolation::Pieces {
            f |= ((self.degree as u32) << throng_contract::CLIP_DEGREE_SHIFT)
                & throng_contract::CLIP_DEGREE_BITS;
        }
        f
    }

    /// The rows and weights showing `row` with `frac` (weight of `next`) in this clip
    /// ([`throng_contract::row_taps`]); `row` and `next` inside the clip.
    pub fn taps(&self, row: u32, next: u32, frac: f32) -> throng_contract::RowTaps {
        let last = self.first_row.saturating_add(self.frames.max(1) - 1);
        throng_contract::row_taps(self.first_row, last, row, next, frac, self.gpu_flags())
    }

    /// The time rules at clip time `t` seconds (any sign or size) under the clip's own loop
    /// mode.
    pub fn sample(&self, t: f64) -> throng_contract::ClipTime {
        self.frames_table().sample(self.loop_mode, t)
    }
}

/// The clip table of an asset in its GPU form, one entry per clip, with the frame-time lists
/// of error-budgeted clips (a clip without bounds gets an empty box).
pub fn gpu_clip_table(clips: &[ClipInfo]) -> throng_contract::GpuClipTable {
    let mut t = throng_contract::GpuClipTable::default();
    for c in clips {
        t.push(&c.frames_table(), c.bounds.min, c.bounds.max);
        if let Some(g) = t.clips.last_mut() {
            g.flags |= c.gpu_flags();
        }
    }
    t
}

/// A layer mask (docs/design.md §4 "Layer masks and additive layers"): a weight in [0, 1] per
/// palette entry, how much a layer under this mask moves that entry. Authored as joint
/// subtrees: every entry whose node is one of `roots` or below one gets 1, the others 0. A
/// layer names mask `i` of [`BakedAsset::masks`] as mask number `i + 1` (0 = no mask).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LayerMask {
    pub name: String,
    /// The subtree roots it was made from (node names, as given to the bake).
    pub roots: Vec<String>,
    /// One weight per palette entry.
    pub weights: Vec<f32>,
}

/// Model-space transforms of the anchors per frame-table row (docs/design.md §3 "Anchors"), stored as
/// `mat3x4-f32`: 3 texels (12 f32) per anchor, texel (3a + r, row) = row r of the affine part.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AnchorTexture {
    pub anchors: Vec<AnchorInfo>,
    pub rows: u32,
    /// `rows × anchors.len() × 12` f32, row-major by frame-table row.
    pub data: Vec<f32>,
}

impl AnchorTexture {
    /// Model-space transform of `anchor` at frame-table `row` (column-major Mat4).
    pub fn matrix(&self, anchor: usize, row: u32) -> Mat4 {
        let stride = self.anchors.len() * 12;
        let base = row as usize * stride + anchor * 12;
        let r = &self.data[base..base + 12];
        Mat4::from_cols_array(&[
            r[0], r[4], r[8], 0.0, //
            r[1], r[5], r[9], 0.0, //
            r[2], r[6], r[10], 0.0, //
            r[3], r[7], r[11], 1.0,
        ])
    }
}

/// The bone texture (docs/design.md §3): `rows` frame-table rows × `width = entries ×
/// texels_per_entry` RGBA texels, stored contiguously row after row, little-endian. Texel
/// formats: 4 × f32 (`*-f32`), 4 × f16 bits (`mat3x4-f16`), 4 × i16 snorm (`quat-snorm16`).
/// On the GPU rows beyond `rows_per_layer` continue in further array layers:
/// layer = row / rows_per_layer, y = row % rows_per_layer.
#[derive(Debug, Clone, PartialEq)]
pub struct BoneTexture {
    pub encoding: Encoding,
    /// Palette entries per row.
    pub entries: u32,
    pub rows: u32,
    pub rows_per_layer: u32,
    /// `quat-snorm16`: translations are stored as `t / translation_range` (file units).
    pub translation_range: f32,
    /// `quat-snorm16`: uniform scales are stored as `s / scale_range`.
    pub scale_range: f32,
    pub data: Vec<u8>,
}

impl BoneTexture {
    /// Texels per row.
    pub fn width(&self) -> u32 {
        self.entries * self.encoding.texels_per_entry()
    }

    pub fn layers(&self) -> u32 {
        self.rows.div_ceil(self.rows_per_layer.max(1))
    }

    pub fn byte_len(&self) -> usize {
        self.data.len()
    }
}

/// Settings the asset was baked with (recorded in the file as `settings`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BakeSettings {
    /// `"auto"` or a number of frames per second, as asked for.
    pub fps: String,
    /// The encoding asked for (the texture's may differ after a fallback).
    pub requested_encoding: Encoding,
    /// Influences per vertex K (4 or 8).
    pub influences: u32,
    pub max_texture_size: u32,
    /// Whether root motion was extracted.
    pub root_motion: bool,
    /// Palette node used as motion root, if any.
    pub motion_root: Option<usize>,
}

/// Simplified index buffer of one LOD (docs/design.md §3 "Meshes").
#[derive(Debug, Clone, PartialEq)]
pub struct Lod {
    /// Index-count ratio asked for (e.g. 0.5).
    pub ratio: f32,
    pub indices: Vec<u32>,
    /// meshoptimizer's simplification error relative to the mesh extent.
    pub error: f32,
}

/// Bytes per normal texel of a VAT: octahedral (u, v) as two snorm16 in an Rg16Sint texel.
pub const VAT_NORMAL_BYTES_PER_TEXEL: u32 = 4;

/// Vertex animation texture of one primitive (docs/design.md §3 "VAT"): the skinned model-space
/// position and normal of every vertex at every frame-table row.
///
/// Layout (frame-major): a frame-table row spans `R = ceil(vertices / width)` texture rows;
/// vertex `v` of frame-table row `f` is texel `(v mod width, f·R + v div width)`. Texture row `y`
/// lives in array layer `y / rows_per_layer` at `y mod rows_per_layer` on the GPU; the CPU keeps
/// one flat table. Texels past the last vertex of a frame row are zero.
///
/// Positions are in file units (model space, after root-motion removal when that was on);
/// normals are unit vectors, octahedral-encoded (Cigolle et al. 2014, "A Survey of Efficient
/// Representations for Independent Unit Vectors") as two snorm16 (`q / 32767`).
#[derive(Debug, Clone, PartialEq)]
pub struct Vat {
    pub encoding: VatEncoding,
    /// Texels per texture row, W.
    pub width: u32,
    pub vertices: u32,
    /// Frame-table rows (rest row included).
    pub rows: u32,
    /// Texture rows per array layer.
    pub rows_per_layer: u32,
    /// `unorm16` range (file units): the box around every VAT position of the asset. Also
    /// recorded for the float encodings.
    pub min: Vec3,
    pub max: Vec3,
    /// `texture_rows() × width` position texels, little-endian, `encoding.bytes_per_texel()`
    /// bytes each.
    pub positions: Vec<u8>,
    /// `texture_rows() × width × 2` octahedral normal components (snorm16).
    pub normals: Vec<i16>,
}

impl Vat {
    /// Bytes of both textures: positions plus the two i16 channels of each normal texel.
    pub fn byte_len(&self) -> usize {
        self.positions.len() + 2 * self.normals.len()
    }

    /// Texture rows per frame-table row, `R = ceil(V / W)` (1 for an empty primitive).
    pub fn rows_per_frame(&self) -> u32 {
        self.vertices.div_ceil(self.width.max(1)).max(1)
    }

    /// Texture rows in all: `rows · R`.
    pub fn texture_rows(&self) -> u32 {
        self.rows.saturating_mul(self.rows_per_frame())
    }

    pub fn layers(&self) -> u32 {
        self.texture_rows().div_ceil(self.rows_per_layer.max(1))
    }

    /// Flat texel `(x, y)` of vertex `v` at frame-table row `f` (y counts over every layer).
    pub fn texel_of(&self, v: u32, f: u32) -> (u32, u32) {
        let w = self.width.max(1);
        (v % w, f * self.rows_per_frame() + v / w)
    }
}

/// One baked primitive: GPU vertex streams in bind space with palette-remapped influences.
#[derive(Debug, Clone, PartialEq)]
pub struct BakedPrimitive {
    /// Source glTF node, mesh and primitive indices (to match baked and source output).
    pub node_index: usize,
    pub mesh: usize,
    pub primitive: usize,
    /// Rigid part (bound to its own node's palette entry).
    pub rigid: bool,
    /// Bind-space positions (file units).
    pub positions: Vec<glam::Vec3>,
    pub normals: Vec<glam::Vec3>,
    pub tangents: Option<Vec<glam::Vec4>>,
    pub uv0: Option<Vec<glam::Vec2>>,
    /// Influences per vertex K.
    pub influences: u32,
    /// `V × K` palette indices, sorted by descending weight per vertex.
    pub joints: Vec<u16>,
    /// `V × K` unorm16 weights; each vertex's integers sum to exactly 65535.
    pub weights: Vec<u16>,
    /// Triangle list (LOD 0).
    pub indices: Vec<u32>,
    pub material: Option<usize>,
    pub lods: Vec<Lod>,
    /// Vertex animation texture of this primitive, when baked with one (docs/design.md §3 "VAT").
    /// LODs index the same vertex streams, so this one VAT serves LOD 0 and every [`Lod`].
    pub vat: Option<Vat>,
}

impl BakedPrimitive {
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    /// Each vertex's four largest influences (the bake sorts them by weight), renormalised to
    /// sum to 1, for consumers that read four (engine exports, engines' shaders): palette indices,
    /// weights, and the largest share of weight a vertex lost (0 when it had at most four).
    pub fn four_influences(&self) -> (Vec<[u16; 4]>, Vec<[f32; 4]>, f32) {
        let k = self.influences as usize;
        let mut joints = Vec::with_capacity(self.vertex_count());
        let mut weights = Vec::with_capacity(self.vertex_count());
        let mut dropped = 0.0f32;
        for i in 0..self.vertex_count() {
            let (Some(js), Some(ws)) = (
                self.joints.get(i * k..i * k + k),
                self.weights.get(i * k..i * k + k),
            ) else {
                joints.push([0; 4]);
                weights.push([0.0; 4]);
                continue;
            };
            let kept: u32 = ws.iter().take(4).map(|&q| q as u32).sum();
            dropped = dropped.max(1.0 - kept as f32 / 65535.0);
            let mut j4 = [0u16; 4];
            let mut w4 = [0f32; 4];
            for c in 0..k.min(4) {
                j4[c] = js[c];
                w4[c] = if kept > 0 {
                    ws[c] as f32 / kept as f32
                } else {
                    0.0
                };
            }
            joints.push(j4);
            weights.push(w4);
        }
        (joints, weights, dropped)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TextureTransform {
    pub offset: [f32; 2],
    /// Radians.
    pub rotation: f32,
    pub scale: [f32; 2],
}

impl Default for TextureTransform {
    fn default() -> Self {
        TextureTransform {
            offset: [0.0, 0.0],
            rotation: 0.0,
            scale: [1.0, 1.0],
        }
    }
}

/// One material variant: the material each primitive shows on an instance that picks this
/// variant. Read from glTF `KHR_materials_variants` (its `mappings`), or made at bake time from an
/// extra base-colour texture (a copy of each textured material with that texture).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MaterialVariant {
    pub name: String,
    /// One entry per [`BakedAsset::primitives`] entry: an index into [`BakedAsset::materials`], or
    /// `None` for the primitive's own material.
    pub materials: Vec<Option<usize>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BakedMaterial {
    pub name: Option<String>,
    /// Linear RGBA.
    pub base_color_factor: [f32; 4],
    /// Index into `BakedAsset::images` (sRGB).
    pub base_color_texture: Option<usize>,
    pub texture_transform: TextureTransform,
    /// The source's metallic and roughness factors, in [0, 1], written to the standard glTF
    /// part for other viewers (throng's renderer does not shade with them).
    #[serde(default)]
    pub metallic_factor: f32,
    #[serde(default = "one")]
    pub roughness_factor: f32,
    pub double_sided: bool,
}

fn one() -> f32 {
    1.0
}

/// An embedded image, kept encoded (PNG or JPEG).
#[derive(Debug, Clone, PartialEq)]
pub struct BakedImage {
    pub mime_type: String,
    pub bytes: Vec<u8>,
}

/// Everything in one baked file (docs/design.md §3).
#[derive(Debug, Clone, PartialEq)]
pub struct BakedAsset {
    /// Name of the source file (for messages).
    pub source_name: String,
    pub settings: BakeSettings,
    pub palette: Vec<PaletteEntry>,
    /// Frame table: row 0 is the rest pose, then each clip's rows.
    pub clips: Vec<ClipInfo>,
    /// Model-space bounds of all skinned vertices per frame-table row (row 0 = rest).
    pub row_bounds: Vec<Aabb>,
    pub bone_texture: BoneTexture,
    pub primitives: Vec<BakedPrimitive>,
    pub materials: Vec<BakedMaterial>,
    pub images: Vec<BakedImage>,
    pub anchors: Option<AnchorTexture>,
    /// Layer masks, at most [`throng_contract::MAX_MASKS`] (mask number `i + 1` is `masks[i]`).
    pub masks: Vec<LayerMask>,
    /// Material variants an instance can show (variant number `i + 1` is `variants[i]`; variant 0
    /// is the primitives' own materials).
    pub variants: Vec<MaterialVariant>,
    /// The far-field tier, when baked (docs/design.md §3 "Far tier"); boxed, as most assets
    /// have none.
    pub far_tier: Option<Box<crate::far_tier::FarTier>>,
}

impl BakedAsset {
    /// The minor format version this asset needs: 4 with a far tier that recolours variants, 3
    /// with a far tier, 2 with material variants, else 1 (see [`FORMAT_MINOR_VERSION`]).
    pub fn minor_version(&self) -> u32 {
        if self
            .far_tier
            .as_ref()
            .is_some_and(|f| !f.variant_colours.is_empty())
        {
            4
        } else if self.far_tier.is_some() {
            3
        } else if !self.variants.is_empty() {
            2
        } else {
            1
        }
    }

    /// Finds a material variant by name; returns its variant number (index + 1; 0 is the
    /// primitives' own materials).
    pub fn find_variant(&self, name: &str) -> Option<u32> {
        self.variants
            .iter()
            .position(|v| v.name == name)
            .map(|i| i as u32 + 1)
    }

    /// The material primitive `primitive` shows in variant number `variant` (0: its own), an
    /// index into [`Self::materials`]; `None` when it has none.
    pub fn variant_material(&self, variant: u32, primitive: usize) -> Option<usize> {
        let own = self.primitives.get(primitive)?.material;
        match variant.checked_sub(1) {
            None => own,
            Some(v) => self
                .variants
                .get(v as usize)
                .and_then(|mv| mv.materials.get(primitive).copied().flatten())
                .or(own),
        }
    }

    /// Finds a mask by name; returns its mask number (index + 1), as layers carry it.
    pub fn find_mask(&self, name: &str) -> Option<u32> {
        self.masks
            .iter()
            .position(|m| m.name == name)
            .map(|i| i as u32 + 1)
    }

    /// Number of frame-table rows (rest row included).
    pub fn rows(&self) -> u32 {
        self.bone_texture.rows
    }

    /// Bounds of every pose: the union of every frame-table row's bounds (model space, file
    /// units; empty when no row has any).
    pub fn pose_bounds(&self) -> Aabb {
        self.row_bounds.iter().fold(Aabb::EMPTY, |a, b| a.union(b))
    }

    /// Bounds of the rest pose (row 0).
    pub fn rest_bounds(&self) -> Aabb {
        self.row_bounds.first().copied().unwrap_or(Aabb::EMPTY)
    }

    /// Finds a clip by name, or by index given as a decimal string.
    pub fn find_clip(&self, name_or_index: &str) -> Option<usize> {
        self.clips
            .iter()
            .position(|c| c.name == name_or_index)
            .or_else(|| {
                name_or_index
                    .parse::<usize>()
                    .ok()
                    .filter(|i| *i < self.clips.len())
            })
    }
}
