//! The GPU graph step's twin scenario (docs/graph.md "On the GPU"), shared by
//! `tests/graph_gpu.rs` (the default backend) and `tests/graph_gpu_gl.rs` (wgpu's GL backend):
//! 10,000 instances of throng-graph's test scenario graph (every state and transition kind:
//! clips of every loop mode, 1D and 2D blend spaces, exit times, seconds and normalised
//! lengths, offsets, triggers, any-state transitions, all three interruption rules) stepped
//! 600 frames by the CPU step (`GraphCrowd::step`) and by `graph_pass::GraphPass`, with ~3 % of
//! the instances getting a random parameter change a frame and frames of random whole-tick
//! lengths (every 25th of none). After every frame the two agree exactly in every state machine
//! word (states, transitions, the outgoing mix and its weights, phases and rates in ticks),
//! every parameter (triggers consumed), the state events and the clip events (the same
//! crossings at the same step fractions, in the same order); and, every fifth frame, the records
//! the pass writes equal the CPU step's in every clip and weight, with positions (row + frac)
//! within 1e-4 frames (the pass derives them in f32 from the integer phases, the CPU in f64).

#[path = "../../../throng-graph/tests/common/mod.rs"]
mod scenario;

pub use scenario::{random_change, scenario_clips, scenario_graph, Rng};
use throng_graph::GraphCrowd;
use throng_render::graph_pass::{GraphPass, GraphTables, ParamChange, MACHINE_WORDS};

/// `crowd` as it stands, uploaded to a GPU graph step (its graph's `GraphLayout`, state
/// machines and parameters, the clip table of `clips`).
pub fn pass_for(
    gpu: &throng_render::Gpu,
    crowd: &GraphCrowd,
    clips: &[throng_asset::ClipInfo],
    capacity: throng_render::graph_pass::EventCapacity,
) -> GraphPass {
    try_pass_for(gpu, crowd, clips, capacity).expect("graph pass")
}

/// [`pass_for`], or the error `GraphPass::new` gives.
pub fn try_pass_for(
    gpu: &throng_render::Gpu,
    crowd: &GraphCrowd,
    clips: &[throng_asset::ClipInfo],
    capacity: throng_render::graph_pass::EventCapacity,
) -> Result<GraphPass, throng_render::RenderError> {
    let layout = crowd.gpu_layout();
    let tables = GraphTables {
        states: &layout.states,
        clips: &layout.clips,
        axes: &layout.axes,
        transitions: &layout.transitions,
        conditions: &layout.conditions,
        lists: &layout.lists,
        clip_events: &layout.clip_events,
        events: &layout.events,
        stride: layout.stride,
        max_speed: layout.max_speed,
    };
    let machines: Vec<u32> = (0..crowd.len())
        .flat_map(|i| crowd.machine_words(i).expect("instance"))
        .collect();
    let values: Vec<f32> = (0..crowd.len())
        .flat_map(|i| crowd.parameter_values(i).expect("instance").to_vec())
        .collect();
    let table = throng_asset::gpu_clip_table(clips);
    GraphPass::new(gpu, tables, &table, &machines, &values, capacity)
}

const INSTANCES: usize = 10_000;
const FRAMES: usize = 600;

