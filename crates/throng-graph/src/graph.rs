//! The checked graph: names resolved to indices into the clip table and the graph's own
//! parameter, state and transition lists, every number checked (docs/graph.md).

use throng_asset::LoopMode;

use crate::error::GraphError;
use crate::file::{DurationUnit, Interruption, ParamKind};
use crate::ids::{kind, EventId, Kind, Param, ParamId, StateId};

/// States of one graph: the per-instance state keeps state indices in 16 bits.
pub const MAX_STATES: usize = u16::MAX as usize;

/// Magnitude up to which an int parameter is exact (parameters are kept as f32).
pub const MAX_INT: i32 = 1 << 24;

#[derive(Debug, Clone, PartialEq)]
pub struct Parameter {
    pub(crate) name: String,
    pub(crate) kind: ParamKind,
    /// Initial value (bool and trigger: 0 or 1; int: an integer).
    pub(crate) default: f32,
}

impl Parameter {
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn kind(&self) -> ParamKind {
        self.kind
    }

    /// Initial value as kept (bool and trigger: 0 or 1; int: an integer).
    pub fn default_value(&self) -> f32 {
        self.default
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct State {
    pub(crate) name: String,
    pub(crate) motion: Motion,
    /// Speed factor of normalised time (≥ 0, finite).
    pub(crate) speed: f32,
    /// Float parameter multiplying `speed` (negative values count as 0).
    pub(crate) speed_parameter: Option<usize>,
    pub(crate) on_enter: Option<EventId>,
    pub(crate) on_exit: Option<EventId>,
}

impl State {
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn motion(&self) -> &Motion {
        &self.motion
    }

    /// Speed factor of normalised time (≥ 0, finite).
    pub fn speed(&self) -> f32 {
        self.speed
    }

    /// The float parameter multiplying [`State::speed`] (negative values count as 0).
    pub fn speed_parameter(&self) -> Option<ParamId<kind::Float>> {
        self.speed_parameter.map(ParamId::new)
    }

    /// The event reported when a transition enters the state.
    pub fn on_enter(&self) -> Option<EventId> {
        self.on_enter
    }

    /// The event reported when a transition leaves the state.
    pub fn on_exit(&self) -> Option<EventId> {
        self.on_exit
    }
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
    /// Index in [`Graph::parameters`].
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
    pub(crate) from: Option<usize>,
    pub(crate) to: usize,
    pub(crate) conditions: Vec<Condition>,
    /// Normalised time of the state it leaves (≥ 0, finite).
    pub(crate) exit_time: Option<f64>,
    /// ≥ 0, finite, in `unit`.
    pub(crate) duration: f64,
    pub(crate) unit: DurationUnit,
    /// Normalised time the target starts at (finite).
    pub(crate) offset: f64,
    pub(crate) interruption: Interruption,
    /// Trigger parameters among the conditions, consumed when it fires.
    pub(crate) triggers: Vec<usize>,
}

impl Transition {
    /// The state it leaves; `None`: any state.
    pub fn from(&self) -> Option<StateId> {
        self.from.map(|s| StateId(s as u16))
    }

    pub fn to(&self) -> StateId {
        StateId(self.to as u16)
    }

    /// All must hold for it to fire.
    pub fn conditions(&self) -> &[Condition] {
        &self.conditions
    }

    /// Normalised time of the state it leaves from which it may fire (≥ 0, finite).
    pub fn exit_time(&self) -> Option<f64> {
        self.exit_time
    }

    /// Crossfade length (≥ 0, finite) and its unit.
    pub fn duration(&self) -> (f64, DurationUnit) {
        (self.duration, self.unit)
    }

    /// Normalised time the target starts at (finite).
    pub fn offset(&self) -> f64 {
        self.offset
    }

    pub fn interruption(&self) -> Interruption {
        self.interruption
    }
}

/// A checked graph over one asset's clip table, made by [`crate::GraphBuilder::build`] (or
/// read from its JSON file, [`Graph::load`]). Sealed: its parts are read through getters, so
/// every graph a crowd steps is one the checks passed.
#[derive(Debug, Clone, PartialEq)]
pub struct Graph {
    pub(crate) parameters: Vec<Parameter>,
    pub(crate) states: Vec<State>,
    pub(crate) transitions: Vec<Transition>,
    pub(crate) entry: usize,
    /// Distinct state event names, indexed by [`EventId`].
    pub(crate) events: Vec<String>,
}

impl Graph {
    /// Parameters in declaration order ([`ParamId::index`]).
    pub fn parameters(&self) -> &[Parameter] {
        &self.parameters
    }

    /// States in declaration order ([`StateId::index`]).
    pub fn states(&self) -> &[State] {
        &self.states
    }

    pub fn transitions(&self) -> &[Transition] {
        &self.transitions
    }

    /// The state every instance starts in.
    pub fn entry(&self) -> StateId {
        StateId(self.entry as u16)
    }

    /// Distinct state event names ([`EventId::index`]).
    pub fn events(&self) -> &[String] {
        &self.events
    }

    /// The name of a state event; `None` for an id of another graph past this one's events.
    pub fn event_name(&self, e: EventId) -> Option<&str> {
        self.events.get(e.index()).map(String::as_str)
    }

    /// A state; `None` for an id of another graph past this one's states.
    pub fn state(&self, s: StateId) -> Option<&State> {
        self.states.get(s.index())
    }

    /// The parameter `name` of kind `K`; an unknown name or another kind is an error (never a
    /// silent no-op).
    pub fn param<K: Kind>(&self, name: &str) -> Result<ParamId<K>, GraphError> {
        let p = self.param_any(name)?;
        p.typed().ok_or_else(|| GraphError::WrongKind {
            name: name.to_string(),
            found: p.kind().name(),
        })
    }

    /// The parameter `name`, its kind known at run time.
    pub fn param_any(&self, name: &str) -> Result<Param, GraphError> {
        self.parameters
            .iter()
            .position(|p| p.name == name)
            .map(|i| Param::new(i, self.parameters[i].kind))
            .ok_or_else(|| GraphError::UnknownParameter {
                name: name.to_string(),
                known: self.parameter_names(),
            })
    }

    /// The state `name`.
    pub fn state_id(&self, name: &str) -> Option<StateId> {
        self.states
            .iter()
            .position(|s| s.name == name)
            .map(|i| StateId(i as u16))
    }

    pub(crate) fn parameter_names(&self) -> String {
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
