// throng_bevy crowd draw: one instanced draw per primitive of a baked asset inside Bevy's main
// 3D pass, on the palette path (docs/design.md §5 "Skinning paths"). The crowd's palette pass
// (throng-asset's palette_pass.wgsl) has written every instance's blended skin matrices; the vertex stage
// places the vertex with throng_bevy::crowd_vertex (throng::skin, def PALETTE: one palette
// read per influence, then the instance's transform); the fragment stage hands the surface to
// Bevy's PBR lighting (bevy_pbr::pbr_functions), so Bevy's lights, shadow maps, fog and
// tonemapping apply.
//
// Bindings: groups 0 and 1 are Bevy's mesh view bind groups, group 2 is Bevy's empty group (no
// Bevy mesh uniforms are read), group 3 (G_SKIN) is the crowd's, binding numbers from
// throng_bevy::render::bindings (from 100 up, clear of bevy_pbr::pbr_bindings, which
// pbr_functions imports at group 3 but never reads here).
// Defs: PALETTE, INFLUENCES_4 (every primitive has at most 4 influences per vertex), G_SKIN,
// B_* (throng_bevy::render::ThrongPipeline::specialize), DEBUG_NORMALS (ThrongDebugView),
// CARD (the far tier's cards: card_vertex and card_fragment, throng_bevy::crowd_far),
// CROSSFADE (a culled crowd with a far tier: meshes and cards each keep their half of the
// crossfade's screen door, throng_bevy::crowd_far::card_share).
// Units: file units; affines as in throng::decode (column i = row i of [L | t]).

#import bevy_pbr::{
    mesh_view_bindings::view,
    pbr_types,
    pbr_functions,
    mesh_types::MESH_FLAGS_SHADOW_RECEIVER_BIT,
    view_transformations::position_world_to_clip,
}
#import throng::vertex::VertexIn
#import throng_bevy::crowd_vertex::{crowd_vertex, world_vertex, vertex_appearance}
#import throng_bevy::crowd_appearance::part_clip
#import throng::appearance::appearance_tint
#import throng_bevy::crowd_material::{draw, material_slot, slot_uv, slot_color}
#ifdef CARD
#import throng_bevy::crowd_far::{card_of, card_point, card_dot, dot_pixel, card_texel, card_covers, card_normal, card_toward}
#import throng::appearance::appearance_of
#endif
#ifdef CROSSFADE
#import throng_bevy::crowd_far::{card_share, card_eye}
#import throng::far::far_card_half
#import throng::playback::instance_affine
#import throng::instances::instance_transforms
#endif

struct VertexOut {
    // With a camera prepass (def INVARIANT_POSITION) the main pass's depth test must pass
    // on exactly the depth crowd_prepass.wgsl wrote with the same operations: invariant
    // then, and only then (it costs lavapipe ~10 % of a 1,000-fox frame).
#ifdef INVARIANT_POSITION
    @invariant @builtin(position) clip_position: vec4<f32>,
#else
    @builtin(position) clip_position: vec4<f32>,
#endif
    @location(0) world_position: vec4<f32>,
    @location(1) world_normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    // The instance's tint (linear RGBA, multiplied with the base colour).
    @location(3) @interpolate(flat) tint: vec4<f32>,
    // The material slot of the instance's variant (throng_bevy::crowd_material).
    @location(4) @interpolate(flat) slot: u32,
#ifdef CROSSFADE
    // The card's share of the crossfade (0: no card).
    @location(5) @interpolate(flat) fade: f32,
#endif
}

#ifdef CROSSFADE
// The camera as throng::far::far_share takes it: its position and the pixels a length of 1
// covers at a distance of 1 (as the culling pass's CullView.eye).
fn camera_eye() -> vec4<f32> {
    return card_eye(view.world_position, view.viewport.w, view.clip_from_view[1][1]);
}
#endif

