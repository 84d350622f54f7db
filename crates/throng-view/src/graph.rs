//! The viewer's animation graph (docs/graph.md): every file's crowd played by one graph file
//! instead of the clip panels, its parameters set for every instance from the Graph panel
//! (sliders, toggles, trigger buttons), and one instance's state machine shown there. Each
//! crowd is a `GraphRuntime` (throng-graph-gpu): stepped on the CPU until the first frame is
//! drawn, then where `StepOn` puts it on the window's device (the GPU on a hardware adapter).

use anyhow::Context;
use std::path::PathBuf;
use throng_asset::{BakedAsset, ClipInfo};
use throng_contract::{InstanceRecord, InstanceTransform, Records};
use throng_graph::gpu_layout::MachineStanding;
use throng_graph::{Graph, GraphCrowd, ParamKind};
use throng_graph_gpu::{GraphRuntime, StepOn};
use throng_render::{Gpu, Playback};
use throng_scene::{GraphPlayer, ParamSpec};

/// The graph file, the values its parameters are set to, and per file its crowd.
pub struct ViewGraph {
    pub path: PathBuf,
    /// The file's text, read once: every restart builds its crowds from it.
    text: String,
    /// The graph as checked against the first file's clips (names, kinds, defaults, states).
    pub graph: Graph,
    /// Per parameter, the value every instance has (triggers: 0).
    pub values: Vec<f32>,
    /// Per parameter, a spread over the instances from the command line (`LO..HI`), kept
    /// across restarts until the panel sets the parameter.
    spreads: Vec<Option<ParamSpec>>,
    /// The instance whose state the panel shows.
    pub selected: usize,
    /// Where the crowds are asked to step once the window's device is known.
    step_on: StepOn,
    /// Per file, its crowd and the clip table it was made with.
    crowds: Vec<(GraphPlayer, Vec<ClipInfo>)>,
    /// The crowds were placed on the window's device since the last restart.
    placed: bool,
    /// The first file's records read back from a crowd stepped on the GPU, for the paths
    /// that draw from CPU records (the reference path).
    read_back: Vec<InstanceRecord>,
}

impl ViewGraph {
    /// Reads `path` and checks it against every asset's clips (errors name the file, the
    /// element and the asset).
    pub fn load(
        path: PathBuf,
        assets: &[&BakedAsset],
        step_on: StepOn,
    ) -> anyhow::Result<ViewGraph> {
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading the graph {}", path.display()))?;
        let file = path.display().to_string();
        let first = assets.first().map_or(&[][..], |a| a.clips.as_slice());
        let graph = Graph::from_json(&text, &file, first)?;
        for a in assets.iter().skip(1) {
            Graph::from_json(&text, &file, &a.clips)
                .map_err(|e| anyhow::anyhow!("{e} (in {}, the graph's clips)", a.source_name))?;
        }
        let values = (graph.parameters().iter())
            .map(|p| p.default_value())
            .collect();
        Ok(ViewGraph {
            path,
            text,
            spreads: vec![None; graph.parameters().len()],
            graph,
            values,
            selected: 0,
            step_on,
            crowds: Vec::new(),
            placed: false,
            read_back: Vec::new(),
        })
    }

    /// Starts parameter `name` at `value` (text, as `throng_scene::param_spec` reads it: one
    /// value, or a spread `LO..HI` over the instances, whose midpoint the slider shows): a
    /// trigger fires once the crowds start. Errors name the graph file and the parameter.
    pub fn start_with(&mut self, name: &str, value: Option<&str>) -> anyhow::Result<()> {
        let param = (self.graph.param_any(name))
            .with_context(|| format!("{}: --param {name}", self.path.display()))?;
        let p = param.index();
        let spec = throng_scene::param_spec(param.kind(), value)
            .with_context(|| format!("{}: parameter {name}", self.path.display()))?;
        (self.values[p], self.spreads[p]) = match spec {
            ParamSpec::Same(v) => (v, None),
            ParamSpec::Floats { lo, hi } => ((lo + hi) / 2.0, Some(spec)),
            ParamSpec::Ints { lo, hi } => (((lo + hi) / 2.0).floor(), Some(spec)),
        };
        Ok(())
    }

