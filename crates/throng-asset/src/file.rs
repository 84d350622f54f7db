//! Reading and writing baked files (docs/design.md §3 "File"; schema in docs/format.md).
//!
//! A baked file is a glTF 2.0 binary (`.glb`). Its standard part is the asset as a static model
//! in the rest pose (one mesh and node per baked primitive, pre-skinned to row 0 by
//! [`crate::decode`]), so any glTF viewer shows the character standing; the root extension
//! `THRONG_baked_animation` holds everything else and points at buffer views of the one binary
//! buffer. Writes are atomic and deterministic; reads check every length, offset and index before
//! using it and never panic on a damaged file.

use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use glam::{Vec2, Vec3, Vec4};
use serde::Serialize;

use crate::decode::{self, Skinning};
use crate::error::AssetError;
use crate::far_tier::{FarTier, FarVariantColour};
use crate::glb;
use crate::schema::*;
use crate::types::*;
use crate::validate::validate;

/// Prefix of the checksum value; the 16 hex digits follow it.
const CHECKSUM_PREFIX: &str = "fnv1a64:";
const CHECKSUM_KEY: &[u8] = b"\"checksum\":\"fnv1a64:";

/// Writes `asset` to `path` atomically: the bytes go to a temporary file in the same folder,
/// which is flushed to disk and then renamed over `path`, so `path` is never a partial file.
pub fn write(asset: &BakedAsset, path: &Path) -> Result<(), AssetError> {
    let file = path.display().to_string();
    let bytes = encode(asset, &file)?;
    let werr = |source| AssetError::Write {
        file: file.clone(),
        source,
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let name = path.file_name().ok_or_else(|| {
        werr(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "the path names no file",
        ))
    })?;
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let tmp = dir.join(format!(
        ".{}.{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(&bytes)?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(werr(e));
    }
    Ok(())
}

/// The bytes of the baked file of `asset` (what [`write()`] writes).
pub fn to_glb_bytes(asset: &BakedAsset) -> Result<Vec<u8>, AssetError> {
    encode(asset, &asset.source_name)
}

/// Reads a baked file. Needs no GPU and no importer.
pub fn read(path: &Path) -> Result<BakedAsset, AssetError> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| AssetError::Read {
        file: file.clone(),
        source,
    })?;
    from_glb_bytes(&bytes, &file)
}

/// Parses the bytes of a baked file; `name` names it in error messages.
pub fn from_glb_bytes(bytes: &[u8], name: &str) -> Result<BakedAsset, AssetError> {
    decode_file(bytes, name)
}

// ---------------------------------------------------------------------------------------------
// Writing

/// Little-endian bytes of numbers (the GLB byte order, glTF 2.0 §3.6.1).
fn le<const N: usize, T: Copy>(v: &[T], to: fn(T) -> [u8; N]) -> Vec<u8> {
    v.iter().flat_map(|x| to(*x)).collect()
}

fn le_f32(v: &[f32]) -> Vec<u8> {
    le(v, f32::to_le_bytes)
}

fn le_u16(v: &[u16]) -> Vec<u8> {
    le(v, u16::to_le_bytes)
}

fn le_i16(v: &[i16]) -> Vec<u8> {
    le(v, i16::to_le_bytes)
}

fn le_u32(v: &[u32]) -> Vec<u8> {
    le(v, u32::to_le_bytes)
}

fn flat3(v: &[Vec3]) -> Vec<f32> {
    v.iter().flat_map(|p| p.to_array()).collect()
}

/// The binary buffer under construction: every buffer view starts 16-byte aligned.
#[derive(Default)]
struct Bin {
    data: Vec<u8>,
    views: Vec<BufferView>,
}

impl Bin {
    /// Appends a view; an empty array gets no view (`None`, written as `null`).
    fn view(&mut self, bytes: &[u8], target: Option<u32>) -> Option<usize> {
        if bytes.is_empty() {
            return None;
        }
        self.data.resize(self.data.len().next_multiple_of(16), 0);
        self.views.push(BufferView {
            buffer: 0,
            byte_offset: self.data.len(),
            byte_length: bytes.len(),
            target,
        });
        self.data.extend_from_slice(bytes);
        Some(self.views.len() - 1)
    }
}

/// The root document as written: the extension is a typed struct, so its keys come out in
/// field order whatever serde_json features other crates enable.
#[derive(Serialize)]
struct RootExtensionsOut<'a> {
    #[serde(rename = "THRONG_baked_animation")]
    baked: &'a BakedExt,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RootOut<'a> {
    #[serde(flatten)]
    root: &'a Root,
    extensions: RootExtensionsOut<'a>,
}

