// GPU culling and LOD selection (docs/design.md §5). Each instance's bounds — the union of
// the boxes of the two frame-table rows each active layer interpolates (padded by `row_pad`;
// LBS positions between two rows and over layers are convex combinations of the rows' vertices,
// so the union holds the drawn pose), or the clip bounds where a row has none, moved by its
// transform — are tested against the view frustum and, separately, the
// shadow camera's (a caster out of view must also reach the view when swept along the light:
// otherwise its shadow falls only on what the camera cannot see). A visible instance gets the coarsest LOD whose simplification error,
// projected to the screen at the instance's distance, stays within `lod_bias` pixels; its id is
// appended (atomic counter) to the list of its (pass, LOD), and that counter becomes the
// instance count of every primitive's DrawIndexedIndirect arguments of that (pass, LOD).
// Passes: 0 main, 1 shadow, 2 (with occlusion culling) the main pass's second phase.
//
// Occlusion culling (def OCCLUSION; docs/design.md §5 "Occlusion culling"), two phases a frame:
// `cs_cull` lists for the main pass only the instances in view that were visible last frame
// (the history); they are drawn, the depth pyramid is built from their depth, and
// `cs_occlusion` tests every instance in view against it: the visible ones become the next
// frame's history, and those not drawn yet go to pass 2, drawn on top. An instance is left out
// only when depth drawn this frame hides its box, so what the last frame saw only decides how
// much the first phase draws, never what the image shows.
// Needs no optional GPU feature. Defs: GPU_TIMED, OCCLUSION (crate::shaders::Program::Cull).

#import throng::playback::instance_affine
#import throng_render::asset::{bone_params, clips, layer_rows_of}
#import throng_render::instances::{instance_transforms, shown_layers}
#ifdef OCCLUSION
#import throng_render::depth_pyramid::DepthPyramid
#endif

struct CullParams {
    // Frustum planes (xyz normal pointing inside, w offset): inside when dot(n, p) + w ≥ 0.
    planes: array<vec4<f32>, 6>,
    // The shadow camera's planes (used when `shadows` is 1).
    shadow_planes: array<vec4<f32>, 6>,
    // Model-space bounds used when a layer's clip has none (and for the rest pose).
    fallback_min: vec4<f32>,
    fallback_max: vec4<f32>,
    // Camera position (world) and, in w, (image height / 2) / tan(fov_y / 2): pixels covered by
    // a length of 1 at a distance of 1.
    eye: vec4<f32>,
    // Simplification error of each LOD level in model units ([0] = 0), up to 8 levels.
    lod_error: array<vec4<f32>, 2>,
    // Unit direction the light travels (world) and, in w, how far a shadow can reach along it
    // (file units: from the top of the scene down to the ground).
    light: vec4<f32>,
    instance_count: u32,
    primitive_count: u32,
    lod_count: u32,
    // The ids of (pass, LOD) start at (pass · lod_count + LOD) · segment.
    segment: u32,
    // Largest projected simplification error allowed, pixels (≤ 0: always LOD 0).
    lod_bias: f32,
    shadows: u32,
    // Margin of each row's box, file units.
    row_pad: f32,
    // 1: boxes from the rows shown; 0: from the clips (for comparison).
    row_bounds: u32,
    // Shadow LOD: x = shadow-map texels per world unit, y = rule (0 texel size, 1 coarsest,
    // 2 the main view's).
    shadow_lod: vec4<f32>,
    // Lists per LOD: 2 (main, shadow) or 3 (with occlusion culling's second phase).
    pass_count: u32,
    // Occlusion culling: where the history starts in `visible_ids` (one word per instance,
    // after every list): 1 if the instance was visible at the last frame's second phase.
    history_base: u32,
    pad: vec2<u32>,
}

// wgpu's DrawIndexedIndirect layout (20 B), one per (pass, primitive, LOD) in that order (a
// primitive's LODs are contiguous for multi-draws). The entry of primitive 0 counts.
struct DrawArgs {
    index_count: u32,
    instance_count: atomic<u32>,
    first_index: u32,
    base_vertex: i32,
    first_instance: u32,
}

