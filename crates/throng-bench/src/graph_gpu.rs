//! `throng bench graph`: animation graphs stepped on the GPU (docs/graph.md "On the GPU") at
//! scale. N instances of the built-in fox's locomotion graph, a fraction of their `speed`
//! parameters changing each frame: the CPU's part of a frame (building the change list,
//! uploading it and submitting the step) and the GPU's (timestamp queries, where the device has
//! them), against the GPU-timed plain runtime's frame at the same change rate
//! ([`crate::runtime`], GPU-timed, crossfades), measured alternately in the same run. Both
//! sides play the fox's clips without their clip events by default (with its footsteps the
//! runtime fires ~180,000 a frame at 1,000,000, which is most of its frame);
//! [`GraphGpuConfig::clip_events`] plays them with their footsteps on both sides, the pass
//! firing them on the GPU and the ratio also counting taking them a frame late
//! (`GraphPass::take_events`, timed in every run as `events_ms`; reading them at once,
//! `GraphPass::read_events`, is timed beside it as `read_ms`).

use serde::Serialize;
use std::time::Instant;
use throng_graph::{Graph, GraphCrowd};
use throng_render::graph_pass::{GraphPass, ParamChange};

#[derive(Debug, Clone)]
pub struct GraphGpuConfig {
    pub instances: usize,
    /// Fraction of instances whose `speed` changes each frame.
    pub changing: f64,
    /// Timed frames per round (after 10 warm-up frames).
    pub frames: usize,
    /// Rounds, each timing the plain runtime then the graph pass.
    pub rounds: usize,
    /// Play the clips with their clip events (footsteps) on both sides.
    pub clip_events: bool,
}

impl Default for GraphGpuConfig {
    fn default() -> Self {
        GraphGpuConfig {
            instances: 1_000_000,
            changing: 0.01,
            frames: 30,
            rounds: 3,
            clip_events: false,
        }
    }
}

