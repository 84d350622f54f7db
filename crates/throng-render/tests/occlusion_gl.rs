//! Occlusion culling on wgpu's GL backend (llvmpipe in CI): the depth pyramid reads the depth
//! target as unfilterable floats (GLSL has no texelFetch from depth samplers) and the culling
//! pass's history shares the visible-id buffer, so the program fits GL's storage-buffer limit.
//! The scenario and its assertions: `common::occlusion_scenario`. Alone in its test binary, so
//! that setting `WGPU_BACKEND` races with no other test.

mod common;

#[test]
fn occlusion_culling_on_gl_draws_fewer_instances_and_the_same_picture() {
    // SAFETY of the environment change: this binary runs this one test.
    std::env::set_var("WGPU_BACKEND", "gl");
    let Some(mut r) = common::renderer() else {
        return;
    };
    let backend = r.adapter().backend.clone();
    assert_eq!(backend, "gl", "expected a GL adapter");
    common::occlusion_scenario(&mut r, "-gl");
}
