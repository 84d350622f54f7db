//! `throng bench-runtime`: frame cost of the per-instance playback runtime (CPU-timed or
//! GPU-timed) on N instances, against a plain fill of the same record bytes in the same run.
//! Without `--asset` it uses the runtime's built-in synthetic clip table.

use anyhow::Context;
use std::path::PathBuf;
use throng_runtime::bench::{self, BenchConfig, BenchMode};

#[derive(clap::Args)]
pub struct Args {
    /// Number of instances.
    #[arg(long, default_value_t = 1_000_000)]
    pub instances: usize,
    /// Playback mode: cpu (every record rewritten each frame) or gpu (records written on change).
    #[arg(long, default_value = "cpu", value_parser = ["cpu", "gpu"])]
    pub mode: String,
    /// Fraction of instances given a crossfade to another clip each frame (0..1).
    #[arg(long, default_value_t = 0.0)]
    pub changing: f64,
    /// Active layers per instance at rest: 1 (one clip) or 2 (a two-clip blend).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=2))]
    pub layers: u32,
    /// A baked asset (.glb) whose clip table to play.
    #[arg(long, value_name = "FILE")]
    pub asset: Option<PathBuf>,
    /// Timed frames (after up to 30 warm-up frames).
    #[arg(long, default_value_t = 60)]
    pub frames: usize,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    if !(0.0..=1.0).contains(&args.changing) {
        anyhow::bail!(
            "--changing must be a fraction in [0, 1] (got {})",
            args.changing
        );
    }
    let clips = match &args.asset {
        Some(path) => {
            let asset = throng_asset::read(path)
                .with_context(|| format!("loading the baked asset {}", path.display()))?;
            if asset.clips.is_empty() {
                anyhow::bail!(
                    "{} has no clips to play; bake it from a file with animations",
                    path.display()
                );
            }
            asset.clips
        }
        None => bench::synthetic_clips(),
    };
    let cfg = BenchConfig {
        instances: args.instances,
        mode: if args.mode == "gpu" {
            BenchMode::Gpu
        } else {
            BenchMode::Cpu
        },
        changing: args.changing,
        frames: args.frames.max(1),
        layers: args.layers,
        ..BenchConfig::default()
    };
    let r = bench::run(&cfg, &clips);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&r)?);
        return Ok(());
    }
    let source = match &args.asset {
        Some(p) => p.display().to_string(),
        None => "built-in synthetic clips".to_string(),
    };
    println!("runtime benchmark ({source}, {} threads)", r.threads);
    println!("  mode                {}", r.mode);
    println!("  instances           {}", r.instances);
    println!("  layers active       {}", r.layers);
    println!(
        "  changing            {} ({} crossfades per frame)",
        r.changing, r.changes_per_frame
    );
    println!(
        "  ms per frame        {:.3} median, {:.3} p90 (update alone {:.3})",
        r.ms_per_frame, r.ms_p90, r.update_ms
    );
    println!("  ns per instance     {:.2}", r.ns_per_instance);
    println!(
        "  fill 64 B × N       {:.3} ms (frame / fill = {:.2})",
        r.memset_ms, r.ratio_to_memset
    );
    println!("  events per frame    {:.1}", r.events_per_frame);
    if r.mode == "gpu" {
        println!("  records written     {:.1} per frame", r.dirty_per_frame);
    }
    Ok(())
}
