// throng::cull — the culling and LOD rules every embedding shares (docs/design.md §5, "Cull"):
// an instance's world box, the frustum test, the shadow sweep test and the LOD choices.
// throng-render's culling pass (crates/throng-render/shaders/cull.wgsl) and throng-bevy's
// (crates/throng-bevy/shaders/crowd_cull.wgsl) compose this one text, each with its own
// parameters and lists; the functions take what they need as arguments.
// Bindings: the frame-table rows' boxes at @group(#{G_SKIN}) @binding(#{B_ROW_BOUNDS}), besides
// what throng::bone and throng::instances bind.
#define_import_path throng::cull

#import throng::playback::{instance_affine, layer_clip}
#import throng::bone::{bone_params, clips, layer_rows_of}
#import throng::instances::{instance_transforms, shown_layers}
#import throng::decode::affine_scale

// Per frame-table row: (min, 0), (max, 0); an empty row's min exceeds its max.
@group(#{G_SKIN}) @binding(#{B_ROW_BOUNDS}) var<storage, read> row_bounds: array<vec4<f32>>;

// wgpu's DrawIndexedIndirect layout (20 B; Rust twin throng_asset::gpu::cull::DrawIndexedArgs),
// the instance count a culling pass's atomic list counter. Both embeddings lay out their
// arguments one per (view or pass, primitive, LOD), a primitive's LODs contiguous.
struct DrawArgs {
    index_count: u32,
    instance_count: atomic<u32>,
    first_index: u32,
    base_vertex: i32,
    first_instance: u32,
}

// World-space box of an instance: centre and half extent.
struct WorldBox {
    centre: vec3<f32>,
    half: vec3<f32>,
    // Largest row length of the instance's linear part (its scale for uniform scales).
    scale: f32,
}

// How an instance's model-space box is found.
struct BoxRule {
    // Model-space bounds used when a layer's clip has none (and for the rest pose and live
    // poses), file units.
    fallback_min: vec3<f32>,
    fallback_max: vec3<f32>,
    // Margin of each row's box, file units.
    row_pad: f32,
    // true: boxes from the rows shown; false: from the clips (for comparison).
    row_bounds: bool,
}

// How a view picks LODs.
struct LodRule {
    // Simplification error of each LOD level in model units ([0] = 0), up to 8 levels.
    lod_error: array<vec4<f32>, 2>,
    lod_count: u32,
    // Largest projected simplification error allowed, pixels (≤ 0: always LOD 0).
    lod_bias: f32,
}

// Instance `inst`'s world box: per active layer the union of the boxes of the two frame-table
// rows it interpolates (padded by `row_pad`, never past the clip's box; LBS positions between
// two rows and over layers are convex combinations of the rows' vertices, so the union holds
// the drawn pose), or the clip's box where a row has none, moved by its transform. `live`: the
// application poses the instance (docs/design.md §4 "Live poses"), so the asset's padded box.
fn instance_box(inst: u32, rule: BoxRule, live: bool) -> WorldBox {
    var layers = shown_layers(inst);
    var lo = vec3<f32>(3.4e38);
    var hi = vec3<f32>(-3.4e38);
    if (live) {
        lo = rule.fallback_min - vec3<f32>(rule.row_pad);
        hi = rule.fallback_max + vec3<f32>(rule.row_pad);
    }
    for (var i = 0u; i < select(4u, 0u, live); i++) {
        let l = layers[i];
        if (l.weight == 0.0) {
            continue;
        }
        // The clip's box (for a clip past the table or without bounds, the asset's fallback).
        let c = layer_clip(l);
        var bmin = rule.fallback_min;
        var bmax = rule.fallback_max;
        if (c < bone_params.clip_count) {
            let clip = clips[c];
            if (all(clip.bounds_min.xyz <= clip.bounds_max.xyz)) {
                bmin = clip.bounds_min.xyz;
                bmax = clip.bounds_max.xyz;
            }
        }
        // Within it, the two rows the layer shows, when both have a box: padded, but never
        // past the clip's box (which holds every row of the clip).
        if (rule.row_bounds) {
            let rows = layer_rows_of(l);
            let amin = row_bounds[2u * rows.x].xyz;
            let amax = row_bounds[2u * rows.x + 1u].xyz;
            let cmin = row_bounds[2u * rows.y].xyz;
            let cmax = row_bounds[2u * rows.y + 1u].xyz;
            if (all(amin <= amax) && all(cmin <= cmax)) {
                bmin = max(bmin, min(amin, cmin) - vec3<f32>(rule.row_pad));
                bmax = min(bmax, max(amax, cmax) + vec3<f32>(rule.row_pad));
            }
        }
        lo = min(lo, bmin);
        hi = max(hi, bmax);
    }
    // World box of the transformed model box: centre by the affine, half extent by |L|.
    return world_box(inst, lo, hi);
}

// The model-space box lo..hi (file units) placed by instance `inst`'s transform: the world box
// around it.
fn world_box(inst: u32, lo: vec3<f32>, hi: vec3<f32>) -> WorldBox {
    return placed_box(instance_affine(instance_transforms[inst]), lo, hi);
}

// The model-space box lo..hi placed by the affine `m` (world_box with the transform read).
fn placed_box(m: mat3x4<f32>, lo: vec3<f32>, hi: vec3<f32>) -> WorldBox {
    let c = (lo + hi) * 0.5;
    let e = (hi - lo) * 0.5;
    var b: WorldBox;
    b.centre = vec4<f32>(c, 1.0) * m;
    b.half = vec3<f32>(dot(abs(m[0].xyz), e), dot(abs(m[1].xyz), e), dot(abs(m[2].xyz), e));
    b.scale = affine_scale(m);
    return b;
}

// A box instance_box's always lies in, whatever the instance shows: the asset's box
// (throng_asset::gpu::cull::cull_bounds, which holds every row's and every clip's box) grown by
// the row pad, placed by the instance's transform. Testing it first spares a large field's
// instances outside every view their playback and row boxes; a view that does not see it does
// not see the instance's own box either (box_inside only grows with the box), so the lists are
// the same.
fn coarse_box(inst: u32, rule: BoxRule) -> WorldBox {
    return placed_coarse_box(instance_affine(instance_transforms[inst]), rule);
}

// coarse_box with the instance's affine `m` already read.
fn placed_coarse_box(m: mat3x4<f32>, rule: BoxRule) -> WorldBox {
    let pad = vec3<f32>(rule.row_pad);
    return placed_box(m, rule.fallback_min - pad, rule.fallback_max + pad);
}

// Whether box `b` meets the frustum of `planes` (xyz normal pointing inside, w offset: inside
// when dot(n, p) + w ≥ 0). A plane of (0, 0, 0, 1) is always met (a view without that plane).
fn box_inside(planes: ptr<function, array<vec4<f32>, 6>>, b: WorldBox) -> bool {
    for (var p = 0u; p < 6u; p++) {
        let pl = (*planes)[p];
        if (dot(pl.xyz, b.centre) + dot(abs(pl.xyz), b.half) + pl.w < 0.0) {
            return false;
        }
    }
    return true;
}

// Whether box `b` swept along the light by `light.w` (`light.xyz` the unit direction the light
// travels) meets the view frustum of `planes`: only then can its shadow fall on something the
// camera sees. Per plane, the swept box's farthest point inside is the better of its start and
// end.
fn shadow_reaches_view(planes: ptr<function, array<vec4<f32>, 6>>, b: WorldBox, light: vec4<f32>) -> bool {
    let end = b.centre + light.xyz * light.w;
    for (var p = 0u; p < 6u; p++) {
        let pl = (*planes)[p];
        let reach = dot(abs(pl.xyz), b.half) + pl.w;
        if (max(dot(pl.xyz, b.centre), dot(pl.xyz, end)) + reach < 0.0) {
            return false;
        }
    }
    return true;
}

fn lod_error(rule: LodRule, l: u32) -> f32 {
    return rule.lod_error[l / 4u][l % 4u];
}

// The coarsest LOD whose error, seen from `eye.xyz` at the box's nearest distance, is within
// lod_bias pixels (errors grow with the level); `eye.w` = (image height / 2) / tan(fov_y / 2),
// the pixels a length of 1 covers at a distance of 1.
fn choose_lod(b: WorldBox, eye: vec4<f32>, rule: LodRule) -> u32 {
    let dist = max(length(b.centre - eye.xyz) - length(b.half), 1e-6);
    var lod = 0u;
    for (var l = 1u; l < rule.lod_count; l++) {
        if (lod_error(rule, l) * b.scale * eye.w / dist <= rule.lod_bias) {
            lod = l;
        }
    }
    return lod;
}

// The LOD of an orthographic view (a directional light's shadow map): the coarsest, never finer
// than `floor_lod`, whose error covers at most lod_bias texels at `texels_per_unit` (the same
// at any distance).
fn choose_ortho_lod(b: WorldBox, floor_lod: u32, texels_per_unit: f32, rule: LodRule) -> u32 {
    var lod = floor_lod;
    for (var l = floor_lod + 1u; l < rule.lod_count; l++) {
        if (lod_error(rule, l) * b.scale * texels_per_unit <= rule.lod_bias) {
            lod = l;
        }
    }
    return lod;
}

// A shadow caster's LOD by rule: 0 by its error's size in shadow-map texels but never finer than
// the view's `view_lod` (a shadow needs no more detail than its caster shows), 1 the coarsest
// a view may pick (a level of infinite error — a far tier not drawn — is not one), 2 the view's.
fn choose_shadow_lod(b: WorldBox, view_lod: u32, texels_per_unit: f32, shadow_rule: u32, rule: LodRule) -> u32 {
    if (shadow_rule == 1u) {
        var l = rule.lod_count - 1u;
        while (l > 0u && lod_error(rule, l) >= 3.0e38) {
            l -= 1u;
        }
        return l;
    }
    if (shadow_rule == 2u) {
        return view_lod;
    }
    return choose_ortho_lod(b, view_lod, texels_per_unit, rule);
}

// Whether a caster drawn at the far tier's level casts nothing: its sphere (`diameter` model
// units) covers less than one texel of a shadow map of `texels_per_unit` (the shadow map
// cannot hold it; throng-render's CPU twin: passes::cpu_cull).
fn far_shadow_dropped(b: WorldBox, diameter: f32, texels_per_unit: f32) -> bool {
    return diameter * b.scale * texels_per_unit < 1.0;
}

// The pixel centres a sphere (`centre`, `radius`, world) seen through `view_proj` on a target
// of `viewport` (x, y: pixels; `pixels_per_unit` as LodRule's eye.w) may cover: its screen box —
// conservatively, the radius projected at the sphere's nearest depth, grown by half for the
// stretch off the axis — holds centres (x, y) = (xy + 0.5 + i, …) for i below zw, the counts
// along x and y (0: none, so with one sample a pixel nothing inside it makes a fragment). A
// sphere reaching behind the camera is unbounded: counts −1.
// CPU twin: throng_asset::gpu::cull::sphere_pixel_centres.
fn sphere_pixel_centres(centre: vec3<f32>, radius: f32, view_proj: mat4x4<f32>, viewport: vec2<f32>, pixels_per_unit: f32) -> vec4<f32> {
    let c = view_proj * vec4<f32>(centre, 1.0);
    if (c.w - radius <= 1e-6) {
        return vec4<f32>(0.0, 0.0, -1.0, -1.0);
    }
    let px = (c.x / c.w * 0.5 + 0.5) * viewport.x;
    let py = (0.5 - c.y / c.w * 0.5) * viewport.y;
    let pr = 1.5 * radius * pixels_per_unit / (c.w - radius);
    let lo = vec2<f32>(ceil(px - pr - 0.5), ceil(py - pr - 0.5));
    let hi = vec2<f32>(floor(px + pr - 0.5), floor(py + pr - 0.5));
    return vec4<f32>(lo, max(hi - lo + 1.0, vec2<f32>(0.0)));
}
