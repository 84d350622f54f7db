//! Levels of detail (docs/design.md §3 "Meshes"): per primitive a simplified index buffer per asked
//! index-count ratio, made with meshoptimizer's simplifier (`meshopt_simplify`), into the *same*
//! vertex streams as LOD 0 — so a primitive's VAT and influences serve every LOD.
//!
//! Welding: the simplifier only collapses edges between vertices that share an index, and many
//! files (Fox among them) are triangle soups or split vertices at UV/normal seams. So the mesh is
//! first welded by position (vertices with bit-identical bind-space positions share the first
//! one's index, as `meshopt_generateShadowIndexBuffer` would), simplified, and each
//! corner of each kept triangle is mapped back to an original vertex of its position group that
//! an original triangle joined to one of the triangle's other corners (so UVs and normals come
//! from the same side of a seam); where no such edge existed, the group's first vertex is used.

use glam::Vec3;
use meshopt::SimplifyOptions;
use std::collections::HashMap;
use throng_asset::Lod;

/// Error limit handed to the simplifier (relative to the mesh extent): 1 lets it reach the
/// asked triangle count; the error it actually made is recorded per LOD.
const TARGET_ERROR: f32 = 1.0;

/// When the topology-preserving simplifier keeps more than 3/2 of the asked index count, the
/// sloppy simplifier is tried instead.
fn too_many(kept: usize, target: usize) -> bool {
    2 * kept > 3 * target.max(3)
}

/// Position-welded copy of `indices`: each index replaced by the first vertex with a
/// bit-identical position (what `meshopt_generateShadowIndexBuffer` does over positions; done
/// here because meshopt 0.7's `generate_shadow_indices_decoder` passes a vertex count three
/// times too large to the C library).
fn weld(pos: &[[f32; 3]], indices: &[u32]) -> Vec<u32> {
    let mut first: HashMap<[u32; 3], u32> = HashMap::with_capacity(pos.len());
    let rep: Vec<u32> = pos
        .iter()
        .enumerate()
        .map(|(i, p)| {
            *first
                .entry([p[0].to_bits(), p[1].to_bits(), p[2].to_bits()])
                .or_insert(i as u32)
        })
        .collect();
    indices.iter().map(|&i| rep[i as usize]).collect()
}

/// Checks LOD ratios: each in (0, 1), finite, and each smaller than the one before (LOD i + 1
/// is coarser than LOD i: culling picks the coarsest LOD whose error is small enough). Returns a
/// message for the first bad one.
pub fn check_ratios(ratios: &[f32]) -> Result<(), String> {
    if let Some(r) = ratios
        .iter()
        .find(|r| !(r.is_finite() && **r > 0.0 && **r < 1.0))
    {
        return Err(format!(
            "LOD ratio {r} must be an index-count ratio between 0 and 1 (exclusive)"
        ));
    }
    match ratios.windows(2).find(|w| w[1] >= w[0]) {
        Some(w) => Err(format!(
            "LOD ratios must decrease (each LOD coarser than the one before): {} follows {}",
            w[1], w[0]
        )),
        None => Ok(()),
    }
}

/// LODs that kept more than 3/2 of the triangles their ratio asks for, and 16 more (the
/// simplifiers could not reach it: a small or closed-off mesh), as warnings naming the
/// primitive.
pub fn shortfalls(primitive: usize, lod0_indices: usize, lods: &[Lod]) -> Vec<String> {
    lods.iter()
        .filter_map(|l| {
            let target = ((lod0_indices as f64 * l.ratio as f64) as usize / 3) * 3;
            // A few triangles over a tiny target are no news; a LOD far from its ratio is.
            let over = too_many(l.indices.len(), target) && l.indices.len() > target + 48;
            over.then(|| {
                format!(
                    "primitive {primitive}: LOD ratio {} asks for about {} triangles but the simplifier kept {} of {}; a larger ratio gives what it asks",
                    l.ratio,
                    target / 3,
                    l.indices.len() / 3,
                    lod0_indices / 3
                )
            })
        })
        .collect()
}

/// One LOD per ratio of the triangle list `indices` over `positions` (bind space, file units).
/// An empty mesh gets empty LODs.
pub fn build(positions: &[Vec3], indices: &[u32], ratios: &[f32]) -> Vec<Lod> {
    let pos: Vec<[f32; 3]> = positions.iter().map(|p| p.to_array()).collect();
    if pos.is_empty() || indices.len() < 3 {
        return ratios
            .iter()
            .map(|&ratio| Lod {
                ratio,
                indices: Vec::new(),
                error: 0.0,
            })
            .collect();
    }
    let welded = weld(&pos, indices);
    // (group of a corner, group of another corner of the same triangle) → original vertex of the
    // first corner; the first triangle seen wins (deterministic).
    let mut side: HashMap<(u32, u32), u32> = HashMap::new();
    for (t, w) in indices.chunks_exact(3).zip(welded.chunks_exact(3)) {
        for a in 0..3 {
            for b in 0..3 {
                if a != b {
                    side.entry((w[a], w[b])).or_insert(t[a]);
                }
            }
        }
    }
    ratios
        .iter()
        .map(|&ratio| {
            let target = ((indices.len() as f64 * ratio as f64) as usize / 3) * 3;
            let mut error = 0.0f32;
            let mut simplified = meshopt::simplify_decoder(
                &welded,
                &pos,
                target,
                TARGET_ERROR,
                SimplifyOptions::None,
                Some(&mut error),
            );
            // Topology can block edge collapses entirely (Fox: the welded mesh is non-manifold
            // where its soup's triangles meet with opposite windings). Then fall back to the
            // sloppy simplifier (`meshopt_simplifySloppy`, vertex clustering), which ignores
            // topology.
            // A target of a few triangles can cluster a small mesh to nothing: then the target is
            // doubled until something is left, so a LOD is never the whole mesh for want of a
            // non-empty result.
            let mut goal = target;
            while too_many(simplified.len(), target) && goal < simplified.len() {
                let mut e = 0.0f32;
                let sloppy = meshopt::simplify_sloppy_decoder(
                    &welded,
                    &pos,
                    goal,
                    TARGET_ERROR,
                    Some(&mut e),
                );
                if !sloppy.is_empty() {
                    if sloppy.len() < simplified.len() {
                        simplified = sloppy;
                        error = e;
                    }
                    break;
                }
                goal = (goal * 2).max(3);
            }
            let mut out = Vec::with_capacity(simplified.len());
            for tri in simplified.chunks_exact(3) {
                for a in 0..3 {
                    let (b, c) = (tri[(a + 1) % 3], tri[(a + 2) % 3]);
                    let v = side
                        .get(&(tri[a], b))
                        .or_else(|| side.get(&(tri[a], c)))
                        .copied()
                        .unwrap_or(tri[a]);
                    out.push(v);
                }
            }
            Lod {
                ratio,
                indices: out,
                error,
            }
        })
        .collect()
}
