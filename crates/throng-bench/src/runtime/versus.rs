//! The runtime against classic CPU skinning (`throng bench runtime`): the harness on a baked
//! asset's clip table (or the built-in synthetic one), then the median time to pose one
//! character and skin all its vertices on the CPU — the per-character cost throng replaces —
//! measured in the same run.

use anyhow::Context;
use std::path::{Path, PathBuf};

use super::{BenchConfig, BenchReport};

/// What to measure.
#[derive(Debug, Clone, Default)]
pub struct VersusOptions {
    pub config: BenchConfig,
    /// A baked asset whose clip table to play (`None`: the built-in synthetic clips).
    pub asset: Option<PathBuf>,
    /// A glTF character whose CPU skinning is the baseline (`None`: the built-in fox).
    pub source: Option<PathBuf>,
}

/// Classic CPU skinning of one character: the per-instance baseline.
#[derive(Debug, Clone)]
pub struct CpuSkinning {
    /// The character: its file, or "built-in fox".
    pub character: String,
    pub vertices: usize,
    /// Median time to pose it and skin every vertex, nanoseconds.
    pub ns_per_instance: f64,
}

/// The runtime's report beside the baseline.
#[derive(Debug, Clone)]
pub struct Versus {
    pub report: BenchReport,
    /// Where the clips came from: the asset's path, or "built-in synthetic clips".
    pub clips: String,
    pub skinning: CpuSkinning,
}

/// Runs the harness, then the baseline.
pub fn measure(options: &VersusOptions) -> anyhow::Result<Versus> {
    let clips = match &options.asset {
        Some(path) => {
            let asset = throng_asset::read(path)
                .with_context(|| format!("loading the baked asset {}", path.display()))?;
            if asset.clips.is_empty() {
                anyhow::bail!(
                    "{} has no clips to play; bake it from a file with animations",
                    path.display()
                );
            }
            asset.clips
        }
        None => throng_runtime::testing::synthetic_clips(),
    };
    let report = super::run(&options.config, &clips);
    let skinning = cpu_skinning(options.source.as_deref())?;
    let clips = match &options.asset {
        Some(p) => p.display().to_string(),
        None => "built-in synthetic clips".to_string(),
    };
    Ok(Versus {
        report,
        clips,
        skinning,
    })
}

/// Median time (ns) to pose one instance and skin all its vertices on the CPU: the classic
/// per-character cost that throng replaces.
fn cpu_skinning(source: Option<&Path>) -> anyhow::Result<CpuSkinning> {
    let (name, model) = match source {
        Some(p) => (
            p.display().to_string(),
            throng_scene::load_model(p, &Default::default())?,
        ),
        None => (
            "built-in fox".to_string(),
            throng_gltf::import_slice(&throng_demo::demo_glb(), None, "demo.glb")?,
        ),
    };
    throng_gltf::check_animatable(&model, Path::new(&name))?;
    let mut skinner = throng_anim::ModelSkinner::new(&model);
    let vertices = skinner.vertex_count(&model);
    let clip = (!model.clips.is_empty()).then_some(0);
    let duration = clip.map(|c| model.clips[c].duration).unwrap_or(0.0);
    let mut out = Vec::new();
    let mut samples = Vec::with_capacity(50);
    for i in 0..50 {
        let t = std::time::Instant::now();
        let time = duration * (i as f32 / 50.0);
        skinner.skin(&model, clip, time, throng_anim::Skinning::Linear, &mut out);
        std::hint::black_box(&out);
        samples.push(t.elapsed().as_nanos() as f64);
    }
    samples.sort_by(f64::total_cmp);
    Ok(CpuSkinning {
        character: name,
        vertices,
        ns_per_instance: samples[samples.len() / 2],
    })
}

impl Versus {
    /// How many times cheaper per instance the runtime is than CPU skinning.
    pub fn times_cheaper(&self) -> f64 {
        self.skinning.ns_per_instance / self.report.ns_per_instance.max(1e-9)
    }

