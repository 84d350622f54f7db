// throng_bevy's per-instance culling pass (docs/design.md §5 "throng in Bevy"; the plugin's
// render::cull): one invocation per instance of a crowd finds its world box once and tests it
// against every view that may draw the crowd this frame (cameras, their prepasses, shadow
// views), with throng-render's rules — throng::cull's instance_box, box_inside, choose_lod and,
// for orthographic views, choose_ortho_lod. An instance a view sees is appended to that view's
// list of its LOD, and once to the palette list (the instances the palette pass poses);
// cs_cull_finish copies each (view, LOD)'s count into every primitive's DrawIndexedIndirect
// arguments, writes each view's one-pixel cards' DrawIndirect arguments and the palette pass's
// indirect dispatch.
// Lists: (view v, LOD l) at (v · lod_count + l) · segment in `ids`, the palette list at
// `palette_base`; a view's one-pixel cards at the end of its far level's list, from the end down.
// Arguments: (view, primitive, LOD) at (v · primitive_count + p) · lod_count + l, then the
// palette list's counter, then the palette dispatch, then one entry per view for its one-pixel
// cards (throng_bevy::render::cull_state::CrowdCull::dot_draw).
// Defs: ENCODING, GPU_TIMED, G_SKIN (0), B_* (throng_bevy::render::cull::CullPipeline).

#import throng::cull::{DrawArgs, WorldBox, BoxRule, LodRule, instance_box, coarse_box, box_inside, shadow_reaches_view, choose_lod, choose_ortho_lod, far_shadow_dropped, sphere_pixel_centres}
#import throng::bone::bone_params
#import throng::playback::instance_affine
#import throng::instances::instance_transform
#import throng::far::{far_share, far_placed_sphere}

// Rust twin: throng_bevy::render::cull::CullJob (128 B).
struct CullJob {
    // The asset's box (file units), for a layer whose clip has none.
    fallback_min: vec4<f32>,
    fallback_max: vec4<f32>,
    // Simplification error of each LOD level in file units ([0] = 0).
    lod_error: array<vec4<f32>, 2>,
    instance_count: u32,
    view_count: u32,
    lod_count: u32,
    primitive_count: u32,
    // Ids per (view, LOD) list.
    segment: u32,
    // Where the palette list starts in `ids`; 0: no palette list (the texture path).
    palette_base: u32,
    // Margin of each row's box, file units.
    row_pad: f32,
    // 1: boxes from the rows shown; 0: from the clips.
    row_bounds: u32,
    // Largest projected simplification error allowed, pixels (≤ 0: always LOD 0).
    lod_bias: f32,
    // The far tier's level (the last; 0: none).
    far_level: u32,
    // The far tier's crossfade band, pixels (0: a hard switch).
    far_band: f32,
    pad_c: u32,
    // The far tier's sphere: model centre (file units) and radius.
    far_sphere: vec4<f32>,
}

// Rust twin: throng_bevy::render::cull::CullView (224 B): one view that may draw the crowd.
struct CullView {
    // Frustum planes (xyz normal pointing inside, w offset; (0, 0, 0, 1) for a plane the view
    // does not cull by).
    planes: array<vec4<f32>, 6>,
    // Perspective: the eye (world) and, in w, (viewport height / 2) · clip_from_view[1][1]
    // — pixels covered by a length of 1 at a distance of 1. Orthographic: w the pixels (or
    // shadow-map texels) per unit of length.
    eye: vec4<f32>,
    // 1: orthographic (a directional light's cascade): LOD by texels, or floor_view's.
    ortho: u32,
    // The perspective view whose LOD an orthographic view draws the instances it sees at, or
    // past view_count for none.
    floor_view: u32,
    // A camera's viewport size, pixels (its cards' pixel-centre test).
    viewport: vec2<f32>,
    // A directional light's view: the unit direction the light travels and, in w, how far a
    // shadow reaches along it (file units); a caster the floor view does not see is kept only
    // when its box swept that far meets the floor view (throng-render's rule). w < 0: no
    // sweep test.
    light: vec4<f32>,
    // The view's clip_from_world (a camera's cards' pixel-centre test).
    clip_from_world: mat4x4<f32>,
    // 1: a perspective camera drawing its viewport at one sample a pixel through
    // clip_from_world (its far cards' pixel-centre test); 0 under MSAA, TAA jitter or a
    // main-pass resolution override, and for a light's view.
    pixel_test: u32,
    // 1: a camera with pixel_test whose crowd draws one-pixel cards (ThrongCull::far_dots) and
    // which has no prepass: a card whose screen box holds exactly one pixel centre is drawn as
    // a point there (throng_bevy::crowd_far::card_dot), listed from the end of the far list.
    dots: u32,
    pad_b: u32,
    pad_c: u32,
}

