//! Clips prepared for playback, shared by both modes: the time rules of throng-contract
//! ([`ClipFrames`], [`throng_contract::Span`]) plus what only playback needs — event crossings
//! and root-motion deltas, in f64. [`ClipEvents`] (the crossing rule) is public: other players
//! of baked clips fire events by the same rule.
//!
//! Positions are measured in *frames* of the clip's own table (`p = τ · (n − 1) / d`,
//! docs/design.md §4). A layer's *unwrapped* position `U` only grows (speeds are ≥ 0); its loop
//! mode maps it to the shown position `q` ∈ [0, L] with `L = n − 1` by the contract's
//! `reduce` and `shown`. A zero-length clip (`L = 0`) always shows its one row.

use throng_asset::ClipInfo;
use throng_contract::{row_taps, ClipFrames, LoopMode, CLIP_PERIODIC, MODE_LOOP, MODE_PINGPONG};

/// Most laps of a looping (or ping-pong) clip whose events one step fires: the laps before them
/// are skipped, so a long step (a speed multiplier of 1e6) costs a bounded time. Far above any
/// real step (64 laps in a 1/60 s frame is 3,840 a second); the graph crate applies the same cap.
pub const MAX_LAPS: f64 = 64.0;

/// Laps past which a step fires no events at all: f64 positions that far apart no longer tell
/// one lap from the next (2^32 laps keeps them 2^21 apart below 2^53).
pub const MAX_STEP_LAPS: f64 = 4_294_967_296.0;

/// One clip prepared for playback.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The clip's name, as [`crate::PlaybackControl::clip`] finds it.
    pub name: String,
    /// The time rules' view of the clip.
    pub frames: ClipFrames,
    /// `L = n − 1` (frames), as f64.
    pub last: f64,
    /// Frames per second of clip time, `L / d` (0 for a zero-length clip).
    pub fps: f64,
    pub duration: f64,
    /// The clip table's loop mode, as its record code.
    pub mode: u32,
    /// Events on the clip's frame axis, with the crossing rule.
    pub events: ClipEvents,
    pub root_motion: Option<Vec<[f32; 3]>>,
    /// The clip's row-interpolation flags as [`throng_contract::row_taps`] reads them, less
    /// `CLIP_PERIODIC`: the root-motion curve runs on across a loop's seam (its last frame is
    /// the first moved by one cycle), so its outer taps repeat the end frame rather than wrap.
    pub root_taps_flags: u32,
    /// An additive clip (its layers are overlays, docs/design.md §4).
    pub additive: bool,
}

impl Prepared {
    pub fn new(c: &ClipInfo) -> Prepared {
        let frames = c.frames_table().with_lookup();
        let (last, fps) = (frames.last(), frames.rate);
        let events = ClipEvents::with_frames(c, &frames);
        let root_motion = c
            .root_motion
            .as_ref()
            .filter(|r| !r.is_empty() && r.iter().any(|v| *v != [0.0; 3]))
            .cloned();
        Prepared {
            name: c.name.clone(),
            last,
            fps,
            duration: frames.duration,
            frames,
            mode: c.loop_mode.code(),
            events,
            root_motion,
            root_taps_flags: c.gpu_flags() & !CLIP_PERIODIC,
            additive: c.additive.is_some(),
        }
    }

    pub fn is_static(&self) -> bool {
        self.frames.is_static()
    }

    /// Length of one period of the unwrapped position (frames).
    pub fn period(&self, mode: u32) -> f64 {
        self.frames.span.period(LoopMode::from_code(mode))
    }

    /// Reduces an unwrapped position into the period (the contract's `Span::reduce`).
    pub fn reduce(&self, mode: u32, u: f64) -> f64 {
        self.frames.span.reduce(LoopMode::from_code(mode), u)
    }

    /// [`Self::reduce`] with `1 / period` given (the contract's `Span::reduce_with_inverse`).
    #[inline]
    pub fn reduce_with_inverse(&self, mode: u32, u: f64, inv: f64) -> f64 {
        self.frames
            .span
            .reduce_with_inverse(LoopMode::from_code(mode), u, inv)
    }