/// Materials, one texture per image, and the images (into `bin`); returns whether any material
/// uses `KHR_texture_transform`.
fn encode_materials(asset: &BakedAsset, bin: &mut Bin, root: &mut Root) -> bool {
    let mut uses_transform = false;
    for m in &asset.materials {
        let base_color_texture = m.base_color_texture.map(|index| {
            let t = m.texture_transform;
            let ext = (t != TextureTransform::default()).then(|| {
                uses_transform = true;
                TextureInfoExtensions {
                    texture_transform: Some(TextureTransformJson {
                        offset: t.offset,
                        rotation: t.rotation,
                        scale: t.scale,
                    }),
                }
            });
            TextureInfo {
                index,
                extensions: ext,
            }
        });
        root.materials.push(Material {
            name: m.name.clone(),
            pbr_metallic_roughness: Pbr {
                base_color_factor: m.base_color_factor,
                base_color_texture,
                metallic_factor: m.metallic_factor,
                roughness_factor: m.roughness_factor,
            },
            double_sided: m.double_sided,
        });
    }
    for (i, img) in asset.images.iter().enumerate() {
        root.textures.push(Texture { source: Some(i) });
        root.images.push(Image {
            buffer_view: bin.view(&img.bytes, None),
            mime_type: Some(img.mime_type.clone()),
        });
    }

    uses_transform
}

/// Packs the GLB and writes the checksum over every byte into its place (docs/format.md
/// "checksum").
fn seal(json: &[u8], bin: &[u8], file: &str) -> Result<Vec<u8>, AssetError> {
    let mut bytes = glb::pack(json, bin).map_err(|what| AssetError::Invalid {
        file: file.to_string(),
        element: "file size".into(),
        what,
    })?;
    let at = checksum_digits(&bytes[..20 + json.len()]).ok_or_else(|| AssetError::Invalid {
        file: file.to_string(),
        element: "checksum".into(),
        what: "the checksum key is missing from the written JSON".into(),
    })?;
    let sum = format!("{:016x}", checksum(&bytes, at));
    bytes[at..at + 16].copy_from_slice(sum.as_bytes());
    Ok(bytes)
}

fn encode(asset: &BakedAsset, file: &str) -> Result<Vec<u8>, AssetError> {
    validate(asset, file)?;
    let mut bin = Bin::default();
    let mut root = Root {
        asset: AssetInfo {
            version: "2.0".into(),
            generator: Some(format!("throng-asset {}", env!("CARGO_PKG_VERSION"))),
        },
        ..Root::default()
    };

    // Bone texture, row bounds and anchors first: the big aligned blocks.
    let tex = &asset.bone_texture;
    let tex_view = bin.view(&tex.data, None);
    let bounds: Vec<f32> = asset
        .row_bounds
        .iter()
        .flat_map(|b| [b.min.to_array(), b.max.to_array()].concat())
        .collect();
    let bounds_view = bin.view(&le_f32(&bounds), None);
    let anchors = asset.anchors.as_ref().map(|a| AnchorsJson {
        anchors: a.anchors.clone(),
        rows: a.rows,
        buffer_view: bin.view(&le_f32(&a.data), None),
    });

    let far_tier = asset.far_tier.as_ref().map(|f| FarTierJson {
        tile: f.tile,
        azimuths: f.azimuths,
        elevations: f.elevations.clone(),
        centre: f.centre.to_array(),
        radius: f.radius,
        clips: f.clips.clone(),
        colour: bin.view(&f.colour, None),
        surface: bin.view(&f.surface, None),
        variant_colours: {
            let words: Vec<f32> = f
                .variant_colours
                .iter()
                .flatten()
                .flat_map(|m| m.0.rows.concat())
                .collect();
            bin.view(&le_f32(&words), None)
        },
    });

    let mut prims = Vec::with_capacity(asset.primitives.len());
    for (i, p) in asset.primitives.iter().enumerate() {
        prims.push(encode_primitive(asset, file, i, p, &mut bin, &mut root)?);
    }

    let uses_transform = encode_materials(asset, &mut bin, &mut root);
    if uses_transform {
        root.extensions_used.push(TEXTURE_TRANSFORM.into());
    }
    root.extensions_used.push(EXTENSION_NAME.into());
    root.scene = Some(0);
    root.scenes.push(Scene {
        nodes: (0..root.nodes.len()).collect(),
    });
    if !bin.data.is_empty() {
        root.buffers.push(Buffer {
            byte_length: bin.data.len(),
        });
    }
    root.buffer_views = std::mem::take(&mut bin.views);

    let ext = BakedExt {
        version: FORMAT_VERSION,
        minor_version: asset.minor_version(),
        source_name: asset.source_name.clone(),
        settings: asset.settings.clone(),
        palette: asset.palette.clone(),
        clips: asset.clips.clone(),
        row_bounds: bounds_view,
        bone_texture: BoneTextureJson {
            encoding: tex.encoding,
            entries: tex.entries,
            rows: tex.rows,
            rows_per_layer: tex.rows_per_layer,
            width: tex.width(),
            layers: tex.layers(),
            bytes_per_texel: tex.encoding.bytes_per_texel(),
            translation_range: tex.translation_range,
            scale_range: tex.scale_range,
            buffer_view: tex_view,
        },
        primitives: prims,
        anchors,
        masks: asset.masks.clone(),
        variants: asset.variants.clone(),
        far_tier,
        checksum: format!("{CHECKSUM_PREFIX}{}", "0".repeat(16)),
    };
    let json = serde_json::to_vec(&RootOut {
        root: &root,
        extensions: RootExtensionsOut { baked: &ext },
    })
    .map_err(|source| AssetError::Json {
        file: file.to_string(),
        element: "glTF JSON".into(),
        source,
    })?;
    seal(&json, &bin.data, file)
}

