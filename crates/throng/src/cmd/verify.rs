//! `throng verify`: fidelity of a bake (docs/design.md §7) per clip × encoding — max and 99th
//! percentile vertex error relative to the bounding diagonal at sample and mid-sample times,
//! against full-rate reference skinning of the source — plus bytes per entry-frame and texture
//! bytes. Either bakes the source in memory (`throng verify IN`) or measures an existing baked
//! file (`throng verify BAKED.glb --source IN`). Fails (exit code 1) when the largest error
//! (samples or mid-samples) exceeds `--max-error-rel`.

use super::shared::{file_name, load_model, parse_fps, parse_influences, SourceArgs};
use anyhow::Context;
use std::path::PathBuf;
use throng_asset::Encoding;
use throng_bake::verify::{verify, ClipFidelity};
use throng_bake::{BakeOptions, Fps};

#[derive(clap::Args)]
pub struct Args {
    /// A source glTF file, or a baked asset (.glb) together with `--source`.
    pub input: PathBuf,
    /// The source glTF a baked INPUT was baked from.
    #[arg(long)]
    pub source: Option<PathBuf>,
    #[command(flatten)]
    pub source_args: SourceArgs,
    /// Encoding to bake and measure, or `all` (source input only): all, mat4-f32, mat3x4-f32,
    /// mat3x4-f16, quat-f32, quat-snorm16.
    #[arg(long, default_value = "all", value_parser = parse_encoding_or_all)]
    pub encoding: Option<Encoding>,
    /// Frames per second, or `auto` (source input only).
    #[arg(long, default_value = "30", value_parser = parse_fps)]
    pub fps: Fps,
    /// Influences per vertex, 4 or 8 (source input only).
    #[arg(long, default_value_t = 4, value_parser = parse_influences)]
    pub influences: u32,
    /// Also bake a VAT with this position storage (f32, f16, unorm16) and measure it: extra
    /// rows with encoding `vat-<storage>` (source input only; a baked input's VATs are always
    /// measured).
    #[arg(long, value_name = "STORAGE", value_enum)]
    pub vat: Option<throng_asset::VatEncoding>,
    /// Print `{"results": [...]}` as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Fail when any clip's largest error (sample or mid-sample times) exceeds this fraction of
    /// the bounding diagonal.
    #[arg(long, value_name = "R")]
    pub max_error_rel: Option<f64>,
}

/// `all` (None) or one encoding.
fn parse_encoding_or_all(s: &str) -> Result<Option<Encoding>, String> {
    if s == "all" {
        return Ok(None);
    }
    s.parse::<Encoding>()
        .map(Some)
        .map_err(|e| format!("{e}, or all"))
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let results = if throng_asset::is_baked_file(&args.input) {
        let source = args.source.as_ref().with_context(|| {
            format!(
                "{} is a baked asset: pass the glTF it was baked from with --source",
                args.input.display()
            )
        })?;
        let model = load_model(source, &args.source_args)?;
        let asset = throng_asset::read(&args.input)?;
        verify(&asset, &model)?
    } else {
        if let Some(s) = &args.source {
            anyhow::bail!(
                "--source {} is only for a baked input, but {} is not a baked asset",
                s.display(),
                args.input.display()
            );
        }
        let encodings: Vec<Encoding> = match args.encoding {
            None => Encoding::ALL.to_vec(),
            Some(e) => vec![e],
        };
        let model = load_model(&args.input, &args.source_args)?;
        let name = file_name(&args.input);
        let mut all = Vec::new();
        for (i, enc) in encodings.into_iter().enumerate() {
            let options = BakeOptions {
                source_name: name.clone(),
                fps: args.fps,
                encoding: enc,
                influences: args.influences,
                // The VAT does not depend on the bone encoding: measure it once.
                vat: if i == 0 { args.vat } else { None },
                ..Default::default()
            };
            let (asset, report) = throng_bake::bake(&model, &options)
                .with_context(|| format!("baking {} as {}", args.input.display(), enc.as_str()))?;
            if let Some(f) = &report.fallback {
                eprintln!(
                    "note: {} fell back to {} (node '{}', clip '{}' frame {}: {})",
                    enc.as_str(),
                    f.used.as_str(),
                    f.node_name,
                    f.clip,
                    f.frame,
                    f.why
                );
            }
            all.extend(verify(&asset, &model)?);
        }
        all
    };
    if args.json {
        let v = serde_json::json!({ "results": results });
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        print_table(&results);
    }
    if let Some(limit) = args.max_error_rel {
        if let Some((err, r)) = results
            .iter()
            .map(|r| (r.max_rel_samples.max(r.max_rel_mid), r))
            .max_by(|a, b| a.0.total_cmp(&b.0))
        {
            if err > limit {
                anyhow::bail!(
                    "largest error {err:.3e} of the bounding diagonal (clip '{}', {}, {} fps) exceeds --max-error-rel {limit:e}",
                    r.clip,
                    r.encoding,
                    r.fps
                );
            }
        }
    }
    Ok(())
}

fn print_table(results: &[ClipFidelity]) {
    println!(
        "{:24} {:13} {:>6} {:>10} {:>10} {:>10} {:>10} {:>12} {:>12}",
        "clip",
        "encoding",
        "fps",
        "max@samp",
        "p99@samp",
        "max@mid",
        "p99@mid",
        "B/entry-frm",
        "texture B"
    );
    for r in results {
        println!(
            "{:24} {:13} {:>6} {:>10.2e} {:>10.2e} {:>10.2e} {:>10.2e} {:>12} {:>12}",
            r.clip,
            r.encoding,
            r.fps,
            r.max_rel_samples,
            r.p99_rel_samples,
            r.max_rel_mid,
            r.p99_rel_mid,
            r.bytes_per_entry_frame,
            r.texture_bytes
        );
    }
    println!("errors are fractions of the bounding diagonal (file units: use --json)");
}
