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
// B_* (throng_bevy::render::ThrongPipeline::specialize), DEBUG_NORMALS (ThrongDebugView).
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
}

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
    return out;
}

@fragment
fn fragment(in: VertexOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    var color = slot_color(in.slot, in.uv) * in.tint;
    var pbr_input = pbr_types::pbr_input_new();
    pbr_input.material.base_color = color;
    pbr_input.material.perceptual_roughness = 0.9;
    pbr_input.material.metallic = 0.0;
    pbr_input.frag_coord = in.clip_position;
    pbr_input.world_position = in.world_position;
    var n = normalize(in.world_normal);
    if (!front && draw.misc.y != 0u) {
        n = -n;
    }
    pbr_input.world_normal = n;
    pbr_input.N = n;
    pbr_input.is_orthographic = view.clip_from_view[3].w == 1.0;
    pbr_input.V = pbr_functions::calculate_view(in.world_position, pbr_input.is_orthographic);
    pbr_input.flags = MESH_FLAGS_SHADOW_RECEIVER_BIT;
#ifdef DEBUG_NORMALS
    // ThrongDebugView::Normals: the normal as colour, unlit, as throng-render's DebugView::Normals
    // writes it (throng_render::mesh's fragment), for pictures the two renderers share.
    return vec4<f32>(n * 0.5 + 0.5, 1.0);
#else
    let lit = pbr_functions::apply_pbr_lighting(pbr_input);
    return pbr_functions::main_pass_post_lighting_processing(pbr_input, lit);
#endif
}
