//! Sample rates of the bake (docs/design.md §3 "Frame table"): the source's key rate and the
//! `auto` rate. The uniform frame grid itself — clip c at `fps` gets `n_c = floor(d_c · fps +
//! 1e-3) + 1` frames at `t_k = k · d_c / (n_c − 1)`, in f64 so that 0.7 s × 30 fps is 22 frames —
//! is the contract's time rule (`throng_contract::time`), re-exported here.

use throng_anim::Clip;

pub use throng_contract::time::{frame_count, frame_step, frame_time, FRAME_COUNT_EPSILON};

/// Rates that exporters use; an estimated key rate within 1 % of one of them snaps to it.
pub const COMMON_RATES: [f64; 9] = [12.0, 15.0, 24.0, 25.0, 30.0, 48.0, 50.0, 60.0, 120.0];
/// Below this the key rate is multiplied up (keeping every key on a sample) so that the matrix
/// interpolation between rows stays close to the source's slerp.
pub const AUTO_MIN_FPS: f64 = 24.0;
/// Auto never picks more than this.
pub const AUTO_MAX_FPS: f64 = 240.0;

/// Duration of a clip in seconds as the frame table uses it (0 for a non-finite or negative
/// one, which then gets one frame).
pub fn clip_duration(clip: &Clip) -> f64 {
    if clip.duration.is_finite() && clip.duration > 0.0 {
        clip.duration as f64
    } else {
        0.0
    }
}

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

/// Frame times of a clip of `duration` seconds on the source's own keys (`--fps auto`): 0, every
/// key time of every channel inside `(0, d)`, and `d`, in f32 (the file's precision), increasing.
/// Keys closer than `1 / AUTO_MAX_FPS` to the previous kept time are merged into it; a gap longer
/// than `1 / AUTO_MIN_FPS` is split evenly so the matrix lerp between rows stays close to the
/// source's slerp (docs/design.md §7). `[0]` for a zero-length clip.
pub fn key_times(clip: &Clip, duration: f64) -> Vec<f32> {
    let d = duration as f32;
    if duration <= 0.0 || !duration.is_finite() {
        return vec![0.0];
    }
    let mut keys: Vec<f32> = clip
        .channels
        .iter()
        .flat_map(|c| c.times.iter().copied())
        .filter(|t| t.is_finite() && *t > 0.0 && *t < d)
        .collect();
    keys.sort_by(f32::total_cmp);
    let min_gap = (1.0 / AUTO_MAX_FPS) as f32;
    let mut out = vec![0.0f32];
    for t in keys.into_iter().chain(std::iter::once(d)) {
        let last = *out.last().unwrap_or(&0.0);
        if t == d {
            // The end always stays; a key just before it gives way.
            if d - last < min_gap && out.len() > 1 {
                out.pop();
            }
        } else if t - last < min_gap {
            continue;
        }
        let prev = *out.last().unwrap_or(&0.0) as f64;
        let gap = t as f64 - prev;
        let parts = (gap * AUTO_MIN_FPS - FRAME_COUNT_EPSILON).ceil().max(1.0) as u64;
        for i in 1..parts {
            out.push((prev + gap * i as f64 / parts as f64) as f32);
        }
        out.push(t);
    }
    out.dedup();
    out
}

/// Whether `times` (increasing, first 0) are the uniform grid of [`frame_time`] for their count
/// and last time, to within 1 µs: then the clip is stored as a uniform one.
pub fn is_uniform(times: &[f32]) -> bool {
    let n = times.len() as u64;
    let d = *times.last().unwrap_or(&0.0) as f64;
    times
        .iter()
        .enumerate()
        .all(|(k, &t)| (t as f64 - frame_time(k as u64, n, d)).abs() <= 1e-6)
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

    #[test]
    fn key_times_follow_irregular_keys() {
        // Keys 1/24 s apart, then a 0.2 s jump to the end (Fox Walk's pattern): every key is a
        // frame and the long gap is split to at least 24 per second.
        let mut t: Vec<f32> = (0..17).map(|k| k as f32 / 24.0).collect();
        t.push(t[16] + 0.2);
        let c = clip_with_times(t.clone());
        let kt = key_times(&c, c.duration as f64);
        assert!(t.iter().all(|k| kt.contains(k)), "{kt:?}");
        assert!(kt
            .windows(2)
            .all(|w| w[1] > w[0] && w[1] - w[0] <= 1.0 / 24.0 + 1e-6));
        assert_eq!((kt[0], *kt.last().unwrap()), (0.0, c.duration));
        assert!(!is_uniform(&kt));
        // Even keys stay a uniform clip.
        let even = clip_with_times((0..49).map(|k| k as f32 / 24.0).collect());
        let kt = key_times(&even, even.duration as f64);
        assert_eq!(kt.len(), 49);
        assert!(is_uniform(&kt));
        assert_eq!(key_times(&even, 0.0), vec![0.0]);
        // Dense keys merge to at most 240 per second.
        let dense = clip_with_times((0..1001).map(|k| k as f32 / 1000.0).collect());
        let kt = key_times(&dense, 1.0);
        assert!(
            kt.windows(2).all(|w| w[1] - w[0] >= 1.0 / 240.0 - 1e-6),
            "{kt:?}"
        );
    }
}
