//! Vertex animation textures on the GPU (docs/design.md §3 "VAT"): per primitive a position texture
//! (Rgba32Float, Rgba16Float or Rgba16Uint) and an octahedral normal texture (Rg16Sint), both 2D
//! arrays with texture rows beyond `rows_per_layer` in further layers.

use throng_asset::gpu::TexelFormat;
use throng_asset::{Vat, VatEncoding};
use wgpu::util::DeviceExt;

use crate::formats::texture_format;
use crate::gpu_types::VatParams;
use crate::upload::{array_texture, Layered};

/// One primitive's VAT on the GPU.
pub struct GpuVat {
    pub params: wgpu::Buffer,
    pub positions: wgpu::TextureView,
    pub normals: wgpu::TextureView,
    pub encoding: VatEncoding,
}

/// A texture of `vat`'s rows in `format`, holding `bytes`.
fn vat_texture(
    gpu: &crate::Gpu,
    format: TexelFormat,
    vat: &Vat,
    bytes: &[u8],
) -> wgpu::TextureView {
    let at = Layered {
        width: vat.width,
        rows: vat.texture_rows(),
        rows_per_layer: rows_per_layer(vat, gpu.device.limits().max_texture_dimension_2d),
        row_bytes: (vat.width * format.bytes_per_texel()) as usize,
    };
    array_texture(gpu, "throng vat", texture_format(format), at, bytes).1
}

/// Texture rows per array layer of `vat` on a device of at most `max_dim` texels per side: the
/// file's, wrapped again at the side where its layers are taller (WebGL2's 2048,
/// docs/downlevel.md); the shader reads it from the VAT's parameters.
fn rows_per_layer(vat: &Vat, max_dim: u32) -> u32 {
    vat.rows_per_layer
        .clamp(1, vat.texture_rows().max(1))
        .min(max_dim.max(1))
}

/// Checks a VAT's sizes; `Err` says what disagrees.
pub fn check(vat: &Vat, max_dim: u32, max_layers: u32) -> Result<(), String> {
    let texels = vat.texture_rows() as usize * vat.width as usize;
    if vat.width == 0 || vat.width > max_dim {
        return Err(format!("VAT width {} outside 1..={max_dim}", vat.width));
    }
    if vat.positions.len() != texels * vat.encoding.bytes_per_texel() as usize {
        return Err(format!(
            "VAT holds {} position bytes, expected {}",
            vat.positions.len(),
            texels * vat.encoding.bytes_per_texel() as usize
        ));
    }
    if vat.normals.len() != texels * 2 {
        return Err(format!(
            "VAT holds {} normal components, expected {}",
            vat.normals.len(),
            texels * 2
        ));
    }
    let rpl = rows_per_layer(vat, max_dim);
    if rpl > max_dim || vat.texture_rows().div_ceil(rpl) > max_layers {
        return Err(format!(
            "VAT of {} texture rows in layers of {rpl} exceeds the adapter's limits",
            vat.texture_rows()
        ));
    }
    Ok(())
}

impl GpuVat {
    pub fn new(gpu: &crate::Gpu, vat: &Vat) -> GpuVat {
        let device = &gpu.device;
        let enc = vat.encoding;
        let positions = vat_texture(gpu, TexelFormat::vat_positions(enc), vat, &vat.positions);
        let normal_bytes: Vec<u8> = vat.normals.iter().flat_map(|q| q.to_le_bytes()).collect();
        let normals = vat_texture(gpu, TexelFormat::VAT_NORMALS, vat, &normal_bytes);
        let params = VatParams {
            encoding: enc.code(),
            width: vat.width.max(1),
            rows_per_frame: vat.rows_per_frame(),
            rows_per_layer: rows_per_layer(vat, device.limits().max_texture_dimension_2d),
            min: vat.min.extend(0.0).into(),
            max: vat.max.extend(0.0).into(),
        };
        let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("throng vat params"),
            contents: bytemuck::bytes_of(&params),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        GpuVat {
            params,
            positions,
            normals,
            encoding: enc,
        }
    }
}

/// 1×1×1 placeholder array textures for the position binding a VAT's encoding does not use.
pub struct VatDummies {
    pub float: wgpu::TextureView,
    pub uint: wgpu::TextureView,
}

impl VatDummies {
    pub fn new(device: &wgpu::Device) -> VatDummies {
        let make = |format| {
            device
                .create_texture(&wgpu::TextureDescriptor {
                    label: Some("throng vat placeholder"),
                    size: wgpu::Extent3d {
                        width: 1,
                        height: 1,
                        depth_or_array_layers: 1,
                    },
                    mip_level_count: 1,
                    sample_count: 1,
                    dimension: wgpu::TextureDimension::D2,
                    format,
                    usage: wgpu::TextureUsages::TEXTURE_BINDING,
                    view_formats: &[],
                })
                .create_view(&wgpu::TextureViewDescriptor {
                    dimension: Some(wgpu::TextureViewDimension::D2Array),
                    ..Default::default()
                })
        };
        VatDummies {
            float: make(texture_format(TexelFormat::vat_positions(VatEncoding::F32))),
            uint: make(texture_format(TexelFormat::vat_positions(
                VatEncoding::Unorm16,
            ))),
        }
    }
}

/// Group 2 of the VAT draw for one primitive's VAT (the unused position binding gets a
/// placeholder).
pub(crate) fn bind_group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    dummies: &VatDummies,
    v: &GpuVat,
) -> wgpu::BindGroup {
    let (float, uint) = if v.encoding == VatEncoding::Unorm16 {
        (&dummies.float, &v.positions)
    } else {
        (&v.positions, &dummies.uint)
    };
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("throng vat"),
        layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: crate::bindings::VAT_PARAMS,
                resource: v.params.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: crate::bindings::VAT_POSITIONS_FLOAT,
                resource: wgpu::BindingResource::TextureView(float),
            },
            wgpu::BindGroupEntry {
                binding: crate::bindings::VAT_POSITIONS_UINT,
                resource: wgpu::BindingResource::TextureView(uint),
            },
            wgpu::BindGroupEntry {
                binding: crate::bindings::VAT_NORMALS,
                resource: wgpu::BindingResource::TextureView(&v.normals),
            },
        ],
    })
}
