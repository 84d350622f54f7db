// throng_render::frame — the per-frame uniform (camera, light, shadow map, ground, debug view),
// the per-draw uniform, the vertex-to-fragment interface and the shading shared by every pass
// that draws meshes (Rust twins: crate::gpu_types::{FrameUniform, DrawParams}). World space =
// model space of the scene.
#define_import_path throng_render::frame

struct FrameUniform {
    view_proj: mat4x4<f32>,
    // Clip-from-world of the shadow camera (orthographic, along light_dir; depth 0..1).
    light_view_proj: mat4x4<f32>,
    // Unit direction the light travels, world space; w unused.
    light_dir: vec4<f32>,
    // Light colour (linear RGB) and ambient strength in w.
    light: vec4<f32>,
    // Ground plane: centre x, height y, centre z, half extent (file units).
    ground: vec4<f32>,
    // x: checker cell size (file units); yzw unused.
    ground_cell: vec4<f32>,
    // x: 1 when the shadow map is used, y: shadow-map texel size (uv units), z: depth bias
    // (shadow clip-space depth), w unused.
    shadow: vec4<f32>,
    // x: debug view (0 none, 1 joint weights, 2 palette index, 3 frame row, 4 LOD, 5 motion, 6 normals), y: joint of
    // the weights view (0xffffffff: 1 − largest weight instead), zw unused.
    debug: vec4<u32>,
    // Motion vectors (docs/design.md §5 "Motion vectors"): clip-from-world of the previous
    // frame's camera (this frame's when there is none).
    prev_view_proj: mat4x4<f32>,
    // x, y: the target's size in pixels; z: the motion that the motion debug view shows at
    // full brightness, pixels; w unused.
    motion: vec4<f32>,
    // The camera's position (world) and, in w, the pixels a length of 1 covers at a distance
    // of 1: the culling pass's `eye`, for the far tier's crossfade (throng::far::far_share).
    eye: vec4<f32>,
}

// One draw of a pass (0 main, 1 shadow), bound with a dynamic offset (256 B stride). Either one
// draw per LOD (`lod` < 0xffffffff): its visible ids start at `id_base` and it uses `influences`
// influences; or one multi-draw over every LOD with first instances (`lod` = 0xffffffff): the
// instance index itself addresses the visible ids, each (pass, LOD) list `segment` long, and
// LOD l uses byte l (l ≤ 3) of `lod_influences` influences.
struct DrawParams {
    id_base: u32,
    influences: u32,
    lod: u32,
    pass_index: u32,
    segment: u32,
    lod_count: u32,
    lod_influences: u32,
    pad: u32,
    // The far tier's crossfade (docs/design.md §5 "Far tier"; throng::far::far_share): the
    // tier's sphere (model centre, radius) and x its texel (the far level's error, model units;
    // 0: no crossfade, meshes draw whole), y the pixels a texel covers where the card starts to
    // show, z how many fewer where it shows alone.
    far_sphere: vec4<f32>,
    far_fade: vec4<f32>,
}

@group(0) @binding(#{B_FRAME}) var<uniform> frame: FrameUniform;
@group(#{G_DRAW}) @binding(#{B_DRAW_PARAMS}) var<uniform> draw: DrawParams;
// Main pass only: the shadow map the shadow pass rendered and its comparison sampler.
@group(#{G_DRAW}) @binding(#{B_SHADOW_MAP}) var shadow_map: texture_depth_2d;
@group(#{G_DRAW}) @binding(#{B_SHADOW_SAMPLER}) var shadow_sampler: sampler_comparison;

struct VsOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,
    @location(1) world: vec3<f32>,
    // UV0 (glTF: origin top-left), before the material's texture transform.
    @location(2) uv: vec2<f32>,
    // Debug view colour (alpha 0: shade normally).
    @location(3) debug: vec4<f32>,
    // The instance's appearance (throng::appearance): its material slot (0 own, v variant
    // v - 1) and its tint, linear RGBA; 0 and white where a draw has no appearance.
    @location(6) @interpolate(flat) variant: u32,
    @location(7) @interpolate(flat) tint: vec4<f32>,
    // The share of the instance its far card shows (throng::far::far_share; 0 where nothing
    // crossfades): the mesh keeps the fragments whose fade_threshold is at least that.
    @location(8) @interpolate(flat) fade: f32,
#ifdef MOTION
    // The same surface point's clip position in this frame and in the previous one (its
    // previous pose, instance transform and camera).
    @location(4) now_clip: vec4<f32>,
    @location(5) prev_clip: vec4<f32>,
#endif
}

// The LOD of the instance drawn as instance index `i`.
fn draw_lod(i: u32) -> u32 {
    if (draw.lod != 0xffffffffu) {
        return draw.lod;
    }
    return i / max(draw.segment, 1u) - draw.pass_index * draw.lod_count;
}

// Influences per vertex used at `lod`.
fn draw_influences(lod: u32) -> u32 {
    if (draw.lod != 0xffffffffu) {
        return draw.influences;
    }
    return (draw.lod_influences >> (8u * min(lod, 3u))) & 0xffu;
}

// The clip position of a world point in this draw's pass.
fn clip_position(world: vec3<f32>) -> vec4<f32> {
    if (draw.pass_index == 1u) {
        return frame.light_view_proj * vec4<f32>(world, 1.0);
    }
    return frame.view_proj * vec4<f32>(world, 1.0);
}

// Fraction of the directional light reaching `world`: 2×2 comparison taps of the shadow map
// (each bilinearly filtered where the adapter filters comparisons), 1 outside the shadow camera.
fn light_visibility(world: vec3<f32>) -> f32 {
    if (frame.shadow.x == 0.0) {
        return 1.0;
    }
    let p = frame.light_view_proj * vec4<f32>(world, 1.0);
    let ndc = p.xyz / p.w;
    let uv = vec2<f32>(ndc.x * 0.5 + 0.5, 0.5 - ndc.y * 0.5);
    if (any(uv < vec2<f32>(0.0)) || any(uv > vec2<f32>(1.0)) || ndc.z > 1.0 || ndc.z < 0.0) {
        return 1.0;
    }
    let depth = ndc.z - frame.shadow.z;
    let t = frame.shadow.y * 0.5;
    var lit = 0.0;
    lit += textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2<f32>(-t, -t), depth);
    lit += textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2<f32>(t, -t), depth);
    lit += textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2<f32>(-t, t), depth);
    lit += textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2<f32>(t, t), depth);
    return lit * 0.25;
}

