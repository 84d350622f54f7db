// vs_reference.wgsl: reference path: vertices skinned on the CPU (model space) and uploaded
// each frame; only the instance transform is applied here.

@group(0) @binding(3) var<storage, read> instance_transforms: array<InstanceTransform>;

struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
}

@vertex
fn vs_main(v: VertexIn, @builtin(instance_index) inst: u32) -> VsOut {
    let world = apply_affine(instance_affine(instance_transforms[inst]), v.position, v.normal, vec4<f32>(1.0, 0.0, 0.0, 1.0));
    var out: VsOut;
    out.clip = clip_position(world.position);
    out.normal = world.normal;
    out.world = world.position;
    out.uv = v.uv;
    out.debug = vec4<f32>(0.0);
    return out;
}
