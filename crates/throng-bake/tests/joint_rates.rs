//! What rows at each joint's own rate would save over rows shared by every joint (issue 49's
//! 720 B/bone/s at 1e-4; docs/benchmarks.md "Rows per joint: a measurement"). A measurement, not
//! a check: `cargo test --release -p throng-bake --test joint_rates -- --ignored --nocapture`
//! prints the table.
//!
//! The criterion is per joint and conservative. A vertex's error is `|Σ_k w_k Δ_k p|` with
//! `Σ_k w_k = 1`, where `Δ_k` is palette entry k's skin matrix as interpolated minus the source's
//! at that time; it is at most `max_k |Δ_k p|`. `|Δ p|` is convex in `p`, so over the vertices
//! entry k influences it is at most its largest value at the corners of their bind-space box.
//! An entry whose rows keep `|Δ_k c| ≤ ε` at its eight corners therefore keeps every vertex it
//! moves within ε, whatever rows the other entries have: each entry's rows can be placed alone.
//! ε is 6e-5 of the bind pose's bounding diagonal (1e-4 less the quat-snorm16 encoding's
//! share, as `tests/interpolants.rs` takes it).
//!
//! Per clip, two layouts at 16 B a row (quat-snorm16), rows counted over every entry:
//! - **shared pieces**: per key interval of the source, the highest degree any entry needs
//!   (the budgeted bake's `--interpolation pieces` rows, by this criterion; what per-entry rows
//!   are measured against);
//! - **per entry, pieces**: each entry, per key interval of the source, the lowest polynomial
//!   degree (0 to 3; degree 0 where the entry does not move by ε across the interval) through
//!   equally spaced rows — the per-interval polynomial pieces of the budgeted bake, per entry.
//!
//! Per-entry pieces need a table beside the rows: per entry and key interval where its rows
//! start (a u16, 2 B; an interval's degree is the difference to the next), counted in the
//! per-entry figure. Every piece is checked at 31 evenly spaced times inside its key interval.
//! Uniformly spaced rows (shared or per entry) are left out: lerped, they miss ε on these
//! LINEAR-keyed clips below 480 rows a second, since a key's corner falls between them
//! (docs/benchmarks.md "Catmull-Rom against linear rows").

mod common;

use glam::{Mat4, Vec3};
use throng_anim::Poser;
use throng_bake::budget::{Clusters, Job};
use throng_bake::frames::{clip_duration, key_times};
use throng_bake::{BakeOptions, MaxError};

const EPSILON: f32 = 6e-5;
const ROW_BYTES: f64 = 16.0;
const INDEX_BYTES: f64 = 2.0;
const PIECE_CHECKS: u32 = 32;

/// Skin matrices of every palette entry at clip times, posed on demand.
struct Poses<'a> {
    job: Job<'a>,
    poser: Poser,
}

impl Poses<'_> {
    fn at(&mut self, t: f64) -> Vec<Mat4> {
        self.job.pose(&mut self.poser, t)
    }
}

/// Largest `|m c|` over the corners `cs` (the last row of `m` is not read: a difference of
/// affine matrices).
fn reach(m: &Mat4, cs: &[Vec3; 8]) -> f32 {
    cs.iter()
        .map(|c| {
            (m.x_axis.truncate() * c.x
                + m.y_axis.truncate() * c.y
                + m.z_axis.truncate() * c.z
                + m.w_axis.truncate())
            .length()
        })
        .fold(0.0, f32::max)
}

/// Lagrange weights at `u ∈ [0, 1]` of the `m + 1` equally spaced nodes of degree `m`.
fn lagrange(m: usize, u: f32) -> Vec<f32> {
    let nodes: Vec<f32> = (0..=m).map(|j| j as f32 / m.max(1) as f32).collect();
    (0..=m)
        .map(|a| {
            (0..=m)
                .filter(|&b| b != a)
                .map(|b| (u - nodes[b]) / (nodes[a] - nodes[b]))
                .product()
        })
        .collect()
}

/// Pieces stored for `entries` together (one entry: its own rows; every entry: shared rows),
/// walked over the key intervals in order. The rows stored so far end with `held` (the rows at
/// the interval's start: the last piece's end, or rows held through degree-0 intervals). Per
/// interval the lowest degree 0 ..= 3 meets ε at 32 evenly spaced times of the interval, its
/// end included: degree 0 keeps `held` (no new row), degree m ≥ 1 is the polynomial through
/// `held` and m new rows posed at equal steps, the last at the interval's end. Returns the rows
/// stored per entry (1 + the degrees) and the intervals where even degree 3 misses ε (counted
/// at 3 rows: the figures are then lower bounds).
fn pieces(
    keys: &[f32],
    poses: &mut Poses,
    corners: &[[Vec3; 8]],
    eps: f32,
    entries: &[usize],
) -> (usize, usize) {
    let mut held: Vec<Mat4> = {
        let first = poses.at(keys[0] as f64);
        entries.iter().map(|&e| first[e]).collect()
    };
    let (mut rows, mut missed) = (1usize, 0usize);
    for w in keys.windows(2) {
        let (a, b) = (w[0] as f64, w[1] as f64);
        let checks: Vec<(f32, Vec<Mat4>)> = (1..=PIECE_CHECKS)
            .map(|s| {
                let u = s as f32 / PIECE_CHECKS as f32;
                let pose = poses.at(a + (b - a) * u as f64);
                (u, entries.iter().map(|&e| pose[e]).collect())
            })
            .collect();
        let mut chosen = None;
        for m in 0..=3usize {
            // Node 0 is what is stored at the interval's start; nodes 1 ..= m are new rows.
            let mut nodes = vec![held.clone()];
            for j in 1..=m {
                let pose = poses.at(a + (b - a) * j as f64 / m as f64);
                nodes.push(entries.iter().map(|&e| pose[e]).collect());
            }
            let meets = checks.iter().all(|(u, truth)| {
                let weights = if m == 0 { vec![1.0] } else { lagrange(m, *u) };
                entries.iter().enumerate().all(|(k, &e)| {
                    let shown = weights
                        .iter()
                        .zip(&nodes)
                        .fold(Mat4::ZERO, |acc, (w, r)| acc + r[k] * *w);
                    reach(&(truth[k] - shown), &corners[e]) <= eps
                })
            });
            if meets {
                chosen = Some((m, nodes));
                break;
            }
        }
        let (m, nodes) = chosen.unwrap_or_else(|| {
            missed += 1;
            let end = poses.at(b);
            (3, vec![entries.iter().map(|&e| end[e]).collect()])
        });
        rows += m;
        if m > 0 {
            held = nodes.last().cloned().unwrap_or(held);
        }
    }
    (rows, missed)
}

