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
//!   candidate whose segment passes at every check point inside it, found by growing the span
//!   (from the previous segment's, doubling) and then bisecting; neighbouring candidates always
//!   pass (a jump in the source cannot be interpolated; it is reported).
//! - **Re-check**: the placement is measured again at [`RECHECK_STEPS`] − 1 evenly spaced times
//!   inside every segment, posed afresh; a segment that fails is split at its midpoint (down to
//!   [`MIN_SPLIT`] seconds) and measured again. The figures returned are the re-check's.
//!
//! **Bound** ([`Clusters`]): a check needs only the matrices Δ_i, not the skinned vertices. The
//! vertices are grouped into clusters that share their palette entries, lie within a distance
//! `δp` of the cluster's representative `u`, and whose weights differ from `u`'s by at most
//! `δw_i`. For every vertex `v` of a cluster, with `M_v = Σ_i w_vi Δ_i` (affine, `L` its linear
//! part):
//!
//! `|M_v p_v| ≤ |M_u p_u| + |Σ_i (w_vi − w_ui) Δ_i p_u| + |L(M_v) (p_v − p_u)|`
//! `          ≤ |M_u p_u| + Σ_i δw_i |Δ_i p_u| + (Σ_i w_vi) · max_i ‖L(Δ_i)‖_F · δp`
//!
//! (the last step: `‖L(M_v)‖₂ ≤ Σ_i w_vi ‖L(Δ_i)‖₂ ≤ Σ_i w_vi ‖L(Δ_i)‖_F`). A cluster whose bound
//! (times `1 + BOUND_SLACK`, for rounding) is within the allowed error passes as a whole; only
//! the vertices of the others are measured one by one. The allowed error of a relative budget
//! uses the bounding diagonal of the skinned representatives: a subset of the vertices, so never
//! more than the diagonal of all of them, and the budget only gets stricter. The figures the
//! re-check reports are upper bounds of the error (exact where a cluster was measured).

use crate::options::MaxError;
use crate::palette::Palette;
use crate::reference::ReferenceSkin;
use glam::{Mat4, Vec3};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::Mutex;
use throng_anim::{Clip, Model, Poser};
use throng_asset::RowInterpolation;

/// Candidate frame times per second (besides the source's key times).
pub const CANDIDATE_RATE: f64 = 480.0;
/// The final placement is re-checked at `RECHECK_STEPS − 1` times inside each segment.
pub const RECHECK_STEPS: u32 = 16;
/// Shortest segment the re-check splits (seconds): 1/16 of the candidate step.
pub const MIN_SPLIT: f64 = 1.0 / (CANDIDATE_RATE * 16.0);
/// Grid points posed at once (the pose cache grows in chunks of this many).
const CHUNK: usize = 128;
/// Longest segment the placement considers, in candidates (0.27 s at 480 Hz).
const MAX_SPAN: usize = 128;
/// Relative margin on a cluster's bound for f32 rounding: the bound and the exact error are
/// computed from the same Δ matrices, so they differ by rounding of a few operations only.
const BOUND_SLACK: f32 = 1e-4;
/// Weights of a cluster's vertices round to the same multiple of this step (so differ by less).
const WEIGHT_STEP: f32 = 1.0 / 32.0;
/// The clusters' cell size starts at this fraction of the bind pose's bounding diagonal and
/// doubles until there are at most [`VERTICES_PER_CLUSTER`] vertices per cluster on average
/// (or the cell is the whole model).
const FIRST_CELL: f32 = 1.0 / 256.0;
const VERTICES_PER_CLUSTER: usize = 32;

/// An affine matrix applied to a point: `c0 · p.x + c1 · p.y + c2 · p.z + c3` (the last row is
/// not read, so it also applies a difference of affine matrices, whose last row is 0).
fn apply(m: &Mat4, p: Vec3) -> Vec3 {
    (m.x_axis * p.x + m.y_axis * p.y + m.z_axis * p.z + m.w_axis).truncate()
}

