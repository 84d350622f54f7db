//! The clip table in its GPU form (WGSL `Clip` in `shaders/playback.wgsl`): what the shaders
//! need of each clip — its rows, for the time rules and for keeping interpolation inside the
//! clip, and its bounds, for culling.

use bytemuck::{Pod, Zeroable};

use crate::ClipFrames;

/// One clip as the shaders read it, 48 B.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Pod, Zeroable)]
pub struct GpuClip {
    /// Global row of frame 0.
    pub first_row: u32,
    /// Frames `n` (≥ 1).
    pub frames: u32,
    pub _pad: [u32; 2],
    /// Model-space bounds of the clip (file units), w unused; min > max on some axis when the
    /// clip has none (the shaders then use the asset's bounds).
    pub bounds_min: [f32; 4],
    pub bounds_max: [f32; 4],
}

impl GpuClip {
    pub fn new(frames: &ClipFrames, bounds_min: glam::Vec3, bounds_max: glam::Vec3) -> GpuClip {
        GpuClip {
            first_row: frames.first_row,
            // a zero-length clip shows its first frame only, whatever its row count says
            frames: if frames.is_static() {
                1
            } else {
                frames.frames.max(1)
            },
            _pad: [0; 2],
            bounds_min: bounds_min.extend(0.0).into(),
            bounds_max: bounds_max.extend(0.0).into(),
        }
    }

    /// `L = n − 1` as the GPU-timed arithmetic reads it.
    pub fn last(&self) -> u32 {
        self.frames.max(1) - 1
    }
}
