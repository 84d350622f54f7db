//! WGSL sources, composed by concatenation (WGSL has no imports; DESIGN.md §5). Each program is
//! `common.wgsl` + the modules it needs + its entry points; the bone-texture encoding picks the
//! texture declaration and the fetch/decode module, the skinning method picks LBS or DQ.

use thiserror::Error;
use throng_asset::Encoding;

pub const COMMON: &str = include_str!("../shaders/common.wgsl");
pub const RESOURCES: &str = include_str!("../shaders/resources.wgsl");
pub const BONES_FLOAT: &str = include_str!("../shaders/bones_float.wgsl");
pub const BONES_SINT: &str = include_str!("../shaders/bones_sint.wgsl");
pub const FETCH_MAT4_F32: &str = include_str!("../shaders/fetch_mat4_f32.wgsl");
pub const FETCH_MAT3X4: &str = include_str!("../shaders/fetch_mat3x4.wgsl");
pub const FETCH_QUAT_F32: &str = include_str!("../shaders/fetch_quat_f32.wgsl");
pub const FETCH_QUAT_SNORM16: &str = include_str!("../shaders/fetch_quat_snorm16.wgsl");
pub const TIMING_CPU: &str = include_str!("../shaders/timing_cpu.wgsl");
pub const TIMING_GPU: &str = include_str!("../shaders/timing_gpu.wgsl");
pub const CS_LAYERS: &str = include_str!("../shaders/cs_layers.wgsl");
pub const INSTANCE_DIRECT: &str = include_str!("../shaders/instance_direct.wgsl");
pub const INSTANCE_CULLED: &str = include_str!("../shaders/instance_culled.wgsl");
pub const CULL: &str = include_str!("../shaders/cull.wgsl");
pub const VAT: &str = include_str!("../shaders/vat.wgsl");
pub const VS_VAT: &str = include_str!("../shaders/vs_vat.wgsl");
pub const FRAMES: &str = include_str!("../shaders/frames.wgsl");
pub const SKIN_LBS: &str = include_str!("../shaders/skin_lbs.wgsl");
pub const SKIN_DQ: &str = include_str!("../shaders/skin_dq.wgsl");
pub const FRAME: &str = include_str!("../shaders/frame.wgsl");
pub const MESH_FS: &str = include_str!("../shaders/mesh_fs.wgsl");
pub const DEBUG: &str = include_str!("../shaders/debug.wgsl");
pub const VS_TEXTURE: &str = include_str!("../shaders/vs_texture.wgsl");
pub const CS_SKIN: &str = include_str!("../shaders/cs_skin.wgsl");
pub const VS_REFERENCE: &str = include_str!("../shaders/vs_reference.wgsl");
pub const GROUND: &str = include_str!("../shaders/ground.wgsl");

pub use throng_contract::{Skinning, Timing};

