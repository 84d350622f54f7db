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
pub fn check(m: &naga::Module, name: &str, size: usize, offsets: &[usize]) {
    let (span, offs) = struct_layout(m, name).unwrap_or_else(|| panic!("no struct {name}"));
    assert_eq!(span as usize, size, "{name} size");
    let offs: Vec<usize> = offs.into_iter().map(|o| o as usize).collect();
    assert_eq!(offs, offsets, "{name} member offsets");
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
