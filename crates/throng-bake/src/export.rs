//! Exports for other engines (docs/design.md §3 "Exports"): every texture of a baked asset — the bone
//! texture, the anchor texture, each primitive's VAT positions and normals — as a KTX2 file in
//! its exact format, a JSON manifest describing them, and false-colour PNG previews for people.
//!
//! KTX2 (Khronos "KTX File Format Specification" 2.0): one mip level, no supercompression,
//! little-endian texels; a texture whose rows span several array layers is written as a KTX2
//! array texture (`layerCount` = layers, the last layer zero-padded to full height), else
//! `layerCount` = 0. The data format descriptor is one basic block (Khronos Data Format
//! Specification 1.3 §5) with one sample per channel, as the spec's table for each `VkFormat`.

use glam::Vec2;
use serde::Serialize;
use std::path::{Path, PathBuf};
use throng_asset::vat::oct_unwrap;
use throng_asset::{BakedAsset, Encoding, VatEncoding};

/// The texel formats throng writes (throng-asset's one definition, shared with the renderers),
/// with their `VkFormat` values.
pub use throng_asset::gpu::TexelFormat;

/// The bone texture's texel format for each encoding.
pub fn bone_format(e: Encoding) -> TexelFormat {
    TexelFormat::bone(e)
}

/// A VAT's position texel format for each encoding.
pub fn vat_format(e: VatEncoding) -> TexelFormat {
    TexelFormat::vat_positions(e)
}

/// One 2D (array) texture to write: `rows` rows of `width` texels, `rows_per_layer` rows per
/// array layer.
#[derive(Debug, Clone, Copy)]
pub struct TextureView<'a> {
    pub format: TexelFormat,
    pub width: u32,
    pub rows: u32,
    pub rows_per_layer: u32,
    /// `rows × width` texels, little-endian.
    pub data: &'a [u8],
}

impl TextureView<'_> {
    pub fn layers(&self) -> u32 {
        self.rows.div_ceil(self.rows_per_layer.max(1)).max(1)
    }

    /// Height of each layer: `rows_per_layer` for an array texture, else `rows`.
    pub fn height(&self) -> u32 {
        if self.layers() > 1 {
            self.rows_per_layer
        } else {
            self.rows.max(1)
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("{what} has {len} bytes, expected {expected} ({width} × {rows} texels of {format}); the asset is inconsistent, re-bake it")]
    Size {
        what: String,
        len: usize,
        expected: usize,
        width: u32,
        rows: u32,
        format: &'static str,
    },
    #[error("writing {}: {source}; check that the folder exists and is writable", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("writing the preview {}: {source}", .path.display())]
    Png {
        path: PathBuf,
        #[source]
        source: image::ImageError,
    },
    #[error("a texture of {width} × {rows} texels is too large to write")]
    TooLarge { width: u32, rows: u32 },
}

/// KTX2 file identifier (KTX 2.0 spec §3.1).
pub const KTX2_IDENTIFIER: [u8; 12] = [
    0xAB, 0x4B, 0x54, 0x58, 0x20, 0x32, 0x30, 0xBB, 0x0D, 0x0A, 0x1A, 0x0A,
];

/// Data format descriptor (`dfdTotalSize` then one basic block) for `f` (Khronos Data Format
/// Specification 1.3 §5.5–5.6: colour model RGBSDA, BT.709 primaries, linear transfer, one
/// sample per channel; channel ids R 0, G 1, B 2, A 15; qualifier bits 0x80 float, 0x40 signed;
/// sampleLower/Upper −1.0/1.0 as f32 bits for float channels, −1 (signed) or 0 and 1 for integer
/// channels, as the KTX2 spec's reference `VkFormat` → DFD mapping writes them).
pub fn dfd(f: TexelFormat) -> Vec<u8> {
    let samples = f.channels();
    let block_size = 24 + 16 * samples;
    let mut w: Vec<u32> = vec![
        0,                        // vendorId 0 (Khronos), descriptorType 0 (basic)
        2 | (block_size << 16),   // versionNumber 2 (KDF 1.3), descriptorBlockSize
        1 | (1 << 8) | (1 << 16), // colorModel RGBSDA, primaries BT709, transfer linear, flags 0
        0,                        // texelBlockDimension 1×1×1×1 (stored minus one)
        f.bytes_per_texel(),      // bytesPlane0; planes 1–3 zero
        0,                        // bytesPlane4–7
    ];
    let bits = f.channel_bytes() * 8;
    let (qual, lower, upper): (u32, u32, u32) = match f {
        TexelFormat::Rgba32Float | TexelFormat::Rgba16Float => {
            (0x80 | 0x40, (-1.0f32).to_bits(), 1.0f32.to_bits())
        }
        TexelFormat::Rgba16Sint | TexelFormat::Rg16Sint => (0x40, u32::MAX, 1),
        TexelFormat::Rgba16Uint => (0, 0, 1),
    };
    for c in 0..samples {
        let channel = if c == 3 { 15 } else { c };
        w.push((c * bits) | ((bits - 1) << 16) | ((channel | qual) << 24));
        w.push(0); // samplePosition 0,0,0,0
        w.push(lower);
        w.push(upper);
    }
    let total = 4 + 4 * w.len() as u32;
    let mut out = total.to_le_bytes().to_vec();
    for x in w {
        out.extend_from_slice(&x.to_le_bytes());
    }
    out
}

