//! Row taps: which frame-table rows a layer's pose is a weighted sum of, and their weights
//! (docs/design.md §3 "Row interpolation"). WGSL twin: `layer_taps` in `shaders/playback.wgsl`,
//! tested equal through what they feed: `throng-render/tests/{gpu_skin,palette}.rs` read cubic
//! rows back against throng-asset's CPU decoder.
//!
//! Every consumer of rows (skin matrices, VAT positions and normals, anchors) forms
//! `Σ_i weights[i] · X(rows[i])` over the taps whose weight is not 0, summed in tap order, so a
//! linear clip still reads two rows and a cubic one four.

use crate::{GpuClipTable, Layer};

/// `GpuClip::flags` bit 1: the clip's rows are interpolated by the uniform Catmull-Rom spline
/// (four taps) instead of linearly (two).
pub const CLIP_CUBIC: u32 = 1 << 1;
/// `GpuClip::flags` bit 2: the clip's last frame is its first again (a loop's seam), so the
/// cubic's neighbours wrap around the seam instead of repeating the end frame.
pub const CLIP_PERIODIC: u32 = 1 << 2;

/// `GpuClip::flags` bits 3..4: the degree d (2 or 3; 0 = not) of a clip whose rows are
/// *polynomial pieces*: every d gaps from the clip's first frame make one piece, shown by the
/// polynomial through its d + 1 rows (equally spaced in time inside the piece; docs/design.md
/// §3 "Row interpolation").
pub const CLIP_DEGREE_SHIFT: u32 = 3;
pub const CLIP_DEGREE_BITS: u32 = 3 << CLIP_DEGREE_SHIFT;

/// The polynomial-piece degree of a clip's flags (0 when its rows are not pieces).
pub fn piece_degree(flags: u32) -> u32 {
    (flags & CLIP_DEGREE_BITS) >> CLIP_DEGREE_SHIFT
}

/// Weights of a piece's rows 0 ..= d at `x` ∈ [0, d] (in gaps from the piece's first row): the
/// Lagrange basis of the equally spaced nodes 0, 1, …, d, for d = 2 or 3 (others: linear);
/// evaluated in this order on the GPU too.
pub fn piece_weights(d: u32, x: f32) -> [f32; 4] {
    match d {
        2 => [
            0.5 * (x - 1.0) * (x - 2.0),
            -x * (x - 2.0),
            0.5 * x * (x - 1.0),
            0.0,
        ],
        3 => [
            -(x - 1.0) * (x - 2.0) * (x - 3.0) / 6.0,
            0.5 * x * (x - 2.0) * (x - 3.0),
            -0.5 * x * (x - 1.0) * (x - 3.0),
            x * (x - 1.0) * (x - 2.0) / 6.0,
        ],
        _ => [1.0 - x, x, 0.0, 0.0],
    }
}

/// Up to four frame-table rows and their weights; a weight of 0 means the row is not read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RowTaps {
    pub rows: [u32; 4],
    pub weights: [f32; 4],
}

impl RowTaps {
    /// The taps with a weight, in tap order: what a consumer reads and sums.
    pub fn iter(&self) -> impl Iterator<Item = (u32, f32)> + '_ {
        self.rows
            .iter()
            .zip(&self.weights)
            .filter(|(_, w)| **w != 0.0)
            .map(|(r, w)| (*r, *w))
    }

    /// Linear taps: `row` at `1 − frac`, `next` at `frac`.
    pub fn linear(row: u32, next: u32, frac: f32) -> RowTaps {
        RowTaps {
            rows: [row, row, next, next],
            weights: [0.0, 1.0 - frac, frac, 0.0],
        }
    }
}

/// Weights of frames `k − 1, k, k + 1, k + 2` of the uniform Catmull-Rom spline at `f` ∈ [0, 1)
/// between frames k and k + 1 (Catmull and Rom 1974; tension 1/2). They sum to 1, give
/// (0, 1, 0, 0) at f = 0, and are evaluated in this order on the GPU too.
pub fn catmull_rom_weights(f: f32) -> [f32; 4] {
    let f2 = f * f;
    let f3 = f2 * f;
    [
        0.5 * (-f3 + 2.0 * f2 - f),
        0.5 * (3.0 * f3 - 5.0 * f2 + 2.0),
        0.5 * (-3.0 * f3 + 4.0 * f2 + f),
        0.5 * (f3 - f2),
    ]
}

