//! The glTF importer on `.gltf` JSON with data-URI buffers and images (seeds: the shared
//! assets' .gltf files and their .glb files rewritten with embedded buffers).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(model) = throng_gltf::import_slice(data, None, "fuzz.gltf") {
        let _ = throng_gltf::check_animatable(&model, std::path::Path::new("fuzz.gltf"));
    }
});