    /// Shown position `q` ∈ [0, L] of a reduced position.
    #[inline]
    pub fn shown(&self, p: f64) -> f64 {
        self.frames.span.shown(p).0
    }

    /// Global row and fraction of a shown position (the contract's `ClipFrames::frame`).
    #[inline]
    pub fn frame(&self, q: f64) -> (u32, f32) {
        let f = self.frames.frame(q);
        (f.row, f.frac)
    }
    /// The first position ≥ `p` (reduced, same period) at which the slow path must run: the
    /// next event crossing or the period end. `f64::INFINITY` when nothing can happen.
    pub fn next_mark(&self, mode: u32, p: f64, finished: bool) -> f64 {
        if finished {
            return f64::INFINITY;
        }
        if self.is_static() {
            return 0.0;
        }
        let period = self.period(mode);
        let mut m = period;
        for &(e, _) in self.events.positions() {
            if e >= p {
                m = m.min(e);
                break;
            }
        }
        if mode == MODE_PINGPONG {
            for &(e, _) in self.events.positions().iter().rev() {
                let c = period - e;
                if c >= p {
                    m = m.min(c);
                    break;
                }
            }
        }
        m
    }

    /// GPU-timed mode: the smallest unwrapped position ≥ `u` at which the CPU must act — the
    /// next event crossing, or a one-shot's end `L`. `None` when nothing will ever happen.
    pub fn next_event_u(&self, mode: u32, u: f64) -> Option<f64> {
        if self.is_static() {
            return None;
        }
        let l = self.last;
        match mode {
            MODE_LOOP | MODE_PINGPONG => {
                let first = self.events.positions().first()?.0;
                let period = self.period(mode);
                let r = self.reduce(mode, u);
                let base = u - r;
                let mut best = f64::INFINITY;
                for &(e, _) in self.events.positions() {
                    if e >= r {
                        best = best.min(e);
                    }
                    if mode == MODE_PINGPONG && period - e >= r {
                        best = best.min(period - e);
                    }
                }
                if best.is_finite() {
                    Some(base + best)
                } else {
                    Some(base + period + first)
                }
            }
            _ => {
                if u >= l {
                    return Some(u);
                }
                let e = self
                    .events
                    .positions()
                    .iter()
                    .map(|e| e.0)
                    .find(|&e| e >= u && e < l)
                    .unwrap_or(l);
                Some(e)
            }
        }
    }

    /// The crossing rule ([`ClipEvents::crossings`]) with the mode as its record code.
    pub fn crossings(&self, mode: u32, u0: f64, u1: f64, fresh: bool, out: &mut Vec<(f64, u32)>) {
        self.events
            .crossings(LoopMode::from_code(mode), u0, u1, fresh, out);
    }

    /// Root-motion transform `G(q)` at shown position q: the per-frame curve read at the row
    /// taps the skinning reads there ([`throng_contract::row_taps`]; a lerp on a linear clip),
    /// so the character travels along the curve its pose follows.
    fn rm_at(&self, q: f64) -> Rm {
        let Some(c) = &self.root_motion else {
            return Rm::IDENTITY;
        };
        let n = c.len();
        // the time rules place q between two frames (by time, for a frame-time list)
        let f = self.frames.frame(q);
        let first = self.frames.first_row;
        let last = first + (n as u32 - 1);
        let row = f.row.clamp(first, last);
        let taps = row_taps(
            first,
            last,
            row,
            (row + 1).min(last),
            f.frac,
            self.root_taps_flags,
        );
        let mut g = [0.0f32; 3];
        for (r, w) in taps.iter() {
            let v = c[(r - first) as usize];
            for (g, v) in g.iter_mut().zip(v) {
                *g += w * v;
            }
        }
        Rm {
            x: g[0],
            z: g[1],
            yaw: g[2],
        }
    }

    /// Motion `G(a)⁻¹ · G(b)` between two shown positions.
    fn rm_between(&self, a: f64, b: f64) -> Rm {
        self.rm_at(a).inverse().then(&self.rm_at(b))
    }

