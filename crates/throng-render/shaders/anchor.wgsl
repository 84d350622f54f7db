// throng_render::anchor — a baked asset's anchors (sockets) on the GPU: per frame-table row, each
// anchor's model-space affine (docs/design.md §3 "Anchors"). An instance's anchor is interpolated
// between the two rows each layer shows and blended over its layers exactly as its skin matrices
// are (throng::skin's instance_joint_affine: same rows, same weights, same order), so a
// prop stays on the skinned hand; then composed with the instance transform. CPU twins:
// throng_runtime::anchor::anchor_world (world) and throng_asset::decode::blended_anchor_matrix
// (model space).
#define_import_path throng_render::anchor

#import throng::playback::{Layer, instance_affine, affine_mul}
#import throng::bone::{layer_taps_of, layer_is_base}
#import throng::instances::{shown_layers, instance_transforms}

// Rust twin: crate::gpu_types::AnchorAffine. The 3 rows of [L | t], as an affine of
// throng::playback (column i of the mat3x4 = row i).
struct AnchorAffine {
    rows: array<vec4<f32>, 3>,
}

// Rust twin: crate::gpu_types::PropParams.
struct PropParams {
    anchor: u32,
    anchor_count: u32,
    instance_count: u32,
    pad: u32,
}

@group(0) @binding(#{B_ANCHORS}) var<storage, read> anchors: array<AnchorAffine>;
@group(0) @binding(#{B_PROP_PARAMS}) var<uniform> prop: PropParams;

// Model-space affine of `anchor` at frame-table row `row` (rows already kept inside the table by
// layer_taps_of; the anchor index is clamped so a bad one cannot read past the buffer).
fn anchor_affine(anchor: u32, row: u32) -> mat3x4<f32> {
    let a = anchors[row * prop.anchor_count + min(anchor, prop.anchor_count - 1u)];
    return mat3x4<f32>(a.rows[0], a.rows[1], a.rows[2]);
}

// Model-space transform of `anchor` for instance `inst` now: Σ_layers w_l · Σ_taps w_k·A(row_k)
// over the layers with a weight (a disabled instance's is the rest row, shown_layers), summed in
// layer order from zero; a linear clip's taps are (1 − f_l)·A(row_l) + f_l·A(next_l). CPU twin:
// throng_runtime::anchor_world.
fn anchor_matrix(inst: u32, anchor: u32) -> mat3x4<f32> {
    var layers = shown_layers(inst);
    let zero = vec4<f32>(0.0);
    var m = mat3x4<f32>(zero, zero, zero);
    for (var i = 0u; i < 4u; i++) {
        let l = layers[i];
        if (layer_is_base(l)) {
            let t = layer_taps_of(l);
            var a = mat3x4<f32>(zero, zero, zero);
            for (var r = 0u; r < 4u; r++) {
                if (t.weights[r] != 0.0) {
                    a += anchor_affine(anchor, t.rows[r]) * t.weights[r];
                }
            }
            m += a * l.weight;
        }
    }
    return m;
}

// World transform of `anchor` for instance `inst`: instance transform · anchor_matrix.
fn anchor_world(inst: u32, anchor: u32) -> mat3x4<f32> {
    return affine_mul(instance_affine(instance_transforms[inst]), anchor_matrix(inst, anchor));
}
