//! Animation graphs for crowds (docs/graph.md): state machines of clips and blend spaces over
//! one baked asset's clip table, whose transitions fire on per-instance parameters, evaluated
//! for every instance in one parallel step that writes throng's CPU-timed records.
//!
//! - [`GraphBuilder`]: a graph made in code with typed ids ([`ParamId`], [`StateId`]), checked
//!   against a clip table into a sealed [`Graph`]; [`GraphFile`], the JSON file as written, is
//!   one of its inputs ([`Graph::load`]). Every error typed and naming the file and element.
//! - [`check`] / [`lint`]: errors and warnings (`throng graph check`); [`to_dot`]: Graphviz.
//! - [`GraphCrowd`]: per-instance parameters and state machines in struct-of-arrays form;
//!   [`GraphCrowd::step`] advances all of them and writes one 64 B
//!   [`throng_contract::InstanceRecord`] each, ready for the renderer
//!   ([`GraphCrowd::record_changes`]), and reports state events and the clip events of the
//!   clips it plays ([`ClipEvent`], by the runtime's crossing rule); [`drive_gpu`] tells a GPU-timed runtime what the
//!   instances that changed ([`GraphCrowd::changed`]) now show.
//!
//! Times are seconds; *normalised time* counts cycles of a state (1 = one pass of its clip, or
//! of a blend space's synchronised clips).

mod build;
mod builder;
mod check;
mod clip_events;
mod crowd;
mod dot;
mod error;
pub mod file;
mod gpu;
pub mod gpu_layout;
mod graph;
mod ids;
mod machine;
mod motion;

/// The built-in fox's locomotion graph (`graphs/demo-fox-locomotion.json`): idle, a walk/run
/// blend space by `speed`, and `sit` on a trigger; `throng demo` drives its crowd with it.
pub const DEMO_FOX_LOCOMOTION: &str = include_str!("../graphs/demo-fox-locomotion.json");

pub use builder::{GraphBuilder, StateOptions, TransitionOptions, When};
pub use check::{check, lint};
pub use clip_events::{ClipEvent, MAX_CYCLES};
pub use crowd::{GraphCrowd, CHUNK};
pub use dot::to_dot;
pub use error::{GraphError, Problem};
pub use file::{DurationUnit, GraphFile, Interruption, ParamKind, FORMAT_VERSION};
pub use gpu::{drive_gpu, Commands};
pub use gpu_layout::GraphLayout;
pub use graph::{
    ClipRef, Condition, Graph, Motion, Parameter, State, Test, Transition, MAX_INT, MAX_STATES,
};
pub use ids::{kind, EventId, Kind, Numeric, Param, ParamId, StateId};
pub use machine::{EventKind, GraphEvent, GraphLayer, LayerSet};
/// Loop modes of clips, as the builder's [`StateOptions::loop_mode`] takes them (throng-asset's).
pub use throng_asset::LoopMode;
