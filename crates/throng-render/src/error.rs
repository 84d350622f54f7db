//! Renderer errors.

use thiserror::Error;

use crate::device::DeviceError;
use crate::shaders::ShaderError;

#[derive(Debug, Error)]
pub enum RenderError {
    #[error(transparent)]
    Device(#[from] DeviceError),
    #[error(transparent)]
    Shader(#[from] ShaderError),
    #[error("asset {asset}: bone texture is {width} texels wide ({entries} palette entries × {texels} texels), over this adapter's limit of {limit}; re-bake with fewer joints or a more compact encoding (quat-snorm16 uses 2 texels per entry)")]
    BoneTextureTooWide {
        asset: String,
        width: u32,
        entries: u32,
        texels: u32,
        limit: u32,
    },
    #[error("asset {asset}: bone texture has {layers} array layers of {rows_per_layer} rows, over this adapter's limits ({max_layers} layers of {max_rows} rows)")]
    BoneTextureTooTall {
        asset: String,
        layers: u32,
        rows_per_layer: u32,
        max_layers: u32,
        max_rows: u32,
    },
    #[error("asset {asset}: {what}")]
    BadAsset { asset: String, what: String },
    #[error("{what}: got {got}, expected {expected}")]
    BadInput {
        what: &'static str,
        got: usize,
        expected: usize,
    },
    #[error("asset {asset}: {instances} instances need a {bytes}-byte GPU buffer, over this device's limit of {limit} bytes per buffer binding; draw at most {max_instances} instances of it per frame")]
    TooManyInstances {
        asset: String,
        instances: usize,
        bytes: u64,
        limit: u64,
        max_instances: u64,
    },
    #[error("asset {asset}: the palette path's buffer for {instances} instances × {entries} palette entries × 48 B is {bytes} bytes, over this device's limit of {limit} bytes per buffer binding; draw at most {max_instances} instances of it per frame on the palette path (or split the crowd, or use the texture path)")]
    PaletteTooLarge {
        asset: String,
        instances: usize,
        entries: u32,
        bytes: u64,
        limit: u64,
        max_instances: u64,
    },
    #[error("the reference path draws meshes skinned on the CPU: hand them to Renderer::render_reference (a crowd of a baked asset draws on the texture, palette or VAT path)")]
    ReferenceIsNotACrowdPath,
    #[error("asset {asset} has no anchors to attach a prop to; bake it with anchors (a socket node per anchor)")]
    NoAnchors { asset: String },
    #[error("asset {asset} has no anchor named {anchor:?}; its anchors: {}", anchors.join(", "))]
    UnknownAnchor {
        asset: String,
        anchor: String,
        anchors: Vec<String>,
    },
    #[error("asset {asset}: a prop is on anchor {anchor}, but the asset has {count} anchor(s) ({})", names.join(", "))]
    AnchorOutOfRange {
        asset: String,
        anchor: u32,
        count: usize,
        names: Vec<String>,
    },
    #[error("asset {asset}: the live pose of instance {instance} has {got} skin matrices; the asset's palette has {expected} entries, and a live pose gives one matrix per entry")]
    LivePoseMatrices {
        asset: String,
        instance: u32,
        got: usize,
        expected: u32,
    },
    #[error("asset {asset}: a live pose is for instance {instance}, but the crowd has {instances} instance(s)")]
    LivePoseInstance {
        asset: String,
        instance: u32,
        instances: usize,
    },
    #[error("asset {asset}: instance {instance} has more than one live pose in this frame; give one per instance")]
    LivePoseTwice { asset: String, instance: u32 },
    #[error("asset {asset}: live poses are drawn from the palette buffer; draw the crowd on the palette path (SkinPath::Palette)")]
    LivePoseNeedsPalette { asset: String },
    #[error("asset {asset}: motion vectors come from the previous frame's palette; draw the crowd on the palette path (SkinPath::Palette), or turn motion vectors off")]
    MotionVectorsNeedPalette { asset: String },
    #[error("asset {asset}: props are not drawn into the motion vector target (their anchors keep no previous frame yet); draw the crowd without props, or turn motion vectors off")]
    MotionVectorsWithProps { asset: String },
    /// The downlevel mode (docs/downlevel.md) cannot draw this: `what` needs a capability
    /// the mode does without (`missing`); `instead` says what to draw instead.
    #[error("{what} needs {missing}, which the downlevel mode (for devices without compute shaders) does without{reason}; {instead}")]
    NeedsCapability {
        what: &'static str,
        missing: &'static str,
        /// ", and this device lacks …" when the device chose the mode, empty when it was asked for.
        reason: String,
        instead: &'static str,
    },
    #[error("the downlevel mode's {what} holds {records} records, over the {most} a {what} fits on this device; draw fewer instances per frame")]
    DownlevelTableTooLarge {
        what: &'static str,
        records: u64,
        most: u64,
    },
    /// A graph crowd handed to the GPU graph step (`graph_pass::GraphPass`) that is not what
    /// `throng_graph::GraphLayout` and `GraphCrowd` make, or a frame's changes it cannot apply.
    #[error("graph step: {0}; build the tables with throng_graph::GraphLayout and the machines and values from the GraphCrowd, and send a parameter's last change of a frame only, as a finite value")]
    BadGraph(String),
    #[error("internal error: {0} (a bug in throng-render; please report it)")]
    Internal(&'static str),
    #[error("reading back a GPU buffer failed: {0}")]
    Readback(String),
    #[error("image size {width}×{height} is outside 1..={limit} pixels per side")]
    BadImageSize { width: u32, height: u32, limit: u32 },
}
