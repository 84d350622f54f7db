//! Every composed WGSL program parses and validates with naga (no GPU needed), and the WGSL
//! structs have the sizes and member offsets of their Rust twins.

use throng_asset::Encoding;
use throng_render::shaders::{all_programs, validate, Program};
use throng_render::{Skinning, Timing};

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

#[test]
fn dual_quat_needs_quat_encoding() {
    let p = Program::SkinCompute {
        encoding: Encoding::Mat3x4F32,
        skinning: Skinning::DualQuat,
        timing: Timing::Cpu,
    };
    assert!(validate(p).is_err());
}

/// Size and member offsets (bytes) of a WGSL struct, from naga's layouter. Names of imported
/// structs carry the composer's module decoration after the item name.
fn struct_layout(module: &naga::Module, name: &str) -> Option<(u32, Vec<u32>)> {
    let item = |n: &str| n.split("X_naga_oil_mod_X").next().unwrap_or(n).to_string();
    module.types.iter().find_map(|(_, ty)| match &ty.inner {
        naga::TypeInner::Struct { members, span }
            if ty.name.as_deref().map(item).as_deref() == Some(name) =>
        {
            Some((*span, members.iter().map(|m| m.offset).collect()))
        }
        _ => None,
    })
}

/// The WGSL structs have the sizes and member offsets of their Rust twins.
#[test]
fn wgsl_structs_match_rust_layouts() {
    use std::mem::{offset_of, size_of};
    use throng_render::gpu_types::*;
    let skin = validate(Program::SkinCompute {
        encoding: throng_asset::Encoding::QuatSnorm16,
        skinning: Skinning::DualQuat,
        timing: Timing::Cpu,
    })
    .expect("valid");
    let draw = validate(Program::TextureDraw {
        encoding: throng_asset::Encoding::Mat4F32,
        skinning: Skinning::Linear,
        timing: Timing::Cpu,
        culled: true,
        four_influences: false,
        debug: false,
    })
    .expect("valid");
    let check = |m: &naga::Module, name: &str, size: usize, offsets: &[usize]| {
        let (span, offs) = struct_layout(m, name).unwrap_or_else(|| panic!("no struct {name}"));
        assert_eq!(span as usize, size, "{name} size");
        let offs: Vec<usize> = offs.into_iter().map(|o| o as usize).collect();
        assert_eq!(offs, offsets, "{name} member offsets");
    };
    check(
        &skin,
        "Layer",
        size_of::<throng_asset::Layer>(),
        &[0, 4, 8, 12],
    );
    check(&skin, "InstanceRecord", size_of::<InstanceRecord>(), &[0]);
    assert_eq!(size_of::<InstanceRecord>(), 64);
    check(
        &skin,
        "InstanceTransform",
        size_of::<InstanceTransform>(),
        &[0],
    );
    assert_eq!(size_of::<InstanceTransform>(), 48);
    check(
        &skin,
        "Clip",
        size_of::<GpuClip>(),
        &[
            0,
            4,
            8,
            12,
            offset_of!(GpuClip, bounds_min),
            offset_of!(GpuClip, bounds_max),
        ],
    );
    check(
        &skin,
        "BoneParams",
        size_of::<BoneParams>(),
        &[0, 4, 8, 12, 16, 20, 24, 28],
    );
    check(
        &skin,
        "SkinInput",
        size_of::<SkinInput>(),
        &[0, 16, 32, 48, 64, 80, 96],
    );
    check(&skin, "SkinOutput", size_of::<SkinOutput>(), &[0, 16, 32]);
    check(&skin, "SkinJob", size_of::<SkinJob>(), &[0, 4, 8, 12]);
    check(
        &draw,
        "FrameUniform",
        size_of::<FrameUniform>(),
        &[0, 64, 128, 144, 160, 176, 192, 208, 224, 288],
    );
    check(
        &draw,
        "DrawParams",
        size_of::<DrawParams>(),
        &[0, 4, 8, 12, 16, 20, 24, 28],
    );
    check(
        &draw,
        "Material",
        size_of::<MaterialUniform>(),
        &[0, 16, 32],
    );
    let timed = validate(Program::LayersCompute {
        timing: Timing::Gpu,
    })
    .expect("valid");
    check(
        &timed,
        "GpuLayer",
        size_of::<GpuLayer>(),
        &[0, 4, 8, 12, 16],
    );
    check(
        &timed,
        "GpuInstanceRecord",
        size_of::<GpuInstanceRecord>(),
        &[0, 40, 44, 48, 52],
    );
    assert_eq!(size_of::<GpuInstanceRecord>(), 56);
    let scatter = validate(Program::RecordScatter).expect("valid");
    check(
        &scatter,
        "GpuRecordWrite",
        size_of::<throng_render::GpuRecordWrite>(),
        &[0, 56, 60],
    );
    assert_eq!(size_of::<throng_render::GpuRecordWrite>(), 64);
    check(&timed, "Timing", size_of::<TimingUniform>(), &[0, 4, 8, 12]);
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
            std::mem::offset_of!(CullParams, planes),
            std::mem::offset_of!(CullParams, shadow_planes),
            std::mem::offset_of!(CullParams, fallback_min),
            std::mem::offset_of!(CullParams, fallback_max),
            std::mem::offset_of!(CullParams, eye),
            std::mem::offset_of!(CullParams, lod_error),
            std::mem::offset_of!(CullParams, light),
            std::mem::offset_of!(CullParams, instance_count),
            std::mem::offset_of!(CullParams, primitive_count),
            std::mem::offset_of!(CullParams, lod_count),
            std::mem::offset_of!(CullParams, segment),
            std::mem::offset_of!(CullParams, lod_bias),
            std::mem::offset_of!(CullParams, shadows),
            std::mem::offset_of!(CullParams, row_pad),
            std::mem::offset_of!(CullParams, row_bounds),
            std::mem::offset_of!(CullParams, shadow_lod),
            std::mem::offset_of!(CullParams, pass_count),
            std::mem::offset_of!(CullParams, history_base),
            std::mem::offset_of!(CullParams, palette_base),
            std::mem::offset_of!(CullParams, palette_state),
            std::mem::offset_of!(CullParams, frame),
            std::mem::offset_of!(CullParams, _pad),
            std::mem::offset_of!(CullParams, _pad_pair),
            std::mem::offset_of!(CullParams, refresh),
        ],
    );
    // The palette path's buffer entry and job (the compute program and the draw share
    // throng::palette).
    let palette = validate(Program::PaletteCompute {
        encoding: throng_asset::Encoding::QuatSnorm16,
        skinning: Skinning::DualQuat,
        timing: Timing::Gpu,
        culled: true,
    })
    .expect("valid");
    check(
        &palette,
        "PaletteEntry",
        size_of::<PaletteEntry>(),
        &[0, 16, 32],
    );
    assert_eq!(size_of::<PaletteEntry>(), 48);
    // A live pose's matrices (throng_contract::SkinMatrix) are copied into the palette buffer
    // byte for byte: the linear-blend entry's layout (rows a, b, c).
    check(
        &palette,
        "PaletteEntry",
        size_of::<throng_contract::SkinMatrix>(),
        &[0, 16, 32].map(|r| std::mem::offset_of!(throng_contract::SkinMatrix, rows) + r),
    );
    check(
        &palette,
        "PaletteJob",
        size_of::<PaletteJob>(),
        &[0, 4, 8, 12],
    );
    let occlusion = validate(Program::Occlusion).expect("valid");
    check(
        &occlusion,
        "DepthPyramid",
        size_of::<DepthPyramid>(),
        &[
            std::mem::offset_of!(DepthPyramid, view_proj),
            std::mem::offset_of!(DepthPyramid, size),
            std::mem::offset_of!(DepthPyramid, levels),
        ],
    );
    let pyramid = validate(Program::DepthPyramid).expect("valid");
    check(
        &pyramid,
        "PyramidStep",
        size_of::<PyramidStep>(),
        &[0, 4, 8, 12],
    );
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
    check(
        &cull,
        "DrawArgs",
        size_of::<DrawIndexedArgs>(),
        &[0, 4, 8, 12, 16],
    );
    assert_eq!(size_of::<DrawIndexedArgs>(), 20);
}
