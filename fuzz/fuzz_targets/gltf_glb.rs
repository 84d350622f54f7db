//! The glTF importer on GLB bytes (seeds: the shared assets' .glb files). No base folder, so
//! external URIs are parsed and refused but no file is touched.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(model) = throng_gltf::import_slice(data, None, "fuzz.glb") {
        let _ = throng_gltf::check_animatable(&model, std::path::Path::new("fuzz.glb"));
    }
});
