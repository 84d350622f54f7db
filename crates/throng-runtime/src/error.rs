//! Typed errors of the playback API.

use crate::Handle;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RuntimeError {
    #[error("instance {handle:?} is not alive (despawned, or from another runtime)")]
    DeadHandle { handle: Handle },
    #[error("clip index {clip} is out of range: the clip table has {clips} clips")]
    NoSuchClip { clip: usize, clips: usize },
    #[error("no clip is called \"{name}\"{hint} (clips: {known})")]
    UnknownClip {
        name: String,
        known: String,
        hint: String,
    },
    #[error("{what} must be finite and >= 0 (got {value}); play backwards with a ping-pong clip")]
    BadValue { what: &'static str, value: f64 },
    #[error("speed must be in [0, {max}] (got {0}): past it a frame plays laps no one can see and events no one can hear; jump ahead with seek, play backwards with a ping-pong clip", max = crate::MAX_SPEED)]
    BadSpeed(f32),
    #[error("blend weight must be in [0, 1] (got {0})")]
    BadWeight(f32),
    #[error("mask number {mask} is out of range: a layer names mask 1 to {max} (0 = none); look masks up by name with BakedAsset::find_mask")]
    NoSuchMask { mask: u32, max: u32 },
    #[error("clip {clip} is not additive and no mask was given: an overlay layer needs a mask or an additive clip (play a base clip with play, crossfade or blend)")]
    NotAnOverlay { clip: usize },
    #[error("instance {handle:?} already has {layers} layers, the most a record holds")]
    LayersFull { handle: Handle, layers: usize },
    #[error("{got} records given for {expected} instances: pass one record per instance")]
    RecordCount { got: usize, expected: usize },
    #[error("per-instance data of {got} entries given to a runtime of {expected} instances: give one entry per instance")]
    InstanceDataCount { got: usize, expected: usize },
    #[error("no {what} is attached to this runtime (Runtime::attach)")]
    NoInstanceData { what: &'static str },
    #[error("anchor index {anchor} is out of range: the anchor texture has {anchors} anchors")]
    NoSuchAnchor { anchor: usize, anchors: usize },
    #[error("a GPU-timed runtime holds at most {limit} instances: split the crowd over several runtimes")]
    TooManyInstances { limit: usize },
    #[error("the anchor texture has {rows} rows but the instance shows row {row}; was it baked with this clip table?")]
    AnchorRows { rows: u32, row: u32 },
}
