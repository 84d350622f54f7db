//! Error-budgeted frame placement (docs/design.md §3 "Error-budgeted clips", §7): per clip, the
//! fewest frame times whose skin-matrix lerp keeps every vertex within a budget of reference
//! skinning at every time in between.
//!
//! Linear blend skinning is linear in the skin matrices, so between frames `a` and `b` at
//! `α = (t − t_a) / (t_b − t_a)` the shown vertex is `Σ_i w_i ((1 − α) S_i(a) + α S_i(b)) p` and its
//! error against the reference is `|Σ_i w_i Δ_i(t) p|` with `Δ(t) = S(t) − (1 − α) S(a) − α S(b)`:
//! one matrix difference per palette entry, then one weighted sum per vertex (every source
//! influence, not only the K baked ones).
//!
//! - **Candidates**: a uniform grid at [`CANDIDATE_RATE`] plus every source key time inside the
//!   clip, both ends included, as f32 (the file's precision, so a frame samples exactly the time
//!   it stores).
//! - **Check grid**: every candidate and the midpoint between neighbouring candidates (twice the
//!   candidate density, 960 Hz plus keys).
//! - **Placement**: forward greedy. From the last placed frame, the next one is the farthest
//!   candidate whose segment passes at every check point inside it, found by doubling the span
//!   and then bisecting; neighbouring candidates always pass (a jump in the source cannot be
//!   interpolated; it is reported).
//! - **Re-check**: the placement is measured again at [`RECHECK_STEPS`] − 1 evenly spaced times
//!   inside every segment, posed afresh; a segment that fails is split at its midpoint (down to
//!   [`MIN_SPLIT`] seconds) and measured again. The figures returned are the re-check's.

use crate::options::MaxError;
use crate::palette::Palette;
use crate::reference::ReferenceSkin;
use glam::{Mat4, Vec3};
use rayon::prelude::*;
use throng_anim::{Clip, Model, Poser};

/// Candidate frame times per second (besides the source's key times).
pub const CANDIDATE_RATE: f64 = 480.0;
/// The final placement is re-checked at `RECHECK_STEPS − 1` times inside each segment.
pub const RECHECK_STEPS: u32 = 16;
/// Shortest segment the re-check splits (seconds): 1/16 of the candidate step.
pub const MIN_SPLIT: f64 = 1.0 / (CANDIDATE_RATE * 16.0);
/// Grid points posed at once (the pose cache grows in chunks of this many).
const CHUNK: usize = 128;

/// Largest distance between the vertices skinned at t and the lerp at `alpha` of those skinned
/// at the segment's ends (file units); stops early once it passes `stop_above`. Skinning is
/// linear in the matrices, so this is the error of lerping the matrices themselves.
fn lerp_error(pt: &[Vec3], pa: &[Vec3], pb: &[Vec3], alpha: f32, stop_above: f32) -> f32 {
    let stop = stop_above * stop_above;
    let mut worst = 0.0f32;
    for (t, (a, b)) in pt.iter().zip(pa.iter().zip(pb)) {
        worst = worst.max((*t - a.lerp(*b, alpha)).length_squared());
        if worst > stop {
            break;
        }
    }
    worst.sqrt()
}

fn diagonal(points: &[Vec3]) -> f32 {
    let mut bb = throng_asset::Aabb::EMPTY;
    for &q in points {
        bb.extend(q);
    }
    if bb.is_empty() {
        0.0
    } else {
        bb.diagonal()
    }
}

/// A clip's placed frames and the re-check's figures.
#[derive(Debug, Clone, PartialEq)]
pub struct Placement {
    /// Frame times in seconds: `0 = t_0 < … < t_{n−1} = d` (f32, as stored).
    pub times: Vec<f32>,
    /// Largest re-checked error between samples: relative to the bounding diagonal at that time,
    /// and in file units. Errors of the sampled matrices themselves (encoding, influence cut)
    /// are not in these.
    pub max_rel: f64,
    pub max_abs: f64,
    /// Segments the budget could not be met on even at [`MIN_SPLIT`]: (start, end, error in
    /// file units). A step key or a jump in the source makes one.
    pub unmet: Vec<(f32, f32, f64)>,
}

