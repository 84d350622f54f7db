//! Graph crowds in the page (docs/web.md "Graph crowds"): the crowd's instances driven by an
//! animation graph (throng-graph's JSON file, docs/graph.md) instead of clip by clip, through
//! throng-graph-gpu's [`GraphRuntime`] — stepped on the GPU or the CPU by the same rule as the
//! command line's (`StepOn`), with parameters set by name and the state and clip events named.
//!
//! While a graph plays, the crowd's instances are the graph's: their number and order are
//! fixed (spawning, despawning and clip commands are refused until `clear`), their
//! transforms may still move.

use throng_contract::Records;
use throng_graph::{kind, EventKind, Graph, GraphCrowd, ParamKind};
use throng_graph_gpu::{GraphPlayer, GraphRuntime, StepOn};
use throng_render::graph_pass::EventCapacity;
use throng_render::{Gpu, Playback};

use crate::error::WebError;
use crate::player::{EventInfo, PageGraph, Player};

/// A state event of a graph crowd's step (a state entered or left that names an event in the
/// graph file's `on_enter` / `on_exit`), with the names a page shows.
#[derive(Debug, Clone, PartialEq)]
pub struct StateEventInfo {
    /// The instance's id (as `spawn` returned it).
    pub instance: u32,
    /// The state entered or left.
    pub state: String,
    /// The event's name in the graph file.
    pub name: String,
    /// `"enter"` or `"exit"`.
    pub kind: &'static str,
}

/// Clip events a step on the GPU keeps per instance in a page (256 at least, 2^20 at most;
/// 32 B each of device memory): a page's frames can be long (a slow device, a tab brought
/// back), and a long step crosses several marks an instance — the fox running with its walk
/// blended in fires eight footsteps a cycle. Measured on index.html (100 foxes set running,
/// SwiftShader's WebGPU, frames of ~250 ms): room for one an instance
/// (`throng_graph_gpu::default_capacity`) and for four lost events; with eight only the two
/// frames of over 10 s after the page loaded did.
const PAGE_CLIP_EVENTS: usize = 8;

/// The `stepOn` option: `"auto"`, `"cpu"` or `"gpu"`.
pub fn step_on(name: &str) -> Result<StepOn, WebError> {
    match name {
        "auto" => Ok(StepOn::Auto),
        "cpu" => Ok(StepOn::Cpu),
        "gpu" => Ok(StepOn::Gpu),
        _ => Err(WebError::Name(format!(
            "unknown stepOn {name:?}: expected auto, cpu or gpu"
        ))),
    }
}

/// A parameter's value from JavaScript: a number for a float or an int (whole), a boolean (or
/// 0/1) for a bool; `Fire` (or `Bool(true)`) for a trigger.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamValue {
    Number(f64),
    Bool(bool),
    /// Fire a trigger.
    Fire,
}

impl Player {
    /// Plays the graph `json` (named `name` in errors) on every instance of the crowd from
    /// now on, each in the graph's entry state, stepped where `on` asks for `gpu` (the device
    /// the crowd draws with; `None` for a headless crowd, which steps on the CPU). The crowd
    /// must be CPU-timed: a graph writes per-layer records (its own timing). Replaces a graph
    /// played before. Errors name the file and what is wrong with it.
    pub fn play_graph(
        &mut self,
        json: &str,
        name: &str,
        gpu: Option<&Gpu>,
        on: StepOn,
    ) -> Result<(), WebError> {
        if self.runtime().timing() != throng_contract::Timing::Cpu {
            return Err(WebError::Name(
                "a graph writes CPU-timed records: create the crowd with timing: \"cpu\" (the default) to play one".into(),
            ));
        }
        if self.is_empty() {
            return Err(WebError::Name(
                "the crowd has no instances: spawn them (spawnCrowd, spawn) before playGraph, which plays the instances there are".into(),
            ));
        }
        let asset = self.asset();
        let graph = Graph::from_json(json, name, &asset.clips)?;
        let crowd = GraphCrowd::new(graph, &asset.clips, self.len())?;
        let mut player =
            GraphPlayer::new(GraphRuntime::new(crowd, &asset.clips, None, StepOn::Cpu)?);
        match gpu {
            Some(gpu) => {
                let n = self.len();
                let clip = (n.saturating_mul(PAGE_CLIP_EVENTS)).clamp(256, 1 << 20);
                let capacity = EventCapacity::for_crowd(n, clip as u32);
                player.place_with_capacity(&asset.clips, gpu, on, capacity)?
            }
            None if on == StepOn::Gpu => {
                return Err(WebError::Name(
                    "stepOn: \"gpu\" needs throng's renderer: a headless crowd steps its graph on the CPU (stepOn: \"auto\" or \"cpu\")".into(),
                ))
            }
            None => {}
        }
        self.graph = Some(PageGraph {
            player,
            moved: false,
            because: None,
        });
        Ok(())
    }

