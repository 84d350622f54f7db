//! `throng bake`: a source glTF (plus `--clips` files) → one baked `.glb` (DESIGN.md §3),
//! written atomically, with a summary: palette, frames per clip and their rate, texture bytes,
//! time taken and a fidelity line (largest vertex error relative to the bounding diagonal at
//! sample and mid-sample times, measured by `throng_bake::verify`).

use super::source::load_model;
use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::time::Instant;
use throng_asset::Encoding;
use throng_bake::{BakeOptions, Fps};

/// `N` (frames per second) or `auto` (each clip at its source key rate).
pub fn parse_fps(s: &str) -> Result<Fps, String> {
    Fps::parse(s).ok_or_else(|| {
        format!("expected a positive number of frames per second or 'auto', not {s:?}")
    })
}

/// One of the bone-texture encodings.
pub fn parse_encoding(s: &str) -> Result<Encoding, String> {
    Encoding::parse(s).ok_or_else(|| {
        let all: Vec<&str> = Encoding::ALL.iter().map(|e| e.as_str()).collect();
        format!("unknown encoding {s:?}; one of: {}", all.join(", "))
    })
}

/// Influences per vertex: 4 or 8.
pub fn parse_influences(s: &str) -> Result<u32, String> {
    match s {
        "4" => Ok(4),
        "8" => Ok(8),
        _ => Err(format!("influences per vertex must be 4 or 8, not {s:?}")),
    }
}

#[derive(clap::Args)]
pub struct Args {
    /// Source glTF file (.gltf/.glb), or a folder: bake every animated glTF in it into -o OUTDIR.
    pub input: PathBuf,
    /// Animation-only glTF files whose clips bind to this skeleton by joint name (repeatable).
    #[arg(long = "clips", value_name = "OTHER")]
    pub clips: Vec<PathBuf>,
    /// Output baked asset (.glb); with a folder as input, the output folder.
    #[arg(short = 'o', long = "out", value_name = "OUT.glb")]
    pub out: PathBuf,
    /// Frames per second of the frame table, or `auto` (each clip at its source key rate).
    #[arg(long, default_value = "30", value_parser = parse_fps)]
    pub fps: Fps,
    /// Bone-texture encoding: mat4-f32, mat3x4-f32, mat3x4-f16, quat-f32, quat-snorm16.
    #[arg(long, default_value = "quat-snorm16", value_parser = parse_encoding)]
    pub encoding: Encoding,
    /// Influences per vertex (4 or 8).
    #[arg(long, default_value_t = 4, value_parser = parse_influences)]
    pub influences: u32,
    /// Fail instead of falling back to mat3x4-f32 when a quat-* encoding cannot hold a matrix.
    #[arg(long)]
    pub strict: bool,
    /// Rows per texture array layer and widest row, in texels (WebGPU's default limit is 8192).
    #[arg(long, default_value_t = throng_bake::options::DEFAULT_MAX_TEXTURE_SIZE)]
    pub max_texture_size: u32,
    /// Skip the fidelity measurement in the summary (it re-skins every sample on the CPU).
    #[arg(long)]
    pub no_verify: bool,
    /// Clip settings, anchors and root motion.
    #[command(flatten)]
    pub extras: super::bake_extras::ExtrasArgs,
    /// VAT, LODs and texture exports.
    #[command(flatten)]
    pub mesh: super::bake_mesh::MeshArgs,
}

/// The options the plain flags set (the source name is this input's file name).
fn base_options(args: &Args) -> BakeOptions {
    // Options this command does not set (added to BakeOptions over time) keep their defaults.
    #[allow(clippy::needless_update)]
    BakeOptions {
        source_name: file_name(&args.input),
        fps: args.fps,
        encoding: args.encoding,
        influences: args.influences,
        strict: args.strict,
        max_texture_size: args.max_texture_size,
        ..BakeOptions::default()
    }
}

pub(crate) fn file_name(p: &std::path::Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| p.display().to_string())
}

