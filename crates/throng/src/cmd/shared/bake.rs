//! Baking for the commands: with a progress bar, and the summary lines under "baked …".

use indicatif::{ProgressBar, ProgressStyle};
use throng_anim::Model;
use throng_asset::BakedAsset;
use throng_bake::{ClipSampling, Encoding, ErrorParts, Sampling};

/// Bakes with a progress bar of frame-table rows on standard error (cleared when done).
pub fn bake_with_bar(
    model: &Model,
    options: &throng_bake::BakeOptions,
) -> Result<(BakedAsset, throng_bake::BakeReport), throng_bake::BakeError> {
    let bar = ProgressBar::new(0);
    let style = |unit: &str| {
        ProgressStyle::with_template(&format!(
            "{{msg}} [{{bar:40}}] {{pos}}/{{len}} {unit} ({{eta}})"
        ))
        .unwrap_or_else(|_| ProgressStyle::default_bar())
    };
    let stage = std::sync::Mutex::new(None);
    let progress = |s: throng_bake::Stage, done: u64, total: u64| {
        if let Ok(mut current) = stage.lock() {
            if *current != Some(s) {
                *current = Some(s);
                let (msg, unit) = match s {
                    throng_bake::Stage::Placing => ("placing frames", "ms of clip time"),
                    throng_bake::Stage::Sampling => ("sampling", "rows"),
                };
                bar.set_style(style(unit));
                bar.set_message(msg);
            }
        }
        bar.set_length(total);
        bar.set_position(done);
    };
    let baked = throng_bake::bake_with_progress(model, options, Some(&progress));
    bar.finish_and_clear();
    baked
}

/// The summary lines under a "baked …" line: palette, clips and their rates, bone texture.
pub fn print_report(report: &throng_bake::BakeReport, influences: u32) {
    println!(
        "  palette: {} entries ({} rigid parts), {} primitives, {} influences per vertex",
        report.palette_size, report.rigid_entries, report.primitives, influences
    );
    let w = super::name_width(report.clips.iter().map(|c| c.name.as_str()), 24, 48);
    for c in &report.clips {
        println!(
            "  clip {:w$} {:5} frames, {}, {:.3} s, rows {}..{}",
            super::cell(&c.name, w),
            c.frames,
            clip_spacing(c),
            c.duration,
            c.first_row,
            c.first_row + c.frames - 1
        );
        if let Some(e) = &c.error {
            let total = e.between + e.at_samples;
            println!(
                "       error {:.2e} between samples + {:.2e} at samples (encoding, influences) = {total:.2e} {} {}{}",
                e.between,
                e.at_samples,
                if total <= e.budget.value() { "≤" } else { ">" },
                e.budget,
                if e.budget.in_file_units() { " (file units)" } else { "" }
            );
        }
    }
    println!(
        "  bone texture: {} ({} B per entry-frame), {} rows in {} layer(s), {} bytes",
        report.encoding.as_str(),
        report.encoding.bytes_per_entry_frame(),
        report.rows,
        report.layers,
        report.texture_bytes
    );
}

/// The bake's warnings on standard error, then the flags that would answer them (the library
/// says what to change in its own terms). `influences` as baked.
pub fn print_warnings(report: &throng_bake::BakeReport, influences: u32) {
    for w in &report.warnings {
        eprintln!("warning: {w}");
    }
    let crowded = report.clips.iter().any(|c| {
        c.error
            .as_ref()
            .is_some_and(ErrorParts::samples_crowd_the_budget)
    });
    // What makes less error at the samples: more influences, an f32 matrix encoding.
    let mut finer = Vec::new();
    if influences < 8 {
        finer.push("--influences 8");
    }
    if !matches!(report.encoding, Encoding::Mat4F32 | Encoding::Mat3x4F32) {
        finer.push("--encoding mat3x4-f32");
    }
    if crowded && influences >= 8 && report.vertices_lost_weight > 0 {
        // The cut to 8 influences, not the encoding, is what no setting here removes.
        eprintln!(
            "hint: {} vertices have more influences than the 8 throng keeps (largest weight \
             dropped {:.3}); the error that cut makes at the samples stays whatever the encoding \
             or spacing: allow more error (--max-error), or re-weight the source so that no \
             vertex has more than 8",
            report.vertices_lost_weight, report.max_dropped_weight
        );
    } else if crowded && !finer.is_empty() {
        eprintln!(
            "hint: bake with {} to leave room between frames",
            finer.join(" or ")
        );
    }
}