    /// From the next step on, a graph stepped on the GPU takes its events only once their copy
    /// has arrived, never waiting on the device (`GraphRuntime::never_wait_for_events`): what
    /// a browser's main thread needs, where a mapping resolves only after the page's task
    /// returns.
    pub fn never_wait_for_graph_events(&mut self) {
        if let Some(g) = &mut self.graph {
            g.player.rt.never_wait_for_events(true);
        }
    }

    /// Records why the page keeps the playing graph on the CPU ([`Self::graph_cpu_because`]).
    pub fn note_graph_cpu_because(&mut self, why: &str) {
        if let Some(g) = &mut self.graph {
            if !g.player.rt.on_gpu() {
                g.because = Some(why.to_string());
            }
        }
    }

    /// Why the playing graph steps on the CPU, where that was a choice (`stepOn: "auto"`): the
    /// page's reason, else the runtime's (a software adapter, one without compute shaders).
    pub fn graph_cpu_because(&self) -> Option<&str> {
        let g = self.graph.as_ref()?;
        g.because.as_deref().or(g.player.rt.cpu_because())
    }

    /// The graph playing, if any.
    pub fn graph(&self) -> Option<&GraphRuntime> {
        self.graph.as_ref().map(|g| &g.player.rt)
    }

    /// An error when a graph plays: `what` (spawn, a clip command) would change what the
    /// graph owns.
    pub(crate) fn no_graph(&self, what: &str) -> Result<(), WebError> {
        match &self.graph {
            Some(_) => Err(WebError::Name(format!(
                "{what} is refused while a graph plays the crowd (its instances are the graph's); set the graph's parameters instead, or clear() the crowd first"
            ))),
            None => Ok(()),
        }
    }

    /// Sets parameter `name` of instance `id`, or of every instance when `id` is `None`,
    /// for the next step: a float or int to a number, a bool to a boolean, a trigger fired.
    /// Errors: no graph plays, an unknown parameter (the message lists them), a value of
    /// another kind, an instance not alive.
    pub fn set_param(
        &mut self,
        id: Option<u32>,
        name: &str,
        value: ParamValue,
    ) -> Result<(), WebError> {
        let index = match id {
            Some(id) => Some(self.dense_index(id)?),
            None => None,
        };
        let g = self.graph.as_mut().ok_or_else(|| {
            WebError::Name(
                "no graph plays this crowd: call playGraph(json) before setting parameters".into(),
            )
        })?;
        let rt = &mut g.player.rt;
        let p = rt.graph().param_any(name)?;
        let v = kept_value(p.kind(), name, value)?;
        let set = match index {
            None => rt.set_all(p, |_| v),
            Some(i) => match p.kind() {
                ParamKind::Float => rt.set_float(i, rt.param::<kind::Float>(name)?, v),
                ParamKind::Int => rt.set_int(i, rt.param::<kind::Int>(name)?, v as i32),
                ParamKind::Bool => rt.set_bool(i, rt.param::<kind::Bool>(name)?, v != 0.0),
                ParamKind::Trigger => rt.fire(i, rt.param::<kind::Trigger>(name)?),
            },
        };
        Ok(set?)
    }

    /// The graph's step: its clip events as the page names them (on the GPU, the step
    /// before's: [`GraphRuntime::events_frame_late`]).
    pub(crate) fn step_graph(&mut self, dt: f64) -> Result<Vec<EventInfo>, WebError> {
        let Some(g) = self.graph.as_mut() else {
            return Ok(Vec::new());
        };
        g.player.rt.step(dt)?;
        let clips = &self.asset().clips;
        let Some(rt) = self.graph() else {
            return Ok(Vec::new());
        };
        Ok((rt.clip_events().iter())
            .filter_map(|e| {
                let id = self.id_at(e.instance as usize)?;
                EventInfo::named(clips, id, e.clip.index(), e.event, e.time)
            })
            .collect())
    }

