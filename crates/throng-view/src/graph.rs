//! The viewer's animation graph (docs/graph.md): every file's crowd played by one graph file
//! instead of the clip panels, its parameters set for every instance from the Graph panel
//! (sliders, toggles, trigger buttons), and one instance's state machine shown there.

use anyhow::Context;
use std::path::PathBuf;
use throng_asset::BakedAsset;
use throng_graph::{Graph, GraphCrowd, ParamKind};

/// The graph file, the values its parameters are set to, and per file its crowd.
pub struct ViewGraph {
    pub path: PathBuf,
    /// The graph as checked against the first file's clips (names, kinds, defaults, states).
    pub graph: Graph,
    /// Per parameter, the value every instance has (triggers: 0).
    pub values: Vec<f32>,
    /// The instance whose state the panel shows.
    pub selected: usize,
    crowds: Vec<GraphCrowd>,
}

impl ViewGraph {
    /// Reads `path` and checks it against every asset's clips (errors name the file, the
    /// element and the asset).
    pub fn load(path: PathBuf, assets: &[&BakedAsset]) -> anyhow::Result<ViewGraph> {
        let first = assets.first().map_or(&[][..], |a| a.clips.as_slice());
        let graph = Graph::load(&path, first)?;
        for a in assets.iter().skip(1) {
            Graph::load(&path, &a.clips)
                .map_err(|e| anyhow::anyhow!("{e} (in {}, the graph's clips)", a.source_name))?;
        }
        let values = (graph.parameters.iter()).map(|p| p.default).collect();
        Ok(ViewGraph {
            path,
            graph,
            values,
            selected: 0,
            crowds: Vec::new(),
        })
    }

    /// Starts parameter `name` at `value` (text, as `throng_scene::param_value` reads it): a
    /// trigger fires once the crowds start. Errors name the graph file and the parameter.
    pub fn start_with(&mut self, name: &str, value: Option<&str>) -> anyhow::Result<()> {
        let p = self.graph.parameter(name)?;
        let v = throng_scene::param_value(self.graph.parameters[p].kind, value)
            .with_context(|| format!("{}: parameter {name}", self.path.display()))?;
        self.values[p] = v;
        Ok(())
    }

    /// New crowds, one per asset with `lens[a]` instances, in the entry state with the panel's
    /// values.
    pub fn restart(&mut self, assets: &[&BakedAsset], lens: &[usize]) -> anyhow::Result<()> {
        self.crowds.clear();
        for (a, &n) in assets.iter().zip(lens) {
            let graph = Graph::load(&self.path, &a.clips)?;
            self.crowds.push(GraphCrowd::new(graph, &a.clips, n));
        }
        for p in 0..self.values.len() {
            self.set(p, self.values[p])?;
        }
        Ok(())
    }

    /// Sets parameter `p` of every instance of every crowd to `v` (a trigger fires at 1).
    pub fn set(&mut self, p: usize, v: f32) -> anyhow::Result<()> {
        let name = &self.graph.parameters[p].name;
        for c in &mut self.crowds {
            let param = c.param(name)?;
            c.set_all(param, |_| v)?;
        }
        self.values[p] = match self.graph.parameters[p].kind {
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
