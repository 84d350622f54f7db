//! The crowd's vertex stream, one definition for every embedding: [`GpuVertex`] (64 B,
//! interleaved) and its attributes with their shader locations ([`GpuVertex::ATTRIBUTES`]),
//! described without a graphics API so that throng-render (wgpu 30) and throng-bevy (Bevy's
//! wgpu 29) each turn them into their own vertex layout in one small function. Its WGSL twin is
//! `throng::vertex` (`shaders/vertex.wgsl`), the vertex input of both embeddings' skinned draws
//! (throng-render's `texture_draw.wgsl`, throng-bevy's `crowd_vertex.wgsl`); each crate's naga
//! test checks the locations it reads against the table.

use glam::{Vec2, Vec3};

use crate::BakedPrimitive;

/// Influences stored per GPU vertex; primitives with fewer are padded with zero weights.
pub const GPU_INFLUENCES: usize = 8;

/// One vertex of a baked primitive as the skinned draws read it (64 B): bind-space position
/// and normal (file units), palette indices, unorm16 weights (as integers: the shaders divide
/// by 65535 exactly as the CPU decoder does), UV0.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuVertex {
    pub position: [f32; 3],
    pub normal: [f32; 3],
    pub joints: [u16; GPU_INFLUENCES],
    pub weights: [u16; GPU_INFLUENCES],
    pub uv: [f32; 2],
}

/// The type of one vertex attribute (named as WebGPU's `GPUVertexFormat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VertexFormat {
    /// `vec2<f32>`.
    Float32x2,
    /// `vec3<f32>`.
    Float32x3,
    /// Four u16, read as `vec4<u32>`.
    Uint16x4,
}

impl VertexFormat {
    /// Components of the WGSL vector the attribute is read as.
    pub const fn components(self) -> u32 {
        match self {
            VertexFormat::Float32x2 => 2,
            VertexFormat::Float32x3 => 3,
            VertexFormat::Uint16x4 => 4,
        }
    }

    /// Whether the shader reads it as floats (else as unsigned integers).
    pub const fn is_float(self) -> bool {
        !matches!(self, VertexFormat::Uint16x4)
    }
}

/// One attribute of [`GpuVertex`]: where it sits in the vertex and the shader location the
/// WGSL reads it at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VertexAttribute {
    pub location: u32,
    /// Bytes from the start of the vertex.
    pub offset: u64,
    pub format: VertexFormat,
}

const fn attribute(location: u32, offset: usize, format: VertexFormat) -> VertexAttribute {
    VertexAttribute {
        location,
        offset: offset as u64,
        format,
    }
}

const JOINTS: usize = std::mem::offset_of!(GpuVertex, joints);
const WEIGHTS: usize = std::mem::offset_of!(GpuVertex, weights);

impl GpuVertex {
    /// Bytes per vertex.
    pub const STRIDE: u64 = std::mem::size_of::<GpuVertex>() as u64;

    pub const POSITION: VertexAttribute = attribute(
        0,
        std::mem::offset_of!(GpuVertex, position),
        VertexFormat::Float32x3,
    );
    pub const NORMAL: VertexAttribute = attribute(
        1,
        std::mem::offset_of!(GpuVertex, normal),
        VertexFormat::Float32x3,
    );
    /// Palette indices of influences 0–3.
    pub const JOINTS_LO: VertexAttribute = attribute(2, JOINTS, VertexFormat::Uint16x4);
    /// Palette indices of influences 4–7.
    pub const JOINTS_HI: VertexAttribute = attribute(3, JOINTS + 8, VertexFormat::Uint16x4);
    /// Weights of influences 0–3.
    pub const WEIGHTS_LO: VertexAttribute = attribute(4, WEIGHTS, VertexFormat::Uint16x4);
    /// Weights of influences 4–7.
    pub const WEIGHTS_HI: VertexAttribute = attribute(5, WEIGHTS + 8, VertexFormat::Uint16x4);
    pub const UV: VertexAttribute = attribute(
        6,
        std::mem::offset_of!(GpuVertex, uv),
        VertexFormat::Float32x2,
    );

    /// Every attribute, by shader location.
    pub const ATTRIBUTES: [VertexAttribute; 7] = [
        Self::POSITION,
        Self::NORMAL,
        Self::JOINTS_LO,
        Self::JOINTS_HI,
        Self::WEIGHTS_LO,
        Self::WEIGHTS_HI,
        Self::UV,
    ];

    /// Vertex `v` of `p`: a missing normal is +Y, a missing UV (0, 0).
    pub fn of(p: &BakedPrimitive, v: usize) -> GpuVertex {
        let (joints, weights) = influences(p, v);
        GpuVertex {
            position: p.positions[v].into(),
            normal: p.normals.get(v).copied().unwrap_or(Vec3::Y).into(),
            joints,
            weights,
            uv: p
                .uv0
                .as_ref()
                .and_then(|u| u.get(v).copied())
                .unwrap_or(Vec2::ZERO)
                .into(),
        }
    }

    /// Every vertex of `p`.
    pub fn all(p: &BakedPrimitive) -> Vec<GpuVertex> {
        (0..p.vertex_count()).map(|v| GpuVertex::of(p, v)).collect()
    }
}

/// Palette indices and unorm16 weights of vertex `v`, padded (or cut) to [`GPU_INFLUENCES`].
pub fn influences(p: &BakedPrimitive, v: usize) -> ([u16; GPU_INFLUENCES], [u16; GPU_INFLUENCES]) {
    let k = p.influences as usize;
    let mut j = [0u16; GPU_INFLUENCES];
    let mut w = [0u16; GPU_INFLUENCES];
    for i in 0..k.min(GPU_INFLUENCES) {
        j[i] = p.joints.get(v * k + i).copied().unwrap_or(0);
        w[i] = p.weights.get(v * k + i).copied().unwrap_or(0);
    }
    (j, w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_tile_the_64_byte_vertex_in_location_order() {
        assert_eq!(GpuVertex::STRIDE, 64);
        let mut end = 0;
        for (i, a) in GpuVertex::ATTRIBUTES.iter().enumerate() {
            assert_eq!(a.location, i as u32);
        }
        let mut by_offset = GpuVertex::ATTRIBUTES;
        by_offset.sort_by_key(|a| a.offset);
        for a in by_offset {
            assert_eq!(a.offset, end, "{a:?}");
            let bytes = match a.format {
                VertexFormat::Float32x2 => 8,
                VertexFormat::Float32x3 => 12,
                VertexFormat::Uint16x4 => 8,
            };
            end += bytes;
        }
        assert_eq!(end, GpuVertex::STRIDE);
    }
}