@vertex
fn vertex(stream: VertexIn, @builtin(instance_index) instance_index: u32, @builtin(vertex_index) vertex_index: u32) -> VertexOut {
    let v = crowd_vertex(stream, instance_index, vertex_index);
    let placed = world_vertex(v);
    let look = vertex_appearance(v);
    var out: VertexOut;
    out.world_position = vec4<f32>(placed.position, 1.0);
    // a part the instance hides: clipped whole (throng_bevy::crowd_appearance)
    out.clip_position = part_clip(look, position_world_to_clip(placed.position));
    out.tint = appearance_tint(look);
    out.world_normal = placed.normal;
    out.slot = material_slot(look.variant);
    out.uv = slot_uv(out.slot, stream.uv);
#ifdef CROSSFADE
    out.fade = card_share(instance_affine(instance_transforms[v.instance]), camera_eye());
#endif
    return out;
}

@fragment
fn fragment(in: VertexOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
#ifdef CROSSFADE
    // The card's fragments of the crossfade (throng::far::far_covered keeps them).
    if (far_card_half(in.clip_position.xy, in.fade)) {
        discard;
    }
#endif
    var n = normalize(in.world_normal);
    if (!front && draw.misc.y != 0u) {
        n = -n;
    }
    return lit(slot_color(in.slot, in.uv) * in.tint, n, in.world_position, in.clip_position);
}

// Base colour `color` with world normal `n` at `world_position` (`frag_coord` its framebuffer
// position) lit by Bevy's PBR functions — or, with DEBUG_NORMALS, the normal as colour.
fn lit(color: vec4<f32>, n: vec3<f32>, world_position: vec4<f32>, frag_coord: vec4<f32>) -> vec4<f32> {
    var pbr_input = pbr_types::pbr_input_new();
    pbr_input.material.base_color = color;
    pbr_input.material.perceptual_roughness = 0.9;
    pbr_input.material.metallic = 0.0;
    pbr_input.frag_coord = frag_coord;
    pbr_input.world_position = world_position;
    pbr_input.world_normal = n;
    pbr_input.N = n;
    pbr_input.is_orthographic = view.clip_from_view[3].w == 1.0;
    pbr_input.V = pbr_functions::calculate_view(world_position, pbr_input.is_orthographic);
    pbr_input.flags = MESH_FLAGS_SHADOW_RECEIVER_BIT;
#ifdef DEBUG_NORMALS
    // ThrongDebugView::Normals: the normal as colour, unlit, as throng-render's DebugView::Normals
    // writes it (throng_render::mesh's fragment), for pictures the two renderers share.
    return vec4<f32>(n * 0.5 + 0.5, 1.0);
#else
    let shaded = pbr_functions::apply_pbr_lighting(pbr_input);
    return pbr_functions::main_pass_post_lighting_processing(pbr_input, shaded);
#endif
}

#ifdef CARD
struct CardOut {
#ifdef INVARIANT_POSITION
    @invariant @builtin(position) clip_position: vec4<f32>,
#else
    @builtin(position) clip_position: vec4<f32>,
#endif
    @location(0) world_position: vec4<f32>,
    @location(1) uv: vec2<f32>,
    @location(2) @interpolate(flat) tiles: vec4<u32>,
    @location(3) @interpolate(flat) weights: vec4<f32>,
    @location(4) @interpolate(flat) look: vec4<u32>,
    @location(5) @interpolate(flat) kx: vec3<f32>,
    @location(6) @interpolate(flat) ky: vec3<f32>,
    @location(7) @interpolate(flat) kz: vec3<f32>,
    // The card's share of the crossfade (1: alone).
    @location(8) @interpolate(flat) share: f32,
}

// From a card's centre towards this pass's view (throng_bevy::crowd_far::card_toward).
fn toward_view(centre: vec3<f32>) -> vec3<f32> {
    return card_toward(centre, view.clip_from_view[3].w == 1.0, view.world_from_view[2].xyz, view.world_position);
}

