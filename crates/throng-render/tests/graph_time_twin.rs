//! Animation graphs' integer time on the GPU (docs/graph.md "Time"): WGSL `throng::graph_time`
//! against `throng_contract::graph_time`, exactly, on the default backend (lavapipe in CI).

#[path = "common/graph_time.rs"]
mod graph_time;

#[test]
fn graph_time_on_the_gpu_equals_its_cpu_twin() {
    let Some(gpu) = throng_render::device::test_gpu() else {
        return;
    };
    graph_time::graph_time_scenario(&gpu, "default backend");
    graph_time::graph_events_scenario(&gpu, "default backend");
}