#[test]
#[ignore = "a measurement (prints a table); seconds on two cores"]
fn rows_per_joint_against_shared_rows() {
    println!(
        "{:32} {:28} {:>7} {:>5} | {:>7} {:>6} {:>4} | {:>7} {:>6} {:>6} {:>4}",
        "asset",
        "clip",
        "seconds",
        "bones",
        "shared",
        "B/b/s",
        "miss",
        "per-ent",
        "index",
        "B/b/s",
        "miss"
    );
    for (name, model) in common::keyframed_characters() {
        let name = name.as_str();
        let options = BakeOptions {
            source_name: name.into(),
            ..Default::default()
        };
        let palette = throng_bake::palette::build(&model, name).expect("palette");
        let prims = throng_bake::primitives::build(&model, &palette, &options).expect("prims");
        let skin = &prims.reference;
        let bones = palette.entries.len();
        // Per entry, the bind-space box of the vertices it moves.
        let mut lo = vec![Vec3::splat(f32::INFINITY); bones];
        let mut hi = vec![Vec3::splat(f32::NEG_INFINITY); bones];
        for (v, p) in skin.positions.iter().enumerate() {
            let (a, b) = (skin.offsets[v] as usize, skin.offsets[v + 1] as usize);
            for (&e, &w) in skin.entries[a..b].iter().zip(&skin.weights[a..b]) {
                if w > 0.0 {
                    lo[e as usize] = lo[e as usize].min(*p);
                    hi[e as usize] = hi[e as usize].max(*p);
                }
            }
        }
        let moves: Vec<bool> = lo.iter().zip(&hi).map(|(l, h)| l.x <= h.x).collect();
        let corners: Vec<[Vec3; 8]> = lo
            .iter()
            .zip(&hi)
            .map(|(l, h)| {
                std::array::from_fn(|i| {
                    Vec3::new(
                        if i & 1 == 0 { l.x } else { h.x },
                        if i & 2 == 0 { l.y } else { h.y },
                        if i & 4 == 0 { l.z } else { h.z },
                    )
                })
            })
            .collect();
        let (blo, bhi) = skin.positions.iter().fold(
            (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
            |(a, b), p| (a.min(*p), b.max(*p)),
        );
        let eps = EPSILON * (bhi - blo).length();
        let clusters = Clusters::new(skin);
        // Only the entries that move a vertex need rows (both layouts); B/bone/s per such entry.
        let moving: Vec<usize> = (0..bones).filter(|&e| moves[e]).collect();
        let n = moving.len();
        // Whole asset: shared rows, per-entry rows, index bytes, seconds, misses (shared, own).
        let mut sum = (0usize, 0usize, 0.0f64, 0.0f64, 0usize, 0usize);
        for (c, clip) in model.clips.iter().enumerate() {
            let d = clip_duration(clip);
            if d <= 0.0 {
                continue;
            }
            let job = Job {
                model: &model,
                palette: &palette,
                clusters: &clusters,
                clip: c,
                duration: d,
                budget: MaxError::Relative(0.0),
            };
            let poser = job.poser();
            let mut poses = Poses { job, poser };
            let keys = key_times(clip, d);
            let (mut own, mut missed) = (0usize, 0usize);
            for &e in &moving {
                let (r, m) = pieces(&keys, &mut poses, &corners, eps, &[e]);
                own += r;
                missed += m;
            }
            let (shared_rows, shared_missed) = pieces(&keys, &mut poses, &corners, eps, &moving);
            let shared = shared_rows * n;
            let index = (n * (keys.len() - 1)) as f64 * INDEX_BYTES;
            let bps = |bytes: f64| bytes / (n as f64 * d);
            println!(
                "{name:32} {:28} {d:7.2} {n:5} | {shared:7} {:6.0} {shared_missed:4} | {own:7} {:6.0} {:6.0} {missed:4}",
                clip.name,
                bps(shared as f64 * ROW_BYTES),
                bps(index),
                bps(own as f64 * ROW_BYTES + index)
            );
            sum = (
                sum.0 + shared,
                sum.1 + own,
                sum.2 + index,
                sum.3 + d,
                sum.4 + shared_missed,
                sum.5 + missed,
            );
        }
        let bps = |bytes: f64| bytes / (n as f64 * sum.3);
        println!(
            "{name:32} {:28} {:7.2} {n:5} | {:7} {:6.0} {:4} | {:7} {:6.0} {:6.0} {:4}",
            "(whole asset)",
            sum.3,
            sum.0,
            bps(sum.0 as f64 * ROW_BYTES),
            sum.4,
            sum.1,
            bps(sum.2),
            bps(sum.1 as f64 * ROW_BYTES + sum.2),
            sum.5
        );
    }
}