/// Frobenius norm of the linear (3×3) part.
fn linear_norm(m: &Mat4) -> f32 {
    (m.x_axis.truncate().length_squared()
        + m.y_axis.truncate().length_squared()
        + m.z_axis.truncate().length_squared())
    .sqrt()
}

/// What a cluster's vertices share: palette entries, weights in [`WEIGHT_STEP`] bins, a cell.
type ClusterKey = (Vec<u16>, Vec<i32>, [i64; 3]);

/// The vertices of a [`ReferenceSkin`] grouped for the bound of the module docs.
pub struct Clusters {
    /// Bind-space positions and, per vertex, its influences `offsets[v]..offsets[v + 1]` of
    /// `entries` / `weights`: merged per entry, sorted by entry, zero weights left out.
    positions: Vec<Vec3>,
    offsets: Vec<u32>,
    entries: Vec<u16>,
    weights: Vec<f32>,
    /// Per cluster: its representative vertex, `δp`, the largest weight sum of its vertices,
    /// and its members `members[first[c]..first[c + 1]]`; `δw` per influence of the
    /// representative in `dw[offsets[rep]..offsets[rep + 1]]`.
    reps: Vec<u32>,
    dp: Vec<f32>,
    wsum: Vec<f32>,
    first: Vec<u32>,
    members: Vec<u32>,
    dw: Vec<f32>,
    /// The vertices whose skinned box stands for all of them in the allowed error: per
    /// palette entry, of the vertices it weighs most, the farthest along each of 14 directions
    /// (the axes and the cube's diagonals) in the bind pose, plus every representative.
    outline: Vec<u32>,
}

impl Clusters {
    /// Groups the vertices of `skin` (module docs); deterministic.
    pub fn new(skin: &ReferenceSkin) -> Clusters {
        let n = skin.positions.len();
        let mut offsets = Vec::with_capacity(n + 1);
        let mut entries = Vec::new();
        let mut weights = Vec::new();
        offsets.push(0u32);
        let mut merged: Vec<(u16, f32)> = Vec::new();
        for v in 0..n {
            let (a, b) = (skin.offsets[v] as usize, skin.offsets[v + 1] as usize);
            merged.clear();
            merged.extend(
                skin.entries[a..b]
                    .iter()
                    .copied()
                    .zip(skin.weights[a..b].iter().copied()),
            );
            merged.sort_by_key(|x| x.0);
            let mut last: Option<u16> = None;
            for &(e, w) in &merged {
                if w == 0.0 {
                    continue;
                }
                if last == Some(e) {
                    if let Some(x) = weights.last_mut() {
                        *x += w;
                    }
                } else {
                    entries.push(e);
                    weights.push(w);
                    last = Some(e);
                }
            }
            offsets.push(entries.len() as u32);
        }
        let positions = skin.positions.clone();
        let mut c = Clusters {
            positions,
            offsets,
            entries,
            weights,
            reps: Vec::new(),
            dp: Vec::new(),
            wsum: Vec::new(),
            first: Vec::new(),
            members: Vec::new(),
            dw: Vec::new(),
            outline: Vec::new(),
        };
        c.group();
        c.outline = c.outline();
        c
    }

    fn influences(&self, v: usize) -> std::ops::Range<usize> {
        self.offsets[v] as usize..self.offsets[v + 1] as usize
    }

