// Every instance's playback layers as the skinning shaders see them, for tests of the time
// rules' GPU twin and the GPU-timed arithmetic against their CPU twins. Defs: GPU_TIMED.

#import throng::playback::InstanceRecord
#import throng::instances::instance_layers

@group(0) @binding(#{B_LAYERS_OUT}) var<storage, read_write> layers_out: array<InstanceRecord>;

@compute @workgroup_size(64)
fn cs_layers(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= arrayLength(&layers_out)) {
        return;
    }
    layers_out[i] = InstanceRecord(instance_layers(i));
}