/// One primitive: GPU streams for the extension, and the static rest-pose mesh.
fn encode_primitive(
    asset: &BakedAsset,
    file: &str,
    i: usize,
    p: &BakedPrimitive,
    bin: &mut Bin,
    root: &mut Root,
) -> Result<PrimitiveJson, AssetError> {
    let v = p.positions.len();
    let positions = bin.view(&le_f32(&flat3(&p.positions)), None);
    let normals = bin.view(&le_f32(&flat3(&p.normals)), None);
    let tangents = p.tangents.as_ref().and_then(|t| {
        let f: Vec<f32> = t.iter().flat_map(|x| x.to_array()).collect();
        bin.view(&le_f32(&f), None)
    });
    let uv0 = p.uv0.as_ref().and_then(|t| {
        let f: Vec<f32> = t.iter().flat_map(|x| x.to_array()).collect();
        bin.view(&le_f32(&f), Some(ARRAY_BUFFER))
    });
    let joints = bin.view(&le_u16(&p.joints), None);
    let weights = bin.view(&le_u16(&p.weights), None);
    let indices = bin.view(&le_u32(&p.indices), Some(ELEMENT_ARRAY_BUFFER));
    let lods = p
        .lods
        .iter()
        .map(|l| LodJson {
            ratio: l.ratio,
            error: l.error,
            index_count: l.indices.len(),
            indices: bin.view(&le_u32(&l.indices), None),
        })
        .collect();

    let vat = p.vat.as_ref().map(|t| VatJson {
        encoding: t.encoding,
        width: t.width,
        vertices: t.vertices,
        rows: t.rows,
        rows_per_frame: t.rows_per_frame(),
        rows_per_layer: t.rows_per_layer,
        layers: t.layers(),
        min: t.min.to_array(),
        max: t.max.to_array(),
        bytes_per_texel: t.encoding.bytes_per_texel(),
        positions: bin.view(&t.positions, None),
        normals: bin.view(&le_i16(&t.normals), None),
    });

    // Static part: pre-skinned to the rest row with the same decoder the GPU mirrors. An
    // accessor needs at least one element, so an empty primitive gets no static mesh.
    let mut static_mesh = None;
    if let (true, Some(index_view)) = (v > 0, indices) {
        let rest = decode::skin_vertices(asset, i, &[], Skinning::Linear).map_err(|source| {
            AssetError::Decode {
                file: file.to_string(),
                primitive: i,
                source,
            }
        })?;
        if let Some(n) = rest.positions.iter().position(|x| !x.is_finite()) {
            return Err(AssetError::Invalid {
                file: file.to_string(),
                element: format!("primitives[{i}] rest pose"),
                what: format!(
                    "vertex {n} skins to a non-finite position: the bone texture's row 0 is broken"
                ),
            });
        }
        let (mut lo, mut hi) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
        for x in &rest.positions {
            lo = lo.min(*x);
            hi = hi.max(*x);
        }
        // Viewers require unit normals; a singular skin matrix gives none, so use +Y there.
        let nrm: Vec<Vec3> = rest
            .normals
            .iter()
            .map(|n| n.normalize_or(Vec3::Y))
            .collect();
        let pos_view = bin.view(&le_f32(&flat3(&rest.positions)), Some(ARRAY_BUFFER));
        let nrm_view = bin.view(&le_f32(&flat3(&nrm)), Some(ARRAY_BUFFER));
        let mut accessor = |view: Option<usize>, ty: &str, ct: u32, count: usize, mm: bool| {
            root.accessors.push(Accessor {
                buffer_view: view.unwrap_or(0),
                component_type: ct,
                count,
                kind: ty.into(),
                min: mm.then(|| lo.to_array().to_vec()),
                max: mm.then(|| hi.to_array().to_vec()),
            });
            root.accessors.len() - 1
        };
        let position = accessor(pos_view, "VEC3", FLOAT, v, true);
        let normal = accessor(nrm_view, "VEC3", FLOAT, v, false);
        let texcoord_0 = uv0.map(|u| accessor(Some(u), "VEC2", FLOAT, v, false));
        let idx = accessor(
            Some(index_view),
            "SCALAR",
            UNSIGNED_INT,
            p.indices.len(),
            false,
        );
        root.meshes.push(Mesh {
            name: None,
            primitives: vec![MeshPrimitive {
                attributes: Attributes {
                    position,
                    normal,
                    texcoord_0,
                },
                indices: Some(idx),
                material: p.material,
            }],
        });
        root.nodes.push(Node {
            name: Some(format!(
                "primitive {i} (source node {}, mesh {}, primitive {})",
                p.node_index, p.mesh, p.primitive
            )),
            mesh: Some(root.meshes.len() - 1),
        });
        static_mesh = Some(root.meshes.len() - 1);
    }

    Ok(PrimitiveJson {
        node: p.node_index,
        mesh: p.mesh,
        primitive: p.primitive,
        rigid: p.rigid,
        static_mesh,
        material: p.material,
        vertex_count: v,
        index_count: p.indices.len(),
        influences: p.influences,
        positions,
        normals,
        tangents,
        uv0,
        joints,
        weights,
        indices,
        lods,
        vat,
    })
}