    /// Assigns clusters: same entries, weights in the same [`WEIGHT_STEP`] bins, positions in
    /// the same cell; the cell grows until the clusters are few enough.
    fn group(&mut self) {
        let n = self.positions.len();
        let mut bb = throng_asset::Aabb::EMPTY;
        for &p in &self.positions {
            bb.extend(p);
        }
        let diag = if bb.is_empty() { 0.0 } else { bb.diagonal() };
        let lo = if bb.is_empty() { Vec3::ZERO } else { bb.min };
        let mut cell = (diag * FIRST_CELL).max(f32::MIN_POSITIVE);
        let mut of = vec![0u32; n];
        let mut count;
        loop {
            let mut ids: HashMap<ClusterKey, u32> = HashMap::new();
            for (v, slot) in of.iter_mut().enumerate() {
                let r = self.influences(v);
                let q = ((self.positions[v] - lo) / cell).floor();
                let key = (
                    self.entries[r.clone()].to_vec(),
                    self.weights[r]
                        .iter()
                        .map(|w| (w / WEIGHT_STEP).round() as i32)
                        .collect(),
                    [q.x as i64, q.y as i64, q.z as i64],
                );
                let next = ids.len() as u32;
                *slot = *ids.entry(key).or_insert(next);
            }
            count = ids.len();
            if count * VERTICES_PER_CLUSTER <= n || cell >= diag {
                break;
            }
            cell *= 2.0;
        }
        // Members by cluster, in vertex order; the first member represents the cluster.
        let mut first = vec![0u32; count + 1];
        for &c in &of {
            first[c as usize + 1] += 1;
        }
        for c in 0..count {
            first[c + 1] += first[c];
        }
        let mut fill = first.clone();
        let mut members = vec![0u32; n];
        for (v, &c) in of.iter().enumerate() {
            members[fill[c as usize] as usize] = v as u32;
            fill[c as usize] += 1;
        }
        let mut reps = Vec::with_capacity(count);
        let mut dp = Vec::with_capacity(count);
        let mut wsum = Vec::with_capacity(count);
        let mut dw = vec![0.0f32; self.weights.len()];
        for c in 0..count {
            let m = &members[first[c] as usize..first[c + 1] as usize];
            let u = m[0] as usize;
            let ru = self.influences(u);
            let (mut d, mut s) = (0.0f32, 0.0f32);
            for &v in m {
                let v = v as usize;
                d = d.max((self.positions[v] - self.positions[u]).length());
                let rv = self.influences(v);
                s = s.max(self.weights[rv.clone()].iter().sum());
                for (k, kv) in ru.clone().zip(rv) {
                    dw[k] = dw[k].max((self.weights[kv] - self.weights[k]).abs());
                }
            }
            reps.push(u as u32);
            dp.push(d);
            wsum.push(s);
        }
        self.reps = reps;
        self.dp = dp;
        self.wsum = wsum;
        self.first = first;
        self.members = members;
        self.dw = dw;
    }

