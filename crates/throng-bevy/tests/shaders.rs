//! The plugin's WGSL as it composes it, validated by naga without a GPU or a Bevy app:
//! `shaders/crowd_palette.wgsl` with throng's shared modules (the contract's and
//! `throng_asset::gpu`'s) and exactly the shader defs `PalettePipeline::specialize` gives
//! Bevy, for every encoding and both timings; and `throng_bevy::crowd_vertex` (the vertex
//! function of the main, shadow and prepass programs) with the defs `CrowdKey::shader_defs`
//! gives them, for every encoding, timing, skinning path and influence count, with and
//! without motion vectors. (The main and depth programs themselves import Bevy's PBR and
//! prepass modules, which only a Bevy app composes: the example's tests run them.) A missing binding number, a def the shared
//! modules read that the plugin does not set, or a type error in the shared text fails here
//! with naga_oil's report instead of as a crowd that Bevy never draws.

use std::collections::HashMap;

use bevy::render::render_resource::SpecializedComputePipeline;
use bevy::shader::ShaderDefVal;
use naga_oil::compose::{
    ComposableModuleDescriptor, Composer, NagaModuleDescriptor, ShaderDefValue, ShaderLanguage,
};
use throng_asset::Encoding;
use throng_bevy::render::{CrowdKey, PalettePipeline};

fn naga_defs(defs: &[ShaderDefVal]) -> HashMap<String, ShaderDefValue> {
    defs.iter()
        .map(|d| match d {
            ShaderDefVal::Bool(k, v) => (k.clone(), ShaderDefValue::Bool(*v)),
            ShaderDefVal::Int(k, v) => (k.clone(), ShaderDefValue::Int(*v)),
            ShaderDefVal::UInt(k, v) => (k.clone(), ShaderDefValue::UInt(*v)),
        })
        .collect()
}

/// A composer holding throng's shared modules.
fn shared_modules() -> Composer {
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
    composer
}

fn validate(module: &naga::Module, what: &str) {
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
    .validate(module)
    .unwrap_or_else(|e| panic!("{what}: {e:?}"));
}

/// A vertex entry point over `throng_bevy::crowd_vertex`, as crowd.wgsl and crowd_prepass.wgsl
/// call it: this frame's world vertex and, with MOTION, the previous frame's position.
const CROWD_VERTEX_USER: &str = r#"
#import throng_bevy::crowd_vertex::{CrowdVertex, world_vertex}
#ifdef MOTION
#import throng_bevy::crowd_vertex::prev_world_position
#endif

@vertex
fn vertex(v: CrowdVertex) -> @builtin(position) vec4<f32> {
    var p = world_vertex(v).position;
#ifdef MOTION
    p += 1e-6 * prev_world_position(v);
#endif
    return vec4<f32>(p, 1.0);
}
"#;

#[test]
fn the_crowd_vertex_function_composes_and_validates_for_every_crowd_key() {
    let mut checked = 0;
    for encoding in Encoding::ALL {
        for (gpu_timed, palette, four_influences, motion) in
            (0..16).map(|bits| (bits & 1 != 0, bits & 2 != 0, bits & 4 != 0, bits & 8 != 0))
        {
            let key = CrowdKey {
                encoding: encoding.code(),
                gpu_timed,
                double_sided: false,
                palette,
                four_influences,
            };
            let mut defs = key.shader_defs();
            if motion {
                defs.push("MOTION".into());
            }
            let what = format!("{encoding} {key:?} motion={motion}");
            let mut composer = shared_modules();
            let added = composer.add_composable_module(ComposableModuleDescriptor {
                source: throng_bevy::CROWD_VERTEX_WGSL,
                file_path: "crates/throng-bevy/shaders/crowd_vertex.wgsl",
                language: ShaderLanguage::Wgsl,
                ..Default::default()
            });
            if let Err(e) = added {
                panic!("{what}: {}", e.emit_to_string(&composer));
            }
            let module = composer
                .make_naga_module(NagaModuleDescriptor {
                    source: CROWD_VERTEX_USER,
                    file_path: "crowd_vertex_user.wgsl",
                    shader_defs: naga_defs(&defs),
                    ..Default::default()
                })
                .unwrap_or_else(|e| panic!("{what}: {}", e.emit_to_string(&composer)));
            validate(&module, &what);
            checked += 1;
        }
    }
    assert_eq!(checked, Encoding::ALL.len() * 16);
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
            let mut composer = shared_modules();
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
            validate(&module, &format!("{encoding} gpu_timed={gpu_timed}"));
            assert!(
                module.entry_points.iter().any(|e| e.name == "cs_palette"),
                "no cs_palette entry point"
            );
        }
    }
}
