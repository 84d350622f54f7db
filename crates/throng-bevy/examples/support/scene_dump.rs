//! The scene `bevy_crowd --dump-scene` writes in the frame its screenshot shows, so that
//! another renderer (the plugin's tests draw it with throng-render) can draw the same foxes in
//! the same poses from the same camera. Shared by the example (writing) and
//! `tests/example.rs` (reading) through `#[path]`, so the format is written once.
//!
//! JSON; units: file units, radians, pixels. Transforms, records and appearances are throng's
//! GPU layouts as words
//! (`throng_contract::InstanceTransform`, 12 f32 each; CPU-timed
//! `throng_contract::InstanceRecord`, 16 u32 each, GPU-timed `throng_contract::GpuInstanceRecord`,
//! 14 u32 each, with the clock), in the runtime's dense order.

#![allow(dead_code)]

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SceneDump {
    /// The picture's size in pixels.
    pub width: u32,
    pub height: u32,
    /// The camera: eye, the point it looks at (one unit ahead), its up axis.
    pub eye: [f32; 3],
    pub target: [f32; 3],
    pub up: [f32; 3],
    /// Vertical field of view (radians) and near plane distance.
    pub fov_y: f32,
    pub near: f32,
    /// Instance transforms, `InstanceTransform` words.
    pub transforms: Vec<f32>,
    /// Records: CPU-timed `InstanceRecord` words, GPU-timed (`clock` given)
    /// `GpuInstanceRecord` words.
    pub records: Vec<u32>,
    /// GPU-timed: the clock the records are read at (low 32 bits of the runtime's ticks).
    #[serde(default)]
    pub clock: Option<u32>,
    /// The clear colour, linear RGBA (throng-render's `RenderOptions::background`).
    pub background: [f32; 4],
    /// Whether the crowd was culled per instance and drawn at LODs (`ThrongCull::per_instance`),
    /// and the largest projected LOD error it allowed, pixels (`ThrongCull::lod_bias`,
    /// throng-render's `RenderOptions::lod_bias`).
    pub culled: bool,
    pub lod_bias: f32,
    /// Per-instance appearances, `throng_contract::Appearance` words (4 u32 each; empty in
    /// dumps written before appearances were: every instance the default).
    #[serde(default)]
    pub appearances: Vec<u32>,
}

impl SceneDump {
    /// The dump's camera as throng-render draws it, with a far plane past any fox (Bevy's
    /// perspective camera has none).
    pub fn render_camera(&self) -> throng_render::Camera {
        throng_render::Camera {
            eye: self.eye.into(),
            target: self.target.into(),
            up: self.up.into(),
            fov_y: self.fov_y,
            near: self.near,
            far: 1.0e6,
        }
    }
}
