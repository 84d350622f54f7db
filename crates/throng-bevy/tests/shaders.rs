//! The palette pass's program as the plugin composes it, validated by naga without a GPU or a
//! Bevy app: `shaders/crowd_palette.wgsl` with throng's shared modules (the contract's and
//! `throng_asset::gpu`'s) and exactly the shader defs `PalettePipeline::specialize` gives
//! Bevy, for every encoding and both timings. A missing binding number, a def the shared
//! modules read that the plugin does not set, or a type error in the shared text fails here
//! with naga_oil's report instead of as a crowd that Bevy never draws.

use std::collections::HashMap;

use bevy::render::render_resource::SpecializedComputePipeline;
use bevy::shader::ShaderDefVal;
use naga_oil::compose::{
    ComposableModuleDescriptor, Composer, NagaModuleDescriptor, ShaderDefValue, ShaderLanguage,
};
use throng_asset::Encoding;
use throng_bevy::render::PalettePipeline;

fn naga_defs(defs: &[ShaderDefVal]) -> HashMap<String, ShaderDefValue> {
    defs.iter()
        .map(|d| match d {
            ShaderDefVal::Bool(k, v) => (k.clone(), ShaderDefValue::Bool(*v)),
            ShaderDefVal::Int(k, v) => (k.clone(), ShaderDefValue::Int(*v)),
            ShaderDefVal::UInt(k, v) => (k.clone(), ShaderDefValue::UInt(*v)),
        })
        .collect()
}

#[test]
fn the_palette_pass_composes_and_validates_for_every_encoding_and_timing() {
    let pipeline = PalettePipeline {
        shader: Default::default(),
    };
    let source = include_str!("../shaders/crowd_palette.wgsl");
    for encoding in Encoding::ALL {
        for gpu_timed in [false, true] {
            let desc = pipeline.specialize((encoding.code(), gpu_timed));
            let mut composer = Composer::default();
            for m in throng_contract::wgsl::modules()
                .into_iter()
                .chain(throng_asset::gpu::wgsl_modules())
            {
                let added = composer.add_composable_module(ComposableModuleDescriptor {
                    source: &m.source,
                    file_path: m.file,
                    language: ShaderLanguage::Wgsl,
                    as_name: Some(m.import_path.to_string()),
                    ..Default::default()
                });
                if let Err(e) = added {
                    panic!("{}: {}", m.file, e.emit_to_string(&composer));
                }
            }
            let module = composer
                .make_naga_module(NagaModuleDescriptor {
                    source,
                    file_path: "crates/throng-bevy/shaders/crowd_palette.wgsl",
                    shader_defs: naga_defs(&desc.shader_defs),
                    ..Default::default()
                })
                .unwrap_or_else(|e| {
                    panic!(
                        "{encoding} gpu_timed={gpu_timed}: {}",
                        e.emit_to_string(&composer)
                    )
                });
            naga::valid::Validator::new(
                naga::valid::ValidationFlags::all(),
                naga::valid::Capabilities::default(),
            )
            .validate(&module)
            .unwrap_or_else(|e| panic!("{encoding} gpu_timed={gpu_timed}: {e:?}"));
            assert!(
                module.entry_points.iter().any(|e| e.name == "cs_palette"),
                "no cs_palette entry point"
            );
        }
    }
}
