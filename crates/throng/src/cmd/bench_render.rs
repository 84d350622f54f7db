//! `throng bench render`: what a frame of a crowd costs on the adapter at hand, for 1, 100 and
//! 1,000 instances (`--instances`), on the texture, palette, VAT and reference paths in the same
//! run (`throng_bench::render`), or with `--field N` what culling and LODs buy on a crowd at
//! scale (`throng_bench::render::field`). Prints a table, or with `--json` the report.

use std::path::PathBuf;
use throng_bench::render::{self, BenchPath, FieldOptions, RenderBenchOptions};
use throng_render::Timing;

use super::shared::{self, parse_size, print_stdout};

#[derive(clap::Args)]
pub struct Args {
    /// A source, glTF or FBX (baked in memory with a VAT), or a baked asset; default the built-in fox.
    #[arg(long, value_name = "FILE")]
    pub asset: Option<PathBuf>,
    /// Instance counts to measure, comma-separated (the reference path stops at 1,000).
    #[arg(
        long,
        allow_hyphen_values = true,
        value_delimiter = ',',
        default_value = "1,100,1000"
    )]
    pub instances: Vec<u32>,
    /// Image size in pixels, WIDTHxHEIGHT.
    #[arg(long, allow_hyphen_values = true, default_value = "512x512", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Timed frames per case (after 2 warm-up frames).
    #[arg(long, default_value_t = 10)]
    pub frames: u32,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Crowd-scale scenario instead of the path comparison: a grid field of N instances seen
    /// by a low camera at one edge, culling + LOD on against off (see `field`).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub field: Option<u32>,
    /// The downlevel mode's culling and LOD selection on the CPU (docs/downlevel.md) of the
    /// field's N instances (`--field`'s scene, `--field-lods`, `--field-eye`; `--frames` timed
    /// frames), against the GPU culling pass: median milliseconds per frame.
    #[arg(long, value_name = "N", conflicts_with = "field", value_parser = clap::value_parser!(u32).range(1..))]
    pub cpu_cull: Option<u32>,
    /// Instances of the field's "off" case (no culling, LOD 0 everywhere): at most this many.
    #[arg(long, default_value_t = 10_000, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub field_off_cap: u32,
    /// LOD index-count ratios of the field's in-memory bake.
    #[arg(long, value_delimiter = ',', default_value = "0.5,0.25,0.1", value_parser = shared::parse_lod, value_name = "R,R,...")]
    pub field_lods: Vec<f32>,
    /// Timed frames per field case (after 2 warm-up frames: occlusion culling's history settles
    /// in two); the median is reported.
    #[arg(long, default_value_t = 3, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub field_frames: u32,
    /// Write the field's last frame of each case here (field-cull-lod.png,
    /// field-occlusion.png, field-off.png).
    #[arg(long, value_name = "DIR")]
    pub field_images: Option<PathBuf>,
    /// Height of the field's camera, in model heights (below 1 the front rows hide most of the
    /// field; above, every instance's top shows over the ones in front).
    #[arg(long, default_value_t = 0.6, value_name = "HEIGHTS", value_parser = shared::parse_positive_f32)]
    pub field_eye: f32,
    /// Who times playback on the GPU paths: `cpu` (every record written each
    /// frame) or `gpu` (only the records that changed, plus the clock).
    #[arg(long, value_enum, default_value_t = Timing::Cpu)]
    pub timing: Timing,
    /// GPU timing: the fraction of instances whose playback changes each frame (their speed).
    #[arg(long, default_value_t = 0.01, value_parser = shared::parse_fraction, value_name = "F")]
    pub changing: f64,
    /// Leave out the shadow pass (every path).
    #[arg(long)]
    pub no_shadows: bool,
    /// Leave out occlusion culling (frustum culling and LODs stay; every path).
    #[arg(long)]
    pub no_occlusion: bool,
    /// The paths to measure, comma-separated (texture, palette, vat, reference,
    /// palette-motion: the palette path writing motion vectors too, palette-variety: with
    /// per-instance tints and parts, one tint changed a frame, and texture-downlevel: the
    /// texture path in the downlevel mode, docs/downlevel.md); a path the asset cannot take
    /// (vat without a VAT) is left out.
    #[arg(long, value_delimiter = ',', default_value = "texture,palette,vat,reference", value_parser = ["texture", "palette", "palette-variety", "palette-motion", "vat", "reference", "texture-downlevel"])]
    pub paths: Vec<String>,
    /// Palette path, update-rate LOD: refresh intervals at LOD 0, 1, 2, 3 (e.g. `1,1,2,4`; the
    /// last repeats; default every frame). The built-in fox has no LODs: `2` halves its work.
    #[arg(long, value_parser = shared::parse_palette_refresh, value_name = "N,N,...")]
    pub palette_refresh: Option<[u32; 4]>,
    /// LOD index-count ratios of the path comparison's in-memory bake (a source or the
    /// built-in fox), e.g. `0.5,0.25,0.1`; with LODs the bake has a far tier past them, which
    /// the frames draw (bench/gpu.sh's far-tier step). Default: no LODs.
    #[arg(long, value_delimiter = ',', value_parser = shared::parse_lod, value_name = "R,R,...", conflicts_with_all = ["field", "cpu_cull"])]
    pub lods: Vec<f32>,
}

/// The benchmark's options from the flags (every path name was checked by the parser).
fn options(args: &Args) -> RenderBenchOptions {
    RenderBenchOptions {
        asset: args.asset.clone(),
        instances: args.instances.clone(),
        size: args.size,
        frames: args.frames,
        timing: args.timing,
        changing: args.changing,
        shadows: !args.no_shadows,
        occlusion: !args.no_occlusion,
        paths: args
            .paths
            .iter()
            .filter_map(|p| BenchPath::from_name(p))
            .collect(),
        palette_refresh: args.palette_refresh,
        lods: args.lods.clone(),
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    if args.frames == 0 {
        anyhow::bail!("--frames must be at least 1");
    }
    if args.instances.contains(&0) {
        anyhow::bail!("--instances: every count must be at least 1");
    }
    let options = options(&args);
    if let Some(n) = args.cpu_cull {
        let c = render::cpu_cull::CpuCullOptions {
            instances: n,
            lods: args.field_lods,
            frames: args.frames,
            eye: args.field_eye,
        };
        let report = render::cpu_cull::run(&options, &c)?;
        let text = match args.json {
            true => serde_json::to_string_pretty(&report)? + "\n",
            false => report.table(),
        };
        print_stdout(&text)?;
        return Ok(());
    }
    let text = match args.field {
        Some(n) => {
            let field = FieldOptions {
                instances: n,
                off_cap: args.field_off_cap,
                lods: args.field_lods,
                frames: args.field_frames,
                images: args.field_images,
                eye: args.field_eye,
            };
            let report = render::field::run(&options, &field)?;
            match args.json {
                true => serde_json::to_string_pretty(&report)? + "\n",
                false => report.table(),
            }
        }
        None => {
            let report = render::paths(&options)?;
            match args.json {
                true => serde_json::to_string_pretty(&report)? + "\n",
                false => report.table(),
            }
        }
    };
    print_stdout(&text)?;
    Ok(())
}
