//! Hand-built clip tables (the baker is separate; these follow docs/design.md §3's formulas).
#![allow(dead_code)]

use throng_asset::{ClipInfo, Layer, LoopMode};
use throng_runtime::{
    ClipId, CpuRuntime, Handle, Instance, InstanceTransform, PlayOptions, PlaybackControl,
};

/// A CPU runtime over `clips` with one instance at the origin playing `clip`.
pub fn one(clips: &[ClipInfo], clip: usize, opts: PlayOptions) -> (CpuRuntime, Handle) {
    let mut rt = CpuRuntime::new(clips);
    let h = rt.spawn(InstanceTransform::IDENTITY);
    rt.instance(h).play(ClipId::new(clip), opts).unwrap();
    (rt, h)
}

/// `n` instances at the origin, instance i playing the (clip, options) `play(i)` gives.
pub fn spawn_playing(
    rt: &mut impl PlaybackControl,
    n: usize,
    play: impl Fn(usize) -> (usize, PlayOptions),
) -> Vec<Handle> {
    (0..n)
        .map(|i| {
            let h = rt.spawn(InstanceTransform::IDENTITY);
            let (clip, opts) = play(i);
            Instance::of(rt, h).play(ClipId::new(clip), opts).unwrap();
            h
        })
        .collect()
}

/// A clip of duration `d` sampled at `fps`: `n = floor(d·fps + 1e-3) + 1` frames, an event
/// `e{i}` at each of `events` (seconds), a unit box.
pub fn clip(first_row: u32, d: f64, fps: f64, mode: LoopMode, events: &[f32]) -> ClipInfo {
    throng_runtime::testing::synthetic_clip(
        &format!("clip@{first_row}"),
        first_row,
        d,
        fps,
        mode,
        events,
    )
}

/// Clips laid out one after another from row 1 (row 0 = rest).
pub fn table(specs: &[(f64, LoopMode, &[f32])]) -> Vec<ClipInfo> {
    let mut row = 1;
    specs
        .iter()
        .map(|&(d, m, e)| {
            let c = clip(row, d, 30.0, m, e);
            row += c.frames;
            c
        })
        .collect()
}

/// Expected (row, frac) of clip time `t` under a loop mode, computed here in seconds (f64)
/// independently of the contract's time rules.
pub fn expected(c: &ClipInfo, mode: LoopMode, t: f64) -> (u32, f32) {
    let d = c.duration;
    let tau = if d <= 0.0 {
        0.0
    } else {
        match mode {
            LoopMode::Loop => t.rem_euclid(d),
            LoopMode::Once | LoopMode::Clamp => t.min(d),
            LoopMode::PingPong => {
                let m = t.rem_euclid(2.0 * d);
                if m <= d {
                    m
                } else {
                    2.0 * d - m
                }
            }
        }
    };
    if c.frames <= 1 || d <= 0.0 {
        return (c.first_row, 0.0);
    }
    let last = (c.frames - 1) as f64;
    let p = (tau * last / d).clamp(0.0, last);
    let fl = p.floor();
    if fl >= last {
        return (c.first_row + c.frames - 1, 0.0);
    }
    (c.first_row + fl as u32, (p - fl) as f32)
}

/// Frames of one loop of `c` under `mode` (0 when the mode does not loop): a difference of
/// that many frames is the same instant.
pub fn loop_period(c: &ClipInfo, mode: LoopMode) -> f64 {
    if mode == LoopMode::Loop {
        (c.frames - 1) as f64
    } else {
        0.0
    }
}

/// Asserts a layer shows (row, frac) up to `tol` in frames, treating row r frac ~1 as r+1 frac 0.
pub fn assert_frame(got: &Layer, want: (u32, f32), tol: f32, what: &str) {
    assert_frame_wrap(got, want, tol, 0.0, what)
}

/// As [`assert_frame`], also accepting a difference of ± `period` frames (a loop's end and
/// start are the same instant).
pub fn assert_frame_wrap(got: &Layer, want: (u32, f32), tol: f32, period: f64, what: &str) {
    let (got_row, got_frac) = (got.row, got.frac);
    let g = got_row as f64 + got_frac as f64;
    let w = want.0 as f64 + want.1 as f64;
    let d = (g - w).abs();
    let d = if period > 0.0 {
        d.min((d - period).abs())
    } else {
        d
    };
    assert!(
        d <= tol as f64,
        "{what}: got row {got_row} frac {got_frac}, want row {} frac {}",
        want.0,
        want.1
    );
}
