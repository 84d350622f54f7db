// skin_lbs.wgsl: linear blend skinning from the bone texture. Frame interpolation and layer
// blending happen on the skin matrices (DESIGN.md §5: LBS is linear, so blending matrices
// equals blending positions, at half the matrix-vector work).

// Skin matrix of palette `entry` for instance `inst`: Σ_layers w_l · ((1 − f_l)·S(row_l) +
// f_l·S(next_l)), summed in layer order from zero; the rest row 0 when every weight is 0
// (disabled instance). CPU twin: throng_asset::decode::{layer_rows, blend_matrix}.
fn instance_joint_affine(layers: ptr<function, array<Layer, 4>>, entry: u32) -> mat3x4<f32> {
    let zero = vec4<f32>(0.0);
    var m = mat3x4<f32>(zero, zero, zero);
    var any_layer = false;
    for (var i = 0u; i < 4u; i++) {
        let l = (*layers)[i];
        if (l.weight == 0.0) {
            continue;
        }
        any_layer = true;
        let rows = layer_rows(l);
        let a = bone_affine(entry, rows.x);
        let b = bone_affine(entry, rows.y);
        m += (a * (1.0 - l.frac) + b * l.frac) * l.weight;
    }
    if (!any_layer) {
        m = bone_affine(entry, 0u);
    }
    return m;
}

// Model-space skinned vertex: p' = (Σ_i w_i · S_{j_i}) · p, normals by the inverse-transpose of
// the blended 3×3. Influences with weight 0 are skipped; palette indices are clamped into the
// palette.
fn skin_vertex(inst: u32, joints: array<u32, 8>, weights: array<f32, 8>, p: vec3<f32>, n: vec3<f32>, t: vec4<f32>) -> Skinned {
    var js = joints;
    var ws = weights;
    var layers = instance_layers(inst);
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