/// The taps of a layer showing `row` with `frac` (weight of `next`) in the clip whose rows are
/// `first ..= last`, with `next = min(row + 1, last)` (rows already clamped into the clip and
/// the table, as `layer_rows` does). Linear clips, and any clip at `frac = 0`, give two taps.
/// A clip of polynomial pieces of degree d ([`piece_degree`]) gives the d + 1 rows of the
/// piece holding `row` (its first row `row − (row − first) mod d`) at [`piece_weights`] of
/// `(row − first) mod d + frac`. A cubic clip's outer taps are the frames before `row` and after `next`: on a periodic
/// clip across the seam (`last − 1` before `first`, `first + 1` after `last`), otherwise the end
/// frame again.
pub fn row_taps(first: u32, last: u32, row: u32, next: u32, frac: f32, flags: u32) -> RowTaps {
    let d = piece_degree(flags);
    if frac == 0.0 || last <= first || (d < 2 && flags & CLIP_CUBIC == 0) {
        return RowTaps::linear(row, next, frac);
    }
    if d >= 2 {
        // The piece holding gap `row − first`, and where in it `row` is.
        let o = row.saturating_sub(first) % d;
        let s = row - o;
        let at = |j: u32| (s + j).min(last);
        return RowTaps {
            rows: [at(0), at(1), at(2), at(3)],
            weights: piece_weights(d, o as f32 + frac),
        };
    }
    let periodic = flags & CLIP_PERIODIC != 0;
    let before = if row > first {
        row - 1
    } else if periodic {
        last - 1
    } else {
        first
    };
    let after = if next < last {
        next + 1
    } else if periodic {
        first + 1
    } else {
        last
    };
    RowTaps {
        rows: [before, row, next, after],
        weights: catmull_rom_weights(frac),
    }
}

/// The taps of layer `l` over a table of `table_rows` rows with the clip table `clips`: its row
/// and the next kept inside the layer's clip (when `clips` has it) and the table, then
/// [`row_taps`] (linear for a clip past the table). The Rust twin of the WGSL `layer_taps` with
/// its `layer_rows`, for readers of a record's rows on the CPU (anchors).
pub fn layer_taps(l: &Layer, clips: &GpuClipTable, table_rows: u32) -> RowTaps {
    let last_row = table_rows.saturating_sub(1);
    let row = (l.row.max(0.0) as u32).min(last_row);
    let known = (l.clip_index() as usize) < clips.clips.len();
    let c = clips.clip(l.clip_index());
    let last = if known {
        c.first_row
            .saturating_add(c.frames.max(1) - 1)
            .min(last_row)
    } else {
        last_row
    };
    let next = (row + 1).min(last).max(row);
    if !known {
        return RowTaps::linear(row, next, l.frac);
    }
    row_taps(c.first_row, last, row, next, l.frac, c.flags)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catmull_rom_weights_sum_to_one_and_pass_through_the_frames() {
        assert_eq!(catmull_rom_weights(0.0), [0.0, 1.0, 0.0, 0.0]);
        for i in 0..=100 {
            let w = catmull_rom_weights(i as f32 / 100.0);
            assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-6, "{w:?}");
        }
        // A straight line through the frames is reproduced exactly (linear precision).
        let f = 0.3;
        let w = catmull_rom_weights(f);
        let x: f32 = w
            .iter()
            .enumerate()
            .map(|(i, w)| w * (i as f32 - 1.0))
            .sum();
        assert!((x - f).abs() < 1e-6, "{x}");
    }

    #[test]
    fn piece_weights_reproduce_polynomials_of_their_degree() {
        for d in [2u32, 3] {
            for i in 0..=30 {
                let x = i as f32 / 10.0 * d as f32 / 3.0;
                let w = piece_weights(d, x);
                // Exact for 1, x, x² (and x³ at degree 3) through the nodes 0..=d.
                for p in 0..=d as i32 {
                    let got: f32 = (0..=d as usize).map(|j| w[j] * (j as f32).powi(p)).sum();
                    assert!((got - x.powi(p)).abs() < 1e-4, "d {d} x {x} p {p}: {got}");
                }
            }
        }
    }

    #[test]
    fn piece_taps_find_their_piece() {
        let quad = 2 << CLIP_DEGREE_SHIFT;
        // Rows 10..=16: pieces 10–12, 12–14, 14–16.
        let t = row_taps(10, 16, 13, 14, 0.25, quad);
        assert_eq!(&t.rows[..3], &[12, 13, 14]);
        assert_eq!(t.weights, piece_weights(2, 1.25));
        let t = row_taps(10, 16, 14, 15, 0.5, quad);
        assert_eq!(&t.rows[..3], &[14, 15, 16]);
        // At a frame the row itself, alone.
        let t = row_taps(10, 16, 13, 14, 0.0, quad);
        assert_eq!(t.iter().collect::<Vec<_>>(), vec![(13, 1.0)]);
    }

    #[test]
    fn cubic_taps_wrap_on_a_periodic_clip_and_repeat_the_ends_otherwise() {
        let cubic = CLIP_CUBIC;
        let both = CLIP_CUBIC | CLIP_PERIODIC;
        // Clip rows 10..=14 (5 frames; 14 is 10's pose again when periodic).
        assert_eq!(row_taps(10, 14, 10, 11, 0.5, cubic).rows, [10, 10, 11, 12]);
        assert_eq!(row_taps(10, 14, 10, 11, 0.5, both).rows, [13, 10, 11, 12]);
        assert_eq!(row_taps(10, 14, 13, 14, 0.5, cubic).rows, [12, 13, 14, 14]);
        assert_eq!(row_taps(10, 14, 13, 14, 0.5, both).rows, [12, 13, 14, 11]);
        // Linear clips and frac 0 read two rows.
        assert_eq!(row_taps(10, 14, 12, 13, 0.5, 0).iter().count(), 2);
        assert_eq!(row_taps(10, 14, 12, 13, 0.0, both).iter().count(), 1);
        // A one-frame clip never reads outside itself.
        assert_eq!(row_taps(10, 10, 10, 10, 0.5, both).rows, [10, 10, 10, 10]);
    }
}
