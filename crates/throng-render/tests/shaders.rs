//! Every composed WGSL program parses and validates with naga (no GPU needed), the WGSL
//! structs have the sizes and member offsets of their Rust twins, and the skinned draws' vertex
//! stages read the vertex stream throng-bevy uploads too (`throng_asset::gpu::GpuVertex`).

use throng_asset::Encoding;
use throng_render::shaders::{all_programs, validate, Program};
use throng_render::{Skinning, Timing};

mod naga_layout;

use naga_layout::{check, check_shared, check_vertex_inputs, vertex_inputs};

#[test]
fn every_program_validates() {
    let mut failures = Vec::new();
    for p in all_programs() {
        if let Err(e) = validate(p) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// What browsers compile: each program as naga writes it for WebGPU (wgpu hands a browser the
/// WGSL naga writes) holds no constant bitcast to a NaN or an infinity, which WGSL makes a
/// shader-creation error (a const-expression must be finite) and Chromium refuses, though
/// naga accepts it.
#[test]
fn no_program_bitcasts_constant_bits_to_a_non_finite_float() {
    let mut failures = Vec::new();
    for p in all_programs() {
        let text = throng_render::shaders::program_text(p).expect("composes");
        for (at, _) in text.match_indices("bitcast<f32>(") {
            let rest = &text[at + "bitcast<f32>(".len()..];
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            let constant = !digits.is_empty() && rest[digits.len()..].starts_with("u)");
            if let (true, Ok(bits)) = (constant, digits.parse::<u32>()) {
                if !f32::from_bits(bits).is_finite() {
                    failures.push(format!("{}: bitcast<f32>({bits}u)", p.name()));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn dual_quat_needs_quat_encoding() {
    let p = Program::SkinCompute {
        encoding: Encoding::Mat3x4F32,
        skinning: Skinning::DualQuat,
        timing: Timing::Cpu,
    };
    assert!(validate(p).is_err());
}

/// The compute skinning program (quat-snorm16, DQ, CPU-timed): the contract's records and the
/// skinning modules' structs.
fn skin_program() -> naga::Module {
    validate(Program::SkinCompute {
        encoding: Encoding::QuatSnorm16,
        skinning: Skinning::DualQuat,
        timing: Timing::Cpu,
    })
    .expect("valid")
}

/// The playback contract's structs (throng-contract's types, uploaded unchanged).
#[test]
fn playback_structs_match_the_contract() {
    use std::mem::{offset_of, size_of};
    use throng_render::gpu_types::*;
    let skin = skin_program();
    check_shared(
        &skin,
        &["Layer", "InstanceRecord", "InstanceTransform", "Clip"],
    );
    assert_eq!(size_of::<InstanceRecord>(), 64);
    assert_eq!(size_of::<InstanceTransform>(), 48);
    assert_eq!(offset_of!(GpuClip, bounds_min), 16);
    let timed = validate(Program::LayersCompute {
        timing: Timing::Gpu,
    })
    .expect("valid");
    check_shared(&timed, &["GpuLayer", "GpuInstanceRecord", "Timing"]);
    assert_eq!(size_of::<GpuInstanceRecord>(), 56);
    let scatter = validate(Program::RecordScatter).expect("valid");
    check(
        &scatter,
        "GpuRecordWrite",
        size_of::<throng_render::GpuRecordWrite>(),
        &[0, 56, 60],
    );
    assert_eq!(size_of::<throng_render::GpuRecordWrite>(), 64);
    // The graph step's parameters and state machine (throng_graph::gpu_layout's words), and
    // the graph time twin's case and output ([u32; 26], [u32; 24]).
    let graph = validate(Program::GraphStep).expect("valid");
    check_shared(&graph, &["GraphStepParams"]);
    {
        use throng_graph::gpu_layout::*;
        check(
            &graph,
            "GraphMachine",
            4 * MACHINE_WORDS,
            &[
                MACHINE_FRAC,
                MACHINE_RATE,
                MACHINE_LENGTH,
                MACHINE_WHOLE,
                MACHINE_ELAPSED,
                MACHINE_OUT_WEIGHT,
                MACHINE_RUNNING,
                MACHINE_CUR_SRC,
                MACHINE_OUT_STATES,
                MACHINE_FLAGS,
            ]
            .map(|w| 4 * w),
        );
    }
    let time = validate(Program::GraphTimeCompute).expect("valid");
    let words = |name: &str| naga_layout::struct_size(&time, name);
    assert_eq!(
        words("GraphTimeCase"),
        size_of::<throng_render::compute::GraphTimeCase>()
    );
    assert_eq!(
        words("GraphTimeOut"),
        size_of::<throng_render::compute::GraphTimeOut>()
    );
    // The far tier's parameters and clips (throng::far).
    let far = validate(Program::FarCompute).expect("valid");
    check_shared(&far, &["FarParams", "FarClip"]);
    assert_eq!(size_of::<throng_asset::gpu::far::FarParams>(), 64);
}

/// The skinning modules' structs (throng-asset's, shared with throng-bevy) and the compute
/// skinning job's.
#[test]
fn skinning_structs_match_rust_layouts() {
    use std::mem::size_of;
    use throng_render::gpu_types::*;
    let skin = skin_program();
    check_shared(&skin, &["BoneParams"]);
    check(
        &skin,
        "SkinInput",
        size_of::<SkinInput>(),
        &[0, 16, 32, 48, 64, 80, 96],
    );
    check(&skin, "SkinOutput", size_of::<SkinOutput>(), &[0, 16, 32]);
    check(&skin, "SkinJob", size_of::<SkinJob>(), &[0, 4, 8, 12]);
    // The palette path's buffer entry and job (the compute program and the draw share
    // throng::palette).
    let palette = validate(Program::PaletteCompute {
        encoding: Encoding::QuatSnorm16,
        skinning: Skinning::DualQuat,
        timing: Timing::Gpu,
        culled: true,
    })
    .expect("valid");
    check_shared(&palette, &["PaletteEntry", "PaletteJob"]);
    assert_eq!(size_of::<PaletteEntry>(), 48);
    // A live pose's matrices (throng_contract::SkinMatrix) are copied into the palette buffer
    // byte for byte: the linear-blend entry's layout (rows a, b, c).
    check(
        &palette,
        "PaletteEntry",
        size_of::<throng_contract::SkinMatrix>(),
        &[0, 16, 32].map(|r| std::mem::offset_of!(throng_contract::SkinMatrix, rows) + r),
    );
}

/// The mesh draws' uniforms.
#[test]
fn draw_structs_match_rust_layouts() {
    use std::mem::size_of;
    use throng_render::gpu_types::*;
    let draw = validate(Program::TextureDraw {
        encoding: Encoding::Mat4F32,
        skinning: Skinning::Linear,
        timing: Timing::Cpu,
        culled: true,
        four_influences: false,
        debug: false,
    })
    .expect("valid");
    check(
        &draw,
        "FrameUniform",
        size_of::<FrameUniform>(),
        &[0, 64, 128, 144, 160, 176, 192, 208, 224, 288, 304],
    );
    check(
        &draw,
        "DrawParams",
        size_of::<DrawParams>(),
        &[0, 4, 8, 12, 16, 20, 24, 28, 32, 48],
    );
    // The material slots (throng::material) and the per-instance appearance
    // (throng::appearance, one Rgba32Uint texel).
    check_shared(&draw, &["Material", "MaterialSet", "Appearance"]);
}

/// Culling's parameters and indirect arguments, and occlusion culling's depth pyramid.
#[test]
fn culling_structs_match_rust_layouts() {
    use std::mem::{offset_of, size_of};
    use throng_render::gpu_types::*;
    let cull = validate(Program::Cull {
        timing: Timing::Cpu,
        occlusion: true,
    })
    .expect("valid");
    check(
        &cull,
        "CullParams",
        size_of::<CullParams>(),
        // The Rust struct's own offsets, field by field.
        &[
            offset_of!(CullParams, planes),
            offset_of!(CullParams, shadow_planes),
            offset_of!(CullParams, fallback_min),
            offset_of!(CullParams, fallback_max),
            offset_of!(CullParams, eye),
            offset_of!(CullParams, lod_error),
            offset_of!(CullParams, light),
            offset_of!(CullParams, instance_count),
            offset_of!(CullParams, primitive_count),
            offset_of!(CullParams, lod_count),
            offset_of!(CullParams, segment),
            offset_of!(CullParams, lod_bias),
            offset_of!(CullParams, shadows),
            offset_of!(CullParams, row_pad),
            offset_of!(CullParams, row_bounds),
            offset_of!(CullParams, shadow_lod),
            offset_of!(CullParams, pass_count),
            offset_of!(CullParams, history_base),
            offset_of!(CullParams, palette_base),
            offset_of!(CullParams, palette_state),
            offset_of!(CullParams, frame),
            offset_of!(CullParams, far_level),
            offset_of!(CullParams, far_diameter),
            offset_of!(CullParams, far_band),
            offset_of!(CullParams, refresh),
            offset_of!(CullParams, view_proj),
            offset_of!(CullParams, viewport),
            offset_of!(CullParams, far_sphere),
        ],
    );
    check_shared(&cull, &["DrawArgs"]);
    assert_eq!(size_of::<DrawIndexedArgs>(), 20);
    let occlusion = validate(Program::Occlusion).expect("valid");
    check(
        &occlusion,
        "DepthPyramid",
        size_of::<DepthPyramid>(),
        &[
            offset_of!(DepthPyramid, view_proj),
            offset_of!(DepthPyramid, size),
            offset_of!(DepthPyramid, levels),
        ],
    );
    let pyramid = validate(Program::DepthPyramid).expect("valid");
    check(
        &pyramid,
        "PyramidStep",
        size_of::<PyramidStep>(),
        &[0, 4, 8, 12],
    );
}

/// Props' anchors and parameters.
#[test]
fn anchor_structs_match_rust_layouts() {
    use std::mem::{offset_of, size_of};
    use throng_render::gpu_types::*;
    let anchors = validate(Program::AnchorsCompute {
        timing: Timing::Cpu,
    })
    .expect("valid");
    check(&anchors, "AnchorAffine", size_of::<AnchorAffine>(), &[0]);
    assert_eq!(size_of::<AnchorAffine>(), 48);
    check(
        &anchors,
        "PropParams",
        size_of::<PropParams>(),
        &[
            offset_of!(PropParams, anchor),
            offset_of!(PropParams, anchor_count),
            offset_of!(PropParams, instance_count),
            offset_of!(PropParams, _pad),
        ],
    );
}

/// The texture and palette draws' vertex stages (main and shadow, 8 and 4 influences) read the
/// vertex stream at GpuVertex's locations and types; the main stage with 8 influences reads
/// every attribute.
#[test]
fn vertex_stages_read_the_shared_vertex_stream() {
    for four_influences in [false, true] {
        let texture = Program::TextureDraw {
            encoding: Encoding::Mat4F32,
            skinning: Skinning::Linear,
            timing: Timing::Cpu,
            culled: true,
            four_influences,
            debug: false,
        };
        let palette = Program::PaletteDraw {
            skinning: Skinning::Linear,
            timing: Timing::Gpu,
            culled: false,
            four_influences,
            debug: false,
            motion: true,
        };
        for program in [texture, palette] {
            let module = validate(program).expect("valid");
            for entry in ["vs_main", "vs_shadow"] {
                let inputs = vertex_inputs(&module, entry);
                check_vertex_inputs(&format!("{} {entry}", program.name()), &inputs);
                if entry == "vs_main" && !four_influences {
                    let mut read: Vec<u32> = inputs.iter().map(|(l, _)| *l).collect();
                    read.sort_unstable();
                    assert_eq!(read, (0..7).collect::<Vec<u32>>(), "{}", program.name());
                }
            }
        }
    }
}