    /// The report as JSON: the runtime's fields and the baseline's.
    pub fn json(&self) -> anyhow::Result<String> {
        let mut v = serde_json::to_value(&self.report)?;
        v["cpu_skinning_character"] = serde_json::json!(self.skinning.character);
        v["cpu_skinning_vertices"] = serde_json::json!(self.skinning.vertices);
        v["cpu_skinning_ns_per_instance"] = serde_json::json!(self.skinning.ns_per_instance);
        v["times_cheaper_than_cpu_skinning"] = serde_json::json!(self.times_cheaper());
        Ok(serde_json::to_string_pretty(&v)?)
    }

    /// The report as a table, one figure a line (no newline after the last).
    pub fn table(&self) -> String {
        let r = &self.report;
        let k = &self.skinning;
        let mut lines = vec![
            format!("runtime benchmark ({}, {} threads)", self.clips, r.threads),
            format!("  mode                {}", r.mode),
            format!("  instances           {}", r.instances),
            format!("  layers active       {}", r.layers),
            format!(
                "  changing            {} ({} crossfades per frame)",
                r.changing, r.changes_per_frame
            ),
            format!(
                "  ms per frame        {:.3} median, {:.3} p90 (update alone {:.3})",
                r.ms_per_frame, r.ms_p90, r.update_ms
            ),
            format!("  ns per instance     {:.2}", r.ns_per_instance),
            format!(
                "  fill 64 B × N       {:.3} ms (frame / fill = {:.2})",
                r.memset_ms, r.ratio_to_memset
            ),
            format!(
                "  memset 64 B × N     {:.3} ms (frame / memset = {:.2})",
                r.libc_memset_ms, r.ratio_to_libc_memset
            ),
            format!("  events per frame    {:.1}", r.events_per_frame),
        ];
        if r.mode == "cpu" {
            lines.push(if r.full_state {
                "  state               full (--full-state: the compact state off)".to_string()
            } else {
                format!(
                    "  compact state       {} of {} instances, {} layer set(s) (12 B read a steady \
                     frame; --full-state turns it off)",
                    r.compact_instances, r.instances, r.compact_sets
                )
            });
        }
        if r.mode == "cpu" {
            lines.push(format!(
                "  state floor         {:.3} ms (frame / floor = {:.2}, floor / memset = {:.2}): \
                 the full state's bytes moved without arithmetic",
                r.state_floor_ms,
                r.ratio_to_state_floor,
                if r.libc_memset_ms > 0.0 {
                    r.state_floor_ms / r.libc_memset_ms
                } else {
                    0.0
                }
            ));
        }
        if r.compact_floor_ms > 0.0 && r.libc_memset_ms > 0.0 {
            lines.push(format!(
                "  16 B state sketch   {:.3} ms (sketch / memset = {:.2}, sketch / frame = {:.2}): \
                 two loops from integer phases and a shared layer set, read-only: the compact \
                 state's loop alone, as its floor",
                r.compact_floor_ms,
                r.compact_floor_ms / r.libc_memset_ms,
                if r.ms_per_frame > 0.0 {
                    r.compact_floor_ms / r.ms_per_frame
                } else {
                    0.0
                }
            ));
        }
        if r.mode == "gpu" {
            lines.push(format!(
                "  records written     {:.1} per frame",
                r.dirty_per_frame
            ));
            lines.push(format!(
                "  memory floor        {:.3} ms (frame / floor = {:.2}): one random 64 B \
                 read-modify-write and one 64 B list entry per change",
                r.memory_floor_ms, r.ratio_to_memory_floor
            ));
        }
        lines.push(format!(
            "  CPU skinning        {:.0} ns per instance ({}, {} vertices): the runtime is \
             {:.0}× cheaper per instance",
            k.ns_per_instance,
            k.character,
            k.vertices,
            self.times_cheaper()
        ));
        lines.join("\n")
    }
}
