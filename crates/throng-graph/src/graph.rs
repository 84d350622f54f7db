//! The checked graph: names resolved to indices into the clip table and the graph's own
//! parameter, state and transition lists, every number checked (docs/graph.md).

use std::path::Path;

use throng_asset::{ClipInfo, LoopMode};

use crate::error::{GraphError, Problem};
use crate::file::{DurationUnit, GraphFile, Interruption, ParamKind};

/// States of one graph: the per-instance state keeps state indices in 16 bits.
pub const MAX_STATES: usize = u16::MAX as usize;

/// Magnitude up to which an int parameter is exact (parameters are kept as f32).
pub const MAX_INT: i32 = 1 << 24;

#[derive(Debug, Clone, PartialEq)]
pub struct Parameter {
    pub name: String,
    pub kind: ParamKind,
    /// Initial value (bool and trigger: 0 or 1; int: an integer).
    pub default: f32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct State {
    pub name: String,
    pub motion: Motion,
    /// Speed factor of normalised time (≥ 0, finite).
    pub speed: f32,
    /// Float parameter multiplying `speed` (negative values count as 0).
    pub speed_parameter: Option<usize>,
    /// Index into [`Graph::events`].
    pub on_enter: Option<u32>,
    pub on_exit: Option<u32>,
}

/// One clip of a motion: its index in the clip table and its duration (seconds).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClipRef {
    pub clip: u32,
    pub duration: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Motion {
    Clip {
        clip: ClipRef,
        loop_mode: LoopMode,
    },
    /// Thresholds strictly increasing and finite; clips loop, synchronised by normalised time.
    Blend1d {
        parameter: usize,
        at: Vec<f32>,
        clips: Vec<ClipRef>,
    },
    /// A grid: `clips[iy * xs.len() + ix]` at `(xs[ix], ys[iy])`, both axes strictly
    /// increasing; bilinear weights, clips loop, synchronised by normalised time.
    Blend2d {
        x: usize,
        y: usize,
        xs: Vec<f32>,
        ys: Vec<f32>,
        clips: Vec<ClipRef>,
    },
}

impl Motion {
    /// The most clip layers the motion shows at once.
    pub fn max_layers(&self) -> usize {
        match self {
            Motion::Clip { .. } => 1,
            Motion::Blend1d { clips, .. } => clips.len().min(2),
            Motion::Blend2d { xs, ys, .. } => xs.len().min(2) * ys.len().min(2),
        }
    }

    /// Every clip the motion may show.
    pub fn clips(&self) -> &[ClipRef] {
        match self {
            Motion::Clip { clip, .. } => std::slice::from_ref(clip),
            Motion::Blend1d { clips, .. } | Motion::Blend2d { clips, .. } => clips,
        }
    }
}

/// A comparison of a parameter with a constant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Test {
    Greater(f32),
    Less(f32),
    GreaterEq(f32),
    LessEq(f32),
    Equal(f32),
    NotEqual(f32),
    /// Bool true or trigger set.
    IsSet,
    /// Bool false.
    IsClear,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Condition {
    pub parameter: usize,
    pub test: Test,
}

impl Condition {
    pub fn holds(&self, v: f32) -> bool {
        match self.test {
            Test::Greater(c) => v > c,
            Test::Less(c) => v < c,
            Test::GreaterEq(c) => v >= c,
            Test::LessEq(c) => v <= c,
            Test::Equal(c) => v == c,
            Test::NotEqual(c) => v != c,
            Test::IsSet => v != 0.0,
            Test::IsClear => v == 0.0,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Transition {
    /// `None`: from any state.
    pub from: Option<usize>,
    pub to: usize,
    pub conditions: Vec<Condition>,
    /// Normalised time of the state it leaves (≥ 0, finite).
    pub exit_time: Option<f64>,
    /// ≥ 0, finite, in `unit`.
    pub duration: f64,
    pub unit: DurationUnit,
    /// Normalised time the target starts at (finite).
    pub offset: f64,
    pub interruption: Interruption,
    /// Trigger parameters among the conditions, consumed when it fires.
    pub triggers: Vec<usize>,
}

/// A checked graph over one asset's clip table.
#[derive(Debug, Clone, PartialEq)]
pub struct Graph {
    pub parameters: Vec<Parameter>,
    pub states: Vec<State>,
    pub transitions: Vec<Transition>,
    pub entry: usize,
    /// Distinct state event names, indexed by [`State::on_enter`] / [`State::on_exit`].
    pub events: Vec<String>,
}

impl Graph {
    /// Reads and checks a graph file against a clip table. Errors name the file and element.
    pub fn load(path: &Path, clips: &[ClipInfo]) -> Result<Graph, GraphError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| GraphError::Io {
            file: file.clone(),
            source,
        })?;
        Graph::from_json(&text, &file, clips)
    }

    /// [`Graph::load`] of text already read; `file` names it in errors.
    pub fn from_json(text: &str, file: &str, clips: &[ClipInfo]) -> Result<Graph, GraphError> {
        let parsed =
            GraphFile::parse(text).map_err(|source| GraphError::json(file, text, source))?;
        Graph::build(&parsed, clips).map_err(|problems| {
            let mut errors = problems.into_iter().filter(Problem::is_error);
            let first = errors.next().unwrap_or(Problem::NoStates);
            GraphError::Invalid {
                file: file.to_string(),
                first,
                more: errors.count(),
            }
        })
    }

    /// Index of a parameter by name; an unknown name is an error (never a silent no-op).
    pub fn parameter(&self, name: &str) -> Result<usize, GraphError> {
        self.parameters
            .iter()
            .position(|p| p.name == name)
            .ok_or_else(|| GraphError::UnknownParameter {
                name: name.to_string(),
                known: self.parameter_names(),
            })
    }

    /// Index of a state by name.
    pub fn state(&self, name: &str) -> Option<usize> {
        self.states.iter().position(|s| s.name == name)
    }

    fn parameter_names(&self) -> String {
        let names: Vec<&str> = self.parameters.iter().map(|p| p.name.as_str()).collect();
        if names.is_empty() {
            "none".into()
        } else {
            names.join(", ")
        }
    }

    /// How a transition is named in messages: `transition 2 ("idle" → "walk")`.
    pub fn transition_label(&self, t: usize) -> String {
        let tr = &self.transitions[t];
        let from = tr.from.map_or("*", |s| self.states[s].name.as_str());
        format!(
            "transition {t} (\"{from}\" -> \"{}\")",
            self.states[tr.to].name
        )
    }
}
