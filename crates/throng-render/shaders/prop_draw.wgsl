// Props (docs/design.md §5 "Props"): a static mesh whose own space is its anchor's, drawn once
// per crowd instance in one instanced draw (instance index = crowd instance), placed by the
// anchor that instance shows now and lit like the crowd (throng_render::mesh). Defs: GPU_TIMED
// (crate::shaders::Program::PropDraw).

#import throng::decode::apply_affine
#import throng_render::frame::VsOut
#import throng_render::mesh::{StaticVertex, crowd_vertex, mesh_fragment}
#import throng_render::anchor::{anchor_matrix, prop}

@vertex
fn vs_main(v: StaticVertex, @builtin(instance_index) inst: u32) -> VsOut {
    // Prop space → model space by the anchor, then mesh_vertex applies the instance transform,
    // as for the crowd's own skinned vertices.
    let a = apply_affine(anchor_matrix(inst, prop.anchor), v.position, v.normal, vec4<f32>(1.0, 0.0, 0.0, 1.0));
    var out = crowd_vertex(inst, a.position, a.normal, a.tangent, v.uv);
    // Props are drawn at every distance, cards or not: they take no part in the far tier's
    // crossfade.
    out.fade = 0.0;
    return out;
}

@fragment
fn fs_main(in: VsOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    return mesh_fragment(in, front);
}
