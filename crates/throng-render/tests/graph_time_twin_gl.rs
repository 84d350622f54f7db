//! Animation graphs' integer time on wgpu's GL backend (llvmpipe in CI): the scenario of
//! `tests/graph_time_twin.rs`. Alone in its test binary, so that setting `WGPU_BACKEND` races
//! with no other test.

#[path = "common/graph_time.rs"]
mod graph_time;

#[test]
fn graph_time_on_gl_equals_its_cpu_twin() {
    // SAFETY of the environment change: this binary runs this one test.
    std::env::set_var("WGPU_BACKEND", "gl");
    let Some(gpu) = throng_render::device::test_gpu() else {
        return;
    };
    assert_eq!(gpu.summary.backend, "gl", "expected a GL adapter");
    graph_time::graph_time_scenario(&gpu, "GL");
    graph_time::graph_events_scenario(&gpu, "GL");
}
