//! Bake settings (docs/design.md §3).

pub use crate::settings::{AnchorSelection, ClipSettings, EventSetting, RootMotion};
use std::collections::BTreeMap;
use throng_asset::Encoding;

/// Default sample rate of the frame table (frames per second, docs/design.md §3).
pub const DEFAULT_FPS: f64 = 30.0;
/// Default rows per array layer and widest row: WebGPU's default `maxTextureDimension2D`
/// (texels). The bake cannot see the adapter, so it designs for the default limit.
pub const DEFAULT_MAX_TEXTURE_SIZE: u32 = 8192;
/// WebGPU's default `maxTextureArrayLayers`; more layers than this get a warning (not an error:
/// adapters with higher limits exist).
pub const WEBGPU_DEFAULT_MAX_LAYERS: u32 = 256;

/// How the frame table is sampled in time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fps {
    /// Every clip at this many frames per second.
    Fixed(f64),
    /// Per clip, the source's key rate (see [`crate::frames::auto_fps`]).
    Auto,
}

impl Default for Fps {
    fn default() -> Self {
        Fps::Fixed(DEFAULT_FPS)
    }
}

impl Fps {
    /// Parses `auto` or a positive number of frames per second.
    pub fn parse(s: &str) -> Option<Fps> {
        if s.eq_ignore_ascii_case("auto") {
            return Some(Fps::Auto);
        }
        s.parse::<f64>()
            .ok()
            .filter(|f| f.is_finite() && *f > 0.0)
            .map(Fps::Fixed)
    }

    /// As recorded in the file's bake settings: `"auto"` or the number.
    pub fn as_setting(&self) -> String {
        match self {
            Fps::Auto => "auto".to_string(),
            Fps::Fixed(f) => format!("{f}"),
        }
    }
}

/// Everything [`crate::bake`] can be told.
#[derive(Debug, Clone, PartialEq)]
pub struct BakeOptions {
    /// Name of the source file, used in messages and recorded in the asset.
    pub source_name: String,
    pub fps: Fps,
    /// Bone-texture encoding asked for (`quat-*` falls back to `mat3x4-f32` unless `strict`).
    pub encoding: Encoding,
    /// Influences per vertex K: 4 or 8.
    pub influences: u32,
    /// Make a `quat-*` encoding that cannot represent the skin matrices an error instead of
    /// falling back to `mat3x4-f32`.
    pub strict: bool,
    /// Rows per array layer and the widest allowed row, in texels.
    pub max_texture_size: u32,
    /// Bake a vertex animation texture per primitive with this position storage (`crate::vat`).
    pub vat: Option<throng_asset::VatEncoding>,
    /// LOD index-count ratios, each in (0, 1), e.g. `[0.5, 0.25, 0.1]` (`crate::lod`).
    pub lods: Vec<f32>,
    /// Per-clip overrides (loop mode, fps, events) keyed by clip name; they win over the
    /// source's `extras.throng`. A name no clip has is an error.
    pub clip_settings: BTreeMap<String, ClipSettings>,
    /// Nodes whose model-space transform is baked per row (attachment sockets).
    pub anchors: AnchorSelection,
    /// Root-motion extraction (docs/design.md §2).
    pub root_motion: RootMotion,
}

impl Default for BakeOptions {
    fn default() -> Self {
        BakeOptions {
            source_name: String::new(),
            fps: Fps::default(),
            encoding: Encoding::default(),
            influences: 4,
            strict: false,
            max_texture_size: DEFAULT_MAX_TEXTURE_SIZE,
            vat: None,
            lods: Vec::new(),
            clip_settings: BTreeMap::new(),
            anchors: AnchorSelection::None,
            root_motion: RootMotion::None,
        }
    }
}
