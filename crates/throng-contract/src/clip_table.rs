//! The clip table in its GPU form (WGSL `Clip` in `shaders/playback.wgsl`): what the shaders
//! need of each clip — its rows, for the time rules and for keeping interpolation inside the
//! clip, its frame-time list when it has one, and its bounds, for culling.

use bytemuck::{Pod, Zeroable};

use crate::ClipFrames;

/// `GpuClip::times_offset` of a clip with uniform frames.
pub const UNIFORM_FRAMES: u32 = u32::MAX;

/// `GpuClip::flags` bit 0: an additive clip.
pub const CLIP_ADDITIVE: u32 = 1;

/// One clip as the shaders read it, 48 B.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuClip {
    /// Global row of frame 0.
    pub first_row: u32,
    /// Frames `n` (≥ 1).
    pub frames: u32,
    /// Where the clip's frame-time list starts in the [`FrameTimeTable`] (words), or
    /// [`UNIFORM_FRAMES`].
    pub times_offset: u32,
    /// Bit 0 ([`CLIP_ADDITIVE`]): the clip's rows are deltas from a reference pose, applied
    /// on top of the base layers (docs/design.md §4 "Layer masks and additive layers").
    pub flags: u32,
    /// Model-space bounds of the clip (file units), w unused; min > max on some axis when the
    /// clip has none (the shaders then use the asset's bounds).
    pub bounds_min: [f32; 4],
    pub bounds_max: [f32; 4],
}

impl Default for GpuClip {
    fn default() -> Self {
        GpuClip::ZERO
    }
}

impl GpuClip {
    /// What the shaders read for a clip index past the table: row 0, uniform frames.
    pub const ZERO: GpuClip = GpuClip {
        first_row: 0,
        frames: 0,
        times_offset: UNIFORM_FRAMES,
        flags: 0,
        bounds_min: [0.0; 4],
        bounds_max: [0.0; 4],
    };

    /// A clip with uniform frames (see [`GpuClipTable::push`] for listed ones).
    pub fn new(frames: &ClipFrames, bounds_min: glam::Vec3, bounds_max: glam::Vec3) -> GpuClip {
        GpuClip {
            first_row: frames.first_row,
            // a zero-length clip shows its first frame only, whatever its row count says
            frames: if frames.is_static() {
                1
            } else {
                frames.frames.max(1)
            },
            times_offset: UNIFORM_FRAMES,
            flags: 0,
            bounds_min: bounds_min.extend(0.0).into(),
            bounds_max: bounds_max.extend(0.0).into(),
        }
    }

    /// `L = n − 1` as the GPU-timed arithmetic reads it.
    pub fn last(&self) -> u32 {
        self.frames.max(1) - 1
    }
}

/// A whole clip table in its GPU form: one [`GpuClip`] per clip, in clip order, and the
/// frame-time table their lists live in. Build it with [`GpuClipTable::push`]; upload
/// [`GpuClipTable::clip_upload`] and `frame_times.upload_words()`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GpuClipTable {
    pub clips: Vec<GpuClip>,
    pub frame_times: FrameTimeTable,
}

impl GpuClipTable {
    /// Appends a clip (uniform, or with its frame-time list when `frames.times` is set);
    /// bounds in file units, min > max when the clip has none.
    pub fn push(&mut self, frames: &ClipFrames, bounds_min: glam::Vec3, bounds_max: glam::Vec3) {
        let mut c = GpuClip::new(frames, bounds_min, bounds_max);
        if let Some(times) = &frames.times {
            c.times_offset = self.frame_times.push(times);
        }
        self.clips.push(c);
    }

    /// Clip `i`, or [`GpuClip::ZERO`] past the table (as the shaders read it).
    pub fn clip(&self, i: u32) -> GpuClip {
        self.clips.get(i as usize).copied().unwrap_or(GpuClip::ZERO)
    }

    /// The clips to upload: one [`GpuClip::ZERO`] when there are none (a storage buffer may
    /// not be empty; it is never read, since the clip count is 0).
    pub fn clip_upload(&self) -> &[GpuClip] {
        if self.clips.is_empty() {
            std::slice::from_ref(&GpuClip::ZERO)
        } else {
            &self.clips
        }
    }
}

/// Every listed clip's frame times and lookup grid, as one array of 32-bit words the shaders
/// read (`frame_times` in `shaders/playback.wgsl`). A clip of n frames at offset o holds its n
/// times (f32 bits) at `o .. o + n`, then a grid of `cells = n − 1` cells at `o + n ..`: cell c
/// covers clip times `[c · d / cells, (c + 1) · d / cells)` and holds the largest k with
/// `t_k ≤ c · d / cells`, so a lookup starts there and steps forward at most a few frames.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FrameTimeTable {
    pub words: Vec<u32>,
}

impl FrameTimeTable {
    /// Appends a clip's frame-time list; returns its offset (the clip's `times_offset`).
    fn push(&mut self, times: &[f32]) -> u32 {
        let offset = self.words.len() as u32;
        let n = times.len();
        self.words.extend(times.iter().map(|t| t.to_bits()));
        let cells = n.saturating_sub(1).max(1);
        let d = times.last().copied().unwrap_or(0.0);
        let mut k = 0;
        for c in 0..cells {
            let start = cell_start(c as u32, cells as u32, d);
            while k + 2 < n && times[k + 1] <= start {
                k += 1;
            }
            self.words.push(k as u32);
        }
        offset
    }

    /// The words to upload (one zero word when empty: a storage buffer may not be empty).
    pub fn upload_words(&self) -> &[u32] {
        if self.words.is_empty() {
            &[0]
        } else {
            &self.words
        }
    }
}

