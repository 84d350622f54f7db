//! A graph crowd (`throng_graph::GraphCrowd`) of the Fox's locomotion graph under random call
//! sequences: resizes and swap-removes (the despawn a front end mirrors), every parameter
//! setter with edge values and indices past the crowd, triggers, steps of any length. Nothing
//! may panic; after every step the clock is finite, each record's weights sum to 1 and the
//! clip events are bounded by the laps cap and name real clips, events and instances.
#![no_main]

#[path = "ops/mod.rs"]
mod ops;

use libfuzzer_sys::fuzz_target;
use throng_asset::{ClipInfo, LoopMode};
use throng_graph::{GraphBuilder, GraphCrowd, GraphFile, ParamKind};

const GRAPH: &str = include_str!("../../crates/throng-graph/graphs/fox-locomotion.json");
const MAX_INSTANCES: usize = 48;
const MAX_STEPS: usize = 96;

fn fox_clips() -> Vec<ClipInfo> {
    let specs = [
        ("Survey", 3.417, LoopMode::Loop),
        ("Walk", 0.708, LoopMode::Loop),
        ("Run", 1.158, LoopMode::Loop),
    ];
    ops::table(&specs, &[0.0, 0.5])
}

fuzz_target!(|data: &[u8]| {
    let table = fox_clips();
    let file = GraphFile::parse(GRAPH).expect("the shipped graph parses");
    let graph = GraphBuilder::from_file(file)
        .build(&table)
        .expect("the shipped graph builds");
    let mut b = ops::Bytes::new(data);
    let mut crowd = GraphCrowd::new(graph, &table, b.pick(8)).expect("graph crowd");
    let params: Vec<_> = (crowd.graph().parameters().iter())
        .map(|p| crowd.param_any(p.name()).expect("declared"))
        .collect();
    let mut steps = 0;
    while let Some(op) = b.u8() {
        // one past the crowd now and then: the setters must say no
        let i = b.pick(crowd.len() + 1);
        let p = params[b.pick(params.len())];
        match op % 9 {
            0 => crowd.resize(b.pick(MAX_INSTANCES)),
            1 => crowd.swap_remove(i),
            2 | 3 => {
                let v = b.value();
                let _ = match p.kind() {
                    ParamKind::Float => crowd.set_float(i, p.typed().unwrap(), v),
                    ParamKind::Int => crowd.set_int(i, p.typed().unwrap(), v as i32),
                    ParamKind::Bool => crowd.set_bool(i, p.typed().unwrap(), v > 0.5),
                    ParamKind::Trigger => crowd.fire(i, p.typed().unwrap()),
                };
            }
            4 => {
                if let Some(t) = p.typed() {
                    let _ = crowd.reset_trigger(i, t);
                }
                let _ = crowd.value_any(i, p);
            }
            5 | 6 => {
                crowd.step(b.dt());
                check(&crowd, &table);
                steps += 1;
                if steps >= MAX_STEPS {
                    return;
                }
            }
            7 => crowd.step_states(b.dt()),
            _ => {
                let _ = crowd.record_changes();
                let _ = (crowd.changed().len(), crowd.events().len());
                if i < crowd.len() {
                    let _ = (crowd.state(i), crowd.transition(i), crowd.layers(i));
                    let _ = crowd.normalized_time(i);
                }
            }
        }
    }
});

fn check(crowd: &GraphCrowd, table: &[ClipInfo]) {
    assert!(crowd.time().is_finite(), "clock {}", crowd.time());
    for r in crowd.records() {
        let sum: f32 = r.layers.iter().map(|l| l.weight).sum();
        assert!(
            sum == 0.0 || (sum - 1.0).abs() < 1e-4,
            "weights sum to {sum}: {r:?}"
        );
    }
    // per instance and step: the states shown (the current one, two outgoing ones and one
    // entered by the step's transition) × 2 clips of a state × 2 events × (MAX_LAPS + 2) laps
    let bound = crowd.len().max(1) * 4 * 2 * 2 * (throng_runtime::MAX_LAPS as usize + 2);
    assert!(
        crowd.clip_events().len() <= bound,
        "{} clip events from {} instances: {:?}",
        crowd.clip_events().len(),
        crowd.len(),
        &crowd.clip_events()[..crowd.clip_events().len().min(12)]
    );
    for e in crowd.clip_events() {
        let clip = &table[e.clip.index()];
        assert!((e.event as usize) < clip.events.len(), "{e:?}");
        assert!(
            e.time <= crowd.time() + 1e-9,
            "an event after the step: {e:?}"
        );
    }
}