/// The bytes of a KTX2 file holding `t` (one mip level; see the module docs). The `KTXwriter`
/// key names throng. Level data starts 16-byte aligned (a multiple of every texel size and 4, as
/// §3.9.7 asks).
pub fn ktx2_bytes(t: &TextureView<'_>) -> Result<Vec<u8>, ExportError> {
    let bpt = t.format.bytes_per_texel() as usize;
    let expected = (t.width as usize)
        .checked_mul(t.rows as usize)
        .and_then(|n| n.checked_mul(bpt))
        .ok_or(ExportError::TooLarge {
            width: t.width,
            rows: t.rows,
        })?;
    if t.data.len() != expected {
        return Err(ExportError::Size {
            what: "texture".into(),
            len: t.data.len(),
            expected,
            width: t.width,
            rows: t.rows,
            format: t.format.vk_name(),
        });
    }
    let layers = t.layers();
    let height = t.height();
    let level_len = t.width as usize * height as usize * layers as usize * bpt;

    let dfd = dfd(t.format);
    let mut kvd = Vec::new();
    let kv = format!("KTXwriter\0throng {}\0", env!("CARGO_PKG_VERSION"));
    kvd.extend_from_slice(&(kv.len() as u32).to_le_bytes());
    kvd.extend_from_slice(kv.as_bytes());
    kvd.resize(kvd.len().next_multiple_of(4), 0);

    const HEADER: usize = 80;
    const LEVEL_INDEX: usize = 24;
    let dfd_off = HEADER + LEVEL_INDEX;
    let kvd_off = dfd_off + dfd.len();
    let data_off = (kvd_off + kvd.len()).next_multiple_of(16);

    let mut out = Vec::with_capacity(data_off + level_len);
    out.extend_from_slice(&KTX2_IDENTIFIER);
    for x in [
        t.format.vk_format(),
        t.format.channel_bytes(), // typeSize
        t.width,
        height,
        0, // pixelDepth
        if layers > 1 { layers } else { 0 },
        1, // faceCount
        1, // levelCount
        0, // supercompressionScheme
        dfd_off as u32,
        dfd.len() as u32,
        kvd_off as u32,
        kvd.len() as u32,
    ] {
        out.extend_from_slice(&x.to_le_bytes());
    }
    for x in [0u64, 0, data_off as u64, level_len as u64, level_len as u64] {
        out.extend_from_slice(&x.to_le_bytes()); // sgd offset, length; level 0
    }
    out.extend_from_slice(&dfd);
    out.extend_from_slice(&kvd);
    out.resize(data_off, 0);
    out.extend_from_slice(t.data);
    out.resize(data_off + level_len, 0); // zero rows that pad the last layer
    Ok(out)
}

/// What one exported texture is, for the manifest.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ManifestEntry {
    /// KTX2 file name, relative to the manifest.
    pub file: String,
    /// False-colour preview (PNG), relative to the manifest.
    pub preview: String,
    /// `VK_FORMAT_*` name and the wgpu name.
    pub format: String,
    pub wgpu_format: String,
    /// Texels per row; rows per layer; array layers (1 = not an array).
    pub width: u32,
    pub height: u32,
    pub layers: u32,
    /// Rows that hold data (the rest of the last layer is zero).
    pub rows: u32,
    /// What it holds and how to read it.
    pub holds: String,
}

