//! Writes the demo model as a glTF 2.0 binary (GLB, glTF 2.0 §4.4) with `gltf-json`.
//!
//! Layout: one buffer (the GLB BIN chunk); one tightly packed buffer view per accessor
//! (no byteStride), each starting on a 4-byte boundary; vertex views target ARRAY_BUFFER,
//! the index view ELEMENT_ARRAY_BUFFER; inverse bind matrices, animation data and the PNG
//! have no target. Nodes 0..J are the joints (parents first), node J is the skinned mesh.

use crate::clips::ClipData;
use crate::shape::MeshData;
use crate::skeleton::{self, Joint};
use glam::{Mat4, Quat, Vec2, Vec3};
use gltf_json as json;
use json::validation::{Checked::Valid, USize64};
use json::{accessor, animation, buffer, mesh, scene, texture, Index};
use std::collections::BTreeMap;

pub(crate) struct GlbInput<'a> {
    pub joints: &'a [Joint],
    pub mesh: &'a MeshData,
    pub clips: &'a [ClipData],
    pub png: &'a [u8],
    /// Linear RGBA.
    pub base_color: [f32; 4],
}

struct Builder {
    root: json::Root,
    bin: Vec<u8>,
}

impl Builder {
    fn view(&mut self, bytes: &[u8], target: Option<buffer::Target>) -> Index<buffer::View> {
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        pad_to_4(&mut self.bin, 0);
        self.root.push(buffer::View {
            buffer: Index::new(0),
            byte_length: USize64::from(bytes.len()),
            byte_offset: Some(USize64::from(offset)),
            byte_stride: None,
            name: None,
            target: target.map(Valid),
            extensions: None,
            extras: None,
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn accessor(
        &mut self,
        bytes: &[u8],
        target: Option<buffer::Target>,
        count: usize,
        component: accessor::ComponentType,
        type_: accessor::Type,
        min_max: Option<(serde_json::Value, serde_json::Value)>,
    ) -> Index<accessor::Accessor> {
        let view = self.view(bytes, target);
        let (min, max) = match min_max {
            Some((a, b)) => (Some(a), Some(b)),
            None => (None, None),
        };
        self.root.push(accessor::Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64::from(count),
            component_type: Valid(accessor::GenericComponentType(component)),
            extensions: None,
            extras: None,
            type_: Valid(type_),
            min,
            max,
            name: None,
            normalized: false,
            sparse: None,
        })
    }

    fn vec3s(
        &mut self,
        v: &[Vec3],
        target: Option<buffer::Target>,
        bounds: bool,
    ) -> Index<accessor::Accessor> {
        let bytes = f32_bytes(v.iter().flat_map(|p| p.to_array()));
        let mm = bounds.then(|| {
            let lo = v.iter().fold(Vec3::splat(f32::INFINITY), |a, b| a.min(*b));
            let hi = v
                .iter()
                .fold(Vec3::splat(f32::NEG_INFINITY), |a, b| a.max(*b));
            (
                serde_json::json!(lo.to_array()),
                serde_json::json!(hi.to_array()),
            )
        });
        self.accessor(
            &bytes,
            target,
            v.len(),
            accessor::ComponentType::F32,
            accessor::Type::Vec3,
            mm,
        )
    }

    /// An f32 accessor of `count` elements of `type_`, without bounds.
    fn floats(
        &mut self,
        values: impl IntoIterator<Item = f32>,
        target: Option<buffer::Target>,
        count: usize,
        type_: accessor::Type,
    ) -> Index<accessor::Accessor> {
        let bytes = f32_bytes(values);
        self.accessor(
            &bytes,
            target,
            count,
            accessor::ComponentType::F32,
            type_,
            None,
        )
    }
}

fn f32_bytes(v: impl IntoIterator<Item = f32>) -> Vec<u8> {
    v.into_iter().flat_map(f32::to_le_bytes).collect()
}

fn extras(value: serde_json::Value) -> json::Extras {
    // Serialising a `serde_json::Value` and reparsing it as a RawValue cannot fail.
    let text = serde_json::to_string(&value).expect("JSON value serialises");
    Some(serde_json::value::RawValue::from_string(text).expect("valid JSON"))
}

pub(crate) fn write(input: &GlbInput) -> Vec<u8> {
    let mut b = Builder {
        root: json::Root::default(),
        bin: Vec::new(),
    };
    b.root.asset = json::Asset {
        generator: Some("throng-demo".to_string()),
        version: "2.0".to_string(),
        ..Default::default()
    };
    let mesh_index = write_mesh(&mut b, input);
    let skin = write_skin(&mut b, input.joints);
    let mesh_node = b.root.push(scene::Node {
        name: Some("fox_mesh".to_string()),
        mesh: Some(mesh_index),
        skin: Some(skin),
        ..Default::default()
    });
    let scene_index = b.root.push(json::Scene {
        name: Some("fox".to_string()),
        nodes: vec![Index::new(0), mesh_node],
        extensions: None,
        extras: None,
    });
    b.root.scene = Some(scene_index);

    for clip in input.clips {
        write_clip(&mut b, clip);
    }

    b.root.push(json::Buffer {
        byte_length: USize64::from(b.bin.len()),
        name: None,
        uri: None,
        extensions: None,
        extras: None,
    });
    // Serialising gltf-json's own types cannot fail.
    let json_bytes = b.root.to_vec().expect("glTF JSON serialises");
    container(json_bytes, b.bin)
}

/// The mesh: its vertex attributes, indices and material.
fn write_mesh(b: &mut Builder, input: &GlbInput) -> Index<json::Mesh> {
    let m = input.mesh;
    let array = Some(buffer::Target::ArrayBuffer);

    // Vertex attributes.
    let positions = b.vec3s(&m.positions, array, true);
    let normals = b.vec3s(&m.normals, array, false);
    let uvs = b.floats(
        m.uvs.iter().flat_map(|v: &Vec2| v.to_array()),
        array,
        m.uvs.len(),
        accessor::Type::Vec2,
    );
    let joints = {
        let bytes: Vec<u8> = m.joints.iter().flatten().copied().collect();
        b.accessor(
            &bytes,
            array,
            m.joints.len(),
            accessor::ComponentType::U8,
            accessor::Type::Vec4,
            None,
        )
    };
    let weights = b.floats(
        m.weights.iter().flatten().copied(),
        array,
        m.weights.len(),
        accessor::Type::Vec4,
    );
    // 16-bit indices when every vertex fits them.
    let (bytes, component): (Vec<u8>, _) = if m.vertex_count() <= u16::MAX as usize {
        let bytes = m.indices.iter().flat_map(|&i| (i as u16).to_le_bytes());
        (bytes.collect(), accessor::ComponentType::U16)
    } else {
        let bytes = m.indices.iter().flat_map(|&i| i.to_le_bytes());
        (bytes.collect(), accessor::ComponentType::U32)
    };
    let indices = b.accessor(
        &bytes,
        Some(buffer::Target::ElementArrayBuffer),
        m.indices.len(),
        component,
        accessor::Type::Scalar,
        None,
    );
    let material = write_material(b, input);

    let mut attributes = BTreeMap::new();
    attributes.insert(Valid(mesh::Semantic::Positions), positions);
    attributes.insert(Valid(mesh::Semantic::Normals), normals);
    attributes.insert(Valid(mesh::Semantic::TexCoords(0)), uvs);
    attributes.insert(Valid(mesh::Semantic::Joints(0)), joints);
    attributes.insert(Valid(mesh::Semantic::Weights(0)), weights);
    b.root.push(json::Mesh {
        name: Some("fox".to_string()),
        primitives: vec![mesh::Primitive {
            attributes,
            indices: Some(indices),
            material: Some(material),
            mode: Valid(mesh::Mode::Triangles),
            targets: None,
            extensions: None,
            extras: None,
        }],
        weights: None,
        extensions: None,
        extras: None,
    })
}

/// The material: the base colour factor times the PNG.
fn write_material(b: &mut Builder, input: &GlbInput) -> Index<json::Material> {
    let image_view = b.view(input.png, None);
    let image = b.root.push(json::Image {
        buffer_view: Some(image_view),
        mime_type: Some(json::image::MimeType("image/png".to_string())),
        name: Some("fox_colour".to_string()),
        uri: None,
        extensions: None,
        extras: None,
    });
    let sampler = b.root.push(texture::Sampler {
        mag_filter: Some(Valid(texture::MagFilter::Linear)),
        min_filter: Some(Valid(texture::MinFilter::Linear)),
        name: None,
        wrap_s: Valid(texture::WrappingMode::Repeat),
        wrap_t: Valid(texture::WrappingMode::ClampToEdge),
        extensions: None,
        extras: None,
    });
    let tex = b.root.push(texture::Texture {
        name: None,
        sampler: Some(sampler),
        source: image,
        extensions: None,
        extras: None,
    });
    b.root.push(json::Material {
        name: Some("fox_fur".to_string()),
        pbr_metallic_roughness: json::material::PbrMetallicRoughness {
            base_color_factor: json::material::PbrBaseColorFactor(input.base_color),
            base_color_texture: Some(texture::Info {
                index: tex,
                tex_coord: 0,
                extensions: None,
                extras: None,
            }),
            metallic_factor: json::material::StrengthFactor(0.0),
            roughness_factor: json::material::StrengthFactor(0.85),
            ..Default::default()
        },
        ..Default::default()
    })
}

/// The joint nodes (nodes 0..J, translation-only bind pose) and the skin over them.
fn write_skin(b: &mut Builder, joints: &[Joint]) -> Index<json::Skin> {
    for (i, j) in joints.iter().enumerate() {
        let children: Vec<Index<scene::Node>> = joints
            .iter()
            .enumerate()
            .filter(|(_, c)| c.parent == Some(i))
            .map(|(k, _)| Index::new(k as u32))
            .collect();
        b.root.push(scene::Node {
            name: Some(j.name.to_string()),
            children: (!children.is_empty()).then_some(children),
            translation: Some(skeleton::local_translation(joints, i).to_array()),
            ..Default::default()
        });
    }

    // Inverse bind matrices: inverse of each joint's bind-pose model-space transform.
    let ibms: Vec<Mat4> = skeleton::bind_globals(joints)
        .iter()
        .map(Mat4::inverse)
        .collect();
    let ibm = b.floats(
        ibms.iter().flat_map(Mat4::to_cols_array),
        None,
        ibms.len(),
        accessor::Type::Mat4,
    );
    b.root.push(json::Skin {
        name: Some("fox_skeleton".to_string()),
        inverse_bind_matrices: Some(ibm),
        joints: (0..joints.len() as u32).map(Index::new).collect(),
        skeleton: Some(Index::new(0)),
        extensions: None,
        extras: None,
    })
}

fn write_clip(b: &mut Builder, clip: &ClipData) {
    let t0 = clip.times.first().copied().unwrap_or(0.0);
    let t1 = clip.times.last().copied().unwrap_or(0.0);
    let input = b.accessor(
        &f32_bytes(clip.times.iter().copied()),
        None,
        clip.times.len(),
        accessor::ComponentType::F32,
        accessor::Type::Scalar,
        Some((serde_json::json!([t0]), serde_json::json!([t1]))),
    );
    let mut samplers = Vec::new();
    let mut channels = Vec::new();
    let mut add = |output, node: usize, path| {
        let s = Index::push(
            &mut samplers,
            animation::Sampler {
                input,
                interpolation: Valid(animation::Interpolation::Linear),
                output,
                extensions: None,
                extras: None,
            },
        );
        channels.push(animation::Channel {
            sampler: s,
            target: animation::Target {
                node: Index::new(node as u32),
                path: Valid(path),
                extensions: None,
                extras: None,
            },
            extensions: None,
            extras: None,
        });
    };
    let tr = b.vec3s(&clip.hips_translation, None, false);
    add(tr, skeleton::HIPS, animation::Property::Translation);
    for (j, keys) in clip.rotations.iter().enumerate().skip(1) {
        let out = b.floats(
            keys.iter().flat_map(|q: &Quat| q.to_array()),
            None,
            keys.len(),
            accessor::Type::Vec4,
        );
        add(out, j, animation::Property::Rotation);
    }
    let events: Vec<serde_json::Value> = clip
        .events
        .iter()
        .map(|(t, n)| serde_json::json!({"time": t, "name": n}))
        .collect();
    let ex = serde_json::json!({
        "throng": { "loop": clip.loop_mode.as_str(), "events": events }
    });
    b.root.push(json::Animation {
        name: Some(clip.name.to_string()),
        channels,
        samplers,
        extensions: None,
        extras: extras(ex),
    });
}

/// GLB container: 12-byte header, JSON chunk padded with spaces, BIN chunk padded with zeros
/// (glTF 2.0 §4.4.3).
fn container(mut json_bytes: Vec<u8>, mut bin: Vec<u8>) -> Vec<u8> {
    pad_to_4(&mut json_bytes, b' ');
    pad_to_4(&mut bin, 0);
    let total = 12 + 8 + json_bytes.len() + 8 + bin.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json_bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json_bytes);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&bin);
    out
}

/// Pads `v` with `byte` to a multiple of 4 bytes (GLB chunks and buffer views start 4-aligned).
fn pad_to_4(v: &mut Vec<u8>, byte: u8) {
    let padded = v.len().div_ceil(4) * 4;
    v.resize(padded, byte);
}
