//! The JSON of a baked file: the subset of glTF 2.0 that throng writes (glTF 2.0 §5 "Properties
//! Reference") and the `THRONG_baked_animation` extension (docs/format.md). Plain serde structs:
//! field order is fixed, so the same asset always serialises to the same bytes.

use serde::{Deserialize, Serialize};

use crate::types::{Aabb, AnchorInfo, BakeSettings, ClipInfo, Encoding, PaletteEntry, VatEncoding};

pub const EXTENSION_NAME: &str = "THRONG_baked_animation";
pub const TEXTURE_TRANSFORM: &str = "KHR_texture_transform";

/// glTF accessor/bufferView constants (glTF 2.0 §5.1, §5.11).
pub const FLOAT: u32 = 5126;
pub const UNSIGNED_INT: u32 = 5125;
pub const ARRAY_BUFFER: u32 = 34962;
pub const ELEMENT_ARRAY_BUFFER: u32 = 34963;

fn is_false(b: &bool) -> bool {
    !*b
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Root {
    pub asset: AssetInfo,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extensions_used: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extensions_required: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scene: Option<usize>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scenes: Vec<Scene>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<Node>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub meshes: Vec<Mesh>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub materials: Vec<Material>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub textures: Vec<Texture>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<Image>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub accessors: Vec<Accessor>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub buffer_views: Vec<BufferView>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub buffers: Vec<Buffer>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<RootExtensions>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssetInfo {
    pub version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generator: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct RootExtensions {
    /// Kept as a raw value so the version can be checked before the schema is parsed.
    #[serde(rename = "THRONG_baked_animation", default)]
    pub baked: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Scene {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<usize>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Node {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mesh: Option<usize>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Mesh {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub primitives: Vec<MeshPrimitive>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct MeshPrimitive {
    pub attributes: Attributes,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub indices: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub material: Option<usize>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Attributes {
    #[serde(rename = "POSITION")]
    pub position: usize,
    #[serde(rename = "NORMAL")]
    pub normal: usize,
    #[serde(
        rename = "TEXCOORD_0",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub texcoord_0: Option<usize>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Material {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default)]
    pub pbr_metallic_roughness: Pbr,
    #[serde(default, skip_serializing_if = "is_false")]
    pub double_sided: bool,
}

fn white() -> [f32; 4] {
    [1.0; 4]
}

fn one() -> f32 {
    1.0
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pbr {
    #[serde(default = "white")]
    pub base_color_factor: [f32; 4],
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_color_texture: Option<TextureInfo>,
    #[serde(default = "one")]
    pub metallic_factor: f32,
    #[serde(default = "one")]
    pub roughness_factor: f32,
}

impl Default for Pbr {
    fn default() -> Self {
        Pbr {
            base_color_factor: white(),
            base_color_texture: None,
            metallic_factor: 1.0,
            roughness_factor: 1.0,
        }
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct TextureInfo {
    pub index: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<TextureInfoExtensions>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct TextureInfoExtensions {
    #[serde(rename = "KHR_texture_transform", default)]
    pub texture_transform: Option<TextureTransformJson>,
}

fn unit2() -> [f32; 2] {
    [1.0, 1.0]
}

/// KHR_texture_transform (offset, rotation in radians, scale).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TextureTransformJson {
    #[serde(default)]
    pub offset: [f32; 2],
    #[serde(default)]
    pub rotation: f32,
    #[serde(default = "unit2")]
    pub scale: [f32; 2],
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Texture {
    #[serde(default)]
    pub source: Option<usize>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Image {
    #[serde(default)]
    pub buffer_view: Option<usize>,
    #[serde(default)]
    pub mime_type: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Accessor {
    pub buffer_view: usize,
    pub component_type: u32,
    pub count: usize,
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<Vec<f32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<Vec<f32>>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BufferView {
    pub buffer: usize,
    #[serde(default)]
    pub byte_offset: usize,
    pub byte_length: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<u32>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Buffer {
    pub byte_length: usize,
}

// ---------------------------------------------------------------------------------------------
// THRONG_baked_animation (docs/format.md). A bufferView index of `null` means an empty array.
// Unknown keys are ignored (minor versions may add keys; docs/format.md "Version policy").
// Settings, palette entries, clips (with their events) and anchors are the domain types of
// types.rs, serialised as they are: one definition of each record.

/// An empty box is written as `null` and read back as [`Aabb::EMPTY`] (a clip with no skinned
/// vertices has no bounds).
pub(crate) mod empty_as_null {
    use super::Aabb;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(b: &Aabb, s: S) -> Result<S::Ok, S::Error> {
        (!b.is_empty()).then_some(b).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Aabb, D::Error> {
        Ok(Option::<Aabb>::deserialize(d)?.unwrap_or(Aabb::EMPTY))
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BakedExt {
    pub version: u32,
    pub minor_version: u32,
    pub source_name: String,
    pub settings: BakeSettings,
    pub palette: Vec<PaletteEntry>,
    pub clips: Vec<ClipInfo>,
    pub row_bounds: Option<usize>,
    pub bone_texture: BoneTextureJson,
    pub primitives: Vec<PrimitiveJson>,
    pub anchors: Option<AnchorsJson>,
    /// Layer masks (minor version 1 of format 2; absent when there are none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub masks: Vec<crate::types::LayerMask>,
    /// Material variants (minor version 2; absent when there are none): per variant its name and
    /// one material index (into the standard part's `materials`) or `null` per primitive.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<crate::types::MaterialVariant>,
    /// The far tier (minor version 3; absent when not baked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub far_tier: Option<FarTierJson>,
    /// `fnv1a64:` + 16 hex digits over the whole file with these 16 digits written as `0`.
    pub checksum: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BoneTextureJson {
    pub encoding: Encoding,
    pub entries: u32,
    pub rows: u32,
    pub rows_per_layer: u32,
    pub width: u32,
    pub layers: u32,
    pub bytes_per_texel: u32,
    pub translation_range: f32,
    pub scale_range: f32,
    pub buffer_view: Option<usize>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LodJson {
    pub ratio: f32,
    pub error: f32,
    pub index_count: usize,
    pub indices: Option<usize>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PrimitiveJson {
    pub node: usize,
    pub mesh: usize,
    pub primitive: usize,
    pub rigid: bool,
    pub static_mesh: Option<usize>,
    pub material: Option<usize>,
    pub vertex_count: usize,
    pub index_count: usize,
    pub influences: u32,
    pub positions: Option<usize>,
    pub normals: Option<usize>,
    pub tangents: Option<usize>,
    pub uv0: Option<usize>,
    pub joints: Option<usize>,
    pub weights: Option<usize>,
    pub indices: Option<usize>,
    pub lods: Vec<LodJson>,
    /// Absent when the primitive has no VAT (minor version 1 addition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vat: Option<VatJson>,
}

/// A primitive's vertex animation texture (docs/format.md "VAT").
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VatJson {
    pub encoding: VatEncoding,
    pub width: u32,
    pub vertices: u32,
    pub rows: u32,
    pub rows_per_frame: u32,
    pub rows_per_layer: u32,
    pub layers: u32,
    pub min: [f32; 3],
    pub max: [f32; 3],
    /// `rows · rowsPerFrame · width` texels of `bytesPerTexel` bytes.
    pub bytes_per_texel: u32,
    pub positions: Option<usize>,
    /// `rows · rowsPerFrame · width` texels of 2 × i16 (octahedral snorm16).
    pub normals: Option<usize>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AnchorsJson {
    pub anchors: Vec<AnchorInfo>,
    pub rows: u32,
    pub buffer_view: Option<usize>,
}

/// The far tier (docs/format.md "Far tier").
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FarTierJson {
    pub tile: u32,
    pub azimuths: u32,
    pub elevations: Vec<f32>,
    pub centre: [f32; 3],
    pub radius: f32,
    pub clips: Vec<crate::far_tier::FarClip>,
    /// `tiles · tile²` RGBA8 texels.
    pub colour: Option<usize>,
    /// `tiles · tile²` RGBA8 texels.
    pub surface: Option<usize>,
    /// Minor version 4, absent when the asset has no variants: `variants × min(primitives,
    /// 255) × 12` f32, each variant's colour map per primitive (rows of `[M | b]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant_colours: Option<usize>,
}
