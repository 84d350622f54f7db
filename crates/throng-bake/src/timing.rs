//! Stage: when each clip is sampled (docs/design.md §3 "Frame table", "Sampling"). A clip with
//! its own fps setting is uniform at that rate; otherwise the bake's [`Sampling`] decides:
//! uniform at a rate, on the source's keys, or — under an error budget — the frames
//! [`crate::budget`] places.
//!
//! The budget bounds the error between samples *plus* the error the texel encoding and the
//! K-influence cut make at the samples, which only a bake shows. So a budgeted timing bakes far
//! enough to measure (`measure`: frame table, samples, root motion, bone texture, measured by
//! [`crate::verify`]): a coarse uniform probe first, whose error at the samples (with a margin)
//! comes off each clip's budget before placing; then the placed frames, and every clip whose two
//! parts together exceed the budget is placed again with its measured part taken off.

use crate::budget::{self, Placement};
use crate::error::BakeError;
use crate::frame_table::{self, ClipPlan, ClipTimes};
use crate::frames::{self, clip_duration, frame_count};
use crate::options::{BakeOptions, MaxError, Sampling, DEFAULT_FPS};
use crate::palette::Palette;
use crate::primitives::Primitives;
use crate::progress::{Progress, Stage};
use crate::report::{ClipSampling, ErrorParts};
use crate::root_motion;
use crate::sample;
use crate::uniform_budget;
use crate::{additive, bone_texture};
use throng_anim::{Clip, Model};
use throng_asset::{BakedAsset, Encoding, RowInterpolation};

/// Rate of the coarse bake that estimates the error at sample times before placing frames.
const PROBE_FPS: f64 = 10.0;
/// The estimate times this comes off the budget.
const PROBE_MARGIN: f64 = 1.5;

/// What a measuring bake reads.
pub struct Source<'a> {
    pub model: &'a Model,
    pub options: &'a BakeOptions,
    pub palette: &'a Palette,
    pub prims: &'a Primitives,
    pub motion_root: Option<usize>,
}

impl Source<'_> {
    /// Vertices with more influences than were baked, and the largest weight cut off (`None`
    /// when no weight was cut).
    fn cut(&self) -> Option<(usize, f32)> {
        let s = &self.prims.stats;
        (s.lost > 0).then_some((s.lost, s.max_dropped))
    }
}

impl<'a> Source<'a> {
    pub fn new(
        model: &'a Model,
        options: &'a BakeOptions,
        palette: &'a Palette,
        prims: &'a Primitives,
        motion_root: Option<usize>,
    ) -> Source<'a> {
        Source {
            model,
            options,
            palette,
            prims,
            motion_root,
        }
    }
}

/// Every clip's plan, and under an error budget the warnings of clips that come close to it.
pub struct Timing {
    pub plans: Vec<ClipPlan>,
    pub warnings: Vec<String>,
}

/// The frame times of every clip of `src.model` under `src.options.sampling`; under an error
/// budget `probe` is the bake's [`Probe`] of the same source (measured when `None`).
pub fn plan(
    src: &Source<'_>,
    probe: Option<Probe>,
    progress: Option<Progress<'_>>,
) -> Result<Timing, BakeError> {
    match src.options.sampling {
        Sampling::MaxError(budget) => {
            let probe = match probe {
                Some(p) => p,
                None => Probe::measure(src, budget)?,
            };
            budgeted(src, budget, probe, progress)
        }
        sampling => {
            let mut plans = uniform(src.model, src.options, sampling);
            mark_periodic(src, &mut plans, PERIODIC_TOLERANCE, &|_| true);
            Ok(Timing {
                warnings: linear_fallbacks(src.model, &plans, src.options),
                plans,
            })
        }
    }
}

/// Without an error budget, a cubic clip wraps its taps around its seam when its end pose is
/// within this fraction of the bounding diagonal of its start pose.
const PERIODIC_TOLERANCE: MaxError = MaxError::Relative(1e-5);

