// throng::skin — skinning one vertex of one instance: linear blend skinning, or
// dual-quaternion skinning with the DUAL_QUAT def (quat-* encodings).
//
// Texture path (default): the vertex fetches its influences' matrices from the bone texture,
// interpolating frames and blending layers on skin matrices (docs/design.md §5: LBS is linear,
// so blending matrices equals blending positions, at half the matrix-vector work). The same
// per-entry blend (`instance_joint_affine`, `dq_add_joint`) is what the palette pass
// (palette_pass.wgsl) writes once per instance and entry.
//
// Palette path (def PALETTE): the vertex reads one blended entry per influence from the palette
// buffer (throng::palette) instead; with MOTION also from the previous frame's, for the
// vertex's motion vector.
#define_import_path throng::skin

#import throng::playback::Layer
#import throng::decode::{Skinned, apply_affine}
#import throng::bone::bone_params

#ifdef PALETTE
#import throng::palette::{PaletteEntry, palette, palette_index, entry_affine}
#ifdef MOTION
#import throng::palette::prev_palette
#endif
#ifdef DUAL_QUAT
#import throng::decode::{DqAcc, dq_add_parts, dq_apply}
#endif
#else
#import throng::bone::{taps_affine, layer_taps_of, layer_is_base}
#import throng::instances::shown_layers
#ifdef DUAL_QUAT
#import throng::decode::{DqAcc, dq_add, dq_apply}
#import throng::bone::bone_rts
#endif
#endif

#ifdef PALETTE
// Palette entry `j` (clamped into the palette) of instance `inst`: this frame's, or with
// `prev` (motion vectors) the previous frame's. `prev` is a constant at every call, so each
// caller's reads fold to one buffer.
fn palette_entry(inst: u32, j: u32, prev: bool) -> PaletteEntry {
    let i = palette_index(inst, min(j, bone_params.entries - 1u));
#ifdef MOTION
    if (prev) {
        return prev_palette[i];
    }
#endif
    return palette[i];
}

fn skin_vertex(inst: u32, joints: array<u32, 8>, weights: array<f32, 8>, p: vec3<f32>, n: vec3<f32>, t: vec4<f32>) -> Skinned {
    return skin_vertex_of(inst, joints, weights, p, n, t, false);
}

#ifdef MOTION
// The model-space position of the same vertex skinned by the previous frame's palette.
fn prev_skin_position(inst: u32, joints: array<u32, 8>, weights: array<f32, 8>, p: vec3<f32>) -> vec3<f32> {
    return skin_vertex_of(inst, joints, weights, p, vec3<f32>(0.0, 1.0, 0.0), vec4<f32>(1.0, 0.0, 0.0, 1.0), true).position;
}
#endif

#ifdef DUAL_QUAT
// Each influence's blended, unnormalised dual quaternion (real, dual, scale) from the palette,
// weighted and blended into one (the hemisphere of the first influence's), then normalised
// (Kavan et al. 2007). The texture path adds the (influence, layer, frame) terms one by one
// instead; both are linear in the terms, so they agree except where a term's hemisphere flips
// differently. CPU twin of an entry: throng_asset::decode::blended_dual_quat.
fn skin_vertex_of(inst: u32, joints: array<u32, 8>, weights: array<f32, 8>, p: vec3<f32>, n: vec3<f32>, t: vec4<f32>, prev: bool) -> Skinned {
    var js = joints;
    var ws = weights;
    var acc: DqAcc;
    for (var i = 0u; i < 8u; i++) {
        let w = ws[i];
        if (w == 0.0) {
            continue;
        }
        let e = palette_entry(inst, js[i], prev);
        dq_add_parts(&acc, w, e.a, e.b, e.c.x);
    }
    return dq_apply(acc, p, n, t);
}
#else
// p' = (Σ_i w_i · P_{j_i}) · p with P the palette's blended skin matrices: the texture path's
// sum with each influence's matrix read instead of fetched and blended, so the same operations
// in the same order. CPU twin: throng_asset::decode::skin_vertices with Skinning::Linear.
// Unrolled, with constant indices: lavapipe keeps dynamically indexed local arrays in memory
// per lane, and this cut the palette path's frame by ~10 % there (1,000 Fox instances).
fn skin_vertex_of(inst: u32, joints: array<u32, 8>, weights: array<f32, 8>, p: vec3<f32>, n: vec3<f32>, t: vec4<f32>, prev: bool) -> Skinned {
    let zero = vec4<f32>(0.0);
    var m = mat3x4<f32>(zero, zero, zero);
    if (weights[0] != 0.0) { m += palette_term(inst, joints[0], weights[0], prev); }
    if (weights[1] != 0.0) { m += palette_term(inst, joints[1], weights[1], prev); }
    if (weights[2] != 0.0) { m += palette_term(inst, joints[2], weights[2], prev); }
    if (weights[3] != 0.0) { m += palette_term(inst, joints[3], weights[3], prev); }
    if (weights[4] != 0.0) { m += palette_term(inst, joints[4], weights[4], prev); }
    if (weights[5] != 0.0) { m += palette_term(inst, joints[5], weights[5], prev); }
    if (weights[6] != 0.0) { m += palette_term(inst, joints[6], weights[6], prev); }
    if (weights[7] != 0.0) { m += palette_term(inst, joints[7], weights[7], prev); }
    return apply_affine(m, p, n, t);
}

