//! The frame table's time grid (docs/design.md §3 "Frame table"): row 0 is the rest pose, then clip c
//! at `fps` gets `n_c = floor(d_c · fps + 1e-3) + 1` frames at `t_k = k · d_c / (n_c − 1)`.
//! All arithmetic in f64 so the counts are the documented ones (0.7 s × 30 fps = 22 frames).

use throng_anim::Clip;

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

/// Rates that exporters use; an estimated key rate within 1 % of one of them snaps to it.
pub const COMMON_RATES: [f64; 9] = [12.0, 15.0, 24.0, 25.0, 30.0, 48.0, 50.0, 60.0, 120.0];
/// Below this the key rate is multiplied up (keeping every key on a sample) so that the matrix
/// interpolation between rows stays close to the source's slerp.
pub const AUTO_MIN_FPS: f64 = 24.0;
/// Auto never picks more than this.
pub const AUTO_MAX_FPS: f64 = 240.0;

/// The source's key rate of `clip` (keys per second) estimated from its key times: the most
/// common key interval over all channels (intervals rounded to 0.1 ms, ties → the shorter
/// interval), as a rate snapped to [`COMMON_RATES`] within 1 %, else rounded to the nearest
/// integer. `None` when no channel has two keys.
pub fn key_rate(clip: &Clip) -> Option<f64> {
    let mut counts: std::collections::BTreeMap<u64, usize> = Default::default();
    for ch in &clip.channels {
        for w in ch.times.windows(2) {
            let dt = (w[1] as f64) - (w[0] as f64);
            if dt > 1e-5 {
                *counts.entry((dt * 1e4).round() as u64).or_default() += 1;
            }
        }
    }
    // BTreeMap iterates shortest interval first; keep the first maximum.
    let (bucket, _) = counts
        .iter()
        .fold(None::<(u64, usize)>, |best, (&b, &c)| match best {
            Some((_, bc)) if bc >= c => best,
            _ => Some((b, c)),
        })?;
    if bucket == 0 {
        return None;
    }
    let rate = 1e4 / bucket as f64;
    let snapped = COMMON_RATES
        .iter()
        .copied()
        .find(|r| ((rate - r) / r).abs() <= 0.01)
        .unwrap_or_else(|| rate.round().max(1.0));
    Some(snapped)
}

/// `fps: auto` for one clip: the key rate ([`key_rate`]) — multiplied by the smallest integer
/// that brings it to at least [`AUTO_MIN_FPS`], so keys stay on samples (docs/design.md §7 shows that
/// sampling off the key grid costs fidelity) — capped at [`AUTO_MAX_FPS`]; 30 fps when the clip
/// has no key interval. Returns (fps, key rate).
pub fn auto_fps(clip: &Clip) -> (f64, Option<f64>) {
    match key_rate(clip) {
        None => (crate::options::DEFAULT_FPS, None),
        Some(r) => {
            let mult = (AUTO_MIN_FPS / r).ceil().max(1.0);
            ((r * mult).min(AUTO_MAX_FPS), Some(r))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use throng_anim::{Channel, ChannelValues, Interpolation};

    #[test]
    fn counts_follow_the_formula() {
        assert_eq!(frame_count(0.7f32 as f64, 30.0), 22);
        assert_eq!(frame_count(0.0, 30.0), 1);
        assert_eq!(frame_count(1.0, 30.0), 31);
        assert_eq!(frame_count(2.0, 24.0), 49);
        assert_eq!(frame_time(21, 22, 0.7), 0.7);
        assert_eq!(frame_time(0, 22, 0.7), 0.0);
        assert_eq!(frame_time(0, 1, 0.0), 0.0);
    }

    fn clip_with_times(times: Vec<f32>) -> Clip {
        let n = times.len();
        Clip {
            name: "c".into(),
            duration: *times.last().unwrap_or(&0.0),
            channels: vec![Channel {
                node: 0,
                interpolation: Interpolation::Linear,
                times,
                values: ChannelValues::Translation(vec![glam::Vec3::ZERO; n]),
            }],
            loop_mode: Default::default(),
            events: vec![],
            skipped_morph_channels: 0,
        }
    }

    #[test]
    fn auto_fps_finds_key_rates() {
        let c24 = clip_with_times((0..49).map(|k| k as f32 / 24.0).collect());
        assert_eq!(auto_fps(&c24), (24.0, Some(24.0)));
        let c30 = clip_with_times((1..31).map(|k| k as f32 / 30.0).collect());
        assert_eq!(auto_fps(&c30), (30.0, Some(30.0)));
        // Sparse keys (2 per second) get a multiple of the key rate of at least 24.
        let c2 = clip_with_times((0..5).map(|k| k as f32 * 0.5).collect());
        assert_eq!(auto_fps(&c2), (24.0, Some(2.0)));
        let c0 = clip_with_times(vec![0.0]);
        assert_eq!(auto_fps(&c0), (30.0, None));
    }
}
