//! `throng bench runtime`: frame cost of the per-instance playback runtime (CPU-timed or
//! GPU-timed) on N instances, against a plain fill of the same record bytes and against classic
//! CPU skinning of one character (sampling + linear blend skinning of every vertex), both
//! measured in the same run (`throng_bench::runtime::versus`). Without `--asset` it uses the
//! runtime's built-in synthetic clip table; the skinning baseline uses `--source` (a glTF
//! character) or the built-in fox.

use std::path::PathBuf;
use throng_bench::runtime::versus::{self, VersusOptions};
use throng_bench::runtime::BenchConfig;
use throng_contract::Timing;

#[derive(clap::Args)]
pub struct Args {
    /// Number of instances (at most 20,000,000: about 5 GB of runtime state).
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..=20_000_000))]
    pub instances: u64,
    /// Playback timing: cpu (every record rewritten each frame) or gpu (records written on change).
    #[arg(long, value_enum, default_value_t = Timing::Cpu)]
    pub mode: Timing,
    /// Fraction of instances given a crossfade to another clip each frame (0..1).
    #[arg(long, default_value_t = 0.0, value_parser = super::shared::parse_fraction)]
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
    /// glTF or FBX character whose CPU skinning is the per-instance baseline (default: the built-in fox).
    #[arg(long, value_name = "GLTF")]
    pub source: Option<PathBuf>,
    /// CPU-timed: keep every instance in its full state, the runtime as it was before the
    /// compact state (docs/design.md §4), to compare against the default in alternating runs.
    #[arg(long)]
    pub full_state: bool,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let options = VersusOptions {
        config: BenchConfig {
            instances: args.instances as usize,
            mode: args.mode,
            changing: args.changing,
            frames: args.frames.max(1),
            layers: args.layers,
            full_state: args.full_state,
            ..BenchConfig::default()
        },
        asset: args.asset,
        source: args.source,
    };
    let result = versus::measure(&options)?;
    if args.json {
        return Ok(super::shared::print_stdout(&result.json()?)?);
    }
    println!("{}", result.table());
    Ok(())
}
