//! `KHR_materials_variants` (Khronos ratified extension): the variant names at the root
//! (`extensions.KHR_materials_variants.variants`) and, per primitive, which material each
//! variant shows (`extensions.KHR_materials_variants.mappings`: `{material, variants: [...]}`).
//!
//! Parsed by `gltf-json`'s own types (its `KHR_materials_variants` feature); indices are checked
//! here. Per case: an index that points nowhere is an error (which material or variant was meant
//! is unknowable); a name that is empty or repeats, and a variant listed twice for one primitive,
//! are repaired with a warning (the extension's schema forbids the latter, but the first mapping
//! is what other importers show).

use std::collections::BTreeMap;

use crate::error::{ImportError, ImportErrorKind as K};
use crate::Ctx;

const EXT: &str = "KHR_materials_variants";

/// The variant names, in file order. An empty name becomes `variant N`, and a name already
/// taken gets ` (2)`, ` (3)`, … appended, each with a warning, so that every variant can be
/// picked by name.
pub(crate) fn read_names(ctx: &mut Ctx) -> Vec<String> {
    let src = ctx.src;
    let Some(ext) = src
        .root
        .extensions
        .as_ref()
        .and_then(|e| e.khr_materials_variants.as_ref())
    else {
        return Vec::new();
    };
    let mut names: Vec<String> = Vec::with_capacity(ext.variants.len());
    for (i, v) in ext.variants.iter().enumerate() {
        let mut name = v.name.trim().to_string();
        if name.is_empty() {
            name = format!("variant {i}");
            ctx.warn(format!(
                "{EXT} variant {i} has an empty name; it is called {name:?}"
            ));
        }
        if names.contains(&name) {
            let unique = (2..)
                .map(|k| format!("{name} ({k})"))
                .find(|n| !names.contains(n))
                .unwrap_or_default();
            ctx.warn(format!(
                "{EXT} variant {i} repeats the name {name:?}; it is called {unique:?} (rename it in the source so it can be picked by its own name)"
            ));
            name = unique;
        }
        names.push(name);
    }
    names
}

/// The number of variants the root declares.
fn declared(ctx: &Ctx) -> usize {
    ctx.src
        .root
        .extensions
        .as_ref()
        .and_then(|e| e.khr_materials_variants.as_ref())
        .map_or(0, |v| v.variants.len())
}

/// The `(variant, material)` pairs of one primitive (named `element` in messages), sorted by
/// variant.
pub(crate) fn read_mappings(
    ctx: &mut Ctx,
    jp: &gltf_json::mesh::Primitive,
    element: &str,
) -> Result<Vec<(usize, usize)>, ImportError> {
    let variants = declared(ctx);
    let Some(ext) = jp
        .extensions
        .as_ref()
        .and_then(|e| e.khr_materials_variants.as_ref())
    else {
        return Ok(Vec::new());
    };
    let materials = ctx.src.root.materials.len();
    let mut chosen: BTreeMap<usize, usize> = BTreeMap::new();
    for (mi, mapping) in ext.mappings.iter().enumerate() {
        let at = format!("{element} {EXT} mapping {mi}");
        let material = ctx.check_index(&at, "material", mapping.material as usize, materials)?;
        for &v in &mapping.variants {
            let v = v as usize;
            if v >= variants {
                let declared = if variants == 0 {
                    format!("the file declares no variants (root extensions.{EXT} is missing)")
                } else {
                    format!("the file declares variants 0..{}", variants - 1)
                };
                return Err(ctx.err(K::BadReference {
                    element: at,
                    target: format!("variant {v} ({declared})"),
                }));
            }
            if let Some(&first) = chosen.get(&v) {
                ctx.warn(format!(
                    "{at} maps variant {v} again (already to material {first}); the first mapping is kept"
                ));
                continue;
            }
            chosen.insert(v, material);
        }
    }
    Ok(chosen.into_iter().collect())
}
