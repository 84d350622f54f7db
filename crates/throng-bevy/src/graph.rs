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
//!
//! A CPU-timed graph crowd may instead step on the GPU ([`GraphOn`], [`crate::graph_gpu`]):
//! then this module only queues each frame's step, and sends the events as they come back.

use std::borrow::Cow;
use std::sync::Arc;

use bevy::platform::collections::HashMap;
use throng_asset::BakedAsset;

use bevy::prelude::*;
use throng_graph::{EventKind, Graph, GraphCrowd};
use throng_runtime::{Handle, Runtime};

pub use crate::graph_gpu::GraphOn;
use crate::graph_gpu::{GpuLog, GraphLink, MainGpu};
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
    /// Shared with the render world, which places the crowd on the GPU.
    pub(crate) link: Arc<GraphLink>,
    /// Once on the GPU: the clock and the steps whose events are awaited.
    gpu: Option<MainGpu>,
    /// Lost events were reported (once).
    told_lost: bool,
    /// Parameter names whose failed sets were reported (each once).
    told_params: Vec<String>,
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
            link: Arc::default(),
            gpu: None,
            told_lost: false,
            told_params: Vec::new(),
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
                // a new runtime is placed anew: the render world's pass held the old one's
                g.link = Arc::default();
                g.gpu = None;
                // made at the runtime's count just now: the counts agree
                let log = GpuLog::new(Arc::clone(&g.link), rt.len());
                if let Err(e) = rt.attach(crowd).and_then(|()| rt.attach(log)) {
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

/// Sets `value` of parameter `name` on instance `i` of the graph attached to `rt` (the
/// runtime's dense index); on the GPU the value as the graph crowd keeps it is also logged
/// for the next step.
pub(crate) fn set_param(
    rt: &mut Runtime,
    i: usize,
    name: &str,
    value: ParamValue,
) -> Result<(), throng_graph::GraphError> {
    let Some(crowd) = rt.data_mut::<GraphCrowd>() else {
        return Ok(());
    };
    let p = crowd.param_any(name)?;
    // a value of another kind than the parameter's is the graph crowd's `WrongKind` error
    match value {
        ParamValue::Float(v) => crowd.set_float(i, crowd.param(name)?, v),
        ParamValue::Int(v) => crowd.set_int(i, crowd.param(name)?, v),
        ParamValue::Bool(v) => crowd.set_bool(i, crowd.param(name)?, v),
        ParamValue::Trigger => crowd.fire(i, crowd.param(name)?),
    }?;
    let kept = crowd.value_any(i, p).unwrap_or(0.0);
    if let Some(log) = rt.data_mut::<GpuLog>() {
        log.log_change([i as u32, p.index() as u32, kept.to_bits(), 0]);
    }
    Ok(())
}

/// Steps the graph attached to `rt` (if any) by `dt` before the runtime's update. GPU-timed,
/// only the state machines: the runtime, told by `drive_gpu`, writes the records and fires the
/// clip events. Once the render world has placed it on the GPU, nothing: its step is queued
/// in `Last` ([`queue_gpu_step`]).
pub(crate) fn step(g: Option<&mut CrowdGraph>, rt: &mut Runtime, dt: f64) {
    if g.is_some_and(|g| g.link.on_gpu()) {
        return;
    }
    let cpu_timed = rt.cpu().is_some();
    let Some(crowd) = rt.data_mut::<GraphCrowd>() else {
        return;
    };
    match cpu_timed {
        true => crowd.step(dt),
        false => crowd.step_states(dt),
    }
}

/// Queues the render world's step of a graph on the GPU by `dt` seconds, with the frame's
/// spawns, despawns and parameter changes.
pub(crate) fn queue_gpu_step(g: &mut CrowdGraph, rt: &mut Runtime, dt: f64) {
    if g.gpu.is_none() {
        let Some(crowd) = rt.data::<GraphCrowd>() else {
            return;
        };
        g.gpu = Some(MainGpu::new(crowd.clock(), rt));
    }
    if let Some(gpu) = &mut g.gpu {
        gpu.step(rt, &g.link, dt);
    }
}

impl CrowdGraph {
    /// Reports a failed set of parameter `name` by instance entity `e`, once a name: a crowd
    /// whose every instance sets a parameter the graph lacks logs one line, not one a set.
    pub(crate) fn warn_param(&mut self, name: &str, e: Entity, err: &throng_graph::GraphError) {
        if self.told_params.iter().any(|n| n == name) {
            return;
        }
        self.told_params.push(name.to_string());
        warn!(
            "throng: parameter {name:?} of {e} (graph {}): {err}; later failed sets of it are not reported",
            self.source.name
        );
    }

    /// Whether the crowd steps on the GPU.
    pub(crate) fn on_gpu(&self) -> bool {
        self.link.on_gpu()
    }
}

/// The message of clip event `f` of instance `h` of crowd `crowd`.
fn clip_message(
    crowd: Entity,
    names: &ClipEventNames,
    owners: &HashMap<Handle, Entity>,
    h: Handle,
    f: &throng_graph::ClipEvent,
) -> ThrongEvent {
    ThrongEvent {
        crowd,
        entity: owners.get(&h).copied(),
        handle: h,
        clip: f.clip,
        event: f.event,
        name: names.get(f.clip, f.event),
        time: f.time,
    }
}

/// The message of state event `e` of instance `h` of crowd `crowd`, named by `g`'s tables.
fn state_message(
    crowd: Entity,
    g: &CrowdGraph,
    owners: &HashMap<Handle, Entity>,
    h: Handle,
    e: &throng_graph::GraphEvent,
) -> ThrongStateEvent {
    let named = |names: &[Arc<str>], k: usize| names.get(k).cloned().unwrap_or_else(|| "".into());
    ThrongStateEvent {
        crowd,
        entity: owners.get(&h).copied(),
        handle: h,
        state: e.state,
        state_name: named(&g.state_names, e.state.index()),
        event: e.event,
        event_name: named(&g.event_names, e.event.index()),
        enter: e.kind == EventKind::Enter,
    }
}

/// On the GPU: sends the state and clip events of the steps whose read-back has arrived.
fn send_arrived(
    crowd_e: Entity,
    (g, names): (&mut CrowdGraph, &ClipEventNames),
    graph: &Graph,
    owners: &HashMap<Handle, Entity>,
    events: &mut MessageWriter<ThrongEvent>,
    states: &mut MessageWriter<ThrongStateEvent>,
) {
    let Some(gpu) = &mut g.gpu else {
        return;
    };
    let (arrived, lost) = gpu.arrived(&g.link);
    if lost && !g.told_lost {
        g.told_lost = true;
        warn!(
            "throng: the graph {}: some state or clip events of its GPU steps were lost (more \
             than a step's room, or read back too late); later losses are not reported",
            g.source.name
        );
    }
    for a in arrived {
        let (step, t0, dt, handles) = (a.events, a.t0, a.dt, a.handles);
        for e in step.clip {
            let f = throng_graph::ClipEvent::of_words(e, t0, dt);
            let Some(&h) = handles.get(f.instance as usize) else {
                continue;
            };
            events.write(clip_message(crowd_e, names, owners, h, &f));
        }
        for w in step.state {
            let Some(e) = graph.state_event_of_words(w) else {
                continue;
            };
            let Some(&h) = handles.get(e.instance as usize) else {
                continue;
            };
            states.write(state_message(crowd_e, g, owners, h, &e));
        }
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
    let Some(gc) = rt.data::<GraphCrowd>() else {
        return;
    };
    if g.on_gpu() {
        send_arrived(crowd_e, (g, names), gc.graph(), owners, events, states);
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
            events.write(clip_message(crowd_e, names, owners, h, f));
        }
    }
    for e in gc.events() {
        let Some(h) = rt.handle_at(e.instance as usize) else {
            continue;
        };
        states.write(state_message(crowd_e, g, owners, h, e));
    }
}
