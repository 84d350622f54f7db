// throng_bevy::crowd_vertex — a crowd vertex placed in the world: skinned with throng::skin
// (palette or texture path, by the PALETTE def) or, with def VAT, fetched from the
// primitive's vertex animation texture by throng::vat (the module throng-render's VAT draw
// imports), and moved by its instance's transform
// (throng::instances). The main pass (crowd.wgsl) and the shadow and prepass passes
// (crowd_prepass.wgsl) both place vertices with this one function, so a crowd's depth in
// Bevy's depth prepass is the depth its main pass draws, and its shadow is cast by the pose
// it is drawn in.
//
// Defs: PALETTE, VAT, INFLUENCES_4 (every primitive has at most 4 influences per vertex), CULLED
// (per-instance culling: the draw's instances are a visible-id list); MOTION
// (motion-vector prepass: the previous frame's transforms and, with PALETTE, palette are
// bound; throng::instances, throng::palette).
// Units: file units; affines as in throng::decode (column i = row i of [L | t]).
#define_import_path throng_bevy::crowd_vertex

#import throng::playback::instance_affine
#import throng::instances::{instance_transforms, instance_id}
#ifdef VAT
#import throng::vat::vat_vertex
#else
#import throng::skin::skin_vertex
#endif
#import throng::decode::{Skinned, apply_affine}
#import throng::appearance::Appearance
#import throng_bevy::crowd_appearance::instance_appearance
#ifdef MOTION
#import throng::instances::prev_instance_transforms
#ifdef PALETTE
#import throng::skin::prev_skin_position
#endif
#endif

// The crowd's vertex stream (throng_asset::gpu::GpuVertex, 64 B a vertex, at the shader
// locations of GpuVertex::ATTRIBUTES, as throng-render's draws read it): the entry points'
// input. With INFLUENCES_4 the second four influences are not declared (not fetched).
// Field names end in letters: naga_oil refuses module identifiers that end in a digit.
struct CrowdVertex {
    @builtin(instance_index) instance: u32,
#ifdef VAT
    // The VAT's column: the vertex's index in the primitive (indexed draws, base vertex 0).
    @builtin(vertex_index) vertex: u32,
#endif
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) joints_lo: vec4<u32>,
    // unorm16 weights as integers, w / 65535 as the CPU decoder reads them.
    @location(4) weights_lo: vec4<u32>,
    @location(6) uv: vec2<f32>,
#ifndef INFLUENCES_4
    @location(3) joints_hi: vec4<u32>,
    @location(5) weights_hi: vec4<u32>,
#endif
}

struct Influences {
    joints: array<u32, 8>,
    weights: array<f32, 8>,
}

fn influences(v: CrowdVertex) -> Influences {
    let wa = vec4<f32>(v.weights_lo) / 65535.0;
#ifdef INFLUENCES_4
    // Constant zeros: the second four influences fold away (a software rasteriser runs every
    // influence for every lane whatever its weight).
    let j1 = vec4<u32>(0u);
    let wb = vec4<f32>(0.0);
#else
    let j1 = v.joints_hi;
    let wb = vec4<f32>(v.weights_hi) / 65535.0;
#endif
    let j0 = v.joints_lo;
    return Influences(
        array<u32, 8>(j0.x, j0.y, j0.z, j0.w, j1.x, j1.y, j1.z, j1.w),
        array<f32, 8>(wa.x, wa.y, wa.z, wa.w, wb.x, wb.y, wb.z, wb.w),
    );
}

// The instance a vertex belongs to: with per-instance culling (def CULLED) the draw's instance
// index points into the culling pass's list of its (view, LOD) (the indirect draw's first
// instance is the list's start); otherwise it is the instance.
fn vertex_instance(v: CrowdVertex) -> u32 {
    return instance_id(v.instance, 0u);
}

fn model_vertex(v: CrowdVertex) -> Skinned {
#ifdef VAT
    return vat_vertex(vertex_instance(v), v.vertex);
#else
    let inf = influences(v);
    return skin_vertex(vertex_instance(v), inf.joints, inf.weights, v.position, v.normal, vec4<f32>(1.0, 0.0, 0.0, 1.0));
#endif
}

// World-space position and normal of the vertex in this frame's pose.
fn world_vertex(v: CrowdVertex) -> Skinned {
    let skinned = model_vertex(v);
    return apply_affine(instance_affine(instance_transforms[vertex_instance(v)]), skinned.position, skinned.normal, skinned.tangent);
}

// The vertex's instance's appearance (tint, parts: throng_bevy::crowd_appearance), read at the
// index its transform is read at.
fn vertex_appearance(v: CrowdVertex) -> Appearance {
    return instance_appearance(vertex_instance(v));
}

#ifdef MOTION
// World-space position of the same vertex one frame earlier: the previous transform and, on
// the palette path, the previous palette. The texture and VAT paths keep no previous pose, so
// their motion is the instance's movement alone (docs/design.md §5 "throng in Bevy").
fn prev_world_position(v: CrowdVertex) -> vec3<f32> {
#ifdef PALETTE
    let inf = influences(v);
    let p = prev_skin_position(vertex_instance(v), inf.joints, inf.weights, v.position);
#else
    let p = model_vertex(v).position;
#endif
    let up = vec3<f32>(0.0, 1.0, 0.0);
    return apply_affine(instance_affine(prev_instance_transforms[vertex_instance(v)]), p, up, vec4<f32>(1.0, 0.0, 0.0, 1.0)).position;
}
#endif
