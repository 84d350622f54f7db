//! `throng demo-asset`: writes the built-in demo character (`throng-demo`, a fox generated in
//! code) as a standard glTF 2.0 binary, so every other command can be tried without a file.

use anyhow::Context;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Output file (.glb); replaced atomically if it exists.
    #[arg(short, long, default_value = "demo.glb", visible_alias = "out")]
    pub output: PathBuf,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    super::shared::ensure_folder(&args.output)?;
    let bytes = throng_demo::demo_glb();
    super::shared::write_atomic(&args.output, &bytes)
        .with_context(|| format!("cannot write the demo asset to {}", args.output.display()))?;
    let d = throng_demo::demo_description();
    println!(
        "wrote {} ({} bytes): {} joints, {} vertices, {} triangles, {} clips",
        args.output.display(),
        bytes.len(),
        d.joints,
        d.vertices,
        d.triangles,
        d.clips.len()
    );
    for c in &d.clips {
        let events: Vec<String> = c
            .events
            .iter()
            .map(|(t, n)| format!("{n}@{t:.3}s"))
            .collect();
        println!(
            "  {:<5} {:>5.2} s  {:>3} keys  {:<4}  {}",
            c.name,
            c.duration,
            c.keys,
            c.loop_mode.as_str(),
            events.join(" ")
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_the_demo_atomically_and_reports_missing_folders() {
        let dir = std::env::temp_dir().join(format!("throng-demo-asset-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let out = dir.join("fox.glb");
        std::fs::write(&out, b"old").expect("old file");
        run(Args {
            output: out.clone(),
        })
        .expect("demo-asset runs");
        assert_eq!(
            std::fs::read(&out).expect("read back"),
            throng_demo::demo_glb()
        );
        let names: Vec<_> = std::fs::read_dir(&dir)
            .expect("list")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(
            names,
            vec![std::ffi::OsString::from("fox.glb")],
            "temp file left behind"
        );

        // a missing folder is made, as a folder bake makes its output folder
        let nested = dir.join("missing/fox.glb");
        run(Args {
            output: nested.clone(),
        })
        .expect("writes into a new folder");
        assert_eq!(
            std::fs::read(&nested).expect("read back"),
            throng_demo::demo_glb()
        );
        // a file where the folder would be cannot be made into one
        let blocked = dir.join("fox.glb/inner.glb");
        let err = run(Args { output: blocked }).expect_err("a file is in the way");
        assert!(
            format!("{err:#}").contains("creating the folder"),
            "{err:#}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
