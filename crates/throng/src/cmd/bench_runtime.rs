//! `throng bench runtime`: frame cost of the per-instance playback runtime (CPU-timed or
//! GPU-timed) on N instances, against a plain fill of the same record bytes and against classic
//! CPU skinning of one character (sampling + linear blend skinning of every vertex), both
//! measured in the same run. Without `--asset` it uses the runtime's built-in synthetic clip
//! table; the skinning baseline uses `--source` (a glTF character) or the built-in fox.

use anyhow::Context;
use std::path::{Path, PathBuf};
use throng_contract::Timing;
use throng_runtime::bench::{self, BenchConfig};

#[derive(clap::Args)]
pub struct Args {
    /// Number of instances (at most 20,000,000: about 5 GB of runtime state).
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..=20_000_000))]
    pub instances: u64,
    /// Playback timing: cpu (every record rewritten each frame) or gpu (records written on change).
    #[arg(long, value_enum, default_value_t = Timing::Cpu)]
    pub mode: Timing,
    /// Fraction of instances given a crossfade to another clip each frame (0..1).
    #[arg(long, default_value_t = 0.0, value_parser = super::shared::parse_fraction)]
    pub changing: f64,
    /// Active layers per instance at rest: 1 (one clip) or 2 (a two-clip blend).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=2))]
    pub layers: u32,
    /// A baked asset (.glb) whose clip table to play.
    #[arg(long, value_name = "FILE")]
    pub asset: Option<PathBuf>,
    /// Timed frames (after up to 30 warm-up frames).
    #[arg(long, default_value_t = 60)]
    pub frames: usize,
    /// glTF character whose CPU skinning is the per-instance baseline (default: the built-in fox).
    #[arg(long, value_name = "GLTF")]
    pub source: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Median time (ns) to pose one instance and skin all its vertices on the CPU: the classic
/// per-character cost that throng replaces.
fn cpu_skinning_ns(source: Option<&PathBuf>) -> anyhow::Result<(String, usize, f64)> {
    let (name, model) = match source {
        Some(p) => (
            p.display().to_string(),
            super::shared::load_model(p, &Default::default())?,
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
    Ok((name, vertices, samples[samples.len() / 2]))
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let clips = match &args.asset {
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
        None => bench::synthetic_clips(),
    };
    let cfg = BenchConfig {
        instances: args.instances as usize,
        mode: args.mode,
        changing: args.changing,
        frames: args.frames.max(1),
        layers: args.layers,
        ..BenchConfig::default()
    };
    let r = bench::run(&cfg, &clips);
    let (skin_name, skin_vertices, skin_ns) = cpu_skinning_ns(args.source.as_ref())?;
    let cheaper = skin_ns / r.ns_per_instance.max(1e-9);
    if args.json {
        let mut v = serde_json::to_value(&r)?;
        v["cpu_skinning_character"] = serde_json::json!(skin_name);
        v["cpu_skinning_vertices"] = serde_json::json!(skin_vertices);
        v["cpu_skinning_ns_per_instance"] = serde_json::json!(skin_ns);
        v["times_cheaper_than_cpu_skinning"] = serde_json::json!(cheaper);
        return Ok(super::shared::print_stdout(&serde_json::to_string_pretty(
            &v,
        )?)?);
    }
    let source = match &args.asset {
        Some(p) => p.display().to_string(),
        None => "built-in synthetic clips".to_string(),
    };
    println!("runtime benchmark ({source}, {} threads)", r.threads);
    println!("  mode                {}", r.mode);
    println!("  instances           {}", r.instances);
    println!("  layers active       {}", r.layers);
    println!(
        "  changing            {} ({} crossfades per frame)",
        r.changing, r.changes_per_frame
    );
    println!(
        "  ms per frame        {:.3} median, {:.3} p90 (update alone {:.3})",
        r.ms_per_frame, r.ms_p90, r.update_ms
    );
    println!("  ns per instance     {:.2}", r.ns_per_instance);
    println!(
        "  fill 64 B × N       {:.3} ms (frame / fill = {:.2})",
        r.memset_ms, r.ratio_to_memset
    );
    println!(
        "  memset 64 B × N     {:.3} ms (frame / memset = {:.2})",
        r.libc_memset_ms, r.ratio_to_libc_memset
    );
    println!("  events per frame    {:.1}", r.events_per_frame);
    if r.mode == "gpu" {
        println!("  records written     {:.1} per frame", r.dirty_per_frame);
        println!(
            "  memory floor        {:.3} ms (frame / floor = {:.2}): one random 64 B \
             read-modify-write and one 64 B list entry per change",
            r.memory_floor_ms, r.ratio_to_memory_floor
        );
    }
    println!(
        "  CPU skinning        {:.0} ns per instance ({skin_name}, {skin_vertices} vertices): \
         the runtime is {cheaper:.0}× cheaper per instance",
        skin_ns
    );
    Ok(())
}