/// Marks the cubic clips of `plans` that `which` picks and that are not yet periodic, whose end
/// pose is within `tolerance` of their start pose, as periodic
/// ([`uniform_budget::is_periodic`]).
fn mark_periodic(
    src: &Source<'_>,
    plans: &mut [ClipPlan],
    tolerance: MaxError,
    which: &dyn Fn(&ClipPlan) -> bool,
) {
    if !plans
        .iter()
        .any(|p| p.interpolation == RowInterpolation::CatmullRom)
    {
        return;
    }
    let clusters = budget::Clusters::new(&src.prims.reference);
    for (c, plan) in plans.iter_mut().enumerate() {
        let d = clip_duration(&src.model.clips[c]);
        if plan.interpolation != RowInterpolation::CatmullRom
            || plan.periodic
            || d <= 0.0
            || !which(plan)
        {
            continue;
        }
        let job = budget::Job {
            model: src.model,
            palette: src.palette,
            clusters: &clusters,
            clip: c,
            duration: d,
            budget: tolerance,
        };
        plan.periodic = uniform_budget::is_periodic(&job);
    }
}

/// A warning for every clip that stays linear although Catmull-Rom rows were asked for (its
/// frames are on the source's irregular keys, which the uniform spline cannot space), and one
/// for a bake without an error budget that asked for polynomial pieces.
fn linear_fallbacks(model: &Model, plans: &[ClipPlan], options: &BakeOptions) -> Vec<String> {
    if options.interpolation == RowInterpolation::Pieces {
        return vec![
            "polynomial pieces are placed under an error budget: without --max-error every clip's rows stay linear".to_string(),
        ];
    }
    if options.interpolation != RowInterpolation::CatmullRom {
        return Vec::new();
    }
    plans
        .iter()
        .zip(&model.clips)
        .filter(|(p, _)| matches!(p.times, ClipTimes::Listed(_)))
        .map(|(_, c)| {
            format!(
                "clip {:?}: its frames are on the source's irregular key times, so its rows stay linear (catmull-rom needs uniform frames; bake with --fps or --max-error for cubic rows)",
                c.name
            )
        })
        .collect()
}

/// Refuses, before anything is sampled, a clip whose frames at its rate (or, under an error
/// budget, whose candidate times) would outnumber the rows a frame table can address: the
/// work and memory of sampling grow with that count (a source read within
/// [`throng_anim::model::MAX_CLIP_SECONDS`] may still be a million seconds long).
pub fn check_lengths(model: &Model, options: &BakeOptions) -> Result<(), BakeError> {
    let limit = crate::frame_table::MAX_ROWS;
    for clip in &model.clips {
        let d = clip_duration(clip);
        let (rate, what) = match (options.clip_fps(&clip.name), options.sampling) {
            (Some(f), _) | (None, Sampling::Fixed(f)) => (f, format!("sampling at {f} fps")),
            // the keys are in the file, so their count is bounded by it
            (None, Sampling::SourceKeys) => continue,
            (None, Sampling::MaxError(_)) => (
                budget::CANDIDATE_RATE,
                format!(
                    "the error budget's {} candidate times a second",
                    budget::CANDIDATE_RATE
                ),
            ),
        };
        let count = frame_count(d, rate);
        if count > limit {
            return Err(BakeError::ClipTooLong {
                file: options.source_name.clone(),
                clip: clip.name.clone(),
                seconds: d,
                what,
                count,
                limit,
            });
        }
    }
    Ok(())
}

/// The error at the sample times of a coarse uniform bake ([`PROBE_FPS`]) per clip, in the
/// budget's unit (the encoding's and the K-influence cut's), and the encoding used.
#[derive(Debug, Clone)]
pub struct Probe {
    pub errors: Vec<f64>,
    pub encoding: Encoding,
}

impl Probe {
    /// Bakes `src` at [`PROBE_FPS`] and measures it at its samples.
    pub fn measure(src: &Source<'_>, budget: MaxError) -> Result<Probe, BakeError> {
        let probe = uniform(src.model, src.options, Sampling::Fixed(PROBE_FPS));
        let (errors, encoding) = measure(src, &probe, budget, None)?;
        Ok(Probe { errors, encoding })
    }

    /// The first clip whose samples alone use more than half of `budget`, and that error: no
    /// frame spacing leaves enough of the budget between samples there.
    pub fn crowded(&self, budget: MaxError) -> Option<(usize, f64)> {
        self.errors
            .iter()
            .copied()
            .enumerate()
            .find(|&(_, e)| e > 0.5 * budget.value())
    }

