// Reference path (docs/design.md §5): vertices skinned on the CPU (model space) and uploaded
// each frame; only the instance transform is applied here.

#import throng_render::frame::VsOut
#import throng_render::mesh::{StaticVertex, mesh_vertex, mesh_fragment}

@vertex
fn vs_main(v: StaticVertex, @builtin(instance_index) inst: u32) -> VsOut {
    return mesh_vertex(inst, v.position, v.normal, vec4<f32>(1.0, 0.0, 0.0, 1.0), v.uv);
}

@fragment
fn fs_main(in: VsOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    return mesh_fragment(in, front);
}
