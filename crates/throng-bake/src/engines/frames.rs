//! The frames an engine export holds: each chosen clip sampled at uniform times from a baked
//! asset through throng-asset's CPU decoder (the CPU twin of what throng's shaders draw), so an
//! export and throng's own renderers show the same poses.
//!
//! Clip c of duration `d` at rate `r` gets `n = floor(d · r + 1e-3) + 1` frames (the frame rule
//! of docs/design.md §3, both ends included), frame k at `k · d / (n − 1)`; its exact rate
//! `(n − 1) / d` is recorded beside the rate asked for. The exported clips follow one another
//! in one frame sequence (global frame `start + k`), as VAT decoders index them.

use glam::{Mat4, Vec3};
use rayon::prelude::*;
use throng_asset::decode::{self, Skinning};
use throng_asset::{BakedAsset, DecodeError, Layer, LoopMode};

/// One exported clip.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportClip {
    /// Index in the asset's clip table.
    pub clip: usize,
    pub name: String,
    /// First global frame of the export's frame sequence.
    pub start: u32,
    pub frames: u32,
    /// Seconds.
    pub duration: f64,
    /// `(n − 1) / d`, or the rate asked for on a one-frame clip.
    pub fps: f64,
    pub loop_mode: LoopMode,
}

impl ExportClip {
    /// Last global frame (inclusive).
    pub fn end(&self) -> u32 {
        self.start + self.frames - 1
    }

    /// Clip time of frame k (seconds).
    pub fn time(&self, k: u32) -> f64 {
        throng_contract::time::frame_time(k as u64, self.frames as u64, self.duration)
    }
}

/// The frame sequence of an export.
#[derive(Debug, Clone, PartialEq)]
pub struct FramePlan {
    /// The rate asked for, frames per second.
    pub fps: f64,
    pub clips: Vec<ExportClip>,
}

impl FramePlan {
    /// Frames of `clips` (indices into the asset's clip table, in the order given) at `fps`.
    /// `max_frames` bounds the total before anything is allocated.
    pub fn new(
        asset: &BakedAsset,
        clips: &[usize],
        fps: f64,
        max_frames: u64,
    ) -> Result<FramePlan, u64> {
        let mut out = Vec::with_capacity(clips.len());
        let mut start: u64 = 0;
        for &c in clips {
            let info = &asset.clips[c];
            let n = throng_contract::time::frame_count(info.duration, fps);
            if start + n > max_frames {
                // Count the rest without allocating, for the message.
                let total = clips.iter().fold(0u64, |a, &c| {
                    a.saturating_add(throng_contract::time::frame_count(
                        asset.clips[c].duration,
                        fps,
                    ))
                });
                return Err(total);
            }
            out.push(ExportClip {
                clip: c,
                name: info.name.clone(),
                start: start as u32,
                frames: n as u32,
                duration: info.duration,
                fps: if n > 1 {
                    (n - 1) as f64 / info.duration
                } else {
                    fps
                },
                loop_mode: info.loop_mode,
            });
            start += n;
        }
        Ok(FramePlan { fps, clips: out })
    }

    pub fn total_frames(&self) -> u32 {
        self.clips.last().map_or(0, |c| c.end() + 1)
    }

    /// Every global frame as (clip, clip time), in order.
    pub fn frames(&self) -> impl Iterator<Item = (&ExportClip, f64)> + '_ {
        self.clips
            .iter()
            .flat_map(|c| (0..c.frames).map(move |k| (c, c.time(k))))
    }
}

/// The single full-weight layer showing `clip` at clip time `t` (held at the ends: the frame
/// times lie in [0, d]).
pub fn layer_at(asset: &BakedAsset, clip: usize, t: f64) -> Layer {
    let f = asset.clips[clip].frames_table().sample(LoopMode::Clamp, t);
    Layer {
        weight: 1.0,
        frac: f.frac,
        row: f.row as f32,
        clip: clip as u32,
    }
}

/// Skinned positions and normals of every vertex (primitives in order, concatenated) at one
/// pose, model space, file units.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Pose {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
}

/// The pose `layers` show, linear blend skinning (what every throng path draws by default).
pub fn pose(asset: &BakedAsset, layers: &[Layer]) -> Result<Pose, DecodeError> {
    let mut out = Pose::default();
    for p in 0..asset.primitives.len() {
        let s = decode::skin_vertices(asset, p, layers, Skinning::Linear)?;
        out.positions.extend(s.positions);
        out.normals.extend(s.normals);
    }
    Ok(out)
}

/// The rest pose (row 0): the mesh the vertex-animation exports offset from.
pub fn rest_pose(asset: &BakedAsset) -> Result<Pose, DecodeError> {
    pose(asset, &[])
}

/// Every palette entry's skin matrix `S_j = W_j · IBM_j` at every frame, `[frame][entry]`: the
/// rows around each frame's time decoded and interpolated as the shaders do.
pub fn skin_matrices(asset: &BakedAsset, plan: &FramePlan) -> Result<Vec<Vec<Mat4>>, DecodeError> {
    let frames: Vec<(usize, f64)> = plan.frames().map(|(c, t)| (c.clip, t)).collect();
    let entries = asset.palette.len() as u32;
    frames
        .par_iter()
        .map(|&(c, t)| {
            let layer = layer_at(asset, c, t);
            (0..entries)
                .map(|j| decode::masked_skin_matrix(asset, std::slice::from_ref(&layer), j))
                .collect()
        })
        .collect()
}

/// Frames made at once by [`for_each_pose`]: enough to keep both cores busy, few enough that
/// memory stays small.
const CHUNK: usize = 64;

/// Calls `f` with every frame's pose in frame order, computing a chunk of frames in parallel at a
/// time (memory: one chunk of poses, whatever the frame count).
pub fn for_each_pose(
    asset: &BakedAsset,
    plan: &FramePlan,
    mut f: impl FnMut(&Pose),
) -> Result<(), DecodeError> {
    let frames: Vec<(usize, f64)> = plan.frames().map(|(c, t)| (c.clip, t)).collect();
    for chunk in frames.chunks(CHUNK) {
        let poses: Vec<Pose> = chunk
            .par_iter()
            .map(|&(c, t)| pose(asset, &[layer_at(asset, c, t)]))
            .collect::<Result<_, _>>()?;
        poses.iter().for_each(&mut f);
    }
    Ok(())
}
