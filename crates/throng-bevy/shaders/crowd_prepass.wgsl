// throng_bevy crowd depth: a crowd in Bevy's shadow maps and in its depth, normal and
// motion-vector prepasses (throng_bevy::prepass). The vertex is placed by the main pass's own
// function (throng_bevy::crowd_vertex::world_vertex) and projected by the pass's view: the
// light's for a shadow map, the camera's for a prepass.
//
// Bindings: group 0 is Bevy's prepass view group (view, globals, previous view), groups 1 and 2
// are Bevy's empty prepass group, group 3 (G_SKIN) is the crowd's, as in crowd.wgsl.
// Defs, as Bevy's prepass pipeline sets them for the pass's view key: DEPTH_PREPASS,
// NORMAL_PREPASS, MOTION_VECTOR_PREPASS (with MOTION: the previous frame's transforms and
// palette), UNCLIPPED_DEPTH_ORTHO_EMULATION (a directional light's cascade on a device without
// depth-clip control: the depth is clamped in the vertex stage and written unclamped by the
// fragment stage, so casters between the light and the cascade's near plane still cast),
// PREPASS_FRAGMENT (a fragment stage runs), INVARIANT_POSITION (a camera's prepass, whose depth
// the main pass tests against: positions invariant in both); and crowd_vertex's PALETTE,
// INFLUENCES_4.
// Outputs: normals at location 0 as Bevy's normal prepass stores them (n · 0.5 + 0.5),
// motion vectors at location 1 (Bevy's convention: NDC xy of now minus of then, y flipped, halved).

#import bevy_pbr::{
    mesh_view_bindings::view,
    view_transformations::position_world_to_clip,
}
#ifdef MOTION_VECTOR_PREPASS
#import bevy_pbr::prepass_bindings::previous_view_uniforms
#endif
#import throng::vertex::VertexIn
#import throng_bevy::crowd_vertex::{crowd_vertex, world_vertex, vertex_appearance}
#import throng_bevy::crowd_appearance::part_clip
#ifdef MOTION
#import throng_bevy::crowd_vertex::prev_world_position
#endif

struct PrepassOut {
#ifdef INVARIANT_POSITION
    @invariant @builtin(position) clip_position: vec4<f32>,
#else
    @builtin(position) clip_position: vec4<f32>,
#endif
#ifdef NORMAL_PREPASS
    @location(0) world_normal: vec3<f32>,
#endif
#ifdef MOTION_VECTOR_PREPASS
    @location(1) world_position: vec4<f32>,
    @location(2) previous_position: vec4<f32>,
#endif
#ifdef UNCLIPPED_DEPTH_ORTHO_EMULATION
    @location(3) unclipped_depth: f32,
#endif
}

@vertex
fn vertex(stream: VertexIn, @builtin(instance_index) instance_index: u32, @builtin(vertex_index) vertex_index: u32) -> PrepassOut {
    let v = crowd_vertex(stream, instance_index, vertex_index);
    let placed = world_vertex(v);
    var out: PrepassOut;
    // a part the instance hides: clipped whole, so it casts no shadow and leaves no depth
    out.clip_position = part_clip(vertex_appearance(v), position_world_to_clip(placed.position));
#ifdef UNCLIPPED_DEPTH_ORTHO_EMULATION
    out.unclipped_depth = out.clip_position.z;
    out.clip_position.z = min(out.clip_position.z, 1.0);
#endif
#ifdef NORMAL_PREPASS
    out.world_normal = placed.normal;
#endif
#ifdef MOTION_VECTOR_PREPASS
    out.world_position = vec4<f32>(placed.position, 1.0);
#ifdef MOTION
    out.previous_position = vec4<f32>(prev_world_position(v), 1.0);
#else
    out.previous_position = out.world_position;
#endif
#endif
    return out;
}

// PREPASS_FRAGMENT is set only with at least one of the outputs below.
#ifdef PREPASS_FRAGMENT
struct PrepassFragment {
#ifdef NORMAL_PREPASS
    @location(0) normal: vec4<f32>,
#endif
#ifdef MOTION_VECTOR_PREPASS
    @location(1) motion_vector: vec2<f32>,
#endif
#ifdef UNCLIPPED_DEPTH_ORTHO_EMULATION
    @builtin(frag_depth) frag_depth: f32,
#endif
}

@fragment
fn fragment(in: PrepassOut, @builtin(front_facing) front: bool) -> PrepassFragment {
    var out: PrepassFragment;
#ifdef NORMAL_PREPASS
    // Double-sided primitives face the viewer from both sides, as the main pass shades them.
    var n = normalize(in.world_normal);
    if (!front) {
        n = -n;
    }
    out.normal = vec4<f32>(n * 0.5 + vec3<f32>(0.5), 1.0);
#endif
#ifdef MOTION_VECTOR_PREPASS
    let now = view.unjittered_clip_from_world * in.world_position;
    let then = previous_view_uniforms.clip_from_world * in.previous_position;
    out.motion_vector = (now.xy / now.w - then.xy / then.w) * vec2<f32>(0.5, -0.5);
#endif
#ifdef UNCLIPPED_DEPTH_ORTHO_EMULATION
    out.frag_depth = in.unclipped_depth;
#endif
    return out;
}
#endif
