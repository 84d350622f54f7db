//! What a motion shows at given parameters: its clips and their weights (a clip, or a 1D or
//! 2D blend space's neighbouring points, docs/graph.md §2), and the wrap of normalised time.
//! Read by the step (machine.rs), its clip events and the GPU layout alike.

use crate::graph::{ClipRef, Motion};

/// Where `x` falls among increasing `at`: `(i, j, w)`, weight `w` of point j and `1 − w` of
/// point i (i = j outside the range or with one point).
fn segment(at: &[f32], x: f32) -> (usize, usize, f32) {
    let n = at.len();
    if n <= 1 || x <= at[0] {
        return (0, 0, 0.0);
    }
    if x >= at[n - 1] {
        return (n - 1, n - 1, 0.0);
    }
    let mut i = 0;
    while at[i + 1] <= x {
        i += 1;
    }
    (i, i + 1, (x - at[i]) / (at[i + 1] - at[i]))
}

/// The clips of a motion with their weights at these parameters (zero weights left out), in
/// point order: calls `f(clip, weight)`.
#[inline]
pub(crate) fn motion_weights(m: &Motion, p: &[f32], mut f: impl FnMut(ClipRef, f32)) {
    motion_weights_at(m, p, |_, c, w| f(c, w))
}

/// [`motion_weights`] with each clip's index among the motion's clips: `f(k, clip, weight)`.
#[inline]
pub(crate) fn motion_weights_at(m: &Motion, p: &[f32], mut f: impl FnMut(usize, ClipRef, f32)) {
    match m {
        Motion::Clip { clip, .. } => f(0, *clip, 1.0),
        Motion::Blend1d {
            parameter,
            at,
            clips,
        } => {
            let (i, j, w) = segment(at, p[*parameter]);
            if i == j {
                f(i, clips[i], 1.0);
            } else {
                if 1.0 - w > 0.0 {
                    f(i, clips[i], 1.0 - w);
                }
                if w > 0.0 {
                    f(j, clips[j], w);
                }
            }
        }
        Motion::Blend2d {
            x,
            y,
            xs,
            ys,
            clips,
        } => {
            let (x0, x1, fx) = segment(xs, p[*x]);
            let (y0, y1, fy) = segment(ys, p[*y]);
            // outside the range (or with one value) an axis has one entry; the zero is skipped
            let axis = |i: usize, j: usize, w: f32| {
                if i == j {
                    [(i, 1.0), (i, 0.0)]
                } else {
                    [(i, 1.0 - w), (j, w)]
                }
            };
            let (ax, ay) = (axis(x0, x1, fx), axis(y0, y1, fy));
            for &(iy, wy) in &ay {
                for &(ix, wx) in &ax {
                    let w = wx * wy;
                    if w > 0.0 {
                        let k = iy * xs.len() + ix;
                        f(k, clips[k], w);
                    }
                }
            }
        }
    }
}

/// `x mod 1` in [0, 1) (`rem_euclid(1.0)`): the truncating cast where it is exact, which is
/// cheaper than libm's fmod.
#[inline]
pub(crate) fn fract(x: f64) -> f64 {
    if (0.0..4.0e15).contains(&x) {
        x - (x as i64) as f64
    } else {
        x.rem_euclid(1.0)
    }
}
