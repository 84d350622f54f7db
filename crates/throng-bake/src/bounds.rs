//! Stage: bounds (docs/design.md §3). Per frame-table row the box around every vertex skinned
//! by the reference (every source influence) with the row's sampled matrices — what culling
//! needs to hold whatever K the GPU skins with — and per clip the union of its rows'.

use crate::reference::ReferenceSkin;
use glam::Mat4;
use rayon::prelude::*;
use throng_asset::{Aabb, ClipInfo};

/// The bounds of every row of `matrices` (`rows × entries`, row-major); each clip of `clips`
/// gets the union of its rows'.
pub fn rows(
    reference: &ReferenceSkin,
    matrices: &[Mat4],
    entries: usize,
    clips: &mut [ClipInfo],
) -> Vec<Aabb> {
    let rows: Vec<Aabb> = matrices
        .par_chunks(entries.max(1))
        .map(|s| reference.bounds(s))
        .collect();
    for c in clips {
        let (a, b) = (c.first_row as usize, (c.first_row + c.frames) as usize);
        c.bounds = rows[a..b].iter().fold(Aabb::EMPTY, |acc, r| acc.union(r));
    }
    rows
}
