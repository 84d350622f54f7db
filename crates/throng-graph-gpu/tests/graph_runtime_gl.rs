//! `GraphRuntime` on wgpu's GL backend (llvmpipe in CI): the twin scenario of
//! `tests/common/runtime_twin.rs`. Alone in its test binary, so that setting `WGPU_BACKEND` races
//! with no other test.

#[path = "common/runtime_twin.rs"]
mod runtime_twin;

#[test]
fn a_graph_runtime_on_gl_equals_one_on_the_cpu_its_events_a_frame_late() {
    // SAFETY of the environment change: this binary runs this one test.
    std::env::set_var("WGPU_BACKEND", "gl");
    let Some(gpu) = throng_render::device::test_gpu() else {
        return;
    };
    assert_eq!(gpu.summary.backend, "gl", "expected a GL adapter");
    runtime_twin::twin(&gpu);
}