// ---------------------------------------------------------------------------------------------
// Checksum: FNV-1a 64 over the whole file with the 16 checksum digits read as ASCII `0`.

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

fn fnv(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(FNV_PRIME);
    }
    h
}

fn checksum(bytes: &[u8], digits_at: usize) -> u64 {
    let h = fnv(FNV_OFFSET, &bytes[..digits_at]);
    let h = fnv(h, b"0000000000000000");
    fnv(h, &bytes[digits_at + 16..])
}

/// Byte offset of the 16 checksum digits in `head` (the GLB header and JSON chunk).
fn checksum_digits(head: &[u8]) -> Option<usize> {
    let at = head
        .windows(CHECKSUM_KEY.len())
        .rposition(|w| w == CHECKSUM_KEY)?
        + CHECKSUM_KEY.len();
    (at + 16 <= head.len()).then_some(at)
}

// ---------------------------------------------------------------------------------------------
// Reading

struct Reader<'a> {
    file: &'a str,
    bin: &'a [u8],
    views: &'a [BufferView],
}

impl<'a> Reader<'a> {
    fn corrupt(&self, element: impl Into<String>, what: impl Into<String>) -> AssetError {
        AssetError::Corrupt {
            file: self.file.to_string(),
            element: element.into(),
            what: what.into(),
        }
    }

    /// Bytes of buffer view `index` (`None` = empty), checked against the BIN chunk.
    fn view(&self, index: Option<usize>, element: &str) -> Result<&'a [u8], AssetError> {
        let Some(i) = index else {
            return Ok(&[]);
        };
        let v = self.views.get(i).ok_or_else(|| {
            self.corrupt(
                element,
                format!(
                    "buffer view {i} does not exist ({} views)",
                    self.views.len()
                ),
            )
        })?;
        if v.buffer != 0 {
            return Err(self.corrupt(element, format!("buffer view {i} is not in the GLB buffer")));
        }
        v.byte_offset
            .checked_add(v.byte_length)
            .and_then(|end| self.bin.get(v.byte_offset..end))
            .ok_or_else(|| {
                self.corrupt(
                    element,
                    format!(
                        "buffer view {i} (bytes {}..+{}) runs past the binary chunk ({} bytes)",
                        v.byte_offset,
                        v.byte_length,
                        self.bin.len()
                    ),
                )
            })
    }

    /// The view as `count` items of `size` bytes.
    fn sized(
        &self,
        index: Option<usize>,
        element: &str,
        count: usize,
        size: usize,
    ) -> Result<&'a [u8], AssetError> {
        let b = self.view(index, element)?;
        if Some(b.len()) != count.checked_mul(size) {
            return Err(self.corrupt(
                element,
                format!("{} bytes, expected {count} × {size}", b.len()),
            ));
        }
        Ok(b)
    }

    /// `count` little-endian values of `N` bytes each, decoded by `from`.
    fn le<const N: usize, T>(
        &self,
        index: Option<usize>,
        element: &str,
        count: usize,
        from: fn([u8; N]) -> T,
    ) -> Result<Vec<T>, AssetError> {
        let b = self.sized(index, element, count, N)?;
        Ok(b.chunks_exact(N)
            .map(|c| {
                let mut a = [0u8; N];
                a.copy_from_slice(c);
                from(a)
            })
            .collect())
    }

    fn f32s(&self, i: Option<usize>, el: &str, n: usize) -> Result<Vec<f32>, AssetError> {
        self.le(i, el, n, f32::from_le_bytes)
    }

    fn u16s(&self, i: Option<usize>, el: &str, n: usize) -> Result<Vec<u16>, AssetError> {
        self.le(i, el, n, u16::from_le_bytes)
    }

    fn u32s(&self, i: Option<usize>, el: &str, n: usize) -> Result<Vec<u32>, AssetError> {
        self.le(i, el, n, u32::from_le_bytes)
    }

    fn vec3s(
        &self,
        index: Option<usize>,
        element: &str,
        count: usize,
    ) -> Result<Vec<Vec3>, AssetError> {
        let f = self.f32s(index, element, count.saturating_mul(3))?;
        Ok(f.chunks_exact(3).map(Vec3::from_slice).collect())
    }
}