    /// See [`Clusters::outline`] (the field); sorted, without repeats.
    fn outline(&self) -> Vec<u32> {
        let mut dirs = vec![Vec3::X, Vec3::Y, Vec3::Z];
        for x in [-1.0, 1.0] {
            for y in [-1.0, 1.0] {
                dirs.push(Vec3::new(x, y, 1.0));
            }
        }
        let dirs: Vec<Vec3> = dirs.iter().flat_map(|&d| [d, -d]).collect();
        // best[(entry, direction)] = (projection, vertex)
        let mut best: HashMap<(u16, usize), (f32, u32)> = HashMap::new();
        for v in 0..self.positions.len() {
            let r = self.influences(v);
            let Some(k) = r
                .clone()
                .max_by(|&a, &b| self.weights[a].total_cmp(&self.weights[b]))
            else {
                continue;
            };
            let e = self.entries[k];
            for (di, d) in dirs.iter().enumerate() {
                let x = d.dot(self.positions[v]);
                let slot = best.entry((e, di)).or_insert((x, v as u32));
                if x > slot.0 {
                    *slot = (x, v as u32);
                }
            }
        }
        let mut out: Vec<u32> = best
            .values()
            .map(|&(_, v)| v)
            .chain(self.reps.iter().copied())
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Number of clusters.
    pub fn len(&self) -> usize {
        self.reps.len()
    }

    /// Whether there are no vertices.
    pub fn is_empty(&self) -> bool {
        self.reps.is_empty()
    }

    /// Vertex `v` skinned with `s` (every influence).
    fn skinned(&self, s: &[Mat4], v: usize) -> Vec3 {
        let p = self.positions[v];
        self.influences(v).fold(Vec3::ZERO, |q, k| {
            q + apply(&s[self.entries[k] as usize], p) * self.weights[k]
        })
    }

    /// Bounding diagonal of the outline vertices skinned with `s`: a subset, so at most the
    /// diagonal of every vertex.
    pub fn diagonal(&self, s: &[Mat4]) -> f32 {
        let mut bb = throng_asset::Aabb::EMPTY;
        for &u in &self.outline {
            bb.extend(self.skinned(s, u as usize));
        }
        if bb.is_empty() {
            0.0
        } else {
            bb.diagonal()
        }
    }

    /// The error of vertex `v` under the matrix differences `delta`: `|Σ_i w_i Δ_i p|`.
    fn exact(&self, delta: &[Mat4], v: usize) -> f32 {
        let p = self.positions[v];
        self.influences(v)
            .fold(Vec3::ZERO, |q, k| {
                q + apply(&delta[self.entries[k] as usize], p) * self.weights[k]
            })
            .length()
    }

    /// Cluster `c`'s bound under `delta` (module docs), `norms` the entries' `‖L(Δ_i)‖_F`.
    fn bound(&self, delta: &[Mat4], norms: &[f32], c: usize) -> f32 {
        let u = self.reps[c] as usize;
        let p = self.positions[u];
        let (mut sum, mut spread, mut lin) = (Vec3::ZERO, 0.0f32, 0.0f32);
        for k in self.influences(u) {
            let e = self.entries[k] as usize;
            let d = apply(&delta[e], p);
            sum += d * self.weights[k];
            spread += self.dw[k] * d.length();
            lin = lin.max(norms[e]);
        }
        (sum.length() + spread + self.wsum[c] * lin * self.dp[c]) * (1.0 + BOUND_SLACK)
    }

    fn members(&self, c: usize) -> impl Iterator<Item = usize> + '_ {
        self.members[self.first[c] as usize..self.first[c + 1] as usize]
            .iter()
            .map(|&v| v as usize)
    }

    /// Whether every vertex's error under `delta` is within `limit` (file units).
    pub fn within(&self, delta: &[Mat4], limit: f32) -> bool {
        let norms: Vec<f32> = delta.iter().map(linear_norm).collect();
        (0..self.len()).all(|c| {
            self.bound(delta, &norms, c) <= limit
                || self.members(c).all(|v| self.exact(delta, v) <= limit)
        })
    }

    /// An upper bound of the largest error under `delta` (file units; exact for the clusters
    /// whose bound passes `limit`, which are measured vertex by vertex), and whether every
    /// vertex is within `limit`.
    pub fn worst(&self, delta: &[Mat4], limit: f32) -> (f32, bool) {
        let norms: Vec<f32> = delta.iter().map(linear_norm).collect();
        let mut worst = 0.0f32;
        let mut ok = true;
        for c in 0..self.len() {
            let b = self.bound(delta, &norms, c);
            if b <= limit {
                worst = worst.max(b);
                continue;
            }
            let e = self
                .members(c)
                .map(|v| self.exact(delta, v))
                .fold(0.0, f32::max);
            worst = worst.max(e.min(b));
            ok &= e <= limit;
        }
        (worst, ok)
    }
}

/// `S(t) − lerp(S(a), S(b), α)` per palette entry.
fn deltas(st: &[Mat4], sa: &[Mat4], sb: &[Mat4], alpha: f32, out: &mut Vec<Mat4>) {
    out.clear();
    out.extend(
        st.iter()
            .zip(sa.iter().zip(sb))
            .map(|(t, (a, b))| *t - (*a * (1.0 - alpha) + *b * alpha)),
    );
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
    /// How the rows are interpolated: linear for [`place`]'s listed frames, Catmull-Rom for
    /// [`crate::uniform_budget::place`]'s uniform ones.
    pub interpolation: RowInterpolation,
    /// The clip ends where it starts, so a cubic clip's taps wrap
    /// ([`crate::uniform_budget::is_periodic`]); false for linear placements.
    pub periodic: bool,
    /// The degree of polynomial pieces ([`place_pieces`]); 0 otherwise.
    pub degree: u8,
}

