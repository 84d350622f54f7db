//! The time rules (docs/design.md §4 "Time rules"): clip time → frame-table row and fraction,
//! for every loop mode. This is the one implementation; the runtime, the renderer's CPU paths,
//! the command line and the tests call it, and `shaders/playback.wgsl` is its GPU twin (tested
//! equal in throng-render's `tests/time_twin.rs`).
//!
//! # Units
//! A clip of duration `d` seconds has `n` frames (rows `first_row .. first_row + n`). Time is
//! measured on the clip's *timeline* in one of two units:
//! - seconds, `t`;
//! - *positions* `p = t · rate` with `rate = (n − 1) / d`, so that frame k sits at position k
//!   and one pass through the clip is `L = n − 1` long. The runtime accumulates positions (f64),
//!   because adding a step to a value below one period keeps full precision for days of play.
//!
//! # Loop modes ([`Span`])
//! An unwrapped position `u` (any sign) is *reduced* into one period: loop `[0, L)`, ping-pong
//! `[0, 2L)`, once/clamp `[0, L]` (held at the ends). A reduced ping-pong position past `L` is
//! *shown* at `2L − p`, playing backward. A zero-length clip (`n = 1` or `d = 0`) shows its one
//! frame whatever the time.
//!
//! # Rows
//! A shown position `q` ∈ [0, L] is frame `k = floor(q)`, row `first_row + k`, and
//! `frac = q − k` is the weight of row `k + 1`; on the last frame frac is 0 (so no row past the
//! clip is read). frac is stored as an f32 and kept below 1.
//!
//! # Frame-time lists
//! An error-budgeted clip stores its own increasing frame times `0 = t_0 < … < t_{n−1} = d`
//! (f32, as the GPU reads them). Positions stay `t · rate` (a linear measure of time), and only
//! [`ClipFrames::frame`] changes: the clip time `τ = q / rate` is looked up — the largest k with
//! `t_k ≤ τ`, by binary search — and `frac = (τ − t_k) / (t_{k+1} − t_k)`. The GPU does the same
//! with a per-clip lookup grid ([`crate::FrameTimeTable`]).

use std::sync::Arc;

use crate::LoopMode;

/// Largest f32 below 1: `frac` must stay in [0, 1) after rounding to f32.
pub const FRAC_MAX: f32 = 1.0 - f32::EPSILON / 2.0;

/// Which way a shown position moves as time grows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Direction {
    #[default]
    Forward,
    /// The second half of a ping-pong period.
    Backward,
}

/// One pass of length `len` (in any unit: frames, seconds) and the loop-mode rules on it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Span {
    /// Length of one pass, ≥ 0 (0: a zero-length clip).
    pub len: f64,
}

impl Span {
    /// A pass of `len` units; non-finite or negative lengths count as 0 (a clip that never
    /// moves).
    pub fn new(len: f64) -> Span {
        Span {
            len: if len.is_finite() && len > 0.0 {
                len
            } else {
                0.0
            },
        }
    }

    pub fn is_static(&self) -> bool {
        self.len <= 0.0
    }

    /// Length of one period: `2 · len` for ping-pong, `len` otherwise.
    pub fn period(&self, mode: LoopMode) -> f64 {
        if mode == LoopMode::PingPong {
            2.0 * self.len
        } else {
            self.len
        }
    }

    /// Reduces an unwrapped position `u` (any sign; NaN counts as 0) into one period: loop
    /// `[0, len)`, ping-pong `[0, 2·len)`, once/clamp `[0, len]`.
    #[inline]
    pub fn reduce(&self, mode: LoopMode, u: f64) -> f64 {
        if self.is_static() || u.is_nan() {
            return 0.0;
        }
        if mode.holds_end() {
            return u.clamp(0.0, self.len);
        }
        let p = self.period(mode);
        if (0.0..p).contains(&u) {
            return u;
        }
        let r = if u >= 0.0 {
            // u ≥ 0 and below 2^64 periods: the truncating cast is the floor, without libm
            u - p * ((u / p) as u64) as f64
        } else {
            u - p * (u / p).floor()
        };
        // rounding can land on p itself (or, for |u| ≥ 2^64 periods, anywhere)
        if (0.0..p).contains(&r) {
            r
        } else {
            0.0
        }
    }

