//! Stage: the mesh extras (docs/design.md §3 "Meshes", "VAT"). LODs ([`crate::lod`], from
//! `options.lods`) and vertex animation textures ([`crate::vat`], from `options.vat`) of every
//! primitive. VATs are skinned from the poses, never additive deltas: a VAT shows the clip as
//! it is.

use crate::error::BakeError;
use crate::options::BakeOptions;
use glam::Mat4;
use rayon::prelude::*;
use throng_anim::Model;
use throng_asset::BakedPrimitive;

/// Adds the LODs and VATs `options` ask for to `prims`; `poses` are the sampled skin matrices
/// (`rows × entries`, row-major). A LOD the simplifier could not bring near its ratio adds a
/// warning.
pub fn attach(
    model: &Model,
    poses: &[Mat4],
    entries: usize,
    mut prims: Vec<BakedPrimitive>,
    options: &BakeOptions,
    warnings: &mut Vec<String>,
) -> Result<Vec<BakedPrimitive>, BakeError> {
    if !options.lods.is_empty() {
        prims.par_iter_mut().for_each(|p| {
            p.lods = crate::lod::build(&p.positions, &p.indices, &options.lods);
        });
        for (i, p) in prims.iter().enumerate() {
            warnings.extend(crate::lod::shortfalls(i, p.indices.len(), &p.lods));
        }
    }
    if let Some(encoding) = options.vat {
        let names = |n: usize| {
            model
                .nodes
                .get(n)
                .map(|x| x.display_name(n))
                .unwrap_or_else(|| format!("node{n}"))
        };
        let vats = crate::vat::build(
            &options.source_name,
            &names,
            poses,
            entries,
            &prims,
            encoding,
            options.max_texture_size,
        )?;
        for (p, v) in prims.iter_mut().zip(vats) {
            p.vat = Some(v);
        }
    }
    Ok(prims)
}
