//! The graph file as written (docs/graph.md): plain serde types, names not yet resolved. The
//! checked, index-based form is [`crate::Graph`].

use serde::{Deserialize, Serialize};
use throng_asset::LoopMode;

/// Version of the graph file format this crate reads.
pub const FORMAT_VERSION: u32 = 1;

/// A whole graph file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphFile {
    /// [`FORMAT_VERSION`].
    pub version: u32,
    #[serde(default)]
    pub parameters: Vec<ParameterFile>,
    pub states: Vec<StateFile>,
    /// The state every instance starts in; default the first state.
    #[serde(default)]
    pub entry: Option<String>,
    #[serde(default)]
    pub transitions: Vec<TransitionFile>,
}

/// The four kinds of parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ParamKind {
    Float,
    Int,
    Bool,
    /// A bool that the transition it fires sets back to false.
    Trigger,
}

impl ParamKind {
    pub fn name(self) -> &'static str {
        match self {
            ParamKind::Float => "float",
            ParamKind::Int => "int",
            ParamKind::Bool => "bool",
            ParamKind::Trigger => "trigger",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParameterFile {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: ParamKind,
    /// Initial value: a number for float and int, true/false for bool (triggers start unset).
    #[serde(default)]
    pub default: Option<serde_json::Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateFile {
    pub name: String,
    pub motion: MotionFile,
    /// Playback speed factor of the state's normalised time (≥ 0, default 1).
    #[serde(default)]
    pub speed: Option<f32>,
    /// A float parameter multiplying `speed` (negative values count as 0).
    #[serde(default)]
    pub speed_parameter: Option<String>,
    /// Event name reported when a transition enters this state.
    #[serde(default)]
    pub on_enter: Option<String>,
    /// Event name reported when a transition leaves this state.
    #[serde(default)]
    pub on_exit: Option<String>,
}

/// What a state plays.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum MotionFile {
    Clip(ClipMotionFile),
    Blend1d(Blend1dFile),
    Blend2d(Blend2dFile),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClipMotionFile {
    /// Clip name in the baked asset's clip table.
    pub name: String,
    /// Overrides the clip table's loop mode.
    #[serde(default, rename = "loop")]
    pub loop_mode: Option<LoopMode>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Blend1dFile {
    /// The float or int parameter placing the blend.
    pub parameter: String,
    /// Clips at strictly increasing thresholds.
    pub points: Vec<Point1dFile>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Point1dFile {
    pub clip: String,
    pub at: f32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Blend2dFile {
    /// The parameters of the two axes (float or int).
    pub x: String,
    pub y: String,
    /// One clip per grid point: every pair of the distinct x and y values exactly once.
    pub points: Vec<Point2dFile>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Point2dFile {
    pub clip: String,
    pub at: [f32; 2],
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransitionFile {
    /// Source state name, or `"*"` for any state.
    pub from: String,
    pub to: String,
    /// All must hold (an and-list; an or is two transitions).
    #[serde(default)]
    pub conditions: Vec<ConditionFile>,
    /// Normalised time of the source state from which the transition may fire.
    #[serde(default)]
    pub exit_time: Option<f64>,
    /// Crossfade length (default 0: a cut).
    #[serde(default)]
    pub duration: f64,
    /// Unit of `duration`.
    #[serde(default)]
    pub duration_unit: DurationUnit,
    /// Normalised time at which the target starts.
    #[serde(default)]
    pub offset: f64,
    /// Which transitions may interrupt this one while it runs.
    #[serde(default)]
    pub interruption: Interruption,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DurationUnit {
    #[default]
    Seconds,
    /// A fraction of the source state's cycle at the moment the transition fires.
    Normalized,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Interruption {
    /// Nothing interrupts it.
    #[default]
    None,
    /// Transitions from the state it leaves, and any-state transitions.
    Source,
    /// Transitions from the state it enters, and any-state transitions.
    Target,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConditionFile {
    pub parameter: String,
    /// `>`, `<`, `>=`, `<=`, `==`, `!=` for numbers; `==`/`!=` for bools; absent for a trigger
    /// (and for a bool: "is true").
    #[serde(default)]
    pub op: Option<String>,
    #[serde(default)]
    pub value: Option<serde_json::Value>,
}

impl GraphFile {
    /// Parses graph JSON (no names resolved yet).
    pub fn parse(text: &str) -> Result<GraphFile, serde_json::Error> {
        serde_json::from_str(text)
    }
}
