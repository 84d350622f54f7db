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
#import throng_render::debug::debug_common
#import throng_render::mesh::{mesh_vertex, crowd_vertex, crowd_clip, mesh_fragment}
#ifdef MOTION
#import throng_render::frame::MotionOut
#import throng::skin::prev_skin_position
#import throng_render::mesh::{prev_clip_position, mesh_fragment_motion}
#endif

// The vertex stream (throng_asset::gpu::GpuVertex, at the locations of its ATTRIBUTES; the
// pipeline's layouts: crate::formats). With INFLUENCES_4 every primitive has at most 4
// influences per vertex (and every LOD uses at most 4): the second joints and weights are not
// fetched, and the skinning below sees them as constant zeros — a software rasteriser runs
// each influence for every lane whatever its weight, so this halves the skinning work.
struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) joints0: vec4<u32>,
    // unorm16 weights as integers, decoded here as w / 65535 exactly like the CPU decoder
    // (throng_asset::decode::unorm16) rather than by the vertex fetch's own unorm conversion.
    @location(4) weights0: vec4<u32>,
    @location(6) uv: vec2<f32>,
#ifndef INFLUENCES_4
    @location(3) joints1: vec4<u32>,
    @location(5) weights1: vec4<u32>,
#endif
}

// What the shadow pass fetches of a vertex.
struct ShadowVertexIn {
    @location(0) position: vec3<f32>,
    @location(2) joints0: vec4<u32>,
    @location(4) weights0: vec4<u32>,
#ifndef INFLUENCES_4
    @location(3) joints1: vec4<u32>,
    @location(5) weights1: vec4<u32>,
#endif
}

// The second four joints and weights of a vertex (zeros with INFLUENCES_4).
struct SecondFour {
    joints: vec4<u32>,
    weights: vec4<u32>,
}

fn second_four(v: ShadowVertexIn) -> SecondFour {
#ifdef INFLUENCES_4
    return SecondFour(vec4<u32>(0u), vec4<u32>(0u));
#else
    return SecondFour(v.joints1, v.weights1);
#endif
}

// A vertex's palette indices and weights, cut to the influences its LOD uses: the strongest k
// (weights are stored in descending order), renormalised to sum to 1.
struct Influences {
    j: array<u32, 8>,
    w: array<f32, 8>,
}

// `joints1`, `weights1`: the second four (zeros with INFLUENCES_4). Every index is a constant
// (lavapipe keeps dynamically indexed local arrays in memory, per lane).
fn vertex_influences(joints0: vec4<u32>, joints1: vec4<u32>, weights0: vec4<u32>, weights1: vec4<u32>, lod: u32) -> Influences {
    let j = array<u32, 8>(joints0.x, joints0.y, joints0.z, joints0.w, joints1.x, joints1.y, joints1.z, joints1.w);
    var w0 = vec4<f32>(weights0) / 65535.0;
    var w1 = vec4<f32>(weights1) / 65535.0;
    let k = draw_influences(lod);
    if (k < 8u) {
        let in0 = vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(k);
        let in1 = vec4<u32>(4u, 5u, 6u, 7u) < vec4<u32>(k);
        let kept0 = select(vec4<f32>(0.0), w0, in0);
        let kept1 = select(vec4<f32>(0.0), w1, in1);
        let kept = dot(kept0, vec4<f32>(1.0)) + dot(kept1, vec4<f32>(1.0));
        // A vertex whose first k weights are all 0 (not the bake's descending order) keeps
        // all its influences rather than collapsing.
        if (kept > 0.0) {
            w0 = kept0 / kept;
            w1 = kept1 / kept;
        }
    }
    return Influences(j, array<f32, 8>(w0.x, w0.y, w0.z, w0.w, w1.x, w1.y, w1.z, w1.w));
}

// The main pass's vertex, as vertex_influences takes it.
fn main_influences(v: VertexIn, lod: u32) -> Influences {
#ifdef INFLUENCES_4
    let zero = vec4<u32>(0u);
    return vertex_influences(v.joints0, zero, v.weights0, zero, lod);
#else
    return vertex_influences(v.joints0, v.joints1, v.weights0, v.weights1, lod);
#endif
}

@vertex
fn vs_main(v: VertexIn, @builtin(instance_index) instance: u32) -> VsOut {
    let inst = instance_id(instance, draw.id_base);
    let lod = draw_lod(instance);
    let f = main_influences(v, lod);
    let s = skin_vertex(inst, f.j, f.w, v.position, v.normal, vec4<f32>(1.0, 0.0, 0.0, 1.0));
    var out = crowd_vertex(inst, s.position, s.normal, s.tangent, v.uv);
#ifdef DEBUG_VIEW
    if (frame.debug.x != 0u) {
        out.debug = debug_texture(inst, lod, f.j, f.w);
    }
#endif
#ifdef MOTION
    out.now_clip = out.clip;
    out.prev_clip = prev_clip_position(inst, prev_skin_position(inst, f.j, f.w, v.position));
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
fn vs_shadow(v: ShadowVertexIn, @builtin(instance_index) instance: u32) -> @builtin(position) vec4<f32> {
    let inst = instance_id(instance, draw.id_base);
    let hi = second_four(v);
    let f = vertex_influences(v.joints0, hi.joints, v.weights0, hi.weights, draw_lod(instance));
    let s = skin_vertex(inst, f.j, f.w, v.position, vec3<f32>(0.0, 1.0, 0.0), vec4<f32>(1.0, 0.0, 0.0, 1.0));
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
