//! The FBX importer (ufbx, C, inside the trust boundary) on binary and ASCII FBX bytes (seeds:
//! the shared assets' small .fbx files). Whatever it accepts is posed and skinned once, so a
//! model that breaks throng-anim's assumptions (joint indices, key times) is a finding too.
//! ufbx's memory limit is 256 MiB here, below libFuzzer's 2 GiB: going past it must be an
//! error, never an abort.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let options = throng_fbx::ImportOptions {
        memory_limit: 256 << 20,
        ..Default::default()
    };
    if let Ok(model) = throng_fbx::import_slice_with(data, None, "fuzz.fbx", &options) {
        let mut skinner = throng_anim::ModelSkinner::with_static_meshes(&model);
        let mut parts = Vec::new();
        skinner.skin(&model, None, 0.0, throng_anim::Skinning::Linear, &mut parts);
        if let Some(clip) = model.clips.first() {
            let t = clip.duration * 0.5;
            skinner.skin(
                &model,
                Some(0),
                t,
                throng_anim::Skinning::Linear,
                &mut parts,
            );
        }
    }
});
