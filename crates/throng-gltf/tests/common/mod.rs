//! A tiny glTF writer for tests: accessors over one data-URI buffer, merged into a JSON root.

#![allow(dead_code)]

use base64::Engine;
use serde_json::{json, Value};

#[derive(Default)]
pub struct Doc {
    pub bin: Vec<u8>,
    pub views: Vec<Value>,
    pub accessors: Vec<Value>,
}

impl Doc {
    /// Adds a buffer view over `bytes` (4-byte aligned) and returns its index.
    pub fn view(&mut self, bytes: &[u8]) -> usize {
        while self.bin.len() & 3 != 0 {
            self.bin.push(0);
        }
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        self.views
            .push(json!({"buffer": 0, "byteOffset": offset, "byteLength": bytes.len()}));
        self.views.len() - 1
    }

    /// Adds an accessor; returns its index.
    pub fn accessor(&mut self, mut acc: Value) -> usize {
        if acc.get("byteOffset").is_none() && acc.get("bufferView").is_some() {
            acc["byteOffset"] = json!(0);
        }
        self.accessors.push(acc);
        self.accessors.len() - 1
    }

    /// Adds a view and an f32 accessor of type `ty` over `data`; returns the accessor's index.
    pub fn f32s(&mut self, data: &[f32], ty: &str) -> usize {
        let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_le_bytes()).collect();
        let view = self.view(&bytes);
        let count = data.len() / components(ty);
        let mut acc =
            json!({"bufferView": view, "componentType": 5126, "count": count, "type": ty});
        if ty == "VEC3" {
            // POSITION needs min/max; harmless elsewhere.
            acc["min"] = json!([-1e9, -1e9, -1e9]);
            acc["max"] = json!([1e9, 1e9, 1e9]);
        }
        self.accessor(acc)
    }

    /// Adds a view and an unsigned-short accessor (componentType 5123) of type `ty` over
    /// `data`; returns the accessor's index.
    pub fn u16s(&mut self, data: &[u16], ty: &str) -> usize {
        let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_le_bytes()).collect();
        let view = self.view(&bytes);
        let count = data.len() / components(ty);
        self.accessor(
            json!({"bufferView": view, "componentType": 5123, "count": count, "type": ty}),
        )
    }

    /// A glTF JSON file with `root` (nodes, meshes, ...) plus this buffer, views and accessors.
    pub fn gltf(&self, mut root: Value) -> Vec<u8> {
        let b64 = base64::engine::general_purpose::STANDARD.encode(&self.bin);
        root["asset"] = json!({"version": "2.0"});
        root["buffers"] = json!([{
            "byteLength": self.bin.len(),
            "uri": format!("data:application/octet-stream;base64,{b64}")
        }]);
        root["bufferViews"] = Value::Array(self.views.clone());
        root["accessors"] = Value::Array(self.accessors.clone());
        serde_json::to_vec(&root).unwrap()
    }
}

/// Components per element of accessor type `ty`.
fn components(ty: &str) -> usize {
    match ty {
        "SCALAR" => 1,
        "VEC2" => 2,
        "VEC3" => 3,
        "VEC4" => 4,
        "MAT4" => 16,
        _ => panic!("type"),
    }
}

/// Packs a JSON document and a binary chunk into a GLB (glTF 2.0 §4.4), each chunk padded to 4
/// bytes (JSON with spaces, BIN with zeros). An empty `bin` writes no BIN chunk.
pub fn pack_glb(json: &[u8], bin: &[u8]) -> Vec<u8> {
    let mut b = bin.to_vec();
    while !b.len().is_multiple_of(4) {
        b.push(0);
    }
    throng_testdata::glb::pack(json, (!b.is_empty()).then_some(&b[..]))
}

impl Doc {
    /// The same document as [`Doc::gltf`] as a GLB: buffer 0 is the BIN chunk (no uri).
    pub fn glb(&self, root: Value) -> Vec<u8> {
        let mut v: Value = serde_json::from_slice(&self.gltf(root)).unwrap();
        v["buffers"] = json!([{"byteLength": self.bin.len()}]);
        pack_glb(&serde_json::to_vec(&v).unwrap(), &self.bin)
    }
}

/// One triangle (0,0,0), (1,0,0), (0,1,0) with positions accessor 0; returns the doc.
pub fn triangle() -> Doc {
    let mut d = Doc::default();
    d.f32s(&[0., 0., 0., 1., 0., 0., 0., 1., 0.], "VEC3");
    d
}

pub fn import(bytes: &[u8]) -> Result<throng_anim::model::Model, throng_gltf::ImportError> {
    throng_gltf::import_slice(bytes, None, "test.gltf")
}