/// What one placement needs: the model, its palette, the reference vertices (clustered), one
/// clip.
pub struct Job<'a> {
    pub model: &'a Model,
    pub palette: &'a Palette,
    pub clusters: &'a Clusters,
    pub clip: usize,
    /// Seconds (> 0).
    pub duration: f64,
    /// The error allowed between samples.
    pub budget: MaxError,
}

impl Job<'_> {
    /// A poser of the palette's nodes alone: the work per candidate time follows the skin,
    /// not every node of the file.
    pub fn poser(&self) -> Poser {
        Poser::of_nodes(self.model, self.palette.nodes())
    }

    /// The skin matrices at clip time `t`.
    pub fn pose(&self, poser: &mut Poser, t: f64) -> Vec<Mat4> {
        let ms = poser.pose(self.model, Some(self.clip), t as f32);
        self.palette.skin_matrices(ms).collect()
    }

    /// Error allowed at a time whose skinned bounding diagonal is `diag` (file units).
    pub fn allowed(&self, diag: f32) -> f32 {
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

/// Posers kept for reuse by the workers of every parallel step of one placement: a poser of a
/// file with many nodes costs memory in their number, too much to make for each step.
pub struct Posers {
    template: Poser,
    free: Mutex<Vec<Poser>>,
}

impl Posers {
    pub fn new(template: Poser) -> Posers {
        Posers {
            template,
            free: Mutex::new(Vec::new()),
        }
    }

    /// Runs `f` with a free poser (a new clone of the template when none is free).
    pub fn with<R>(&self, f: impl FnOnce(&mut Poser) -> R) -> R {
        let taken = self.free.lock().ok().and_then(|mut free| free.pop());
        let mut poser = taken.unwrap_or_else(|| self.template.clone());
        let out = f(&mut poser);
        if let Ok(mut free) = self.free.lock() {
            free.push(poser);
        }
        out
    }
}

/// Skin matrices and allowed errors of the check grid, kept for a window of grid points (the
/// placement's working set: at most `2 · MAX_SPAN + 1` points).
struct Window<'a> {
    job: &'a Job<'a>,
    posers: Posers,
    grid: Vec<f64>,
    lo: usize,
    matrices: Vec<Vec<Mat4>>,
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
            posers: Posers::new(job.poser()),
            grid,
            lo: 0,
            matrices: Vec::new(),
            allowed: Vec::new(),
        }
    }

    fn hi(&self) -> usize {
        self.lo + self.matrices.len()
    }

    /// Poses grid points up to (not including) `hi`.
    fn ensure(&mut self, hi: usize) {
        let hi = hi.min(self.grid.len());
        if hi <= self.hi() {
            return;
        }
        let to = (self.hi() + CHUNK).max(hi).min(self.grid.len());
        let job = self.job;
        let posers = &self.posers;
        let fresh: Vec<(Vec<Mat4>, f32)> = self.grid[self.hi()..to]
            .par_iter()
            .map(|&t| {
                posers.with(|poser| {
                    let s = job.pose(poser, t);
                    let allowed = job.allowed(job.clusters.diagonal(&s));
                    (s, allowed)
                })
            })
            .collect();
        for (s, a) in fresh {
            self.matrices.push(s);
            self.allowed.push(a);
        }
    }

    fn forget_before(&mut self, g: usize) {
        if g > self.lo {
            let n = (g - self.lo).min(self.matrices.len());
            self.matrices.drain(..n);
            self.allowed.drain(..n);
            self.lo += n;
        }
    }

    /// Whether a piece of degree `d` from candidate `a` to `b` meets the budget at every grid
    /// point strictly between them: for d = 1 [`Self::segment_ok`]; else the polynomial through
    /// the piece's `d + 1` equally spaced frames (its ends on the grid, the inner ones posed
    /// here) with the weights of [`throng_contract::piece_weights`].
    fn piece_ok(&mut self, a: usize, b: usize, d: u32) -> bool {
        if d < 2 {
            return self.segment_ok(a, b);
        }
        self.ensure(2 * b + 1);
        let (ga, gb) = (2 * a, 2 * b);
        let (ta, tb) = (self.grid[ga], self.grid[gb]);
        let this = &*self;
        let inner: Vec<Vec<Mat4>> = (1..d)
            .into_par_iter()
            .map(|j| {
                let t = (ta + (tb - ta) * j as f64 / d as f64) as f32;
                this.posers.with(|p| this.job.pose(p, t as f64))
            })
            .collect();
        let mut nodes: Vec<&Vec<Mat4>> = vec![&this.matrices[ga - this.lo]];
        nodes.extend(inner.iter());
        nodes.push(&this.matrices[gb - this.lo]);
        (ga + 1..gb).into_par_iter().all(|g| {
            let x = ((this.grid[g] - ta) / (tb - ta)) as f32 * d as f32;
            let w = throng_contract::piece_weights(d, x);
            let st = &this.matrices[g - this.lo];
            let delta: Vec<Mat4> = (0..st.len())
                .map(|i| {
                    let mut shown = Mat4::ZERO;
                    for (j, n) in nodes.iter().enumerate() {
                        shown += n[i] * w[j];
                    }
                    st[i] - shown
                })
                .collect();
            this.job.clusters.within(&delta, this.allowed[g - this.lo])
        })
    }

    /// Whether lerping candidates `a` and `b` (grid points `2a`, `2b`) meets the budget at
    /// every grid point strictly between them.
    fn segment_ok(&mut self, a: usize, b: usize) -> bool {
        self.ensure(2 * b + 1);
        let (ga, gb) = (2 * a, 2 * b);
        let (ta, tb) = (self.grid[ga], self.grid[gb]);
        let this = &*self;
        let (sa, sb) = (&this.matrices[ga - this.lo], &this.matrices[gb - this.lo]);
        (ga + 1..gb).into_par_iter().all(|g| {
            let alpha = ((this.grid[g] - ta) / (tb - ta)) as f32;
            let mut delta = Vec::new();
            deltas(&this.matrices[g - this.lo], sa, sb, alpha, &mut delta);
            this.job.clusters.within(&delta, this.allowed[g - this.lo])
        })
    }
}