/// Clip time where grid cell `c` of `cells` starts, in f32 as the shader computes it.
fn cell_start(c: u32, cells: u32, d: f32) -> f32 {
    c as f32 * (d / cells as f32)
}

/// The time rules' row lookup of a listed clip in f32, as the GPU does it: shown position `q`
/// (clamped into [0, L]) → τ = q / L · d → the grid cell → step forward to the largest k with
/// `t_k ≤ τ`. WGSL twin: `listed_frame` in `shaders/playback.wgsl`.
pub fn listed_frame_f32(clip: &GpuClip, words: &[u32], q: f32) -> crate::FrameRef {
    let n = clip.frames.max(1);
    let last_u = n - 1;
    let last = last_u as f32;
    let word = |i: u32| words.get(i as usize).copied().unwrap_or(0);
    let time = |k: u32| f32::from_bits(word(clip.times_offset + k));
    let q = q.clamp(0.0, last);
    if q >= last || n < 2 {
        return crate::FrameRef {
            row: clip.first_row + last_u,
            frac: 0.0,
        };
    }
    let d = time(last_u);
    let tau = q / last * d;
    let cells = last_u.max(1);
    let cell = ((tau / d * cells as f32) as u32).min(cells - 1);
    let mut k = word(clip.times_offset + n + cell).min(last_u - 1);
    // τ may round into a cell whose start lies just above it: step back first
    while k > 0 && time(k) > tau {
        k -= 1;
    }
    // bounded: the grid puts k within a few frames of τ
    for _ in 0..n {
        if k + 2 > last_u || time(k + 1) > tau {
            break;
        }
        k += 1;
    }
    let (a, b) = (time(k), time(k + 1));
    let frac = if b > a { (tau - a) / (b - a) } else { 0.0 };
    crate::FrameRef {
        row: clip.first_row + k,
        frac: frac.clamp(0.0, 1.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ClipFrames;

    /// A small deterministic generator for test inputs (SplitMix64).
    struct SplitMix(u64);
    impl SplitMix {
        fn unit(&mut self) -> f64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    /// Frame times like a budgeted bake's: irregular, clustered in places, ends exact.
    fn irregular(n: usize, d: f32, seed: u64) -> Vec<f32> {
        let mut rng = SplitMix(seed);
        let mut gaps: Vec<f64> = (0..n - 1)
            .map(|i| {
                let u = rng.unit();
                // a tight cluster every 7th frame, otherwise up to 10× spread
                if i % 7 == 3 {
                    0.02 + u * 0.05
                } else {
                    0.2 + u * 2.0
                }
            })
            .collect();
        let sum: f64 = gaps.iter().sum();
        let mut t = 0.0;
        let mut v = vec![0.0f32];
        for g in gaps.iter_mut().take(n - 2) {
            t += *g / sum * d as f64;
            v.push(t as f32);
        }
        v.push(d);
        v
    }

    #[test]
    fn the_gpu_lookup_agrees_with_the_binary_search() {
        let mut table = GpuClipTable::default();
        let lists = [
            irregular(2, 0.5, 1),
            irregular(3, 1.0, 2),
            irregular(23, 0.7, 3),
            irregular(61, 2.0, 4),
            irregular(400, 30.0, 5),
        ];
        let mut row = 1;
        let mut frames = Vec::new();
        for l in &lists {
            let f = ClipFrames::listed(row, l);
            assert!(f.times.is_some() || l.len() == 2);
            table.push(&f, glam::Vec3::ZERO, glam::Vec3::ONE);
            row += l.len() as u32;
            frames.push(f);
        }
        let words = table.frame_times.upload_words();
        let mut rng = SplitMix(9);
        let mut probes = 0;
        for (ci, f) in frames.iter().enumerate() {
            let c = table.clip(ci as u32);
            let last = f.last() as f32;
            // every frame time itself, both ends, and random positions
            let mut qs: Vec<f32> = (0..f.frames)
                .map(|k| (f.frame_time(k) * f.rate) as f32)
                .collect();
            qs.extend([0.0, last, -1.0, last + 1.0]);
            qs.extend((0..2000).map(|_| (rng.unit() as f32) * last));
            for q in qs {
                let g = crate::gpu_timed::clip_frame_f32(&c, words, q);
                let cpu = f.frame(q as f64);
                probes += 1;
                // same clip time within f32 rounding: the row agrees, or the two sit on
                // either side of one frame time with fracs at its ends
                let shown = |r: crate::FrameRef| {
                    let k = r.row - f.first_row;
                    let (a, b) = (f.frame_time(k), f.frame_time((k + 1).min(f.frames - 1)));
                    a + r.frac as f64 * (b - a)
                };
                let (tg, tc) = (shown(g), shown(cpu));
                assert!(
                    (tg - tc).abs() <= 1e-6 * f.duration.max(1.0),
                    "clip {ci} q {q}: gpu {g:?} ({tg}) cpu {cpu:?} ({tc})"
                );
                if g.row != cpu.row {
                    assert!(g.row.abs_diff(cpu.row) == 1, "clip {ci} q {q}");
                }
            }
        }
        assert!(probes > 10_000);
    }

    #[test]
    fn an_empty_table_uploads_one_zero_clip() {
        let t = GpuClipTable::default();
        assert_eq!(t.clip_upload(), &[GpuClip::ZERO]);
        assert_eq!(t.frame_times.upload_words(), &[0]);
        assert_eq!(t.clip(5).times_offset, UNIFORM_FRAMES);
    }
}