fn decode_file(bytes: &[u8], file: &str) -> Result<BakedAsset, AssetError> {
    let chunks = glb::unpack(bytes, file)?;
    let json_error = |source| AssetError::Json {
        file: file.to_string(),
        element: "glTF JSON chunk".into(),
        source,
    };
    let value: serde_json::Value = serde_json::from_slice(chunks.json).map_err(json_error)?;
    // An ordinary glTF file is "not baked", not "corrupt": look for the extension before
    // reading the JSON as the shape throng writes.
    if value
        .get("extensions")
        .and_then(|e| e.get(crate::schema::EXTENSION_NAME))
        .is_none()
    {
        return Err(AssetError::NotBaked {
            file: file.to_string(),
        });
    }
    let root: Root = serde_json::from_value(value).map_err(json_error)?;
    let ext_value = root
        .extensions
        .as_ref()
        .and_then(|e| e.baked.as_ref())
        .ok_or_else(|| AssetError::NotBaked {
            file: file.to_string(),
        })?;
    // The version decides how to read the rest, so it is checked before anything else.
    match ext_value.get("version") {
        Some(v)
            if v.as_u64().is_some_and(|v| {
                (OLDEST_READABLE_VERSION as u64..=FORMAT_VERSION as u64).contains(&v)
            }) => {}
        other => {
            return Err(AssetError::Version {
                file: file.to_string(),
                found: other.map_or("(none)".to_string(), |v| v.to_string()),
                oldest: OLDEST_READABLE_VERSION,
                expected: FORMAT_VERSION,
            })
        }
    }
    verify_checksum(bytes, chunks.json, ext_value, file)?;
    let ext: BakedExt =
        serde_json::from_value(ext_value.clone()).map_err(|source| AssetError::Json {
            file: file.to_string(),
            element: EXTENSION_NAME.into(),
            source,
        })?;
    let bin = glb::buffer_bytes(chunks.bin, &root.buffers, file)?;
    check_view_alignment(&root.buffer_views, file)?;
    let r = Reader {
        file,
        bin,
        views: &root.buffer_views,
    };
    let asset = build_asset(&r, &root, &ext)?;
    validate(&asset, file)?;
    Ok(asset)
}

/// docs/format.md: every view starts at a multiple of 16 bytes, so that the GPU can upload
/// texel and vertex data in place (the writer pads to it).
const VIEW_ALIGNMENT: usize = 16;

fn check_view_alignment(views: &[BufferView], file: &str) -> Result<(), AssetError> {
    match views
        .iter()
        .position(|v| !v.byte_offset.is_multiple_of(VIEW_ALIGNMENT))
    {
        Some(i) => Err(AssetError::Corrupt {
            file: file.to_string(),
            element: format!("bufferViews[{i}].byteOffset"),
            what: format!(
                "{} is not a multiple of {VIEW_ALIGNMENT}",
                views[i].byte_offset
            ),
        }),
        None => Ok(()),
    }
}

fn verify_checksum(
    bytes: &[u8],
    json: &[u8],
    ext: &serde_json::Value,
    file: &str,
) -> Result<(), AssetError> {
    let corrupt = |what: String| AssetError::Corrupt {
        file: file.to_string(),
        element: format!("{EXTENSION_NAME}.checksum"),
        what,
    };
    let stored = ext
        .get("checksum")
        .and_then(|v| v.as_str())
        .and_then(|s| s.strip_prefix(CHECKSUM_PREFIX))
        .and_then(|h| u64::from_str_radix(h, 16).ok())
        .ok_or_else(|| corrupt("missing or not `fnv1a64:` + 16 hex digits".into()))?;
    // The JSON chunk starts at byte 20 of the file (after the 12-byte header and chunk header).
    let at = checksum_digits(json)
        .map(|a| a + 20)
        .ok_or_else(|| corrupt("the checksum key is not written as throng writes it".into()))?;
    let computed = checksum(bytes, at);
    if computed != stored {
        return Err(corrupt(format!(
            "the file's bytes hash to {computed:016x} but it stores {stored:016x}"
        )));
    }
    Ok(())
}

/// Reads every element of a JSON array with its index (for messages); the first error wins.
fn read_each<J, T>(
    items: &[J],
    read: impl Fn(usize, &J) -> Result<T, AssetError>,
) -> Result<Vec<T>, AssetError> {
    items.iter().enumerate().map(|(i, j)| read(i, j)).collect()
}