    /// The largest error of any clip.
    pub fn worst(&self) -> f64 {
        self.errors.iter().copied().fold(0.0, f64::max)
    }
}

/// What would free room in an error budget, given what was baked: vertices limited to 8
/// influences in the source (when 8 were baked and `cut` counts vertices with more, with the
/// largest weight cut off: no setting of the bake takes that error back), more error allowed,
/// 8 influences (below 8), an f32 matrix encoding (when not one already), or a uniform rate.
fn advice(influences: u32, encoding: Encoding, cut: Option<(usize, f32)>) -> String {
    let mut all = Vec::new();
    if let (Some((n, w)), 8..) = (cut, influences) {
        all.push(format!(
            "limit the source's vertices to 8 influences in the authoring tool ({n} have more; the largest weight cut off is {w:.4})"
        ));
    }
    all.push("allow more error".to_string());
    if influences < 8 {
        all.push("bake 8 influences per vertex".to_string());
    }
    if !matches!(encoding, Encoding::Mat4F32 | Encoding::Mat3x4F32) {
        all.push("use a finer encoding (mat3x4-f32)".to_string());
    }
    all.push("sample uniformly".to_string());
    let last = all.pop().unwrap_or_default();
    format!("{}, or {last}", all.join(", "))
}

/// Plans without placement: a clip's own fps, else `sampling` (not an error budget).
fn uniform(model: &Model, options: &BakeOptions, sampling: Sampling) -> Vec<ClipPlan> {
    let none = vec![None; model.clips.len()];
    plan_clips(model, options, sampling, &none)
}

/// Each clip's plan: its own fps when it has one, else `sampling`, with `placed[c]` the frames
/// placed under an error budget.
fn plan_clips(
    model: &Model,
    options: &BakeOptions,
    sampling: Sampling,
    placed: &[Option<Placement>],
) -> Vec<ClipPlan> {
    model
        .clips
        .iter()
        .zip(placed)
        .map(|(clip, placed)| {
            clip_plan(
                clip,
                options.clip_fps(&clip.name),
                sampling,
                placed.as_ref(),
                options.interpolation,
            )
        })
        .collect()
}

/// One clip's plan: uniform at its own rate when it has one, else as `sampling` says (`placed`:
/// its frames placed under an error budget; `None` for a zero-length clip, which gets one).
fn clip_plan(
    clip: &Clip,
    own_fps: Option<f64>,
    sampling: Sampling,
    placed: Option<&Placement>,
    interpolation: RowInterpolation,
) -> ClipPlan {
    let d = clip_duration(clip);
    if let Some(f) = own_fps {
        return ClipPlan {
            times: ClipTimes::Uniform(frame_count(d, f), f),
            sampling: ClipSampling::ClipFps(f),
            error: None,
            interpolation: unplaced(interpolation),
            periodic: false,
            degree: 0,
        };
    }
    let times = match (sampling, placed) {
        (Sampling::Fixed(f), _) => ClipTimes::Uniform(frame_count(d, f), f),
        (Sampling::SourceKeys, _) => {
            let t = frames::key_times(clip, d);
            let n = t.len() as u64;
            if frames::is_uniform(&t) {
                // The nominal key rate when it gives this count (30, not 30.0000014).
                let fps = match frames::key_rate(clip) {
                    Some(r) if frame_count(d, r) == n => r,
                    _ if d > 0.0 => (n - 1) as f64 / d,
                    _ => DEFAULT_FPS,
                };
                ClipTimes::Uniform(n, fps)
            } else {
                ClipTimes::Listed(t)
            }
        }
        (Sampling::MaxError(_), Some(p)) if p.interpolation == RowInterpolation::CatmullRom => {
            let n = p.times.len() as u64;
            let fps = if n > 1 && d > 0.0 {
                (n - 1) as f64 / d
            } else {
                DEFAULT_FPS
            };
            ClipTimes::Uniform(n, fps)
        }
        (Sampling::MaxError(_), Some(p)) => ClipTimes::Listed(p.times.clone()),
        (Sampling::MaxError(_), None) => ClipTimes::Uniform(1, DEFAULT_FPS),
    };
    // A placement says how its rows are shown; without one, Catmull-Rom needs uniform frames
    // (listed ones stay linear) and pieces need a placement.
    let (interpolation, degree) = match (placed, &times) {
        (Some(p), _) => (p.interpolation, p.degree),
        (None, ClipTimes::Uniform(..)) => (unplaced(interpolation), 0),
        (None, ClipTimes::Listed(_)) => (RowInterpolation::Linear, 0),
    };
    ClipPlan {
        times,
        sampling: ClipSampling::Bake(sampling),
        error: None,
        interpolation,
        periodic: placed.is_some_and(|p| p.periodic),
        degree,
    }
}

