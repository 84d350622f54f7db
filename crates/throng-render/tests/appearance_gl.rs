//! Crowd variety on wgpu's GL backend (llvmpipe in CI): the scenario of `tests/appearance.rs`
//! (`common::appearance::reference_scenario`; texture arrays of base colours and the appearance
//! data texture read through GL). Alone in its test binary, so that setting `WGPU_BACKEND` races
//! with no other test.

mod common;

#[test]
fn appearance_on_gl_draws_what_the_reference_path_draws() {
    // SAFETY of the environment change: this binary runs this one test.
    std::env::set_var("WGPU_BACKEND", "gl");
    let Some(mut r) = common::renderer() else {
        return;
    };
    assert_eq!(r.adapter().backend, "gl", "expected a GL adapter");
    common::appearance::reference_scenario(&mut r, "-gl");
}