/// Places the frames of one clip ([`Job`]); `progress(seconds placed)` is called as it goes.
pub fn place(job: &Job<'_>, progress: &(dyn Fn(f64) + Sync)) -> Placement {
    let times = place_ends(job, 1, usize::MAX, progress).unwrap_or_default();
    recheck(job, times)
}

/// The piece ends of one clip's frames, placed by the forward greedy search of the module docs
/// with pieces of degree `degree` (1: linear segments; 2 or 3: polynomial pieces through
/// `degree + 1` equally spaced frames, [`Window::piece_ok`]). Pieces may span `degree` times
/// [`MAX_SPAN`] candidates. `None` as soon as the frames cannot come to fewer than
/// `fewer_than` (a piece of degree d adds d frames): a caller keeping the fewest frames of
/// several placements stops a search that can no longer win.
pub(crate) fn place_ends(
    job: &Job<'_>,
    degree: u32,
    fewer_than: usize,
    progress: &(dyn Fn(f64) + Sync),
) -> Option<Vec<f32>> {
    let clip = &job.model.clips[job.clip];
    let cands = candidates(clip, job.duration);
    let m = cands.len();
    let mut chosen = vec![0usize];
    let mut window = Window::new(job, &cands);
    let mut a = 0;
    // The last segment's length in candidates: where the next search starts.
    let mut last_span = 1;
    while a + 1 < m {
        // Neighbouring candidates always pass. Try the last span, double while it passes,
        // then bisect between the longest that passed and the shortest that failed.
        let last = (a + MAX_SPAN * degree as usize).min(m - 1);
        let mut good = a + 1;
        let mut bad = None;
        let mut span = last_span.max(1);
        while bad.is_none() && good < last {
            let b = (a + span).min(last);
            if b > good && window.piece_ok(a, b, degree) {
                good = b;
            } else if b > good {
                bad = Some(b);
            }
            span *= 2;
        }
        if let Some(mut bad) = bad {
            while bad - good > 1 {
                let mid = (good + bad) / 2;
                if window.piece_ok(a, mid, degree) {
                    good = mid;
                } else {
                    bad = mid;
                }
            }
        }
        chosen.push(good);
        last_span = good - a;
        a = good;
        let frames = (chosen.len() - 1) * degree as usize + 1;
        if a + 1 < m && frames + degree as usize >= fewer_than {
            return None;
        }
        window.forget_before(2 * a);
        progress(cands[a] as f64);
    }
    Some(chosen.into_iter().map(|i| cands[i]).collect())
}

