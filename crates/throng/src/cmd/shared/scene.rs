//! A frame's inputs for the commands that draw (`render`, the viewer): baked assets or source
//! glTF files (baked in memory when the GPU paths need them), and the frame-statistics line.
//! Each crowd plays in a `throng_runtime::Runtime` (`throng_runtime::crowd::new_runtime`).

use anyhow::Context;
use std::path::{Path, PathBuf};
use throng_anim::Model;
use throng_asset::{Aabb, BakedAsset, Encoding, VatEncoding};
use throng_render::FrameStats;

use super::{file_name, find_baked_clip, find_clip, load_model, source_bounds, SourceArgs};

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
    pub source: SourceArgs,
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
        options.influences,
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

/// Instances drawn per LOD, `LOD 0: 3, LOD 1: 5` (`none` when nothing was drawn).
pub fn lod_counts(s: &FrameStats) -> String {
    let lods: Vec<String> = s
        .instances_per_lod
        .iter()
        .enumerate()
        .map(|(l, n)| format!("LOD {l}: {n}"))
        .collect();
    if lods.is_empty() {
        "none".to_string()
    } else {
        lods.join(", ")
    }
}

/// One line of a frame's statistics: draw calls, instances drawn per LOD, triangles, shadow
/// casters, (palette path) the palettes written.
pub fn stats_line(s: &FrameStats) -> String {
    let palette = if s.palette_instances > 0 {
        format!(
            "; palette pass: {} instances{}",
            s.palette_instances,
            s.palette_ns
                .map(|ns| format!(" ({:.2} ms)", ns as f64 * 1e-6))
                .unwrap_or_default()
        )
    } else {
        String::new()
    };
    format!(
        "frame: {} draw calls ({} shadow), {} culling dispatches; {} instances drawn ({}), \
         {} triangles; shadows: {} instances, {} triangles{palette}{}",
        s.draws,
        s.shadow_draws,
        s.dispatches,
        s.instances_drawn,
        lod_counts(s),
        s.triangles,
        s.shadow_instances,
        s.shadow_triangles,
        s.gpu_ns
            .map(|ns| format!("; GPU {:.2} ms (timestamp queries)", ns as f64 * 1e-6))
            .unwrap_or_default()
    )
}

/// Inputs of very different sizes are drawn in their own units: a warning says so.
pub fn warn_mixed_scales(paths: &[PathBuf], sizes: &[Aabb]) {
    let d: Vec<f32> = sizes.iter().map(|b| b.diagonal()).collect();
    let (small, large) = d
        .iter()
        .fold((f32::MAX, 0.0f32), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    if d.len() > 1 && small > 0.0 && large > 10.0 * small {
        let each: Vec<String> = d
            .iter()
            .zip(paths)
            .map(|(x, p)| format!("{}: {x:.3}", p.display()))
            .collect();
        eprintln!(
            "warning: the inputs differ in size by {:.0}× (bounding diagonals {}); they are drawn \
             in their own file units, so the smallest may be too small to see",
            large / small,
            each.join(", ")
        );
    }
}