    /// [`Self::reduce`] given `inv = 1 / period` (stored by callers that reduce often): a
    /// multiplication instead of a division, then one correction step for the reciprocal's
    /// rounding. Equal to [`Self::reduce`] for every input.
    #[inline]
    pub fn reduce_with_inverse(&self, mode: LoopMode, u: f64, inv: f64) -> f64 {
        if mode.holds_end() || inv <= 0.0 || !(0.0..1.0e15).contains(&u) {
            return self.reduce(mode, u);
        }
        let p = self.period(mode);
        if u < p {
            return u;
        }
        // 0 ≤ u·inv < 2^63: the truncating cast is the floor
        let mut r = u - p * ((u * inv) as i64) as f64;
        if r >= p {
            r -= p;
        } else if r < 0.0 {
            r += p;
        }
        if (0.0..p).contains(&r) {
            r
        } else {
            0.0
        }
    }

    /// Shown position `q` ∈ [0, len] of a reduced position, and the direction of play there.
    #[inline]
    pub fn shown(&self, p: f64) -> (f64, Direction) {
        if p > self.len {
            (2.0 * self.len - p, Direction::Backward)
        } else {
            (p, Direction::Forward)
        }
    }

    /// [`Self::reduce`] then [`Self::shown`].
    pub fn wrap(&self, mode: LoopMode, u: f64) -> (f64, Direction) {
        self.shown(self.reduce(mode, u))
    }
}

/// Where a clip time lands in the frame table: the global `row` and `frac` ∈ [0, 1), the
/// weight of `row + 1`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FrameRef {
    pub row: u32,
    pub frac: f32,
}

/// The result of [`ClipFrames::sample`].
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ClipTime {
    /// Global frame-table row and the weight of the next row.
    pub row: u32,
    pub frac: f32,
    /// Which way the clip plays at this time (backward in ping-pong's second half).
    pub direction: Direction,
    /// The local clip time shown, seconds in [0, d].
    pub time: f64,
    /// The position reduced into one period, as a fraction of the period in [0, 1) (once and
    /// clamp: [0, 1], 1 at the end). GPU-timed records store this as 0.32 fixed point.
    pub phase: f64,
}

/// The frame table of one clip as the time rules read it (docs/design.md §3 "Frame table"):
/// `frames` rows from `first_row`, spanning `duration` seconds, frame k at
/// `k · duration / (frames − 1)` — or at `times[k]` for a clip with a frame-time list.
#[derive(Debug, Clone, Default)]
pub struct ClipFrames {
    /// Global row of frame 0.
    pub first_row: u32,
    /// Frames `n` (≥ 1 for a valid clip; 0 is read as 1).
    pub frames: u32,
    /// `L = n − 1` as a [`Span`] of positions (0 for a zero-length clip).
    pub span: Span,
    /// Positions per second, `L / d` (0 for a zero-length clip).
    pub rate: f64,
    /// Seconds (0 for a zero-length clip).
    pub duration: f64,
    /// The frame times of a non-uniform clip (seconds, strictly increasing, `times[0] = 0`, one
    /// per frame); `None` for uniform frames.
    pub times: Option<Arc<[f32]>>,
    /// With `times`: where [`Self::frame`]'s search for a clip time starts
    /// ([`Self::with_lookup`], for tables kept and read every frame); the search is exact
    /// whatever it holds, so tables equal with or without it.
    pub lookup: Option<Arc<FrameLookup>>,
}

impl PartialEq for ClipFrames {
    /// The frame table itself: the lookup is derived from `times` and changes no result.
    fn eq(&self, o: &ClipFrames) -> bool {
        (
            self.first_row,
            self.frames,
            self.span,
            self.rate,
            self.duration,
        ) == (o.first_row, o.frames, o.span, o.rate, o.duration)
            && self.times == o.times
    }
}

