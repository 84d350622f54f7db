use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Input file.
    pub input: PathBuf,
}

pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("not implemented yet")
}
