// throng_render::cull_lists — what the culling pass (`cull.wgsl`) and occlusion culling's
// second phase (`occlusion.wgsl`) share: the parameters, the visible-id lists, the indirect
// draw arguments and how an instance joins a list (docs/design.md §5). Passes: 0 main, 1 shadow,
// 2 (with occlusion culling) the main pass's second phase. Twins: crate::gpu_types::{CullParams,
// DrawIndexedArgs}.
#define_import_path throng_render::cull_lists

#import throng::cull::DrawArgs

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
    // The palette path (docs/design.md §5): where the palette list starts in `visible_ids` (every
    // instance in view or casting a shadow, once; its length in the `instance_count` of the
    // argument entry after every draw's); 0: no palette list.
    palette_base: u32,
    // The palette path: where the palette state words start in `visible_ids` (one per
    // instance after the palette list; throng::live: 0 none written, PALETTE_LIVE the
    // application's, else the frame it was last computed), and this frame's number.
    palette_state: u32,
    frame: u32,
    // The far tier's LOD level (0: the asset has none, or it is not drawn) and its sphere's
    // diameter (model units): a far caster whose sphere covers less than one shadow-map texel
    // casts nothing.
    far_level: u32,
    far_diameter: f32,
    // The far tier's crossfade band, pixels (throng::far::far_share's band.y; band.x is
    // `lod_bias`).
    far_band: f32,
    // Update-rate LOD: palettes of an instance at LOD l (3 and coarser: the last) are
    // computed every refresh[l]-th frame (docs/design.md §5 "Update-rate LOD").
    refresh: vec4<u32>,
    // The main camera's clip-from-world matrix and the target's size in pixels (x, y): a far
    // card whose screen box holds no pixel centre would make no fragment, so it is not listed;
    // z 1: one whose box holds one pixel centre is drawn as a point (RenderOptions::far_dots).
    view_proj: mat4x4<f32>,
    viewport: vec4<f32>,
    // The far tier's sphere: model centre (xyz) and radius (w).
    far_sphere: vec4<f32>,
}

@group(0) @binding(#{B_CULL_PARAMS}) var<uniform> cull: CullParams;
@group(0) @binding(#{B_VISIBLE_IDS}) var<storage, read_write> visible_ids: array<u32>;
// One per (pass, primitive, LOD) in that order (a primitive's LODs contiguous for
// multi-draws); the entry of primitive 0 counts.
@group(0) @binding(#{B_DRAW_ARGS}) var<storage, read_write> draw_args: array<DrawArgs>;

// Occlusion culling: what the first phase found for each instance, for the second — two
// vec4 per instance: (box centre, the main-pass lists it joins: main_lists), (box half extent,
// 1 if drawn in view else 0).
@group(0) @binding(#{B_CULL_BOXES}) var<storage, read_write> boxes: array<vec4<f32>>;

// The main-pass lists of an instance, packed in a word (exact in an f32): bits 0–7 its mesh's
// LOD, bit 8 set when the mesh is drawn, bit 9 when the far card is (both near the far tier's
// switch, where they crossfade), bit 10 when the card is drawn as one point (its screen box
// holds one pixel centre; far_dots).
fn main_lists(mesh_lod: u32, mesh: bool, card: bool, dot: bool) -> u32 {
    return mesh_lod | (u32(mesh) << 8u) | (u32(card) << 9u) | (u32(dot) << 10u);
}

// Appends `inst` to the main-pass lists `lists` (main_lists) of pass `pass_index`.
fn append_main(pass_index: u32, lists: u32, inst: u32) {
    if ((lists & 0x100u) != 0u) {
        append(pass_index, lists & 0xffu, inst);
    }
    if ((lists & 0x200u) != 0u) {
        append(pass_index, cull.far_level, inst);
    }
    if ((lists & 0x400u) != 0u) {
        append_dot(pass_index, inst);
    }
}

// The far tier's one-pixel cards of pass `pass_index` (docs/design.md §5 "Far tier"): counted by
// argument entry dot_counter(pass_index) and kept in the far level's list from its end down, so
// the cards (from its start up) and they share its `segment` ids.
fn append_dot(pass_index: u32, inst: u32) {
    let slot = atomicAdd(&draw_args[dot_counter(pass_index)].instance_count, 1u);
    visible_ids[(pass_index * cull.lod_count + cull.far_level + 1u) * cull.segment - 1u - slot] = inst;
}

// The argument entry counting pass `pass_index`'s one-pixel cards: after the palette list's
// two (present, unused, without a palette list). Its words 1–4 are a non-indexed indirect draw
// of that many vertices (first_index holds 1, the instance count).
fn dot_counter(pass_index: u32) -> u32 {
    return palette_counter() + 2u + pass_index;
}

fn append(pass_index: u32, lod: u32, inst: u32) {
    let counter = pass_index * cull.primitive_count * cull.lod_count + lod;
    let slot = atomicAdd(&draw_args[counter].instance_count, 1u);
    visible_ids[(pass_index * cull.lod_count + lod) * cull.segment + slot] = inst;
}

// The palette path: `inst` joins the palette list (the instances the palette pass writes).
fn append_palette(inst: u32) {
    let counter = palette_counter();
    let slot = atomicAdd(&draw_args[counter].instance_count, 1u);
    visible_ids[cull.palette_base + slot] = inst;
}

// The argument entry counting the palette list: the one after every draw's; the entry after it
// holds the palette pass's indirect dispatch (x, y, z in its first three words).
fn palette_counter() -> u32 {
    return cull.pass_count * cull.lod_count * cull.primitive_count;
}

// After appending: every primitive of a (pass, LOD) draws the instances primitive 0 counted
// (entry `k` of the arguments; one invocation each).
fn copy_counts(k: u32) {
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
