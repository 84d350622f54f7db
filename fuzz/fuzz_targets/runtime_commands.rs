//! The runtime facade (`throng_runtime::Runtime`, both timings) under random call sequences:
//! spawns and despawns (stale handles kept and reused), every playback command with edge
//! values (speeds of 1e30, NaN, negative durations), steps of any length, transforms with
//! non-finite entries. Nothing may panic; after every step the clock is finite, every CPU-timed
//! layer weight lies in [0, 1] and the events fired are bounded by the laps cap (issue 52).
#![no_main]

#[path = "ops/mod.rs"]
mod ops;

use libfuzzer_sys::fuzz_target;
use throng_runtime::{Handle, InstanceTransform, Runtime, Timing, MAX_LAPS};

const MAX_INSTANCES: usize = 48;
const MAX_STEPS: usize = 96;

fuzz_target!(|data: &[u8]| {
    let mut b = ops::Bytes::new(data);
    let timing = [Timing::Cpu, Timing::Gpu][b.pick(2)];
    let table = ops::clips();
    let mut rt = Runtime::new(timing, &table);
    let mut handles: Vec<Handle> = Vec::new();
    let mut steps = 0;
    while let Some(op) = b.u8() {
        let h = (!handles.is_empty()).then(|| handles[b.pick(handles.len())]);
        match op % 10 {
            0 | 1 if handles.len() < MAX_INSTANCES => {
                let mut t = InstanceTransform::IDENTITY;
                if op & 0x80 != 0 {
                    t.rows[0][3] = b.value();
                }
                handles.push(rt.spawn(t));
            }
            2 => {
                if let Some(h) = h {
                    // the handle stays in the list: later calls on it must be errors
                    let _ = rt.despawn(h);
                }
            }
            3 | 4 => {
                if let Some(h) = h {
                    let _ = rt.command(h, b.command(table.len()));
                }
            }
            5 => {
                let _ = rt.command_all(b.command(table.len()));
            }
            6 | 7 => {
                rt.update(b.dt());
                check(&rt, table.len());
                steps += 1;
                if steps >= MAX_STEPS {
                    return;
                }
            }
            8 => {
                if let Some(h) = h {
                    let mut t = InstanceTransform::IDENTITY;
                    t.rows[b.pick(3)][b.pick(4)] = b.value();
                    let _ = rt.set_transform(h, t);
                    let _ = rt.transform(h);
                    let _ = rt.is_finished(h);
                    let _ = rt.layer_times(h);
                }
            }
            _ => {
                let _ = rt.records().bytes().len();
                let _ = rt.record_changes();
                rt.clear_changes();
            }
        }
    }
});

fn check(rt: &Runtime, clips: usize) {
    assert!(rt.time().is_finite(), "clock {}", rt.time());
    // per instance and step: at most 4 layers × 3 events × (MAX_LAPS + 2) laps × 2 series
    let bound = rt.len() * 4 * 3 * (MAX_LAPS as usize + 2) * 2;
    assert!(rt.events().len() <= bound, "{} events", rt.events().len());
    for e in rt.events() {
        assert!(e.clip.index() < clips && e.event < 3, "{e:?}");
    }
    if let Some(records) = rt.records().cpu() {
        for r in records {
            for l in &r.layers {
                assert!(
                    (0.0..=1.0 + 1e-4).contains(&l.weight),
                    "layer weight {} in {r:?}",
                    l.weight
                );
                assert!(l.frac.is_finite() && l.row.is_finite(), "{r:?}");
            }
        }
    }
}
