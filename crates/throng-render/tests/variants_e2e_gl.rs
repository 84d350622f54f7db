//! The material variants scenario of `tests/variants_e2e.rs` on wgpu's GL backend (llvmpipe
//! in CI). Alone in its test binary, so that setting `WGPU_BACKEND` races with no other test.

mod common;

#[test]
fn baked_variants_on_gl_draw_what_the_reference_path_draws() {
    // SAFETY of the environment change: this binary runs this one test.
    std::env::set_var("WGPU_BACKEND", "gl");
    let Some(mut r) = common::renderer() else {
        return;
    };
    assert_eq!(r.adapter().backend, "gl", "expected a GL adapter");
    common::variants::scenario(&mut r, "-gl");
}