// Lambert with one shadowed directional light plus ambient, in linear colour.
fn shade(base: vec3<f32>, n: vec3<f32>, world: vec3<f32>) -> vec3<f32> {
    let d = max(dot(n, -frame.light_dir.xyz), 0.0);
    var lit = 0.0;
    if (d > 0.0) {
        lit = light_visibility(world);
    }
    return base * (frame.light.w + d * lit * frame.light.rgb);
}

// A debug colour under the light without shadows, so shapes stay readable.
fn shade_debug(c: vec3<f32>, n: vec3<f32>) -> vec3<f32> {
    return c * (0.45 + 0.55 * max(dot(n, -frame.light_dir.xyz), 0.0));
}

// Blue → cyan → green → yellow → red for t in 0..1.
fn heat(t: f32) -> vec3<f32> {
    let x = clamp(t, 0.0, 1.0) * 4.0;
    return clamp(vec3<f32>(x - 2.0, min(x, 4.0 - x), 2.0 - x), vec3<f32>(0.0), vec3<f32>(1.0));
}

// A distinct, stable colour per integer (golden-ratio hue steps).
fn index_color(i: u32) -> vec3<f32> {
    let h = fract(f32(i) * 0.618034 + 0.1);
    let k = vec3<f32>(0.0, 2.0 / 3.0, 1.0 / 3.0);
    let c = clamp(abs(fract(vec3<f32>(h) + k) * 6.0 - 3.0) - 1.0, vec3<f32>(0.0), vec3<f32>(1.0));
    return mix(vec3<f32>(0.25), c, 0.85);
}

#ifdef MOTION
// What a main pass with motion vectors writes: the colour and the motion vector target
// (crate::MOTION_FORMAT).
struct MotionOut {
    @location(0) color: vec4<f32>,
    @location(1) motion: vec2<f32>,
}

// Screen-space motion of a fragment from the previous frame to this one, in UV units (the
// fraction of the target's width and height; +x right, +y down): this frame's position minus
// the previous frame's, each divided by its own w here, per fragment, so that the
// perspective-correct interpolation of both clip positions gives the motion of the surface
// point itself. 0 where the previous position was behind the camera.
fn motion_vector(in: VsOut) -> vec2<f32> {
    return clip_motion(in.now_clip, in.prev_clip);
}

// motion_vector's arithmetic from the two interpolated clip positions.
fn clip_motion(now_clip: vec4<f32>, prev_clip: vec4<f32>) -> vec2<f32> {
    if (prev_clip.w <= 0.0 || now_clip.w <= 0.0) {
        return vec2<f32>(0.0);
    }
    let now = now_clip.xy / now_clip.w;
    let prev = prev_clip.xy / prev_clip.w;
    return (now - prev) * vec2<f32>(0.5, -0.5);
}

// The motion debug view's colour: hue by direction, brightness by length (full at
// frame.motion.z pixels); black where nothing moves.
fn motion_color(m: vec2<f32>) -> vec3<f32> {
    let px = m * frame.motion.xy;
    let len = length(px);
    if (len == 0.0) {
        return vec3<f32>(0.0);
    }
    let h = atan2(px.y, px.x) / 6.2831853 + 0.5;
    let k = vec3<f32>(0.0, 2.0 / 3.0, 1.0 / 3.0);
    let c = clamp(abs(fract(vec3<f32>(h) + k) * 6.0 - 3.0) - 1.0, vec3<f32>(0.0), vec3<f32>(1.0));
    return c * min(len / max(frame.motion.z, 1e-6), 1.0);
}

// A fragment's colour with its motion vector (the motion debug view replaces the colour).
fn with_motion(color: vec4<f32>, in: VsOut) -> MotionOut {
    return motion_out(color, motion_vector(in));
}

// A fragment's colour with motion vector `m` (the motion debug view replaces the colour).
fn motion_out(color: vec4<f32>, m: vec2<f32>) -> MotionOut {
    if (frame.debug.x == 5u) {
        return MotionOut(vec4<f32>(motion_color(m), 1.0), m);
    }
    return MotionOut(color, m);
}
#endif
