//! Stage: bounds (docs/design.md §3). Per frame-table row the box around every vertex skinned
//! by the reference (every source influence) with the row's sampled matrices — what culling
//! needs to hold whatever K the GPU skins with — and per clip the union of its rows'. A clip
//! shown through more than two rows also holds its poses between frames ([`rows`]).

use crate::reference::ReferenceSkin;
use glam::Mat4;
use rayon::prelude::*;
use throng_asset::{Aabb, ClipInfo, RowInterpolation};

/// Fractions of a gap at which a clip whose rows are not linear is shown for its bounds.
const SHOWN_AT: [f32; 3] = [0.25, 0.5, 0.75];

/// The bounds of every row of `matrices` (`rows × entries`, row-major); each clip of `clips`
/// gets the union of its rows'. A clip whose rows are shown through more than two taps
/// (Catmull-Rom, polynomial pieces: docs/design.md §3 "Row interpolation") can leave the box of
/// the two rows around a time, which is what culling reads: each of its gaps is also shown at
/// [`SHOWN_AT`] (its taps' matrices summed, as the GPU does) and that box joins the boxes of
/// the gap's two rows.
pub fn rows(
    reference: &ReferenceSkin,
    matrices: &[Mat4],
    entries: usize,
    clips: &mut [ClipInfo],
) -> Vec<Aabb> {
    let entries = entries.max(1);
    let mut rows: Vec<Aabb> = matrices
        .par_chunks(entries)
        .map(|s| reference.bounds(s))
        .collect();
    for c in clips.iter() {
        if c.interpolation == RowInterpolation::Linear || c.frames < 2 {
            continue;
        }
        let first = c.first_row;
        let gaps: Vec<Aabb> = (0..c.frames - 1)
            .into_par_iter()
            .map(|k| {
                let row = first + k;
                let mut bb = Aabb::EMPTY;
                let mut shown = vec![Mat4::ZERO; entries];
                for f in SHOWN_AT {
                    shown.fill(Mat4::ZERO);
                    for (r, w) in c.taps(row, row + 1, f).iter() {
                        let at = r as usize * entries;
                        if let Some(m) = matrices.get(at..at + entries) {
                            for (o, x) in shown.iter_mut().zip(m) {
                                *o += *x * w;
                            }
                        }
                    }
                    bb = bb.union(&reference.bounds(&shown));
                }
                bb
            })
            .collect();
        for (k, bb) in gaps.iter().enumerate() {
            for r in [first as usize + k, first as usize + k + 1] {
                if let Some(row) = rows.get_mut(r) {
                    *row = row.union(bb);
                }
            }
        }
    }
    for c in clips {
        let (a, b) = (c.first_row as usize, (c.first_row + c.frames) as usize);
        c.bounds = rows[a..b].iter().fold(Aabb::EMPTY, |acc, r| acc.union(r));
    }
    rows
}
