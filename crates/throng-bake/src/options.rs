//! Bake settings (docs/design.md §3).

pub use crate::sampling::{MaxError, Sampling, DEFAULT_MAX_ERROR};
pub use crate::settings::{
    AnchorSelection, ClipSettings, EventSetting, InfluenceCount, RootMotion,
};
pub use crate::variants::TextureVariant;
use std::collections::BTreeMap;
use throng_asset::Encoding;

/// Sample rate of `--fps` when none is given to commands that need one, and of clips without key
/// intervals under [`Sampling::SourceKeys`] (frames per second, docs/design.md §3).
pub const DEFAULT_FPS: f64 = 30.0;
/// Default rows per array layer and widest row: WebGPU's default `maxTextureDimension2D`
/// (texels). The bake cannot see the adapter, so it designs for the default limit.
pub const DEFAULT_MAX_TEXTURE_SIZE: u32 = 8192;
/// WebGPU's default `maxTextureArrayLayers`; more layers than this get a warning (not an error:
/// adapters with higher limits exist).
pub const WEBGPU_DEFAULT_MAX_LAYERS: u32 = 256;

/// Everything [`crate::bake()`] can be told.
#[derive(Debug, Clone, PartialEq)]
pub struct BakeOptions {
    /// Name of the source file, used in messages and recorded in the asset.
    pub source_name: String,
    /// How clips are sampled in time: an error budget by default.
    pub sampling: Sampling,
    /// Bone-texture encoding asked for (`quat-snorm16` falls back to `mat3x4-snorm16`,
    /// `quat-f32` to `mat3x4-f32`, unless `strict`).
    pub encoding: Encoding,
    /// How rows may be interpolated between frames (docs/design.md §3 "Row interpolation").
    /// `CatmullRom` at a uniform rate gives every clip cubic rows; under an error budget each
    /// clip gets whichever meets it with fewer rows, cubic rows on uniform frames
    /// ([`crate::uniform_budget`]) or linear rows on placed frames; clips on the source's own
    /// irregular keys (`Sampling::SourceKeys`) stay linear, with a warning.
    pub interpolation: throng_asset::RowInterpolation,
    /// Influences per vertex K: 4 or 8 (with [`Self::auto_influences`], the first tried).
    pub influences: u32,
    /// Choose K by the error budget (the command line's default, `--influences auto`): 4, or 8
    /// when cutting to 4 alone uses more than half of the budget at the samples of some clip
    /// and 8 does better. Without an error budget `influences` is used as it is.
    pub auto_influences: bool,
    /// Whether the error budget must be met. True (an error budget someone asked for): a budget
    /// that the sampled matrices alone use more than half of is an error. False (the default
    /// budget of a front end, where the user asked for a bake rather than a budget): the bake
    /// places the frames as closely as the budget allows, reports the error it reached and
    /// warns.
    pub budget_strict: bool,
    /// Make a `quat-*` encoding that cannot represent the skin matrices an error instead of
    /// falling back to the `mat3x4-*` encoding of the same precision.
    pub strict: bool,
    /// Rows per array layer and the widest allowed row, in texels.
    pub max_texture_size: u32,
    /// Bake a vertex animation texture per primitive with this position storage (`crate::vat`).
    pub vat: Option<throng_asset::VatEncoding>,
    /// LOD index-count ratios, each in (0, 1) and smaller than the one before, e.g.
    /// `[0.5, 0.25, 0.1]` (`crate::lod`; others are `BakeError::InvalidOption`).
    pub lods: Vec<f32>,
    /// Per-clip overrides (loop mode, fps, events) keyed by clip name; they win over the
    /// source's `extras.throng`. A name no clip has is an error.
    pub clip_settings: BTreeMap<String, ClipSettings>,
    /// Nodes whose model-space transform is baked per row (attachment sockets).
    pub anchors: AnchorSelection,
    /// Root-motion extraction (docs/design.md §2).
    pub root_motion: RootMotion,
    /// Layer masks by joint subtree (docs/design.md §4), in mask-number order.
    pub masks: Vec<crate::masks::MaskSetting>,
    /// Additive clips by name, each with its reference clip time in seconds (docs/design.md
    /// §4): their rows are stored as deltas from the pose at that time. A name no clip has is
    /// an error.
    pub additive: BTreeMap<String, f32>,
    /// Extra base-colour textures, each baked as a material variant after the source's own
    /// (`crate::variants`: textured materials get a copy with the texture, resized to the size
    /// of the texture it replaces; untextured ones stay as they are).
    pub texture_variants: Vec<TextureVariant>,
    /// Bake the far-field tier with these settings (`crate::far_tier`; docs/design.md §3 "Far
    /// tier"); `None`: no far tier.
    pub far_tier: Option<crate::far_tier::FarTierSettings>,
}

impl BakeOptions {
    /// The clip's own uniform rate, when its settings give one (it wins over [`Self::sampling`]).
    pub fn clip_fps(&self, clip: &str) -> Option<f64> {
        self.clip_settings.get(clip).and_then(|s| s.fps)
    }

    /// What a baked file records of these options (its `settings`, docs/format.md), with the
    /// motion root the bake extracted root motion from.
    pub fn settings(&self, motion_root: Option<usize>) -> throng_asset::BakeSettings {
        throng_asset::BakeSettings {
            fps: self.sampling.as_setting(),
            requested_encoding: self.encoding,
            influences: self.influences,
            max_texture_size: self.max_texture_size,
            root_motion: motion_root.is_some(),
            motion_root,
        }
    }
}

impl Default for BakeOptions {
    fn default() -> Self {
        BakeOptions {
            source_name: String::new(),
            sampling: Sampling::default(),
            encoding: Encoding::default(),
            interpolation: Default::default(),
            influences: 4,
            auto_influences: false,
            budget_strict: true,
            strict: false,
            max_texture_size: DEFAULT_MAX_TEXTURE_SIZE,
            vat: None,
            lods: Vec::new(),
            clip_settings: BTreeMap::new(),
            anchors: AnchorSelection::None,
            root_motion: RootMotion::None,
            masks: Vec::new(),
            additive: BTreeMap::new(),
            texture_variants: Vec::new(),
            far_tier: None,
        }
    }
}
