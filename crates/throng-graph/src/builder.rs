//! [`GraphBuilder`]: a graph made in code, with typed ids, and the one way to a [`Graph`]. The
//! JSON reader ([`Graph::from_json`]) is one of its clients: it hands the builder the parsed
//! file. The builder keeps what it is given in the file's form ([`GraphFile`]), so a graph
//! made in code can be written out as JSON ([`GraphBuilder::to_json`]) and both go through the
//! same checks at [`GraphBuilder::build`], every problem named by its element.
//!
//! ```
//! use throng_graph::{GraphBuilder, Interruption};
//! # let clips = throng_runtime::testing::synthetic_clips(); // walk, run, idle, …
//! let mut b = GraphBuilder::new();
//! let speed = b.float("speed", 0.0);
//! let idle = b.clip_state("idle", "idle").id();
//! let moving = b.blend1d_state("move", speed, &[(1.0, "walk"), (3.0, "run")]).id();
//! b.transition(idle, moving)
//!     .when(speed.greater(0.1))
//!     .crossfade(0.25)
//!     .interruption(Interruption::Target);
//! b.transition(moving, idle).when(speed.less_eq(0.1)).crossfade(0.3);
//! let graph = b.build(&clips)?;
//! assert_eq!(graph.states().len(), 2);
//! # Ok::<(), throng_graph::GraphError>(())
//! ```

use std::path::Path;

use serde_json::Value;
use throng_asset::{ClipInfo, LoopMode};

use crate::error::{GraphError, Problem};
use crate::file::{
    Blend1dFile, Blend2dFile, ClipMotionFile, ConditionFile, DurationUnit, GraphFile, Interruption,
    MotionFile, ParameterFile, Point1dFile, Point2dFile, StateFile, TransitionFile, FORMAT_VERSION,
};
use crate::graph::Graph;
use crate::ids::{kind, Kind, Numeric, ParamId, StateId};

/// How [`GraphBuilder::build`] names the graph in its errors.
const BUILT: &str = "graph builder";

/// Builds a [`Graph`] step by step: parameters (each call hands out a [`ParamId`] of its kind),
/// states (a [`StateId`]), transitions with conditions on typed parameters. Nothing is checked
/// until [`GraphBuilder::build`], which reports what is wrong by element, as for a file.
#[derive(Debug, Clone)]
pub struct GraphBuilder {
    file: GraphFile,
}

impl Default for GraphBuilder {
    fn default() -> Self {
        GraphBuilder::new()
    }
}

/// A condition of a transition on one parameter, made by the typed ids' tests
/// (`speed.greater(0.1)`, `sit.fired()`, `crouched.is(true)`).
#[derive(Debug, Clone, PartialEq)]
pub struct When {
    parameter: usize,
    op: Option<&'static str>,
    value: Option<Value>,
}

fn number(v: f64) -> Value {
    // a non-finite value has no JSON form: it stays a string, which the checks name
    serde_json::Number::from_f64(v).map_or_else(|| Value::String(v.to_string()), Value::Number)
}

impl<K: Numeric> ParamId<K> {
    fn compare(self, op: &'static str, v: f64) -> When {
        When {
            parameter: self.index(),
            op: Some(op),
            value: Some(number(v)),
        }
    }

    /// The parameter is greater than `v`.
    pub fn greater(self, v: f64) -> When {
        self.compare(">", v)
    }

    pub fn less(self, v: f64) -> When {
        self.compare("<", v)
    }

    pub fn greater_eq(self, v: f64) -> When {
        self.compare(">=", v)
    }

    pub fn less_eq(self, v: f64) -> When {
        self.compare("<=", v)
    }

    pub fn equals(self, v: f64) -> When {
        self.compare("==", v)
    }

    pub fn not_equals(self, v: f64) -> When {
        self.compare("!=", v)
    }
}

impl ParamId<kind::Bool> {
    /// The bool is `v`.
    pub fn is(self, v: bool) -> When {
        When {
            parameter: self.index(),
            op: Some("=="),
            value: Some(Value::Bool(v)),
        }
    }
}

impl ParamId<kind::Trigger> {
    /// The trigger is set; the transition clears it when it fires.
    pub fn fired(self) -> When {
        When {
            parameter: self.index(),
            op: None,
            value: None,
        }
    }
}

impl GraphBuilder {
    /// An empty graph (no parameters, no states: [`GraphBuilder::build`] asks for one).
    pub fn new() -> GraphBuilder {
        GraphBuilder {
            file: GraphFile {
                version: FORMAT_VERSION,
                parameters: Vec::new(),
                states: Vec::new(),
                entry: None,
                transitions: Vec::new(),
            },
        }
    }

    /// A builder holding a parsed graph file, as [`Graph::from_json`] makes one.
    pub fn from_file(file: GraphFile) -> GraphBuilder {
        GraphBuilder { file }
    }

    /// What the builder holds, in the file's form.
    pub fn file(&self) -> &GraphFile {
        &self.file
    }

