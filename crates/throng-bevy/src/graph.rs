//! Crowds driven by an animation graph (docs/graph.md): a [`ThrongCrowd`] made
//! [`ThrongCrowd::with_graph`] attaches a `throng_graph::GraphCrowd` to its runtime, which
//! keeps one graph instance per runtime instance in its dense order; instance entities set its
//! parameters through [`ThrongParams`], and its state events arrive as [`ThrongStateEvent`]
//! messages.
//!
//! Per frame (in `advance_crowds`): the graph steps every instance; CPU-timed, its records are
//! what the GPU reads (the runtime then only holds transforms) and its clip events become
//! [`crate::ThrongEvent`]s; GPU-timed, the instances whose playback changed are told the
//! commands that make the runtime show their state (`throng_graph::drive_gpu`, exact outside
//! crossfades, see docs/graph.md "GPU-timed crowds") and the runtime fires the clip events.

use std::borrow::Cow;
use std::sync::Arc;

use bevy::platform::collections::HashMap;
use throng_asset::BakedAsset;

use bevy::prelude::*;
use throng_graph::{EventKind, Graph, GraphCrowd};
use throng_runtime::{Handle, Runtime};

pub use crate::messages::ThrongStateEvent;
use crate::messages::{ClipEventNames, ThrongEvent};

/// A graph file's JSON text and the name its messages use; parsed against the clip table once
/// the crowd's asset has loaded.
#[derive(Clone, Debug)]
pub struct GraphSource {
    pub name: String,
    pub json: Arc<str>,
}

/// A crowd's graph: its source, and once the asset has loaded the names its messages use (the
/// graph crowd itself is attached to the runtime; after an error, which is logged once, none
/// is).
pub(crate) struct CrowdGraph {
    pub(crate) source: GraphSource,
    pub(crate) failed: bool,
    /// The graph's state and event names, made once it is parsed.
    state_names: Vec<Arc<str>>,
    event_names: Vec<Arc<str>>,
    /// Dense-order runtime handles (GPU-timed: who `drive_gpu` tells), reused across frames.
    handles: Vec<Handle>,
}

impl GraphSource {
    /// The graph `json` (a graph file's text), called `name` in messages.
    pub fn new(name: impl Into<String>, json: impl Into<Arc<str>>) -> GraphSource {
        GraphSource {
            name: name.into(),
            json: json.into(),
        }
    }
}

impl CrowdGraph {
    pub(crate) fn new(source: GraphSource) -> CrowdGraph {
        CrowdGraph {
            source,
            failed: false,
            state_names: Vec::new(),
            event_names: Vec::new(),
            handles: Vec::new(),
        }
    }
}

/// A parameter value an instance entity sets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamValue {
    Float(f32),
    Int(i32),
    Bool(bool),
    /// Fires a trigger (consumed by the transition it fires).
    Trigger,
}