/// The interpolation a clip sampled without a placement gets when `asked` was asked for:
/// polynomial pieces are placed under an error budget only, so such a clip stays linear.
fn unplaced(asked: RowInterpolation) -> RowInterpolation {
    match asked {
        RowInterpolation::Pieces => RowInterpolation::Linear,
        other => other,
    }
}

/// The error-budgeted timing (module docs).
fn budgeted(
    src: &Source<'_>,
    budget: MaxError,
    probe: Probe,
    progress: Option<Progress<'_>>,
) -> Result<Timing, BakeError> {
    let (model, options) = (src.model, src.options);
    // A budget the sampled matrices already use up cannot be met by any spacing: when it was
    // asked for, say so now rather than place thousands of frames chasing texel noise; the
    // default budget places as closely as it allows and reports what it reached.
    if let Some((c, e)) = probe.crowded(budget) {
        if options.budget_strict {
            return Err(BakeError::BudgetBelowSampleError {
                file: options.source_name.clone(),
                clip: model.clips[c].name.clone(),
                at_samples: e,
                budget,
                encoding: probe.encoding.as_str(),
                influences: options.influences,
                advice: advice(options.influences, probe.encoding, src.cut()),
            });
        }
    }
    let reserve: Vec<f64> = probe.errors.iter().map(|e| PROBE_MARGIN * e).collect();
    let all: Vec<usize> = (0..model.clips.len()).collect();
    let clusters = budget::Clusters::new(&src.prims.reference);
    let mut placed = place_clips(src, &clusters, budget, &all, &reserve, progress);
    let mut parts = error_parts(src, &placed, budget, progress)?;
    let over: Vec<usize> = (0..parts.len())
        .filter(|&c| parts[c].as_ref().is_some_and(ErrorParts::over_budget))
        .collect();
    if !over.is_empty() {
        let reserve: Vec<f64> = parts
            .iter()
            .zip(&reserve)
            .map(|(p, r)| {
                p.as_ref()
                    .map_or(*r, |p| r.max(p.at_samples * PROBE_MARGIN))
            })
            .collect();
        let again = place_clips(src, &clusters, budget, &over, &reserve, progress);
        for (c, p) in again.into_iter().enumerate() {
            if over.contains(&c) {
                placed[c] = p;
            }
        }
        parts = error_parts(src, &placed, budget, progress)?;
    }
    let mut plans = plan_clips(model, options, Sampling::MaxError(budget), &placed);
    let mut warnings = Vec::new();
    for ((plan, p), clip) in plans.iter_mut().zip(parts).zip(&model.clips) {
        if let Some(p) = &p {
            warnings.extend(budget_warnings(
                &clip.name,
                p,
                options.influences,
                probe.encoding,
                src.cut(),
            ));
        }
        plan.error = p;
    }
    // Clips with their own rate were not placed: their seams are checked here; a placed
    // clip's seam was measured against the budget by its placement.
    mark_periodic(src, &mut plans, PERIODIC_TOLERANCE, &|p| {
        matches!(p.sampling, ClipSampling::ClipFps(_))
    });
    Ok(Timing { plans, warnings })
}

