// Every instance's world transform of one anchor as the prop draw places it (anchor_world of
// throng_render::anchor), for tests against the CPU twin (throng_runtime::anchor::anchor_world)
// and for tools. Defs: GPU_TIMED.

#import throng_render::anchor::{AnchorAffine, anchor_world, prop}

@group(0) @binding(#{B_ANCHORS_OUT}) var<storage, read_write> anchors_out: array<AnchorAffine>;

@compute @workgroup_size(64)
fn cs_anchors(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= prop.instance_count) {
        return;
    }
    let m = anchor_world(i, prop.anchor);
    anchors_out[i] = AnchorAffine(array<vec4<f32>, 3>(m[0], m[1], m[2]));
}