/// Where to start looking for the frame of a clip time in a frame-time list: the clip's
/// duration cut into equal buckets, and per bucket the last frame at or before its start. A
/// clip time then costs a multiply, a load and a compare or two (the next frame's time) instead
/// of a binary search — which was half the CPU-timed update's time for a crowd of clips baked
/// with listed frames (`throng bench runtime`, docs/benchmarks.md "Listed frames").
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FrameLookup {
    /// Buckets per second.
    pub per_second: f64,
    /// Per bucket the largest k with `times[k]` at or before the bucket's start.
    pub first: Box<[u32]>,
}

impl FrameLookup {
    /// Buckets per frame: with two, a bucket holds a frame or none where frames are evenly
    /// spread, and a few where a list packs them densely.
    const PER_FRAME: usize = 2;
    /// At most this many buckets (64 KiB of `u32`s) for a clip of very many frames.
    const MOST: usize = 1 << 14;

    /// The lookup of `times` (increasing from 0) over `duration` > 0, in one pass.
    pub fn new(times: &[f32], duration: f64) -> FrameLookup {
        let buckets = (times.len() * Self::PER_FRAME).clamp(2, Self::MOST);
        let per_second = buckets as f64 / duration;
        let mut k = 0usize;
        let first = (0..buckets)
            .map(|b| {
                let start = b as f64 / per_second;
                while k + 1 < times.len() && times[k + 1] as f64 <= start {
                    k += 1;
                }
                k as u32
            })
            .collect();
        FrameLookup { per_second, first }
    }

    /// The largest k < `times.len()` − 1 with `times[k] ≤ tau` (0 when none is), as a binary
    /// search finds it: from the bucket's frame, back while it lies past `tau`, on while the
    /// next does not.
    #[inline]
    fn frame_at(&self, times: &[f32], tau: f64) -> usize {
        let n = times.len();
        let b = (tau * self.per_second) as usize; // τ ≥ 0: the cast is the floor
        let mut k = self
            .first
            .get(b)
            .or(self.first.last())
            .map_or(0, |&k| k as usize);
        k = k.min(n - 1);
        while k > 0 && times[k] as f64 > tau {
            k -= 1;
        }
        // a few frames on, then a binary search of the rest where frames crowd a bucket
        let mut steps = 0;
        while k + 1 < n && times[k + 1] as f64 <= tau {
            k += 1;
            steps += 1;
            if steps == 4 {
                k += times[k + 1..].partition_point(|&t| t as f64 <= tau);
                break;
            }
        }
        k.min(n - 2)
    }
}

impl ClipFrames {
    /// The uniform frame table of a clip: `frames` rows from `first_row` over `duration`
    /// seconds. One frame, a duration ≤ 0 or a non-finite duration make a zero-length clip.
    pub fn uniform(first_row: u32, frames: u32, duration: f64) -> ClipFrames {
        let zero = frames <= 1 || !(duration.is_finite() && duration > 0.0);
        if zero {
            return ClipFrames {
                first_row,
                frames: frames.max(1),
                span: Span::new(0.0),
                rate: 0.0,
                duration: 0.0,
                times: None,
                lookup: None,
            };
        }
        let last = (frames - 1) as f64;
        ClipFrames {
            first_row,
            frames,
            span: Span::new(last),
            rate: last / duration,
            duration,
            times: None,
            lookup: None,
        }
    }

    /// A clip whose frame k sits at `times[k]` seconds (one time per frame, strictly
    /// increasing from 0; the last is the duration). A list of fewer than two times is a
    /// zero-length clip; a list that is uniform within f32 precision is stored as uniform.
    pub fn listed(first_row: u32, times: &[f32]) -> ClipFrames {
        let n = times.len() as u32;
        let d = times.last().copied().unwrap_or(0.0) as f64;
        let mut c = ClipFrames::uniform(first_row, n, d);
        if !c.is_static() && !is_uniform(times) {
            c.times = Some(times.into());
        }
        c
    }