/// Places the frames of the clips in `which` under the budget less each clip's `reserve` (in the
/// budget's unit); the others (and clips with their own fps, or of zero length) get `None`.
fn place_clips(
    src: &Source<'_>,
    clusters: &budget::Clusters,
    budget: MaxError,
    which: &[usize],
    reserve: &[f64],
    progress: Option<Progress<'_>>,
) -> Vec<Option<Placement>> {
    let model = src.model;
    let durations: Vec<f64> = model.clips.iter().map(clip_duration).collect();
    let total_ms: u64 = which.iter().map(|&c| (durations[c] * 1e3) as u64).sum();
    let mut done_ms = 0u64;
    let mut out = vec![None; model.clips.len()];
    for &c in which {
        if src.options.clip_fps(&model.clips[c].name).is_some() || durations[c] <= 0.0 {
            continue;
        }
        let full = budget.value();
        // The sampled matrices' own error comes off the budget, but never more than half
        // (validation made `full` positive).
        let left = (full - reserve[c]).max(0.5 * full);
        let job = budget::Job {
            model,
            palette: src.palette,
            clusters,
            clip: c,
            duration: durations[c],
            budget: budget.with_value(left),
        };
        let base = done_ms;
        let tick = |placed_s: f64| {
            if let Some(p) = progress {
                p(Stage::Placing, base + (placed_s * 1e3) as u64, total_ms);
            }
        };
        out[c] = Some(match src.options.interpolation {
            RowInterpolation::Linear => budget::place(&job, &tick),
            // The fewest rows of linear segments and polynomial pieces of degree 2 and 3 that
            // meet the budget (docs/design.md §3 "Row interpolation").
            RowInterpolation::Pieces => {
                let mut best = budget::place(&job, &|_| {});
                for d in [2, 3] {
                    // a search that cannot come to fewer rows than the best so far stops
                    let p = uniform_budget::place_pieces(&job, d, best.times.len(), &|_| {});
                    if let Some(p) = p.filter(|p| p.unmet.is_empty()) {
                        best = p;
                    }
                }
                tick(durations[c]);
                best
            }
            // The fewer rows of the two that meet the budget: cubic rows on uniform frames
            // win where the motion is smooth between samples, linear rows on the source's
            // keys where it bends at them (docs/design.md §3 "Row interpolation").
            RowInterpolation::CatmullRom => {
                let linear = budget::place(&job, &|_| {});
                let periodic = uniform_budget::is_periodic(&job);
                let flags = uniform_budget::interpolation_flags(true, periodic);
                let fewer = linear.times.len() as u64 - 1;
                let cubic = uniform_budget::place(&job, flags, fewer, &|_| {});
                tick(durations[c]);
                if cubic.unmet.is_empty() && cubic.times.len() < linear.times.len() {
                    cubic
                } else {
                    linear
                }
            }
        });
        done_ms += (durations[c] * 1e3) as u64;
    }
    out
}

/// Per clip, the two parts of the error of the frames `placed` in the budget's unit: between
/// samples (the placement's re-check) and at the samples ([`measure`]). `None` for clips that
/// were not placed.
fn error_parts(
    src: &Source<'_>,
    placed: &[Option<Placement>],
    budget: MaxError,
    progress: Option<Progress<'_>>,
) -> Result<Vec<Option<ErrorParts>>, BakeError> {
    let plans = plan_clips(src.model, src.options, Sampling::MaxError(budget), placed);
    let (at, _) = measure(src, &plans, budget, progress)?;
    Ok(placed
        .iter()
        .zip(at)
        .map(|(p, at_samples)| {
            p.as_ref().map(|p| ErrorParts {
                between: budget.pick(p.max_rel, p.max_abs),
                at_samples,
                budget,
                unmet: p.unmet.clone(),
            })
        })
        .collect())
}

