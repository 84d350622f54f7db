// throng::vertex — a crowd vertex as every skinned draw fetches it: the vertex stream of
// throng_asset::gpu::GpuVertex (64 B, interleaved) at the shader locations of
// GpuVertex::ATTRIBUTES, and its influences decoded for throng::skin. throng-render's texture and
// palette draws and throng-bevy's crowd_vertex take their vertex stage's input from here, so the
// stream is declared once for both embeddings (each crate's naga test checks these locations
// against the Rust table).
//
// Defs: INFLUENCES_4 — every primitive has at most 4 influences per vertex: the second four
// joints and weights are not declared (not fetched), and the skinning sees them as constant
// zeros. A software rasteriser runs each influence for every lane whatever its weight, so this
// halves its skinning work.
// Field names end in letters: naga_oil refuses module identifiers that end in a digit.
#define_import_path throng::vertex

// A vertex as the main pass fetches it: bind-space position and normal (file units), palette
// indices, unorm16 weights as integers (decoded here as w / 65535, exactly as the CPU decoder
// throng_asset::decode::unorm16 does, rather than by the vertex fetch's unorm conversion), UV0.
struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) joints_lo: vec4<u32>,
    @location(4) weights_lo: vec4<u32>,
    @location(6) uv: vec2<f32>,
#ifndef INFLUENCES_4
    @location(3) joints_hi: vec4<u32>,
    @location(5) weights_hi: vec4<u32>,
#endif
}

// What a depth-only pass fetches of a vertex (throng-render's shadow pass): its position and
// influences, at the same locations.
struct DepthVertexIn {
    @location(0) position: vec3<f32>,
    @location(2) joints_lo: vec4<u32>,
    @location(4) weights_lo: vec4<u32>,
#ifndef INFLUENCES_4
    @location(3) joints_hi: vec4<u32>,
    @location(5) weights_hi: vec4<u32>,
#endif
}

// A vertex's palette indices and weights, as throng::skin takes them.
struct Influences {
    joints: array<u32, 8>,
    weights: array<f32, 8>,
}

// The influences of a vertex cut to the strongest k (weights are stored in descending order),
// renormalised to sum to 1; k ≥ 8 keeps them all. Every index is a constant (lavapipe keeps
// dynamically indexed local arrays in memory, per lane).
fn influences_of(joints_lo: vec4<u32>, joints_hi: vec4<u32>, weights_lo: vec4<u32>, weights_hi: vec4<u32>, k: u32) -> Influences {
    let j = array<u32, 8>(joints_lo.x, joints_lo.y, joints_lo.z, joints_lo.w, joints_hi.x, joints_hi.y, joints_hi.z, joints_hi.w);
    var w0 = vec4<f32>(weights_lo) / 65535.0;
    var w1 = vec4<f32>(weights_hi) / 65535.0;
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

// The influences of a main-pass vertex, cut to k (8: all of them).
fn vertex_influences(v: VertexIn, k: u32) -> Influences {
    return depth_vertex_influences(depth_part(v), k);
}

// The influences of a depth-only vertex, cut to k: the same operations as vertex_influences
// (a shadow is cast by exactly the pose the main pass draws).
fn depth_vertex_influences(v: DepthVertexIn, k: u32) -> Influences {
#ifdef INFLUENCES_4
    let zero = vec4<u32>(0u);
    return influences_of(v.joints_lo, zero, v.weights_lo, zero, k);
#else
    return influences_of(v.joints_lo, v.joints_hi, v.weights_lo, v.weights_hi, k);
#endif
}

// The part of a main-pass vertex a depth-only pass reads.
fn depth_part(v: VertexIn) -> DepthVertexIn {
#ifdef INFLUENCES_4
    return DepthVertexIn(v.position, v.joints_lo, v.weights_lo);
#else
    return DepthVertexIn(v.position, v.joints_lo, v.weights_lo, v.joints_hi, v.weights_hi);
#endif
}
