//! A crowd driven by an animation graph (throng-graph, docs/graph.md) instead of clip by clip:
//! the graph file, read once, checked against each input's clip table, and parameters set for
//! every instance from text, as a command line or a settings file gives them (`speed=2.5`,
//! `grounded=true`, `attack` for a trigger, `speed=0.5..3` for a spread over the instances).

use anyhow::Context;
use std::path::PathBuf;
use throng_asset::BakedAsset;
use throng_graph::{Graph, GraphCrowd, GraphFile, ParamKind};

/// A graph file and the parameter values every instance starts with.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GraphSetup {
    /// The file, as messages name it.
    pub path: PathBuf,
    /// Its text, read once ([`GraphSetup::read`]): every crowd is built from it.
    pub text: String,
    /// (parameter name, value as text, [`param_spec`]; `None` fires a trigger).
    pub params: Vec<(String, Option<String>)>,
}

impl GraphSetup {
    /// Reads the graph file once. Errors name the file.
    pub fn read(path: PathBuf, params: Vec<(String, Option<String>)>) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading the graph {}", path.display()))?;
        Ok(GraphSetup { path, text, params })
    }

    /// What can be checked before any asset is read or baked: the file parses as a graph, and
    /// every parameter given is one of its parameters with a value of its kind. Errors name
    /// the file and the parameter.
    pub fn check_file(&self) -> anyhow::Result<()> {
        let file = self.path.display();
        let parsed = GraphFile::parse(&self.text)
            .with_context(|| format!("{file}: not a valid graph file"))?;
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
            param_spec(p.kind, value.as_deref())
                .with_context(|| format!("{file}: parameter {name}"))?;
        }
        Ok(())
    }

    /// `len` instances of `asset` playing the graph in its entry state with these parameters.
    /// Errors name the graph file, the asset and the parameter.
    pub fn crowd(&self, asset: &BakedAsset, len: usize) -> anyhow::Result<GraphCrowd> {
        let file = self.path.display().to_string();
        let graph = Graph::from_json(&self.text, &file, &asset.clips)
            .with_context(|| format!("playing the graph on {}", asset.source_name))?;
        let mut crowd = GraphCrowd::new(graph, &asset.clips, len)
            .with_context(|| format!("playing the graph on {}", asset.source_name))?;
        for (name, value) in &self.params {
            set_param_text(&mut crowd, name, value.as_deref())
                .with_context(|| format!("{}: parameter {name}", self.path.display()))?;
        }
        Ok(crowd)
    }
}

/// Sets parameter `name` of every instance from text ([`param_spec`]: one value, or a
/// spread over the instances).
pub fn set_param_text(
    crowd: &mut GraphCrowd,
    name: &str,
    value: Option<&str>,
) -> anyhow::Result<()> {
    let p = crowd.param_any(name)?;
    let spec = param_spec(p.kind(), value)?;
    crowd.set_all(p, |i| spec.at(i))?;
    Ok(())
}

/// A parameter's starting value for every instance of a crowd.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamSpec {
    /// The same value for every instance.
    Same(f32),
    /// A float spread uniformly over `[lo, hi)` by instance index (`lo` when they are equal).
    Floats { lo: f32, hi: f32 },
    /// An int spread over `lo..=hi` by instance index.
    Ints { lo: f32, hi: f32 },
}

impl ParamSpec {
    /// Instance `i`'s value: a spread draws it from a hash of the index alone (SplitMix64), so
    /// the same crowd gets the same values on every run and every machine.
    pub fn at(&self, i: usize) -> f32 {
        let u = || {
            let mut z = (i as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            // 24 bits: exactly representable in [0, 1)
            ((z ^ (z >> 31)) >> 40) as f64 / (1u64 << 24) as f64
        };
        match *self {
            ParamSpec::Same(v) => v,
            ParamSpec::Floats { lo, hi } => {
                let v = (lo as f64 + (hi as f64 - lo as f64) * u()) as f32;
                // rounding to f32 may reach hi; the range is half-open
                if v >= hi && hi > lo {
                    lo.max(hi - (hi - lo) * f32::EPSILON)
                } else {
                    v
                }
            }
            ParamSpec::Ints { lo, hi } => {
                let n = hi as f64 - lo as f64 + 1.0;
                (lo as f64 + (n * u()).floor()).min(hi as f64) as f32
            }
        }
    }
}

/// A parameter's starting value from text: one value as [`param_value`] reads it, or for a
/// float or int parameter a spread `LO..HI` over the instances (`0.5..3`: floats in
/// [0.5, 3); `0..2`: the ints 0, 1 and 2), LO ≤ HI, both finite (ints: whole numbers).
pub fn param_spec(kind: ParamKind, value: Option<&str>) -> anyhow::Result<ParamSpec> {
    let Some((lo, hi)) = value.and_then(|v| v.split_once("..")) else {
        return Ok(ParamSpec::Same(param_value(kind, value)?));
    };
    if !matches!(kind, ParamKind::Float | ParamKind::Int) {
        anyhow::bail!("a {} parameter takes one value, not a range", kind.name());
    }
    let (lo, hi) = (param_value(kind, Some(lo))?, param_value(kind, Some(hi))?);
    if lo > hi {
        anyhow::bail!("a range LO..HI needs LO <= HI, not {lo}..{hi}");
    }
    Ok(if kind == ParamKind::Int {
        if lo.fract() != 0.0 || hi.fract() != 0.0 {
            anyhow::bail!("an int parameter's range needs whole numbers, not {lo}..{hi}");
        }
        ParamSpec::Ints { lo, hi }
    } else {
        ParamSpec::Floats { lo, hi }
    })
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
