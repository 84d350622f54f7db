//! A crowd's render-world state, one struct per feature: the per-instance buffers the extract
//! writes ([`InstanceBuffers`]), the skinning path and its palette ([`SkinState`]), the
//! previous frame's buffers for motion vectors ([`MotionBuffers`]), the draws' uniforms and
//! bind groups ([`DrawBindings`]) and which views see the crowd ([`ViewFilter`]); culling keeps
//! its own (`super::cull_state::CrowdCull`), appearances theirs
//! (`super::appearance::GpuAppearances`). `super::crowd_gpu::CrowdGpu` holds one of each, so a
//! feature's code reads and writes its own part by name. Types only: this module imports
//! nothing of the systems that fill them.

use bevy::camera::visibility::RenderLayers;
use bevy::render::render_resource::{BindGroup, Buffer};
use bevy::render::view::RetainedViewEntity;

use crate::crowd::SkinPath;

/// The crowd's per-instance buffers (kept across frames, grown by doubling) and what was last
/// written into them.
pub struct InstanceBuffers {
    /// The runtime keeps GPU-timed records (the vertex stage or palette pass times them).
    pub gpu_timed: bool,
    /// Instances this frame.
    pub instances: u32,
    /// Instances the buffers hold room for (a multiple of 64).
    pub(crate) capacity: u64,
    /// Bytes of one record (`Timing::record_bytes`).
    pub(crate) record_bytes: u64,
    pub(crate) transforms: Option<Buffer>,
    pub(crate) records: Option<Buffer>,
    /// GPU-timed: the clock uniform (16 B; written every frame, read by the palette pass or,
    /// on the texture path, the vertex stage).
    pub(crate) clock_buffer: Option<Buffer>,
    /// The runtime's clock this frame (GPU-timed).
    pub(crate) clock: u32,
    /// The crowd's generation counters at the last write (`u64::MAX`: never written).
    pub(crate) transforms_gen: u64,
    pub(crate) records_gen: u64,
    /// Instances the record buffer held at its last full write (`u64::MAX`: none yet): a
    /// GPU-timed crowd of the same count scatters only its rewritten records.
    pub(crate) records_len: u64,
    /// GPU-timed: the frame's rewritten records as the runtime lists them (64 B each), the
    /// source of the copies that scatter them into `records`; grown as needed.
    pub(crate) record_writes: Option<Buffer>,
}

impl InstanceBuffers {
    /// Nothing made yet, for records of `record_bytes`.
    pub(crate) fn new(gpu_timed: bool, record_bytes: u64) -> Self {
        Self {
            gpu_timed,
            instances: 0,
            capacity: 0,
            record_bytes,
            transforms: None,
            records: None,
            clock_buffer: None,
            clock: 0,
            transforms_gen: u64::MAX,
            records_gen: u64::MAX,
            records_len: u64::MAX,
            record_writes: None,
        }
    }
}

/// How the crowd is skinned, and the palette path's buffers.
pub struct SkinState {
    /// The path the crowd asks for.
    pub path: SkinPath,
    /// Dual-quaternion skinning (asked for, and the asset's encoding allows it).
    pub dual_quat: bool,
    /// Whether the crowd is drawn on the palette path (asked for, and its palette fits the
    /// device).
    pub palette_path: bool,
    /// The palette path's buffer, `capacity × entries` entries of 48 B; on the texture path a
    /// one-entry stand-in for the draw layout's palette binding. `None` until sized by the
    /// asset (again after the crowd grows or changes path).
    pub(crate) palette: Option<Buffer>,
    /// The palette pass's job uniform.
    pub(crate) job: Option<Buffer>,
    /// The palette pass's bind group.
    pub(crate) palette_group: Option<BindGroup>,
}

impl SkinState {
    pub(crate) fn new(path: SkinPath) -> Self {
        Self {
            path,
            dual_quat: false,
            palette_path: false,
            palette: None,
            job: None,
            palette_group: None,
        }
    }
}

/// Motion vectors (some camera has Bevy's `MotionVectorPrepass`): the previous frame's
/// transforms and palette, copied from the current ones before they are rewritten. Without
/// motion vectors the bind groups bind the current buffers in their place.
#[derive(Default)]
pub struct MotionBuffers {
    /// Some camera asks for motion vectors.
    pub on: bool,
    pub(crate) prev_transforms: Option<Buffer>,
    pub(crate) prev_palette: Option<Buffer>,
    /// The previous-frame transforms were just created: this frame they take this frame's data
    /// (no motion) instead of the stale content of the current buffers.
    pub(crate) prev_fresh: bool,
    /// The same for the previous palette: its first frame copies the palette after the
    /// palette pass instead of before.
    pub(crate) prev_palette_fresh: bool,
}

/// The draws' per-primitive uniforms and bind groups (made again when a buffer they bind is).
#[derive(Default)]
pub struct DrawBindings {
    /// One per primitive: the material uniform.
    pub(crate) draws: Vec<Buffer>,
    /// The crossfade words (`DrawParams::far`) last written into `draws`.
    pub(crate) draw_far: Option<[f32; 4]>,
    /// One per primitive.
    pub(crate) groups: Vec<BindGroup>,
    /// The groups bind the crowd's current buffers.
    pub(crate) valid: bool,
}

/// Which views draw the crowd.
pub struct ViewFilter {
    /// The crowd entity's `Visibility` (inherited) hides it.
    pub hidden: bool,
    /// Its `RenderLayers` (none: layer 0): cameras whose layers do not meet them do not draw
    /// it (`excluded_views`).
    pub layers: RenderLayers,
    pub excluded_views: Vec<RetainedViewEntity>,
    /// The crowd casts into Bevy's shadow maps (its entity has no `NotShadowCaster`).
    pub casts_shadows: bool,
    /// The crowd entity's debug view (main pass only).
    pub debug_view: Option<super::debug_view::ThrongDebugView>,
}

impl Default for ViewFilter {
    fn default() -> Self {
        Self {
            hidden: false,
            layers: RenderLayers::default(),
            excluded_views: Vec::new(),
            casts_shadows: true,
            debug_view: None,
        }
    }
}