    /// This table with a [`FrameLookup`] for its frame-time list (none for uniform frames):
    /// for a table kept and placed every frame (the runtimes', the graph's), where the lookup
    /// replaces a binary search per placement; building it reads the list once.
    pub fn with_lookup(mut self) -> ClipFrames {
        if let (Some(times), None) = (&self.times, &self.lookup) {
            self.lookup = Some(Arc::new(FrameLookup::new(times, self.duration)));
        }
        self
    }

    /// `L = n − 1` (0 for a zero-length clip).
    pub fn last(&self) -> f64 {
        self.span.len
    }

    pub fn is_static(&self) -> bool {
        self.span.is_static()
    }

    /// Global row of the clip's last frame.
    pub fn last_row(&self) -> u32 {
        self.first_row + self.frames.max(1) - 1
    }

    /// Position of clip time `t` seconds (unwrapped).
    pub fn position(&self, t: f64) -> f64 {
        t * self.rate
    }

    /// Clip time of a position, seconds.
    pub fn time_of(&self, p: f64) -> f64 {
        if self.rate > 0.0 {
            p / self.rate
        } else {
            0.0
        }
    }

    /// Row and fraction of a shown position `q` ∈ [0, L] (clamped into it): frac 0 on the
    /// last frame.
    #[inline]
    pub fn frame(&self, q: f64) -> FrameRef {
        let last = self.span.len;
        // negative and NaN become 0; then q ≥ 0 and the truncating cast is the floor
        let q = if q > 0.0 { q } else { 0.0 };
        if let Some(times) = &self.times {
            return self.listed_frame(times, q);
        }
        // signed: one instruction each way (the unsigned conversions are a branchy sequence
        // on baseline x86-64, a visible share of the CPU-timed loop); q ≥ 2^63 saturates to
        // i64::MAX, still ≥ last
        let k = q as i64;
        let fl = k as f64;
        if fl >= last {
            return FrameRef {
                row: self.first_row + last as u32,
                frac: 0.0,
            };
        }
        FrameRef {
            row: self.first_row + k as u32,
            frac: ((q - fl) as f32).min(FRAC_MAX),
        }
    }

    /// [`Self::frame`] of a clip with a frame-time list: the largest k with `t_k ≤ τ`.
    fn listed_frame(&self, times: &[f32], q: f64) -> FrameRef {
        let n = times.len();
        let last_row = FrameRef {
            row: self.first_row + n.saturating_sub(1) as u32,
            frac: 0.0,
        };
        if q >= self.span.len || n < 2 {
            return last_row;
        }
        let tau = q / self.rate;
        let k = match &self.lookup {
            Some(lookup) => lookup.frame_at(times, tau),
            // partition_point: the first index whose time is above τ; t_0 = 0 ≤ τ, so k ≥ 0
            None => times
                .partition_point(|&t| t as f64 <= tau)
                .saturating_sub(1)
                .min(n - 2),
        };
        let (a, b) = (times[k] as f64, times[k + 1] as f64);
        let frac = if b > a { (tau - a) / (b - a) } else { 0.0 };
        FrameRef {
            row: self.first_row + k as u32,
            frac: (frac.clamp(0.0, 1.0) as f32).min(FRAC_MAX),
        }
    }

    /// The clip time of frame `k` (seconds): `times[k]`, or `k · d / (n − 1)`.
    pub fn frame_time(&self, k: u32) -> f64 {
        match &self.times {
            Some(t) => t.get(k as usize).map_or(self.duration, |&x| x as f64),
            None if self.frames > 1 => {
                if k + 1 >= self.frames {
                    self.duration
                } else {
                    k as f64 * self.duration / (self.frames - 1) as f64
                }
            }
            None => 0.0,
        }
    }

    /// The time function: clip time `t` seconds (any sign, any size; NaN counts as 0) played
    /// with `mode` → row, frac, direction, shown time and phase.
    pub fn sample(&self, mode: LoopMode, t: f64) -> ClipTime {
        self.sample_position(mode, self.position(t))
    }

