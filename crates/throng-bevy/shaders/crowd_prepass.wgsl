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
// INFLUENCES_4; CARD (the far tier's cards, throng_bevy::crowd_far: card_vertex and
// card_fragment, which keeps the card's covered part); CROSSFADE (a camera's prepass of a culled
// crowd with a far tier: meshes and cards keep their halves of the crossfade's screen door, as
// the main pass does, so its depth test passes on them).
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
#ifdef CARD
#import throng_bevy::crowd_far::{card_of, card_point, card_texel, card_covers, card_normal, card_toward}
#endif
#ifdef CROSSFADE
#import throng_bevy::crowd_far::{card_share, card_eye}
#import throng::far::far_card_half
#import throng::playback::instance_affine
#import throng::instances::instance_transforms
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
#ifdef CARD
    @location(4) uv: vec2<f32>,
    @location(5) @interpolate(flat) tiles: vec4<u32>,
    @location(6) @interpolate(flat) weights: vec4<f32>,
    @location(7) @interpolate(flat) look: vec4<u32>,
    @location(8) @interpolate(flat) kx: vec3<f32>,
    @location(9) @interpolate(flat) ky: vec3<f32>,
    @location(10) @interpolate(flat) kz: vec3<f32>,
#endif
#ifdef CROSSFADE
    // The card's share of the crossfade: a mesh keeps the fragments a card of this share
    // leaves, a card those it keeps.
    @location(11) @interpolate(flat) fade: f32,
#endif
}

#ifdef CROSSFADE
// The camera as throng::far::far_share takes it (crowd.wgsl's camera_eye).
fn camera_eye() -> vec4<f32> {
    return card_eye(view.world_position, view.viewport.w, view.clip_from_view[1][1]);
}
#endif

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
#ifdef CROSSFADE
    out.fade = card_share(instance_affine(instance_transforms[v.instance]), camera_eye());
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
#ifdef CROSSFADE
    if (far_card_half(in.clip_position.xy, in.fade)) {
        discard;
    }
#endif
    var n = vec3<f32>(0.0, 1.0, 0.0);
#ifdef NORMAL_PREPASS
    // Double-sided primitives face the viewer from both sides, as the main pass shades them.
    n = normalize(in.world_normal);
    if (!front) {
        n = -n;
    }
#endif
    return prepass_fragment(in, n);
}

// The prepass's outputs at `in` with world normal `n` (unit length; read with NORMAL_PREPASS).
fn prepass_fragment(in: PrepassOut, n: vec3<f32>) -> PrepassFragment {
    var out: PrepassFragment;
#ifdef NORMAL_PREPASS
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
#else
#ifdef CROSSFADE
// A depth-only prepass still leaves the card's half of the crossfade.
@fragment
fn fragment(in: PrepassOut) {
    if (far_card_half(in.clip_position.xy, in.fade)) {
        discard;
    }
}
#endif
#endif

#ifdef CARD
// From a card's centre towards this pass's view (throng_bevy::crowd_far::card_toward).
fn toward_view(centre: vec3<f32>) -> vec3<f32> {
    return card_toward(centre, view.clip_from_view[3].w == 1.0, view.world_from_view[2].xyz, view.world_position);
}

@vertex
fn card_vertex(@builtin(instance_index) instance_index: u32, @builtin(vertex_index) vertex_index: u32) -> PrepassOut {
    let c = card_of(instance_index);
    let p = card_point(c, toward_view(c.centre), vertex_index);
    var out: PrepassOut;
    out.clip_position = position_world_to_clip(p.world);
#ifdef UNCLIPPED_DEPTH_ORTHO_EMULATION
    out.unclipped_depth = out.clip_position.z;
    out.clip_position.z = min(out.clip_position.z, 1.0);
#endif
#ifdef MOTION_VECTOR_PREPASS
    // A card's motion vectors carry the camera's move only, as throng-render's cards do.
    out.world_position = vec4<f32>(p.world, 1.0);
    out.previous_position = out.world_position;
#endif
    out.uv = p.uv;
    out.tiles = p.tiles;
    out.weights = p.weights;
    out.look = p.look;
    out.kx = p.kx;
    out.ky = p.ky;
    out.kz = p.kz;
#ifdef CROSSFADE
    out.fade = card_share(c.m, camera_eye());
#endif
    return out;
}

// The card's share of the crossfade at `in` (1 alone: a shadow map's card).
fn card_fade(in: PrepassOut) -> f32 {
#ifdef CROSSFADE
    return in.fade;
#else
    return 1.0;
#endif
}

// A card always has a fragment stage (crate::prepass): it keeps the card's covered part, and
// writes PrepassFragment's outputs where there are some.
#ifdef PREPASS_FRAGMENT
@fragment
fn card_fragment(in: PrepassOut) -> PrepassFragment {
    let t = card_texel(in.uv, in.tiles, in.weights, in.look);
    if (!card_covers(t, in.clip_position.xy, card_fade(in))) {
        discard;
    }
    return prepass_fragment(in, normalize(card_normal(t, in.kx, in.ky, in.kz)));
}
#else
@fragment
fn card_fragment(in: PrepassOut) {
    if (!card_covers(card_texel(in.uv, in.tiles, in.weights, in.look), in.clip_position.xy, card_fade(in))) {
        discard;
    }
}
#endif
#endif
