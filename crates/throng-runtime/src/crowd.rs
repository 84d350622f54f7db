//! Crowds for tools, viewers and examples: where instances stand ([`layout`]: a square grid or
//! seeded random spots) and what each plays ([`assign`]: one clip with a stagger, or a seeded
//! mix of clips and phases), started in either runtime through [`PlaybackControl`]
//! ([`start`]). The command line's `render`, the demo and the viewer build their crowds here,
//! so the same flags give the same crowd everywhere. Seeded: the same seed gives the same
//! crowd on every run and machine.

use glam::{Mat4, Quat, Vec3};
use throng_asset::{Aabb, ClipInfo};
use throng_contract::{InstanceTransform, LoopMode};

use crate::{ClipId, Handle, Instance, PlayOptions, PlaybackControl, Runtime, RuntimeError};

/// SplitMix64 (Steele, Lea & Flood 2014, "Fast splittable pseudorandom number generators"): a
/// tiny seeded generator, so crowds need no random-number crate and are reproducible.
#[derive(Debug, Clone)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, (lo, hi): (f64, f64)) -> f64 {
        lo + (hi - lo) * self.unit()
    }
}

/// Where instances stand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Layout {
    /// A square grid in the XZ plane centred on the origin, every instance facing +Z.
    #[default]
    Grid,
    /// Seeded random spots over the grid's area, each with a random heading about +Y.
    Random,
}

/// Grid spacing for a model of `bounds`: 1.2 × its larger horizontal extent (file units).
pub fn spacing(bounds: &Aabb) -> f32 {
    if bounds.is_empty() {
        return 1.0;
    }
    let e = bounds.max - bounds.min;
    (e.x.max(e.z) * 1.2).max(1e-3)
}

/// Transforms of `n` instances `spacing` apart (file units).
pub fn layout(n: u32, layout: Layout, spacing: f32, seed: u64) -> Vec<InstanceTransform> {
    match layout {
        Layout::Grid => grid(n, spacing),
        Layout::Random => {
            let mut rng = SplitMix64(seed ^ 0x5eed_1a70);
            let side = (n as f32).sqrt().ceil().max(1.0) * spacing;
            (0..n)
                .map(|_| {
                    let x = (rng.unit() as f32 - 0.5) * side;
                    let z = (rng.unit() as f32 - 0.5) * side;
                    let yaw = rng.unit() as f32 * std::f32::consts::TAU;
                    InstanceTransform::from_mat4(&Mat4::from_rotation_translation(
                        Quat::from_rotation_y(yaw),
                        Vec3::new(x, 0.0, z),
                    ))
                })
                .collect()
        }
    }
}

/// Instance transforms on a square grid in the XZ plane, `spacing` apart, centred on the
/// origin.
pub fn grid(n: u32, spacing: f32) -> Vec<InstanceTransform> {
    let cols = (n as f32).sqrt().ceil().max(1.0) as u32;
    let rows = n.div_ceil(cols);
    (0..n)
        .map(|i| {
            let x = (i % cols) as f32 - (cols - 1) as f32 * 0.5;
            let z = (i / cols) as f32 - (rows - 1) as f32 * 0.5;
            InstanceTransform::from_mat4(&Mat4::from_translation(Vec3::new(x, 0.0, z) * spacing))
        })
        .collect()
}

/// What the instances of a crowd play.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClipMix {
    /// `Some(c)`: every instance plays clip c; `None` with `mix`: a seeded mix of all clips;
    /// `None` without: the rest pose.
    pub clip: Option<usize>,
    /// Each instance picks its own clip (and a random phase within it).
    pub mix: bool,
    /// Seconds of clip time between consecutive instances (by global instance index).
    pub stagger: f64,
    /// Add a seeded random phase in [0, clip duration) to every instance.
    pub random_phase: bool,
    pub seed: u64,
}

/// What one instance plays: its clip (None = rest pose) and the seconds added to the crowd's
/// time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Assignment {
    pub clip: Option<usize>,
    pub phase: f64,
}

/// Clips and phases of the instances `ids` (global instance indices, for the stagger);
/// `durations[c]` = clip c's duration in seconds.
pub fn assign(mix: &ClipMix, ids: &[u32], durations: &[f64]) -> Vec<Assignment> {
    let mut rng = SplitMix64(mix.seed);
    let mixed = mix.mix && !durations.is_empty();
    ids.iter()
        .map(|&i| {
            let c = if mixed {
                Some((rng.next_u64() % durations.len() as u64) as usize)
            } else {
                mix.clip
            };
            let d = c.and_then(|c| durations.get(c)).copied().unwrap_or(0.0);
            let random = if mixed || mix.random_phase {
                rng.unit() * d
            } else {
                0.0
            };
            Assignment {
                clip: c,
                phase: i as f64 * mix.stagger + random,
            }
        })
        .collect()
}

/// Global instance indices of input `a` of `k` sharing one layout: instance i belongs to input
/// i mod k.
pub fn ids_of(a: usize, k: usize, instances: u32) -> Vec<u32> {
    (a as u32..instances).step_by(k.max(1)).collect()
}

/// A runtime of `timing` for `clips` with one instance per assignment at its transform, each
/// started at crowd time `time` seconds as [`start`] starts it (`blend` likewise): the crowd
/// `render`, the viewer and the benches play.
pub fn new_runtime(
    timing: throng_contract::Timing,
    clips: &[ClipInfo],
    assignments: &[Assignment],
    transforms: &[InstanceTransform],
    time: f64,
    blend: Option<(usize, f32)>,
) -> Result<Runtime, RuntimeError> {
    let mut rt = Runtime::new(timing, clips);
    for (a, t) in assignments.iter().zip(transforms) {
        start(&mut rt, clips, a, *t, time, blend)?;
    }
    rt.clear_changes();
    Ok(rt)
}

