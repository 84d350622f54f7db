//! The downlevel mode's culling on the CPU (`throng bench render --cpu-cull N`,
//! docs/downlevel.md): frustum culling and LOD selection of the field's N instances (the scene
//! of [`super::field`]: a grid seen by a low camera at one edge, shadows on) by
//! `Renderer::cpu_cull_lists`, on one core, against the same scene's GPU culling pass
//! (`Renderer::cull_lists`: the records' upload, the dispatch and the read back of the lists,
//! wall time — the lists a frame draws never come back to the CPU, so this is more than the
//! pass costs inside a frame). Medians over the timed frames; the crowd plays (CPU-timed)
//! between frames.

use anyhow::Context;
use std::time::Instant;
use throng_render::{Crowd, Playback, RenderOptions, Renderer, Timing};
use throng_runtime::crowd;

use super::field::{field_asset, field_camera, field_scale, median};
use super::{bench_assignments, load_asset, RenderBenchOptions};

/// What the CPU culling benchmark measures.
#[derive(Debug, Clone)]
pub struct CpuCullOptions {
    pub instances: u32,
    /// LOD index-count ratios of the in-memory bake.
    pub lods: Vec<f32>,
    /// Timed frames (after 2 warm-up frames).
    pub frames: u32,
    /// Height of the camera, in model heights.
    pub eye: f32,
}

/// The report: medians in milliseconds and what the lists held.
#[derive(serde::Serialize)]
pub struct Report {
    adapter: String,
    asset: String,
    instances: u32,
    width: u32,
    height: u32,
    frames: u32,
    /// CPU culling + LOD selection per frame (one thread), median wall time, milliseconds.
    cpu_cull_ms: f64,
    /// The same, the thread's own CPU time (without waiting for a core on a shared machine),
    /// median, milliseconds (None where the clock is missing).
    cpu_cull_thread_ms: Option<f64>,
    /// The GPU culling pass with upload and read back, median wall time, milliseconds (None
    /// on a device without compute shaders).
    gpu_cull_readback_ms: Option<f64>,
    /// Instances in view per LOD and shadow casters per LOD (last frame).
    main_per_lod: Vec<usize>,
    shadow_per_lod: Vec<usize>,
    /// Whether the CPU and GPU lists were equal in every timed frame (None without GPU).
    lists_equal: Option<bool>,
}

/// Runs the benchmark.
pub fn run(options: &RenderBenchOptions, c: &CpuCullOptions) -> anyhow::Result<Report> {
    let n = c.instances;
    let (asset, name) = load_asset(field_asset(options).as_deref(), None, &c.lods)?;
    let mut renderer = Renderer::new().context("creating a GPU device")?;
    let gpu_asset = renderer.upload(&asset)?;
    let (s, height) = field_scale(&asset);
    let transforms = crowd::grid(n, s);
    let assignments = bench_assignments(&asset, n as usize);
    let mut player = crowd::new_runtime(
        Timing::Cpu,
        &asset.clips,
        &assignments,
        &transforms,
        0.0,
        None,
    )?;
    let (w, h) = options.size;
    let opts = RenderOptions {
        width: w,
        height: h,
        camera: Some(field_camera(n, s, height, c.eye)),
        shadows: options.shadows,
        // As `render` gives it: the scene's bounds are not the culling's work.
        scene: Some(throng_render::camera::crowd_bounds(
            &gpu_asset.bounds,
            &transforms,
        )),
        ..Default::default()
    };
    let gpu = renderer.downlevel_reason().is_none();
    let (mut cpu_ms, mut gpu_ms, mut thread_ms) = (Vec::new(), Vec::new(), Vec::new());
    let mut equal = true;
    let mut last = Default::default();
    for f in 0..c.frames.max(1) + 2 {
        player.update(1.0 / 60.0);
        let crowd = Crowd::new(&gpu_asset, &transforms, Playback::from(player.records()));
        let t = Instant::now();
        let t_cpu = crate::runtime::cpu_ns(false);
        let lists = renderer.cpu_cull_lists(&crowd, &opts)?;
        let cpu = t.elapsed().as_secs_f64() * 1e3;
        let on_cpu = t_cpu
            .zip(crate::runtime::cpu_ns(false))
            .map(|(a, b)| b.saturating_sub(a) as f64 * 1e-6);
        if gpu {
            let t = Instant::now();
            let on_gpu = renderer.cull_lists(&crowd, &opts)?;
            let g = t.elapsed().as_secs_f64() * 1e3;
            equal &= on_gpu == lists;
            if f >= 2 {
                gpu_ms.push(g);
            }
        }
        if f >= 2 {
            cpu_ms.push(cpu);
            thread_ms.extend(on_cpu);
        }
        last = lists;
    }
    let last: throng_render::CullLists = last;
    Ok(Report {
        adapter: renderer.adapter().to_string(),
        asset: name,
        instances: n,
        width: w,
        height: h,
        frames: c.frames.max(1),
        cpu_cull_ms: median(&cpu_ms),
        cpu_cull_thread_ms: (!thread_ms.is_empty()).then(|| median(&thread_ms)),
        gpu_cull_readback_ms: gpu.then(|| median(&gpu_ms)),
        main_per_lod: last.main.iter().map(Vec::len).collect(),
        shadow_per_lod: last.shadow.iter().map(Vec::len).collect(),
        lists_equal: gpu.then_some(equal),
    })
}

impl Report {
    /// The report as lines, for people.
    pub fn table(&self) -> String {
        let gpu = match self.gpu_cull_readback_ms {
            Some(ms) => format!(
                "{ms:.2} ms (upload, dispatch and read back; lists equal: {})",
                self.lists_equal == Some(true)
            ),
            None => "none (the device has no compute shaders)".into(),
        };
        format!(
            "adapter: {}\nCPU culling + LOD selection (downlevel mode), {} × {}, {}x{}, {} timed frames\n  CPU, one thread: {:.2} ms per frame (median wall time; {} of the thread's own CPU time)\n  GPU culling pass: {gpu}\n  in view per LOD {:?}, shadow casters per LOD {:?}\n",
            self.adapter,
            self.instances,
            self.asset,
            self.width,
            self.height,
            self.frames,
            self.cpu_cull_ms,
            self.cpu_cull_thread_ms
                .map_or("no clock".to_string(), |ms| format!("{ms:.2} ms")),
            self.main_per_lod,
            self.shadow_per_lod,
        )
    }
}
