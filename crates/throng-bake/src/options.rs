//! Bake settings (docs/design.md §3).

pub use crate::settings::{AnchorSelection, ClipSettings, EventSetting, RootMotion};
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

/// Default error budget of a bake: 1e-3 of the bounding diagonal between samples (about 2 mm
/// on a 1.8 m character; docs/design.md §3 "Error-budgeted clips").
pub const DEFAULT_MAX_ERROR: MaxError = MaxError::Relative(1e-3);

/// How the frame table is sampled in time (docs/design.md §3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Sampling {
    /// Every clip uniformly at this many frames per second.
    Fixed(f64),
    /// Per clip, on the source's own key times, even irregular ones (see
    /// [`crate::frames::key_times`]); uniform rows when the keys are evenly spaced.
    SourceKeys,
    /// Per clip, the fewest frame times whose matrix lerp keeps every vertex within this error
    /// of reference skinning at every time between samples ([`crate::budget`]).
    MaxError(MaxError),
}

impl Default for Sampling {
    fn default() -> Self {
        Sampling::MaxError(DEFAULT_MAX_ERROR)
    }
}

impl Sampling {
    /// Parses `--fps`: `auto` (the source's keys) or a positive number of frames per second.
    pub fn parse_fps(s: &str) -> Option<Sampling> {
        if s.eq_ignore_ascii_case("auto") {
            return Some(Sampling::SourceKeys);
        }
        s.parse::<f64>()
            .ok()
            .filter(|f| f.is_finite() && *f > 0.0)
            .map(Sampling::Fixed)
    }

    /// As recorded in the file's bake settings: `"auto"`, the number of frames per second, or
    /// `"max-error E"` ([`MaxError::as_setting`]).
    pub fn as_setting(&self) -> String {
        match self {
            Sampling::SourceKeys => "auto".to_string(),
            Sampling::Fixed(f) => format!("{f}"),
            Sampling::MaxError(e) => format!("max-error {}", e.as_setting()),
        }
    }
}

/// An error budget between samples: a fraction of the bounding diagonal, or a length.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MaxError {
    /// Fraction of the diagonal of the reference-skinned vertices' bounding box at each time
    /// measured (the measure of `throng verify`, docs/design.md §7).
    Relative(f64),
    /// File units (metres in a conforming glTF, glTF 2.0 §3.5.4).
    Absolute(f64),
}

impl MaxError {
    /// Parses `1e-3` (a fraction of the bounding diagonal), `2mm`, `0.5cm`, `0.002m` (metres,
    /// the glTF unit) or `0.02u` (file units, whatever the file uses). The value must be finite
    /// and positive; a fraction must be below 1.
    pub fn parse(s: &str) -> Result<MaxError, String> {
        let t = s.trim();
        let (num, scale) = if let Some(n) = t.strip_suffix("mm") {
            (n, Some(1e-3))
        } else if let Some(n) = t.strip_suffix("cm") {
            (n, Some(1e-2))
        } else if let Some(n) = t.strip_suffix('m') {
            (n, Some(1.0))
        } else if let Some(n) = t.strip_suffix('u') {
            (n, Some(1.0))
        } else {
            (t, None)
        };
        let bad = || {
            format!(
                "{s:?} is not an error budget: give a fraction of the bounding diagonal (1e-3), \
                 a length in metres (2mm, 0.5cm, 0.002m) or in file units (0.02u)"
            )
        };
        let v: f64 = num.trim().parse().map_err(|_| bad())?;
        if !(v.is_finite() && v > 0.0) {
            return Err(bad());
        }
        match scale {
            Some(k) => Ok(MaxError::Absolute(v * k)),
            None if v < 1.0 => Ok(MaxError::Relative(v)),
            None => Err(format!(
                "{s:?}: a fraction of the bounding diagonal must be below 1; for a length add a unit (2mm, 0.02u)"
            )),
        }
    }

    /// `1e-3` for a fraction, `0.002u` for a length (file units); [`MaxError::parse`] reads it
    /// back.
    pub fn as_setting(&self) -> String {
        match self {
            MaxError::Relative(r) => format!("{r:e}"),
            MaxError::Absolute(a) => format!("{a}u"),
        }
    }
}

/// Everything [`crate::bake`] can be told.
#[derive(Debug, Clone, PartialEq)]
pub struct BakeOptions {
    /// Name of the source file, used in messages and recorded in the asset.
    pub source_name: String,
    /// How clips are sampled in time: an error budget by default.
    pub sampling: Sampling,
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
    /// Layer masks by joint subtree (docs/design.md §4), in mask-number order.
    pub masks: Vec<crate::masks::MaskSetting>,
    /// Additive clips by name, each with its reference clip time in seconds (docs/design.md
    /// §4): their rows are stored as deltas from the pose at that time. A name no clip has is
    /// an error.
    pub additive: BTreeMap<String, f32>,
}

impl Default for BakeOptions {
    fn default() -> Self {
        BakeOptions {
            source_name: String::new(),
            sampling: Sampling::default(),
            encoding: Encoding::default(),
            influences: 4,
            strict: false,
            max_texture_size: DEFAULT_MAX_TEXTURE_SIZE,
            vat: None,
            lods: Vec::new(),
            clip_settings: BTreeMap::new(),
            anchors: AnchorSelection::None,
            root_motion: RootMotion::None,
            masks: Vec::new(),
            additive: BTreeMap::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_parse_and_print_back() {
        assert_eq!(MaxError::parse("1e-3"), Ok(MaxError::Relative(1e-3)));
        assert_eq!(MaxError::parse("2mm"), Ok(MaxError::Absolute(2e-3)));
        assert_eq!(MaxError::parse("0.5cm"), Ok(MaxError::Absolute(5e-3)));
        assert_eq!(MaxError::parse("0.02u"), Ok(MaxError::Absolute(0.02)));
        assert_eq!(MaxError::parse("0.002m"), Ok(MaxError::Absolute(0.002)));
        for bad in ["", "x", "0", "-1e-3", "NaN", "inf", "2", "1mmm", "mm"] {
            assert!(MaxError::parse(bad).is_err(), "{bad:?}");
        }
        for e in [MaxError::Relative(1e-4), MaxError::Absolute(0.0025)] {
            assert_eq!(MaxError::parse(&e.as_setting()), Ok(e));
        }
        assert_eq!(Sampling::default().as_setting(), "max-error 1e-3");
        assert_eq!(Sampling::parse_fps("auto"), Some(Sampling::SourceKeys));
        assert_eq!(Sampling::parse_fps("30"), Some(Sampling::Fixed(30.0)));
        assert_eq!(Sampling::parse_fps("0"), None);
    }
}