/// Spawns one instance at `transform` showing what `a` assigns at crowd time `time` seconds
/// (any sign: the clip's loop mode wraps or holds it by the time rules). With `blend = Some((b,
/// w))` it blends its clip with clip `b` at weight `w` in normalised time (both clips complete
/// a cycle together, as [`crate::Instance::blend`] does), at the same point of the blended cycle.
pub fn start(
    rt: &mut impl PlaybackControl,
    clips: &[ClipInfo],
    a: &Assignment,
    transform: InstanceTransform,
    time: f64,
    blend: Option<(usize, f32)>,
) -> Result<Handle, RuntimeError> {
    let h = rt.spawn(transform);
    let Some(c) = a.clip else {
        return Ok(h);
    };
    let info = clips.get(c).ok_or(RuntimeError::NoSuchClip {
        clip: c,
        clips: clips.len(),
    })?;
    let t = time + a.phase;
    match blend {
        Some((b, w)) => {
            let db = clips.get(b).map_or(0.0, |x| x.duration);
            let cycle = info.duration * (1.0 - w as f64) + db * w as f64;
            Instance::of(rt, h).blend(ClipId::new(c), ClipId::new(b), w)?;
            // the blended cycle loops: the same point of it at any crowd time
            let (shown, _) = throng_contract::wrap_time(LoopMode::Loop, cycle, t);
            Instance::of(rt, h).seek(shown as f32)?;
        }
        None => {
            let frames = info.frames_table();
            let s = frames.sample(info.loop_mode, t);
            // the position within one period (for ping-pong: which way it plays, too)
            let period = frames.span.period(info.loop_mode);
            let start = frames.time_of(s.phase * period);
            Instance::of(rt, h).play(ClipId::new(c), PlayOptions::at(start as f32))?;
        }
    }
    Ok(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mix(
        clip: Option<usize>,
        mixed: bool,
        stagger: f64,
        random_phase: bool,
        seed: u64,
    ) -> ClipMix {
        ClipMix {
            clip,
            mix: mixed,
            stagger,
            random_phase,
            seed,
        }
    }

    #[test]
    fn several_inputs_take_every_kth_instance_of_the_shared_layout() {
        assert_eq!(ids_of(0, 2, 5), vec![0, 2, 4]);
        assert_eq!(ids_of(1, 2, 5), vec![1, 3]);
        assert_eq!(ids_of(0, 1, 3), vec![0, 1, 2]);
        // Together the inputs cover every instance once.
        let mut all: Vec<u32> = (0..3).flat_map(|a| ids_of(a, 3, 10)).collect();
        all.sort_unstable();
        assert_eq!(all, (0..10).collect::<Vec<_>>());
        // Stagger follows the global index.
        let p = assign(
            &mix(Some(0), false, 0.5, false, 1),
            &ids_of(1, 2, 4),
            &[2.0],
        );
        assert_eq!(
            p.iter().map(|i| i.phase).collect::<Vec<_>>(),
            vec![0.5, 1.5]
        );
    }

    #[test]
    fn without_a_clip_a_crowd_plays_a_seeded_mix_of_clips_and_phases() {
        let durations = [1.0, 2.0, 0.5];
        let ids: Vec<u32> = (0..64).collect();
        let p = assign(&mix(Some(0), true, 0.0, false, 9), &ids, &durations);
        let q = assign(&mix(Some(0), true, 0.0, false, 9), &ids, &durations);
        assert_eq!(p.len(), 64);
        // Same seed, same crowd.
        assert_eq!(p, q);
        // Every clip shows up and every phase lies within its clip.
        for c in 0..3 {
            assert!(p.iter().any(|i| i.clip == Some(c)), "clip {c} never picked");
        }
        assert!(p.iter().all(|i| i
            .clip
            .is_some_and(|c| (0.0..durations[c]).contains(&i.phase))));
        let other = assign(&mix(Some(0), true, 0.0, false, 10), &ids, &durations);
        assert!(p.iter().zip(&other).any(|(x, y)| x.phase != y.phase));
    }

    #[test]
    fn a_named_clip_plays_on_every_instance_with_stagger_and_optional_random_phase() {
        let durations = [1.0, 2.0];
        let ids: Vec<u32> = (0..5).collect();
        let p = assign(&mix(Some(1), false, 0.25, false, 1), &ids, &durations);
        for (i, inst) in p.iter().enumerate() {
            assert_eq!(inst.clip, Some(1));
            assert!((inst.phase - 0.25 * i as f64).abs() < 1e-12);
        }
        let p = assign(&mix(Some(1), false, 0.0, true, 1), &ids, &durations);
        assert!(p
            .iter()
            .all(|i| i.clip == Some(1) && (0.0..2.0).contains(&i.phase)));
        assert!(p.iter().any(|i| i.phase > 0.0));
    }

    #[test]
    fn random_layout_is_seeded_and_stays_on_the_ground_within_the_grid_area() {
        let t = layout(25, Layout::Random, 2.0, 4);
        let u = layout(25, Layout::Random, 2.0, 4);
        assert_eq!(t, u);
        for x in &t {
            let m = x.to_mat4();
            let p = m.w_axis;
            assert!(
                p.y.abs() < 1e-6 && p.x.abs() <= 5.0 && p.z.abs() <= 5.0,
                "{p}"
            );
            // A rotation about +Y only: the up axis stays up.
            assert!((m.y_axis.truncate() - Vec3::Y).length() < 1e-5);
        }
        assert_eq!(layout(25, Layout::Grid, 2.0, 4), grid(25, 2.0));
    }
}
