// Texture skinning path (docs/design.md §5): bind-space vertex streams in, the instance's
// record and transform from storage buffers, skin matrices from the bone texture. Defs:
// ENCODING, BONE_TEXTURE, DUAL_QUAT, GPU_TIMED, CULLED, INFLUENCES_4, DEBUG_VIEW (the debug views'
// vertex colours)
// (crate::shaders::Program::TextureDraw).
// With PALETTE (and no bone texture) the palette path's draw: the same vertex stage, skinning
// from the matrices the palette pass blended (crate::shaders::Program::PaletteDraw); with MOTION
// also each vertex's position in the previous frame, and `fs_motion` writes motion vectors.

#import throng_render::frame::{VsOut, frame, draw, draw_lod, draw_influences, heat, index_color}
#import throng::instances::{instance_layers, instance_id}
#import throng::skin::skin_vertex
#import throng::vertex::{VertexIn, DepthVertexIn, vertex_influences, depth_vertex_influences}
#import throng_render::debug::debug_common
#import throng_render::mesh::{mesh_vertex, crowd_vertex, crowd_clip, mesh_fragment}
#ifdef MOTION
#import throng_render::frame::MotionOut
#import throng::skin::prev_skin_position
#import throng_render::mesh::{prev_clip_position, mesh_fragment_motion}
#endif

// The vertex stream (throng::vertex: throng_asset::gpu::GpuVertex at the locations of its
// ATTRIBUTES; the pipeline's layouts: crate::formats). With INFLUENCES_4 every primitive has at
// most 4 influences per vertex (and every LOD uses at most 4): the second four are not fetched.
// Each LOD skins with the strongest draw_influences(lod) of a vertex's influences.

@vertex
fn vs_main(v: VertexIn, @builtin(instance_index) instance: u32) -> VsOut {
    let inst = instance_id(instance, draw.id_base);
    let lod = draw_lod(instance);
    let f = vertex_influences(v, draw_influences(lod));
    let s = skin_vertex(inst, f.joints, f.weights, v.position, v.normal, vec4<f32>(1.0, 0.0, 0.0, 1.0));
    var out = crowd_vertex(inst, s.position, s.normal, s.tangent, v.uv);
#ifdef DEBUG_VIEW
    if (frame.debug.x != 0u) {
        out.debug = debug_texture(inst, lod, f.joints, f.weights);
    }
#endif
#ifdef MOTION
    out.now_clip = out.clip;
    out.prev_clip = prev_clip_position(inst, prev_skin_position(inst, f.joints, f.weights, v.position));
#endif
    return out;
}

// The shadow pass's vertex stage (depth only): the position of vs_main by the same functions,
// without the normal, tangent, UV and debug outputs nothing reads there — the compiler drops
// their arithmetic (the cofactors and normalisations of skinning and of the instance
// transform), and the pipeline fetches only position, joints and weights
// (crate::formats::shadow_vertex_layout). Bit-identical depth: the position is computed
// by the same operations.
@vertex
fn vs_shadow(v: DepthVertexIn, @builtin(instance_index) instance: u32) -> @builtin(position) vec4<f32> {
    let inst = instance_id(instance, draw.id_base);
    let f = depth_vertex_influences(v, draw_influences(draw_lod(instance)));
    let s = skin_vertex(inst, f.joints, f.weights, v.position, vec3<f32>(0.0, 1.0, 0.0), vec4<f32>(1.0, 0.0, 0.0, 1.0));
    return crowd_clip(inst, mesh_vertex(inst, s.position, s.normal, s.tangent, vec2<f32>(0.0)).clip);
}

// Debug colours: joint weights (1), dominant palette index (2), or the common views.
fn debug_texture(inst: u32, lod: u32, j: array<u32, 8>, w: array<f32, 8>) -> vec4<f32> {
    let mode = frame.debug.x;
    if (mode == 1u) {
        if (frame.debug.y == 0xffffffffu) {
            // Blend zones: 0 where one joint moves the vertex alone.
            return vec4<f32>(heat(1.0 - w[0]), 1.0);
        }
        var jw = 0.0;
        for (var i = 0u; i < 8u; i++) {
            if (j[i] == frame.debug.y) {
                jw += w[i];
            }
        }
        return vec4<f32>(heat(jw), 1.0);
    }
    if (mode == 2u) {
        return vec4<f32>(index_color(j[0]), 1.0);
    }
    var layers = instance_layers(inst);
    return debug_common(&layers, lod);
}

@fragment
fn fs_main(in: VsOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    return mesh_fragment(in, front);
}

#ifdef MOTION
// The main pass with motion vectors (docs/design.md §5 "Motion vectors").
@fragment
fn fs_motion(in: VsOut, @builtin(front_facing) front: bool) -> MotionOut {
    return mesh_fragment_motion(in, front);
}
#endif
