//! throng-asset's API-free GPU descriptions as Bevy's (wgpu 29) types, each converted here
//! once: a texel format ([`TexelFormat`]) and how the shaders sample it, and the vertex stream
//! ([`GpuVertex`]) as a vertex buffer layout. (throng-render converts the same descriptions to
//! wgpu 30's types.)

use bevy::mesh::VertexBufferLayout;
use bevy::render::render_resource::{
    TextureFormat, TextureSampleType, VertexAttribute, VertexFormat, VertexStepMode,
};
use throng_asset::gpu::{self, GpuVertex, SampleKind, TexelFormat};

/// Bytes per vertex of the crowd's vertex buffer ([`GpuVertex`]).
pub const VERTEX_BYTES: u64 = GpuVertex::STRIDE;

/// Bevy's format of a texel format.
pub fn texture_format(f: TexelFormat) -> TextureFormat {
    match f {
        TexelFormat::Rgba32Float => TextureFormat::Rgba32Float,
        TexelFormat::Rgba16Float => TextureFormat::Rgba16Float,
        TexelFormat::Rgba16Sint => TextureFormat::Rgba16Sint,
        TexelFormat::Rgba16Uint => TextureFormat::Rgba16Uint,
        TexelFormat::Rg16Sint => TextureFormat::Rg16Sint,
    }
}

/// The sample type a binding of a texture of `f` declares (textureLoad only, so never
/// filterable).
pub fn sample_type(f: TexelFormat) -> TextureSampleType {
    match f.sample_kind() {
        SampleKind::Float => TextureSampleType::Float { filterable: false },
        SampleKind::Sint => TextureSampleType::Sint,
        SampleKind::Uint => TextureSampleType::Uint,
    }
}

/// Bevy's attribute of a vertex attribute.
pub fn attribute(a: gpu::VertexAttribute) -> VertexAttribute {
    VertexAttribute {
        format: match a.format {
            gpu::VertexFormat::Float32x2 => VertexFormat::Float32x2,
            gpu::VertexFormat::Float32x3 => VertexFormat::Float32x3,
            gpu::VertexFormat::Uint16x4 => VertexFormat::Uint16x4,
        },
        offset: a.offset,
        shader_location: a.location,
    }
}

/// The layout of [`GpuVertex`] with `attributes`.
pub fn layout_of(attributes: &[gpu::VertexAttribute]) -> VertexBufferLayout {
    VertexBufferLayout {
        array_stride: VERTEX_BYTES,
        step_mode: VertexStepMode::Vertex,
        attributes: attributes.iter().copied().map(attribute).collect(),
    }
}

/// The crowd's vertex layout: every attribute of [`GpuVertex`] at its shader location.
pub fn vertex_layout() -> VertexBufferLayout {
    layout_of(&GpuVertex::ATTRIBUTES)
}
