//! The mesh an engine export ships: a glTF 2.0 binary of the baked primitives (one mesh, one
//! primitive per baked primitive, their materials and images), with the export's per-vertex
//! data in a second UV set (`TEXCOORD_1`), as VAT decoders read it.
//!
//! Written with `serde_json` (keys sorted, so the same export gives the same bytes) and the GLB
//! container of throng-asset.

use glam::{Vec2, Vec3};
use serde_json::{json, Value};
use throng_asset::{BakedAsset, TextureTransform};

/// Four palette indices and four weights per vertex.
pub type Influences<'a> = (&'a [[u16; 4]], &'a [[f32; 4]]);

/// One primitive's vertex streams as the export writes them.
pub struct MeshPrimitive<'a> {
    pub positions: &'a [Vec3],
    pub normals: &'a [Vec3],
    pub uv0: Option<&'a [Vec2]>,
    /// The export's data per vertex (`TEXCOORD_1`).
    pub uv1: Option<&'a [Vec2]>,
    pub indices: &'a [u32],
    pub material: Option<usize>,
    /// Four palette indices and weights per vertex (`JOINTS_0`, `WEIGHTS_0`), for a skinned mesh.
    pub influences: Option<Influences<'a>>,
}

#[derive(Default)]
struct Bin {
    data: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl Bin {
    fn view(&mut self, bytes: &[u8], target: Option<u32>) -> usize {
        self.data.resize(self.data.len().next_multiple_of(4), 0);
        let mut v = json!({"buffer": 0, "byteOffset": self.data.len(), "byteLength": bytes.len()});
        if let Some(t) = target {
            v["target"] = json!(t);
        }
        self.data.extend_from_slice(bytes);
        self.views.push(v);
        self.views.len() - 1
    }

    /// An accessor of float vectors (`VEC2`/`VEC3`), with min and max when `bounds`.
    fn floats(&mut self, values: &[f32], kind: &str, width: usize, bounds: bool) -> usize {
        let bytes: Vec<u8> = values.iter().flat_map(|x| x.to_le_bytes()).collect();
        let view = self.view(&bytes, Some(34962));
        let count = values.len() / width;
        let mut a =
            json!({"bufferView": view, "componentType": 5126, "count": count, "type": kind});
        if bounds && count > 0 {
            let mut lo = vec![f32::INFINITY; width];
            let mut hi = vec![f32::NEG_INFINITY; width];
            for v in values.chunks_exact(width) {
                for c in 0..width {
                    lo[c] = lo[c].min(v[c]);
                    hi[c] = hi[c].max(v[c]);
                }
            }
            a["min"] = json!(lo);
            a["max"] = json!(hi);
        }
        self.accessors.push(a);
        self.accessors.len() - 1
    }
}

/// The GLB bytes of `prims` with the asset's materials and images, under one node named `name`.
pub fn glb(asset: &BakedAsset, name: &str, prims: &[MeshPrimitive<'_>]) -> Result<Vec<u8>, String> {
    glb_skinned(asset, name, prims, false)
}

/// [`glb`], and with `skin` a skin of one joint per palette entry in palette order (named as the
/// entries' nodes, at the origin, the first the parent of the others, inverse bind matrices the
/// identity):
/// the mesh is in bind space and a decoder that reads the skin matrices from a texture indexes
/// them by `JOINTS_0` as throng does.
pub fn glb_skinned(
    asset: &BakedAsset,
    name: &str,
    prims: &[MeshPrimitive<'_>],
    skin: bool,
) -> Result<Vec<u8>, String> {
    let mut bin = Bin::default();
    let mut primitives = Vec::with_capacity(prims.len());
    for p in prims {
        let flat3 = |v: &[Vec3]| v.iter().flat_map(|x| x.to_array()).collect::<Vec<f32>>();
        let flat2 = |v: &[Vec2]| v.iter().flat_map(|x| x.to_array()).collect::<Vec<f32>>();
        let mut attributes = serde_json::Map::new();
        attributes.insert(
            "POSITION".into(),
            json!(bin.floats(&flat3(p.positions), "VEC3", 3, true)),
        );
        attributes.insert(
            "NORMAL".into(),
            json!(bin.floats(&flat3(p.normals), "VEC3", 3, false)),
        );
        if let Some(uv) = p.uv0 {
            attributes.insert(
                "TEXCOORD_0".into(),
                json!(bin.floats(&flat2(uv), "VEC2", 2, false)),
            );
        }
        if let Some(uv) = p.uv1 {
            attributes.insert(
                "TEXCOORD_1".into(),
                json!(bin.floats(&flat2(uv), "VEC2", 2, false)),
            );
        }
        if let Some((joints, weights)) = p.influences {
            let j: Vec<u8> = joints
                .iter()
                .flatten()
                .flat_map(|x| x.to_le_bytes())
                .collect();
            let view = bin.view(&j, Some(34962));
            bin.accessors.push(json!({"bufferView": view, "componentType": 5123, "count": joints.len(), "type": "VEC4"}));
            attributes.insert("JOINTS_0".into(), json!(bin.accessors.len() - 1));
            let w: Vec<f32> = weights.iter().flatten().copied().collect();
            attributes.insert("WEIGHTS_0".into(), json!(bin.floats(&w, "VEC4", 4, false)));
        }
        let idx: Vec<u8> = p.indices.iter().flat_map(|i| i.to_le_bytes()).collect();
        let view = bin.view(&idx, Some(34963));
        bin.accessors.push(json!({"bufferView": view, "componentType": 5125, "count": p.indices.len(), "type": "SCALAR"}));
        let mut prim =
            json!({"attributes": attributes, "indices": bin.accessors.len() - 1, "mode": 4});
        if let Some(m) = p.material.filter(|&m| m < asset.materials.len()) {
            prim["material"] = json!(m);
        }
        primitives.push(prim);
    }
    let mut uses_transform = false;
    let materials: Vec<Value> = asset
        .materials
        .iter()
        .map(|m| {
            let mut pbr = json!({"baseColorFactor": m.base_color_factor, "metallicFactor": 0.0, "roughnessFactor": 1.0});
            if let Some(t) = m.base_color_texture.filter(|&t| t < asset.images.len()) {
                let mut info = json!({"index": t});
                let tt = m.texture_transform;
                if tt != TextureTransform::default() {
                    uses_transform = true;
                    info["extensions"] = json!({"KHR_texture_transform": {
                        "offset": tt.offset, "rotation": tt.rotation, "scale": tt.scale}});
                }
                pbr["baseColorTexture"] = info;
            }
            let mut out = json!({"pbrMetallicRoughness": pbr, "doubleSided": m.double_sided});
            if let Some(n) = &m.name {
                out["name"] = json!(n);
            }
            out
        })
        .collect();
    let mut images = Vec::with_capacity(asset.images.len());
    let mut textures = Vec::with_capacity(asset.images.len());
    for (i, img) in asset.images.iter().enumerate() {
        let view = bin.view(&img.bytes, None);
        images.push(json!({"bufferView": view, "mimeType": img.mime_type}));
        textures.push(json!({"source": i}));
    }
    let mut nodes = vec![json!({"mesh": 0, "name": name})];
    let mut roots = vec![0];
    let joints = asset.palette.len();
    if skin && joints > 0 {
        // Joint 0 is the skeleton's root and the others its children, so an engine that makes a
        // bone of every node between the joints and the skeleton root (Babylon.js) makes exactly
        // one per palette entry.
        nodes[0]["skin"] = json!(0);
        roots.push(1);
        for (i, e) in asset.palette.iter().enumerate() {
            let mut n = json!({"name": e.name});
            if i == 0 && joints > 1 {
                n["children"] = json!((2..1 + joints).collect::<Vec<_>>());
            }
            nodes.push(n);
        }
    }
    let mut doc = json!({
        "asset": {"version": "2.0", "generator": concat!("throng export ", env!("CARGO_PKG_VERSION"))},
        "scene": 0,
        "scenes": [{"nodes": roots}],
        "nodes": nodes,
        "meshes": [{"name": name, "primitives": primitives}],
        "accessors": bin.accessors,
        "bufferViews": bin.views,
        "buffers": [{"byteLength": bin.data.len()}],
    });
    if !materials.is_empty() {
        doc["materials"] = json!(materials);
    }
    if !images.is_empty() {
        doc["images"] = json!(images);
        doc["textures"] = json!(textures);
    }
    if skin && joints > 0 {
        doc["skins"] = json!([{"joints": (1..1 + joints).collect::<Vec<_>>(), "skeleton": 1}]);
    }
    if uses_transform {
        doc["extensionsUsed"] = json!(["KHR_texture_transform"]);
    }
    let text = serde_json::to_vec(&doc).map_err(|e| e.to_string())?;
    throng_asset::pack_glb(&text, &bin.data)
}

/// The asset's primitives over per-vertex streams concatenated in primitive order (`uv1` and
/// `influences` likewise), as every export lays out its vertices.
pub fn primitives<'a>(
    asset: &'a BakedAsset,
    positions: &'a [Vec3],
    normals: &'a [Vec3],
    uv1: Option<&'a [Vec2]>,
    influences: Option<Influences<'a>>,
) -> Vec<MeshPrimitive<'a>> {
    let mut out = Vec::with_capacity(asset.primitives.len());
    let mut at = 0usize;
    for p in &asset.primitives {
        let r = at..at + p.vertex_count();
        out.push(MeshPrimitive {
            positions: &positions[r.clone()],
            normals: &normals[r.clone()],
            uv0: p.uv0.as_deref(),
            uv1: uv1.map(|u| &u[r.clone()]),
            indices: &p.indices,
            material: p.material,
            influences: influences.map(|(j, w)| (&j[r.clone()], &w[r.clone()])),
        });
        at = r.end;
    }
    out
}