/// Parameter changes of one instance entity of a graph-driven crowd, applied in order by the
/// plugin in `PostUpdate` (then cleared). An unknown name or a value of another kind is
/// logged and skipped. A name written in the code (`&'static str`) is kept as it is: queuing a
/// change allocates nothing once the list has grown.
#[derive(Component, Default, Debug, Clone)]
pub struct ThrongParams {
    pub changes: Vec<(Cow<'static, str>, ParamValue)>,
}

impl ThrongParams {
    pub fn set_float(&mut self, name: impl Into<Cow<'static, str>>, v: f32) -> &mut Self {
        self.changes.push((name.into(), ParamValue::Float(v)));
        self
    }
    pub fn set_int(&mut self, name: impl Into<Cow<'static, str>>, v: i32) -> &mut Self {
        self.changes.push((name.into(), ParamValue::Int(v)));
        self
    }
    pub fn set_bool(&mut self, name: impl Into<Cow<'static, str>>, v: bool) -> &mut Self {
        self.changes.push((name.into(), ParamValue::Bool(v)));
        self
    }
    pub fn fire(&mut self, name: impl Into<Cow<'static, str>>) -> &mut Self {
        self.changes.push((name.into(), ParamValue::Trigger));
        self
    }
}

/// Parses the graph against the asset's clips (once) and attaches it to `rt`, one graph
/// instance per instance; `false` if it failed.
pub(crate) fn ensure_graph(g: &mut CrowdGraph, baked: &BakedAsset, rt: &mut Runtime) -> bool {
    // a new runtime (the asset loaded again) gets the graph again
    if rt.data::<GraphCrowd>().is_none() && !g.failed {
        let made = Graph::from_json(&g.source.json, &g.source.name, &baked.clips)
            .and_then(|graph| GraphCrowd::new(graph, &baked.clips, rt.len()));
        match made {
            Ok(crowd) => {
                let graph = crowd.graph();
                g.state_names = (graph.states().iter()).map(|s| s.name().into()).collect();
                g.event_names = (graph.events().iter()).map(|e| e.as_str().into()).collect();
                // made at the runtime's count just now: the counts agree
                if let Err(e) = rt.attach(crowd) {
                    error!("throng: the graph {}: {e}", g.source.name);
                    g.failed = true;
                }
            }
            Err(e) => {
                error!("throng: {e}");
                g.failed = true;
            }
        }
    }
    rt.data::<GraphCrowd>().is_some()
}

/// Sets `value` of parameter `name` on dense instance `i`.
pub(crate) fn set_param(
    crowd: &mut GraphCrowd,
    i: usize,
    name: &str,
    value: ParamValue,
) -> Result<(), throng_graph::GraphError> {
    // a value of another kind than the parameter's is the graph crowd's `WrongKind` error
    match value {
        ParamValue::Float(v) => crowd.set_float(i, crowd.param(name)?, v),
        ParamValue::Int(v) => crowd.set_int(i, crowd.param(name)?, v),
        ParamValue::Bool(v) => crowd.set_bool(i, crowd.param(name)?, v),
        ParamValue::Trigger => crowd.fire(i, crowd.param(name)?),
    }
}

/// Steps the graph attached to `rt` (if any) by `dt` before the runtime's update. GPU-timed,
/// only the state machines: the runtime, told by `drive_gpu`, writes the records and fires the
/// clip events.
pub(crate) fn step(rt: &mut Runtime, dt: f64) {
    let cpu_timed = rt.cpu().is_some();
    let Some(crowd) = rt.data_mut::<GraphCrowd>() else {
        return;
    };
    match cpu_timed {
        true => crowd.step(dt),
        false => crowd.step_states(dt),
    }
}

/// After the runtime's update: GPU-timed, tells the runtime what changed; sends the graph's
/// state events and, CPU-timed, its clip events.
pub(crate) fn after_update(
    crowd_e: Entity,
    (g, rt, names): (&mut CrowdGraph, &mut Runtime, &ClipEventNames),
    owners: &HashMap<Handle, Entity>,
    events: &mut MessageWriter<ThrongEvent>,
    states: &mut MessageWriter<ThrongStateEvent>,
) {
    if rt.data::<GraphCrowd>().is_none() {
        return;
    }
    let gpu_timed = rt.cpu().is_none();
    if gpu_timed {
        g.handles.clear();
        g.handles
            .extend((0..rt.len()).filter_map(|i| rt.handle_at(i)));
        let handles = &g.handles;
        let told = rt.with_data::<GraphCrowd, _>(|gc, rt| throng_graph::drive_gpu(gc, rt, handles));
        if let Some(Err(e)) = told {
            warn!("throng: the graph {}: {e}", g.source.name);
        }
    }
    let Some(gc) = rt.data::<GraphCrowd>() else {
        return;
    };
    if !gpu_timed {
        for f in gc.clip_events() {
            let Some(h) = rt.handle_at(f.instance as usize) else {
                continue;
            };
            events.write(ThrongEvent {
                crowd: crowd_e,
                entity: owners.get(&h).copied(),
                handle: h,
                clip: f.clip,
                event: f.event,
                name: names.get(f.clip, f.event),
                time: f.time,
            });
        }
    }
    let unnamed = || Arc::from("");
    for e in gc.events() {
        let Some(h) = rt.handle_at(e.instance as usize) else {
            continue;
        };
        states.write(ThrongStateEvent {
            crowd: crowd_e,
            entity: owners.get(&h).copied(),
            handle: h,
            state: e.state,
            state_name: (g.state_names.get(e.state.index()).cloned()).unwrap_or_else(unnamed),
            event: e.event,
            event_name: (g.event_names.get(e.event.index()).cloned()).unwrap_or_else(unnamed),
            enter: e.kind == EventKind::Enter,
        });
    }
}