fn build_asset(r: &Reader, root: &Root, ext: &BakedExt) -> Result<BakedAsset, AssetError> {
    let bone_texture = read_bone_texture(r, ext)?;
    let row_bounds = read_row_bounds(r, ext)?;
    let primitives = read_each(&ext.primitives, |i, p| read_primitive(r, root, i, p))?;
    let images = read_images(r, root)?;
    let materials = read_each(&root.materials, |i, m| read_material(r, root, i, m))?;
    let anchors = read_anchors(r, ext)?;
    let far_tier = match &ext.far_tier {
        Some(j) => Some(Box::new(read_far_tier(
            r,
            j,
            ext.clips.len(),
            ext.variants.len(),
            ext.primitives.len(),
        )?)),
        None => None,
    };
    Ok(BakedAsset {
        source_name: ext.source_name.clone(),
        settings: ext.settings.clone(),
        palette: ext.palette.clone(),
        clips: ext.clips.clone(),
        row_bounds,
        bone_texture,
        primitives,
        materials,
        images,
        anchors,
        masks: ext.masks.clone(),
        variants: ext.variants.clone(),
        far_tier,
    })
}

/// The far tier, its layout checked against its pictures' sizes before anything is allocated.
/// The far tier; `clips`, `variants` and `primitives` are the asset's counts.
fn read_far_tier(
    r: &Reader,
    j: &FarTierJson,
    clips: usize,
    variants: usize,
    primitives: usize,
) -> Result<FarTier, AssetError> {
    let el = "farTier";
    let mut next = 0u64;
    let contiguous = j.clips.iter().all(|c| {
        let ok = c.first_frame as u64 == next && c.frames >= 1;
        next += c.frames as u64;
        ok
    });
    let elevations_ok = j
        .elevations
        .iter()
        .all(|e| e.is_finite() && e.abs() <= std::f32::consts::FRAC_PI_2)
        && j.elevations.windows(2).all(|w| w[0] < w[1]);
    let tiles = next * j.azimuths as u64 * j.elevations.len() as u64;
    let texels = tiles.saturating_mul((j.tile as u64).pow(2));
    if j.tile == 0
        || j.tile > MAX_FAR_TILE
        || j.azimuths == 0
        || j.elevations.is_empty()
        || !elevations_ok
        || j.clips.len() != clips
        || !contiguous
        || !(j.radius.is_finite() && j.radius > 0.0)
        || !j.centre.iter().all(|c| c.is_finite())
        || texels > MAX_FAR_TEXELS
    {
        return Err(r.corrupt(
            el,
            format!(
                "tile {}, {} azimuths, elevations {:?}, radius {}, {} clips (the asset has {clips}) with frames {:?}: not a far tier this reader can show (tiles of 1..={MAX_FAR_TILE} texels, at most {MAX_FAR_TEXELS} texels, frames contiguous from 0, elevations increasing within ±90°)",
                j.tile,
                j.azimuths,
                j.elevations,
                j.radius,
                j.clips.len(),
                j.clips.iter().map(|c| (c.first_frame, c.frames)).collect::<Vec<_>>()
            ),
        ));
    }
    let texels = texels as usize;
    Ok(FarTier {
        tile: j.tile,
        azimuths: j.azimuths,
        elevations: j.elevations.clone(),
        centre: Vec3::from_array(j.centre),
        radius: j.radius,
        clips: j.clips.clone(),
        colour: r.sized(j.colour, "farTier.colour", texels, 4)?.to_vec(),
        surface: r.sized(j.surface, "farTier.surface", texels, 4)?.to_vec(),
        variant_colours: read_variant_colours(r, j.variant_colours, variants, primitives)?,
    })
}

/// The far tier's colour maps, `variants × min(primitives, 255)` of 12 finite f32 (none for an
/// asset without variants; a file written before minor version 4 has none: cards then show
/// every variant in the own colours).
fn read_variant_colours(
    r: &Reader,
    view: Option<usize>,
    variants: usize,
    primitives: usize,
) -> Result<Vec<Vec<FarVariantColour>>, AssetError> {
    let el = "farTier.variantColours";
    if view.is_none() || variants == 0 {
        return Ok(Vec::new());
    }
    let per = primitives.min(255);
    let words = r.f32s(view, el, variants * per * 12)?;
    if !words.iter().all(|w| w.is_finite()) {
        return Err(r.corrupt(el, "a colour map holds NaN or infinity".to_string()));
    }
    let maps: Vec<FarVariantColour> = words
        .chunks_exact(12)
        .filter_map(|w| <&[f32; 12]>::try_from(w).ok())
        .map(|w| FarVariantColour(throng_contract::Affine3x4::from_rows(w)))
        .collect();
    Ok(maps.chunks(per.max(1)).map(<[_]>::to_vec).collect())
}

