//! The VAT path (docs/design.md §3 "VAT", `SkinPath::Vat`): an asset baked with vertex
//! animation textures (`throng bake --vat f32|f16|unorm16`) drawn without skinning. Per
//! primitive a position texture and an octahedral normal texture hold the skinned model-space
//! vertex of every frame-table row; the vertex stage (`throng_bevy::crowd_vertex` with def
//! `VAT`, through throng's shared `throng::vat`, the module throng-render's VAT draw imports)
//! fetches two rows per playing layer and blends them as the palette pass blends matrices.
//! No palette pass runs and no palette is kept.
//!
//! Here: the textures uploaded with the asset ([`GpuVat`], [`upload_vats`]), their bind group
//! layout entries and bind group entries in the crowd's group at [`bindings`]' `VAT_*`
//! numbers.
//!
//! Cost: the VAT's memory, per asset whatever the instance count (Fox: 1,728 vertices × 143
//! frame-table rows, 4.9 MB with f32 positions, 3.0 MB with f16 or unorm16), instead of the
//! palette's `capacity × entries × 48 B` per crowd (10,000 Fox instances: 18.9 MB); per
//! vertex 2 texel pairs (position, normal) per playing layer instead of one matrix per
//! influence, and no palette pass. Each vertex also resolves its instance's playing layers
//! (clip table, frame lookup), which the palette pass does once per palette entry: on lavapipe
//! the VAT path's frame at 1,000 Fox instances was 1.63× the palette path's (docs/benchmarks.md
//! "throng-bevy beside Bevy"); a GPU with fast texture fetches may rank them otherwise. The pose is the bake's
//! sampled skin matrices, linear blend skinned at bake time (`--skinning dq` does not apply),
//! and motion vectors carry the instances' movement but not the animation's (no previous pose
//! is kept, as on the texture path).

use bevy::log::warn;
use bevy::render::render_resource::{
    BindGroupEntries, BindGroupLayoutEntry, BindingResource, BindingType, Buffer,
    BufferBindingType, BufferInitDescriptor, BufferUsages, ShaderStages, TextureSampleType,
    TextureView, TextureViewDimension,
};
use bevy::render::renderer::{RenderDevice, RenderQueue};
use throng_asset::gpu::{TexelFormat, VatParams};
use throng_asset::{BakedAsset, Vat, VatEncoding};

use super::bindings;
use super::formats::sample_type;
use super::textures::array_texture;

/// One primitive's VAT on the GPU: its parameters and both position bindings (the one its
/// encoding does not use holds a placeholder) and its normals.
pub struct GpuVat {
    pub params: Buffer,
    pub positions_float: TextureView,
    pub positions_uint: TextureView,
    pub normals: TextureView,
}

/// Why an asset's VATs are not uploaded (the crowd is then drawn on the palette path).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VatUnusable {
    #[error("primitive {primitive} has no VAT (bake the asset with a VAT encoding)")]
    Missing { primitive: usize },
    #[error("primitive {primitive}'s VAT has {vertices} vertices, its mesh {mesh}")]
    Vertices {
        primitive: usize,
        vertices: u32,
        mesh: usize,
    },
    #[error("primitive {primitive}'s VAT is {width} texels wide, past the device's {max} (bake it with a smaller VAT width)")]
    Width {
        primitive: usize,
        width: u32,
        max: u32,
    },
    #[error("primitive {primitive}'s VAT needs {layers} array layers, past the device's {max}")]
    Layers {
        primitive: usize,
        layers: u32,
        max: u32,
    },
}

/// Texture rows per array layer of `vat` on a device of at most `max_dim` texels per side.
fn rows_per_layer(vat: &Vat, max_dim: u32) -> u32 {
    vat.rows_per_layer
        .clamp(1, vat.texture_rows().max(1))
        .min(max_dim.max(1))
}

/// Checks that every primitive of `baked` has a VAT that fits a device of `max_dim` texels per
/// side and `max_layers` array layers.
pub fn check_vats(baked: &BakedAsset, max_dim: u32, max_layers: u32) -> Result<(), VatUnusable> {
    for (i, p) in baked.primitives.iter().enumerate() {
        let vat = p
            .vat
            .as_ref()
            .ok_or(VatUnusable::Missing { primitive: i })?;
        if vat.vertices as usize != p.positions.len() {
            return Err(VatUnusable::Vertices {
                primitive: i,
                vertices: vat.vertices,
                mesh: p.positions.len(),
            });
        }
        if vat.width > max_dim {
            return Err(VatUnusable::Width {
                primitive: i,
                width: vat.width,
                max: max_dim,
            });
        }
        let layers = layer_count(vat, max_dim);
        if layers > max_layers {
            return Err(VatUnusable::Layers {
                primitive: i,
                layers,
                max: max_layers,
            });
        }
    }
    Ok(())
}

