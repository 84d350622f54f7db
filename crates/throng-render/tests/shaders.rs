//! Every composed WGSL program parses and validates with naga (no GPU needed), and the WGSL
//! structs have the sizes and member offsets of their Rust twins.

use throng_asset::Encoding;
use throng_render::shaders::{all_programs, validate, Program, Skinning};

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
    };
    assert!(validate(p).is_err());
}