    /// The state events of the graph's last step (on the GPU, the step before's), in the
    /// order fired; empty without a graph.
    pub fn state_events(&self) -> Vec<StateEventInfo> {
        let Some(rt) = self.graph() else {
            return Vec::new();
        };
        let graph = rt.graph();
        (rt.state_events().iter())
            .filter_map(|e| {
                Some(StateEventInfo {
                    instance: self.id_at(e.instance as usize)?,
                    state: graph.state(e.state)?.name().to_string(),
                    name: graph.event_name(e.event)?.to_string(),
                    kind: match e.kind {
                        EventKind::Enter => "enter",
                        EventKind::Exit => "exit",
                    },
                })
            })
            .collect()
    }

    /// The records a frame draws: the graph's when one plays (`None` when it steps on the
    /// GPU: they stay on the device), else the runtime's.
    pub fn records(&self) -> Option<Records<'_>> {
        match self.graph() {
            Some(rt) => rt.cpu_crowd().map(|c| Records::Cpu(c.records())),
            None => Some(self.runtime().records()),
        }
    }

    /// What the renderer draws the crowd from: a graph stepped on the GPU is drawn from the
    /// upload its records were copied into ([`Self::prepare_draw`]).
    pub(crate) fn playback(&self) -> Playback<'_> {
        match &self.graph {
            Some(g) => g.player.playback(),
            None => self.runtime().records().into(),
        }
    }

    /// Before a draw: a graph stepped on the GPU hands its records (and moved transforms) to
    /// its upload.
    pub fn prepare_draw(&mut self) -> Result<(), WebError> {
        if let Some(g) = self.graph.as_mut() {
            // nothing to send on the CPU: GraphPlayer::prepare_draw only copies to its upload
            g.player.prepare_draw(self.runtime.transforms(), g.moved)?;
            g.moved = false;
        }
        Ok(())
    }
}

/// The largest int parameter value a graph takes (every int of this magnitude is exact in f32).
const INT_MOST: f64 = (1 << 24) as f64;

/// The value a graph keeps for `value` given to parameter `name` of `kind` (ints and floats
/// as numbers, bools and triggers 0 or 1); the crowd checks the rest (finite, an int's range).
fn kept_value(kind: ParamKind, name: &str, value: ParamValue) -> Result<f32, WebError> {
    let wrong = |wants: &str| {
        Err(WebError::Name(format!(
            "parameter {name} is a {} parameter: it takes {wants}",
            kind.name()
        )))
    };
    match (kind, value) {
        (ParamKind::Int, ParamValue::Number(v)) if v.fract() != 0.0 || v.abs() > INT_MOST => {
            wrong("a whole number of magnitude at most 2^24")
        }
        (ParamKind::Float | ParamKind::Int, ParamValue::Number(v)) => Ok(v as f32),
        (ParamKind::Float | ParamKind::Int, _) => wrong("a number"),
        (ParamKind::Bool, ParamValue::Bool(b)) => Ok(if b { 1.0 } else { 0.0 }),
        (ParamKind::Bool, ParamValue::Number(v)) if v == 0.0 || v == 1.0 => Ok(v as f32),
        (ParamKind::Bool, _) => wrong("true or false"),
        (ParamKind::Trigger, ParamValue::Fire | ParamValue::Bool(true)) => Ok(1.0),
        (ParamKind::Trigger, _) => wrong("no value (fire(name) sets it)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_checked_against_the_parameters_kind() {
        let kept = |kind, v| kept_value(kind, "p", v);
        assert_eq!(
            kept(ParamKind::Int, ParamValue::Number(-3.0)).ok(),
            Some(-3.0)
        );
        for bad in [2.5, 1e10, f64::from(1u32 << 25)] {
            let e = kept(ParamKind::Int, ParamValue::Number(bad)).expect_err("not an int");
            assert!(e.to_string().contains("a whole number"), "{e}");
        }
        assert_eq!(
            kept(ParamKind::Float, ParamValue::Number(0.25)).ok(),
            Some(0.25)
        );
        assert_eq!(
            kept(ParamKind::Bool, ParamValue::Bool(true)).ok(),
            Some(1.0)
        );
        assert_eq!(
            kept(ParamKind::Bool, ParamValue::Number(0.0)).ok(),
            Some(0.0)
        );
        assert!(kept(ParamKind::Bool, ParamValue::Number(0.5)).is_err());
        assert_eq!(kept(ParamKind::Trigger, ParamValue::Fire).ok(), Some(1.0));
        assert!(kept(ParamKind::Trigger, ParamValue::Bool(false)).is_err());
        assert!(kept(ParamKind::Float, ParamValue::Fire).is_err());
        assert_eq!(step_on("gpu").ok(), Some(StepOn::Gpu));
        assert!(step_on("GPU").is_err());
    }
}
