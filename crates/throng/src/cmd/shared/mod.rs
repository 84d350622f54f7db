//! What the subcommands share — the one module they import from each other's work: usage
//! errors and output ([this module](self)), value parsers ([`parse`]), the source flags
//! ([`source`]) and baking with progress ([`bake`]). Everything here is a thin shell over
//! library functions; a frame's inputs and the files it is written as are throng-scene's,
//! re-exported here for the commands.

pub mod bake;
pub mod parse;
pub mod source;
pub mod table;

pub use bake::{bake_with_bar, print_fidelity, print_report};
pub use parse::*;
pub use source::{load_model, InputArgs, SourceArgs};
pub use table::{cell, name_width};
pub use throng_scene::{
    encode_gif, encode_png, file_name, find_baked_clip, find_clip, write_atomic,
};

use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};

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

/// The line that says the renderer draws in the downlevel mode (docs/downlevel.md) — chosen by
/// a device without compute shaders, or `asked` for (`--downlevel`); None in the full mode.
pub fn mode_line(renderer: &throng_render::Renderer, asked: bool) -> Option<String> {
    let why = match renderer.downlevel_reason() {
        Some(missing) => format!("this device lacks {missing}"),
        None if asked => "--downlevel".to_string(),
        None => return None,
    };
    Some(format!(
        "mode: downlevel ({why}): culling and LODs on the CPU, instances from a data texture, plain instanced draws (docs/downlevel.md)"
    ))
}

/// Prints [`mode_line`] to stderr and returns whether frames draw in the downlevel mode.
pub fn print_mode(renderer: &throng_render::Renderer, asked: bool) -> bool {
    match mode_line(renderer, asked) {
        Some(line) => {
            eprintln!("{line}");
            true
        }
        None => false,
    }
}

pub fn usage(msg: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(UsageError(msg.into()))
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
    ensure_folder(&output)?;
    // Before the drawing, not after it.
    throng_scene::check_writable(&output)?;
    Ok((output, is_gif))
}

/// Creates the folder `output` will be written in when it is missing (as a folder bake creates
/// its output folder), before any work, so that a long run does not end in a failed write; an
/// error names the folder when it cannot be made.
pub fn ensure_folder(output: &Path) -> anyhow::Result<()> {
    match output.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) if !dir.is_dir() => {
            anyhow::Context::with_context(std::fs::create_dir_all(dir), || {
                format!(
                    "{}: creating the folder {} to write in",
                    output.display(),
                    dir.display()
                )
            })?;
            eprintln!("note: created the folder {}", dir.display());
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Why `--graph` refuses `--timing gpu` (`throng render`, `throng view`): the graph writes
/// CPU-timed records.
pub const GRAPH_PLAYS_CPU_TIMED: &str = "--graph plays CPU-timed: leave out --timing gpu";

/// Where an animation graph steps (`throng_graph_gpu::StepOn`): auto, the GPU on a hardware
/// adapter with compute shaders and the CPU on a software or downlevel one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum GraphOn {
    Auto,
    Cpu,
    Gpu,
}

impl GraphOn {
    pub fn step_on(self) -> throng_graph_gpu::StepOn {
        match self {
            GraphOn::Auto => throng_graph_gpu::StepOn::Auto,
            GraphOn::Cpu => throng_graph_gpu::StepOn::Cpu,
            GraphOn::Gpu => throng_graph_gpu::StepOn::Gpu,
        }
    }
}

/// `NAME[=VALUE]` of `--param` (a graph parameter; a trigger by its name alone).
pub fn parse_param(s: &str) -> Result<(String, Option<String>), String> {
    let (name, value) = match s.split_once('=') {
        Some((n, v)) => (n, Some(v.to_string())),
        None => (s, None),
    };
    if name.is_empty() {
        return Err(format!(
            "expected NAME=VALUE or a trigger's NAME, not {s:?}"
        ));
    }
    Ok((name.to_string(), value))
}

// ---- progress ----

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