    /// The graph as a graph file's JSON text (docs/graph.md), e.g. for `throng graph check`.
    pub fn to_json(&self) -> String {
        // a GraphFile is strings, numbers and bools: serialising it cannot fail
        serde_json::to_string_pretty(&self.file).unwrap_or_default()
    }

    fn param<K: Kind>(&mut self, name: &str, default: Option<Value>) -> ParamId<K> {
        self.file.parameters.push(ParameterFile {
            name: name.to_string(),
            kind: K::KIND,
            default,
        });
        ParamId::new(self.file.parameters.len() - 1)
    }

    /// A float parameter starting at `default`.
    pub fn float(&mut self, name: &str, default: f32) -> ParamId<kind::Float> {
        self.param(name, Some(number(default as f64)))
    }

    /// An int parameter starting at `default` (magnitude at most [`crate::MAX_INT`]).
    pub fn int(&mut self, name: &str, default: i32) -> ParamId<kind::Int> {
        self.param(name, Some(Value::from(default)))
    }

    pub fn bool(&mut self, name: &str, default: bool) -> ParamId<kind::Bool> {
        self.param(name, Some(Value::Bool(default)))
    }

    /// A trigger (starts unset).
    pub fn trigger(&mut self, name: &str) -> ParamId<kind::Trigger> {
        self.param(name, None)
    }

    /// The name of parameter `index`; one of another builder past this one's parameters gets
    /// a name no parameter has, which the checks report.
    fn param_name(&self, index: usize) -> String {
        self.file
            .parameters
            .get(index)
            .map_or_else(|| format!("#{index}"), |p| p.name.clone())
    }

    fn state_name(&self, s: StateId) -> String {
        self.file
            .states
            .get(s.index())
            .map_or_else(|| format!("#{}", s.index()), |st| st.name.clone())
    }

    fn add_state(&mut self, name: &str, motion: MotionFile) -> StateOptions<'_> {
        self.file.states.push(StateFile {
            name: name.to_string(),
            motion,
            speed: None,
            speed_parameter: None,
            on_enter: None,
            on_exit: None,
        });
        let index = self.file.states.len() - 1;
        StateOptions {
            builder: self,
            index,
        }
    }

    /// A state playing clip `clip` of the asset's clip table (its loop mode unless
    /// [`StateOptions::loop_mode`] overrides it).
    pub fn clip_state(&mut self, name: &str, clip: &str) -> StateOptions<'_> {
        self.add_state(
            name,
            MotionFile::Clip(ClipMotionFile {
                name: clip.to_string(),
                loop_mode: None,
            }),
        )
    }

    /// A 1D blend space placed by `by`: `(threshold, clip)` points, thresholds strictly
    /// increasing.
    pub fn blend1d_state<K: Numeric>(
        &mut self,
        name: &str,
        by: ParamId<K>,
        points: &[(f32, &str)],
    ) -> StateOptions<'_> {
        let parameter = self.param_name(by.index());
        let points = (points.iter())
            .map(|&(at, clip)| Point1dFile {
                clip: clip.to_string(),
                at,
            })
            .collect();
        self.add_state(name, MotionFile::Blend1d(Blend1dFile { parameter, points }))
    }

    /// A 2D blend space over a grid: one `([x, y], clip)` point per pair of its distinct x and
    /// y values.
    pub fn blend2d_state<X: Numeric, Y: Numeric>(
        &mut self,
        name: &str,
        (x, y): (ParamId<X>, ParamId<Y>),
        points: &[([f32; 2], &str)],
    ) -> StateOptions<'_> {
        let (x, y) = (self.param_name(x.index()), self.param_name(y.index()));
        let points = (points.iter())
            .map(|&(at, clip)| Point2dFile {
                clip: clip.to_string(),
                at,
            })
            .collect();
        self.add_state(name, MotionFile::Blend2d(Blend2dFile { x, y, points }))
    }

    /// Options of a state added before.
    pub fn state(&mut self, s: StateId) -> StateOptions<'_> {
        StateOptions {
            builder: self,
            index: s.index(),
        }
    }

    /// The state instances start in (default: the first added).
    pub fn entry(&mut self, s: StateId) -> &mut GraphBuilder {
        self.file.entry = Some(self.state_name(s));
        self
    }

    fn add_transition(&mut self, from: String, to: StateId) -> TransitionOptions<'_> {
        let to = self.state_name(to);
        self.file.transitions.push(TransitionFile {
            from,
            to,
            conditions: Vec::new(),
            exit_time: None,
            duration: 0.0,
            duration_unit: DurationUnit::Seconds,
            offset: 0.0,
            interruption: Interruption::None,
        });
        let index = self.file.transitions.len() - 1;
        TransitionOptions {
            builder: self,
            index,
        }
    }

    /// A transition from `from` to `to` (a cut until [`TransitionOptions::crossfade`]); it
    /// needs a condition or an exit time.
    pub fn transition(&mut self, from: StateId, to: StateId) -> TransitionOptions<'_> {
        let from = self.state_name(from);
        self.add_transition(from, to)
    }

    /// A transition to `to` from whatever state an instance is in.
    pub fn transition_from_any(&mut self, to: StateId) -> TransitionOptions<'_> {
        self.add_transition("*".into(), to)
    }

    /// Every problem against `clips` (errors in element order), or the graph.
    pub fn check(&self, clips: &[ClipInfo]) -> Result<Graph, Vec<Problem>> {
        Graph::resolve(&self.file, clips)
    }

    /// The checked graph; the first error names its element, with the count of the others
    /// ([`GraphBuilder::check`] lists them all).
    pub fn build(&self, clips: &[ClipInfo]) -> Result<Graph, GraphError> {
        self.build_named(BUILT, clips)
    }

    /// [`GraphBuilder::build`] with errors naming `file`.
    pub(crate) fn build_named(&self, file: &str, clips: &[ClipInfo]) -> Result<Graph, GraphError> {
        self.check(clips).map_err(|problems| {
            let mut errors = problems.into_iter().filter(Problem::is_error);
            let first = errors.next().unwrap_or(Problem::NoStates);
            GraphError::Invalid {
                file: file.to_string(),
                first,
                more: errors.count(),
            }
        })
    }
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
        GraphBuilder::from_file(parsed).build_named(file, clips)
    }
}

