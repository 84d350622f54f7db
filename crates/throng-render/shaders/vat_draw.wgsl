// VAT path (docs/design.md §5): the vertex index addresses the vertex animation texture; only
// UV0 comes from a vertex buffer. Defs: GPU_TIMED, CULLED, DEBUG_VIEW (the debug views' vertex
// colours) (crate::shaders::Program::VatDraw).

#import throng_render::frame::{VsOut, frame, draw, draw_lod}
#import throng::instances::{instance_layers, instance_id}
#import throng::vat::vat_vertex
#import throng_render::debug::debug_common
#import throng_render::mesh::{crowd_vertex, mesh_fragment}

@vertex
fn vs_main(@location(0) uv: vec2<f32>, @builtin(vertex_index) vertex: u32, @builtin(instance_index) instance: u32) -> VsOut {
    let inst = instance_id(instance, draw.id_base);
    let s = vat_vertex(inst, vertex);
    var out = crowd_vertex(inst, s.position, s.normal, s.tangent, uv);
#ifdef DEBUG_VIEW
    if (frame.debug.x != 0u) {
        // A VAT stores no influences: the weights and palette views show grey.
        var layers = instance_layers(inst);
        out.debug = debug_common(&layers, draw_lod(instance));
        if (out.debug.a == 0.0) {
            out.debug = vec4<f32>(0.5, 0.5, 0.5, 1.0);
        }
    }
#endif
    return out;
}

@fragment
fn fs_main(in: VsOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    return mesh_fragment(in, front);
}
