// Occlusion culling's second phase (docs/design.md §5 "Occlusion culling"), after the first
// phase's draws and the depth pyramid: every instance the culling pass found in view
// (`cull_lists::boxes`) is tested against the pyramid; the visible ones become the next frame's
// history, and those the first phase did not draw are appended to pass 2 at the LOD the culling
// pass chose. An instance is left out only when depth drawn this frame hides its whole box, so
// what the last frame saw decides how much the first phase draws, never what the image shows.
// One program for every playback timing: the boxes carry all it needs of the instance.

#import throng_render::cull_lists::{append_main, copy_counts, cull, visible_ids, boxes}
#import throng_render::depth_pyramid::DepthPyramid

@group(0) @binding(#{B_PYRAMID_PARAMS}) var<uniform> pyramid: DepthPyramid;
@group(0) @binding(#{B_PYRAMID}) var<storage, read> hiz: array<f32>;

// Whether the depth pyramid hides the world box (`centre`, `half`): its nearest depth lies
// beyond the farthest depth of the pixels its screen rectangle covers, read at a level where
// that rectangle spans at most 4×4 texels (the texels overhang it by less than one each side;
// with 2×2 a tall, narrow box would read a region up to 4 times its width). A box reaching
// behind the eye or before the near plane is never hidden.
fn occluded(centre: vec3<f32>, half: vec3<f32>) -> bool {
    var lo = vec3<f32>(3.4e38);
    var hi = vec3<f32>(-3.4e38);
    var min_w = 3.4e38;
    for (var k = 0u; k < 8u; k++) {
        let corner = vec3<f32>(f32(k & 1u), f32((k >> 1u) & 1u), f32(k >> 2u)) * 2.0 - 1.0;
        let c = pyramid.view_proj * vec4<f32>(centre + corner * half, 1.0);
        min_w = min(min_w, c.w);
        let ndc = c.xyz / max(c.w, 1e-6);
        lo = min(lo, ndc);
        hi = max(hi, ndc);
    }
    // Pixel rectangle (framebuffer y points down), clamped to the target.
    let size = vec2<f32>(pyramid.size.xy);
    let last = size - 1.0;
    let p0 = vec2<u32>(clamp((vec2<f32>(lo.x, -hi.y) * 0.5 + 0.5) * size, vec2<f32>(0.0), last));
    let p1 = vec2<u32>(clamp((vec2<f32>(hi.x, -lo.y) * 0.5 + 0.5) * size, vec2<f32>(0.0), last));
    // Level l has texels of t = 2^(l+1) pixels; with t ≥ half the rectangle's larger side s
    // (l + 1 = ⌊log2 s⌋) the rectangle spans at most 4 texels per axis.
    let s = max(p1.x - p0.x, p1.y - p0.y);
    let level = min(u32(max(i32(firstLeadingBit(max(s, 1u))) - 1, 0)), pyramid.size.z - 1u);
    let lv = pyramid.levels[level];
    let t0 = min(p0 >> vec2<u32>(level + 1u), lv.yz - 1u);
    let t1 = min(p1 >> vec2<u32>(level + 1u), lv.yz - 1u);
    var far = 0.0;
    for (var k = 0u; k < 16u; k++) {
        let t = min(t0 + vec2<u32>(k & 3u, k >> 2u), t1);
        far = max(far, hiz[lv.x + t.y * lv.y + t.x]);
    }
    return min_w > 1e-6 && lo.z > 0.0 && lo.z > far;
}

@compute @workgroup_size(64)
fn cs_occlusion(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= cull.instance_count) {
        return;
    }
    let at = cull.history_base + i;
    let c = boxes[2u * i];
    let h = boxes[2u * i + 1u];
    if (h.w == 0.0) {
        visible_ids[at] = 0u;
        return;
    }
    let drawn = visible_ids[at] == 1u;
    let visible = !occluded(c.xyz, h.xyz);
    visible_ids[at] = u32(visible);
    if (visible && !drawn) {
        append_main(2u, u32(c.w), i);
    }
}

@compute @workgroup_size(64)
fn cs_occlusion_finish(@builtin(global_invocation_id) id: vec3<u32>) {
    copy_counts(id.x);
}