@vertex
fn card_vertex(@builtin(instance_index) instance_index: u32, @builtin(vertex_index) vertex_index: u32) -> CardOut {
    let c = card_of(instance_index);
    let p = card_point(c, toward_view(c.centre), vertex_index);
    var out: CardOut;
    out.clip_position = position_world_to_clip(p.world);
    out.world_position = vec4<f32>(p.world, 1.0);
    out.uv = p.uv;
    out.tiles = p.tiles;
    out.weights = p.weights;
    out.look = p.look;
    out.kx = p.kx;
    out.ky = p.ky;
    out.kz = p.kz;
#ifdef CROSSFADE
    out.share = card_share(c.m, camera_eye());
#else
    out.share = 1.0;
#endif
    return out;
}

#ifdef CROSSFADE
// A one-pixel card at its point: its texel, worked out in its vertex stage (the base colour in
// the instance's tint, the world normal), which card_dot_fragment lights. Only cameras without
// a prepass draw points, so the position needs no @invariant.
struct DotOut {
    @builtin(position) clip_position: vec4<f32>,
    @location(0) world_position: vec4<f32>,
    @location(1) @interpolate(flat) color: vec4<f32>,
    @location(2) @interpolate(flat) normal: vec3<f32>,
}

// One card of a camera's main pass whose screen box holds exactly one pixel centre (listed so
// by the culling pass, CullView.dots): a point at that centre, carrying what the card's quad
// would hand card_fragment there — the pixel's ray met with the card's plane
// (throng_bevy::crowd_far::card_dot) — or, where the quad misses the centre, no point (outside
// the clip volume). Vertex v is the v-th of the view's one-pixel cards, which the culling pass
// lists from its far list's end down; the draw's first instance is that end
// (throng_bevy::render::cull_state::CrowdCull::dot_draw).
@vertex
fn card_dot_vertex(@builtin(instance_index) instance_index: u32, @builtin(vertex_index) vertex_index: u32) -> DotOut {
    let c = card_of(instance_index - vertex_index);
    let px = dot_pixel(c, view.clip_from_world, view.viewport.zw, camera_eye());
    let d = card_dot(c, toward_view(c.centre), view.clip_from_world, px.ndc);
    let p = d.point;
    var out: DotOut;
    out.clip_position = position_world_to_clip(p.world);
    out.world_position = vec4<f32>(p.world, 1.0);
    // Its one texel is worked out here, where a SIMD lane serves one card, rather than in a
    // fragment stage that a software rasteriser runs for a block of pixels around the one;
    // a texel its dither leaves out makes no point at all.
    let t = card_texel(p.uv, p.tiles, p.weights, p.look);
    let covered = card_covers(t, view.viewport.xy + px.pixel, card_share(c.m, camera_eye()));
    if (!d.inside || out.clip_position.w <= 0.0 || !covered) {
        out.clip_position = vec4<f32>(2.0, 2.0, 2.0, 1.0);
    }
    out.color = vec4<f32>(t.albedo, 1.0) * appearance_tint(appearance_of(p.look));
    out.normal = card_normal(t, p.kx, p.ky, p.kz);
    return out;
}

// A one-pixel card's fragment: the texel card_dot_vertex worked out, lit.
@fragment
fn card_dot_fragment(in: DotOut) -> @location(0) vec4<f32> {
    return lit(in.color, in.normal, in.world_position, in.clip_position);
}
#endif

@fragment
fn card_fragment(in: CardOut) -> @location(0) vec4<f32> {
    let t = card_texel(in.uv, in.tiles, in.weights, in.look);
    if (!card_covers(t, in.clip_position.xy, in.share)) {
        discard;
    }
    let tint = appearance_tint(appearance_of(in.look));
    return lit(vec4<f32>(t.albedo, 1.0) * tint, card_normal(t, in.kx, in.ky, in.kz), in.world_position, in.clip_position);
}
#endif