    /// [`Self::sample`] of an unwrapped position (what the runtime keeps).
    pub fn sample_position(&self, mode: LoopMode, u: f64) -> ClipTime {
        let p = self.span.reduce(mode, u);
        let (q, direction) = self.span.shown(p);
        let f = self.frame(q);
        let period = self.span.period(mode);
        ClipTime {
            row: f.row,
            frac: f.frac,
            direction,
            time: self.time_of(q),
            phase: if period > 0.0 { p / period } else { 0.0 },
        }
    }
}

/// Whether frame times are uniform `k · d / (n − 1)` to within f32 rounding.
fn is_uniform(times: &[f32]) -> bool {
    let n = times.len();
    if n < 2 {
        return true;
    }
    let d = times[n - 1] as f64;
    times.iter().enumerate().all(|(k, &t)| {
        let u = (k as f64 * d / (n - 1) as f64) as f32;
        (t - u).abs() <= f32::EPSILON * d as f32 * 2.0
    })
}

// The uniform frame grid (docs/design.md §3 "Frame table"): clip c at `fps` gets
// `n = floor(d · fps + 1e-3) + 1` frames at `t_k = k · d / (n − 1)`, in f64.

/// Slack added before the floor: keeps `0.7 s × 30 fps` at 22 frames although 0.7 is stored as
/// 0.6999999881 in f32.
pub const FRAME_COUNT_EPSILON: f64 = 1e-3;

/// Frames of a clip of `duration` seconds at `fps`: `floor(d · fps + 1e-3) + 1`; a zero-length
/// (or non-positive) clip is 1 frame.
pub fn frame_count(duration: f64, fps: f64) -> u64 {
    // NaN counts as not positive.
    if duration.is_nan() || fps.is_nan() || duration <= 0.0 || fps <= 0.0 {
        return 1;
    }
    (duration * fps + FRAME_COUNT_EPSILON).floor() as u64 + 1
}

/// Clip time of frame `k` of `n` (seconds): `k · d / (n − 1)`, 0 for a one-frame clip. The last
/// frame is exactly `d`.
pub fn frame_time(k: u64, n: u64, duration: f64) -> f64 {
    if n <= 1 {
        0.0
    } else if k + 1 == n {
        duration
    } else {
        k as f64 * duration / (n - 1) as f64
    }
}

/// Step between frames `d / (n − 1)` (0 for one frame), seconds.
pub fn frame_step(n: u64, duration: f64) -> f64 {
    if n <= 1 {
        0.0
    } else {
        duration / (n - 1) as f64
    }
}

