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
// The rules themselves (boxes, frustum and sweep tests, LOD choices) are throng::cull
// (throng-asset's shaders/cull.wgsl), which throng-bevy's culling composes too.
// Needs no optional GPU feature. Defs: GPU_TIMED, OCCLUSION (crate::shaders::Program::Cull).

#import throng_render::cull_lists::{append, append_main, main_lists, append_palette, palette_counter, copy_counts, cull, visible_ids, draw_args, boxes}
#import throng::cull::{WorldBox, BoxRule, LodRule, instance_box, box_inside, shadow_reaches_view, choose_lod, choose_shadow_lod, far_shadow_dropped, sphere_pixel_centres, placed_coarse_box, lod_error}
#import throng::far::{far_share, far_placed_sphere}
#import throng::playback::instance_affine
#import throng::instances::instance_transforms
#import throng::bone::bone_params
#import throng::live::{PALETTE_LIVE, palette_refresh}

// The palette path: the instance's palette state word (throng::live).
fn palette_state(inst: u32) -> u32 {
    return visible_ids[cull.palette_state + inst];
}

// Instance `inst`'s box by this run's rule (throng::cull::instance_box).
fn cull_box(inst: u32) -> WorldBox {
    // A live pose's box (docs/design.md §4 "Live poses"): the asset's, over every baked row,
    // padded — its record does not say what the application posed.
    let live = cull.palette_base != 0u && palette_state(inst) == PALETTE_LIVE;
    let rule = BoxRule(cull.fallback_min.xyz, cull.fallback_max.xyz, cull.row_pad, cull.row_bounds == 1u);
    return instance_box(inst, rule, live);
}

// The pixel centres a far card's world sphere `s` may cover in the main view, as
// throng::cull::sphere_pixel_centres counts them along x and y.
fn sphere_pixel_counts(s: vec4<f32>) -> vec2<f32> {
    return sphere_pixel_centres(s.xyz, s.w, cull.view_proj, cull.viewport.xy, cull.eye.w).zw;
}

fn lod_rule() -> LodRule {
    return LodRule(cull.lod_error, cull.lod_count, cull.lod_bias);
}

// The share of the instance of affine `m` its far card shows in the main view
// (throng::far::far_share: 0 all mesh, 1 all card; 0 without a far tier).
fn card_share(m: mat3x4<f32>) -> f32 {
    if (cull.far_level == 0u) {
        return 0.0;
    }
    let texel = lod_error(lod_rule(), cull.far_level);
    return far_share(m, cull.far_sphere, texel, cull.eye, vec2<f32>(cull.lod_bias, cull.far_band));
}

@compute @workgroup_size(64)
fn cs_cull(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= cull.instance_count) {
        return;
    }
    // Two tests on the coarse box (the asset's, placed: it holds every pose) finish an instance
    // that can draw nothing before its playback is read. The lists are the same as from its own
    // box: a box inside this one is seen or casts into the view only if this one does, is at
    // least as coarse, and has the same scale. Everything they need comes from the transform,
    // read once.
    let m = instance_affine(instance_transforms[i]);
    let rule = BoxRule(cull.fallback_min.xyz, cull.fallback_max.xyz, cull.row_pad, cull.row_bounds == 1u);
    let cb = placed_coarse_box(m, rule);
    // Out of view, and casting no shadow into it.
    var view_planes = cull.planes;
    var reaches = box_inside(&view_planes, cb);
    if (!reaches && cull.shadows == 1u) {
        var shadow_planes = cull.shadow_planes;
        reaches = box_inside(&shadow_planes, cb) && shadow_reaches_view(&view_planes, cb, cull.light);
    }
    // Past the far tier's crossfade (no mesh in view) and already at the far level, with a
    // card that holds no pixel centre and, as a caster, covers less than a shadow texel (the
    // card does not depend on the pose).
    let share = card_share(m);
    // The pixel centres the card may cover in the main view (counted where it may show; a card
    // whose box holds none makes no fragment).
    var pixels = vec2<f32>(0.0);
    if (reaches && share > 0.0) {
        pixels = sphere_pixel_counts(far_placed_sphere(m, cull.far_sphere));
    }
    let card_pixels = pixels.x != 0.0 && pixels.y != 0.0;
    var idle = !reaches;
    if (reaches && cull.far_level != 0u && share >= 1.0) {
        idle = choose_lod(cb, cull.eye, lod_rule()) == cull.far_level
            && !card_pixels
            && (cull.shadows == 0u || far_shadow_dropped(cb, cull.far_diameter, cull.shadow_lod.x));
    }
    if (idle) {
#ifdef OCCLUSION
        boxes[2u * i + 1u] = vec4<f32>(0.0);
#endif
        return;
    }
    let b = cull_box(i);
    var planes = cull.planes;
    let seen = box_inside(&planes, b);
    var casts = false;
    if (cull.shadows == 1u) {
        var shadow_planes = cull.shadow_planes;
        casts = box_inside(&shadow_planes, b) && (seen || shadow_reaches_view(&planes, b, cull.light));
    }
    let lod_rules = lod_rule();
    let lod = choose_lod(b, cull.eye, lod_rules);
    // In view: the mesh while the card's share of the crossfade is below 1, at its LOD but at
    // most the coarsest mesh; the card while its share is above 0 — unless its screen box
    // holds no pixel centre: then it makes no fragment and is not drawn (nor offered to
    // occlusion culling's second phase).
    var mesh_lod = lod;
    if (cull.far_level != 0u) {
        mesh_lod = min(lod, cull.far_level - 1u);
    }
    let mesh_seen = seen && share < 1.0;
    // A card whose screen box holds one pixel centre is drawn as one point there (far_dots).
    let card_seen = seen && card_pixels;
    let dot = card_seen && cull.viewport.z == 1.0 && pixels.x == 1.0 && pixels.y == 1.0;
    let lists = main_lists(mesh_lod, mesh_seen, card_seen && !dot, dot);
    let drawn = mesh_seen || card_seen;
#ifdef OCCLUSION
    // For the second phase; the first draws only what the last frame saw.
    boxes[2u * i] = vec4<f32>(b.centre, f32(lists));
    boxes[2u * i + 1u] = vec4<f32>(b.half, select(0.0, 1.0, drawn));
    let shown = drawn && visible_ids[cull.history_base + i] == 1u;
#else
    let shown = drawn;
#endif
    if (shown) {
        append_main(0u, lists, i);
    }
    var shadow_lod = 0u;
    if (casts) {
        shadow_lod = choose_shadow_lod(b, lod, cull.shadow_lod.x, u32(cull.shadow_lod.y), lod_rules);
        let far_caster = cull.far_level != 0u && shadow_lod == cull.far_level;
        casts = !(far_caster && far_shadow_dropped(b, cull.far_diameter, cull.shadow_lod.x));
    }
    if (casts) {
        append(1u, shadow_lod, i);
    }
    // The palette path: every instance a pass may draw as a mesh, once — with occlusion
    // culling also those in view that the second phase may still draw (a far tier's card needs
    // no palette). Update-rate LOD and live poses decide which of them the pass computes this
    // frame.
    let mesh = mesh_seen || (casts && (cull.far_level == 0u || shadow_lod != cull.far_level));
    if (cull.palette_base != 0u && mesh) {
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
