//! Row interpolants under an error budget, beside the linear placement of [`crate::budget`]
//! (docs/design.md §3 "Row interpolation"):
//!
//! - [`check_by`] measures frames shown any way ([`Shown`]); [`shown_by_taps`] shows them as the
//!   runtime and the shaders do, through the row taps ([`throng_contract::row_taps`]). Whatever
//!   the interpolant, the shown skin matrix at time t is `Σ_k w_k S(t_k)` over its taps, so the
//!   shown vertex is the same sum of vertices skinned at the taps and its error against the
//!   reference is `|Σ_i w_i Δ_i(t) p|` with `Δ(t) = S(t) − Σ_k w_k S(t_k)`: the budget's
//!   [`crate::budget::Clusters`] bound applies unchanged.
//! - [`place`]: the fewest *uniform* frames whose Catmull-Rom rows meet the budget (its weights
//!   assume equal spacing, so the frame count is searched: n doubles from 2 until it passes, at
//!   most [`CANDIDATE_RATE`] frames a second, then bisects between the last count that failed
//!   and the first that passed; the error need not fall monotonically with n, so the count
//!   found is one that passed, not always the smallest that would). A count passes when, in
//!   every gap, the error at [`RECHECK_STEPS`] − 1 evenly spaced times is within the budget.
//! - [`place_pieces`]: polynomial pieces of degree 2 or 3, placed by the linear placement's
//!   greedy search and re-checked here.

use crate::budget::{
    piece_frames, place_ends, Check, Job, Placement, Posers, CANDIDATE_RATE, RECHECK_STEPS,
};
use crate::frames::{frame_count, frame_time};
use glam::Mat4;
use rayon::prelude::*;
use throng_asset::RowInterpolation;
use throng_contract::{row_taps, CLIP_CUBIC, CLIP_PERIODIC};

/// Rows of a clip at `n` uniform frames, as the frame table samples them: frame k at the f32 of
/// `k · d / (n − 1)`.
fn frame_times(n: u64, d: f64) -> Vec<f32> {
    (0..n).map(|k| frame_time(k, n, d) as f32).collect()
}

/// `GpuClip::flags` of a clip interpolated `cubic`ally (or linearly) and `periodic`.
pub fn interpolation_flags(cubic: bool, periodic: bool) -> u32 {
    let mut f = 0;
    if cubic {
        f |= CLIP_CUBIC;
    }
    if periodic {
        f |= CLIP_PERIODIC;
    }
    f
}

/// The error of `n` uniform frames interpolated with `flags` ([`interpolation_flags`]), at
/// `steps − 1` evenly spaced times inside every gap. With `stop_early` the check stops at the
/// first gap over the budget (its figures then cover the gaps seen).
pub fn check(
    job: &Job<'_>,
    posers: &Posers,
    n: u64,
    flags: u32,
    steps: u32,
    stop_early: bool,
) -> Check {
    let times = frame_times(n, job.duration);
    let last = (n - 1) as u32;
    let taps = |rows: &[Vec<Mat4>], k: usize, f: f32, out: &mut Vec<Mat4>| {
        shown_by_taps(rows, last, flags, k, f, out)
    };
    check_by(job, posers, &times, steps, stop_early, &taps)
}

/// The skin matrices a clip of rows `0 ..= last` with `flags` shows at fraction `f` of gap `k`,
/// as the runtime and the shaders form them: `Σ w · rows[r]` over the row taps
/// ([`throng_contract::row_taps`]), summed in tap order from zero.
pub fn shown_by_taps(
    rows: &[Vec<Mat4>],
    last: u32,
    flags: u32,
    k: usize,
    f: f32,
    out: &mut Vec<Mat4>,
) {
    out.clear();
    out.resize(rows.first().map_or(0, Vec::len), Mat4::ZERO);
    for (r, w) in row_taps(0, last, k as u32, k as u32 + 1, f, flags).iter() {
        for (o, s) in out.iter_mut().zip(&rows[r as usize]) {
            *o += *s * w;
        }
    }
}

/// How rows are shown between frames: given every frame's skin matrices, the gap k and the
/// fraction f in it, writes the shown skin matrix of every palette entry.
pub type Shown<'a> = dyn Fn(&[Vec<Mat4>], usize, f32, &mut Vec<Mat4>) + Sync + 'a;

/// The error of the frames at `times` (increasing, on the clip) shown by `shown`, at
/// `steps − 1` evenly spaced times inside every gap; `stop_early` as in [`check`].
pub fn check_by(
    job: &Job<'_>,
    posers: &Posers,
    times: &[f32],
    steps: u32,
    stop_early: bool,
    shown: &Shown<'_>,
) -> Check {
    let rows: Vec<Vec<Mat4>> = times
        .par_iter()
        .map(|&t| posers.with(|p| job.pose(p, t as f64)))
        .collect();
    let gap = |k: usize| -> Check {
        let mut out = Check::PASS;
        let (t0, t1) = (times[k] as f64, times[k + 1] as f64);
        let mut delta = Vec::new();
        let mut interpolated = Vec::new();
        posers.with(|poser| {
            for j in 1..steps {
                let f = j as f32 / steps as f32;
                let st = job.pose(poser, t0 + (t1 - t0) * f as f64);
                shown(&rows, k, f, &mut interpolated);
                delta.clear();
                delta.extend(st.iter().zip(&interpolated).map(|(s, i)| *s - *i));
                out.measure(job, &st, &delta);
            }
        });
        out
    };
    let gaps = times.len().saturating_sub(1);
    if stop_early {
        let failed = (0..gaps).into_par_iter().map(gap).find_any(|c| !c.ok);
        failed.unwrap_or(Check::PASS)
    } else {
        (0..gaps)
            .into_par_iter()
            .map(gap)
            .reduce(|| Check::PASS, Check::and)
    }
}

