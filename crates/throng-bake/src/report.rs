//! What a bake did, for people and tools: rates, fallbacks, dropped weights, warnings.

use serde::Serialize;
use throng_asset::Encoding;

/// One clip of the frame table as baked.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClipReport {
    pub name: String,
    /// Frames per second the clip was sampled at.
    pub fps: f64,
    /// The source's key rate (keys per second): the most common key interval's.
    pub key_rate: Option<f64>,
    /// How the clip was sampled: `30 fps`, `source keys`, `max-error 1e-3`, …
    pub sampling: String,
    pub frames: u32,
    pub first_row: u32,
    /// Seconds.
    pub duration: f64,
    /// Shortest and longest interval between frames, seconds (equal for uniform clips).
    pub min_step: f64,
    pub max_step: f64,
    /// Under an error budget: the two parts of the clip's error.
    pub error: Option<ErrorParts>,
}

/// The two parts of an error-budgeted clip's error, in the budget's unit (a fraction of the
/// bounding diagonal, or file units): their sum is what the budget bounds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ErrorParts {
    /// Largest error between samples from lerping the exact skin matrices of neighbouring
    /// frames (the placement's re-check, `crate::budget`).
    pub between: f64,
    /// Largest error at the sample times: the encoding's and the K-influence cut's.
    pub at_samples: f64,
    /// The budget they share, and whether it (and both parts) are in file units rather than
    /// fractions of the bounding diagonal.
    pub budget: f64,
    pub in_file_units: bool,
    /// Segments where no spacing meets the budget (a jump in the source): start and end
    /// (seconds) and the error there (file units).
    pub unmet: Vec<(f32, f32, f64)>,
}

/// A `quat-*` encoding that could not represent a skin matrix, and where.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fallback {
    /// The encoding asked for.
    #[serde(serialize_with = "ser_encoding")]
    pub requested: Encoding,
    /// The encoding used instead (`mat3x4-f32`).
    #[serde(serialize_with = "ser_encoding")]
    pub used: Encoding,
    /// Palette entry, its node index and name.
    pub entry: usize,
    pub node: usize,
    pub node_name: String,
    /// Clip name (`rest` for row 0) and the frame within it.
    pub clip: String,
    pub frame: u32,
    pub why: String,
}

fn ser_encoding<S: serde::Serializer>(e: &Encoding, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(e.as_str())
}

/// Everything [`crate::bake`] reports besides the asset.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BakeReport {
    pub palette_size: usize,
    /// Palette entries that belong to rigid parts.
    pub rigid_entries: usize,
    pub primitives: usize,
    /// Frame-table rows (rest row included) and array layers.
    pub rows: u32,
    pub layers: u32,
    #[serde(serialize_with = "ser_encoding")]
    pub encoding: Encoding,
    pub fallback: Option<Fallback>,
    pub clips: Vec<ClipReport>,
    pub texture_bytes: usize,
    /// Largest (normalised) weight cut off by the K-influence limit; 0 when none was.
    pub max_dropped_weight: f32,
    /// Vertices that had more than K influences.
    pub vertices_lost_weight: usize,
    /// Vertices whose weights were all zero (bound to their skin's first joint).
    pub zero_weight_vertices: usize,
    /// Vertices whose weights were renormalised.
    pub renormalised_vertices: usize,
    /// One sentence each: weight repairs, fallbacks, dropped weights, limits.
    pub warnings: Vec<String>,
}
