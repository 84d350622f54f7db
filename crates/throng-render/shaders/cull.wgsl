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
// (the history) and keeps every instance's box and LOD; they are drawn, the depth pyramid is
// built from their depth, and `occlusion.wgsl` tests the boxes in view against it.
// Needs no optional GPU feature. Defs: GPU_TIMED, OCCLUSION (crate::shaders::Program::Cull).

#import throng::playback::{instance_affine, layer_clip}
#import throng::bone::{bone_params, clips, layer_rows_of}
#import throng::instances::{instance_transforms, shown_layers}
#import throng_render::cull_lists::{CullParams, WorldBox, append, append_palette, palette_counter, copy_counts, cull, visible_ids, draw_args, boxes}
#import throng::live::{PALETTE_LIVE, palette_refresh}

// Per frame-table row: (min, 0), (max, 0); an empty row's min exceeds its max.
@group(0) @binding(#{B_ROW_BOUNDS}) var<storage, read> row_bounds: array<vec4<f32>>;

// The palette path: the instance's palette state word (throng::live).
fn palette_state(inst: u32) -> u32 {
    return visible_ids[cull.palette_state + inst];
}

fn instance_box(inst: u32) -> WorldBox {
    var layers = shown_layers(inst);
    var lo = vec3<f32>(3.4e38);
    var hi = vec3<f32>(-3.4e38);
    // A live pose's box (docs/design.md §4 "Live poses"): the asset's, over every baked row,
    // padded — its record does not say what the application posed.
    let live = cull.palette_base != 0u && palette_state(inst) == PALETTE_LIVE;
    if (live) {
        lo = cull.fallback_min.xyz - vec3<f32>(cull.row_pad);
        hi = cull.fallback_max.xyz + vec3<f32>(cull.row_pad);
    }
    for (var i = 0u; i < select(4u, 0u, live); i++) {
        let l = layers[i];
        if (l.weight == 0.0) {
            continue;
        }
        // The clip's box (for a clip past the table or without bounds, the asset's fallback).
        let c = layer_clip(l);
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
    let lod = choose_lod(b);
#ifdef OCCLUSION
    // For the second phase; the first draws only what the last frame saw.
    boxes[2u * i] = vec4<f32>(b.centre, f32(lod));
    boxes[2u * i + 1u] = vec4<f32>(b.half, select(0.0, 1.0, seen));
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
    // The palette path: every instance a pass may draw, once — with occlusion culling also
    // those in view that the second phase may still draw.
    // Update-rate LOD and live poses decide which of them the pass computes this frame.
    if (cull.palette_base != 0u && (seen || casts)) {
        if (palette_refresh(cull.frame, i, cull.refresh[min(lod, 3u)], palette_state(i))) {
            visible_ids[cull.palette_state + i] = cull.frame;
            append_palette(i);
        }
    }
}

// Largest workgroup count per dimension of a dispatch (WebGPU's default limit).
const MAX_GROUPS: u32 = 65535u;

@compute @workgroup_size(64)
fn cs_cull_finish(@builtin(global_invocation_id) id: vec3<u32>) {
    copy_counts(id.x);
    // The palette pass's indirect dispatch: one invocation per (listed instance, palette
    // entry), 64 per workgroup, in rows of at most MAX_GROUPS workgroups.
    if (id.x == 0u && cull.palette_base != 0u) {
        let k = palette_counter();
        let invocations = atomicLoad(&draw_args[k].instance_count) * bone_params.entries;
        let groups = (invocations + 63u) / 64u;
        draw_args[k + 1u].index_count = min(groups, MAX_GROUPS);
        atomicStore(&draw_args[k + 1u].instance_count, (groups + MAX_GROUPS - 1u) / MAX_GROUPS);
        draw_args[k + 1u].first_index = 1u;
    }
}
