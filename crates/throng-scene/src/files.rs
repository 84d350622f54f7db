//! The files a frame is written as: PNG and GIF encodings, pictures compared pixel by pixel,
//! and atomic writes.

use anyhow::Context;
use std::path::{Path, PathBuf};
use throng_render::image::{codecs::gif, Delay, Frame, RgbaImage};

/// The temporary file [`write_atomic`] writes beside `path` before the rename.
fn temp_beside(path: &Path) -> PathBuf {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    dir.join(format!(".{name}.{}.tmp", std::process::id()))
}

/// Checks, before any long work, that [`write_atomic`] will be able to write `path`: its
/// temporary file can be created (and is removed again) and `path` is not a folder. Errors
/// name the path and the reason.
pub fn check_writable(path: &Path) -> anyhow::Result<()> {
    if path.is_dir() {
        anyhow::bail!("{} is a folder: name a file to write", path.display());
    }
    let tmp = temp_beside(path);
    std::fs::write(&tmp, b"")
        .and_then(|_| std::fs::remove_file(&tmp))
        .with_context(|| format!("{} cannot be written", path.display()))
}

/// Writes `bytes` to `path` atomically: a temporary file in the same folder, then a rename, so
/// a failed or interrupted write never leaves a partial file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = temp_beside(path);
    std::fs::write(&tmp, bytes)
        .and_then(|_| std::fs::rename(&tmp, path))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
}

/// A file's name for messages and the bake's source name.
pub fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| p.display().to_string())
}

/// Encodes frames as an endlessly looping GIF, `fps` frames per second.
pub fn encode_gif(frames: Vec<RgbaImage>, fps: f64) -> anyhow::Result<Vec<u8>> {
    let mut out = Vec::new();
    {
        let mut enc = gif::GifEncoder::new_with_speed(&mut out, 10);
        enc.set_repeat(gif::Repeat::Infinite)
            .context("encoding the GIF")?;
        // GIF delays are in 1/100 s; Delay rounds the µs value to that.
        let delay = Delay::from_numer_denom_ms((1e6 / fps).round() as u32, 1000);
        enc.encode_frames(
            frames
                .into_iter()
                .map(|f| Frame::from_parts(f, 0, 0, delay)),
        )
        .context("encoding the GIF")?;
    }
    Ok(out)
}

/// Fraction of the pixels of two pictures whose R, G or B differ by more than 8 levels (of
/// 255); 1 when their sizes differ.
pub fn differing_fraction(a: &RgbaImage, b: &RgbaImage) -> f64 {
    if a.dimensions() != b.dimensions() || a.is_empty() {
        return 1.0;
    }
    let n = a
        .pixels()
        .zip(b.pixels())
        .filter(|(p, q)| (0..3).any(|c| p[c].abs_diff(q[c]) > 8))
        .count();
    n as f64 / (a.width() as u64 * a.height() as u64) as f64
}

/// A PNG of one image.
pub fn encode_png(image: &RgbaImage) -> anyhow::Result<Vec<u8>> {
    let mut png = Vec::new();
    image
        .write_to(
            &mut std::io::Cursor::new(&mut png),
            throng_render::image::ImageFormat::Png,
        )
        .context("encoding the PNG")?;
    Ok(png)
}
