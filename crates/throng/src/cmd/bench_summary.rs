//! `throng bench summary DIR`: the figures of a benchmark run (the JSON files `bench/gpu.sh`
//! writes into DIR) as one JSON file and one Markdown table (`throng_bench::summary`).

use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The folder `bench/gpu.sh` wrote (render.json, field-*.json, far.json, runtime-*.json, steps.tsv).
    pub dir: PathBuf,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let (json, md) = throng_bench::summary::write(&args.dir)?;
    println!("wrote {} and {}", json.display(), md.display());
    Ok(())
}
