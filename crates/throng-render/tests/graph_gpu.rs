//! Animation graphs stepped on the GPU against the CPU step, exactly (docs/graph.md "On the
//! GPU"), on the default backend (lavapipe in CI).

#[path = "common/graph_gpu.rs"]
mod graph_gpu;

#[test]
fn the_gpu_graph_step_equals_the_cpu_step() {
    let Some(gpu) = throng_render::device::test_gpu() else {
        return;
    };
    graph_gpu::graph_gpu_scenario(&gpu, "default backend");
}
