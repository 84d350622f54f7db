//! The far tier's GPU twin on wgpu's GL backend (llvmpipe in CI): the scenario of
//! `tests/far_twin.rs`. Alone in its test binary, so that setting `WGPU_BACKEND` races with no
//! other test.

#[path = "common/far.rs"]
mod far;

#[test]
fn the_far_card_on_gl_equals_its_cpu_twin() {
    // SAFETY of the environment change: this binary runs this one test.
    std::env::set_var("WGPU_BACKEND", "gl");
    let Some(gpu) = throng_render::device::test_gpu() else {
        return;
    };
    assert_eq!(gpu.summary.backend, "gl", "expected a GL adapter");
    far::far_twin_scenario(&gpu, "GL");
}
