//! Motion vectors on wgpu's GL backend (llvmpipe in CI): the scenario of `tests/motion.rs`
//! (`common::motion::motion_scenario`). Alone in its test binary, so that setting
//! `WGPU_BACKEND` races with no other test.

mod common;

#[test]
fn motion_vectors_on_gl_equal_the_cpu_projection() {
    // SAFETY of the environment change: this binary runs this one test.
    std::env::set_var("WGPU_BACKEND", "gl");
    let Some(mut r) = common::renderer() else {
        return;
    };
    assert_eq!(r.adapter().backend, "gl", "expected a GL adapter");
    common::motion::motion_scenario(&mut r, "-gl", throng_render::Skinning::Linear);
}
