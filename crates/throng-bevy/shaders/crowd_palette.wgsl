// throng_bevy's palette pass (docs/design.md §5 "Skinning paths"): one invocation per
// (instance, palette entry) of a crowd writes the entry's skin matrix — frames interpolated,
// layers blended, masks and additive layers applied — with throng::pose, the step of
// throng-render's palette pass. Submitted before Bevy's render graph each frame
// (throng_bevy::render::dispatch_palettes); the crowd draw (crowd.wgsl) reads the result.
// Defs: ENCODING, BONE_TEXTURE, GPU_TIMED, PALETTE_WRITE, G_SKIN (0), B_*
// (throng_bevy::render::PalettePipeline::specialize).

#import throng::bone::bone_params
#import throng::pose::write_palette_entry
#import throng::palette::{palette_invocation, job}

@compute @workgroup_size(64)
fn cs_palette(@builtin(workgroup_id) group: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>, @builtin(local_invocation_index) lane: u32) {
    let i = palette_invocation(group, groups, lane);
    let entries = bone_params.entries;
    if (i >= job.instances * entries) {
        return;
    }
    write_palette_entry(i / entries, i % entries);
}