@group(0) @binding(#{B_CULL_PARAMS}) var<uniform> cull: CullParams;
@group(0) @binding(#{B_VISIBLE_IDS}) var<storage, read_write> visible_ids: array<u32>;
@group(0) @binding(#{B_DRAW_ARGS}) var<storage, read_write> draw_args: array<DrawArgs>;
// Per frame-table row: (min, 0), (max, 0); an empty row's min exceeds its max.
@group(0) @binding(#{B_ROW_BOUNDS}) var<storage, read> row_bounds: array<vec4<f32>>;
#ifdef OCCLUSION
@group(0) @binding(#{B_PYRAMID_PARAMS}) var<uniform> pyramid: DepthPyramid;
@group(0) @binding(#{B_PYRAMID}) var<storage, read> hiz: array<f32>;
#endif

// World-space box of instance `inst`: centre and half extent.
struct WorldBox {
    centre: vec3<f32>,
    half: vec3<f32>,
    // Largest row length of the instance's linear part (its scale for uniform scales).
    scale: f32,
}

fn instance_box(inst: u32) -> WorldBox {
    var layers = shown_layers(inst);
    var lo = vec3<f32>(3.4e38);
    var hi = vec3<f32>(-3.4e38);
    for (var i = 0u; i < 4u; i++) {
        let l = layers[i];
        if (l.weight == 0.0) {
            continue;
        }
        // The clip's box (for a clip past the table or without bounds, the asset's fallback).
        let c = u32(max(l.clip, 0.0));
        var bmin = cull.fallback_min.xyz;
        var bmax = cull.fallback_max.xyz;
        if (c < bone_params.clip_count) {
            let clip = clips[c];
            if (all(clip.bounds_min.xyz <= clip.bounds_max.xyz)) {
                bmin = clip.bounds_min.xyz;
                bmax = clip.bounds_max.xyz;
            }
        }
        // Within it, the two rows the layer shows, when both have a box: padded, but never
        // past the clip's box (which holds every row of the clip).
        if (cull.row_bounds == 1u) {
            let rows = layer_rows_of(l);
            let amin = row_bounds[2u * rows.x].xyz;
            let amax = row_bounds[2u * rows.x + 1u].xyz;
            let cmin = row_bounds[2u * rows.y].xyz;
            let cmax = row_bounds[2u * rows.y + 1u].xyz;
            if (all(amin <= amax) && all(cmin <= cmax)) {
                bmin = max(bmin, min(amin, cmin) - vec3<f32>(cull.row_pad));
                bmax = min(bmax, max(amax, cmax) + vec3<f32>(cull.row_pad));
            }
        }
        lo = min(lo, bmin);
        hi = max(hi, bmax);
    }
    // World box of the transformed model box: centre by the affine, half extent by |L|.
    let m = instance_affine(instance_transforms[inst]);
    let c = (lo + hi) * 0.5;
    let e = (hi - lo) * 0.5;
    var b: WorldBox;
    b.centre = vec4<f32>(c, 1.0) * m;
    b.half = vec3<f32>(dot(abs(m[0].xyz), e), dot(abs(m[1].xyz), e), dot(abs(m[2].xyz), e));
    b.scale = max(length(m[0].xyz), max(length(m[1].xyz), length(m[2].xyz)));
    return b;
}

fn inside(planes: ptr<function, array<vec4<f32>, 6>>, b: WorldBox) -> bool {
    for (var p = 0u; p < 6u; p++) {
        let pl = (*planes)[p];
        if (dot(pl.xyz, b.centre) + dot(abs(pl.xyz), b.half) + pl.w < 0.0) {
            return false;
        }
    }
    return true;
}

fn lod_error(l: u32) -> f32 {
    return cull.lod_error[l / 4u][l % 4u];
}

// Whether the box swept along the light by `light.w` meets the view frustum: only then can its
// shadow fall on something the camera sees. Per plane, the swept box's farthest point inside is
// the better of its start and end.
fn shadow_reaches_view(planes: ptr<function, array<vec4<f32>, 6>>, b: WorldBox) -> bool {
    let end = b.centre + cull.light.xyz * cull.light.w;
    for (var p = 0u; p < 6u; p++) {
        let pl = (*planes)[p];
        let reach = dot(abs(pl.xyz), b.half) + pl.w;
        if (max(dot(pl.xyz, b.centre), dot(pl.xyz, end)) + reach < 0.0) {
            return false;
        }
    }
    return true;
}

// The coarsest LOD whose error, seen from the eye at the box's nearest distance, is within
// lod_bias pixels (errors grow with the level).
fn choose_lod(b: WorldBox) -> u32 {
    let dist = max(length(b.centre - cull.eye.xyz) - length(b.half), 1e-6);
    var lod = 0u;
    for (var l = 1u; l < cull.lod_count; l++) {
        if (lod_error(l) * b.scale * cull.eye.w / dist <= cull.lod_bias) {
            lod = l;
        }
    }
    return lod;
}

// The shadow pass's LOD: by the error's size in shadow-map texels (orthographic, so the same at
// any distance) but never finer than the view's (a shadow needs no more detail than its caster
// shows), the coarsest LOD, or the view's.
fn choose_shadow_lod(b: WorldBox, view_lod: u32) -> u32 {
    let rule = u32(cull.shadow_lod.y);
    if (rule == 1u) {
        return cull.lod_count - 1u;
    }
    if (rule == 2u) {
        return view_lod;
    }
    var lod = view_lod;
    for (var l = view_lod + 1u; l < cull.lod_count; l++) {
        if (lod_error(l) * b.scale * cull.shadow_lod.x <= cull.lod_bias) {
            lod = l;
        }
    }
    return lod;
}

fn append(pass_index: u32, lod: u32, inst: u32) {
    let counter = pass_index * cull.primitive_count * cull.lod_count + lod;
    let slot = atomicAdd(&draw_args[counter].instance_count, 1u);
    visible_ids[(pass_index * cull.lod_count + lod) * cull.segment + slot] = inst;
}

@compute @workgroup_size(64)
fn cs_cull(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= cull.instance_count) {
        return;
    }
    let b = instance_box(i);
    var planes = cull.planes;
    let seen = inside(&planes, b);
    var casts = false;
    if (cull.shadows == 1u) {
        var shadow_planes = cull.shadow_planes;
        casts = inside(&shadow_planes, b) && (seen || shadow_reaches_view(&planes, b));
    }
    if (!seen && !casts) {
        return;
    }
    let lod = choose_lod(b);
#ifdef OCCLUSION
    // First phase: only what the last frame saw; the rest waits for the depth pyramid.
    let shown = seen && visible_ids[cull.history_base + i] == 1u;
#else
    let shown = seen;
#endif
    if (shown) {
        append(0u, lod, i);
    }
    if (casts) {
        append(1u, choose_shadow_lod(b, lod), i);
    }
}

#ifdef OCCLUSION
// Whether the depth pyramid hides box `b`: its nearest depth lies beyond the farthest depth of
// the pixels its screen rectangle covers, read at the finest level where that rectangle spans at
// most 4×4 texels (the texels overhang the rectangle by less than one each side; with 2×2 a
// tall, narrow box would read a region up to 4 times its width). A box reaching behind the eye
// or before the near plane is never hidden.
fn occluded(b: WorldBox) -> bool {
    var lo = vec3<f32>(3.4e38);
    var hi = vec3<f32>(-3.4e38);
    for (var k = 0u; k < 8u; k++) {
        let corner = vec3<f32>(f32(k & 1u), f32((k >> 1u) & 1u), f32(k >> 2u)) * 2.0 - 1.0;
        let c = pyramid.view_proj * vec4<f32>(b.centre + corner * b.half, 1.0);
        if (c.w <= 1e-6) {
            return false;
        }
        let ndc = c.xyz / c.w;
        lo = min(lo, ndc);
        hi = max(hi, ndc);
    }
    if (lo.z <= 0.0) {
        return false;
    }
    // Pixel rectangle (framebuffer y points down), clamped to the target.
    let size = vec2<f32>(pyramid.size.xy);
    let last = size - 1.0;
    let p0 = vec2<u32>(clamp((vec2<f32>(lo.x, -hi.y) * 0.5 + 0.5) * size, vec2<f32>(0.0), last));
    let p1 = vec2<u32>(clamp((vec2<f32>(hi.x, -lo.y) * 0.5 + 0.5) * size, vec2<f32>(0.0), last));
    // Level l has texels of 2^(l+1) pixels.
    var level = 0u;
    loop {
        let t0 = p0 >> vec2<u32>(level + 1u);
        let t1 = p1 >> vec2<u32>(level + 1u);
        if (all(t1 - t0 <= vec2<u32>(3u)) || level + 1u >= pyramid.size.z) {
            break;
        }
        level++;
    }
    let lv = pyramid.levels[level];
    let t0 = min(p0 >> vec2<u32>(level + 1u), lv.yz - 1u);
    let t1 = min(p1 >> vec2<u32>(level + 1u), lv.yz - 1u);
    var far = 0.0;
    for (var y = t0.y; y <= t1.y; y++) {
        for (var x = t0.x; x <= t1.x; x++) {
            far = max(far, hiz[lv.x + y * lv.y + x]);
        }
    }
    return lo.z > far;
}

// Occlusion culling's second phase, after the first phase's draws and the depth pyramid: every
// instance in view is tested against the pyramid; the visible ones become the history, and
// those the first phase did not draw go to pass 2 (at the LOD `cs_cull` chose).
@compute @workgroup_size(64)
fn cs_occlusion(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= cull.instance_count) {
        return;
    }
    let at = cull.history_base + i;
    let b = instance_box(i);
    var planes = cull.planes;
    if (!inside(&planes, b)) {
        visible_ids[at] = 0u;
        return;
    }
    let drawn = visible_ids[at] == 1u;
    let visible = !occluded(b);
    visible_ids[at] = u32(visible);
    if (visible && !drawn) {
        append(2u, choose_lod(b), i);
    }
}
#endif

// Second dispatch: every primitive of a (pass, LOD) draws the instances primitive 0 counted.
@compute @workgroup_size(64)
fn cs_cull_finish(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    let total = cull.pass_count * cull.lod_count * cull.primitive_count;
    let lod = k % cull.lod_count;
    let prim = (k / cull.lod_count) % cull.primitive_count;
    let pass_index = k / (cull.lod_count * cull.primitive_count);
    if (k >= total || prim == 0u) {
        return;
    }
    let counter = pass_index * cull.primitive_count * cull.lod_count + lod;
    atomicStore(&draw_args[k].instance_count, atomicLoad(&draw_args[counter].instance_count));
}