/// One round's medians, milliseconds.
#[derive(Debug, Clone, Serialize)]
pub struct GraphGpuRound {
    /// The GPU-timed plain runtime's frame (`throng bench runtime --mode gpu`).
    pub runtime_ms: f64,
    /// The graph pass's CPU part of a frame: building the change list and `GraphPass::step`.
    pub graph_cpu_ms: f64,
    /// Of which `GraphPass::step` (uploading the list, encoding and submitting the pass).
    pub step_ms: f64,
    /// The graph pass on the GPU (parameter changes and step); `None` without timestamps.
    pub graph_gpu_ms: Option<f64>,
    /// Taking the last step's events a frame late (`GraphPass::take_events`, at the start of
    /// the next frame: the copy the step queued, put in order). The bench waits for every step
    /// before the next frame, so this is the take with its copy arrived — what a frame loop
    /// pays when the GPU finishes a step within a frame (on lavapipe, where a step of a
    /// million takes seconds, a real loop's take would wait for it).
    pub events_ms: f64,
    /// Reading the step's events at once instead (`GraphPass::read_events`, also after the
    /// step finished: two round trips to the GPU, the counts then the lists).
    pub read_ms: f64,
    /// `graph_cpu_ms / runtime_ms`; with clip events, `(graph_cpu_ms + events_ms) /
    /// runtime_ms` (the runtime's frame includes firing its events).
    pub ratio: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct GraphGpuReport {
    pub instances: usize,
    pub changes_per_frame: usize,
    pub adapter: String,
    pub rounds: Vec<GraphGpuRound>,
    /// Whether both sides played the clip events.
    pub clip_events: bool,
    /// State and clip events the pass kept a frame.
    pub events_per_frame: f64,
    /// Some frame fired more events than the pass keeps.
    pub events_lost: bool,
}

impl GraphGpuReport {
    /// A table for people.
    pub fn table(&self) -> String {
        let mut s = format!(
            "GPU graph step: {} instances of the built-in fox's locomotion graph, {} speed changes a frame, clip events {}, {}\n\
             ratio = graph CPU ms{} / plain runtime CPU ms (issue 50's target: at most 1.5); events timed after each step has finished\n\
             round | plain runtime (GPU-timed) CPU ms | graph CPU ms (of which the step call) | events taken a frame late ms | events read at once ms | ratio | graph GPU ms\n",
            self.instances,
            self.changes_per_frame,
            if self.clip_events { "on" } else { "off" },
            self.adapter,
            if self.clip_events {
                " (+ events taken a frame late)"
            } else {
                ""
            }
        );
        for (k, r) in self.rounds.iter().enumerate() {
            let gpu = r
                .graph_gpu_ms
                .map_or("—".to_string(), |g| format!("{g:.2}"));
            s += &format!(
                "{} | {:.3} | {:.3} ({:.3}) | {:.3} | {:.3} | {:.2} | {gpu}\n",
                k + 1,
                r.runtime_ms,
                r.graph_cpu_ms,
                r.step_ms,
                r.events_ms,
                r.read_ms,
                r.ratio
            );
        }
        s += &format!("events a frame: {:.0}", self.events_per_frame);
        if self.events_lost {
            s += " (some frames fired more than the pass keeps)";
        }
        s
    }
}

use throng_runtime::crowd::SplitMix64 as Rng;

/// A speed: a third stand (0), the rest walk to run (0.5 to 3.5).
fn speed(rng: &mut Rng) -> f32 {
    if rng.next_u64().is_multiple_of(3) {
        0.0
    } else {
        rng.range((0.5, 3.5)) as f32
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

/// Runs the rounds on the first adapter throng-render finds.
pub fn measure(cfg: &GraphGpuConfig) -> anyhow::Result<GraphGpuReport> {
    let n = cfg.instances.max(1);
    let changes = ((n as f64 * cfg.changing).round() as usize).min(n);
    let glb = throng_demo::demo_glb();
    let model = throng_gltf::import_slice(&glb, None, "throng-demo-fox.glb")?;
    let options = throng_bake::BakeOptions {
        source_name: "throng-demo-fox.glb".into(),
        ..Default::default()
    };
    let clips = throng_bake::bake(&model, &options)?.0.clips;
    let graph = Graph::from_json(
        throng_graph::DEMO_FOX_LOCOMOTION,
        "demo-fox-locomotion.json",
        &clips,
    )?;
    let gpu = throng_render::Gpu::new()?;
    let mut silent = clips.clone();
    for c in &mut silent {
        c.events.clear();
    }
    let played = if cfg.clip_events { &clips } else { &silent };
    let mut crowd = GraphCrowd::new(graph.clone(), played, n)?;
    let speed_param = crowd.param::<throng_graph::kind::Float>("speed")?;
    let mut rng = Rng(31);
    crowd.set_all(speed_param, |_| speed(&mut rng))?;
    let mut pass = throng_graph_gpu::graph_pass(
        &gpu,
        &crowd,
        played,
        // the fox's graph fires no state events; ~0.11 clip events an instance a frame
        throng_render::graph_pass::EventCapacity {
            state: (n / 4 + 64) as u32,
            clip: (n / 2 + 64) as u32,
        },
    )?;
    drop(crowd);
    let param = speed_param.index() as u32;
    let ticks = (throng_runtime::TICKS_PER_SECOND as f64 / 60.0).round() as u64;
    // which instances already have a change this frame (a frame's changes are distinct): a
    // bit each, 125 KB at a million, cleared after the frame by the list itself
    let mut changed = vec![0u64; n.div_ceil(64)];
    let mut list: Vec<ParamChange> = Vec::with_capacity(changes);
    let mut events = 0u64;
    let mut lost = false;
    let mut graph_frame = |pass: &mut GraphPass, rng: &mut Rng| -> anyhow::Result<(f64, f64)> {
        let t = Instant::now();
        list.clear();
        while list.len() < changes {
            let i = (rng.next_u64() % n as u64) as usize;
            let (word, bit) = (i / 64, 1u64 << (i % 64));
            if changed[word] & bit != 0 {
                continue;
            }
            changed[word] |= bit;
            list.push([i as u32, param, speed(rng).to_bits(), 0]);
        }
        for c in &list {
            changed[c[0] as usize / 64] = 0;
        }
        let s = Instant::now();
        pass.step(&gpu, ticks, &list)?;
        let done = Instant::now();
        Ok((
            (done - t).as_secs_f64() * 1e3,
            (done - s).as_secs_f64() * 1e3,
        ))
    };
    pass.queue_event_reads(&gpu, true);
    for _ in 0..10 {
        pass.take_events(&gpu)?;
        graph_frame(&mut pass, &mut rng)?;
        pass.wait(&gpu)?;
    }
    let runtime_cfg = crate::runtime::BenchConfig {
        instances: n,
        mode: throng_contract::Timing::Gpu,
        changing: cfg.changing,
        frames: cfg.frames.max(1),
        layers: 2,
        ..Default::default()
    };
    let mut rounds = Vec::new();
    for _ in 0..cfg.rounds.max(1) {
        let runtime_ms = crate::runtime::run(&runtime_cfg, played).ms_per_frame;
        let (mut cpu, mut step, mut gpu_ms, mut late, mut read) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        // the step before the round's first was a round ago: its copy is not counted
        pass.take_events(&gpu)?;
        for frame in 0..cfg.frames.max(1) {
            if frame > 0 {
                let t = Instant::now();
                let ev = pass.take_events(&gpu)?.unwrap_or_default();
                late.push(t.elapsed().as_secs_f64() * 1e3);
                events += (ev.state.len() + ev.clip.len()) as u64;
                lost |= ev.state_lost || ev.clip_lost;
            }
            let (all, call) = graph_frame(&mut pass, &mut rng)?;
            cpu.push(all);
            step.push(call);
            if let Some(ns) = pass.last_gpu_ns(&gpu) {
                gpu_ms.push(ns as f64 / 1e6);
            }
            pass.wait(&gpu)?;
            let t = Instant::now();
            pass.read_events(&gpu)?;
            read.push(t.elapsed().as_secs_f64() * 1e3);
        }
        let graph_cpu_ms = median(&mut cpu);
        let events_ms = median(&mut late);
        let charged = graph_cpu_ms + if cfg.clip_events { events_ms } else { 0.0 };
        rounds.push(GraphGpuRound {
            runtime_ms,
            graph_cpu_ms,
            step_ms: median(&mut step),
            graph_gpu_ms: (!gpu_ms.is_empty()).then(|| median(&mut gpu_ms)),
            events_ms,
            read_ms: median(&mut read),
            ratio: if runtime_ms > 0.0 {
                charged / runtime_ms
            } else {
                0.0
            },
        });
    }
    let timed = (cfg.rounds.max(1) * cfg.frames.max(1).saturating_sub(1)).max(1) as f64;
    Ok(GraphGpuReport {
        instances: n,
        changes_per_frame: changes,
        adapter: gpu.summary.to_string(),
        rounds,
        clip_events: cfg.clip_events,
        events_per_frame: events as f64 / timed,
        events_lost: lost,
    })
}