fn palette_term(inst: u32, j: u32, w: f32, prev: bool) -> mat3x4<f32> {
    return entry_affine(palette_entry(inst, j, prev)) * w;
}
#endif
#else

#ifdef DUAL_QUAT
// Adds palette `entry`'s (layer, frame) terms, each weighted w · (w_l · (1 − f_l)) and
// w · (w_l · f_l), as unit dual quaternions to `acc`: the texture path calls it per influence
// (w its weight) into one accumulator, the palette pass per entry (w = 1) into its own.
fn dq_add_joint(acc: ptr<function, DqAcc>, layers: ptr<function, array<Layer, 4>>, entry: u32, w: f32) {
    for (var k = 0u; k < 4u; k++) {
        let l = (*layers)[k];
        if (layer_is_base(l)) {
            let t = layer_taps_of(l);
            for (var r = 0u; r < 4u; r++) {
                if (t.weights[r] != 0.0) {
                    dq_add(acc, w * (l.weight * t.weights[r]), bone_rts(entry, t.rows[r]));
                }
            }
        }
    }
}

// Every (influence, layer, frame) term as a unit dual quaternion, blended (Kavan et al. 2007).
// CPU twin: throng_asset::decode::skin_vertices with Skinning::DualQuat.
fn skin_vertex(inst: u32, joints: array<u32, 8>, weights: array<f32, 8>, p: vec3<f32>, n: vec3<f32>, t: vec4<f32>) -> Skinned {
    var js = joints;
    var ws = weights;
    var layers = shown_layers(inst);
    var acc: DqAcc;
    for (var i = 0u; i < 8u; i++) {
        let w = ws[i];
        if (w == 0.0) {
            continue;
        }
        dq_add_joint(&acc, &layers, min(js[i], bone_params.entries - 1u), w);
    }
    return dq_apply(acc, p, n, t);
}
#else

// Skin matrix of palette `entry` for an instance's layers: Σ_layers w_l · ((1 − f_l)·S(row_l) +
// f_l·S(next_l)), summed in layer order from zero over the layers with a weight (a disabled
// instance's are the rest row, `shown_layers`). CPU twin: throng_asset::decode::{layer_rows,
// blend_matrix}.
fn instance_joint_affine(layers: ptr<function, array<Layer, 4>>, entry: u32) -> mat3x4<f32> {
    let zero = vec4<f32>(0.0);
    var m = mat3x4<f32>(zero, zero, zero);
    for (var i = 0u; i < 4u; i++) {
        let l = (*layers)[i];
        if (layer_is_base(l)) {
            m += taps_affine(entry, layer_taps_of(l)) * l.weight;
        }
    }
    return m;
}

// Model-space skinned vertex: p' = (Σ_i w_i · S_{j_i}) · p, normals by the inverse-transpose of
// the blended 3×3. Influences with weight 0 are skipped; palette indices are clamped into the
// palette. CPU twin: throng_asset::decode::skin_vertices with Skinning::Linear.
fn skin_vertex(inst: u32, joints: array<u32, 8>, weights: array<f32, 8>, p: vec3<f32>, n: vec3<f32>, t: vec4<f32>) -> Skinned {
    var js = joints;
    var ws = weights;
    var layers = shown_layers(inst);
    let zero = vec4<f32>(0.0);
    var m = mat3x4<f32>(zero, zero, zero);
    for (var i = 0u; i < 8u; i++) {
        let w = ws[i];
        if (w == 0.0) {
            continue;
        }
        m += instance_joint_affine(&layers, min(js[i], bone_params.entries - 1u)) * w;
    }
    return apply_affine(m, p, n, t);
}
#endif
#endif
