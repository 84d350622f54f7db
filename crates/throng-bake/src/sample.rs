//! Stage: sampling (docs/design.md §3). Every frame-table row is posed once, in parallel (one
//! `Poser` per worker), giving the skin matrices `S_j = W_j · IBM_j` of every palette entry and
//! the model-space transforms of the tracked nodes (anchors, motion root) that later stages
//! read. Deterministic: each row writes its own slots.

use crate::error::BakeError;
use crate::frame_table::RowTime;
use crate::palette::Palette;
use crate::progress::{Progress, Stage};
use glam::Mat4;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};
use throng_anim::{Model, Poser};

/// The sampled rows.
pub struct Sampled {
    /// Skin matrices, `rows × entries`, row-major.
    pub matrices: Vec<Mat4>,
    pub entries: usize,
    /// Tracked nodes' model-space transforms, `rows × slots`, row-major (one slot per row even
    /// without tracked nodes: parallel chunks cannot be empty).
    nodes: Vec<Mat4>,
    slots: usize,
}

impl Sampled {
    /// Frame-table rows sampled.
    pub fn rows(&self) -> usize {
        self.nodes.len() / self.slots
    }

    /// The model-space transform of tracked node `i` (its place in the list given to [`rows`])
    /// at row `row`.
    pub fn node(&self, row: usize, i: usize) -> Mat4 {
        self.nodes[row * self.slots + i]
    }

    /// Tracked node `i`'s transform at every row.
    pub fn track(&self, i: usize) -> Vec<Mat4> {
        (0..self.rows()).map(|r| self.node(r, i)).collect()
    }
}

/// Poses every row of `rows`, tracking the nodes `tracked`. Every skin matrix must be finite:
/// the error names the first entry and frame that is not.
pub fn rows(
    model: &Model,
    palette: &Palette,
    rows: &[RowTime],
    tracked: &[usize],
    file: &str,
    progress: Option<Progress<'_>>,
) -> Result<Sampled, BakeError> {
    let entries = palette.entries.len();
    let mut matrices = vec![Mat4::IDENTITY; rows.len() * entries];
    let slots = tracked.len().max(1);
    let mut nodes = vec![Mat4::IDENTITY; rows.len() * slots];
    let done = AtomicU64::new(0);
    let total = rows.len() as u64;
    // Only what the rows keep is posed (a file's other nodes can outnumber them by far).
    let poser = Poser::of_nodes(model, palette.nodes().chain(tracked.iter().copied()));
    matrices
        .par_chunks_mut(entries.max(1))
        .zip(nodes.par_chunks_mut(slots))
        .zip(rows.par_iter())
        .for_each_init(
            || poser.clone(),
            |poser, ((dst, dst_nodes), r)| {
                let ms = poser.pose(model, r.clip, r.time);
                for (d, s) in dst.iter_mut().zip(palette.skin_matrices(ms)) {
                    *d = s;
                }
                for (d, &n) in dst_nodes.iter_mut().zip(tracked) {
                    *d = ms[n];
                }
                if let Some(p) = progress {
                    let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                    if n.is_multiple_of(256) || n == total {
                        p(Stage::Sampling, n, total);
                    }
                }
            },
        );
    if let Some(i) = matrices.par_iter().position_first(|m| !m.is_finite()) {
        let (e, r) = (i % entries.max(1), i / entries.max(1));
        return Err(BakeError::NonFinite {
            file: file.to_string(),
            entry: e,
            node: palette.entries[e].name.clone(),
            clip: rows[r].clip_name(model),
            frame: rows[r].frame,
        });
    }
    Ok(Sampled {
        matrices,
        entries,
        nodes,
        slots,
    })
}