/// Runs the scenario on `gpu`; `label` names the backend.
#[allow(dead_code)] // not called by tests/graph_draw.rs, which shares `pass_for`
pub fn graph_gpu_scenario(gpu: &throng_render::Gpu, label: &str) {
    let g = scenario_graph();
    let clips = scenario_clips();
    let mut crowd = GraphCrowd::new(g.clone(), &clips, INSTANCES).expect("graph crowd");
    let machines = |crowd: &GraphCrowd| -> Vec<u32> {
        (0..crowd.len())
            .flat_map(|i| crowd.machine_words(i).expect("instance"))
            .collect()
    };
    let values = |crowd: &GraphCrowd| -> Vec<f32> {
        (0..crowd.len())
            .flat_map(|i| crowd.parameter_values(i).expect("instance").to_vec())
            .collect()
    };
    let mut pass = pass_for(
        gpu,
        &crowd,
        &clips,
        throng_render::graph_pass::EventCapacity::for_crowd(INSTANCES, 4 * INSTANCES as u32),
    );
    let stride = crowd.parameter_values(0).expect("instance").len();
    let mut worst = 0.0f64;
    // before any step the pass holds the records of the machines as uploaded
    let first = pass.read_records(gpu).expect("records");
    for (a, b) in first.iter().zip(crowd.records()) {
        for (x, y) in a.layers.iter().zip(&b.layers) {
            assert_eq!(
                (x.clip, x.weight.to_bits()),
                (y.clip, y.weight.to_bits()),
                "{label}: {x:?} vs {y:?}"
            );
            let (px, py) = (x.row as f64 + x.frac as f64, y.row as f64 + y.frac as f64);
            assert!((px - py).abs() <= 1e-4, "{label}: {x:?} vs {y:?}");
        }
    }
    let params: Vec<_> = (g.parameters().iter())
        .map(|p| crowd.param_any(p.name()).unwrap())
        .collect();
    let mut rng = Rng(0x6770_755f_7374_6570);
    let (mut events, mut fades, mut interrupted) = (0usize, 0usize, 0usize);
    let mut clip_events = 0usize;
    let mut layers = 0usize;
    // every step also copies its events to be taken a frame late: they must equal the list
    // read back at once
    pass.queue_event_reads(gpu, true);
    let mut last_read: Option<throng_render::graph_pass::StepEvents> = None;
    for frame in 0..FRAMES {
        let late = pass.take_events(gpu).expect("late events");
        assert_eq!(
            late,
            last_read.take(),
            "{label}: frame {frame}: the last step's events taken late"
        );
        // ~3 % of the instances get a change; of several to one parameter the last is sent
        let mut changes: Vec<ParamChange> = Vec::new();
        for _ in 0..(INSTANCES * 3 / 100) {
            let (i, k, v) = random_change(&mut rng, &g, &params, &mut crowd);
            changes.retain(|c| !(c[0] == i as u32 && c[1] == k as u32));
            changes.push([i as u32, k as u32, v.to_bits(), 0]);
        }
        // 1/120 s to 1/30 s in whole ticks, so that both sides step the same ticks; every
        // 25th frame none (a step that fires without advancing keeps states fresh)
        let ticks = if frame % 25 == 24 {
            0
        } else {
            8_738 + rng.below(34_953 - 8_738)
        };
        crowd.step(ticks as f64 / 1_048_576.0);
        pass.step(gpu, ticks, &changes).expect("graph step");

        let got_all = pass.read_events(gpu).expect("events");
        last_read = Some(got_all.clone());
        let got_events = got_all.state;
        let want_events: Vec<[u32; 4]> = (crowd.events().iter())
            .map(|e| {
                let kind = u32::from(e.kind == throng_graph::EventKind::Exit);
                [
                    e.instance,
                    e.state.index() as u32,
                    e.event.index() as u32,
                    kind,
                ]
            })
            .collect();
        // clip events: the same crossings at the same step fractions, in the same order
        let want_clip: Vec<[u32; 4]> = (crowd.clip_events().iter())
            .map(|e| [e.instance, e.clip.index() as u32, e.event, e.step_fraction])
            .collect();
        let got_clip: Vec<[u32; 4]> = (got_all.clip.iter())
            .map(|w| [w[0], w[1], w[2], w[4]])
            .collect();
        assert!(
            !got_all.state_lost && !got_all.clip_lost,
            "{label}: frame {frame}: events lost"
        );
        assert_eq!(
            got_events, want_events,
            "{label}: frame {frame}: state events"
        );
        assert_eq!(got_clip, want_clip, "{label}: frame {frame}: clip events");
        events += want_events.len();
        clip_events += want_clip.len();

        let got = pass.read_machines(gpu).expect("machines");
        let want = machines(&crowd);
        for i in 0..INSTANCES {
            let (a, b) = (
                &got[i * MACHINE_WORDS..(i + 1) * MACHINE_WORDS],
                &want[i * MACHINE_WORDS..(i + 1) * MACHINE_WORDS],
            );
            assert_eq!(
                a, b,
                "{label}: frame {frame}, instance {i}: GPU machine vs CPU"
            );
            let out_n = b[23] & 0xff;
            fades += usize::from(out_n > 0);
            interrupted += usize::from(out_n == 2);
        }
        let got_records = if frame % 5 == 0 {
            pass.read_records(gpu).expect("records")
        } else {
            Vec::new()
        };
        for (i, (a, b)) in got_records.iter().zip(crowd.records()).enumerate() {
            for (k, (x, y)) in a.layers.iter().zip(&b.layers).enumerate() {
                let ctx =
                    format!("{label}: frame {frame}, instance {i}, layer {k}: {x:?} vs {y:?}");
                assert_eq!(x.clip, y.clip, "{ctx}");
                assert_eq!(x.weight.to_bits(), y.weight.to_bits(), "{ctx}");
                let (px, py) = (x.row as f64 + x.frac as f64, y.row as f64 + y.frac as f64);
                assert!((px - py).abs() <= 1e-4, "{ctx}");
                worst = worst.max((px - py).abs());
                layers += usize::from(y.weight > 0.0);
            }
        }
        let got_values = pass.read_values(gpu).expect("parameters");
        let want_values = values(&crowd);
        for (i, (a, b)) in got_values
            .chunks(stride)
            .zip(want_values.chunks(stride))
            .enumerate()
        {
            let (a, b): (Vec<u32>, Vec<u32>) = (
                a.iter().map(|v| v.to_bits()).collect(),
                b.iter().map(|v| v.to_bits()).collect(),
            );
            assert_eq!(a, b, "{label}: frame {frame}, instance {i}: parameters");
        }
    }
    // the scenario reaches what it is meant to
    assert!(events > 10_000, "{events} state events");
    assert!(clip_events > 10_000, "{clip_events} clip events");
    assert!(
        fades > 10_000 && interrupted > 1_000,
        "{fades} fading, {interrupted} interrupted"
    );
    println!(
        "{label}: {INSTANCES} instances × {FRAMES} frames: every machine, parameter, state event \
         and clip event equal ({events} state events, {clip_events} clip events; {fades} instance-frames fading, {interrupted} with two outgoing states); \
         {layers} record layers, positions within {worst:.2e} frames"
    );
}
