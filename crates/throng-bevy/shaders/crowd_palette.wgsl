// throng_bevy's palette pass (docs/design.md §5 "Skinning paths"): one invocation per
// (instance, palette entry) of a crowd writes the entry's skin matrix — frames interpolated,
// layers blended, masks and additive layers applied — with throng::pose, the step of
// throng-render's palette pass. Submitted before Bevy's render graph each frame
// (throng_bevy::render::dispatch_palettes); the crowd draw (crowd.wgsl) reads the result.
// Culled (def CULLED; throng_bevy::render::cull): the instances are the culling pass's palette
// list (every instance some view draws, once), its length a word of the indirect arguments,
// dispatched indirectly. Otherwise every instance.
// Defs: ENCODING, BONE_TEXTURE, GPU_TIMED, CULLED, PALETTE_WRITE, G_SKIN (0), B_*
// (throng_bevy::render::PalettePipeline::specialize).

#import throng::bone::bone_params
#import throng::pose::write_palette_entry
#import throng::palette::{palette_invocation, job}
#import throng::instances::instance_id

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
