//! One input of a frame for the tools that draw (`throng render`, the viewer, the bench): a
//! baked asset or a source glTF (baked in memory when the GPU paths need it). Each crowd plays
//! in a `throng_runtime::Runtime` (`throng_runtime::crowd::new_runtime`).

use anyhow::Context;
use std::path::Path;
use throng_anim::Model;
use throng_asset::{Aabb, BakedAsset, Encoding, VatEncoding};

use crate::{file_name, find_baked_clip, find_clip, load_model, source_bounds, SourceOptions};

/// One input of a frame.
pub enum Input {
    Baked(BakedAsset),
    /// A source glTF, drawn by the reference path.
    Source(Model),
}

/// How a source glTF is baked in memory for the GPU paths.
#[derive(Debug, Clone, Default)]
pub struct InMemoryBake {
    pub encoding: Option<Encoding>,
    pub influences: Option<u32>,
    /// Also bake a VAT (the VAT path needs one).
    pub vat: Option<VatEncoding>,
    /// Clip files and the asset root of the source.
    pub source: SourceOptions,
    /// Nodes to bake anchors for (props attach to them); empty: none.
    pub anchors: Vec<String>,
}

/// A source glTF baked in memory, with a line saying so.
pub fn bake_in_memory(input: &Path, how: &InMemoryBake) -> anyhow::Result<BakedAsset> {
    let model = load_model(input, &how.source)?;
    bake_model(&model, input, how)
}

/// `model` (read from `input`) baked in memory: its warnings and a line saying what was baked
/// go to stderr.
pub fn bake_model(model: &Model, input: &Path, how: &InMemoryBake) -> anyhow::Result<BakedAsset> {
    let defaults = throng_bake::BakeOptions::default();
    let options = throng_bake::BakeOptions {
        source_name: file_name(input),
        encoding: how.encoding.unwrap_or(defaults.encoding),
        influences: how.influences.unwrap_or(defaults.influences),
        // As `throng bake` without flags: 4 or 8 influences by the budget, and the default
        // budget met as closely as it can be (with a warning) rather than refused.
        auto_influences: how.influences.is_none(),
        budget_strict: false,
        vat: how.vat,
        anchors: if how.anchors.is_empty() {
            defaults.anchors
        } else {
            throng_bake::AnchorSelection::Nodes(how.anchors.clone())
        },
        ..defaults
    };
    let (asset, report) = throng_bake::bake(model, &options)
        .with_context(|| format!("baking {} in memory", input.display()))?;
    for w in &report.warnings {
        eprintln!("warning: {}: {w}", input.display());
    }
    eprintln!(
        "baked {} in memory: {}, {} influences, {} clip(s)",
        input.display(),
        asset.bone_texture.encoding,
        asset.settings.influences,
        asset.clips.len()
    );
    Ok(asset)
}

impl Input {
    /// A clip by name or index.
    pub fn clip(&self, name: &str) -> anyhow::Result<usize> {
        match self {
            Input::Baked(a) => find_baked_clip(a, name),
            Input::Source(m) => find_clip(m, name),
        }
    }

    /// Every clip's duration, seconds.
    pub fn durations(&self) -> Vec<f64> {
        match self {
            Input::Baked(a) => a.clips.iter().map(|c| c.duration).collect(),
            Input::Source(m) => m.clips.iter().map(|c| c.duration as f64).collect(),
        }
    }

    /// Bounds of every pose (model space, file units): a baked asset's row bounds, or the
    /// source skinned over its clips — one rule, so every path frames a still alike.
    pub fn bounds(&self) -> Aabb {
        match self {
            Input::Baked(a) => a.pose_bounds(),
            Input::Source(m) => source_bounds(m),
        }
    }

    pub fn baked(&self) -> Option<&BakedAsset> {
        match self {
            Input::Baked(a) => Some(a),
            Input::Source(_) => None,
        }
    }
}
