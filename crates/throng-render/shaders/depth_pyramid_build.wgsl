// Builds the depth pyramid (throng_render::depth_pyramid) from the main pass's depth, one
// dispatch per level: level 0 from the depth target, each further level from the one below.
// A texel takes the farthest of the up to 2×2 it covers (at odd sizes the last row and column
// cover one: the clamp repeats an edge texel, which leaves the maximum unchanged).

#import throng_render::depth_pyramid::DepthPyramid

// The level a dispatch writes (bound with a dynamic offset, 256 B stride).
struct PyramidStep {
    level: u32,
    pad_a: u32,
    pad_b: u32,
    pad_c: u32,
}

@group(0) @binding(#{B_PYRAMID_PARAMS}) var<uniform> pyramid: DepthPyramid;
@group(0) @binding(#{B_PYRAMID_STEP}) var<uniform> step: PyramidStep;
// The depth target, read as plain floats (a depth texture may be bound so; GLSL has no
// texelFetch from depth samplers).
@group(0) @binding(#{B_PYRAMID_DEPTH}) var depth: texture_2d<f32>;
@group(0) @binding(#{B_PYRAMID}) var<storage, read_write> hiz: array<f32>;

@compute @workgroup_size(8, 8)
fn cs_pyramid(@builtin(global_invocation_id) id: vec3<u32>) {
    let dst = pyramid.levels[step.level];
    if (id.x >= dst.y || id.y >= dst.z) {
        return;
    }
    var far = 0.0;
    if (step.level == 0u) {
        let last = pyramid.size.xy - vec2<u32>(1u);
        for (var k = 0u; k < 4u; k++) {
            let p = min(2u * id.xy + vec2<u32>(k & 1u, k >> 1u), last);
            far = max(far, textureLoad(depth, vec2<i32>(p), 0).r);
        }
    } else {
        let src = pyramid.levels[step.level - 1u];
        let last = src.yz - vec2<u32>(1u);
        for (var k = 0u; k < 4u; k++) {
            let p = min(2u * id.xy + vec2<u32>(k & 1u, k >> 1u), last);
            far = max(far, hiz[src.x + p.y * src.y + p.x]);
        }
    }
    hiz[dst.x + id.y * dst.y + id.x] = far;
}
