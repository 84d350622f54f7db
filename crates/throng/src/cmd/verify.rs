//! `throng verify`: fidelity of a bake (docs/design.md §7) per clip × encoding × sampling — max
//! and 99th percentile vertex error relative to the bounding diagonal at the sample times and
//! between them (halfway, or `--between N` times spread over every gap), against full-rate reference skinning of the source — with the clip's frames and
//! bytes: a bytes-versus-error table. Either bakes the source in memory (`throng verify IN`: the
//! error-budgeted bake beside uniform 30 and 60 fps bakes, or one `--fps`) or measures an
//! existing baked file (`throng verify BAKED.glb --source IN`, beside the source baked at 30 and
//! 60 fps). Fails (exit code 1) when a budgeted row exceeds `--max-error`, or any row exceeds
//! `--max-error-rel`.

use super::shared::{cell, file_name, load_model, parse_fps, parse_max_error, SourceArgs};
use anyhow::Context;
use std::path::PathBuf;
use throng_asset::Encoding;
use throng_bake::verify::{verify_between, BetweenSamples, ClipFidelity};
use throng_bake::{BakeOptions, InfluenceCount, MaxError, Sampling};

#[derive(clap::Args)]
pub struct Args {
    /// A source (glTF or FBX) file, or a baked asset (.glb) together with `--source`.
    pub input: PathBuf,
    /// The source (glTF or FBX) a baked INPUT was baked from.
    #[arg(long)]
    pub source: Option<PathBuf>,
    #[command(flatten)]
    pub source_args: SourceArgs,
    /// Encoding to bake and measure, or `all`: all, mat4-f32, mat3x4-f32, mat3x4-f16, quat-f32,
    /// quat-snorm16, mat3x4-snorm16 (a baked input keeps its own; the comparison bakes use it).
    #[arg(long, default_value = "quat-snorm16", value_parser = parse_encoding_or_all)]
    pub encoding: Encodings,
    /// Measure one uniform bake at this rate (or `auto`, on the source keys) instead of the
    /// budgeted bake beside 30 and 60 fps (source input only).
    #[arg(long, value_parser = parse_fps, conflicts_with = "max_error", allow_negative_numbers = true)]
    pub fps: Option<Sampling>,
    /// Error budget of the budgeted bake (default 1e-3 of the bounding diagonal; also `2mm`,
    /// `0.02u`). Given, it is also the limit the budgeted rows must meet: exit code 1 when one
    /// does not; without it the table only reports.
    #[arg(long, value_name = "E", value_parser = parse_max_error, allow_hyphen_values = true)]
    pub max_error: Option<MaxError>,
    /// Influences per vertex: 4, 8 or auto (the default, as `throng bake`: 4, or 8 where 4
    /// use more than half of the error budget and 8 do better). Source input only.
    #[arg(long, value_name = "4|8|auto", value_parser = InfluenceCount::parse)]
    pub influences: Option<InfluenceCount>,
    /// Also bake a VAT with this position storage (f32, f16, unorm16) and measure it: extra
    /// rows with encoding `vat-<storage>` (source input only; a baked input's VATs are always
    /// measured).
    #[arg(long, value_name = "STORAGE", value_enum)]
    pub vat: Option<throng_asset::VatEncoding>,
    /// Print `{"results": [...]}` as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Print the fidelity report instead (ACL's measures): per clip its rows, bytes per bone
    /// per second, largest and 99th-percentile error over the sample and between-sample times (of
    /// the diagonal), and the error on a 3 cm shell around every joint (file units).
    #[arg(long, conflicts_with = "json")]
    pub report: bool,
    /// How the bakes made here may interpolate rows (as `throng bake --interpolation`).
    #[arg(long, value_enum, default_value_t = throng_asset::RowInterpolation::Linear)]
    pub interpolation: throng_asset::RowInterpolation,
    /// Times measured inside every gap between samples: 1 (the default) halfway; N > 1 spread
    /// over the gap at the golden-ratio sequence's fractions, different in every gap and the
    /// same on every run (10 is what the CI fidelity gate measures). Measuring takes about
    /// (N + 1) / 2 times as long; with --max-error the exit code judges these times too, so a
    /// larger N can find an error the bake's own check grid missed. JSON: `between_per_gap`.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub between: u32,
    /// Fail when any clip's largest error (sample or between-sample times) exceeds this fraction of
    /// the bounding diagonal.
    #[arg(long, value_name = "R")]
    pub max_error_rel: Option<f64>,
}