/// The frame times of polynomial pieces of degree `d` between consecutive piece ends: each
/// piece's `d + 1` frames equally spaced (f32, as stored), neighbours sharing their end.
pub fn piece_frames(ends: &[f32], d: u32) -> Vec<f32> {
    let mut out = Vec::with_capacity(ends.len().saturating_sub(1) * d as usize + 1);
    out.extend(ends.first());
    for w in ends.windows(2) {
        let (a, b) = (w[0] as f64, w[1] as f64);
        for j in 1..d {
            out.push((a + (b - a) * j as f64 / d as f64) as f32);
        }
        out.push(w[1]);
    }
    out
}

impl Placement {
    /// A placement of `times` with a check's figures; a failed check is one unmet span over the
    /// whole clip. Not periodic.
    pub fn checked(
        times: Vec<f32>,
        c: Check,
        interpolation: RowInterpolation,
        degree: u8,
    ) -> Placement {
        let end = times.last().copied().unwrap_or(0.0);
        Placement {
            times,
            max_rel: c.rel,
            max_abs: c.abs,
            unmet: if c.ok {
                Vec::new()
            } else {
                vec![(0.0, end, c.abs)]
            },
            interpolation,
            periodic: false,
            degree,
        }
    }
}

/// What a check of frames found: largest error (file units), largest relative error,
/// and whether every time met the budget.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Check {
    pub abs: f64,
    pub rel: f64,
    pub ok: bool,
}

impl Check {
    /// Nothing measured yet: no error, met.
    pub const PASS: Check = Check {
        abs: 0.0,
        rel: 0.0,
        ok: true,
    };

    /// Takes in one measured time: the source's skin matrices `st` there and `delta`, the
    /// shown matrices' difference from them, against the job's budget at that time's diagonal.
    pub fn measure(&mut self, job: &Job<'_>, st: &[Mat4], delta: &[Mat4]) {
        let diag = job.clusters.diagonal(st);
        let (err, ok) = job.clusters.worst(delta, job.allowed(diag));
        self.abs = self.abs.max(err as f64);
        if diag > 0.0 {
            self.rel = self.rel.max(err as f64 / diag as f64);
        }
        self.ok &= ok;
    }

    /// Both checks together: the larger errors, met where both were.
    pub fn and(self, other: Check) -> Check {
        Check {
            abs: self.abs.max(other.abs),
            rel: self.rel.max(other.rel),
            ok: self.ok && other.ok,
        }
    }
}

