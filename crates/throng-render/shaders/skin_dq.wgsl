// skin_dq.wgsl: dual-quaternion skinning for the quat-* encodings (Kavan, Collins, Žára,
// O'Sullivan 2007, "Skinning with dual quaternions": dual-quaternion linear blending). Every
// (influence, layer, frame) term becomes a unit dual quaternion weighted by
// w_i · (w_l · (1 − f_l)) or w_i · (w_l · f_l); each is flipped into the hemisphere of the first
// term of non-zero weight (the pivot), summed, then normalised by |Σ real|. Uniform scale is
// blended linearly with the same weights (never flipped) and applied before the rotation, as in
// [s·R | t]. CPU twin: throng_asset::decode::{DualQuat, DqBlend, skin_vertices}.

struct DqAcc {
    real: vec4<f32>,
    dual: vec4<f32>,
    scale: f32,
    pivot: vec4<f32>,
    has_pivot: bool,
}

fn dq_add(acc: ptr<function, DqAcc>, w: f32, x: Rts) {
    if (w == 0.0) {
        return;
    }
    if (!(*acc).has_pivot) {
        (*acc).pivot = x.q;
        (*acc).has_pivot = true;
    }
    let ws = select(w, -w, dot(x.q, (*acc).pivot) < 0.0);
    // Dual part of the unit dual quaternion of (q, t): ½ · (t, 0) · q.
    let dual = quat_mul(vec4<f32>(x.t, 0.0), x.q) * 0.5;
    (*acc).real += x.q * ws;
    (*acc).dual += dual * ws;
    (*acc).scale += x.s * w;
}

fn skin_vertex(inst: u32, joints: array<u32, 8>, weights: array<f32, 8>, p: vec3<f32>, n: vec3<f32>, t: vec4<f32>) -> Skinned {
    var js = joints;
    var ws = weights;
    var layers = instance_layers(inst);
    var acc: DqAcc;
    for (var i = 0u; i < 8u; i++) {
        let w = ws[i];
        if (w == 0.0) {
            continue;
        }
        let entry = min(js[i], bone_params.entries - 1u);
        var any_layer = false;
        for (var k = 0u; k < 4u; k++) {
            let l = layers[k];
            if (l.weight == 0.0) {
                continue;
            }
            any_layer = true;
            let rows = layer_rows(l);
            dq_add(&acc, w * (l.weight * (1.0 - l.frac)), bone_rts(entry, rows.x));
            dq_add(&acc, w * (l.weight * l.frac), bone_rts(entry, rows.y));
        }
        if (!any_layer) {
            // Disabled instance: the rest row 0 (as weight 1, frac 0, next = row).
            dq_add(&acc, w * (1.0 * (1.0 - 0.0)), bone_rts(entry, 0u));
        }
    }
    var r = vec4<f32>(0.0, 0.0, 0.0, 1.0);
    var d = vec4<f32>(0.0);
    var s = 1.0;
    let len = length(acc.real);
    if (len > 0.0) {
        let inv = 1.0 / len;
        r = acc.real * inv;
        d = acc.dual * inv;
        s = acc.scale;
    }
    // Translation 2 · (d · conj(r)).xyz = 2 · (w_r · d − w_d · r + r × d).
    let tr = 2.0 * (r.w * d.xyz - d.w * r.xyz + cross(r.xyz, d.xyz));
    let sgn = sign_or_one(s);
    var out: Skinned;
    out.position = quat_rotate(r, p * s) + tr;
    out.normal = normalize_or_zero(quat_rotate(r, n) * sgn);
    out.tangent = vec4<f32>(quat_rotate(r, t.xyz) * sgn, t.w * sgn);
    return out;
}
