//! A crowd driven by an animation graph (throng-graph, docs/graph.md) instead of clip by clip:
//! the graph file checked against each input's clip table, and parameters set for every
//! instance from text, as a command line or a settings file gives them (`speed=2.5`,
//! `grounded=true`, `attack` for a trigger).

use anyhow::Context;
use std::path::PathBuf;
use throng_asset::BakedAsset;
use throng_graph::{Graph, GraphCrowd, GraphFile, ParamKind};

/// A graph file and the parameter values every instance starts with.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GraphSetup {
    pub path: PathBuf,
    /// (parameter name, value as text; `None` fires a trigger).
    pub params: Vec<(String, Option<String>)>,
}

impl GraphSetup {
    /// What can be checked before any asset is read or baked: the file parses as a graph, and
    /// every parameter given is one of its parameters with a value of its kind. Errors name
    /// the file and the parameter.
    pub fn check_file(&self) -> anyhow::Result<()> {
        let file = self.path.display();
        let text = std::fs::read_to_string(&self.path)
            .with_context(|| format!("reading the graph {file}"))?;
        let parsed =
            GraphFile::parse(&text).with_context(|| format!("{file}: not a valid graph file"))?;
        for (name, value) in &self.params {
            let Some(p) = parsed.parameters.iter().find(|p| &p.name == name) else {
                let known: Vec<&str> = parsed.parameters.iter().map(|p| p.name.as_str()).collect();
                anyhow::bail!(
                    "{file}: the graph has no parameter {name:?} (parameters: {})",
                    if known.is_empty() {
                        "none".into()
                    } else {
                        known.join(", ")
                    }
                );
            };
            param_value(p.kind, value.as_deref())
                .with_context(|| format!("{file}: parameter {name}"))?;
        }
        Ok(())
    }

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
        ParamKind::Float | ParamKind::Int => match text.parse::<f32>() {
            Ok(v) if v.is_finite() => v,
            _ => anyhow::bail!("expected a finite number, not {text:?}"),
        },
        ParamKind::Bool | ParamKind::Trigger => match text {
            "true" | "1" => 1.0,
            "false" | "0" => 0.0,
            _ => anyhow::bail!("expected true or false, not {text:?}"),
        },
    })
}
