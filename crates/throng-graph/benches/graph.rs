//! `cargo bench -p throng-graph`: one frame of 1M instances driven by the built-in fox's
//! locomotion graph (graphs/demo-fox-locomotion.json), 1 % of the speed parameters changing
//! per frame — the graph step, which writes every CPU-timed record — against the plain
//! runtime's frame showing the same clips (`CpuRuntime::update` after 1 % of the instances get
//! a blend or play command), measured in the same run. docs/benchmarks.md has the figures.
//!
//! `THRONG_GRAPH_BENCH_N` overrides the instance count (default 1,000,000);
//! `THRONG_GRAPH_BENCH_GPU=0` skips the GPU-timed pairs. The built-in fox's walk and run carry
//! four footstep events each, which both sides fire; the paired frames also time a second
//! graph crowd on the clip table without events — the graph step as it was before it fired
//! clip events — so the events' cost is measured in the same run.

use criterion::{criterion_group, criterion_main, Criterion};
use std::time::Duration;
use throng_asset::ClipInfo;
use throng_contract::Timing;
use throng_graph::drive_gpu;
use throng_graph::{kind, Graph, GraphCrowd, ParamId};
use throng_runtime::PlaybackControl;
use throng_runtime::{ClipId, CpuRuntime, InstanceTransform, PlayOptions, Runtime};

const DT: f64 = 1.0 / 60.0;

/// SplitMix64.
#[derive(Clone)]
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
}

fn clips() -> Vec<ClipInfo> {
    let glb = throng_demo::demo_glb();
    let model = throng_gltf::import_slice(&glb, None, "throng-demo-fox.glb").expect("import");
    let options = throng_bake::BakeOptions {
        source_name: "throng-demo-fox.glb".into(),
        ..Default::default()
    };
    throng_bake::bake(&model, &options).expect("bake").0.clips
}

/// A speed: a third stand (0), the rest walk to run (0.5 to 3.5).
fn speed(rng: &mut Rng) -> f32 {
    if rng.next().is_multiple_of(3) {
        0.0
    } else {
        0.5 + 3.0 * rng.unit()
    }
}

/// Instances (`THRONG_GRAPH_BENCH_N`, default 1,000,000).
fn instances() -> usize {
    std::env::var("THRONG_GRAPH_BENCH_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000)
}

/// The built-in fox's locomotion graph on `table`.
fn locomotion(table: &[ClipInfo]) -> Graph {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("graphs/demo-fox-locomotion.json");
    Graph::load(&path, table).expect("graph")
}

/// `changes` random instances of the `n` get a new speed: a frame's parameter changes.
fn change_speeds(crowd: &mut GraphCrowd, p: ParamId<kind::Float>, rng: &mut Rng, changes: usize) {
    let n = crowd.len() as u64;
    for _ in 0..changes {
        let i = (rng.next() % n) as usize;
        let v = speed(rng);
        crowd.set_float(i, p, v).expect("set");
    }
}

/// Wall time of `f`, milliseconds.
fn ms(f: impl FnOnce()) -> f64 {
    let t = std::time::Instant::now();
    f();
    t.elapsed().as_secs_f64() * 1e3
}

/// The middle value (sorts `v`).
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn bench(c: &mut Criterion) {
    let n = instances();
    let changes = n / 100;
    let table = clips();
    let graph = locomotion(&table);
    let idx = |name: &str| table.iter().position(|c| c.name == name).expect("clip");
    let (idle, walk, run) = (idx("idle"), idx("walk"), idx("run"));

    // the graph crowd, settled for 2 s so that each instance shows its locomotion state
    let mut crowd = GraphCrowd::new(graph, &table, n).expect("graph crowd");
    let p = crowd.param("speed").expect("speed");
    let mut rng = Rng(31);
    crowd.set_all(p, |_| speed(&mut rng)).expect("speeds");
    for _ in 0..120 {
        crowd.step(DT);
    }

    // the plain runtime showing the same clips: idle, or walk/run blended by speed
    let mut rt = CpuRuntime::new(&table);
    let handles: Vec<_> = (0..n)
        .map(|_| rt.spawn(InstanceTransform::default()))
        .collect();
    let play = |rt: &mut CpuRuntime, i: usize, v: f32| {
        let h = handles[i];
        if v <= 0.1 {
            rt.instance(h)
                .play(ClipId::new(idle), PlayOptions::default())
                .expect("play");
        } else {
            let w = ((v - 1.0) / 2.0).clamp(0.0, 1.0);
            rt.instance(h)
                .blend(ClipId::new(walk), ClipId::new(run), w)
                .expect("blend");
        }
    };
    for i in 0..n {
        let v = crowd.value(i, p).unwrap_or(0.0);
        play(&mut rt, i, v);
    }
    rt.update(DT);

    let mut g = c.benchmark_group(format!("graph_{n}"));
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(8));
    g.warm_up_time(Duration::from_secs(2));
    // a frame of each: the same parameter changes (the same seed), given as each can take them
    let graph_frame = |crowd: &mut GraphCrowd, rng: &mut Rng| {
        change_speeds(crowd, p, rng, changes);
        crowd.step(DT);
    };
    let plain_frame = |rt: &mut CpuRuntime, rng: &mut Rng| {
        for _ in 0..changes {
            let i = (rng.next() % n as u64) as usize;
            let v = speed(rng);
            play(rt, i, v);
        }
        rt.update(DT);
    };
    let mut rng_g = Rng(7);
    g.bench_function("graph_step", |b| {
        b.iter(|| graph_frame(&mut crowd, &mut rng_g))
    });
    let mut rng_r = Rng(7);
    g.bench_function("plain_runtime", |b| {
        b.iter(|| plain_frame(&mut rt, &mut rng_r))
    });
    // the same frames without parameter changes or commands: the per-frame floor of each
    g.bench_function("graph_step_unchanged", |b| b.iter(|| crowd.step(DT)));
    g.bench_function("plain_runtime_update_only", |b| b.iter(|| rt.update(DT)));
    g.finish();

    // the same graph on the clip table without events: a step that fires no clip events
    let quiet: Vec<ClipInfo> = (table.iter().cloned())
        .map(|mut c| {
            c.events.clear();
            c
        })
        .collect();
    let mut crowd0 = GraphCrowd::new(locomotion(&quiet), &quiet, n).expect("graph crowd");
    let mut rng = Rng(31);
    crowd0.set_all(p, |_| speed(&mut rng)).expect("speeds");
    for _ in 0..120 {
        crowd0.step(DT);
    }

    // Paired frames: on a shared machine the load drifts between criterion's groups, so the
    // ratio is also taken frame by frame, the kinds alternating.
    let pairs = 40;
    let (mut tg, mut tp, mut ratio) = (Vec::new(), Vec::new(), Vec::new());
    let (mut t0, mut ratio0, mut cost) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..pairs {
        let mut rng_q = rng_g.clone();
        let q = ms(|| graph_frame(&mut crowd0, &mut rng_q));
        let a = ms(|| graph_frame(&mut crowd, &mut rng_g));
        let b = ms(|| plain_frame(&mut rt, &mut rng_r));
        tg.push(a);
        tp.push(b);
        ratio.push(a / b);
        t0.push(q);
        ratio0.push(q / b);
        cost.push(a / q);
    }
    let (mg, mp, mr) = (median(&mut tg), median(&mut tp), median(&mut ratio));
    let (m0, mr0, mc) = (median(&mut t0), median(&mut ratio0), median(&mut cost));
    println!(
        "paired {pairs} frames, {n} instances, {changes} changes a frame: graph step {mg:.2} ms, \
         plain runtime {mp:.2} ms, median ratio {mr:.2} (quartiles {:.2}–{:.2}); clip events \
         a frame: graph {}, runtime {}",
        ratio[pairs / 4],
        ratio[3 * pairs / 4],
        crowd.clip_events().len(),
        rt.events().len()
    );
    println!(
        "  without clip events (the step before them): graph step {m0:.2} ms, median ratio to \
         the runtime {mr0:.2} (quartiles {:.2}–{:.2}); with / without {mc:.2} (quartiles \
         {:.2}–{:.2})",
        ratio0[pairs / 4],
        ratio0[3 * pairs / 4],
        cost[pairs / 4],
        cost[3 * pairs / 4]
    );
}

