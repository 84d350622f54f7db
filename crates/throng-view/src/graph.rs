//! The viewer's animation graph (docs/graph.md): every file's crowd played by one graph file
//! instead of the clip panels, its parameters set for every instance from the Graph panel
//! (sliders, toggles, trigger buttons), and one instance's state machine shown there.

use anyhow::Context;
use std::path::PathBuf;
use throng_asset::BakedAsset;
use throng_graph::{Graph, GraphCrowd, ParamKind};
use throng_scene::ParamSpec;

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
    crowds: Vec<GraphCrowd>,
}

impl ViewGraph {
    /// Reads `path` and checks it against every asset's clips (errors name the file, the
    /// element and the asset).
    pub fn load(path: PathBuf, assets: &[&BakedAsset]) -> anyhow::Result<ViewGraph> {
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
            crowds: Vec::new(),
        })
    }

    /// Starts parameter `name` at `value` (text, as `throng_scene::param_spec` reads it: one
    /// value, or a spread `LO..HI` over the instances, whose midpoint the slider shows): a
    /// trigger fires once the crowds start. Errors name the graph file and the parameter.
    pub fn start_with(&mut self, name: &str, value: Option<&str>) -> anyhow::Result<()> {
        let param = self.graph.param_any(name)?;
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
        let file = self.path.display().to_string();
        for (a, &n) in assets.iter().zip(lens) {
            let graph = Graph::from_json(&self.text, &file, &a.clips)?;
            self.crowds.push(GraphCrowd::new(graph, &a.clips, n)?);
        }
        for p in 0..self.values.len() {
            match self.spreads[p] {
                Some(spec) => {
                    let name = self.graph.parameters()[p].name();
                    for c in &mut self.crowds {
                        let param = c.param_any(name)?;
                        c.set_all(param, |i| spec.at(i))?;
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
        let name = self.graph.parameters()[p].name();
        for c in &mut self.crowds {
            let param = c.param_any(name)?;
            c.set_all(param, |_| v)?;
        }
        self.values[p] = match self.graph.parameters()[p].kind() {
            // Fired once: a restart does not fire it again.
            ParamKind::Trigger => 0.0,
            _ => v,
        };
        Ok(())
    }

    pub fn step(&mut self, dt: f64) {
        for c in &mut self.crowds {
            c.step(dt);
        }
    }

    /// File `a`'s crowd.
    pub fn crowd(&self, a: usize) -> Option<&GraphCrowd> {
        self.crowds.get(a)
    }
}
