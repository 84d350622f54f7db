//! Running ufbx on untrusted bytes: its options (target space, limits, no external files) and
//! its errors as [`ImportErrorKind`]s.

use crate::error::{ImportError, ImportErrorKind as K};
use crate::options::ImportOptions;

/// Deepest node hierarchy read. Real skeletons are under 100 deep; the bound keeps a crafted
/// chain from costing more than its bytes.
pub(crate) const NODE_DEPTH_LIMIT: u32 = 1024;

fn allocator(options: &ImportOptions) -> ufbx::AllocatorOpts {
    ufbx::AllocatorOpts {
        memory_limit: options.memory_limit,
        ..Default::default()
    }
}

/// ufbx's load options for throng: glTF's space (right-handed, +Y up, metres) with the
/// conversion applied to geometry, transforms and animation alike; geometry transforms
/// (3ds Max "object offsets") folded into the vertices; Maya's segment-scale compensation
/// turned into ordinary transforms; nothing read from outside the given bytes.
pub(crate) fn load_opts(options: &ImportOptions) -> ufbx::LoadOpts<'static> {
    ufbx::LoadOpts {
        temp_allocator: allocator(options),
        result_allocator: allocator(options),
        target_axes: ufbx::CoordinateAxes::right_handed_y_up(),
        target_unit_meters: 1.0,
        space_conversion: ufbx::SpaceConversion::ModifyGeometry,
        geometry_transform_handling: ufbx::GeometryTransformHandling::ModifyGeometry,
        // Helper nodes (ordinary nodes in the model) carry the scale that children must not
        // inherit. ufbx adds one only where a node's scale differs from 1 somewhere in the
        // file, so a mesh file may lack the helpers of its clip files: `add_scale_helpers`
        // gives it them before binding (docs/fbx.md "Clips in other files").
        inherit_mode_handling: if options.scale_compensation {
            ufbx::InheritModeHandling::HelperNodes
        } else {
            ufbx::InheritModeHandling::Ignore
        },
        file_format: ufbx::FileFormat::Fbx,
        no_format_from_content: true,
        no_format_from_extension: true,
        load_external_files: false,
        ignore_missing_external_files: true,
        generate_missing_normals: true,
        clean_skin_weights: true,
        node_depth_limit: NODE_DEPTH_LIMIT,
        ..Default::default()
    }
}

/// ufbx's bake options for one clip: keys sampled at the file's frame rate where the curves are
/// not already linear at that rate (so keys fall on the frames the authoring tool shows),
/// absolute times (docs/design.md §2: a clip starts at t = 0), no key reduction.
pub(crate) fn bake_opts(options: &ImportOptions, fps: f64) -> ufbx::BakeOpts {
    let fps = if fps.is_finite() && (1.0..=1000.0).contains(&fps) {
        fps
    } else {
        30.0
    };
    ufbx::BakeOpts {
        temp_allocator: allocator(options),
        result_allocator: allocator(options),
        resample_rate: fps,
        minimum_sample_rate: fps,
        trim_start_time: false,
        key_reduction_enabled: false,
        ..Default::default()
    }
}

/// A ufbx error as an import error of `file` (`bytes`: the file, to tell a file cut short from
/// a damaged one).
pub(crate) fn error(
    file: &str,
    e: &ufbx::Error,
    options: &ImportOptions,
    bytes: Option<&[u8]>,
) -> ImportError {
    // `Debug` is ufbx's own formatted message (description, details and where it stopped).
    let detail = format!("{e:?}").trim().replace('\n', "; ");
    let kind = match e.type_ {
        ufbx::ErrorType::TruncatedFile | ufbx::ErrorType::EmptyFile => K::Truncated { detail },
        ufbx::ErrorType::MemoryLimit
        | ufbx::ErrorType::AllocationLimit
        | ufbx::ErrorType::OutOfMemory => K::MemoryLimit {
            limit_mib: options.memory_limit >> 20,
            detail,
        },
        ufbx::ErrorType::UnrecognizedFileFormat => K::NotFbx,
        _ if bytes.is_some_and(cut_short) => K::Truncated { detail },
        _ => K::Malformed { detail },
    };
    ImportError::new(file, kind)
}

/// Whether a binary FBX ends before its top-level records do. ufbx reports a cut inside a
/// compressed array as bad DEFLATE data, or as an empty file, and the file's own offsets say
/// more plainly that it was cut short. The layout (as the FBX SDK writes it, and ufbx reads
/// it): a 27-byte header (`Kaydara FBX Binary  `, NUL, 0x1A 0x00, version u32), then records
/// that start with the absolute offset of their end (u64 from version 7500, u32 before), then
/// a record of zeros. Reads at most every top-level record header; bounded by the length.
pub(crate) fn cut_short(bytes: &[u8]) -> bool {
    const MAGIC: &[u8] = b"Kaydara FBX Binary  \0";
    if bytes.len() < 27 || !bytes.starts_with(MAGIC) {
        return false;
    }
    let version = u32::from_le_bytes([bytes[23], bytes[24], bytes[25], bytes[26]]);
    let wide = version >= 7500;
    let field = if wide { 8 } else { 4 };
    let len = bytes.len() as u64;
    let mut at = 27u64;
    loop {
        // the end offset, property count, property bytes and name length
        if at + 3 * field + 1 > len {
            return true;
        }
        let i = at as usize;
        let end = if wide {
            let mut w = [0u8; 8];
            w.copy_from_slice(&bytes[i..i + 8]);
            u64::from_le_bytes(w)
        } else {
            u64::from(u32::from_le_bytes([
                bytes[i],
                bytes[i + 1],
                bytes[i + 2],
                bytes[i + 3],
            ]))
        };
        if end == 0 {
            return false;
        }
        if end > len {
            return true;
        }
        if end <= at {
            // not a cut: a damaged offset, which ufbx's own message describes
            return false;
        }
        at = end;
    }
}
