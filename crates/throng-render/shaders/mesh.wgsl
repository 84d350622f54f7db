// throng_render::mesh — the material of a mesh draw and its fragment shading (every skinning
// path and the reference path): base colour factor × texture (sRGB) with the texture
// transform, × the instance's tint, double-sided Lambert with the shadowed light, or the debug
// colour (the normals view: the normal as colour, unlit). A primitive's material is a set of
// slots — its own material and, per material variant of the asset, the variant's — that the
// instance's appearance picks from.
#define_import_path throng_render::mesh

#import throng::appearance::{Appearance, appearance_tint, shows_part, shows_prop}
#import throng::material::{MaterialSet, variant_slot, material_uv}
#import throng_render::appearance::instance_appearance

#import throng::playback::instance_affine
#import throng::decode::apply_affine
#import throng::far::far_share
#import throng_render::frame::{frame, draw, VsOut, clip_position, shade, shade_debug}
#import throng::far::far_card_half
#import throng::instances::instance_transform
#ifdef MOTION
#import throng_render::frame::{MotionOut, with_motion}
#import throng::instances::prev_instance_transforms
#endif

// A vertex already in model space (CPU-skinned on the reference path, a prop's in its anchor's
// space): the vertex buffer layout both pipelines share (crate::passes::reference).
struct StaticVertex {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
}

// The draw's material slots (throng::material; Rust twin: throng_asset::gpu::MaterialSet).
@group(#{G_MATERIAL}) @binding(#{B_MATERIAL}) var<uniform> material: MaterialSet;
// Base colour textures of the slots (sRGB, one per layer, one size; a white layer for a slot
// without a texture).
@group(#{G_MATERIAL}) @binding(#{B_BASE_TEXTURE}) var base_texture: texture_2d_array<f32>;
@group(#{G_MATERIAL}) @binding(#{B_BASE_SAMPLER}) var base_sampler: sampler;

// A model-space vertex placed by its instance's transform: what every draw's vertex stage hands
// the fragment stage (debug colour 0; a debug view sets its own after).
fn mesh_vertex(inst: u32, position: vec3<f32>, normal: vec3<f32>, tangent: vec4<f32>, uv: vec2<f32>) -> VsOut {
    return placed_vertex(instance_affine(instance_transform(inst)), position, normal, tangent, uv);
}

// mesh_vertex with the instance's affine `m` already read.
fn placed_vertex(m: mat3x4<f32>, position: vec3<f32>, normal: vec3<f32>, tangent: vec4<f32>, uv: vec2<f32>) -> VsOut {
    let world = apply_affine(m, position, normal, tangent);
    var out: VsOut;
    out.clip = clip_position(world.position);
    out.normal = world.normal;
    out.world = world.position;
    out.uv = uv;
    out.debug = vec4<f32>(0.0);
    out.variant = 0u;
    out.tint = vec4<f32>(1.0);
    out.fade = 0.0;
    return out;
}

// The clip position of a vertex of a hidden part or prop: outside the clip volume, so every
// triangle of the draw is clipped away (no pixel, no shadow).
const HIDDEN_CLIP: vec4<f32> = vec4<f32>(2.0, 2.0, 2.0, 1.0);

// mesh_vertex for a crowd instance: with its appearance's material slot and tint, and moved
// out of view when its part (or prop) is hidden.
fn crowd_vertex(inst: u32, position: vec3<f32>, normal: vec3<f32>, tangent: vec4<f32>, uv: vec2<f32>) -> VsOut {
    let m = instance_affine(instance_transform(inst));
    var out = placed_vertex(m, position, normal, tangent, uv);
    let a = instance_appearance(inst);
    if (!shows_part(a, material.part) || !shows_prop(a, material.prop)) {
        out.clip = HIDDEN_CLIP;
    }
    out.variant = a.variant;
    out.tint = appearance_tint(a);
    // In the main view a crowd instance near the far tier's switch crossfades with its card
    // (the shadow pass switches without one).
    if (draw.pass_index != 1u && draw.far_fade.x > 0.0) {
        out.fade = far_share(m, draw.far_sphere, draw.far_fade.x, frame.eye, draw.far_fade.yz);
    }
    return out;
}

// The clip position of a crowd vertex in the shadow pass (crowd_vertex's, without the rest).
fn crowd_clip(inst: u32, clip: vec4<f32>) -> vec4<f32> {
    let a = instance_appearance(inst);
    if (!shows_part(a, material.part) || !shows_prop(a, material.prop)) {
        return HIDDEN_CLIP;
    }
    return clip;
}

fn mesh_fragment(in: VsOut, front: bool) -> vec4<f32> {
    // The card's share of the crossfade (throng::far::far_card_half).
    if (far_card_half(in.clip.xy, in.fade)) {
        discard;
    }
    // Double-sided lighting: back faces use the flipped normal.
    var n = normalize(in.normal);
    if (!front) {
        n = -n;
    }
    // A variant past the asset's draws the own material.
    let slot = variant_slot(in.variant, material.count);
    let m = material.slots[slot];
    let layer = material.layers[slot / 4u][slot % 4u];
    let tuv = material_uv(m, in.uv);
    let base = in.tint * m.base_color * textureSample(base_texture, base_sampler, tuv, layer);
    // The normals debug view: unlit, the colour throng-bevy's crowd.wgsl writes for it.
    if (frame.debug.x == 6u) {
        return vec4<f32>(n * 0.5 + 0.5, 1.0);
    }
    if (in.debug.a > 0.0) {
        return vec4<f32>(shade_debug(in.debug.rgb, n), 1.0);
    }
    // Every material is drawn opaque (glTF's default alphaMode, the only one throng draws),
    // whose alpha the spec says to ignore: a texture's alpha must not reach the picture.
    return vec4<f32>(shade(base.rgb, n, in.world), 1.0);
}

#ifdef MOTION
// The previous frame's clip position of a model-space point of instance `inst`: placed by the
// instance's previous transform, seen by the previous camera.
fn prev_clip_position(inst: u32, position: vec3<f32>) -> vec4<f32> {
    let up = vec3<f32>(0.0, 1.0, 0.0);
    let world = apply_affine(instance_affine(prev_instance_transforms[inst]), position, up, vec4<f32>(1.0, 0.0, 0.0, 1.0));
    return frame.prev_view_proj * vec4<f32>(world.position, 1.0);
}

fn mesh_fragment_motion(in: VsOut, front: bool) -> MotionOut {
    return with_motion(mesh_fragment(in, front), in);
}
#endif