@group(#{G_SKIN}) @binding(#{B_CULL_JOB}) var<uniform> job: CullJob;
@group(#{G_SKIN}) @binding(#{B_CULL_VIEWS}) var<storage, read> views: array<CullView>;
@group(#{G_SKIN}) @binding(#{B_CULL_IDS}) var<storage, read_write> ids: array<u32>;
@group(#{G_SKIN}) @binding(#{B_CULL_ARGS}) var<storage, read_write> args: array<DrawArgs>;

fn lod_rule() -> LodRule {
    return LodRule(job.lod_error, job.lod_count, job.lod_bias);
}

// The share of the instance placed by `m` its far card shows to a camera (`eye` as
// CullView's): throng::far's far_share over the crossfade band (0 without a far tier).
// throng_bevy::crowd_far::card_share works out the same share for the draws.
fn card_share(m: mat3x4<f32>, eye: vec4<f32>) -> f32 {
    if (job.far_level == 0u) {
        return 0.0;
    }
    let texel = job.lod_error[job.far_level / 4u][job.far_level % 4u];
    return far_share(m, job.far_sphere, texel, eye, vec2<f32>(job.lod_bias, job.far_band));
}

// The pixel centres the far card of the instance placed by `m` may cover in camera `view`,
// counted along x and y (throng::cull::sphere_pixel_centres, throng-render's rule), or
// (−1, −1) without the test. With one sample a pixel a card whose box holds none makes no
// fragment and is not listed (the picture is the same without it); under MSAA a sample lies
// off its pixel's centre, and a jittered or resized main pass puts the centres elsewhere:
// every card is kept (pixel_test 0).
fn card_pixel_centres(m: mat3x4<f32>, view: CullView) -> vec2<f32> {
    if (view.pixel_test == 0u) {
        return vec2<f32>(-1.0);
    }
    let s = far_placed_sphere(m, job.far_sphere);
    return sphere_pixel_centres(s.xyz, s.w, view.clip_from_world, view.viewport, view.eye.w).zw;
}

// A camera's mesh LOD of box `b`: choose_lod among the mesh LODs.
fn mesh_lod(b: WorldBox, eye: vec4<f32>, rule: LodRule) -> u32 {
    let lod = choose_lod(b, eye, rule);
    if (job.far_level == 0u) {
        return lod;
    }
    return min(lod, job.far_level - 1u);
}

// A camera's one LOD of box `b` of the instance placed by `m`, for a cascade that draws what
// the camera shows: the far tier's level where the card shows alone, else its mesh LOD.
fn camera_lod(b: WorldBox, m: mat3x4<f32>, eye: vec4<f32>, rule: LodRule) -> u32 {
    if (job.far_level != 0u && card_share(m, eye) >= 1.0) {
        return job.far_level;
    }
    return mesh_lod(b, eye, rule);
}

// An orthographic view's (a directional light's cascade's) LOD of box `b` (instance placed by
// `m`): a caster the floor view (the first camera) sees at that camera's LOD — Bevy's shadow
// maps shade the caster's own surface, so a coarser caster than the drawn mesh would shadow it
// (acne), and a card casts a card's shadow; one the camera does not see, by shadow-map texels
// (throng-render's `ShadowLod::Texel` without a view LOD).
fn ortho_lod(v: CullView, b: WorldBox, m: mat3x4<f32>, rule: LodRule) -> u32 {
    if (v.floor_view < job.view_count) {
        let camera = views[v.floor_view];
        var planes = camera.planes;
        if (box_inside(&planes, b)) {
            return camera_lod(b, m, camera.eye, rule);
        }
    }
    return choose_ortho_lod(b, 0u, v.eye.w, rule);
}

// Whether view `v` draws box `b`: inside its frustum and, for a light view with a sweep, seen
// by the floor view or casting into it.
fn view_sees(v: CullView, b: WorldBox) -> bool {
    var planes = v.planes;
    if (!box_inside(&planes, b)) {
        return false;
    }
    if (v.light.w < 0.0 || v.floor_view >= job.view_count) {
        return true;
    }
    var camera = views[v.floor_view].planes;
    return box_inside(&camera, b) || shadow_reaches_view(&camera, b, v.light);
}

// Whether some view's frustum meets box `b` (view_sees's first test, for every view).
fn any_view_meets(b: WorldBox) -> bool {
    for (var v = 0u; v < job.view_count; v++) {
        var planes = views[v].planes;
        if (box_inside(&planes, b)) {
            return true;
        }
    }
    return false;
}

fn append(view: u32, lod: u32, inst: u32) {
    let counter = view * job.primitive_count * job.lod_count + lod;
    let slot = atomicAdd(&args[counter].instance_count, 1u);
    ids[(view * job.lod_count + lod) * job.segment + slot] = inst;
}

// The argument entry counting the palette list: the one after every draw's.
fn palette_counter() -> u32 {
    return job.view_count * job.primitive_count * job.lod_count;
}

// The argument entry of view `view`'s one-pixel cards: after the palette dispatch.
fn dot_entry(view: u32) -> u32 {
    return palette_counter() + 2u + view;
}

// The one past the last id of view `view`'s far list, where its one-pixel cards end.
fn far_list_end(view: u32) -> u32 {
    return (view * job.lod_count + job.far_level + 1u) * job.segment;
}

// Lists instance `inst` as a one-pixel card of view `view`: from the end of its far list down
// (a view lists an instance at most once at the far level, so cards and dots never meet).
fn append_dot(view: u32, inst: u32) {
    let slot = atomicAdd(&args[dot_entry(view)].instance_count, 1u);
    ids[far_list_end(view) - 1u - slot] = inst;
}

@compute @workgroup_size(64)
fn cs_cull(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= job.instance_count) {
        return;
    }
    let box_rule = BoxRule(job.fallback_min.xyz, job.fallback_max.xyz, job.row_pad, job.row_bounds == 1u);
    // Most of a large field is outside every view: rejected by the box of every pose before
    // its playback is evaluated (the lists come out the same: throng::cull::coarse_box).
    if (!any_view_meets(coarse_box(i, box_rule))) {
        return;
    }
    let b = instance_box(i, box_rule, false);
    let m = instance_affine(instance_transform(i));
    let rule = lod_rule();
    // Listed at a mesh level by some view (a far tier's card needs no palette).
    var listed = false;
    for (var v = 0u; v < job.view_count; v++) {
        let view = views[v];
        if (!view_sees(view, b)) {
            continue;
        }
        if (view.ortho == 1u) {
            let lod = ortho_lod(view, b, m, rule);
            // A card whose sphere covers less than a texel of the cascade casts nothing there
            // (throng-render's rule).
            if (job.far_level != 0u && lod == job.far_level && far_shadow_dropped(b, 2.0 * job.far_sphere.w, view.eye.w)) {
                continue;
            }
            append(v, lod, i);
            listed = listed || job.far_level == 0u || lod != job.far_level;
            continue;
        }
        // A camera: the mesh while the card's share of the crossfade is below 1, the card
        // while it is above 0 (both in the band, each drawing its half of the screen door).
        let share = card_share(m, view.eye);
        if (share < 1.0) {
            append(v, mesh_lod(b, view.eye, rule), i);
            listed = true;
        }
        if (share > 0.0) {
            // Listed where its screen box may hold a pixel centre; a point where it holds
            // exactly one and the view draws points.
            let n = card_pixel_centres(m, view);
            if (view.dots == 1u && n.x == 1.0 && n.y == 1.0) {
                append_dot(v, i);
            } else if (n.x != 0.0 && n.y != 0.0) {
                append(v, job.far_level, i);
            }
        }
    }
    if (listed && job.palette_base != 0u) {
        let slot = atomicAdd(&args[palette_counter()].instance_count, 1u);
        ids[job.palette_base + slot] = i;
    }
}

// Largest workgroup count per dimension of a dispatch (WebGPU's default limit).
const MAX_GROUPS: u32 = 65535u;

@compute @workgroup_size(64)
fn cs_cull_finish(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    let total = palette_counter();
    if (k < total) {
        // Every primitive of a (view, LOD) draws the instances primitive 0 counted.
        let lod = k % job.lod_count;
        let prim = (k / job.lod_count) % job.primitive_count;
        let view = k / (job.lod_count * job.primitive_count);
        if (prim != 0u) {
            let counter = view * job.primitive_count * job.lod_count + lod;
            atomicStore(&args[k].instance_count, atomicLoad(&args[counter].instance_count));
        }
    }
    // A view's one-pixel cards: a DrawIndirect (vertex count, instance count, first vertex,
    // first instance) over the entry's first four words — one point per card, its first
    // instance the far list's last id (the vertex stage reads the list from there down).
    if (k < job.view_count && job.far_level != 0u) {
        let e = dot_entry(k);
        args[e].index_count = atomicLoad(&args[e].instance_count);
        atomicStore(&args[e].instance_count, 1u);
        args[e].first_index = 0u;
        args[e].base_vertex = i32(far_list_end(k) - 1u);
    }
    // The palette pass's indirect dispatch: one invocation per (listed instance, palette
    // entry), 64 per workgroup, in rows of at most MAX_GROUPS workgroups
    // (throng::palette::palette_invocation).
    if (k == 0u && job.palette_base != 0u) {
        let invocations = atomicLoad(&args[total].instance_count) * bone_params.entries;
        let groups = (invocations + 63u) / 64u;
        args[total + 1u].index_count = min(groups, MAX_GROUPS);
        atomicStore(&args[total + 1u].instance_count, (groups + MAX_GROUPS - 1u) / MAX_GROUPS);
        args[total + 1u].first_index = 1u;
    }
}
