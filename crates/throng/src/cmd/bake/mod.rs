//! `throng bake`: a source glTF (plus `--clips` files) → one baked `.glb` (docs/design.md §3),
//! written atomically, with a summary: palette, frames per clip and their rate, texture bytes,
//! time taken and a fidelity line (largest vertex error relative to the bounding diagonal at
//! sample and mid-sample times, measured by `throng_bake::verify`).

mod batch;
mod extras;
mod mesh;

use super::shared::{self, file_name, load_model, parse_fps, parse_max_error, usage, SourceArgs};
use anyhow::Context;
use std::path::PathBuf;
use std::time::Instant;
use throng_asset::{Encoding, RowInterpolation};
use throng_bake::{BakeOptions, InfluenceCount, MaxError, Sampling};

#[derive(clap::Args)]
pub struct Args {
    /// Source glTF or FBX file (.gltf/.glb/.fbx), or a folder: bake every animated source in it
    /// into -o OUTDIR.
    pub input: PathBuf,
    #[command(flatten)]
    pub source_args: SourceArgs,
    /// Output baked asset (.glb); with a folder as input, the output folder.
    #[arg(
        short = 'o',
        long = "out",
        visible_alias = "output",
        value_name = "OUT.glb"
    )]
    pub out: PathBuf,
    /// Uniform frames per second, or `auto` (each clip on its source's key times, even
    /// irregular ones). Without it (and without --max-error) the bake meets --max-error 1e-3.
    #[arg(long, value_parser = parse_fps, conflicts_with = "max_error", allow_negative_numbers = true)]
    pub fps: Option<Sampling>,
    /// Error budget between samples: per clip, the fewest frames whose interpolation keeps every
    /// vertex within it of reference skinning. A fraction of the bounding diagonal (`1e-3`, the
    /// default), a length in metres (`2mm`, `0.5cm`) or in file units (`0.02u`).
    #[arg(long, value_name = "E", value_parser = parse_max_error, allow_hyphen_values = true)]
    pub max_error: Option<MaxError>,
    /// Bone-texture encoding, bytes per joint and frame: quat-snorm16 16 (the default),
    /// mat3x4-snorm16 24 (any affine at 16 bits), mat3x4-f16 24, quat-f32 32, mat3x4-f32 48,
    /// mat4-f32 64.
    #[arg(long, value_enum, default_value_t = Encoding::QuatSnorm16)]
    pub encoding: Encoding,
    /// How rows may be interpolated between frames: linear (two rows, any spacing); pieces
    /// (under an error budget each clip takes the fewest rows of linear segments and polynomial
    /// pieces of degree 2 or 3 ending on the source's keys); or catmull-rom (four rows on
    /// uniform frames, where they are fewer than linear rows).
    #[arg(long, value_enum, default_value_t = RowInterpolation::Linear)]
    pub interpolation: RowInterpolation,
    /// Influences per vertex: 4, 8 or auto (the default: 4, or 8 where cutting to 4 uses more
    /// than half of the error budget at the samples and 8 do better; with --fps, 4). The
    /// settings file's "influences" is used when this is not given.
    #[arg(long, value_name = "4|8|auto", value_parser = InfluenceCount::parse)]
    pub influences: Option<InfluenceCount>,
    /// Fail instead of falling back to the affine rows of the same precision (quat-snorm16 →
    /// mat3x4-snorm16, quat-f32 → mat3x4-f32) when a skin matrix has non-uniform scale or shear,
    /// which a quat-* encoding cannot hold.
    #[arg(long)]
    pub strict: bool,
    /// Rows per texture array layer and widest row, in texels (WebGPU's default limit is 8192);
    /// also the largest side, in pixels, of a --variant texture.
    #[arg(long, default_value_t = throng_bake::options::DEFAULT_MAX_TEXTURE_SIZE, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_texture_size: u32,
    /// Skip the fidelity measurement in the summary (it re-skins every sample on the CPU).
    #[arg(long)]
    pub no_verify: bool,
    /// Clip settings, anchors and root motion.
    #[command(flatten)]
    pub extras: extras::ExtrasArgs,
    /// VAT, LODs and texture exports.
    #[command(flatten)]
    pub mesh: mesh::MeshArgs,
}

/// The options the plain flags set (the source name is this input's file name). Influences
/// are automatic here; a settings file or `--influences` may fix them ([`extras::apply`]).
/// Only an error budget given with `--max-error` is strict: the default one bakes as closely as
/// it can and warns (docs/design.md §3 "Sampling").
fn base_options(args: &Args) -> BakeOptions {
    let mut o = BakeOptions {
        source_name: file_name(&args.input),
        sampling: shared::sampling(args.fps, args.max_error),
        encoding: args.encoding,
        interpolation: args.interpolation,
        strict: args.strict,
        budget_strict: args.max_error.is_some(),
        max_texture_size: args.max_texture_size,
        ..BakeOptions::default()
    };
    InfluenceCount::Auto.apply(&mut o);
    o
}

pub fn run(args: Args) -> anyhow::Result<()> {
    throng_bake::lod::check_ratios(&args.mesh.lods).map_err(|e| usage(format!("--lod: {e}")))?;
    if args.input.is_dir() {
        let mut options = base_options(&args);
        extras::apply(&args.extras, &mut options)?;
        if let Some(k) = args.influences {
            k.apply(&mut options);
        }
        mesh::apply(&args.mesh, &mut options);
        if !args.source_args.clips.is_empty() {
            anyhow::bail!("--clips binds clips to one file; it does not apply to a folder");
        }
        return batch::run(&args.input, &args.out, &options, &args.source_args);
    }
    if !args
        .out
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("glb"))
    {
        return Err(usage(format!(
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
    // A folder that is missing, or a path that cannot be written, before the bake, not after.
    shared::ensure_folder(&args.out)?;
    throng_scene::check_writable(&args.out)?;
    let start = Instant::now();
    let model = load_model(&args.input, &args.source_args)?;
    for w in &model.warnings {
        eprintln!("warning: {w}");
    }
    let mut options = base_options(&args);
    extras::apply(&args.extras, &mut options)?;
    if let Some(k) = args.influences {
        k.apply(&mut options);
    }
    let clip_names: Vec<&str> = model.clips.iter().map(|c| c.name.as_str()).collect();
    extras::check_clip_flags(&args.extras, &args.input, &clip_names)?;
    mesh::apply(&args.mesh, &mut options);
    let bake_start = Instant::now();
    let (asset, report) = shared::bake_with_bar(&model, &options)
        .with_context(|| format!("baking {}", args.input.display()))?;
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
    shared::print_report(&report, report.influences);
    mesh::print_summary(&asset);
    mesh::export(&args.mesh, &asset)?;
    if !args.no_verify {
        shared::bake::print_bake_fidelity(&report, &asset, &model)?;
    }
    shared::bake::print_warnings(&report, report.influences);
    if args.extras.anchors.is_some() && asset.anchors.is_none() {
        eprintln!(
            "warning: --anchors auto found no anchor in {}: no non-joint node hangs under a \
             joint; name sockets with --anchor NODE",
            args.input.display()
        );
    }
    Ok(())
}