/// GPU-timed: the graph's state machines stepped (no records) and the changed instances told
/// through `drive_gpu`, against the plain GPU-timed runtime given the same share of
/// crossfades; paired frames, each including the runtime's `update` and clearing its writes.
fn bench_gpu_timed(_: &mut Criterion) {
    if std::env::var("THRONG_GRAPH_BENCH_GPU").is_ok_and(|v| v == "0") {
        return;
    }
    let n = instances();
    let changes = n / 100;
    let table = clips();
    let graph = locomotion(&table);
    let mut crowd = GraphCrowd::new(graph, &table, n).expect("graph crowd");
    let p = crowd.param("speed").expect("speed");
    let mut rng = Rng(31);
    crowd.set_all(p, |_| speed(&mut rng)).expect("speeds");
    let mut rt = Runtime::new(Timing::Gpu, &table);
    let handles: Vec<_> = (0..n)
        .map(|_| rt.spawn(InstanceTransform::default()))
        .collect();
    let mut plain = Runtime::new(Timing::Gpu, &table);
    let plain_handles: Vec<_> = (0..n)
        .map(|_| plain.spawn(InstanceTransform::default()))
        .collect();
    for h in &plain_handles {
        plain
            .instance(*h)
            .play(ClipId::new(0), PlayOptions::default())
            .expect("play");
    }
    for _ in 0..120 {
        crowd.step_states(DT);
        rt.update(DT);
        drive_gpu(&crowd, &mut rt, &handles).expect("drive");
        rt.clear_changes();
    }
    let (mut tg, mut tp, mut ratio, mut told) = (Vec::new(), Vec::new(), Vec::new(), 0);
    let pairs = 20;
    for f in 0..pairs {
        let a = ms(|| {
            change_speeds(&mut crowd, p, &mut rng, changes);
            crowd.step_states(DT);
            rt.update(DT);
            told += drive_gpu(&crowd, &mut rt, &handles).expect("drive");
            rt.clear_changes();
        });
        let b = ms(|| {
            for _ in 0..changes {
                let i = (rng.next() % n as u64) as usize;
                let clip = (f + i) % table.len();
                plain
                    .instance(plain_handles[i])
                    .crossfade(ClipId::new(clip), 0.25)
                    .expect("crossfade");
            }
            plain.update(DT);
            plain.clear_changes();
        });
        tg.push(a);
        tp.push(b);
        ratio.push(a / b);
    }
    let (mg, mp, mr) = (median(&mut tg), median(&mut tp), median(&mut ratio));
    println!(
        "GPU-timed, paired {pairs} frames, {n} instances, {changes} parameter changes a frame \
         ({} instances told a frame): graph states + drive + runtime {mg:.2} ms, plain GPU-timed \
         runtime with {changes} crossfades {mp:.2} ms, median ratio {mr:.1}",
        told / pairs
    );
}

criterion_group!(benches, bench, bench_gpu_timed);
criterion_main!(benches);