/// `--between`: where between samples the clips are measured.
fn between(args: &Args) -> BetweenSamples {
    match args.between {
        n if n > 1 => BetweenSamples::PerGap(n),
        _ => BetweenSamples::Halfway,
    }
}

/// One measured row: what was measured beside the fidelity.
#[derive(serde::Serialize)]
struct Row {
    /// `max-error 1e-3`, `30 fps`, `source keys`, or `file` (a baked input as it is).
    sampling: Measured,
    /// Influences per vertex the bake kept (4 or 8): a uniform-rate bake defaults to 4, so its
    /// error can hold a cut the budgeted bake avoided with 8.
    influences: u32,
    #[serde(flatten)]
    fidelity: ClipFidelity,
}

/// What a row measured: a bake made here with a sampling, or a baked file as it is (with the
/// sampling its settings record, parsed once where the file is read).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Measured {
    Bake(Sampling),
    File(Option<Sampling>),
}

impl Measured {
    /// Whether the row is an error-budgeted bake (checked against `--max-error`).
    fn budgeted(&self) -> bool {
        matches!(
            self,
            Measured::Bake(Sampling::MaxError(_)) | Measured::File(Some(Sampling::MaxError(_)))
        )
    }
}

impl std::fmt::Display for Measured {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Measured::Bake(s) => s.fmt(f),
            Measured::File(_) => f.pad("file"),
        }
    }
}

