//! What the subcommands share — the one module they import from each other's work: usage
//! errors and output ([this module](self)), value parsers ([`parse`]), sources and clips
//! ([`source`]), baking with progress ([`bake`]), and a frame's inputs and players
//! ([`scene`]). Everything here is a thin shell over library functions.

pub mod bake;
pub mod parse;
pub mod scene;
pub mod source;

pub use bake::{bake_with_bar, print_fidelity, print_report};
pub use parse::*;
pub use source::{
    find_baked_clip, find_clip, load_model, source_bounds, source_meshes, InputArgs, PropSource,
    SourceArgs,
};

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use throng_render::image::{codecs::gif, Delay, Frame, RgbaImage};

// ---- errors and output ----

/// A command-line usage error found after parsing (flags that do not go together): the CLI
/// prints it and exits with code 2 like the argument parser's own errors.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

pub fn usage(msg: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(UsageError(msg.into()))
}

/// Writes `bytes` to `path` atomically: a temporary file in the same folder, then a rename, so
/// a failed or interrupted write never leaves a partial file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, bytes)
        .and_then(|_| std::fs::rename(&tmp, path))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
}

/// Prints `text` and a newline to standard output; a closed pipe (`throng ... | head`) ends the
/// output quietly instead of failing.
pub fn print_stdout(text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|_| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r,
    }
}

/// The image a drawing command writes: `output`, or `first_input`'s name in the current
/// folder; PNG for one frame, GIF for several; its folder must exist. Returns the path and
/// whether it is a GIF.
pub fn image_output(
    output: Option<&Path>,
    first_input: &Path,
    frames: u32,
) -> anyhow::Result<(PathBuf, bool)> {
    let output = output.map(Path::to_path_buf).unwrap_or_else(|| {
        // In the current folder, not beside the input (which may be a read-only library).
        let stem = first_input.file_stem().unwrap_or(first_input.as_os_str());
        PathBuf::from(stem).with_extension(if frames > 1 { "gif" } else { "png" })
    });
    let ext = output
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    let is_gif = ext.as_deref() == Some("gif");
    if !matches!(ext.as_deref(), Some("png") | Some("gif")) {
        return Err(usage(format!(
            "{}: throng render writes PNG (one frame) or animated GIF (--frames K); name the \
             output *.png or *.gif",
            output.display()
        )));
    }
    if frames > 1 && !is_gif {
        return Err(usage(format!(
            "{}: --frames {} writes an animated GIF; name the output *.gif",
            output.display(),
            frames
        )));
    }
    check_folder(&output)?;
    Ok((output, is_gif))
}

/// Fails when the folder `output` would be written in does not exist — checked before any
/// work, so that a long run does not end in a failed write.
pub fn check_folder(output: &Path) -> anyhow::Result<()> {
    match output.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) if !dir.is_dir() => anyhow::bail!(
            "{}: the folder {} does not exist; create it or write elsewhere",
            output.display(),
            dir.display()
        ),
        _ => Ok(()),
    }
}

/// A file's name for messages and the bake's source name.
pub fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| p.display().to_string())
}

// ---- progress, images ----

/// A progress bar of `len` `unit`s on standard error (hidden for one item).
pub fn bar(len: u64, msg: &'static str, unit: &str) -> ProgressBar {
    if len <= 1 {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len).with_message(msg);
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{{msg}} [{{bar:40}}] {{pos}}/{{len}} {unit} ({{eta}})"
        ))
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
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
