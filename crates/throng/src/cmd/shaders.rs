//! `throng shaders`: every WGSL program the renderer composes, written out whole (imports
//! resolved, variant defs and binding numbers applied) so a person can read exactly what a
//! device compiles, or diff two versions.

use anyhow::Context;
use std::path::PathBuf;

use super::shared::write_atomic;

#[derive(clap::Args)]
pub struct Args {
    /// Folder to write `<program>.wgsl` files into (created when missing).
    #[arg(long, value_name = "DIR", default_value = "shaders")]
    pub out: PathBuf,
    /// Only programs whose name contains this (e.g. `texture_draw-quat-snorm16`).
    #[arg(long, value_name = "TEXT")]
    pub only: Option<String>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    let mut written = 0;
    for p in throng_render::shaders::all_programs() {
        let name = p.name();
        if args.only.as_deref().is_some_and(|o| !name.contains(o)) {
            continue;
        }
        let text = throng_render::shaders::program_text(p)?;
        let path = args.out.join(format!("{name}.wgsl"));
        write_atomic(&path, text.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
        written += 1;
    }
    if written == 0 {
        anyhow::bail!(
            "no program name contains {:?}; `throng shaders` without --only writes them all",
            args.only.unwrap_or_default()
        );
    }
    println!(
        "wrote {written} composed WGSL program(s) to {}",
        args.out.display()
    );
    Ok(())
}