impl serde::Serialize for Measured {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// `--encoding`: every encoding or one. (A plain `Option<Encoding>` field would make clap
/// treat the flag as optional and expect the parser to give an `Encoding`: `--encoding all`
/// panicked in clap's downcast — found by the `cli_args` fuzz target.)
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Encodings {
    All,
    One(Encoding),
}

/// `all` or one encoding.
fn parse_encoding_or_all(s: &str) -> Result<Encodings, String> {
    if s == "all" {
        return Ok(Encodings::All);
    }
    s.parse::<Encoding>()
        .map(Encodings::One)
        .map_err(|e| format!("{e}, or all"))
}

/// What is measured: the source, and the encodings and samplings to bake it with, beside the
/// rows of a baked input.
struct Plan {
    model: throng_anim::Model,
    name: String,
    file_rows: Vec<Row>,
    encodings: Vec<Encoding>,
    samplings: Vec<Sampling>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let baked_input = throng_asset::is_baked_file(&args.input);
    let plan = if baked_input {
        baked_plan(&args)?
    } else {
        source_plan(&args)?
    };
    let mut results = plan.file_rows;
    for (i, enc) in plan.encodings.iter().enumerate() {
        for (j, sampling) in plan.samplings.iter().enumerate() {
            let mut options = BakeOptions {
                source_name: plan.name.clone(),
                sampling: *sampling,
                encoding: *enc,
                interpolation: args.interpolation,
                // The VAT does not depend on the bone encoding: measure it once.
                vat: if i == 0 && j == 0 && !baked_input {
                    args.vat
                } else {
                    None
                },
                ..Default::default()
            };
            args.influences
                .unwrap_or(InfluenceCount::Auto)
                .apply(&mut options);
            // A measurement: every clip gets its row, and the rows are held against
            // --max-error afterwards (exit 1), rather than the bake refusing a budget it cannot
            // meet.
            options.budget_strict = false;
            let (asset, report) = super::shared::bake_with_bar(&plan.model, &options)
                .with_context(|| {
                    format!("baking {} as {} at {sampling}", plan.name, enc.as_str())
                })?;
            if let (Some(f), 0) = (&report.fallback, j) {
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
            let rows = verify_between(&asset, &plan.model, between(&args))?
                .into_iter()
                .map(|fidelity| Row {
                    sampling: Measured::Bake(*sampling),
                    influences: report.influences,
                    fidelity,
                });
            results.extend(rows);
        }
    }
    if args.json {
        let v = serde_json::json!({ "results": results });
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else if args.report {
        print_report(&plan.name, &results);
    } else {
        print_table(&results);
    }
    check_limits(&args, &results)
}

/// A baked input: its own rows, beside the source baked at 30 and 60 fps in the file's encoding.
fn baked_plan(args: &Args) -> anyhow::Result<Plan> {
    let source_only = [
        (args.fps.is_some(), "--fps"),
        (args.vat.is_some(), "--vat"),
        (args.influences.is_some(), "--influences"),
    ];
    if let Some((_, flag)) = source_only.iter().find(|(set, _)| *set) {
        return Err(super::shared::usage(format!(
            "{flag} is for a source input; {} is a baked asset, measured as it was baked (beside 30 and 60 fps bakes of --source)",
            args.input.display()
        )));
    }
    let source = args.source.as_ref().with_context(|| {
        format!(
            "{} is a baked asset: pass the source (glTF or FBX) it was baked from with --source",
            args.input.display()
        )
    })?;
    let model = load_model(source, &args.source_args)?;
    let asset = throng_asset::read(&args.input)?;
    let sampling = Measured::File(Sampling::from_setting(&asset.settings.fps));
    let file_rows = verify_between(&asset, &model, between(args))?
        .into_iter()
        .map(|fidelity| Row {
            sampling,
            influences: asset.settings.influences,
            fidelity,
        })
        .collect();
    Ok(Plan {
        model,
        name: file_name(source),
        file_rows,
        encodings: vec![asset.bone_texture.encoding],
        samplings: vec![Sampling::Fixed(30.0), Sampling::Fixed(60.0)],
    })
}

/// A source input: baked with each encoding asked for, at one `--fps` or under the budget
/// beside 30 and 60 fps.
fn source_plan(args: &Args) -> anyhow::Result<Plan> {
    if let Some(s) = &args.source {
        anyhow::bail!(
            "--source {} is only for a baked input, but {} is not a baked asset",
            s.display(),
            args.input.display()
        );
    }
    let samplings = match args.fps {
        Some(f) => vec![f],
        None => vec![
            super::shared::sampling(None, args.max_error),
            Sampling::Fixed(30.0),
            Sampling::Fixed(60.0),
        ],
    };
    Ok(Plan {
        model: load_model(&args.input, &args.source_args)?,
        name: file_name(&args.input),
        file_rows: Vec::new(),
        encodings: match args.encoding {
            Encodings::All => Encoding::ALL.to_vec(),
            Encodings::One(e) => vec![e],
        },
        samplings,
    })
}

/// The largest error of `rows` (file units when `abs`, else relative) and its row.
fn worst<'a>(rows: impl Iterator<Item = &'a Row>, abs: bool) -> Option<(f64, &'a Row)> {
    rows.map(|r| {
        let f = &r.fidelity;
        let e = if abs {
            f.max_abs_samples.max(f.max_abs_mid)
        } else {
            f.max_rel_samples.max(f.max_rel_mid)
        };
        (e, r)
    })
    .max_by(|a, b| a.0.total_cmp(&b.0))
}

/// Fails when a budgeted row exceeds `--max-error`, or any row `--max-error-rel`.
fn check_limits(args: &Args, results: &[Row]) -> anyhow::Result<()> {
    if let Some(budget) = args.max_error {
        let abs = budget.in_file_units();
        if let Some((err, r)) = worst(results.iter().filter(|r| r.sampling.budgeted()), abs) {
            if err > budget.value() {
                anyhow::bail!(
                    "largest error {err:.3e}{} (clip '{}', {}, {}) exceeds --max-error {budget}",
                    if abs {
                        " file units"
                    } else {
                        " of the bounding diagonal"
                    },
                    r.fidelity.clip,
                    r.fidelity.encoding,
                    r.sampling,
                );
            }
        }
    }
    if let Some(limit) = args.max_error_rel {
        if let Some((err, r)) = worst(results.iter(), false) {
            if err > limit {
                anyhow::bail!(
                    "largest error {err:.3e} of the bounding diagonal (clip '{}', {}, {}) exceeds --max-error-rel {limit:e}",
                    r.fidelity.clip,
                    r.fidelity.encoding,
                    r.sampling
                );
            }
        }
    }
    Ok(())
}

/// Width of the encoding column: its longest name (`mat3x4-snorm16`, `vat-unorm16`).
fn encoding_width(results: &[Row]) -> usize {
    results
        .iter()
        .map(|r| r.fidelity.encoding.len())
        .fold("encoding".len(), usize::max)
}

fn print_table(results: &[Row]) {
    let w = super::shared::name_width(results.iter().map(|r| r.fidelity.clip.as_str()), 24, 48);
    let e = encoding_width(results);
    println!(
        "{:w$} {:e$} {:17} {:>4} {:>6} {:>10} {:>10} {:>10} {:>10} {:>10}",
        "clip",
        "encoding",
        "sampling",
        "infl",
        "frames",
        "bytes",
        "max@samp",
        "p99@samp",
        "max@mid",
        "p99@mid",
    );
    for r in results {
        let f = &r.fidelity;
        println!(
            "{:w$} {:e$} {:17} {:>4} {:>6} {:>10} {:>10.2e} {:>10.2e} {:>10.2e} {:>10.2e}",
            cell(&f.clip, w),
            f.encoding,
            r.sampling,
            r.influences,
            f.frames,
            f.clip_bytes,
            f.max_rel_samples,
            f.p99_rel_samples,
            f.max_rel_mid,
            f.p99_rel_mid,
        );
    }
    println!(
        "errors are fractions of the bounding diagonal at sample times and between them (--between); \
         infl: influences per vertex kept (uniform-rate bakes keep 4 unless --influences); \
         bytes: the clip's frames in the bone texture (file units and more: --json)"
    );
}

/// The fidelity report (docs/benchmarks.md "Fidelity report"): one line per measured clip.
fn print_report(asset: &str, results: &[Row]) {
    let w = super::shared::name_width(results.iter().map(|r| r.fidelity.clip.as_str()), 16, 40);
    let e = encoding_width(results);
    println!(
        "{:w$} {:e$} {:17} {:11} {:>6} {:>9} {:>9} {:>9} {:>10} {:>10}",
        "clip",
        "encoding",
        "sampling",
        "interp",
        "frames",
        "B/bone/s",
        "max",
        "p99",
        "shell max",
        "shell p99",
    );
    for r in results {
        let f = &r.fidelity;
        println!(
            "{:w$} {:e$} {:17} {:11} {:>6} {:>9.0} {:>9.2e} {:>9.2e} {:>10.2e} {:>10.2e}",
            cell(&f.clip, w),
            f.encoding,
            r.sampling,
            f.interpolation,
            f.frames,
            f.bytes_per_bone_second,
            f.max_rel_samples.max(f.max_rel_mid),
            f.p99_rel_samples.max(f.p99_rel_mid),
            f.max_shell,
            f.p99_shell,
        );
    }
    // The whole asset per sampling and encoding: the bytes of every clip over their seconds
    // (what the seed's 30 fps layout, 720 B/bone/s, is compared with per asset).
    let mut groups: Vec<(String, &str, u64, f64, f64)> = Vec::new();
    for r in results {
        let f = &r.fidelity;
        if f.bytes_per_bone_second <= 0.0 {
            continue;
        }
        let bytes = f.frames as u64 * f.bytes_per_entry_frame as u64;
        let seconds = bytes as f64 / f.bytes_per_bone_second;
        let max = f.max_rel_samples.max(f.max_rel_mid);
        let sampling = r.sampling.to_string();
        match groups
            .iter_mut()
            .find(|g| g.0 == sampling && g.1 == f.encoding)
        {
            Some(g) => {
                g.2 += bytes;
                g.3 += seconds;
                g.4 = g.4.max(max);
            }
            None => groups.push((sampling, &f.encoding, bytes, seconds, max)),
        }
    }
    for (sampling, encoding, bytes, seconds, max) in &groups {
        println!(
            "{:w$} {:e$} {:17} {:11} {:>6} {:>9.0} {:>9.2e} {:>9} {:>10} {:>10}",
            cell("(whole asset)", w),
            encoding,
            sampling,
            "",
            "",
            *bytes as f64 / seconds,
            max,
            "-",
            "-",
            "-",
        );
    }
    println!(
        "{asset}: B/bone/s = the clip's rows × bytes per palette entry and row / its duration \
         ((whole asset): every clip's bytes over their seconds); \
         max, p99: vertex error as a fraction of the bounding diagonal, the larger of the figures \
         at the samples and between them (--between); shell: error of points 0.03 file units (3 cm in metres) from \
         every joint, file units"
    );
}
