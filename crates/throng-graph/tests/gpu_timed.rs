//! A GPU-timed runtime driven by `drive_gpu` shows what the graph's CPU step shows wherever
//! the runtime's two layers can say it (docs/graph.md "GPU-timed crowds"): clip states and
//! two-clip blends, checked against the graph's own CPU-timed records after each crossfade has
//! ended; and only the changed instances are told.

mod common;

use common::Rng;
use throng_asset::{ClipInfo, LoopMode};
use throng_contract::Timing;
use throng_graph::{drive_gpu, Graph, GraphCrowd};
use throng_runtime::{InstanceTransform, Runtime};

const GRAPH: &str = r#"{"version": 1,
  "parameters": [{"name": "speed", "type": "float"}, {"name": "mult", "type": "float", "default": 1},
                 {"name": "go", "type": "trigger"}],
  "states": [
    {"name": "idle", "motion": {"clip": {"name": "idle"}}, "speed_parameter": "mult"},
    {"name": "move", "motion": {"blend1d": {"parameter": "speed", "points": [
        {"clip": "walk", "at": 1}, {"clip": "run", "at": 3}]}}, "speed": 1.2},
    {"name": "attack", "motion": {"clip": {"name": "attack", "loop": "once"}}}],
  "transitions": [
    {"from": "*", "to": "attack", "conditions": [{"parameter": "go"}], "duration": 0.2},
    {"from": "attack", "to": "idle", "exit_time": 1.0, "duration": 0.25},
    {"from": "idle", "to": "move", "conditions": [{"parameter": "speed", "op": ">", "value": 0.2}],
     "duration": 0.3},
    {"from": "move", "to": "idle", "conditions": [{"parameter": "speed", "op": "<=", "value": 0.2}],
     "duration": 0.3}]}"#;

fn clips() -> Vec<ClipInfo> {
    let mut row = 1;
    [("idle", 2.0), ("walk", 1.0), ("run", 0.6), ("attack", 0.8)]
        .iter()
        .map(|&(n, d)| {
            let c = ClipInfo::uniform(n, row, d, 30.0, LoopMode::Loop);
            row += c.frames;
            c
        })
        .collect()
}

/// (clip, weight, position in frames from the clip's first row) of the nonzero layers, by clip.
fn layers(r: &throng_contract::InstanceRecord, table: &[ClipInfo]) -> Vec<(u32, f32, f64)> {
    let mut v: Vec<_> = r
        .layers
        .iter()
        .filter(|l| l.weight > 0.0)
        .map(|l| {
            let c = l.clip_index();
            let first = table[c as usize].first_row as f64;
            (c, l.weight, l.row as f64 + l.frac as f64 - first)
        })
        .collect();
    v.sort_by_key(|l| l.0);
    v
}

#[test]
fn gpu_timed_runtime_follows_the_graph() {
    let table = clips();
    let graph = Graph::from_json(GRAPH, "gpu.json", &table).unwrap();
    let n = 2_000;
    let mut crowd = GraphCrowd::new(graph, &table, n).expect("graph crowd");
    let mut rt = Runtime::new(Timing::Gpu, &table);
    let handles: Vec<_> = (0..n)
        .map(|_| rt.spawn(InstanceTransform::default()))
        .collect();
    let (speed, mult, go) = (
        crowd.param("speed").unwrap(),
        crowd.param("mult").unwrap(),
        crowd.param("go").unwrap(),
    );
    let mut rng = Rng(11);
    let mut busy_until = vec![0usize; n];
    let (mut compared, mut blends, mut quiet_frames_told) = (0, 0, 0);
    let dt = 1.0 / 60.0;
    for frame in 0..400 {
        for _ in 0..n / 50 {
            let i = rng.below(n as u64) as usize;
            match rng.below(5) {
                0 => crowd.fire(i, go).unwrap(),
                1 => crowd.set_float(i, mult, rng.unit() as f32 * 2.0).unwrap(),
                _ => crowd.set_float(i, speed, rng.unit() as f32 * 4.0).unwrap(),
            }
        }
        crowd.step(dt);
        rt.update(dt);
        let told = drive_gpu(&crowd, &mut rt, &handles).unwrap();
        assert!(told <= crowd.changed().len());
        if frame > 0 {
            // only changed instances are told: a few percent of the crowd per frame
            assert!(told < n / 5, "frame {frame}: {told} told");
            quiet_frames_told += told;
        }
        let gpu = rt.gpu().unwrap();
        for i in 0..n {
            if crowd.transition(i).expect("an instance").is_some() {
                busy_until[i] = frame + 2;
                continue;
            }
            if frame < busy_until[i] || frame < 2 {
                continue;
            }
            let want = layers(&crowd.records()[i], &table);
            let got = layers(&gpu.exact_record(handles[i]).unwrap(), &table);
            let ctx = format!(
                "instance {i} frame {frame}: graph {want:?}, runtime {got:?}, commands {:?}",
                crowd.commands(i).expect("an instance").as_slice()
            );
            assert_eq!(want.len(), got.len(), "{ctx}");
            for (w, g) in want.iter().zip(&got) {
                assert_eq!(w.0, g.0, "{ctx}");
                assert!((w.1 - g.1).abs() < 1e-4, "{ctx}");
                let len = (table[w.0 as usize].frames - 1) as f64;
                let d = (w.2 - g.2).abs();
                assert!(d < 2e-3 || (d - len).abs() < 2e-3, "{ctx}");
            }
            compared += 1;
            blends += usize::from(want.len() == 2);
        }
    }
    eprintln!("{compared} instance-frames compared ({blends} blends), {quiet_frames_told} told");
    assert!(compared > 100_000 && blends > 10_000);
}
