//! Vertex animation textures on the GPU (docs/design.md §3 "VAT"): per primitive a position texture
//! (Rgba32Float, Rgba16Float or Rgba16Uint) and an octahedral normal texture (Rg16Sint), both 2D
//! arrays with texture rows beyond `rows_per_layer` in further layers.

use std::borrow::Cow;

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

/// `vat` laid out for a device of at most `max_dim` texels per side: as it is when its rows fit,
/// else each frame's vertices wrapped into more, narrower texture rows (`R' = ceil(V /
/// max_dim)` rows of `W' = ceil(V / R')` texels; WebGL2's 2048, docs/downlevel.md). The shader
/// reads the layout from the VAT's parameters, so the texels are only moved.
pub fn fitted(vat: &Vat, max_dim: u32) -> Cow<'_, Vat> {
    let max_dim = max_dim.max(1);
    if vat.width <= max_dim || vat.vertices == 0 {
        return Cow::Borrowed(vat);
    }
    let rows_per_frame = vat.vertices.div_ceil(max_dim);
    let width = vat.vertices.div_ceil(rows_per_frame);
    let mut out = Vat {
        width,
        rows_per_layer: max_dim,
        positions: Vec::new(),
        normals: Vec::new(),
        ..header(vat)
    };
    let texels = out.texture_rows() as usize * width as usize;
    let bpt = vat.encoding.bytes_per_texel() as usize;
    out.positions = vec![0; texels * bpt];
    out.normals = vec![0; texels * 2];
    for f in 0..vat.rows {
        for v in 0..vat.vertices {
            let (x, y) = vat.texel_of(v, f);
            let from = y as usize * vat.width as usize + x as usize;
            let (x, y) = out.texel_of(v, f);
            let to = y as usize * width as usize + x as usize;
            let (Some(p), Some(n)) = (
                vat.positions.get(from * bpt..(from + 1) * bpt),
                vat.normals.get(from * 2..from * 2 + 2),
            ) else {
                // A short VAT fails its check later; leave the rest zero.
                continue;
            };
            out.positions[to * bpt..(to + 1) * bpt].copy_from_slice(p);
            out.normals[to * 2..to * 2 + 2].copy_from_slice(n);
        }
    }
    Cow::Owned(out)
}

/// The fields of a VAT without its texels.
fn header(vat: &Vat) -> Vat {
    Vat {
        encoding: vat.encoding,
        width: vat.width,
        vertices: vat.vertices,
        rows: vat.rows,
        rows_per_layer: vat.rows_per_layer,
        min: vat.min,
        max: vat.max,
        positions: Vec::new(),
        normals: Vec::new(),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wide_vat_is_wrapped_with_every_texel_kept() {
        // 5 vertices in one row of 5 per frame, 2 frames; f32 positions (16 B per texel).
        let (v, rows) = (5u32, 2u32);
        let positions: Vec<u8> = (0..v * rows * 16).map(|b| (b % 251) as u8).collect();
        let normals: Vec<i16> = (0..v * rows * 2).map(|k| k as i16).collect();
        let vat = Vat {
            encoding: VatEncoding::F32,
            width: 5,
            vertices: v,
            rows,
            rows_per_layer: 8192,
            min: glam::Vec3::ZERO,
            max: glam::Vec3::ONE,
            positions,
            normals,
        };
        let fit = fitted(&vat, 2);
        // ceil(5 / 2) = 3 rows of ceil(5 / 3) = 2 texels per frame.
        assert_eq!(
            (fit.width, fit.rows_per_frame(), fit.texture_rows()),
            (2, 3, 6)
        );
        assert!(check(&fit, 2, 8).is_ok());
        for f in 0..rows {
            for k in 0..v {
                let (x, y) = vat.texel_of(k, f);
                let a = (y * vat.width + x) as usize;
                let (x, y) = fit.texel_of(k, f);
                let b = (y * fit.width + x) as usize;
                assert_eq!(
                    vat.positions[a * 16..a * 16 + 16],
                    fit.positions[b * 16..b * 16 + 16]
                );
                assert_eq!(vat.normals[a * 2..a * 2 + 2], fit.normals[b * 2..b * 2 + 2]);
            }
        }
        assert!(matches!(fitted(&vat, 8), Cow::Borrowed(_)));
    }
}