/// Whether clip `job.clip` ends where it starts: its pose at the duration is within the budget
/// of its pose at 0 (then a cubic clip's taps wrap around the seam).
pub fn is_periodic(job: &Job<'_>) -> bool {
    let mut poser = job.poser();
    let (a, b) = (
        job.pose(&mut poser, 0.0),
        job.pose(&mut poser, job.duration),
    );
    let delta: Vec<Mat4> = b.iter().zip(&a).map(|(b, a)| *b - *a).collect();
    let diag = job.clusters.diagonal(&a);
    job.clusters.worst(&delta, job.allowed(diag)).1
}

/// The fewest uniform frames (by the search in the module docs), at most `most` (and at most
/// [`CANDIDATE_RATE`] a second), whose interpolation with `flags` meets the job's budget, with
/// the figures of a full check; `progress` gets the frame counts tried. When no count up to
/// the limit passes, the limit is returned with its failure in `unmet` (the whole clip).
pub fn place(job: &Job<'_>, flags: u32, most: u64, progress: &(dyn Fn(u64) + Sync)) -> Placement {
    let posers = Posers::new(job.poser());
    let steps = RECHECK_STEPS;
    let most = most.min(frame_count(job.duration, CANDIDATE_RATE)).max(2);
    let passes = |n: u64| -> bool {
        progress(n);
        check(job, &posers, n, flags, steps, true).ok
    };
    let mut failed = 1u64;
    let mut n = 2u64;
    let mut found = None;
    while found.is_none() {
        if passes(n) {
            found = Some(n);
        } else if n >= most {
            break;
        } else {
            failed = n;
            n = (n * 2).min(most);
        }
    }
    let mut good = found.unwrap_or(most);
    if found.is_some() {
        while good - failed > 1 {
            let mid = (good + failed) / 2;
            if passes(mid) {
                good = mid;
            } else {
                failed = mid;
            }
        }
    }
    let c = check(job, &posers, good, flags, steps, false);
    let interpolation = if flags & CLIP_CUBIC != 0 {
        RowInterpolation::CatmullRom
    } else {
        RowInterpolation::Linear
    };
    let mut p = Placement::checked(frame_times(good, job.duration), c, interpolation, 0);
    p.periodic = flags & CLIP_PERIODIC != 0;
    p
}

/// Places one clip's frames as polynomial pieces of degree `d` (2 or 3; docs/design.md §3
/// "Row interpolation"): the greedy search of [`crate::budget::place`] with pieces checked against the polynomial, then every
/// gap re-checked at [`RECHECK_STEPS`] − 1 times as the runtime shows it
/// ([`throng_contract::row_taps`]). A piece the re-check finds over the budget, or one too short
/// for distinct f32 frame times, is reported in `unmet` (the whole clip) and not split: the
/// caller keeps the linear placement then. `None` when the pieces cannot come to fewer than
/// `fewer_than` frames: the search stops there, since the caller keeps the fewest.
pub fn place_pieces(
    job: &Job<'_>,
    d: u32,
    fewer_than: usize,
    progress: &(dyn Fn(f64) + Sync),
) -> Option<Placement> {
    let ends = place_ends(job, d, fewer_than, progress)?;
    let times = piece_frames(&ends, d);
    if times.len() >= fewer_than {
        return None;
    }
    // A piece too short for its inner frames to be distinct f32 times (one across a step key,
    // whose ends are one f32 step apart) cannot be stored: the caller keeps linear segments.
    if times.len() < 2 || times.windows(2).any(|w| w[1] <= w[0]) {
        let failed = Check {
            abs: f64::INFINITY,
            rel: f64::INFINITY,
            ok: false,
        };
        return Some(Placement::checked(
            times,
            failed,
            RowInterpolation::Pieces,
            d as u8,
        ));
    }
    let last = (times.len() - 1) as u32;
    let flags = (d << throng_contract::CLIP_DEGREE_SHIFT) & throng_contract::CLIP_DEGREE_BITS;
    let shown = |rows: &[Vec<Mat4>], k: usize, f: f32, out: &mut Vec<Mat4>| {
        shown_by_taps(rows, last, flags, k, f, out)
    };
    let posers = Posers::new(job.poser());
    let c = check_by(job, &posers, &times, RECHECK_STEPS, false, &shown);
    Some(Placement::checked(
        times,
        c,
        RowInterpolation::Pieces,
        d as u8,
    ))
}