/// Largest far-tier tile side a reader accepts (texels).
const MAX_FAR_TILE: u32 = 256;
/// Most far-tier texels a reader accepts (256 MiB of pictures).
const MAX_FAR_TEXELS: u64 = 1 << 25;

/// The bone texture, its size checked against its encoding and layers.
fn read_bone_texture(r: &Reader, ext: &BakedExt) -> Result<BoneTexture, AssetError> {
    let bt = &ext.bone_texture;
    let el = "boneTexture";
    let width = bt.entries as u64 * bt.encoding.texels_per_entry() as u64;
    if bt.width as u64 != width || bt.bytes_per_texel != bt.encoding.bytes_per_texel() {
        return Err(r.corrupt(
            el,
            format!(
                "width {} / {} B per texel do not match {} entries of {}",
                bt.width,
                bt.bytes_per_texel,
                bt.entries,
                bt.encoding.as_str()
            ),
        ));
    }
    let tex_bytes = r.sized(
        bt.buffer_view,
        "boneTexture.bufferView",
        (bt.rows as u64 * width) as usize,
        bt.bytes_per_texel as usize,
    )?;
    let bone_texture = BoneTexture {
        encoding: bt.encoding,
        entries: bt.entries,
        rows: bt.rows,
        rows_per_layer: bt.rows_per_layer,
        translation_range: bt.translation_range,
        scale_range: bt.scale_range,
        data: tex_bytes.to_vec(),
    };
    if bt.rows_per_layer == 0 || bt.layers != bone_texture.layers() {
        let field = if bt.rows_per_layer == 0 {
            "boneTexture.rowsPerLayer"
        } else {
            "boneTexture.layers"
        };
        return Err(r.corrupt(
            field,
            format!(
                "{} layers of {} rows do not hold {} rows",
                bt.layers, bt.rows_per_layer, bt.rows
            ),
        ));
    }
    Ok(bone_texture)
}

/// Per-row bounds: `rows × 6` f32 (min.xyz, max.xyz).
fn read_row_bounds(r: &Reader, ext: &BakedExt) -> Result<Vec<Aabb>, AssetError> {
    let rb = r.f32s(
        ext.row_bounds,
        "rowBounds",
        (ext.bone_texture.rows as usize).saturating_mul(6),
    )?;
    Ok(rb
        .chunks_exact(6)
        .map(|b| Aabb {
            min: Vec3::new(b[0], b[1], b[2]),
            max: Vec3::new(b[3], b[4], b[5]),
        })
        .collect())
}

/// Baked primitive `i` from its JSON and buffer views.
fn read_primitive(
    r: &Reader,
    root: &Root,
    i: usize,
    p: &PrimitiveJson,
) -> Result<BakedPrimitive, AssetError> {
    let el = |s: &str| format!("primitives[{i}].{s}");
    let v = p.vertex_count;
    let k = p.influences as usize;
    let f4 = |idx, name: &str, n| -> Result<Vec<[f32; 4]>, AssetError> {
        Ok(r.f32s(idx, &el(name), n)?
            .chunks_exact(4)
            .map(|c| [c[0], c[1], c[2], c[3]])
            .collect())
    };
    let tangents = match p.tangents {
        Some(t) => Some(
            f4(Some(t), "tangents", v.saturating_mul(4))?
                .into_iter()
                .map(Vec4::from_array)
                .collect(),
        ),
        None => None,
    };
    let uv0 = match p.uv0 {
        Some(t) => Some(
            r.f32s(Some(t), &el("uv0"), v.saturating_mul(2))?
                .chunks_exact(2)
                .map(|c| Vec2::new(c[0], c[1]))
                .collect(),
        ),
        None => None,
    };
    let mut lods = Vec::with_capacity(p.lods.len());
    for (l, lod) in p.lods.iter().enumerate() {
        lods.push(Lod {
            ratio: lod.ratio,
            error: lod.error,
            indices: r.u32s(
                lod.indices,
                &el(&format!("lods[{l}].indices")),
                lod.index_count,
            )?,
        });
    }
    if let Some(m) = p.static_mesh.filter(|&m| m >= root.meshes.len()) {
        return Err(r.corrupt(
            el("staticMesh"),
            format!("mesh {m} does not exist ({} meshes)", root.meshes.len()),
        ));
    }
    Ok(BakedPrimitive {
        node_index: p.node,
        mesh: p.mesh,
        primitive: p.primitive,
        rigid: p.rigid,
        positions: r.vec3s(p.positions, &el("positions"), v)?,
        normals: r.vec3s(p.normals, &el("normals"), v)?,
        tangents,
        uv0,
        influences: p.influences,
        joints: r.u16s(p.joints, &el("joints"), v.saturating_mul(k))?,
        weights: r.u16s(p.weights, &el("weights"), v.saturating_mul(k))?,
        indices: r.u32s(p.indices, &el("indices"), p.index_count)?,
        material: p.material,
        lods,
        vat: match &p.vat {
            Some(j) => Some(read_vat(r, j, &el("vat"))?),
            None => None,
        },
    })
}