    /// Root motion of playing from unwrapped u0 to u1 (u1 unclamped), in the character's frame
    /// at u0. Loops compose the partial segments and whole cycles; a whole ping-pong cycle
    /// returns to its start and contributes nothing.
    pub fn root_delta(&self, mode: u32, u0: f64, u1: f64) -> Rm {
        if self.root_motion.is_none() || self.is_static() || u1 <= u0 {
            return Rm::IDENTITY;
        }
        let l = self.last;
        match mode {
            MODE_LOOP => {
                let c0 = (u0 / l).floor();
                let c1 = (u1 / l).floor();
                let q0 = u0 - c0 * l;
                let q1 = u1 - c1 * l;
                if c1 <= c0 {
                    return self.rm_between(q0, q1);
                }
                let head = self.rm_between(q0, l);
                let full = self.rm_between(0.0, l);
                let cycles = (c1 - c0 - 1.0) as u64;
                head.then(&full.pow(cycles)).then(&self.rm_between(0.0, q1))
            }
            MODE_PINGPONG => {
                // walk the half-cycles between u0 and u1, skipping whole cycles
                let p = 2.0 * l;
                let whole = ((u1 - u0) / p).floor();
                let u1 = u1 - whole * p;
                let mut acc = Rm::IDENTITY;
                let mut u = u0;
                while u < u1 {
                    let half = (u / l).floor();
                    let seg_end = ((half + 1.0) * l).min(u1);
                    let a = self.shown(self.reduce(mode, u));
                    let b_red = if seg_end >= (half + 1.0) * l {
                        // the turn itself: forward half ends at L, backward half at 0
                        if (half as i64) % 2 == 0 {
                            l
                        } else {
                            0.0
                        }
                    } else {
                        self.shown(self.reduce(mode, seg_end))
                    };
                    acc = acc.then(&self.rm_between(a, b_red));
                    u = seg_end;
                }
                acc
            }
            _ => self.rm_between(u0.min(l), u1.min(l)),
        }
    }
}

/// A clip's events placed on its frame axis, and the rule that fires each of them exactly once
/// per crossing of a play interval (docs/design.md §4). The one definition of that rule: the
/// runtime's CPU- and GPU-timed updates use it, and so does every other player of baked clips
/// (throng-graph's state machines).
///
/// Positions are frames of the clip's own table, `U = τ · (n − 1) / d` for clip time τ
/// (seconds); an *unwrapped* position only grows, whatever the loop mode shows.
#[derive(Debug, Clone, Default)]
pub struct ClipEvents {
    /// (frame position in [0, L], index into `ClipInfo::events`), sorted by position.
    list: Vec<(f64, u32)>,
    /// `L = n − 1`, frames.
    last: f64,
    /// A zero-length clip: it plays as a one-shot.
    is_static: bool,
}

impl ClipEvents {
    /// The events of clip `c` of a clip table.
    pub fn new(c: &ClipInfo) -> ClipEvents {
        ClipEvents::with_frames(c, &c.frames_table())
    }