/// Array layers of `vat`'s textures: at least 2, since wgpu's GL backend gives a 1-layer
/// texture the 2D target, which a `texture_2d_array` binding reads as zeros.
fn layer_count(vat: &Vat, max_dim: u32) -> u32 {
    vat.texture_rows()
        .div_ceil(rows_per_layer(vat, max_dim))
        .max(2)
}

/// One primitive's VAT uploaded (checked by [`check_vats`]).
fn upload_vat(device: &RenderDevice, queue: &RenderQueue, vat: &Vat) -> GpuVat {
    let max_dim = device.limits().max_texture_dimension_2d;
    let rpl = rows_per_layer(vat, max_dim);
    let size = (vat.width.max(1), rpl, layer_count(vat, max_dim));
    let positions = array_texture(
        device,
        queue,
        "throng vat",
        TexelFormat::vat_positions(vat.encoding),
        size,
        &vat.positions,
    );
    let normal_bytes: Vec<u8> = vat.normals.iter().flat_map(|q| q.to_le_bytes()).collect();
    let normals = array_texture(
        device,
        queue,
        "throng vat",
        TexelFormat::VAT_NORMALS,
        size,
        &normal_bytes,
    );
    // The binding the encoding does not read gets a 1×1 placeholder of its format.
    let placeholder = |enc| {
        array_texture(
            device,
            queue,
            "throng vat",
            TexelFormat::vat_positions(enc),
            (1, 1, 2),
            &[],
        )
    };
    let (positions_float, positions_uint) = if vat.encoding == VatEncoding::Unorm16 {
        (placeholder(VatEncoding::F32), positions)
    } else {
        (positions, placeholder(VatEncoding::Unorm16))
    };
    GpuVat {
        params: device.create_buffer_with_data(&BufferInitDescriptor {
            label: Some("throng vat params"),
            contents: bytemuck::bytes_of(&VatParams::new(vat, rpl)),
            usage: BufferUsages::UNIFORM,
        }),
        positions_float,
        positions_uint,
        normals,
    }
}

/// Every primitive's VAT on the GPU, or `None` (with a warning naming the asset and why)
/// when some primitive has none or one does not fit the device.
pub fn upload_vats(
    baked: &BakedAsset,
    device: &RenderDevice,
    queue: &RenderQueue,
) -> Option<Vec<GpuVat>> {
    if baked.primitives.iter().all(|p| p.vat.is_none()) {
        // No VAT at all: the common case, said once by the crowd that asks for one.
        return None;
    }
    let limits = device.limits();
    if let Err(e) = check_vats(
        baked,
        limits.max_texture_dimension_2d,
        limits.max_texture_array_layers,
    ) {
        warn!(
            "throng: {}'s VATs are not used: {e}; crowds asking for the VAT path are drawn on the palette path",
            baked.source_name
        );
        return None;
    }
    Some(
        baked
            .primitives
            .iter()
            .filter_map(|p| p.vat.as_ref())
            .map(|v| upload_vat(device, queue, v))
            .collect(),
    )
}

/// The VAT bindings of the crowd's bind group layout.
pub fn layout_entries(visibility: ShaderStages) -> [BindGroupLayoutEntry; 4] {
    let texture = |binding, sample_type| BindGroupLayoutEntry {
        binding,
        visibility,
        ty: BindingType::Texture {
            sample_type,
            view_dimension: TextureViewDimension::D2Array,
            multisampled: false,
        },
        count: None,
    };
    [
        BindGroupLayoutEntry {
            binding: bindings::VAT_PARAMS,
            visibility,
            ty: BindingType::Buffer {
                ty: BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        },
        texture(
            bindings::VAT_POSITIONS_FLOAT,
            sample_type(TexelFormat::vat_positions(VatEncoding::F32)),
        ),
        texture(bindings::VAT_POSITIONS_UINT, TextureSampleType::Uint),
        texture(bindings::VAT_NORMALS, sample_type(TexelFormat::VAT_NORMALS)),
    ]
}

/// Primitive VAT `v`'s entries of the crowd's bind group.
pub fn bind_entries(v: &GpuVat) -> BindGroupEntries<'_, 4> {
    BindGroupEntries::with_indices((
        (bindings::VAT_PARAMS, v.params.as_entire_binding()),
        (
            bindings::VAT_POSITIONS_FLOAT,
            BindingResource::TextureView(&v.positions_float),
        ),
        (
            bindings::VAT_POSITIONS_UINT,
            BindingResource::TextureView(&v.positions_uint),
        ),
        (
            bindings::VAT_NORMALS,
            BindingResource::TextureView(&v.normals),
        ),
    ))
}