/// One segment's re-check.
fn check_segment(job: &Job<'_>, poser: &mut Poser, t0: f32, t1: f32) -> Check {
    let mut out = Check::PASS;
    // No f32 clip time lies strictly between neighbouring f32 times: nothing to show there
    // (the two frames around a STEP key).
    if t1 <= t0.next_up() {
        return out;
    }
    let (t0, t1) = (t0 as f64, t1 as f64);
    let (sa, sb) = (job.pose(poser, t0), job.pose(poser, t1));
    let mut delta = Vec::new();
    for j in 1..RECHECK_STEPS {
        let alpha = j as f32 / RECHECK_STEPS as f32;
        let st = job.pose(poser, t0 + (t1 - t0) * alpha as f64);
        deltas(&st, &sa, &sb, alpha, &mut delta);
        out.measure(job, &st, &delta);
    }
    out
}

/// Re-checks `times` on the dense grid, splitting failing segments; see the module docs.
fn recheck(job: &Job<'_>, mut times: Vec<f32>) -> Placement {
    let posers = Posers::new(job.poser());
    let run = |segs: &[(f32, f32)]| -> Vec<Check> {
        segs.par_iter()
            .map(|&(a, b)| posers.with(|poser| check_segment(job, poser, a, b)))
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
        interpolation: RowInterpolation::Linear,
        periodic: false,
        degree: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift), for inputs without a seed file.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> f32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 40) as f32 / (1u64 << 24) as f32
        }
    }

    /// 3,000 vertices in a 2-unit box, 1 to 4 of 6 entries each with weights summing to 1.
    fn skin(rng: &mut Rng) -> ReferenceSkin {
        let mut s = ReferenceSkin::new();
        for _ in 0..3000 {
            s.positions
                .push(Vec3::new(rng.next(), rng.next(), rng.next()) * 2.0 - Vec3::ONE);
            let k = 1 + (rng.next() * 4.0) as usize % 4;
            let raw: Vec<f32> = (0..k).map(|_| 0.1 + rng.next()).collect();
            let sum: f32 = raw.iter().sum();
            for (i, w) in raw.iter().enumerate() {
                s.entries
                    .push(((i * 2 + (rng.next() * 2.0) as usize) % 6) as u16);
                s.weights.push(w / sum);
            }
            s.offsets.push(s.entries.len() as u32);
        }
        s
    }

    /// The error of every vertex under `delta`, straight from the definition.
    fn exact_max(s: &ReferenceSkin, delta: &[Mat4]) -> f32 {
        (0..s.positions.len())
            .map(|v| {
                let (a, b) = (s.offsets[v] as usize, s.offsets[v + 1] as usize);
                (a..b)
                    .fold(Vec3::ZERO, |q, k| {
                        q + apply(&delta[s.entries[k] as usize], s.positions[v]) * s.weights[k]
                    })
                    .length()
            })
            .fold(0.0, f32::max)
    }

    #[test]
    fn the_cluster_bound_is_never_below_the_error_and_checks_agree_with_it() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let s = skin(&mut rng);
        let c = Clusters::new(&s);
        // Random weights fall into many weight bins; real skins share far more.
        assert!(c.len() < s.positions.len(), "{} clusters", c.len());
        for _ in 0..50 {
            // Small matrix differences, as between a lerp and the pose (last row 0).
            let delta: Vec<Mat4> = (0..6)
                .map(|_| {
                    let mut m = [0.0f32; 16];
                    for (i, x) in m.iter_mut().enumerate() {
                        if i % 4 != 3 {
                            *x = (rng.next() - 0.5) * 1e-2;
                        }
                    }
                    Mat4::from_cols_array(&m).transpose()
                })
                .collect();
            let truth = exact_max(&s, &delta);
            // With nothing allowed every cluster is measured: the exact figure.
            let (measured, ok) = c.worst(&delta, 0.0);
            assert!(
                (measured - truth).abs() <= 1e-6 * truth.max(1e-6),
                "{measured} vs {truth}"
            );
            assert!(!ok);
            // With everything allowed only bounds are used: never below the truth.
            let (bound, ok) = c.worst(&delta, f32::INFINITY);
            assert!(ok && bound >= truth, "bound {bound} < {truth}");
            assert!(c.within(&delta, truth * 1.001));
            assert!(!c.within(&delta, truth * 0.999));
        }
    }
}