/// The images of the standard glTF part (embedded in the BIN chunk).
fn read_images(r: &Reader, root: &Root) -> Result<Vec<BakedImage>, AssetError> {
    let mut images = Vec::with_capacity(root.images.len());
    for (i, img) in root.images.iter().enumerate() {
        let el = format!("images[{i}]");
        let (Some(view), Some(mime)) = (img.buffer_view, img.mime_type.as_ref()) else {
            return Err(r.corrupt(el, "needs a bufferView and a mimeType"));
        };
        images.push(BakedImage {
            mime_type: mime.clone(),
            bytes: r.view(Some(view), &el)?.to_vec(),
        });
    }
    Ok(images)
}

/// Material `i` of the standard glTF part.
fn read_material(
    r: &Reader,
    root: &Root,
    i: usize,
    m: &Material,
) -> Result<BakedMaterial, AssetError> {
    let pbr = &m.pbr_metallic_roughness;
    let (texture, transform) = match &pbr.base_color_texture {
        Some(info) => {
            let image = root
                .textures
                .get(info.index)
                .and_then(|t| t.source)
                .ok_or_else(|| {
                    r.corrupt(
                        format!("materials[{i}].baseColorTexture"),
                        format!("texture {} has no image", info.index),
                    )
                })?;
            let t = info
                .extensions
                .as_ref()
                .and_then(|e| e.texture_transform.as_ref())
                .map_or(TextureTransform::default(), |t| TextureTransform {
                    offset: t.offset,
                    rotation: t.rotation,
                    scale: t.scale,
                });
            (Some(image), t)
        }
        None => (None, TextureTransform::default()),
    };
    let mr = [pbr.metallic_factor, pbr.roughness_factor];
    if mr.iter().any(|v| !(0.0..=1.0).contains(v)) {
        return Err(r.corrupt(
            format!("materials[{i}].pbrMetallicRoughness"),
            format!(
                "metallicFactor {} / roughnessFactor {} outside [0, 1]",
                mr[0], mr[1]
            ),
        ));
    }
    Ok(BakedMaterial {
        name: m.name.clone(),
        base_color_factor: pbr.base_color_factor,
        base_color_texture: texture,
        texture_transform: transform,
        metallic_factor: mr[0],
        roughness_factor: mr[1],
        double_sided: m.double_sided,
    })
}

/// The anchor texture, when anchors were baked.
fn read_anchors(r: &Reader, ext: &BakedExt) -> Result<Option<AnchorTexture>, AssetError> {
    Ok(match &ext.anchors {
        Some(a) => Some(AnchorTexture {
            anchors: a.anchors.clone(),
            rows: a.rows,
            data: r.f32s(
                a.buffer_view,
                "anchors.bufferView",
                (a.rows as usize)
                    .saturating_mul(a.anchors.len())
                    .saturating_mul(12),
            )?,
        }),
        None => None,
    })
}

/// A primitive's VAT from its JSON and buffer views; sizes are checked against its layout here
/// and against the primitive and frame table by `validate`.
fn read_vat(r: &Reader, j: &VatJson, el: &str) -> Result<Vat, AssetError> {
    let mut vat = Vat {
        encoding: j.encoding,
        width: j.width,
        vertices: j.vertices,
        rows: j.rows,
        rows_per_layer: j.rows_per_layer,
        min: Vec3::from_array(j.min),
        max: Vec3::from_array(j.max),
        positions: Vec::new(),
        normals: Vec::new(),
    };
    if j.width == 0
        || j.rows_per_layer == 0
        || j.rows_per_frame != vat.rows_per_frame()
        || j.layers != vat.layers()
        || j.bytes_per_texel != j.encoding.bytes_per_texel()
    {
        return Err(r.corrupt(
            el,
            format!(
                "width {}, {} rows per frame, {} rows per layer, {} layers or {} B per texel do not fit {} vertices × {} rows of {}",
                j.width,
                j.rows_per_frame,
                j.rows_per_layer,
                j.layers,
                j.bytes_per_texel,
                j.vertices,
                j.rows,
                j.encoding.as_str()
            ),
        ));
    }
    let texels = (vat.texture_rows() as u64 * j.width as u64) as usize;
    vat.positions = r
        .sized(
            j.positions,
            &format!("{el}.positions"),
            texels,
            j.bytes_per_texel as usize,
        )?
        .to_vec();
    vat.normals = r
        .sized(
            j.normals,
            &format!("{el}.normals"),
            texels,
            VAT_NORMAL_BYTES_PER_TEXEL as usize,
        )?
        .chunks_exact(2)
        .map(|c| i16::from_le_bytes([c[0], c[1]]))
        .collect();
    Ok(vat)
}
