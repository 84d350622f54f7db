//! throng-asset's API-free GPU descriptions as wgpu 30 types, each converted here once: a
//! texel format ([`TexelFormat`]) and how shaders sample it, and the vertex stream's
//! attributes ([`GpuVertex::ATTRIBUTES`]) as the vertex layouts of the skinned draws.
//! (throng-bevy converts the same descriptions to Bevy's wgpu 29 types.)

use throng_asset::gpu::{GpuVertex, SampleKind, TexelFormat, VertexAttribute, VertexFormat};

/// The wgpu format of a texel format.
pub fn texture_format(f: TexelFormat) -> wgpu::TextureFormat {
    match f {
        TexelFormat::Rgba32Float => wgpu::TextureFormat::Rgba32Float,
        TexelFormat::Rgba16Float => wgpu::TextureFormat::Rgba16Float,
        TexelFormat::Rgba16Sint => wgpu::TextureFormat::Rgba16Sint,
        TexelFormat::Rgba16Uint => wgpu::TextureFormat::Rgba16Uint,
        TexelFormat::Rg16Sint => wgpu::TextureFormat::Rg16Sint,
    }
}

/// The sample type a binding of a texture of `f` declares (textureLoad only, so never
/// filterable).
pub fn sample_type(f: TexelFormat) -> wgpu::TextureSampleType {
    match f.sample_kind() {
        SampleKind::Float => wgpu::TextureSampleType::Float { filterable: false },
        SampleKind::Sint => wgpu::TextureSampleType::Sint,
        SampleKind::Uint => wgpu::TextureSampleType::Uint,
    }
}

const fn attribute(a: VertexAttribute) -> wgpu::VertexAttribute {
    wgpu::VertexAttribute {
        format: match a.format {
            VertexFormat::Float32x2 => wgpu::VertexFormat::Float32x2,
            VertexFormat::Float32x3 => wgpu::VertexFormat::Float32x3,
            VertexFormat::Uint16x4 => wgpu::VertexFormat::Uint16x4,
        },
        offset: a.offset,
        shader_location: a.location,
    }
}

const fn attributes<const N: usize>(a: [VertexAttribute; N]) -> [wgpu::VertexAttribute; N] {
    let mut out = [attribute(GpuVertex::POSITION); N];
    let mut i = 0;
    while i < N {
        out[i] = attribute(a[i]);
        i += 1;
    }
    out
}

const MAIN: [wgpu::VertexAttribute; 7] = attributes(GpuVertex::ATTRIBUTES);
const MAIN_FOUR: [wgpu::VertexAttribute; 5] = attributes([
    GpuVertex::POSITION,
    GpuVertex::NORMAL,
    GpuVertex::JOINTS_LO,
    GpuVertex::WEIGHTS_LO,
    GpuVertex::UV,
]);
const SHADOW: [wgpu::VertexAttribute; 5] = attributes([
    GpuVertex::POSITION,
    GpuVertex::JOINTS_LO,
    GpuVertex::JOINTS_HI,
    GpuVertex::WEIGHTS_LO,
    GpuVertex::WEIGHTS_HI,
]);
const SHADOW_FOUR: [wgpu::VertexAttribute; 3] = attributes([
    GpuVertex::POSITION,
    GpuVertex::JOINTS_LO,
    GpuVertex::WEIGHTS_LO,
]);
/// The VAT draw reads only UV0, at location 0 (the vertex index addresses the VAT).
const UV_ONLY: [wgpu::VertexAttribute; 1] = [wgpu::VertexAttribute {
    shader_location: 0,
    ..attribute(GpuVertex::UV)
}];

fn layout(attributes: &'static [wgpu::VertexAttribute]) -> wgpu::VertexBufferLayout<'static> {
    wgpu::VertexBufferLayout {
        array_stride: GpuVertex::STRIDE,
        step_mode: wgpu::VertexStepMode::Vertex,
        attributes,
    }
}

/// What the main pass's `vs_main` reads: every attribute, or with `four` influences (the
/// programs' INFLUENCES_4) all but the second joints and weights.
pub fn vertex_layout(four: bool) -> wgpu::VertexBufferLayout<'static> {
    layout(if four { &MAIN_FOUR } else { &MAIN })
}

/// What the shadow pass's `vs_shadow` reads: position, joints and weights (with `four`
/// influences only the first four); a software rasteriser fetches every attribute a layout
/// names, so the depth-only pass names no more.
pub fn shadow_vertex_layout(four: bool) -> wgpu::VertexBufferLayout<'static> {
    layout(if four { &SHADOW_FOUR } else { &SHADOW })
}

/// What the VAT draw's `vs_main` reads: UV0 at location 0.
pub fn vat_vertex_layout() -> wgpu::VertexBufferLayout<'static> {
    layout(&UV_ONLY)
}
