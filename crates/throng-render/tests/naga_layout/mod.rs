//! naga's view of composed WGSL against Rust layouts, for the layout tests of both
//! embeddings (throng-render's `tests/shaders.rs`, and throng-bevy's, which includes this file):
//! a struct's size and member offsets, and the vertex inputs an entry point reads against the
//! shared vertex stream (`throng_asset::gpu::GpuVertex`).

/// Size and member offsets (bytes) of a WGSL struct, from naga's layouter. Names of imported
/// structs carry the composer's module decoration after the item name.
pub fn struct_layout(module: &naga::Module, name: &str) -> Option<(u32, Vec<u32>)> {
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

/// WGSL struct `name` of `m` has `size` bytes and members at `offsets`.
/// The size of WGSL struct `name` (bytes).
#[allow(dead_code)] // throng-bevy's tests share this file and check no such struct
pub fn struct_size(m: &naga::Module, name: &str) -> usize {
    struct_layout(m, name)
        .unwrap_or_else(|| panic!("no struct {name}"))
        .0 as usize
}

pub fn check(m: &naga::Module, name: &str, size: usize, offsets: &[usize]) {
    let (span, offs) = struct_layout(m, name).unwrap_or_else(|| panic!("no struct {name}"));
    assert_eq!(span as usize, size, "{name} size");
    let offs: Vec<usize> = offs.into_iter().map(|o| o as usize).collect();
    assert_eq!(offs, offsets, "{name} member offsets");
}

/// The layout (size, member offsets) of each struct both embeddings upload unchanged: the
/// contract's (throng-contract) and the shared GPU modules' (throng-asset's `gpu`), by their
/// WGSL names. Written once so that each crate's test only names what its programs compose.
pub fn shared_layout(name: &str) -> Option<(usize, Vec<usize>)> {
    use std::mem::{offset_of, size_of};
    use throng_asset::gpu::cull::DrawIndexedArgs;
    use throng_asset::gpu::{
        BoneParams, MaterialSet, MaterialUniform, PaletteEntry, PaletteJob, TimingUniform,
        VatParams,
    };
    use throng_contract::graph_step::GraphStepParams as P;
    use throng_contract::{
        Appearance, GpuClip, GpuInstanceRecord, GpuLayer, InstanceRecord, InstanceTransform, Layer,
    };
    Some(match name {
        "Layer" => (size_of::<Layer>(), vec![0, 4, 8, 12]),
        "GraphStepParams" => (
            size_of::<P>(),
            vec![
                offset_of!(P, len),
                offset_of!(P, stride),
                offset_of!(P, ticks_lo),
                offset_of!(P, ticks_hi),
                offset_of!(P, changes),
                offset_of!(P, clip_capacity),
                offset_of!(P, max_speed),
                offset_of!(P, states_at),
                offset_of!(P, clips_at),
                offset_of!(P, axes_at),
                offset_of!(P, transitions_at),
                offset_of!(P, conditions_at),
                offset_of!(P, lists_at),
                offset_of!(P, clip_events_at),
                offset_of!(P, events_at),
                offset_of!(P, state_capacity),
            ],
        ),
        "InstanceRecord" => (size_of::<InstanceRecord>(), vec![0]),
        "InstanceTransform" => (size_of::<InstanceTransform>(), vec![0]),
        "Clip" => (
            size_of::<GpuClip>(),
            vec![
                offset_of!(GpuClip, first_row),
                offset_of!(GpuClip, frames),
                offset_of!(GpuClip, times_offset),
                offset_of!(GpuClip, flags),
                offset_of!(GpuClip, bounds_min),
                offset_of!(GpuClip, bounds_max),
            ],
        ),
        "GpuLayer" => (
            size_of::<GpuLayer>(),
            vec![
                offset_of!(GpuLayer, anchor),
                offset_of!(GpuLayer, phase),
                offset_of!(GpuLayer, omega_hi),
                offset_of!(GpuLayer, omega_lo),
                offset_of!(GpuLayer, clip_mode),
            ],
        ),
        "GpuInstanceRecord" => (
            size_of::<GpuInstanceRecord>(),
            vec![
                offset_of!(GpuInstanceRecord, layers),
                offset_of!(GpuInstanceRecord, w_anchor),
                offset_of!(GpuInstanceRecord, w_start),
                offset_of!(GpuInstanceRecord, w_rate),
                offset_of!(GpuInstanceRecord, flags),
            ],
        ),
        "Timing" => (
            size_of::<TimingUniform>(),
            vec![
                offset_of!(TimingUniform, clock),
                offset_of!(TimingUniform, _pad),
                offset_of!(TimingUniform, _pad) + 4,
                offset_of!(TimingUniform, _pad) + 8,
            ],
        ),
        "BoneParams" => (
            size_of::<BoneParams>(),
            vec![
                offset_of!(BoneParams, entries),
                offset_of!(BoneParams, rows),
                offset_of!(BoneParams, rows_per_layer),
                offset_of!(BoneParams, clip_count),
                offset_of!(BoneParams, translation_range),
                offset_of!(BoneParams, scale_range),
                offset_of!(BoneParams, _pad),
                offset_of!(BoneParams, _pad) + 4,
            ],
        ),
        "PaletteEntry" => (
            size_of::<PaletteEntry>(),
            vec![
                offset_of!(PaletteEntry, a),
                offset_of!(PaletteEntry, b),
                offset_of!(PaletteEntry, c),
            ],
        ),
        "PaletteJob" => (
            size_of::<PaletteJob>(),
            vec![
                offset_of!(PaletteJob, instances),
                offset_of!(PaletteJob, list_base),
                offset_of!(PaletteJob, count_word),
                offset_of!(PaletteJob, _pad),
            ],
        ),
        "VatParams" => (
            size_of::<VatParams>(),
            vec![
                offset_of!(VatParams, encoding),
                offset_of!(VatParams, width),
                offset_of!(VatParams, rows_per_frame),
                offset_of!(VatParams, rows_per_layer),
                offset_of!(VatParams, min),
                offset_of!(VatParams, max),
            ],
        ),
        "Material" => (
            size_of::<MaterialUniform>(),
            vec![
                offset_of!(MaterialUniform, base_color),
                offset_of!(MaterialUniform, uv_row0),
                offset_of!(MaterialUniform, uv_row1),
            ],
        ),
        "MaterialSet" => (
            size_of::<MaterialSet>(),
            vec![
                offset_of!(MaterialSet, part),
                offset_of!(MaterialSet, prop),
                offset_of!(MaterialSet, count),
                offset_of!(MaterialSet, _pad),
                offset_of!(MaterialSet, layers),
                offset_of!(MaterialSet, slots),
            ],
        ),
        "Appearance" => (
            size_of::<Appearance>(),
            vec![
                offset_of!(Appearance, tint),
                offset_of!(Appearance, parts),
                offset_of!(Appearance, variant),
                offset_of!(Appearance, props),
            ],
        ),
        "FarParams" => {
            use throng_asset::gpu::far::FarParams;
            (
                size_of::<FarParams>(),
                vec![
                    offset_of!(FarParams, sphere),
                    offset_of!(FarParams, grid),
                    offset_of!(FarParams, elevation_bounds),
                ],
            )
        }
        "FarClip" => {
            use throng_asset::gpu::far::FarClipWords;
            (
                size_of::<FarClipWords>(),
                vec![
                    offset_of!(FarClipWords, first_frame),
                    offset_of!(FarClipWords, frames),
                    offset_of!(FarClipWords, looped),
                    offset_of!(FarClipWords, pad),
                ],
            )
        }
        "DrawArgs" => (
            size_of::<DrawIndexedArgs>(),
            vec![
                offset_of!(DrawIndexedArgs, index_count),
                offset_of!(DrawIndexedArgs, instance_count),
                offset_of!(DrawIndexedArgs, first_index),
                offset_of!(DrawIndexedArgs, base_vertex),
                offset_of!(DrawIndexedArgs, first_instance),
            ],
        ),
        _ => return None,
    })
}

/// Each of `names`, a struct of [`shared_layout`], has its Rust twin's layout in `m`.
pub fn check_shared(m: &naga::Module, names: &[&str]) {
    for name in names {
        let (size, offsets) =
            shared_layout(name).unwrap_or_else(|| panic!("{name} is not a shared struct"));
        check(m, name, size, &offsets);
    }
}

/// The vertex inputs an entry point reads, as (shader location, type).
pub fn vertex_inputs(module: &naga::Module, entry: &str) -> Vec<(u32, naga::TypeInner)> {
    let ep = module
        .entry_points
        .iter()
        .find(|e| e.name == entry)
        .unwrap_or_else(|| panic!("no entry point {entry}"));
    let mut out = Vec::new();
    let mut located = |binding: &Option<naga::Binding>, ty: naga::Handle<naga::Type>| {
        if let Some(naga::Binding::Location { location, .. }) = binding {
            out.push((*location, module.types[ty].inner.clone()));
        }
    };
    for arg in &ep.function.arguments {
        match &module.types[arg.ty].inner {
            naga::TypeInner::Struct { members, .. } => {
                for m in members {
                    located(&m.binding, m.ty);
                }
            }
            _ => located(&arg.binding, arg.ty),
        }
    }
    out
}

/// Every location `inputs` read is an attribute of the shared vertex stream
/// (`throng_asset::gpu::GpuVertex`), read as its type: a vector of as many components, floats
/// or unsigned integers as the attribute's format says.
pub fn check_vertex_inputs(what: &str, inputs: &[(u32, naga::TypeInner)]) {
    use throng_asset::gpu::GpuVertex;
    assert!(!inputs.is_empty(), "{what}: no vertex inputs");
    for (location, ty) in inputs {
        let a = GpuVertex::ATTRIBUTES
            .iter()
            .find(|a| a.location == *location)
            .unwrap_or_else(|| panic!("{what}: location {location} is no GpuVertex attribute"));
        let naga::TypeInner::Vector { size, scalar } = ty else {
            panic!("{what}: location {location} is {ty:?}, not a vector");
        };
        assert_eq!(
            *size as u32,
            a.format.components(),
            "{what}: location {location}"
        );
        let kind = if a.format.is_float() {
            naga::ScalarKind::Float
        } else {
            naga::ScalarKind::Uint
        };
        assert_eq!(scalar.kind, kind, "{what}: location {location}");
        assert_eq!(scalar.width, 4, "{what}: location {location}");
    }
}