pub fn run(args: Args) -> anyhow::Result<()> {
    if args.input.is_dir() {
        let mut options = base_options(&args);
        super::bake_extras::apply(&args.extras, &mut options)?;
        super::bake_mesh::apply(&args.mesh, &mut options);
        return super::bake_extras::run_batch(&args, &options);
    }
    if !args
        .out
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("glb"))
    {
        return Err(super::usage(format!(
            "{}: a baked asset is a glTF binary; name the output *.glb",
            args.out.display()
        )));
    }
    // The output replaces its file only at the end, but replacing the source is never meant.
    if let (Ok(a), Ok(b)) = (
        std::fs::canonicalize(&args.input),
        std::fs::canonicalize(&args.out),
    ) {
        if a == b {
            anyhow::bail!(
                "{}: the output is the input file; name another output with -o (the source glTF \
                 is kept so it can be baked again)",
                args.out.display()
            );
        }
    }
    let start = Instant::now();
    let model = load_model(&args.input, &args.clips)?;
    for w in &model.warnings {
        eprintln!("warning: {w}");
    }
    let mut options = base_options(&args);
    super::bake_extras::apply(&args.extras, &mut options)?;
    let clip_names: Vec<&str> = model.clips.iter().map(|c| c.name.as_str()).collect();
    super::bake_extras::check_clip_flags(&args.extras, &args.input, &clip_names)?;
    super::bake_mesh::apply(&args.mesh, &mut options);
    let bake_start = Instant::now();
    let baked = bake_with_bar(&model, &options);
    let (asset, report) = baked.with_context(|| format!("baking {}", args.input.display()))?;
    let bake_time = bake_start.elapsed();
    throng_asset::write(&asset, &args.out)?;
    let total_time = start.elapsed();

    println!(
        "baked {} → {} in {:.1} ms ({:.1} ms with import and write)",
        args.input.display(),
        args.out.display(),
        bake_time.as_secs_f64() * 1e3,
        total_time.as_secs_f64() * 1e3
    );
    print_report(&report, args.influences);
    super::bake_mesh::print_summary(&asset);
    super::bake_mesh::export(&args.mesh, &asset)?;
    if !args.no_verify {
        print_fidelity(&asset, &model)?;
    }
    for w in &report.warnings {
        eprintln!("warning: {w}");
    }
    if args.extras.anchors.is_some() && asset.anchors.is_none() {
        eprintln!(
            "warning: --anchors auto found no anchor in {}: no non-joint node hangs under a \
             joint; name sockets with --anchor NODE",
            args.input.display()
        );
    }
    Ok(())
}

/// Bakes with a progress bar of frame-table rows on standard error (cleared when done).
pub(crate) fn bake_with_bar(
    model: &throng_anim::Model,
    options: &BakeOptions,
) -> Result<(throng_asset::BakedAsset, throng_bake::BakeReport), throng_bake::BakeError> {
    let bar = ProgressBar::new(0).with_message("sampling");
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} rows ({eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let progress = |done: u64, total: u64| {
        bar.set_length(total);
        bar.set_position(done);
    };
    let baked = throng_bake::bake_with_progress(model, options, Some(&progress));
    bar.finish_and_clear();
    baked
}

/// The summary lines under the "baked …" line: palette, clips and their rates, bone texture.
pub(crate) fn print_report(report: &throng_bake::BakeReport, influences: u32) {
    println!(
        "  palette: {} entries ({} rigid parts), {} primitives, {} influences per vertex",
        report.palette_size, report.rigid_entries, report.primitives, influences
    );
    for c in &report.clips {
        let rate = match c.key_rate {
            Some(k) => format!("{} fps (auto; source keys {k}/s)", c.fps),
            None => format!("{} fps", c.fps),
        };
        println!(
            "  clip {:24} {:5} frames at {rate}, {:.3} s, rows {}..{}",
            c.name,
            c.frames,
            c.duration,
            c.first_row,
            c.first_row + c.frames - 1
        );
    }
    println!(
        "  bone texture: {} ({} B per entry-frame), {} rows in {} layer(s), {} bytes",
        report.encoding.as_str(),
        report.encoding.bytes_per_entry_frame(),
        report.rows,
        report.layers,
        report.texture_bytes
    );
}

/// The fidelity line: the largest vertex error of `asset` against full-rate CPU skinning of
/// `model`, relative to the bounding diagonal, at sample and mid-sample times
/// (`throng_bake::verify`).
pub(crate) fn print_fidelity(
    asset: &throng_asset::BakedAsset,
    model: &throng_anim::Model,
) -> anyhow::Result<()> {
    let fid = throng_bake::verify::verify(asset, model)?;
    if fid.is_empty() {
        println!("  fidelity: no clips to measure (the asset holds the rest pose only)");
    } else {
        let worst = |f: fn(&throng_bake::verify::ClipFidelity) -> f64| {
            fid.iter()
                .map(|c| (f(c), c.clip.as_str()))
                .fold(
                    (f64::NEG_INFINITY, ""),
                    |a, b| if b.0 > a.0 { b } else { a },
                )
        };
        let (s, sc) = worst(|c| c.max_rel_samples);
        let (m, mc) = worst(|c| c.max_rel_mid);
        println!(
            "  fidelity: max error {s:.2e} of the bounding diagonal at sample times ({sc}), {m:.2e} at mid-sample times ({mc})"
        );
    }
    Ok(())
}
