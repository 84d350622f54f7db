//! The `throng` command line. Exit codes (DESIGN.md §2): 0 success, 1 the input or the work
//! failed (the error is printed with its chain of causes), 2 command-line usage error.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod cmd;

#[derive(Parser)]
#[command(
    name = "throng",
    version,
    about = "Bake skeletal animation from glTF 2.0 into GPU textures and play it on crowds"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Describe a glTF file or a baked asset: skins, primitives, rigid parts, clips, warnings.
    Inspect(cmd::inspect::Args),
    /// Skinned positions and normals of every animated primitive at one clip time.
    Sample(cmd::sample::Args),
    /// Write the built-in character as a standard glTF binary.
    DemoAsset(cmd::demo_asset::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Inspect(a) => cmd::inspect::run(a),
        Command::Sample(a) => cmd::sample::run(a),
        Command::DemoAsset(a) => cmd::demo_asset::run(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}
