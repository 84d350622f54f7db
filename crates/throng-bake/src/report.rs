//! What a bake did, for people and tools: rates, fallbacks, dropped weights, warnings.

use crate::sampling::{MaxError, Sampling};
use serde::Serialize;
use std::fmt;
use throng_asset::Encoding;

/// One clip of the frame table as baked.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClipReport {
    pub name: String,
    /// Frames per second the clip was sampled at.
    pub fps: f64,
    /// The source's key rate (keys per second): the most common key interval's.
    pub key_rate: Option<f64>,
    /// How the clip was sampled (printed `30 fps`, `source keys`, `max-error 1e-3`, …).
    #[serde(serialize_with = "as_text")]
    pub sampling: ClipSampling,
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

/// How one clip was sampled: by its own rate or by the bake's sampling.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ClipSampling {
    /// The clip's own uniform rate ([`crate::ClipSettings::fps`]), frames per second.
    ClipFps(f64),
    /// The bake's [`Sampling`] (under an error budget, also a zero-length clip's one frame).
    Bake(Sampling),
}

/// `30 fps (clip setting)`, or the bake's sampling as [`Sampling`] prints it.
impl fmt::Display for ClipSampling {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClipSampling::ClipFps(fps) => f.pad(&format!("{fps} fps (clip setting)")),
            ClipSampling::Bake(s) => s.fmt(f),
        }
    }
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
    /// The budget they share; its unit is theirs. Written as it prints (`1e-3`, `0.5u`).
    #[serde(serialize_with = "as_text")]
    pub budget: MaxError,
    /// Segments where no spacing meets the budget (a jump in the source): start and end
    /// (seconds) and the error there (file units).
    pub unmet: Vec<(f32, f32, f64)>,
}

impl ErrorParts {
    /// Whether the error at the samples alone takes more than half the budget, leaving little
    /// room between frames: a finer encoding or more influences per vertex would free it.
    pub fn samples_crowd_the_budget(&self) -> bool {
        self.at_samples > 0.5 * self.budget.value()
    }

    /// Whether both parts together exceed the budget.
    pub fn over_budget(&self) -> bool {
        self.between + self.at_samples > self.budget.value()
    }
}

/// A `quat-*` encoding that could not represent a skin matrix, and where.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fallback {
    /// The encoding asked for.
    pub requested: Encoding,
    /// The encoding used instead (`mat3x4-f32`).
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

/// A value as it prints, for fields whose type is printed rather than taken apart.
fn as_text<T: fmt::Display, S: serde::Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(v)
}

/// Everything [`crate::bake()`] reports besides the asset.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BakeReport {
    /// Influences per vertex baked (with automatic influences, the count chosen).
    pub influences: u32,
    pub palette_size: usize,
    /// Palette entries that belong to rigid parts.
    pub rigid_entries: usize,
    pub primitives: usize,
    /// Frame-table rows (rest row included) and array layers.
    pub rows: u32,
    pub layers: u32,
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
