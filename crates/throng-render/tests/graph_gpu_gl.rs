//! Animation graphs stepped on wgpu's GL backend (llvmpipe in CI): the scenario of
//! `tests/graph_gpu.rs`. Alone in its test binary, so that setting `WGPU_BACKEND` races with no
//! other test.

#[path = "common/graph_gpu.rs"]
mod graph_gpu;

#[test]
fn the_gpu_graph_step_on_gl_equals_the_cpu_step() {
    // SAFETY of the environment change: this binary runs this one test.
    std::env::set_var("WGPU_BACKEND", "gl");
    let Some(gpu) = throng_render::device::test_gpu() else {
        return;
    };
    assert_eq!(gpu.summary.backend, "gl", "expected a GL adapter");
    graph_gpu::graph_gpu_scenario(&gpu, "GL");
}
