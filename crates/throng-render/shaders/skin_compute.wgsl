// Compute twin of the texture path's vertex stage, for numerical tests and tools: skins every
// (instance, vertex) pair with the same skin_vertex() and writes model-space results (no
// instance transform), index = instance · vertex_count + vertex. Defs as the texture draw.

#import throng::skin::skin_vertex
#import throng::vertex::influences_of

struct SkinInput {
    position: vec4<f32>,
    normal: vec4<f32>,
    tangent: vec4<f32>,
    joints0: vec4<u32>,
    joints1: vec4<u32>,
    // unorm16 integers (0..65535), converted as w / 65535 (throng::vertex).
    weights0: vec4<u32>,
    weights1: vec4<u32>,
}

struct SkinOutput {
    position: vec4<f32>,
    normal: vec4<f32>,
    tangent: vec4<f32>,
}

struct SkinJob {
    vertex_count: u32,
    instance_count: u32,
    pad_a: u32,
    pad_b: u32,
}

@group(0) @binding(#{B_SKIN_INPUTS}) var<storage, read> skin_inputs: array<SkinInput>;
@group(0) @binding(#{B_SKIN_OUTPUTS}) var<storage, read_write> skin_outputs: array<SkinOutput>;
@group(0) @binding(#{B_SKIN_JOB}) var<uniform> skin_job: SkinJob;

@compute @workgroup_size(64)
fn cs_skin(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= skin_job.vertex_count * skin_job.instance_count) {
        return;
    }
    let inst = i / skin_job.vertex_count;
    let v = skin_inputs[i % skin_job.vertex_count];
    // Every influence (8), decoded by the draws' own function.
    let f = influences_of(v.joints0, v.joints1, v.weights0, v.weights1, 8u);
    let s = skin_vertex(inst, f.joints, f.weights, v.position.xyz, v.normal.xyz, v.tangent);
    skin_outputs[i] = SkinOutput(vec4<f32>(s.position, 1.0), vec4<f32>(s.normal, 0.0), s.tangent);
}
