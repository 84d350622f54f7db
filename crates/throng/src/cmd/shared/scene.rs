//! A frame's inputs and players for the commands that draw (`render`, the viewer): baked
//! assets or source glTF files (baked in memory when the GPU paths need them), each crowd's
//! runtime (CPU- or GPU-timed), and the frame-statistics line.

use anyhow::Context;
use std::path::{Path, PathBuf};
use throng_anim::Model;
use throng_asset::{Aabb, BakedAsset, ClipInfo, Encoding, VatEncoding};
use throng_contract::{InstanceTransform, Timing};
use throng_render::{FrameStats, Playback};
use throng_runtime::crowd::{self, Assignment};
use throng_runtime::{CpuRuntime, GpuRuntime};

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

/// The runtime a crowd plays in, CPU- or GPU-timed, as a game plays it.
pub enum Player {
    Cpu(CpuRuntime),
    /// With every record as of the last update (what [`Player::playback`] draws; the runtime
    /// keeps no copy of them, see `GpuRuntime::collect_records`).
    Gpu(GpuRuntime, Vec<throng_render::GpuInstanceRecord>),
}

impl Player {
    /// A runtime of `timing` for `clips`, with one instance per assignment at its transform,
    /// started at crowd time `time` (see `throng_runtime::crowd::start`).
    pub fn new(
        timing: Timing,
        clips: &[ClipInfo],
        assignments: &[Assignment],
        transforms: &[InstanceTransform],
        time: f64,
        blend: Option<(usize, f32)>,
    ) -> anyhow::Result<Player> {
        let mut p = match timing {
            Timing::Cpu => Player::Cpu(CpuRuntime::new(clips)),
            Timing::Gpu => Player::Gpu(GpuRuntime::new(clips), Vec::new()),
        };
        for (a, t) in assignments.iter().zip(transforms) {
            match &mut p {
                Player::Cpu(rt) => crowd::start(rt, clips, a, *t, time, blend)?,
                Player::Gpu(rt, _) => crowd::start(rt, clips, a, *t, time, blend)?,
            };
        }
        p.refresh();
        Ok(p)
    }

    pub fn update(&mut self, dt: f64) {
        match self {
            Player::Cpu(rt) => rt.update(dt),
            Player::Gpu(rt, _) => rt.update(dt),
        }
        self.refresh();
    }

    /// GPU-timed: brings the records [`Player::playback`] draws up to date — every record when
    /// the count changed, else only those the runtime rewrote since the last refresh.
    fn refresh(&mut self) {
        if let Player::Gpu(rt, records) = self {
            if records.len() != rt.len() {
                *records = rt.collect_records();
            } else {
                for w in rt.record_writes() {
                    records[w.index as usize] = w.record;
                }
            }
            rt.clear_dirty();
        }
    }

    /// Plays `clip` as an overlay layer on every instance (mask number `mask`, 0 = none, for
    /// an additive clip), from clip time `time` (`CpuRuntime::play_layer`).
    pub fn play_layer_all(
        &mut self,
        clip: usize,
        mask: u32,
        weight: f32,
        time: f64,
    ) -> anyhow::Result<()> {
        let opts = throng_runtime::PlayOptions::at(time as f32);
        match self {
            Player::Cpu(rt) => {
                for i in 0..rt.len() {
                    if let Some(h) = rt.handle_at(i) {
                        rt.play_layer(h, clip, mask, weight, opts)?;
                    }
                }
            }
            Player::Gpu(rt, _) => {
                for i in 0..rt.len() {
                    if let Some(h) = rt.handle_at(i) {
                        rt.play_layer(h, clip, mask, weight, opts)?;
                    }
                }
            }
        }
        self.refresh();
        Ok(())
    }

    /// Crossfades every instance to `clip` over `seconds` of clock time.
    pub fn crossfade_all(&mut self, clip: usize, seconds: f32) -> anyhow::Result<()> {
        match self {
            Player::Cpu(rt) => {
                for i in 0..rt.len() {
                    if let Some(h) = rt.handle_at(i) {
                        rt.crossfade(h, clip, seconds)?;
                    }
                }
            }
            Player::Gpu(rt, _) => {
                for i in 0..rt.len() {
                    if let Some(h) = rt.handle_at(i) {
                        rt.crossfade(h, clip, seconds)?;
                    }
                }
            }
        }
        self.refresh();
        Ok(())
    }

    /// The events the last update fired.
    pub fn events(&self) -> &[throng_runtime::FiredEvent] {
        match self {
            Player::Cpu(rt) => rt.events(),
            Player::Gpu(rt, _) => rt.events(),
        }
    }

    /// Instance `i`'s layers as (clip, weight, clip time in seconds), newest last; CPU-timed
    /// players only (`None` for GPU-timed ones, whose clip times the GPU derives).
    pub fn layer_times(&self, i: usize) -> Option<Vec<(usize, f32, f64)>> {
        match self {
            Player::Cpu(rt) => rt.handle_at(i).and_then(|h| rt.layer_times(h).ok()),
            Player::Gpu(..) => None,
        }
    }

    /// The records to draw, as the renderer reads them.
    pub fn playback(&self) -> Playback<'_> {
        match self {
            Player::Cpu(rt) => Playback::Cpu(rt.records()),
            Player::Gpu(rt, records) => Playback::Gpu {
                records,
                clock: rt.gpu_clock(),
            },
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
