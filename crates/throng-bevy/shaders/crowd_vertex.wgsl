// throng_bevy::crowd_vertex — a crowd vertex placed in the world: skinned with throng::skin
// (palette or texture path, by the PALETTE def) or, with def VAT, fetched from the
// primitive's vertex animation texture by throng::vat (the module throng-render's VAT draw
// imports), and moved by its instance's transform
// (throng::instances). The main pass (crowd.wgsl) and the shadow and prepass passes
// (crowd_prepass.wgsl) both place vertices with this one function, so a crowd's depth in
// Bevy's depth prepass is the depth its main pass draws, and its shadow is cast by the pose
// it is drawn in.
//
// Defs: PALETTE, VAT, INFLUENCES_4 (every primitive has at most 4 influences per vertex:
// throng::vertex), CULLED
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
#import throng::vertex::{VertexIn, Influences, vertex_influences}
#import throng_bevy::crowd_appearance::instance_appearance
#ifdef MOTION
#import throng::instances::prev_instance_transforms
#ifdef PALETTE
#import throng::skin::prev_skin_position
#endif
#endif

// A crowd vertex as the entry points fetch it: the shared vertex stream (throng::vertex, 64 B a
// vertex at the locations of GpuVertex::ATTRIBUTES, as throng-render's draws read it), its
// influences decoded and the instance it belongs to.
struct CrowdVertex {
    stream: VertexIn,
    influences: Influences,
    // The instance: with per-instance culling (def CULLED) the draw's instance index points
    // into the culling pass's list of its (view, LOD) (the indirect draw's first instance is
    // the list's start); otherwise it is the instance.
    instance: u32,
    // The VAT's column: the vertex's index in the primitive (indexed draws, base vertex 0).
    vertex: u32,
}

// The vertex an entry point's inputs describe; every influence is kept (Bevy draws no LOD
// that cuts them).
fn crowd_vertex(stream: VertexIn, instance_index: u32, vertex_index: u32) -> CrowdVertex {
    return CrowdVertex(stream, vertex_influences(stream, 8u), instance_id(instance_index, 0u), vertex_index);
}

fn model_vertex(v: CrowdVertex) -> Skinned {
#ifdef VAT
    return vat_vertex(v.instance, v.vertex);
#else
    let inf = v.influences;
    return skin_vertex(v.instance, inf.joints, inf.weights, v.stream.position, v.stream.normal, vec4<f32>(1.0, 0.0, 0.0, 1.0));
#endif
}

// World-space position and normal of the vertex in this frame's pose.
fn world_vertex(v: CrowdVertex) -> Skinned {
    let skinned = model_vertex(v);
    return apply_affine(instance_affine(instance_transforms[v.instance]), skinned.position, skinned.normal, skinned.tangent);
}

// The vertex's instance's appearance (tint, parts: throng_bevy::crowd_appearance), read at the
// index its transform is read at.
fn vertex_appearance(v: CrowdVertex) -> Appearance {
    return instance_appearance(v.instance);
}

#ifdef MOTION
// World-space position of the same vertex one frame earlier: the previous transform and, on
// the palette path, the previous palette. The texture and VAT paths keep no previous pose, so
// their motion is the instance's movement alone (docs/design.md §5 "throng in Bevy").
fn prev_world_position(v: CrowdVertex) -> vec3<f32> {
#ifdef PALETTE
    let inf = v.influences;
    let p = prev_skin_position(v.instance, inf.joints, inf.weights, v.stream.position);
#else
    let p = model_vertex(v).position;
#endif
    let up = vec3<f32>(0.0, 1.0, 0.0);
    return apply_affine(instance_affine(prev_instance_transforms[v.instance]), p, up, vec4<f32>(1.0, 0.0, 0.0, 1.0)).position;
}
#endif
