//! The animation graph reader (docs/graph.md): parse, check against a small clip table, write
//! Graphviz text; a graph that loads is stepped for a few frames with parameters taken from
//! the input's bytes, so the evaluation sees whatever the reader accepted (clips with events,
//! so the clip events' crossings run too).
#![no_main]

#[path = "ops/mod.rs"]
mod ops;

use libfuzzer_sys::fuzz_target;
use throng_asset::{ClipInfo, LoopMode};
use throng_graph::{GraphBuilder, GraphCrowd, GraphFile, ParamKind};

fn clips() -> Vec<ClipInfo> {
    let specs = [
        ("idle", 2.0, LoopMode::Loop),
        ("walk", 1.0, LoopMode::Loop),
        ("run", 0.5, LoopMode::Loop),
        ("A", 0.0, LoopMode::Loop),
        ("B", 1.3, LoopMode::Loop),
    ];
    // events at the start, inside and at the end, so stepping fires clip events
    ops::table(&specs, &[0.0, 0.4, 1.0])
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(file) = GraphFile::parse(text) else {
        return;
    };
    let table = clips();
    let _ = throng_graph::check(&file, &table);
    let _ = throng_graph::to_dot(&file);
    let Ok(graph) = GraphBuilder::from_file(file).build(&table) else {
        return;
    };
    let mut crowd = GraphCrowd::new(graph, &table, 3).expect("graph crowd");
    let params: Vec<_> = crowd
        .graph()
        .parameters()
        .iter()
        .map(|p| crowd.param_any(p.name()).expect("declared"))
        .collect();
    for (frame, b) in data.iter().take(64).enumerate() {
        if let Some(&p) = params.get(*b as usize % params.len().max(1)) {
            let i = frame % 3;
            let v = (*b as f32 - 100.0) / 16.0;
            let _ = match p.kind() {
                ParamKind::Float => crowd.set_float(i, p.typed().unwrap(), v),
                ParamKind::Int => crowd.set_int(i, p.typed().unwrap(), v as i32),
                ParamKind::Bool => crowd.set_bool(i, p.typed().unwrap(), b & 1 == 1),
                ParamKind::Trigger => crowd.fire(i, p.typed().unwrap()),
            };
        }
        crowd.step(1.0 / 60.0);
        let sum: f32 = crowd.records()[0].layers.iter().map(|l| l.weight).sum();
        assert!(
            sum == 0.0 || (sum - 1.0).abs() < 1e-4,
            "weights sum to {sum}"
        );
        for e in crowd.clip_events() {
            let clip = &table[e.clip.index()];
            assert!((e.event as usize) < clip.events.len() && e.instance < 3);
            assert!(e.time <= crowd.time() + 1e-9, "an event after the step");
        }
    }
});