/// Bakes `plans` as far as the bone texture and measures it at its sample times: per clip the
/// largest error (in the budget's unit) of the encoding and the K-influence cut, and the
/// encoding used. The bone texture is the bake's own (additive clips as deltas), measured as
/// `crate::verify` measures a baked file, so the bake's figures and the fidelity of its file
/// are one measure.
fn measure(
    src: &Source<'_>,
    plans: &[ClipPlan],
    budget: MaxError,
    progress: Option<Progress<'_>>,
) -> Result<(Vec<f64>, Encoding), BakeError> {
    let (model, options, palette) = (src.model, src.options, src.palette);
    let file = options.source_name.as_str();
    let mut table = frame_table::build(model, options, plans)?;
    let tracked: Vec<usize> = src.motion_root.into_iter().collect();
    let mut sampled = sample::rows(model, palette, &table.rows, &tracked, file, progress)?;
    if src.motion_root.is_some() {
        let root = sampled.track(0);
        let entries = sampled.entries;
        root_motion::remove(&root, &mut table.clips, &mut sampled.matrices, entries);
    }
    additive::apply(
        model,
        options,
        palette,
        &mut table.clips,
        &mut sampled.matrices,
    )?;
    let bones = bone_texture::encode(model, palette, &table.rows, &sampled.matrices, options)?;
    // What crate::verify reads of an asset; the rest stays empty.
    let asset = BakedAsset {
        source_name: options.source_name.clone(),
        settings: options.settings(src.motion_root),
        palette: palette.entries.clone(),
        clips: table.clips,
        row_bounds: Vec::new(),
        bone_texture: bones.texture,
        primitives: src.prims.baked.clone(),
        materials: Vec::new(),
        images: Vec::new(),
        anchors: None,
        masks: Vec::new(),
        variants: Vec::new(),
        far_tier: None,
    };
    let worst =
        crate::verify::max_at_samples(&asset, model, &src.prims.reference).map_err(|e| {
            BakeError::InvalidModel {
                file: options.source_name.clone(),
                what: format!("measuring the bake at its sample times: {e}"),
            }
        })?;
    let errors = worst
        .iter()
        .map(|&(rel, abs)| budget.pick(rel, abs))
        .collect();
    Ok((errors, bones.encoding))
}

/// The warnings of one budgeted clip: a budget it misses, little room left between frames,
/// and jumps no spacing can meet.
fn budget_warnings(
    clip: &str,
    p: &ErrorParts,
    influences: u32,
    encoding: Encoding,
    cut: Option<(usize, f32)>,
) -> Vec<String> {
    let mut w = Vec::new();
    let total = p.between + p.at_samples;
    if p.over_budget() {
        w.push(format!(
            "clip '{clip}': the error budget {} is not met: error {:.2e} between samples + {:.2e} at samples (the {}-influence cut and the {} encoding) = {total:.2e}; baked as closely as the budget allows; to meet it, {}",
            p.budget,
            p.between,
            p.at_samples,
            influences,
            encoding.as_str(),
            advice(influences, encoding, cut),
        ));
    } else if p.samples_crowd_the_budget() {
        w.push(format!(
            "clip '{clip}': the error at the sample times alone is {:.2e} (the {influences}-influence cut's and the {} encoding's), more than half the budget {}; to leave more room between frames, {}",
            p.at_samples,
            encoding.as_str(),
            p.budget,
            advice(influences, encoding, cut),
        ));
    }
    for &(a, b, e) in &p.unmet {
        w.push(format!(
            "clip '{clip}': between {a:.4} s and {b:.4} s the motion jumps (a step key or a discontinuity in the source); no frame spacing meets the budget there (error {e:.3e} file units)"
        ));
    }
    w
}

#[cfg(test)]
mod tests {
    use super::advice;
    use throng_asset::Encoding;

    #[test]
    fn advice_names_only_what_was_not_baked() {
        let a4 = advice(4, Encoding::QuatSnorm16, None);
        assert!(
            a4.contains("8 influences") && a4.contains("mat3x4-f32"),
            "{a4}"
        );
        let a8 = advice(8, Encoding::QuatSnorm16, None);
        assert!(
            !a8.contains("influences") && a8.contains("mat3x4-f32"),
            "{a8}"
        );
        assert_eq!(
            advice(8, Encoding::Mat3x4F32, None),
            "allow more error, or sample uniformly"
        );
        // 8 influences baked and vertices with more: the source is what can change, first.
        let cut = advice(8, Encoding::QuatSnorm16, Some((24, 0.034)));
        assert!(
            cut.starts_with("limit the source's vertices to 8 influences in the authoring tool (24 have more; the largest weight cut off is 0.0340), allow more error"),
            "{cut}"
        );
        // Below 8 the bake's own setting is the advice.
        assert!(!advice(4, Encoding::QuatSnorm16, Some((24, 0.034))).contains("authoring tool"));
    }
}
