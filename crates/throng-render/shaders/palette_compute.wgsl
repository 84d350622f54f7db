// The palette pass (docs/design.md §5 "Skinning paths"): after culling, every instance that some
// pass draws gets its skin matrices — frames interpolated, layers blended — written once into
// the palette buffer, one invocation per (instance, palette entry), with the texture path's own
// functions (throng_render::skin), so both paths blend alike. The main and shadow passes then
// read one entry per influence (def PALETTE of texture_draw.wgsl).
//
// Culled (def CULLED): the instances are the culling pass's palette list (every instance in
// view or casting a shadow, once, however many passes and LODs draw it), its length a word of
// the indirect-argument buffer, dispatched indirectly. Otherwise every instance.
// Defs: ENCODING, BONE_TEXTURE, DUAL_QUAT, GPU_TIMED, CULLED, PALETTE_WRITE
// (crate::shaders::Program::PaletteCompute).

#import throng_render::asset::bone_params
#import throng_render::instances::{shown_layers, instance_id}
#import throng_render::palette::{palette, palette_index, affine_entry, dq_entry}
#ifdef DUAL_QUAT
#import throng::decode::DqAcc
#import throng_render::skin::dq_add_joint
#else
#import throng_render::skin::instance_joint_affine
#endif

// crate::gpu_types::PaletteJob.
struct PaletteJob {
    // Instances to write (not culled), or 0.
    instances: u32,
    // Culled: where the palette list starts in the visible ids, and the word of the argument
    // buffer holding its length.
    list_base: u32,
    count_word: u32,
    pad: u32,
}

@group(0) @binding(#{B_PALETTE_JOB}) var<uniform> job: PaletteJob;

#ifdef CULLED
@group(0) @binding(#{B_PALETTE_COUNT}) var<storage, read> list_words: array<u32>;

fn listed() -> u32 {
    return list_words[job.count_word];
}
#else
fn listed() -> u32 {
    return job.instances;
}
#endif

@compute @workgroup_size(64)
fn cs_palette(@builtin(workgroup_id) group: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>, @builtin(local_invocation_index) lane: u32) {
    // Two dimensions: a large crowd needs more than 65,535 workgroups.
    let i = (group.y * groups.x + group.x) * 64u + lane;
    let entries = bone_params.entries;
    if (i >= listed() * entries) {
        return;
    }
    let inst = instance_id(i / entries, job.list_base);
    let entry = i % entries;
    var layers = shown_layers(inst);
#ifdef DUAL_QUAT
    var acc: DqAcc;
    dq_add_joint(&acc, &layers, entry, 1.0);
    palette[palette_index(inst, entry)] = dq_entry(acc);
#else
    palette[palette_index(inst, entry)] = affine_entry(instance_joint_affine(&layers, entry));
#endif
}