/// What one placement needs: the model, its palette, the reference vertices, one clip.
pub struct Job<'a> {
    pub model: &'a Model,
    pub palette: &'a Palette,
    pub skin: &'a ReferenceSkin,
    pub clip: usize,
    /// Seconds (> 0).
    pub duration: f64,
    /// The error allowed between samples.
    pub budget: MaxError,
}

impl Job<'_> {
    fn pose(&self, poser: &mut Poser, t: f64, out: &mut Vec<Mat4>) {
        let ms = poser.pose(self.model, Some(self.clip), t as f32);
        out.clear();
        out.extend(self.palette.skin_matrices(ms));
    }

    /// The reference vertices at clip time `t` (`s` is scratch for the skin matrices).
    fn skinned(&self, poser: &mut Poser, t: f64, s: &mut Vec<Mat4>) -> Vec<Vec3> {
        self.pose(poser, t, s);
        self.skin.skin(s)
    }

    /// Error allowed at a time whose skinned bounding diagonal is `diag` (file units).
    fn allowed(&self, diag: f32) -> f32 {
        self.budget.length_at(diag as f64) as f32
    }
}

/// Candidate frame times of `clip` over `[0, d]`: the [`CANDIDATE_RATE`] grid and every key
/// time, f32, increasing; a grid point within 1 µs of a key gives way to the key. A STEP key
/// also brings the f32 time just before it, so a jump can sit between two frames one f32 step
/// apart (glTF 2.0 §3.11: STEP holds a key's value until the next key).
pub fn candidates(clip: &Clip, d: f64) -> Vec<f32> {
    let end = d as f32;
    let steps = (d * CANDIDATE_RATE + crate::frames::FRAME_COUNT_EPSILON).floor() as u64;
    let mut all: Vec<(f32, bool)> = (0..=steps)
        .map(|k| ((k as f64 / CANDIDATE_RATE) as f32, false))
        .chain(clip.channels.iter().flat_map(|c| {
            let step = c.interpolation == throng_anim::Interpolation::Step;
            c.times.iter().flat_map(move |&t| {
                let before = (step && t > 0.0).then(|| (t.next_down(), true));
                std::iter::once((t, true)).chain(before)
            })
        }))
        .filter(|(t, _)| t.is_finite() && *t > 0.0 && *t < end)
        .chain([(0.0, true), (end, true)])
        .collect();
    all.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out: Vec<(f32, bool)> = Vec::with_capacity(all.len());
    for (t, key) in all {
        match out.last_mut() {
            Some(last) if t == last.0 => last.1 |= key,
            // A grid point near a key (or an end) gives way to it; keys all stay.
            Some(last) if (t as f64 - last.0 as f64) < 1e-6 && !(key && last.1) => {
                if key && last.0 != 0.0 {
                    *last = (t, key);
                }
            }
            _ => out.push((t, key)),
        }
    }
    out.into_iter().map(|(t, _)| t).collect()
}

/// Reference-skinned vertices and allowed errors of the check grid, kept for a window of grid
/// points (the placement's working set: at most `2 · max_span + 1` points).
struct Window<'a> {
    job: &'a Job<'a>,
    grid: Vec<f64>,
    lo: usize,
    skinned: Vec<Vec<Vec3>>,
    allowed: Vec<f32>,
}

