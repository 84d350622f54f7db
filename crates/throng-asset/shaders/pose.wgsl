// throng::pose — the pose of one palette entry of one instance, as the palette pass writes it
// (docs/design.md §4 "Layer masks and additive layers", §5 "Skinning paths"): the base layers'
// blend (throng::skin's per-entry blend, as the texture path computes it per influence), then
// every overlay layer (masked or additive) in layer order. Shared by throng-render's palette
// pass and throng-bevy's. CPU twins: throng_asset::decode::{pose_matrix, pose_dual_quat}.
// Defs: ENCODING, BONE_TEXTURE, DUAL_QUAT, PALETTE_WRITE, G_SKIN, B_MASKS (and throng::bone's,
// throng::instances' and throng::palette's).
#define_import_path throng::pose

#import throng::bone::{bone_params, layer_taps_of, layer_is_overlay, clip_at}
#ifdef PALETTE_WRITE
#import throng::instances::shown_layers
#import throng::palette::{palette, palette_index, affine_entry, dq_entry}
#endif
#import throng::playback::{Layer, RowTaps, layer_mask, layer_clip, clip_additive}
#ifdef DUAL_QUAT
#import throng::decode::{DqAcc, dq_add, dq_add_parts, quat_mul}
#import throng::skin::dq_add_joint
#import throng::bone::bone_rts
#else
#import throng::skin::instance_joint_affine
#import throng::bone::taps_affine
#import throng::playback::affine_mul
#endif

// The asset's layer masks: mask number m's weight of entry j at (m − 1) · entries + j
// (throng_render's GpuAsset::masks, throng_bevy's GpuThrongAsset::masks; one unused word when
// the asset has none).
@group(#{G_SKIN}) @binding(#{B_MASKS}) var<storage, read> masks: array<f32>;

// Weight of palette `entry` in mask number `m` (1 without a mask; 0 for a number past the
// masks, which the CPU decoder reports as an error).
fn mask_weight(m: u32, entry: u32) -> f32 {
    if (m == 0u) {
        return 1.0;
    }
    let entries = bone_params.entries;
    let count = arrayLength(&masks) / max(entries, 1u);
    if (m > count) {
        return 0.0;
    }
    return masks[(m - 1u) * entries + entry];
}

// How far overlay layer `l` moves palette `entry`: its weight · the entry's mask weight; 0 for
// a base layer or one without weight.
fn overlay_amount(l: Layer, entry: u32) -> f32 {
    if (l.weight == 0.0 || !layer_is_overlay(l)) {
        return 0.0;
    }
    return l.weight * mask_weight(layer_mask(l), entry);
}

// What overlay layer `l` does to palette `entry`: how far it moves it (overlay_amount; 0: the
// layer is skipped), the rows it sums and their weights (layer_taps_of), and whether its
// clip is additive (the rows are a delta applied after the blend so far).
struct Overlay {
    amount: f32,
    taps: RowTaps,
    additive: bool,
}

fn overlay_of(l: Layer, entry: u32) -> Overlay {
    let a = overlay_amount(l, entry);
    if (a == 0.0) {
        return Overlay(0.0, RowTaps(vec4<u32>(0u), vec4<f32>(0.0)), false);
    }
    return Overlay(a, layer_taps_of(l), clip_additive(clip_at(layer_clip(l))));
}

#ifndef DUAL_QUAT

// The palette path's skin matrix of `entry`: the base layers' blend, then every overlay layer
// in layer order with a = weight · mask weight (skipped at 0) and L = its interpolated matrix:
// S = mix(S, L, a), or for an additive clip (L a delta) S = mix(S, S · L, a). CPU twin:
// throng_asset::decode::pose_matrix.
fn palette_joint_affine(layers: ptr<function, array<Layer, 4>>, entry: u32) -> mat3x4<f32> {
    var s = instance_joint_affine(layers, entry);
    for (var i = 0u; i < 4u; i++) {
        let o = overlay_of((*layers)[i], entry);
        if (o.amount == 0.0) {
            continue;
        }
        let x = taps_affine(entry, o.taps);
        var goal = x;
        if (o.additive) {
            goal = affine_mul(s, x);
        }
        s = s * (1.0 - o.amount) + goal * o.amount;
    }
    return s;
}
#else
// A dual quaternion with its uniform scale, normalised.
struct UnitDq {
    real: vec4<f32>,
    dual: vec4<f32>,
    scale: f32,
}

// An accumulated blend normalised by |Σ real|; the identity when it is empty (twin:
// throng_asset::decode::DqBlend::finish).
fn unit_of(acc: DqAcc) -> UnitDq {
    let len = length(acc.real);
    if (len > 0.0) {
        let inv = 1.0 / len;
        return UnitDq(acc.real * inv, acc.dual * inv, acc.scale);
    }
    return UnitDq(vec4<f32>(0.0, 0.0, 0.0, 1.0), vec4<f32>(0.0), 1.0);
}

// `x` applied first, then `b` — the matrix product b · x — with `x`'s translation scaled by b's
// scale (twin: throng_asset::decode::DualQuat::then).
fn dq_then(b: UnitDq, x: UnitDq) -> UnitDq {
    return UnitDq(quat_mul(b.real, x.real), quat_mul(b.real, x.dual * b.scale) + quat_mul(b.dual, x.real), b.scale * x.scale);
}

// The palette path's dual quaternion of `entry` (not normalised): the base layers' blend, then
// every overlay layer in layer order with a = weight · mask weight (skipped at 0), B the blend
// so far and L the layer's two rows, both normalised: (1 − a) · B + a · L, or for an additive
// clip (L a delta) (1 − a) · B + a · (B ∘ L), aligned to B's hemisphere. CPU twin:
// throng_asset::decode::pose_dual_quat.
fn palette_joint_dq(layers: ptr<function, array<Layer, 4>>, entry: u32) -> DqAcc {
    var acc: DqAcc;
    dq_add_joint(&acc, layers, entry, 1.0);
    for (var i = 0u; i < 4u; i++) {
        let o = overlay_of((*layers)[i], entry);
        if (o.amount == 0.0) {
            continue;
        }
        let a = o.amount;
        var x: DqAcc;
        for (var r = 0u; r < 4u; r++) {
            if (o.taps.weights[r] != 0.0) {
                dq_add(&x, o.taps.weights[r], bone_rts(entry, o.taps.rows[r]));
            }
        }
        let b = unit_of(acc);
        var goal = unit_of(x);
        if (o.additive) {
            goal = dq_then(b, goal);
        }
        var next: DqAcc;
        dq_add_parts(&next, 1.0 - a, b.real, b.dual, b.scale);
        dq_add_parts(&next, a, goal.real, goal.dual, goal.scale);
        acc = next;
    }
    return acc;
}
#endif

#ifdef PALETTE_WRITE
// The palette pass's one step: entry `entry` of instance `inst`, posed by the layers the
// instance shows now, written at its place in the palette buffer. Every palette pass's
// invocation (throng-render's cs_palette, throng-bevy's) is this call.
fn write_palette_entry(inst: u32, entry: u32) {
    var layers = shown_layers(inst);
#ifdef DUAL_QUAT
    palette[palette_index(inst, entry)] = dq_entry(palette_joint_dq(&layers, entry));
#else
    palette[palette_index(inst, entry)] = affine_entry(palette_joint_affine(&layers, entry));
#endif
}
#endif
