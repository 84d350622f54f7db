//! Static meshes on the GPU, checked and uploaded: the reference path's CPU-skinned vertices
//! and props' meshes, both drawn with [`RefVertex`]'s layout.

use glam::Vec3;
use wgpu::util::DeviceExt;

use crate::error::RenderError;

/// Interleaved vertex of a static mesh: the reference path's (CPU-skinned, model space) and
/// a prop's (its anchor's space).
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct RefVertex {
    position: [f32; 3],
    normal: [f32; 3],
    uv: [f32; 2],
}

impl RefVertex {
    pub const ATTRIBUTES: [wgpu::VertexAttribute; 3] =
        wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Float32x2];

    pub fn layout() -> wgpu::VertexBufferLayout<'static> {
        wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<RefVertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &Self::ATTRIBUTES,
        }
    }
}

/// A static mesh's streams as given: positions and normals (one each per vertex), UV0, a
/// triangle list and an encoded base colour texture (PNG/JPEG, sRGB).
pub(crate) struct MeshStreams<'a> {
    pub positions: &'a [Vec3],
    pub normals: &'a [Vec3],
    pub uvs: Option<&'a [glam::Vec2]>,
    pub indices: &'a [u32],
    pub texture: Option<&'a [u8]>,
}

/// A static mesh on the GPU.
pub(crate) struct MeshBuffers {
    pub vertices: wgpu::Buffer,
    pub indices: wgpu::Buffer,
    pub index_count: u32,
    /// The decoded base colour texture (None: none, or not decodable — drawn untextured).
    pub texture: Option<wgpu::TextureView>,
}

/// Checks one static mesh (a normal per position, indices in range) and uploads it; None when
/// it has no triangles. A texture that cannot be decoded is dropped with a warning naming
/// `what`.
pub(crate) fn upload_mesh(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    what: &str,
    m: &MeshStreams,
) -> Result<Option<MeshBuffers>, RenderError> {
    if !check_mesh(m)? {
        return Ok(None);
    }
    Ok(Some(MeshBuffers {
        vertices: vertex_buffer(device, m),
        indices: index_buffer(device, m.indices),
        index_count: m.indices.len() as u32,
        texture: m
            .texture
            .and_then(|bytes| decode_texture(device, queue, what, bytes)),
    }))
}

/// Whether a static mesh is drawable: Err when a position lacks a normal or an index is out of
/// range, false when it has no triangles.
pub(crate) fn check_mesh(m: &MeshStreams) -> Result<bool, RenderError> {
    let v = m.positions.len();
    if m.normals.len() != v {
        return Err(RenderError::BadInput {
            what: "mesh normals (one per position)",
            got: m.normals.len(),
            expected: v,
        });
    }
    if let Some(&i) = m.indices.iter().find(|&&i| i as usize >= v) {
        return Err(RenderError::BadInput {
            what: "mesh index (below the vertex count)",
            got: i as usize,
            expected: v,
        });
    }
    Ok(v > 0 && !m.indices.is_empty())
}

/// The interleaved vertex buffer of a checked mesh ([`check_mesh`]).
pub(crate) fn vertex_buffer(device: &wgpu::Device, m: &MeshStreams) -> wgpu::Buffer {
    let verts: Vec<RefVertex> = (0..m.positions.len())
        .map(|i| RefVertex {
            position: m.positions[i].into(),
            normal: m.normals[i].into(),
            uv: m
                .uvs
                .and_then(|u| u.get(i).copied())
                .unwrap_or(glam::Vec2::ZERO)
                .into(),
        })
        .collect();
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("throng mesh vertices"),
        contents: bytemuck::cast_slice(&verts),
        usage: wgpu::BufferUsages::VERTEX,
    })
}

/// A triangle list's index buffer.
pub(crate) fn index_buffer(device: &wgpu::Device, indices: &[u32]) -> wgpu::Buffer {
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("throng mesh indices"),
        contents: bytemuck::cast_slice(indices),
        usage: wgpu::BufferUsages::INDEX,
    })
}

/// Decodes and uploads an encoded base colour texture; None, with a warning naming `what`,
/// when it cannot be decoded (the mesh is drawn untextured).
pub(crate) fn decode_texture(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    what: &str,
    bytes: &[u8],
) -> Option<wgpu::TextureView> {
    match crate::material::upload_image(device, queue, bytes) {
        Ok(t) => Some(t),
        Err(e) => {
            eprintln!("warning: {what}: texture cannot be decoded ({e}); drawing untextured");
            None
        }
    }
}
