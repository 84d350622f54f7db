//! A crowd driven by an animation graph (throng-graph, docs/graph.md) instead of clip by clip:
//! the graph file checked against each input's clip table, and parameters set for every
//! instance from text, as a command line or a settings file gives them (`speed=2.5`,
//! `grounded=true`, `attack` for a trigger).

use anyhow::Context;
use std::path::PathBuf;
use throng_asset::BakedAsset;
use throng_graph::{Graph, GraphCrowd, ParamKind};

/// A graph file and the parameter values every instance starts with.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GraphSetup {
    pub path: PathBuf,
    /// (parameter name, value as text; `None` fires a trigger).
    pub params: Vec<(String, Option<String>)>,
}

impl GraphSetup {
    /// `len` instances of `asset` playing the graph in its entry state with these parameters.
    /// Errors name the graph file, the asset and the parameter.
    pub fn crowd(&self, asset: &BakedAsset, len: usize) -> anyhow::Result<GraphCrowd> {
        let graph = Graph::load(&self.path, &asset.clips)
            .with_context(|| format!("playing the graph on {}", asset.source_name))?;
        let mut crowd = GraphCrowd::new(graph, &asset.clips, len);
        for (name, value) in &self.params {
            set_param_text(&mut crowd, name, value.as_deref())
                .with_context(|| format!("{}: parameter {name}", self.path.display()))?;
        }
        Ok(crowd)
    }
}

/// Sets parameter `name` of every instance from text ([`param_value`]).
pub fn set_param_text(
    crowd: &mut GraphCrowd,
    name: &str,
    value: Option<&str>,
) -> anyhow::Result<()> {
    let p = crowd.param(name)?;
    let v = param_value(p.kind, value)?;
    crowd.set_all(p, |_| v)?;
    Ok(())
}

/// A parameter's value from text: a number for a float, a whole number for an int,
/// `true`/`false` (or 1/0) for a bool; a trigger fires (no value, or `true`/1).
pub fn param_value(kind: ParamKind, value: Option<&str>) -> anyhow::Result<f32> {
    if value.is_none() && kind != ParamKind::Trigger {
        anyhow::bail!("a {} parameter needs a value (NAME=VALUE)", kind.name());
    }
    let text = value.unwrap_or("true").trim();
    Ok(match kind {
        ParamKind::Float | ParamKind::Int => text
            .parse()
            .map_err(|_| anyhow::anyhow!("expected a number, not {text:?}"))?,
        ParamKind::Bool | ParamKind::Trigger => match text {
            "true" | "1" => 1.0,
            "false" | "0" => 0.0,
            _ => anyhow::bail!("expected true or false, not {text:?}"),
        },
    })
}