    fn with_frames(c: &ClipInfo, frames: &ClipFrames) -> ClipEvents {
        let (last, fps) = (frames.last(), frames.rate);
        let zero = frames.is_static();
        let mut list: Vec<(f64, u32)> = c
            .events
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let t = e.time as f64;
                // Event times are f32 in the file; snap those within f32 precision of the ends
                // so that an event authored at d really sits at the end.
                let p = if zero || t <= c.duration * 1e-6 {
                    0.0
                } else if (t - c.duration).abs() <= c.duration * 1e-6 {
                    last
                } else {
                    (t * fps).clamp(0.0, last)
                };
                (p, i as u32)
            })
            .collect();
        list.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        ClipEvents {
            list,
            last,
            is_static: zero,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// (frame position in [0, L], index into `ClipInfo::events`), sorted by position.
    pub fn positions(&self) -> &[(f64, u32)] {
        &self.list
    }

    /// `L = n − 1`: the clip's last frame position.
    pub fn last(&self) -> f64 {
        self.last
    }

    /// Writes to `out` (cleared first) `(U, event index)` for every crossing in the half-open
    /// play interval [u0, u1) of unwrapped positions (u1 unclamped), ordered by U. Loop: every
    /// `e + k·L`; ping-pong: every `e + k·2L` and, on the way back, `2L − e + k·2L`. Once and
    /// clamp (and a zero-length clip in any mode): the interval is cut at L and closed there
    /// (an event at d fires when the end is reached), and nothing fires past it; `fresh` marks
    /// a layer's first advance, so a clip started at its end (or a zero-length clip) still
    /// fires its end events. An interval with u1 < u0 fires nothing. A looping step fires the
    /// crossings of its last [`MAX_LAPS`] laps only, and one of more than [`MAX_STEP_LAPS`]
    /// laps (or to a non-finite position) fires none: the cost of a step stays bounded.
    pub fn crossings(
        &self,
        mode: LoopMode,
        u0: f64,
        u1: f64,
        fresh: bool,
        out: &mut Vec<(f64, u32)>,
    ) {
        out.clear();
        if self.list.is_empty() || u1 < u0 {
            return;
        }
        let l = self.last;
        let clamp_like = self.is_static || matches!(mode, LoopMode::Once | LoopMode::Clamp);
        if clamp_like {
            let end = u1.min(l);
            for &(e, i) in &self.list {
                let hit =
                    (u0 <= e && e < end) || (e >= l && u1 >= l && (u0 < l || (fresh && u0 <= l)));
                if hit {
                    out.push((e, i));
                }
            }
            return;
        }
        if !u1.is_finite() || (u1 - u0) / l > MAX_STEP_LAPS {
            // A runaway step (a speed of 1e30, a clock jump) fires nothing: its laps cannot be
            // told apart in f64, and enumerating them would not end.
            return;
        }
        let push_series = |c0: f64, period: f64, i: u32, out: &mut Vec<(f64, u32)>| {
            // crossings c0 + k·period in [u0, u1), of the last MAX_LAPS laps at most
            let first = ((u0 - c0) / period).ceil() - 1.0;
            let mut k = first.max(((u1 - c0) / period).floor() - MAX_LAPS - 1.0);
            for _ in 0..(MAX_LAPS as usize + 3) {
                let c = c0 + k * period;
                if c >= u1 {
                    break;
                }
                if c >= u0 {
                    out.push((c, i));
                }
                k += 1.0;
            }
        };
        if mode == LoopMode::PingPong {
            for &(e, i) in &self.list {
                push_series(e, 2.0 * l, i, out);
                // the way back; at the turns (e = 0 or e = L) both series coincide
                if e > 0.0 && e < l {
                    push_series(2.0 * l - e, 2.0 * l, i, out);
                }
            }
        } else {
            for &(e, i) in &self.list {
                push_series(e, l, i, out);
            }
        }
        out.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    }
}

/// Planar rigid motion `T(x, 0, z) · R_y(yaw)` (file units, radians about +Y).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rm {
    pub x: f32,
    pub z: f32,
    pub yaw: f32,
}

impl Rm {
    pub const IDENTITY: Rm = Rm {
        x: 0.0,
        z: 0.0,
        yaw: 0.0,
    };

    /// R_y(yaw) applied to (x, z): right-handed rotation about +Y.
    fn rotate(yaw: f32, x: f32, z: f32) -> (f32, f32) {
        let (s, c) = yaw.sin_cos();
        (c * x + s * z, -s * x + c * z)
    }

    /// `self · o`.
    pub fn then(&self, o: &Rm) -> Rm {
        let (x, z) = Rm::rotate(self.yaw, o.x, o.z);
        Rm {
            x: self.x + x,
            z: self.z + z,
            yaw: self.yaw + o.yaw,
        }
    }

    pub fn inverse(&self) -> Rm {
        let (x, z) = Rm::rotate(-self.yaw, -self.x, -self.z);
        Rm {
            x,
            z,
            yaw: -self.yaw,
        }
    }

    pub fn pow(&self, mut k: u64) -> Rm {
        let mut base = *self;
        let mut acc = Rm::IDENTITY;
        while k > 0 {
            if k & 1 == 1 {
                acc = acc.then(&base);
            }
            base = base.then(&base);
            k >>= 1;
        }
        acc
    }

    pub fn to_affine(self) -> glam::Affine3A {
        glam::Affine3A::from_translation(glam::Vec3::new(self.x, 0.0, self.z))
            * glam::Affine3A::from_rotation_y(self.yaw)
    }
}