impl<'a> Window<'a> {
    fn new(job: &'a Job<'a>, cands: &[f32]) -> Window<'a> {
        let mut grid = Vec::with_capacity(cands.len() * 2);
        for w in cands.windows(2) {
            grid.push(w[0] as f64);
            grid.push(0.5 * (w[0] as f64 + w[1] as f64));
        }
        grid.extend(cands.last().map(|&t| t as f64));
        Window {
            job,
            grid,
            lo: 0,
            skinned: Vec::new(),
            allowed: Vec::new(),
        }
    }

    fn hi(&self) -> usize {
        self.lo + self.skinned.len()
    }

    /// Skins grid points up to (not including) `hi`.
    fn ensure(&mut self, hi: usize) {
        let hi = hi.min(self.grid.len());
        if hi <= self.hi() {
            return;
        }
        let to = (self.hi() + CHUNK).max(hi).min(self.grid.len());
        let job = self.job;
        let fresh: Vec<(Vec<Vec3>, f32)> = self.grid[self.hi()..to]
            .par_iter()
            .map_init(
                || (Poser::new(job.model), Vec::new()),
                |(poser, s), &t| {
                    let p = job.skinned(poser, t, s);
                    let allowed = job.allowed(diagonal(&p));
                    (p, allowed)
                },
            )
            .collect();
        for (p, a) in fresh {
            self.skinned.push(p);
            self.allowed.push(a);
        }
    }

    fn forget_before(&mut self, g: usize) {
        if g > self.lo {
            let n = (g - self.lo).min(self.skinned.len());
            self.skinned.drain(..n);
            self.allowed.drain(..n);
            self.lo += n;
        }
    }

    /// Whether lerping candidates `a` and `b` (grid points `2a`, `2b`) meets the budget at
    /// every grid point strictly between them. Skinning is linear in the matrices, so the
    /// lerp of the skinned vertices is the vertices skinned with the lerped matrices.
    fn segment_ok(&mut self, a: usize, b: usize) -> bool {
        self.ensure(2 * b + 1);
        let (ga, gb) = (2 * a, 2 * b);
        let (ta, tb) = (self.grid[ga], self.grid[gb]);
        let this = &*self;
        let (pa, pb) = (&this.skinned[ga - this.lo], &this.skinned[gb - this.lo]);
        (ga + 1..gb).into_par_iter().all(|g| {
            let alpha = ((this.grid[g] - ta) / (tb - ta)) as f32;
            let limit = this.allowed[g - this.lo];
            lerp_error(&this.skinned[g - this.lo], pa, pb, alpha, limit) <= limit
        })
    }
}

/// Longest segment (in candidates) the placement considers: bounds the window's memory to
/// about 256 MiB of skinned vertices, and at most 128 candidates (0.27 s at 480 Hz).
fn max_span(vertices: usize) -> usize {
    let per_point = (vertices.max(1) * std::mem::size_of::<Vec3>()) as u64;
    let points = (256u64 << 20) / per_point;
    ((points / 2) as usize).clamp(8, 128)
}

/// Places the frames of one clip ([`Job`]); `progress(seconds placed)` is called as it goes.
pub fn place(job: &Job<'_>, progress: &(dyn Fn(f64) + Sync)) -> Placement {
    let clip = &job.model.clips[job.clip];
    let cands = candidates(clip, job.duration);
    let m = cands.len();
    let mut chosen = vec![0usize];
    let mut window = Window::new(job, &cands);
    let cap = max_span(job.skin.positions.len());
    let mut a = 0;
    while a + 1 < m {
        // Neighbouring candidates always pass; double the span while it passes, then bisect.
        let mut good = a + 1;
        let mut span = 1;
        let mut bad = None;
        let last = (a + cap).min(m - 1);
        while bad.is_none() && good < last {
            span *= 2;
            let b = (a + span).min(last);
            if window.segment_ok(a, b) {
                good = b;
            } else {
                bad = Some(b);
            }
        }
        if let Some(mut bad) = bad {
            while bad - good > 1 {
                let mid = (good + bad) / 2;
                if window.segment_ok(a, mid) {
                    good = mid;
                } else {
                    bad = mid;
                }
            }
        }
        chosen.push(good);
        a = good;
        window.forget_before(2 * a);
        progress(cands[a] as f64);
    }
    let times: Vec<f32> = chosen.into_iter().map(|i| cands[i]).collect();
    recheck(job, times)
}