/// One clip of the frame table, for an engine that plays the exported textures itself.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ManifestClip {
    pub name: String,
    /// Frame-table row of frame 0, and the frame count.
    pub first_row: u32,
    pub frames: u32,
    /// Seconds.
    pub duration: f64,
    /// `loop`, `once`, `clamp` or `ping-pong`.
    pub loop_mode: String,
    /// Whether the frames are evenly spaced (`fps` frames per second) or listed.
    pub uniform: bool,
    pub fps: f64,
    /// Clip time of every frame, seconds: frame k is row `first_row + k`. Between frames a
    /// and a + 1 the pose is the lerp of their rows at `(t − t_a) / (t_{a+1} − t_a)`
    /// (docs/design.md §4 "Time rules").
    pub frame_times: Vec<f64>,
}

/// The manifest `manifest.json` lists.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Manifest {
    pub source: String,
    pub frame_table_rows: u32,
    pub clips: Vec<ManifestClip>,
    pub textures: Vec<ManifestEntry>,
}

/// Every texture of `asset` as (file stem, texture, description, preview kind).
fn textures(asset: &BakedAsset) -> Vec<(String, TextureView<'_>, String, Preview)> {
    let mut out = Vec::new();
    let bt = &asset.bone_texture;
    out.push((
        "bone_texture".to_string(),
        TextureView {
            format: bone_format(bt.encoding),
            width: bt.width(),
            rows: bt.rows,
            rows_per_layer: bt.rows_per_layer,
            data: &bt.data,
        },
        format!(
            "bone texture, encoding {} ({} texels per palette entry, {} entries); row = frame-table row (layer = row / {}){}",
            bt.encoding.as_str(),
            bt.encoding.texels_per_entry(),
            bt.entries,
            bt.rows_per_layer,
            // Only the snorm16 encodings store values relative to ranges.
            match bt.encoding {
                throng_asset::Encoding::QuatSnorm16 => format!(
                    "; translation = snorm16 × {} file units, scale = snorm16 × {}",
                    bt.translation_range, bt.scale_range
                ),
                throng_asset::Encoding::Mat3x4Snorm16 => format!(
                    "; translation = snorm16 × {} file units, linear entries = snorm16 × {}",
                    bt.translation_range, bt.scale_range
                ),
                _ => String::new(),
            }
        ),
        Preview::PerChannel,
    ));
    if let Some(a) = &asset.anchors {
        out.push((
            "anchors".to_string(),
            TextureView {
                format: TexelFormat::Rgba32Float,
                width: a.anchors.len() as u32 * 3,
                rows: a.rows,
                rows_per_layer: bt.rows_per_layer,
                data: bytemuck::cast_slice(&a.data),
            },
            format!(
                "anchor texture, mat3x4-f32 (texel 3a + r = row r of anchor a's model-space affine matrix); anchors: {}",
                a.anchors
                    .iter()
                    .map(|x| x.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Preview::PerChannel,
        ));
    }
    for (i, p) in asset.primitives.iter().enumerate() {
        let Some(v) = &p.vat else { continue };
        let where_ = format!(
            "primitive {i} (source node {}, mesh {}, primitive {}): {} vertices, width {}, {} texture rows per frame-table row; vertex v of row f at texel (v mod {}, f·{} + v div {})",
            p.node_index,
            p.mesh,
            p.primitive,
            v.vertices,
            v.width,
            v.rows_per_frame(),
            v.width,
            v.rows_per_frame(),
            v.width
        );
        let pos_how = match v.encoding {
            VatEncoding::Unorm16 => format!(
                "p = min + q / 65535 · (max − min), min {:?}, max {:?}",
                v.min.to_array(),
                v.max.to_array()
            ),
            _ => "xyz in file units, w = 1".to_string(),
        };
        out.push((
            format!("vat_positions_p{i}"),
            TextureView {
                format: vat_format(v.encoding),
                width: v.width,
                rows: v.texture_rows(),
                rows_per_layer: v.rows_per_layer,
                data: &v.positions,
            },
            format!(
                "VAT positions ({}) of {where_}; {pos_how}",
                v.encoding.as_str()
            ),
            Preview::PerChannel,
        ));
        out.push((
            format!("vat_normals_p{i}"),
            TextureView {
                format: TexelFormat::VAT_NORMALS,
                width: v.width,
                rows: v.texture_rows(),
                rows_per_layer: v.rows_per_layer,
                data: bytemuck::cast_slice(&v.normals),
            },
            format!("VAT normals of {where_}; octahedral (u, v) = max(q / 32767, −1)"),
            Preview::Octahedral,
        ));
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Preview {
    /// Each of the first three channels stretched over its own min..max.
    PerChannel,
    /// Octahedral normals shown as `n · 0.5 + 0.5`.
    Octahedral,
}

/// Rows a preview shows at most (taller textures are cut; the KTX2 holds everything).
pub const PREVIEW_MAX_ROWS: u32 = 4096;

/// False-colour RGB8 image of `t` (one pixel per texel, rows top to bottom, at most
/// [`PREVIEW_MAX_ROWS`] rows).
fn preview_image(t: &TextureView<'_>, kind: Preview) -> image::RgbImage {
    let rows = t.rows.clamp(1, PREVIEW_MAX_ROWS);
    let w = t.width.max(1);
    let bpt = t.format.bytes_per_texel() as usize;
    let texel = |x: u32, y: u32| -> Option<&[u8]> {
        let i = (y as usize * t.width as usize + x as usize) * bpt;
        t.data.get(i..i + bpt)
    };
    let ch = t.format.channels().min(3) as usize;
    let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    if kind == Preview::PerChannel {
        for y in 0..rows {
            for x in 0..t.width {
                if let Some(b) = texel(x, y) {
                    for c in 0..ch {
                        let v = t.format.channel(b, c);
                        if v.is_finite() {
                            lo[c] = lo[c].min(v);
                            hi[c] = hi[c].max(v);
                        }
                    }
                }
            }
        }
    }
    image::RgbImage::from_fn(w, rows, |x, y| {
        let Some(b) = texel(x, y) else {
            return image::Rgb([0, 0, 0]);
        };
        let mut px = [0u8; 3];
        match kind {
            Preview::PerChannel => {
                for c in 0..ch {
                    let v = t.format.channel(b, c);
                    let s = if hi[c] > lo[c] {
                        (v - lo[c]) / (hi[c] - lo[c])
                    } else {
                        0.5
                    };
                    px[c] = (s.clamp(0.0, 1.0) * 255.0).round() as u8;
                }
            }
            Preview::Octahedral => {
                let q = |c| (t.format.channel(b, c) / 32767.0).max(-1.0) as f32;
                let n = oct_unwrap(Vec2::new(q(0), q(1))) * 0.5 + 0.5;
                for (c, v) in n.to_array().iter().enumerate() {
                    px[c] = (v.clamp(0.0, 1.0) * 255.0).round() as u8;
                }
            }
        }
        image::Rgb(px)
    })
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), ExportError> {
    std::fs::write(path, bytes).map_err(|source| ExportError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Writes every texture of `asset` into `dir` (created if missing) as `<name>.ktx2` plus
/// `<name>.png` previews and `manifest.json`. Returns the manifest.
pub fn export(asset: &BakedAsset, dir: &Path) -> Result<Manifest, ExportError> {
    std::fs::create_dir_all(dir).map_err(|source| ExportError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut manifest = Manifest {
        source: asset.source_name.clone(),
        frame_table_rows: asset.rows(),
        clips: asset
            .clips
            .iter()
            .map(|c| ManifestClip {
                name: c.name.clone(),
                first_row: c.first_row,
                frames: c.frames,
                duration: c.duration,
                loop_mode: c.loop_mode.as_str().to_string(),
                uniform: c.times.is_none(),
                fps: c.fps,
                frame_times: (0..c.frames).map(|k| c.frame_time(k)).collect(),
            })
            .collect(),
        textures: Vec::new(),
    };
    for (stem, t, holds, kind) in textures(asset) {
        let file = format!("{stem}.ktx2");
        let preview = format!("{stem}.png");
        write_file(
            &dir.join(&file),
            &ktx2_bytes(&t).map_err(|e| match e {
                ExportError::Size {
                    len,
                    expected,
                    width,
                    rows,
                    format,
                    ..
                } => ExportError::Size {
                    what: stem.clone(),
                    len,
                    expected,
                    width,
                    rows,
                    format,
                },
                e => e,
            })?,
        )?;
        let png = dir.join(&preview);
        preview_image(&t, kind)
            .save_with_format(&png, image::ImageFormat::Png)
            .map_err(|source| ExportError::Png { path: png, source })?;
        manifest.textures.push(ManifestEntry {
            file,
            preview,
            format: t.format.vk_name().to_string(),
            wgpu_format: t.format.wgpu_name().to_string(),
            width: t.width,
            height: t.height(),
            layers: t.layers(),
            rows: t.rows,
            holds,
        });
    }
    let json = serde_json::to_vec_pretty(&manifest).map_err(|e| ExportError::Io {
        path: dir.join("manifest.json"),
        source: std::io::Error::other(e),
    })?;
    write_file(&dir.join("manifest.json"), &json)?;
    Ok(manifest)
}