/// How a clip's frames are spaced: `30 fps`, or for irregular ones the sampling, mean rate and
/// shortest and longest step (`max-error 1e-3: 17.4 fps mean, steps 8.3–125.0 ms`).
pub fn clip_spacing(c: &throng_bake::ClipReport) -> String {
    let keys = c
        .key_rate
        .map(|k| format!("; source keys {k}/s"))
        .unwrap_or_default();
    if (c.max_step - c.min_step).abs() <= 1e-9 {
        // "30 fps" says it all; a budget or the source keys that came out even say how.
        let how = if matches!(c.sampling, ClipSampling::Bake(Sampling::Fixed(_))) {
            String::new()
        } else {
            format!(" ({})", c.sampling)
        };
        format!("{} fps{how}{keys}", round3(c.fps))
    } else {
        format!(
            "{}: {} fps mean, steps {:.1}–{:.1} ms{keys}",
            c.sampling,
            round3(c.fps),
            c.min_step * 1e3,
            c.max_step * 1e3
        )
    }
}

/// A rate to 3 decimals without trailing zeros.
fn round3(x: f64) -> String {
    let s = format!("{x:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The fidelity line of a bake, in one form for every bake: the largest error at sample times,
/// then between samples, saying whether that is a bound or a measure. Under an error budget
/// the bake has measured its own file at
/// every sample time (`throng_bake::verify`'s measure, additive clips on top of their reference
/// pose) and bounded the error between samples, so the line gives those figures — the same
/// ones as the clip lines, measured once. Other bakes (a uniform rate, a clip's own rate, VATs)
/// are measured now ([`print_fidelity`]).
pub fn print_bake_fidelity(
    report: &throng_bake::BakeReport,
    asset: &BakedAsset,
    model: &Model,
) -> anyhow::Result<()> {
    let parts: Vec<(&str, &ErrorParts)> = report
        .clips
        .iter()
        .filter_map(|c| c.error.as_ref().map(|e| (c.name.as_str(), e)))
        .collect();
    let has_vat = asset.primitives.iter().any(|p| p.vat.is_some());
    if parts.is_empty() || parts.len() != report.clips.len() || has_vat {
        return print_fidelity(asset, model);
    }
    let worst = |f: fn(&ErrorParts) -> f64| {
        parts
            .iter()
            .map(|(c, e)| (f(e), *c))
            .fold(
                (f64::NEG_INFINITY, ""),
                |a, b| if b.0 > a.0 { b } else { a },
            )
    };
    let (s, sc) = worst(|e| e.at_samples);
    let (m, mc) = worst(|e| e.between + e.at_samples);
    let budget = parts[0].1.budget;
    let unit = if budget.in_file_units() {
        "file units"
    } else {
        "of the bounding diagonal"
    };
    println!(
        "  fidelity: max error {s:.2e} {unit} at sample times ({sc}); between samples {m:.2e} ({mc}), bounded: the error at the samples plus the re-checked bound of the interpolation"
    );
    Ok(())
}

/// The fidelity line: the largest vertex error of `asset` against full-rate CPU skinning of
/// `model`, relative to the bounding diagonal, at sample and mid-sample times
/// (`throng_bake::verify`).
pub fn print_fidelity(asset: &BakedAsset, model: &Model) -> anyhow::Result<()> {
    let fid = throng_bake::verify::verify(asset, model)?;
    if fid.is_empty() {
        println!("  fidelity: no clips to measure (the asset holds the rest pose only)");
        return Ok(());
    }
    let worst = |f: fn(&throng_bake::verify::ClipFidelity) -> f64| {
        fid.iter()
            .map(|c| (f(c), c.clip.as_str()))
            .fold(
                (f64::NEG_INFINITY, ""),
                |a, b| if b.0 > a.0 { b } else { a },
            )
    };
    let (s, sc) = worst(|c| c.max_rel_samples);
    let (m, mc) = worst(|c| c.max_rel_mid);
    println!(
        "  fidelity: max error {s:.2e} of the bounding diagonal at sample times ({sc}); between samples {m:.2e} ({mc}), measured at mid-sample times"
    );
    Ok(())
}
