// cs_layers.wgsl: writes every instance's playback layers as the skinning shaders see them
// (for tests of the GPU-timed arithmetic against the runtime's CPU twin).

@group(0) @binding(10) var<storage, read_write> layers_out: array<InstanceRecord>;

@compute @workgroup_size(64)
fn cs_layers(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= arrayLength(&layers_out)) {
        return;
    }
    layers_out[i] = InstanceRecord(instance_layers(i));
}