/// Local clip time of `t` seconds on a clip of `duration` seconds played with `mode` (for
/// evaluating a source clip at full rate, where there is no frame table): the shown time in
/// [0, duration] and the direction of play.
pub fn wrap_time(mode: LoopMode, duration: f64, t: f64) -> (f64, Direction) {
    Span::new(duration).wrap(mode, t)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An independent statement of the rules, in seconds, with `rem_euclid`.
    fn reference(mode: LoopMode, first: u32, n: u32, d: f64, t: f64) -> (u32, f64) {
        if n <= 1 || d <= 0.0 {
            return (first, 0.0);
        }
        let tau = match mode {
            LoopMode::Loop => t.rem_euclid(d),
            LoopMode::PingPong => {
                let m = t.rem_euclid(2.0 * d);
                if m > d {
                    2.0 * d - m
                } else {
                    m
                }
            }
            LoopMode::Once | LoopMode::Clamp => t.clamp(0.0, d),
        };
        let last = (n - 1) as f64;
        let p = tau * last / d;
        let k = p.floor();
        if k >= last {
            (first + n - 1, 0.0)
        } else {
            (first + k as u32, p - k)
        }
    }

    #[test]
    fn every_loop_mode_agrees_with_a_seconds_reference() {
        let c = ClipFrames::uniform(10, 22, 0.7);
        for mode in LoopMode::ALL {
            for i in -400..400 {
                let t = i as f64 * 0.0137 + 0.001;
                let s = c.sample(mode, t);
                let (row, frac) = reference(mode, 10, 22, 0.7, t);
                // equal except where the two roundings straddle a frame boundary
                let near = !(1e-9..=1.0 - 1e-9).contains(&frac);
                if !near {
                    assert_eq!(s.row, row, "{mode} t={t}");
                    assert!((s.frac as f64 - frac).abs() < 1e-6, "{mode} t={t}");
                }
                assert!((0.0..1.0).contains(&s.frac));
                assert!((0.0..=0.7).contains(&s.time));
                assert!((10..32).contains(&s.row));
            }
        }
    }

    #[test]
    fn clip_ends_and_directions() {
        let c = ClipFrames::uniform(1, 31, 1.0);
        // t = d: a loop shows frame 0 again, a one-shot holds the last frame, ping-pong turns
        assert_eq!(c.sample(LoopMode::Loop, 1.0).row, 1);
        for m in [LoopMode::Once, LoopMode::Clamp] {
            let s = c.sample(m, 1.0);
            assert_eq!((s.row, s.frac, s.time, s.phase), (31, 0.0, 1.0, 1.0));
            assert_eq!(c.sample(m, 5.0).row, 31);
            assert_eq!(c.sample(m, -5.0).row, 1);
        }
        let pp = c.sample(LoopMode::PingPong, 1.25);
        assert_eq!(pp.direction, Direction::Backward);
        assert!((pp.time - 0.75).abs() < 1e-12 && (pp.phase - 0.625).abs() < 1e-12);
        assert_eq!(
            c.sample(LoopMode::PingPong, 0.25).direction,
            Direction::Forward
        );
        // negative time runs the loop backward from its end
        let neg = c.sample(LoopMode::Loop, -0.25);
        assert!((neg.time - 0.75).abs() < 1e-12);
    }

    #[test]
    fn zero_length_clips_always_show_their_one_frame() {
        for c in [
            ClipFrames::uniform(5, 1, 0.0),
            ClipFrames::uniform(5, 1, 2.0),
            ClipFrames::uniform(5, 4, 0.0),
            ClipFrames::uniform(5, 4, f64::NAN),
        ] {
            for m in LoopMode::ALL {
                for t in [-1e300, -1.0, 0.0, 0.5, 1e300, f64::NAN, f64::INFINITY] {
                    let s = c.sample(m, t);
                    assert_eq!((s.row, s.frac, s.time, s.phase), (5, 0.0, 0.0, 0.0));
                }
            }
        }
    }

    #[test]
    fn huge_and_non_finite_times_stay_in_range() {
        let c = ClipFrames::uniform(1, 103, 3.4166666);
        for m in LoopMode::ALL {
            for t in [
                86_400.0 * 365.0,
                1e15,
                1e30,
                -1e30,
                f64::MAX,
                f64::MIN,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
            ] {
                let s = c.sample(m, t);
                assert!((1..=103).contains(&s.row), "{m} {t}: row {}", s.row);
                assert!((0.0..1.0).contains(&s.frac) && s.time.is_finite());
                assert!((0.0..=1.0).contains(&s.phase));
            }
        }
        // a day of looping keeps sub-microsecond time
        let day = 86_400.0 + 0.123;
        let s = c.sample(LoopMode::Loop, day);
        let expect = day.rem_euclid(3.4166666);
        assert!((s.time - expect).abs() < 1e-9, "{} vs {expect}", s.time);
    }

    #[test]
    fn the_last_frame_has_frac_zero_and_frac_stays_below_one() {
        let c = ClipFrames::uniform(1, 3, 1.0);
        assert_eq!(c.frame(2.0), FrameRef { row: 3, frac: 0.0 });
        assert_eq!(c.frame(7.0), FrameRef { row: 3, frac: 0.0 });
        assert_eq!(c.frame(-3.0), FrameRef { row: 1, frac: 0.0 });
        let just_below = 1.0 - 1e-12;
        assert!(c.frame(just_below).frac < 1.0);
        assert_eq!(c.last_row(), 3);
    }

    #[test]
    fn reduce_with_inverse_equals_reduce() {
        for len in [1.0, 21.0, 102.0, 0.333] {
            let span = Span::new(len);
            for m in LoopMode::ALL {
                let inv = 1.0 / span.period(m);
                for i in 0..20_000 {
                    let u = i as f64 * 0.7391 * len;
                    assert_eq!(
                        span.reduce_with_inverse(m, u, inv),
                        span.reduce(m, u),
                        "{m} {u}"
                    );
                }
            }
        }
    }

    #[test]
    fn listed_frames_find_the_interval_by_time() {
        // frames at 0, 0.125, 0.5, 0.625, 1.0 s (exact in f32)
        let c = ClipFrames::listed(7, &[0.0, 0.125, 0.5, 0.625, 1.0]);
        assert!(c.times.is_some());
        for (t, row, frac) in [
            (0.0, 7, 0.0),
            (0.0625, 7, 0.5),
            (0.125, 8, 0.0),
            (0.3125, 8, 0.5),
            (0.5625, 9, 0.5),
            (0.8125, 10, 0.5),
            (1.0, 11, 0.0),
        ] {
            let s = c.sample(LoopMode::Clamp, t);
            assert_eq!(s.row, row, "t={t}");
            assert!((s.frac as f64 - frac).abs() < 1e-5, "t={t}: {}", s.frac);
            assert!((s.time - t).abs() < 1e-12);
        }
        // loops wrap by time, ping-pong reflects by time
        assert_eq!(c.sample(LoopMode::Loop, 1.3).row, 8);
        let pp = c.sample(LoopMode::PingPong, 1.45);
        assert_eq!((pp.row, pp.direction), (9, Direction::Backward));
        assert_eq!(c.frame_time(2), 0.5);
        // a uniform list is stored as uniform
        let u = ClipFrames::listed(1, &[0.0, 0.25, 0.5, 0.75, 1.0]);
        assert!(u.times.is_none());
        assert_eq!(u, ClipFrames::uniform(1, 5, 1.0));
    }

    #[test]
    fn wrap_time_follows_the_same_rules_in_seconds() {
        assert!((wrap_time(LoopMode::Loop, 2.0, 5.0).0 - 1.0).abs() < 1e-12);
        assert_eq!(wrap_time(LoopMode::Once, 2.0, 5.0).0, 2.0);
        assert_eq!(
            wrap_time(LoopMode::PingPong, 2.0, 3.0),
            (1.0, Direction::Backward)
        );
        assert_eq!(wrap_time(LoopMode::Loop, 0.0, 5.0).0, 0.0);
    }

    /// The lookup only says where the search starts: for clips whose frames are spread evenly,
    /// packed densely in places and sparse in others, every time at a frame, between frames,
    /// at a bucket's edge and a hair either side of each gives the frame the binary search
    /// gives.
    #[test]
    fn the_frame_lookup_finds_what_the_binary_search_finds() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut unit = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut checked = 0;
        for clip in 0..40 {
            let n = 2 + (unit() * 120.0) as usize;
            let mut times = vec![0.0f32];
            for k in 1..n {
                // dense runs, wide gaps and everything between
                let gap = if clip % 3 == 0 && k % 13 < 10 {
                    1e-4
                } else {
                    0.001 + unit() * 0.3
                };
                times.push(times[k - 1] + gap as f32);
            }
            let listed = ClipFrames::listed(3, &times).with_lookup();
            let Some(lookup) = listed.lookup.clone() else {
                continue; // uniform within f32 precision
            };
            let searched = ClipFrames {
                lookup: None,
                ..listed.clone()
            };
            let mut probes: Vec<f64> = Vec::new();
            for &t in &times {
                let t = t as f64;
                probes.extend([t, t - 1e-7, t + 1e-7]);
            }
            for b in 0..lookup.first.len() {
                let edge = b as f64 / lookup.per_second;
                probes.extend([edge, edge - 1e-9, edge + 1e-9]);
            }
            probes.extend((0..200).map(|_| unit() * listed.duration));
            for tau in probes {
                let q = listed.position(tau.max(0.0));
                assert_eq!(listed.frame(q), searched.frame(q), "clip {clip}, τ {tau}");
                checked += 1;
            }
        }
        assert!(checked > 10_000, "{checked} times checked");
    }
}
