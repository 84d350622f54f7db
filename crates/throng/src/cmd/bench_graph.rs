//! `throng bench graph`: animation graphs stepped on the GPU (docs/graph.md "On the GPU") on N
//! instances of the built-in fox's locomotion graph, against the GPU-timed plain runtime's
//! frame at the same change rate, alternately in the same run (`throng_bench::graph_gpu`).

use throng_bench::graph_gpu::{measure, GraphGpuConfig};

#[derive(clap::Args)]
pub struct Args {
    /// Number of instances (at most 4,000,000; the pass keeps ~200 B of GPU buffers an instance,
    /// and a crowd past the device's largest storage binding is refused with the most it takes).
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..=4_000_000))]
    pub instances: u64,
    /// Fraction of instances whose speed parameter changes each frame (0..1).
    #[arg(long, default_value_t = 0.01, value_parser = super::shared::parse_fraction)]
    pub changing: f64,
    /// Timed frames per round (after 10 warm-up frames), at least 2: a round's first frame
    /// takes the events of the last round's step, which are not counted.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(2..=10_000))]
    pub frames: u64,
    /// Rounds, each timing the plain runtime and then the graph pass.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..=100))]
    pub rounds: u64,
    /// Play the fox's clip events (footsteps) on both sides: the pass fires them on the GPU, and
    /// the ratio also counts taking them a frame late (the "events taken a frame late" column,
    /// timed in every run but counted in the ratio only with this flag; "events read at once"
    /// times the waiting read beside it).
    #[arg(long)]
    pub clip_events: bool,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let report = measure(&GraphGpuConfig {
        instances: args.instances as usize,
        changing: args.changing,
        frames: args.frames as usize,
        rounds: args.rounds as usize,
        clip_events: args.clip_events,
    })?;
    if args.json {
        return Ok(super::shared::print_stdout(&serde_json::to_string_pretty(
            &report,
        )?)?);
    }
    println!("{}", report.table());
    Ok(())
}