/// Which shader program to compose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Program {
    /// Texture skinning path: `vs_main` + `fs_main`; `culled`: instances come from the
    /// visible list that [`Program::Cull`] writes.
    TextureDraw {
        encoding: Encoding,
        skinning: Skinning,
        timing: Timing,
        culled: bool,
    },
    /// VAT path: `vs_main` + `fs_main`, positions and normals fetched from per-primitive vertex
    /// animation textures.
    VatDraw { timing: Timing, culled: bool },
    /// GPU frustum culling and indirect draw arguments: `cs_cull` + `cs_cull_finish`.
    Cull { timing: Timing },
    /// Compute twin of the texture path: `cs_skin`.
    SkinCompute {
        encoding: Encoding,
        skinning: Skinning,
        timing: Timing,
    },
    /// Every instance's playback layers as the skinning shaders see them: `cs_layers`.
    LayersCompute { timing: Timing },
    /// CPU-skinned vertices: `vs_main` + `fs_main`.
    ReferenceDraw,
    /// Ground plane: `vs_ground` + `fs_ground`.
    Ground,
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ShaderError {
    #[error("dual-quaternion skinning needs a quat-* bone texture, this asset's is {0}; use linear blend skinning or re-bake with --encoding quat-snorm16")]
    DualQuatNeedsQuat(&'static str),
}

/// The modules a program is made of, in order.
pub fn modules(program: Program) -> Result<Vec<&'static str>, ShaderError> {
    let timing_module = |t: Timing| match t {
        Timing::Cpu => TIMING_CPU,
        Timing::Gpu => TIMING_GPU,
    };
    let skin_modules = |encoding: Encoding,
                        skinning: Skinning,
                        timing: Timing|
     -> Result<Vec<&str>, ShaderError> {
        if skinning == Skinning::DualQuat && !encoding.is_quat() {
            return Err(ShaderError::DualQuatNeedsQuat(encoding.as_str()));
        }
        let (bones, fetch) = match encoding {
            Encoding::Mat4F32 => (BONES_FLOAT, FETCH_MAT4_F32),
            Encoding::Mat3x4F32 | Encoding::Mat3x4F16 => (BONES_FLOAT, FETCH_MAT3X4),
            Encoding::QuatF32 => (BONES_FLOAT, FETCH_QUAT_F32),
            Encoding::QuatSnorm16 => (BONES_SINT, FETCH_QUAT_SNORM16),
        };
        let skin = match skinning {
            Skinning::Linear => SKIN_LBS,
            Skinning::DualQuat => SKIN_DQ,
        };
        Ok(vec![
            COMMON,
            RESOURCES,
            timing_module(timing),
            bones,
            fetch,
            FRAMES,
            skin,
        ])
    };
    Ok(match program {
        Program::TextureDraw {
            encoding,
            skinning,
            timing,
            culled,
        } => {
            let mut m = skin_modules(encoding, skinning, timing)?;
            let map = if culled {
                INSTANCE_CULLED
            } else {
                INSTANCE_DIRECT
            };
            m.extend([FRAME, DEBUG, map, VS_TEXTURE, MESH_FS]);
            m
        }
        Program::Cull { timing } => vec![COMMON, RESOURCES, timing_module(timing), CULL],
        Program::VatDraw { timing, culled } => vec![
            COMMON,
            RESOURCES,
            timing_module(timing),
            FRAMES,
            VAT,
            FRAME,
            DEBUG,
            if culled {
                INSTANCE_CULLED
            } else {
                INSTANCE_DIRECT
            },
            VS_VAT,
            MESH_FS,
        ],
        Program::SkinCompute {
            encoding,
            skinning,
            timing,
        } => {
            let mut m = skin_modules(encoding, skinning, timing)?;
            m.push(CS_SKIN);
            m
        }
        Program::LayersCompute { timing } => {
            vec![COMMON, RESOURCES, timing_module(timing), CS_LAYERS]
        }
        Program::ReferenceDraw => vec![COMMON, FRAME, VS_REFERENCE, MESH_FS],
        Program::Ground => vec![COMMON, FRAME, GROUND],
    })
}

/// The composed WGSL source of a program.
pub fn compose(program: Program) -> Result<String, ShaderError> {
    Ok(modules(program)?.join("\n"))
}

/// Every program the crate can build (for validation tests and warm-up).
pub fn all_programs() -> Vec<Program> {
    let mut v = vec![Program::ReferenceDraw, Program::Ground];
    for timing in [Timing::Cpu, Timing::Gpu] {
        v.push(Program::LayersCompute { timing });
        v.push(Program::Cull { timing });
        for culled in [false, true] {
            v.push(Program::VatDraw { timing, culled });
        }
        for encoding in Encoding::ALL {
            for skinning in [Skinning::Linear, Skinning::DualQuat] {
                if skinning == Skinning::DualQuat && !encoding.is_quat() {
                    continue;
                }
                for culled in [false, true] {
                    v.push(Program::TextureDraw {
                        encoding,
                        skinning,
                        timing,
                        culled,
                    });
                }
                v.push(Program::SkinCompute {
                    encoding,
                    skinning,
                    timing,
                });
            }
        }
    }
    v
}

/// Parses and validates a composed source with naga (no GPU needed); the error names the program
/// and carries naga's report with source locations.
pub fn validate(program: Program) -> Result<naga::Module, String> {
    let src = compose(program).map_err(|e| e.to_string())?;
    let module = naga::front::wgsl::parse_str(&src)
        .map_err(|e| format!("{program:?}: {}", e.emit_to_string(&src)))?;
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
    .validate(&module)
    .map_err(|e| format!("{program:?}: {}", e.emit_to_string(&src)))?;
    Ok(module)
}
