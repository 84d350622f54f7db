//! Baking for the commands: with a progress bar, and the summary lines under "baked …".

use indicatif::{ProgressBar, ProgressStyle};
use throng_anim::Model;
use throng_asset::BakedAsset;

/// Bakes with a progress bar of frame-table rows on standard error (cleared when done).
pub fn bake_with_bar(
    model: &Model,
    options: &throng_bake::BakeOptions,
) -> Result<(BakedAsset, throng_bake::BakeReport), throng_bake::BakeError> {
    let bar = ProgressBar::new(0).with_message("sampling");
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} rows ({eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let progress = |done: u64, total: u64| {
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
    for c in &report.clips {
        let rate = match c.key_rate {
            Some(k) => format!("{} fps (auto; source keys {k}/s)", c.fps),
            None => format!("{} fps", c.fps),
        };
        println!(
            "  clip {:24} {:5} frames at {rate}, {:.3} s, rows {}..{}",
            c.name,
            c.frames,
            c.duration,
            c.first_row,
            c.first_row + c.frames - 1
        );
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
        "  fidelity: max error {s:.2e} of the bounding diagonal at sample times ({sc}), {m:.2e} at mid-sample times ({mc})"
    );
    Ok(())
}
