//! One module per subcommand; each has `Args` (clap) and `run(Args) -> anyhow::Result<()>`.

pub mod bake;
mod bake_extras;
pub mod bake_mesh;
pub mod bench_render;
pub mod bench_runtime;
pub mod demo;
pub mod demo_asset;
pub mod inspect;
mod inspect_baked;
pub mod render;
pub mod sample;
mod sample_baked;
mod source;
pub mod verify;

use std::path::Path;

/// Writes `bytes` to `path` atomically: a temporary file in the same folder, then a rename, so
/// a failed or interrupted write never leaves a partial file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
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

/// clap value parser of a finite number (NaN and infinities are usage errors).
pub fn parse_finite(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(format!("expected a finite number, not {s:?}")),
    }
}

/// clap value parser of a fraction in [0, 1].
pub fn parse_fraction(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!("expected a fraction in [0, 1], not {s:?}")),
    }
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
