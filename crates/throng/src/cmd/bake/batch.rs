//! `throng bake DIR -o OUTDIR`: every animated glTF, GLB or FBX directly in a folder, baked in
//! parallel with one progress bar. Per-clip settings (flags and the settings file) apply to the
//! files that have the clip; the summary says which files lack a clip a setting names.

use anyhow::Context;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use throng_bake::{BakeError, BakeOptions};

use crate::cmd::shared::{self, file_name, load_model, SourceArgs};

/// What happened to one file of a batch.
enum Outcome {
    Baked {
        out: PathBuf,
        rows: u32,
        /// Clip names of the per-clip settings this file has no clip for (not applied).
        missing: Vec<String>,
        /// The import's and the bake's warnings (a budget not met, influences cut, …).
        warnings: Vec<String>,
    },
    Skipped(String),
    Failed(anyhow::Error),
}

/// glTF, GLB and FBX files directly in `dir` (not recursive: a folder of sources next to folders
/// of other things is the common layout), sorted by name.
fn sources(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(dir).with_context(|| format!("listing {}", dir.display()))? {
        let p = e
            .with_context(|| format!("listing {}", dir.display()))?
            .path();
        let ext = p
            .extension()
            .map(|x| x.to_string_lossy().to_ascii_lowercase());
        if p.is_file() && matches!(ext.as_deref(), Some("gltf") | Some("glb") | Some("fbx")) {
            v.push(p);
        }
    }
    v.sort();
    Ok(v)
}

/// Where a source's baked file goes: `OUTDIR/<stem>.glb`.
fn output_of(input: &Path, out_dir: &Path) -> PathBuf {
    let stem = input
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "asset".into());
    out_dir.join(format!("{stem}.glb"))
}

/// The same file, when both exist.
fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// Checks the whole plan before anything is written: no two sources bake to one file (`X.gltf`
/// and `X.glb`), and no output would replace a source.
fn check_plan(files: &[PathBuf], out_dir: &Path) -> anyhow::Result<()> {
    let mut seen: std::collections::BTreeMap<PathBuf, &Path> = Default::default();
    for f in files {
        let out = output_of(f, out_dir);
        if let Some(other) = seen.insert(out.clone(), f) {
            anyhow::bail!(
                "{} and {} would both bake to {}; rename one, or bake them into different -o folders",
                other.display(),
                f.display(),
                out.display()
            );
        }
        if files.iter().any(|g| same_file(g, &out)) {
            anyhow::bail!(
                "{} would be overwritten by the bake of {}; choose an -o folder other than the sources' (nothing was written)",
                out.display(),
                f.display()
            );
        }
    }
    Ok(())
}

/// Names of the folders directly in `dir`, sorted.
fn subfolders(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter(|e| e.path().is_dir())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn bake_one(input: &Path, out_dir: &Path, base: &BakeOptions, source: &SourceArgs) -> Outcome {
    if throng_asset::is_baked_file(input) {
        return Outcome::Skipped("already a baked throng asset".into());
    }
    let model = match load_model(input, source) {
        Ok(m) => m,
        Err(e) => return Outcome::Failed(e),
    };
    if model.clips.is_empty() {
        return Outcome::Skipped("no animation clips".into());
    }
    let mut options = base.clone();
    options.source_name = file_name(input);
    // A folder mixes characters: a clip setting applies where the clip exists.
    let has = |name: &str| model.clips.iter().any(|c| c.name == name);
    let missing: Vec<String> = options
        .clip_settings
        .keys()
        .filter(|n| !has(n))
        .cloned()
        .collect();
    options.clip_settings.retain(|n, _| has(n));
    let (asset, report) = match throng_bake::bake(&model, &options) {
        Ok(r) => r,
        Err(BakeError::NothingToAnimate { why, .. }) => return Outcome::Skipped(why),
        Err(e) => return Outcome::Failed(e.into()),
    };
    let out = output_of(input, out_dir);
    if same_file(input, &out) {
        return Outcome::Failed(anyhow::anyhow!(
            "the output {} would overwrite its source; choose another -o folder",
            out.display()
        ));
    }
    match throng_asset::write(&asset, &out) {
        Ok(()) => Outcome::Baked {
            out,
            rows: asset.rows(),
            missing,
            warnings: (model.warnings.iter())
                .chain(&report.warnings)
                .cloned()
                .collect(),
        },
        Err(e) => Outcome::Failed(e.into()),
    }
}

/// Bakes every source in `dir` into `out_dir` with `options`, reading each as `source` says
/// (no clip files); every failure is listed with its error, and the command fails when any
/// file failed.
pub fn run(
    dir: &Path,
    out_dir: &Path,
    options: &BakeOptions,
    source: &SourceArgs,
) -> anyhow::Result<()> {
    let files = sources(dir)?;
    if files.is_empty() {
        anyhow::bail!(
            "{}: no .gltf, .glb or .fbx files in this folder",
            dir.display()
        );
    }
    if out_dir.is_file() {
        anyhow::bail!(
            "-o {} is a file; a folder input bakes into a folder (one .glb per source)",
            out_dir.display()
        );
    }
    check_plan(&files, out_dir)?;
    let subfolders = subfolders(dir);
    if !subfolders.is_empty() {
        eprintln!(
            "note: subfolders are not baked (a folder bake is not recursive): {}",
            subfolders.join(", ")
        );
    }
    std::fs::create_dir_all(out_dir)
        .with_context(|| format!("creating the output folder {}", out_dir.display()))?;
    let bar = shared::bar(files.len() as u64, "baking", "files");
    let outcomes: Vec<Outcome> = files
        .par_iter()
        .map(|f| {
            let o = bake_one(f, out_dir, options, source);
            bar.inc(1);
            o
        })
        .collect();
    bar.finish_and_clear();
    let mut failed = 0;
    let mut baked = 0;
    for (f, o) in files.iter().zip(&outcomes) {
        match o {
            Outcome::Baked {
                out,
                rows,
                missing,
                warnings,
            } => {
                baked += 1;
                println!("baked   {} → {} ({rows} rows)", f.display(), out.display());
                for w in warnings {
                    eprintln!("        warning: {}: {w}", file_name(f));
                }
                if !missing.is_empty() {
                    println!(
                        "        settings for clip(s) {} not applied: {} has no such clip",
                        missing.join(", "),
                        file_name(f)
                    );
                }
            }
            Outcome::Skipped(why) => println!("skipped {}: {why}", f.display()),
            Outcome::Failed(e) => {
                failed += 1;
                // The error names the file already when it comes from reading it.
                let msg = crate::error_chain(e);
                if msg.contains(&file_name(f)) {
                    eprintln!("failed  {msg}");
                } else {
                    eprintln!("failed  {}: {msg}", f.display());
                }
            }
        }
    }
    let unused: Vec<&String> = options
        .clip_settings
        .keys()
        .filter(|n| {
            !outcomes
                .iter()
                .any(|o| matches!(o, Outcome::Baked { missing, .. } if !missing.contains(n)))
        })
        .collect();
    if baked > 0 && !unused.is_empty() {
        eprintln!(
            "warning: no baked file has clip(s) {}; check the names (`throng inspect FILE` lists \
             a file's clips)",
            unused
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    println!(
        "{baked} baked, {} skipped, {failed} failed, of {} files",
        files.len() - baked - failed,
        files.len()
    );
    if failed > 0 {
        anyhow::bail!("{failed} of {} files failed to bake", files.len());
    }
    Ok(())
}