/// Options of one state, chained after [`GraphBuilder::clip_state`] and its kin.
pub struct StateOptions<'a> {
    builder: &'a mut GraphBuilder,
    index: usize,
}

impl StateOptions<'_> {
    /// The state's id, for transitions.
    pub fn id(&self) -> StateId {
        StateId(self.index.min(u16::MAX as usize) as u16)
    }

    fn file(&mut self) -> Option<&mut StateFile> {
        self.builder.file.states.get_mut(self.index)
    }

    /// Speed factor of the state's normalised time (≥ 0, finite; default 1).
    pub fn speed(mut self, speed: f32) -> Self {
        if let Some(s) = self.file() {
            s.speed = Some(speed);
        }
        self
    }

    /// A float parameter multiplying the speed (negative values count as 0).
    pub fn speed_by(mut self, p: ParamId<kind::Float>) -> Self {
        let name = self.builder.param_name(p.index());
        if let Some(s) = self.file() {
            s.speed_parameter = Some(name);
        }
        self
    }

    /// The event reported when a transition enters the state.
    pub fn on_enter(mut self, event: &str) -> Self {
        if let Some(s) = self.file() {
            s.on_enter = Some(event.to_string());
        }
        self
    }

    /// The event reported when a transition leaves the state.
    pub fn on_exit(mut self, event: &str) -> Self {
        if let Some(s) = self.file() {
            s.on_exit = Some(event.to_string());
        }
        self
    }

    /// Overrides the clip table's loop mode of a clip state (a blend space's clips loop).
    pub fn loop_mode(mut self, mode: LoopMode) -> Self {
        if let Some(StateFile {
            motion: MotionFile::Clip(c),
            ..
        }) = self.file()
        {
            c.loop_mode = Some(mode);
        }
        self
    }
}

/// Options of one transition, chained after [`GraphBuilder::transition`].
pub struct TransitionOptions<'a> {
    builder: &'a mut GraphBuilder,
    index: usize,
}

impl TransitionOptions<'_> {
    fn file(&mut self) -> Option<&mut TransitionFile> {
        self.builder.file.transitions.get_mut(self.index)
    }

    /// A condition that must hold (all of a transition's must; an or is two transitions).
    pub fn when(mut self, c: When) -> Self {
        let parameter = self.builder.param_name(c.parameter);
        if let Some(t) = self.file() {
            t.conditions.push(ConditionFile {
                parameter,
                op: c.op.map(str::to_string),
                value: c.value,
            });
        }
        self
    }

    /// The normalised time of the state it leaves from which it may fire.
    pub fn exit_time(mut self, t: f64) -> Self {
        if let Some(f) = self.file() {
            f.exit_time = Some(t);
        }
        self
    }

    /// A crossfade of `seconds`.
    pub fn crossfade(mut self, seconds: f64) -> Self {
        if let Some(f) = self.file() {
            f.duration = seconds;
            f.duration_unit = DurationUnit::Seconds;
        }
        self
    }

    /// A crossfade of `cycles` of the state it leaves (its cycle when the transition fires).
    pub fn crossfade_cycles(mut self, cycles: f64) -> Self {
        if let Some(f) = self.file() {
            f.duration = cycles;
            f.duration_unit = DurationUnit::Normalized;
        }
        self
    }

    /// The normalised time the target starts at.
    pub fn offset(mut self, t: f64) -> Self {
        if let Some(f) = self.file() {
            f.offset = t;
        }
        self
    }

    /// Which transitions may interrupt it while it runs.
    pub fn interruption(mut self, i: Interruption) -> Self {
        if let Some(f) = self.file() {
            f.interruption = i;
        }
        self
    }
}
