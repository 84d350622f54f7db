//! `throng graph`: look at an animation graph file (docs/graph.md) — `check` it against a
//! baked asset's clip table, or write it as Graphviz text (`dot`).

use std::path::{Path, PathBuf};

use anyhow::Context;
use throng_graph::{GraphError, GraphFile};

use super::shared::{print_stdout, write_atomic};

#[derive(clap::Subcommand)]
pub enum Command {
    /// Check a graph against a baked asset: unknown clips or parameters, type mismatches,
    /// transitions that would fire every frame (errors, exit 1); unreachable states, cycles of
    /// zero-duration transitions, transitions needing more layers than a record holds
    /// (warnings).
    Check(CheckArgs),
    /// Write a graph as Graphviz text (`throng graph dot G | dot -Tsvg > g.svg`).
    Dot(DotArgs),
}

#[derive(clap::Args)]
pub struct CheckArgs {
    /// The graph file (JSON).
    pub graph: PathBuf,
    /// The baked asset (.glb from `throng bake`) whose clips the graph names.
    #[arg(long)]
    pub asset: PathBuf,
}

#[derive(clap::Args)]
pub struct DotArgs {
    /// The graph file (JSON).
    pub graph: PathBuf,
    /// Write to this file (replaced atomically) instead of standard output.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

pub fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Check(a) => check(&a),
        Command::Dot(a) => dot(&a),
    }
}

fn read_graph(path: &Path) -> anyhow::Result<GraphFile> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| GraphError::Io {
        file: file.clone(),
        source,
    })?;
    Ok(GraphFile::parse(&text).map_err(|source| GraphError::json(file, &text, source))?)
}

fn check(a: &CheckArgs) -> anyhow::Result<()> {
    let asset = throng_asset::read(&a.asset)?;
    let file = read_graph(&a.graph)?;
    let problems = throng_graph::check(&file, &asset.clips);
    let name = a.graph.display();
    let errors = problems.iter().filter(|p| p.is_error()).count();
    for p in &problems {
        let kind = if p.is_error() { "error" } else { "warning" };
        eprintln!("{kind}: {name}: {p}");
    }
    if errors > 0 {
        anyhow::bail!(
            "{name}: {errors} error{} against {} ({} clips)",
            if errors == 1 { "" } else { "s" },
            a.asset.display(),
            asset.clips.len()
        );
    }
    print_stdout(&format!(
        "{name}: ok against {}: {} states, {} transitions, {} parameters, {} warning{}",
        a.asset.display(),
        file.states.len(),
        file.transitions.len(),
        file.parameters.len(),
        problems.len(),
        if problems.len() == 1 { "" } else { "s" }
    ))?;
    Ok(())
}

fn dot(a: &DotArgs) -> anyhow::Result<()> {
    let text = throng_graph::to_dot(&read_graph(&a.graph)?);
    match &a.output {
        Some(out) => {
            super::shared::ensure_folder(out)?;
            write_atomic(out, text.as_bytes())
                .with_context(|| format!("cannot write {}", out.display()))
        }
        None => Ok(print_stdout(text.trim_end())?),
    }
}
