//! Shared by `tests/graph_runtime.rs` (the default backend) and `graph_runtime_gl.rs` (wgpu's GL
//! backend): `GraphRuntime` on the GPU against `GraphRuntime` on the CPU, through the API a front end
//! uses: throng-graph's scenario graph (every state and transition kind, clip events of every
//! loop mode), 2,000 instances × 240 frames, the same typed parameter calls on both (~3 % of
//! the instances a frame, some parameters set twice in a frame: the last set wins on both).
//! After every frame the GPU's events equal the CPU's of the frame before (taken a frame
//! late): the same state events, and the same clip events at the same step fractions and
//! times, in the same order. Every tenth frame the records agree: clips and weights exactly,
//! positions (row + frac) within 1e-4 frames (the pass derives them in f32 from the integer
//! phases, the CPU in f64; throng-render `tests/graph_gpu.rs` checks every machine word).

#[path = "../../../throng-graph/tests/common/mod.rs"]
pub mod scenario;

use scenario::{random_value, scenario_clips, scenario_graph, Rng};
use throng_graph::{GraphCrowd, Param, ParamKind};
use throng_graph_gpu::{GraphRuntime, StepOn};

const INSTANCES: usize = 2_000;
const FRAMES: usize = 240;

/// Sets parameter `p` (index `k`) of instance `i` to a random value its kind allows, through
/// the typed call of its kind, on both runtimes.
fn set_both(rts: &mut [&mut GraphRuntime; 2], rng: &mut Rng, i: usize, k: usize, p: Param) {
    let v = random_value(rng, rts[0].graph(), k, p.kind());
    for rt in rts.iter_mut() {
        match p.kind() {
            ParamKind::Float => rt.set_float(i, p.typed().unwrap(), v),
            ParamKind::Int => rt.set_int(i, p.typed().unwrap(), v as i32),
            ParamKind::Bool => rt.set_bool(i, p.typed().unwrap(), v != 0.0),
            ParamKind::Trigger => rt.fire(i, p.typed().unwrap()),
        }
        .expect("a valid change");
    }
}

/// The twin scenario on `gpu` (also run on wgpu's GL backend: `tests/graph_runtime_gl.rs`).
pub fn twin(gpu: &throng_render::Gpu) {
    let gpu = gpu.clone();
    let clips = scenario_clips();
    let crowd = || GraphCrowd::new(scenario_graph(), &clips, INSTANCES).expect("graph crowd");
    let mut cpu = GraphRuntime::new(crowd(), &clips, Some(&gpu), StepOn::Cpu).expect("cpu");
    let mut on_gpu = GraphRuntime::new(crowd(), &clips, Some(&gpu), StepOn::Gpu).expect("gpu");
    assert!(!cpu.on_gpu() && on_gpu.on_gpu());
    assert!(on_gpu.events_frame_late() && !cpu.events_frame_late());
    let params: Vec<Param> = (cpu.graph().parameters().iter())
        .map(|p| cpu.graph().param_any(p.name()).expect("parameter"))
        .collect();
    let mut rng = Rng(0x6772_6170_685f_7274);
    let (mut last_state, mut last_clip) = (Vec::new(), Vec::new());
    let (mut state_events, mut clip_events, mut twice, mut worst) = (0, 0, 0, 0.0f64);
    let mut standings_in_transition = 0;
    for frame in 0..FRAMES {
        for _ in 0..INSTANCES * 3 / 100 {
            let i = rng.below(INSTANCES as u64) as usize;
            let k = rng.below(params.len() as u64) as usize;
            set_both(&mut [&mut cpu, &mut on_gpu], &mut rng, i, k, params[k]);
            // now and then the same parameter again: the second value is the one stepped
            if rng.below(8) == 0 {
                set_both(&mut [&mut cpu, &mut on_gpu], &mut rng, i, k, params[k]);
                twice += 1;
            }
        }
        // 1/120 s to 1/30 s; every 25th frame none
        let dt = if frame % 25 == 24 {
            0.0
        } else {
            1.0 / 120.0 + rng.unit() * (1.0 / 30.0 - 1.0 / 120.0)
        };
        cpu.step(dt).expect("cpu step");
        on_gpu.step(dt).expect("gpu step");
        assert_eq!(
            cpu.time().to_bits(),
            on_gpu.time().to_bits(),
            "frame {frame}"
        );
        assert!(!on_gpu.events_lost(), "frame {frame}: events lost");
        assert_eq!(
            on_gpu.state_events(),
            last_state.as_slice(),
            "frame {frame}: the GPU's state events are the CPU's of the frame before"
        );
        assert_eq!(
            on_gpu.clip_events(),
            last_clip.as_slice(),
            "frame {frame}: the GPU's clip events are the CPU's of the frame before"
        );
        last_state = cpu.state_events().to_vec();
        last_clip = cpu.clip_events().to_vec();
        state_events += last_state.len();
        clip_events += last_clip.len();
        if frame % 10 == 9 {
            let (a, b) = (cpu.read_records().unwrap(), on_gpu.read_records().unwrap());
            assert_eq!(a.len(), INSTANCES);
            for (i, (x, y)) in a.iter().zip(&b).enumerate() {
                for (l, (p, q)) in x.layers.iter().zip(&y.layers).enumerate() {
                    let at = format!("frame {frame}, instance {i}, layer {l}: {p:?} vs {q:?}");
                    assert_eq!(p.clip, q.clip, "{at}");
                    assert_eq!(p.weight.to_bits(), q.weight.to_bits(), "{at}");
                    let d = ((p.row + p.frac) as f64 - (q.row + q.frac) as f64).abs();
                    assert!(d <= 1e-4, "{at}");
                    worst = worst.max(d);
                }
            }
            // instances as a tool reads one (`standing`: the GPU's machine read back): one
            // by the frame, and the first the CPU has in a transition
            let moving = (0..INSTANCES).find(|&i| cpu.standing(i).unwrap().transition.is_some());
            for i in [frame % INSTANCES].into_iter().chain(moving) {
                let (x, y) = (cpu.standing(i).unwrap(), on_gpu.standing(i).unwrap());
                assert_eq!(
                    x, y,
                    "frame {frame}, instance {i}: where the machine stands"
                );
                standings_in_transition += usize::from(x.transition.is_some());
            }
        }
    }
    assert!(
        standings_in_transition > 0,
        "no instance read in a transition"
    );
    // the last step's events, now, waiting
    on_gpu.finish_events().expect("finish");
    assert_eq!(on_gpu.state_events(), last_state.as_slice());
    assert_eq!(on_gpu.clip_events(), last_clip.as_slice());
    on_gpu.step(0.0).expect("step");
    assert!(on_gpu.state_events().is_empty() && on_gpu.clip_events().is_empty());
    assert!(state_events > 1_000, "{state_events} state events");
    assert!(clip_events > 1_000, "{clip_events} clip events");
    println!(
        "{INSTANCES} instances × {FRAMES} frames: {state_events} state and {clip_events} clip \
         events equal a frame late, {twice} parameters set twice in a frame; positions within \
         {worst:.1e} frames"
    );
}
