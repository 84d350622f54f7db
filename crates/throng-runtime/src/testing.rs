//! Clip tables made in code, for what has no asset to play: the runtime's tests, the criterion
//! benches (this crate's and throng-render's) and the bench harness (throng-bench) when it is
//! given no asset.

use throng_asset::{Aabb, ClipEvent, ClipInfo, LoopMode};

/// A clip of `d` seconds of uniform frames at `fps` from frame-table row `first_row`, with an
/// event `e{i}` at each of `events` (seconds) and a unit box as bounds: what the benchmarks and
/// the runtime's tests play.
pub fn synthetic_clip(
    name: &str,
    first_row: u32,
    d: f64,
    fps: f64,
    mode: LoopMode,
    events: &[f32],
) -> ClipInfo {
    let mut c = ClipInfo::uniform(name, first_row, d, fps, mode);
    c.events = events
        .iter()
        .enumerate()
        .map(|(i, &t)| ClipEvent {
            time: t,
            name: format!("e{i}"),
        })
        .collect();
    c.bounds = Aabb {
        min: glam::Vec3::splat(-1.0),
        max: glam::Vec3::splat(1.0),
    };
    c
}

/// A built-in clip table: looping walk (1.0 s), run (0.7 s), idle (2.0 s) and ping-pong sway
/// (1.2 s), plus a one-shot wave (1.5 s) with one event, at 30 fps, no root motion.
pub fn synthetic_clips() -> Vec<ClipInfo> {
    let specs: [(&str, f64, LoopMode, &[f32]); 5] = [
        ("walk", 1.0, LoopMode::Loop, &[]),
        ("run", 0.7, LoopMode::Loop, &[]),
        ("idle", 2.0, LoopMode::Loop, &[]),
        ("sway", 1.2, LoopMode::PingPong, &[]),
        ("wave", 1.5, LoopMode::Once, &[0.75]),
    ];
    let mut row = 1;
    specs
        .iter()
        .map(|&(name, d, mode, ev)| {
            let c = synthetic_clip(name, row, d, 30.0, mode, ev);
            row += c.frames;
            c
        })
        .collect()
}