/// One segment's re-check: largest error (file units), largest relative error, and whether it
/// met the budget everywhere.
#[derive(Clone, Copy)]
struct SegmentCheck {
    abs: f64,
    rel: f64,
    ok: bool,
}

fn check_segment(
    job: &Job<'_>,
    poser: &mut Poser,
    s: &mut Vec<Mat4>,
    t0: f32,
    t1: f32,
) -> SegmentCheck {
    // No f32 clip time lies strictly between neighbouring f32 times: nothing to show there
    // (the two frames around a STEP key).
    if t1 <= t0.next_up() {
        return SegmentCheck {
            abs: 0.0,
            rel: 0.0,
            ok: true,
        };
    }
    let (t0, t1) = (t0 as f64, t1 as f64);
    let (pa, pb) = (job.skinned(poser, t0, s), job.skinned(poser, t1, s));
    let mut out = SegmentCheck {
        abs: 0.0,
        rel: 0.0,
        ok: true,
    };
    for j in 1..RECHECK_STEPS {
        let alpha = j as f32 / RECHECK_STEPS as f32;
        let pt = job.skinned(poser, t0 + (t1 - t0) * alpha as f64, s);
        let diag = diagonal(&pt);
        let err = lerp_error(&pt, &pa, &pb, alpha, f32::INFINITY);
        out.abs = out.abs.max(err as f64);
        if diag > 0.0 {
            out.rel = out.rel.max(err as f64 / diag as f64);
        }
        out.ok &= err <= job.allowed(diag);
    }
    out
}

/// Re-checks `times` on the dense grid, splitting failing segments; see the module docs.
fn recheck(job: &Job<'_>, mut times: Vec<f32>) -> Placement {
    let run = |segs: &[(f32, f32)]| -> Vec<SegmentCheck> {
        segs.par_iter()
            .map_init(
                || (Poser::new(job.model), Vec::new()),
                |(poser, s), &(a, b)| check_segment(job, poser, s, a, b),
            )
            .collect()
    };
    let segments = |t: &[f32]| -> Vec<(f32, f32)> { t.windows(2).map(|w| (w[0], w[1])).collect() };
    let mut segs = segments(&times);
    let mut checks = run(&segs);
    loop {
        let split: Vec<f32> = segs
            .iter()
            .zip(&checks)
            .filter(|(s, c)| !c.ok && (s.1 as f64 - s.0 as f64) > 2.0 * MIN_SPLIT)
            .map(|(s, _)| (0.5 * (s.0 as f64 + s.1 as f64)) as f32)
            .filter(|m| !times.contains(m))
            .collect();
        if split.is_empty() {
            break;
        }
        times.extend(split);
        times.sort_by(f32::total_cmp);
        times.dedup();
        // Keep the checks of unchanged segments; measure the new ones.
        let new_segs = segments(&times);
        let fresh: Vec<(f32, f32)> = new_segs
            .iter()
            .filter(|s| !segs.contains(s))
            .copied()
            .collect();
        let fresh_checks = run(&fresh);
        checks = new_segs
            .iter()
            .map(|s| match segs.iter().position(|o| o == s) {
                Some(i) => checks[i],
                None => fresh_checks[fresh.iter().position(|f| f == s).unwrap_or(0)],
            })
            .collect();
        segs = new_segs;
    }
    let unmet = segs
        .iter()
        .zip(&checks)
        .filter(|(_, c)| !c.ok)
        .map(|(s, c)| (s.0, s.1, c.abs))
        .collect();
    Placement {
        max_rel: checks.iter().map(|c| c.rel).fold(0.0, f64::max),
        max_abs: checks.iter().map(|c| c.abs).fold(0.0, f64::max),
        times,
        unmet,
    }
}
