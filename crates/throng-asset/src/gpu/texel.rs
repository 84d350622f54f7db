//! The texel formats of a baked asset's textures, one definition for every consumer: which
//! format each encoding's bone texture and each VAT texture has ([`TexelFormat::bone`],
//! [`TexelFormat::vat_positions`], [`TexelFormat::VAT_NORMALS`]), described without a graphics
//! API — throng-render (wgpu 30) and throng-bevy (Bevy's wgpu 29) each turn a [`TexelFormat`]
//! into their own texture format in one small function, and the bake's KTX2 export writes its
//! `VkFormat`.

use throng_contract::{Encoding, VatEncoding};

/// The texel formats throng's textures use, with their `VkFormat` values (Vulkan spec,
/// `VkFormat`) and wgpu names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TexelFormat {
    /// `VK_FORMAT_R32G32B32A32_SFLOAT` = 109 (wgpu `Rgba32Float`).
    Rgba32Float,
    /// `VK_FORMAT_R16G16B16A16_SFLOAT` = 97 (wgpu `Rgba16Float`).
    Rgba16Float,
    /// `VK_FORMAT_R16G16B16A16_SINT` = 96 (wgpu `Rgba16Sint`).
    Rgba16Sint,
    /// `VK_FORMAT_R16G16B16A16_UINT` = 95 (wgpu `Rgba16Uint`).
    Rgba16Uint,
    /// `VK_FORMAT_R16G16_SINT` = 82 (wgpu `Rg16Sint`).
    Rg16Sint,
}

/// How a shader reads a texture of a [`TexelFormat`] (`textureLoad` only: never filtered).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SampleKind {
    /// `texture_2d_array<f32>`, unfilterable.
    Float,
    /// `texture_2d_array<i32>`.
    Sint,
    /// `texture_2d_array<u32>`.
    Uint,
}

impl TexelFormat {
    /// The bone texture's format for each encoding.
    pub const fn bone(e: Encoding) -> TexelFormat {
        match e {
            Encoding::Mat4F32 | Encoding::Mat3x4F32 | Encoding::QuatF32 => TexelFormat::Rgba32Float,
            Encoding::Mat3x4F16 => TexelFormat::Rgba16Float,
            Encoding::QuatSnorm16 | Encoding::Mat3x4Snorm16 => TexelFormat::Rgba16Sint,
        }
    }

    /// A VAT's position texture's format for each encoding.
    pub const fn vat_positions(e: VatEncoding) -> TexelFormat {
        match e {
            VatEncoding::F32 => TexelFormat::Rgba32Float,
            VatEncoding::F16 => TexelFormat::Rgba16Float,
            VatEncoding::Unorm16 => TexelFormat::Rgba16Uint,
        }
    }

    /// A VAT's octahedral normal texture's format.
    pub const VAT_NORMALS: TexelFormat = TexelFormat::Rg16Sint;

    pub const fn sample_kind(&self) -> SampleKind {
        match self {
            TexelFormat::Rgba32Float | TexelFormat::Rgba16Float => SampleKind::Float,
            TexelFormat::Rgba16Sint | TexelFormat::Rg16Sint => SampleKind::Sint,
            TexelFormat::Rgba16Uint => SampleKind::Uint,
        }
    }

    pub const fn vk_format(&self) -> u32 {
        match self {
            TexelFormat::Rgba32Float => 109,
            TexelFormat::Rgba16Float => 97,
            TexelFormat::Rgba16Sint => 96,
            TexelFormat::Rgba16Uint => 95,
            TexelFormat::Rg16Sint => 82,
        }
    }

    pub const fn vk_name(&self) -> &'static str {
        match self {
            TexelFormat::Rgba32Float => "VK_FORMAT_R32G32B32A32_SFLOAT",
            TexelFormat::Rgba16Float => "VK_FORMAT_R16G16B16A16_SFLOAT",
            TexelFormat::Rgba16Sint => "VK_FORMAT_R16G16B16A16_SINT",
            TexelFormat::Rgba16Uint => "VK_FORMAT_R16G16B16A16_UINT",
            TexelFormat::Rg16Sint => "VK_FORMAT_R16G16_SINT",
        }
    }

    pub const fn wgpu_name(&self) -> &'static str {
        match self {
            TexelFormat::Rgba32Float => "Rgba32Float",
            TexelFormat::Rgba16Float => "Rgba16Float",
            TexelFormat::Rgba16Sint => "Rgba16Sint",
            TexelFormat::Rgba16Uint => "Rgba16Uint",
            TexelFormat::Rg16Sint => "Rg16Sint",
        }
    }

    pub const fn channels(&self) -> u32 {
        match self {
            TexelFormat::Rg16Sint => 2,
            _ => 4,
        }
    }

    /// Bytes per channel (KTX2 `typeSize`).
    pub const fn channel_bytes(&self) -> u32 {
        match self {
            TexelFormat::Rgba32Float => 4,
            _ => 2,
        }
    }

    pub const fn bytes_per_texel(&self) -> u32 {
        self.channels() * self.channel_bytes()
    }

    /// Channel `c` of the little-endian texel `t`, widened to f64 (for previews).
    pub fn channel(&self, t: &[u8], c: usize) -> f64 {
        match self {
            TexelFormat::Rgba32Float => {
                f32::from_le_bytes([t[4 * c], t[4 * c + 1], t[4 * c + 2], t[4 * c + 3]]) as f64
            }
            TexelFormat::Rgba16Float => half::f16::from_le_bytes([t[2 * c], t[2 * c + 1]]).to_f64(),
            TexelFormat::Rgba16Sint | TexelFormat::Rg16Sint => {
                i16::from_le_bytes([t[2 * c], t[2 * c + 1]]) as f64
            }
            TexelFormat::Rgba16Uint => u16::from_le_bytes([t[2 * c], t[2 * c + 1]]) as f64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texel_sizes_are_the_encodings_own() {
        for e in Encoding::ALL {
            assert_eq!(
                TexelFormat::bone(e).bytes_per_texel(),
                e.bytes_per_texel(),
                "{e}"
            );
        }
        for e in VatEncoding::ALL {
            let f = TexelFormat::vat_positions(e);
            assert_eq!(f.bytes_per_texel(), e.bytes_per_texel(), "{e}");
        }
        assert_eq!(
            TexelFormat::VAT_NORMALS.bytes_per_texel(),
            crate::VAT_NORMAL_BYTES_PER_TEXEL
        );
        assert_eq!(
            TexelFormat::bone(Encoding::QuatSnorm16).sample_kind(),
            SampleKind::Sint
        );
    }
}
