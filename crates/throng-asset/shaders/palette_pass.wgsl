// The palette pass (docs/design.md §5 "Skinning paths"), the program both embeddings run (the
// entry point itself: throng-render's passes/palette.rs, throng-bevy's render::palette): after
// culling, every instance that some pass draws gets its skin matrices — frames interpolated,
// layers blended, masks and additive layers applied (docs/design.md §4) — written once into the
// palette buffer, one invocation per (instance, palette entry), by throng::pose, built from the
// texture path's own functions (throng::skin), so both paths blend alike. The draws then read one
// entry per influence (def PALETTE).
//
// Culled (def CULLED): the instances are the culling pass's palette list (every instance in
// view or casting a shadow, once, however many passes and LODs draw it), its length a word of
// the indirect-argument buffer, dispatched indirectly. Otherwise every instance.
// Defs: ENCODING, BONE_TEXTURE, DUAL_QUAT, GPU_TIMED, CULLED, PALETTE_WRITE, G_SKIN, B_*
// (throng_render::shaders::Program::PaletteCompute, throng_bevy::render::PalettePipeline).

#import throng::bone::bone_params
#import throng::instances::instance_id
#import throng::pose::write_palette_entry
#import throng::palette::{palette_invocation, job}

#ifdef CULLED
@group(#{G_SKIN}) @binding(#{B_PALETTE_COUNT}) var<storage, read> list_words: array<u32>;

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
    let i = palette_invocation(group, groups, lane);
    let entries = bone_params.entries;
    if (i >= listed() * entries) {
        return;
    }
    write_palette_entry(instance_id(i / entries, job.list_base), i % entries);
}
