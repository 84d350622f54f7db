//! Texture files of the exports: 16-bit RGBA PNG (the `png` encoder through `image`), 8-bit RGBA
//! PNG, and half-float RGBA OpenEXR (the `exr` crate, lossless RLE). Texel (x, y) is
//! `data[(y · width + x) · 4 ..][..4]`, row 0 the image's top row (PNG and EXR store rows top
//! down).

use image::{ImageBuffer, ImageFormat, Rgba};
use std::io::Cursor;

/// A 16-bit RGBA PNG.
pub fn png16(width: u32, height: u32, data: Vec<u16>) -> Result<Vec<u8>, String> {
    let img: ImageBuffer<Rgba<u16>, Vec<u16>> = ImageBuffer::from_raw(width, height, data)
        .ok_or_else(|| format!("{width} × {height} texels do not match the data"))?;
    let mut out = Cursor::new(Vec::new());
    img.write_to(&mut out, ImageFormat::Png)
        .map_err(|e| e.to_string())?;
    Ok(out.into_inner())
}

/// An 8-bit RGBA PNG.
pub fn png8(width: u32, height: u32, data: Vec<u8>) -> Result<Vec<u8>, String> {
    let img: ImageBuffer<Rgba<u8>, Vec<u8>> = ImageBuffer::from_raw(width, height, data)
        .ok_or_else(|| format!("{width} × {height} texels do not match the data"))?;
    let mut out = Cursor::new(Vec::new());
    img.write_to(&mut out, ImageFormat::Png)
        .map_err(|e| e.to_string())?;
    Ok(out.into_inner())
}

/// A half-float RGBA OpenEXR image (channels R, G, B, A; lossless RLE compression).
pub fn exr_half(width: u32, height: u32, data: &[f32]) -> Result<Vec<u8>, String> {
    use exr::prelude::*;
    let (w, h) = (width as usize, height as usize);
    if data.len() != w * h * 4 {
        return Err(format!("{width} × {height} texels do not match the data"));
    }
    let channels = SpecificChannels::rgba(|Vec2(x, y): Vec2<usize>| {
        let t = &data[(y * w + x) * 4..][..4];
        (
            f16::from_f32(t[0]),
            f16::from_f32(t[1]),
            f16::from_f32(t[2]),
            f16::from_f32(t[3]),
        )
    });
    let image = Image::from_channels((w, h), channels);
    let mut out = Cursor::new(Vec::new());
    image
        .write()
        .non_parallel()
        .to_buffered(&mut out)
        .map_err(|e| e.to_string())?;
    Ok(out.into_inner())
}

/// A float value as the 16-bit unsigned normalised integer nearest `v · 65535` (`v` clamped to
/// [0, 1]; NaN as 0).
pub fn unorm16(v: f32) -> u16 {
    let v = if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) };
    (v * 65535.0).round() as u16
}

/// A 32-bit float RGBA OpenEXR image (lossless RLE compression).
pub fn exr_f32(width: u32, height: u32, data: &[f32]) -> Result<Vec<u8>, String> {
    use exr::prelude::*;
    let (w, h) = (width as usize, height as usize);
    if data.len() != w * h * 4 {
        return Err(format!("{width} × {height} texels do not match the data"));
    }
    let channels = SpecificChannels::rgba(|Vec2(x, y): Vec2<usize>| {
        let t = &data[(y * w + x) * 4..][..4];
        (t[0], t[1], t[2], t[3])
    });
    let mut out = Cursor::new(Vec::new());
    Image::from_channels((w, h), channels)
        .write()
        .non_parallel()
        .to_buffered(&mut out)
        .map_err(|e| e.to_string())?;
    Ok(out.into_inner())
}