    /// New crowds, one per asset with `lens[a]` instances, in the entry state with the panel's
    /// values.
    pub fn restart(&mut self, assets: &[&BakedAsset], lens: &[usize]) -> anyhow::Result<()> {
        self.crowds.clear();
        self.placed = false;
        let file = self.path.display().to_string();
        for (a, &n) in assets.iter().zip(lens) {
            let graph = Graph::from_json(&self.text, &file, &a.clips)?;
            let crowd = GraphCrowd::new(graph, &a.clips, n)?;
            let rt = GraphRuntime::new(crowd, &a.clips, None, StepOn::Cpu)?;
            self.crowds.push((GraphPlayer::new(rt), a.clips.clone()));
        }
        for p in 0..self.values.len() {
            match self.spreads[p] {
                Some(spec) => {
                    let param = self.graph.param_any(self.graph.parameters()[p].name())?;
                    for (c, _) in &mut self.crowds {
                        c.rt.set_all(param, |i| spec.at(i))?;
                    }
                }
                None => self.set(p, self.values[p])?,
            }
        }
        Ok(())
    }

    /// Sets parameter `p` of every instance of every crowd to `v` (a trigger fires at 1).
    pub fn set(&mut self, p: usize, v: f32) -> anyhow::Result<()> {
        self.spreads[p] = None;
        let param = self.graph.param_any(self.graph.parameters()[p].name())?;
        for (c, _) in &mut self.crowds {
            c.rt.set_all(param, |_| v)?;
        }
        self.values[p] = match self.graph.parameters()[p].kind() {
            // Fired once: a restart does not fire it again.
            ParamKind::Trigger => 0.0,
            _ => v,
        };
        Ok(())
    }

    pub fn step(&mut self, dt: f64) -> anyhow::Result<()> {
        for (c, _) in &mut self.crowds {
            c.rt.step(dt).context("stepping the graph")?;
        }
        Ok(())
    }

    /// File `a`'s crowd.
    pub fn crowd(&self, a: usize) -> Option<&GraphRuntime> {
        self.crowds.get(a).map(|(c, _)| &c.rt)
    }

    /// Once after a restart, moves the crowds where `StepOn` puts them on `gpu` (the window's
    /// device): returns the line that says where they step, when it is new. A device that
    /// cannot run the pass asked for (`StepOn::Gpu`) is an error once; the crowds go on
    /// stepping on the CPU.
    pub fn place(&mut self, gpu: &Gpu) -> anyhow::Result<Option<String>> {
        if self.placed {
            return Ok(None);
        }
        self.placed = true;
        for (c, clips) in &mut self.crowds {
            c.place(clips, gpu, self.step_on)
                .context("placing the graph crowd (--graph-on cpu steps it on the CPU)")?;
        }
        let first = self.crowds.first().map(|(c, _)| &c.rt);
        let adapter = Some(gpu.summary.name.as_str());
        Ok(first.map(|rt| {
            throng_graph_gpu::where_it_steps(rt.on_gpu(), rt.cpu_because(), adapter, "--graph-on")
        }))
    }

    /// Hands file `a`'s records to its draw (`GraphPlayer::prepare_draw`: a copy on the device
    /// when the GPU steps it, with `transforms` the first time); for the first file, with
    /// `read_back`, also reads them back for a path that draws from CPU records.
    pub fn prepare_draw(
        &mut self,
        a: usize,
        transforms: &[InstanceTransform],
        read_back: bool,
    ) -> anyhow::Result<()> {
        let Some((c, _)) = self.crowds.get_mut(a) else {
            return Ok(());
        };
        c.prepare_draw(transforms, false)
            .context("copying the graph's records")?;
        if a == 0 && read_back && c.rt.on_gpu() {
            self.read_back = c.rt.read_records().context("reading the graph's records")?;
        }
        Ok(())
    }

    /// What file `a`'s crowd is drawn from (after [`Self::prepare_draw`]).
    pub fn playback(&self, a: usize) -> Option<Playback<'_>> {
        self.crowds.get(a).map(|(c, _)| c.playback())
    }

    /// File `a`'s CPU records: the CPU crowd's, or for the first file those read back by
    /// [`Self::prepare_draw`] from the GPU.
    pub fn records(&self, a: usize) -> Option<Records<'_>> {
        let rt = &self.crowds.get(a)?.0.rt;
        match rt.cpu_crowd() {
            Some(c) => Some(Records::Cpu(c.records())),
            None => (a == 0).then_some(Records::Cpu(&self.read_back)),
        }
    }

    /// Where the selected instance of the first file's crowd stands (on the GPU its machine
    /// is read back: one instance, 96 B).
    pub fn standing(&self) -> Option<MachineStanding> {
        self.crowd(0)?.standing(self.selected).ok()
    }
}
