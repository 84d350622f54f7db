//! Stage: the baked primitives (docs/design.md §3 "Influences", "Meshes"). Every primitive of
//! every mesh binding of the palette, checked, with its influences remapped into the palette,
//! merged, sorted, cut to K and quantised ([`crate::influences`]); beside them the reference
//! skin (every influence, for measuring) and the repairs made, for the report.

use crate::error::BakeError;
use crate::influences::{cut_vertex, merge_and_sort};
use crate::options::BakeOptions;
use crate::palette::Palette;
use crate::reference::ReferenceSkin;
use throng_anim::{Influences, Model};
use throng_asset::BakedPrimitive;

/// What the stage gives the rest of the bake.
pub struct Primitives {
    /// Materials still in source indices ([`crate::materials`] renumbers them).
    pub baked: Vec<BakedPrimitive>,
    pub reference: ReferenceSkin,
    pub stats: InfluenceStats,
    /// The repairs and cuts made, and the meshes left out, one sentence each.
    pub warnings: Vec<String>,
}

/// The influence repairs of docs/design.md §2 and the K-influence cut, counted over every vertex.
#[derive(Debug, Clone, Copy)]
pub struct InfluenceStats {
    /// Vertices whose weights were all zero (bound to their skin's first joint).
    pub zero: usize,
    /// Vertices whose weights did not sum to 1, and the sum farthest from 1.
    pub renormalised: usize,
    pub worst_sum: f32,
    /// Vertices with more than K influences, and the largest (normalised) weight cut off.
    pub lost: usize,
    pub max_dropped: f32,
}

/// Builds every primitive that `palette`'s bindings move, with `options.influences` influences
/// per vertex. Errors name the node, mesh and primitive whose data is inconsistent.
pub fn build(
    model: &Model,
    palette: &Palette,
    options: &BakeOptions,
) -> Result<Primitives, BakeError> {
    let file = options.source_name.as_str();
    let k = options.influences as usize;
    let mut baked = Vec::new();
    let mut reference = ReferenceSkin::new();
    let mut stats = InfluenceStats {
        zero: 0,
        renormalised: 0,
        worst_sum: 1.0,
        lost: 0,
        max_dropped: 0.0,
    };
    let mut empty = Vec::new();
    for (bi, b) in palette.bindings.iter().enumerate() {
        let node_name = model.nodes[b.node].display_name(b.node);
        for (pi, prim) in model.meshes[b.mesh].primitives.iter().enumerate() {
            let bad = |what: String| BakeError::BadPrimitive {
                file: file.to_string(),
                node: node_name.clone(),
                mesh: b.mesh,
                primitive: pi,
                what,
            };
            check(prim).map_err(bad)?;
            if prim.vertex_count() == 0 {
                // Nothing to draw or to measure; an asset of empty primitives would bake
                // silently and show nothing.
                empty.push(format!(
                    "mesh {} primitive {pi} (node '{node_name}')",
                    b.mesh
                ));
                continue;
            }
            let (infl, rep) = throng_anim::binding_influences(b, prim);
            stats.zero += rep.zero_weight_vertices;
            stats.renormalised += rep.renormalised_vertices;
            if (rep.worst_sum - 1.0).abs() > (stats.worst_sum - 1.0).abs() {
                stats.worst_sum = rep.worst_sum;
            }
            reference.positions.extend_from_slice(&prim.positions);
            let (joints, weights) = remap(&infl, palette, bi, k, &mut reference, &mut stats)
                .map_err(|(vtx, j)| {
                    bad(format!(
                        "vertex {vtx} uses joint {j}, which its skin does not have"
                    ))
                })?;
            baked.push(BakedPrimitive {
                node_index: b.node,
                mesh: b.mesh,
                primitive: pi,
                rigid: matches!(b.kind, throng_anim::BindingKind::Rigid),
                positions: prim.positions.clone(),
                normals: prim.normals.clone(),
                tangents: prim.tangents.clone(),
                uv0: prim.uv0.clone(),
                influences: k as u32,
                joints,
                weights,
                indices: prim.indices.clone(),
                material: prim.material,
                lods: Vec::new(),
                vat: None,
            });
        }
    }
    if baked.is_empty() && !empty.is_empty() {
        return Err(BakeError::NothingToAnimate {
            file: file.to_string(),
            why: format!(
                "every primitive it would bake has no vertices ({})",
                list_some(&empty)
            ),
        });
    }
    let mut warnings = influence_warnings(&stats, options.influences);
    if !empty.is_empty() {
        warnings.push(format!(
            "{} primitive(s) have no vertices and are left out: {}",
            empty.len(),
            list_some(&empty)
        ));
    }
    warnings.extend(static_mesh_warning(model));
    Ok(Primitives {
        baked,
        reference,
        stats,
        warnings,
    })
}

/// Attribute counts, indices and influence sets must agree with the positions.
fn check(prim: &throng_anim::Primitive) -> Result<(), String> {
    let v = prim.vertex_count();
    if prim.normals.len() != v
        || prim.tangents.as_ref().is_some_and(|t| t.len() != v)
        || prim.uv0.as_ref().is_some_and(|t| t.len() != v)
    {
        return Err("attribute counts differ from the position count".into());
    }
    if let Some(i) = prim.indices.iter().find(|&&i| i as usize >= v) {
        return Err(format!("index {i} is out of range ({v} vertices)"));
    }
    if prim.joint_sets.iter().any(|s| s.len() != v) || prim.weight_sets.iter().any(|s| s.len() != v)
    {
        return Err("a JOINTS_n/WEIGHTS_n set has the wrong length".into());
    }
    Ok(())
}

/// Remaps one primitive's influences into the palette, merging, sorting and cutting to K: the
/// baked joints and weights (K per vertex); every influence goes on to `reference`. Errors with
/// (vertex, joint) for a joint the skin does not have.
fn remap(
    infl: &Influences,
    palette: &Palette,
    binding: usize,
    k: usize,
    reference: &mut ReferenceSkin,
    stats: &mut InfluenceStats,
) -> Result<(Vec<u16>, Vec<u16>), (usize, u16)> {
    let n = infl.vertex_count();
    let (mut joints, mut weights) = (Vec::with_capacity(n * k), Vec::with_capacity(n * k));
    let mut list = Vec::new();
    for v in 0..n {
        list.clear();
        for (j, w) in infl.of(v) {
            let e = palette.entry_of(binding, j).ok_or((v, j))?;
            list.push((e, w));
        }
        merge_and_sort(&mut list);
        for &(e, w) in &list {
            reference.entries.push(e);
            reference.weights.push(w);
        }
        reference.offsets.push(reference.entries.len() as u32);
        let (j, w, dropped) = cut_vertex(&list, k);
        if list.len() > k {
            stats.lost += 1;
            stats.max_dropped = stats.max_dropped.max(dropped);
        }
        joints.extend_from_slice(&j);
        weights.extend_from_slice(&w);
    }
    Ok((joints, weights))
}

/// The first five of `items`, then "…" when there are more.
fn list_some(items: &[String]) -> String {
    let shown: Vec<&str> = items.iter().take(5).map(String::as_str).collect();
    format!(
        "{}{}",
        shown.join(", "),
        if items.len() > 5 { ", …" } else { "" }
    )
}

/// A warning naming the meshes nothing animates (no skin, not under a joint or an animated
/// node): the bake holds only what moves, so they are not in the asset.
fn static_mesh_warning(model: &Model) -> Option<String> {
    let mut moved = vec![false; model.nodes.len()];
    for b in model.mesh_bindings() {
        if let Some(m) = moved.get_mut(b.node) {
            *m = true;
        }
    }
    let still: Vec<String> = model
        .nodes
        .iter()
        .enumerate()
        .filter(|(i, n)| n.mesh.is_some() && !moved[*i])
        .map(|(i, n)| n.display_name(i))
        .collect();
    if still.is_empty() {
        return None;
    }
    let shown: Vec<&str> = still.iter().take(5).map(String::as_str).collect();
    Some(format!(
        "{} mesh node(s) that nothing animates are not baked (no skin, not under a joint or an animated node): {}{}; draw them as ordinary static meshes",
        still.len(),
        shown.join(", "),
        if still.len() > 5 { ", …" } else { "" }
    ))
}

/// The warnings of the influence repairs (docs/design.md §2).
fn influence_warnings(s: &InfluenceStats, influences: u32) -> Vec<String> {
    let mut w = Vec::new();
    if s.zero > 0 {
        w.push(format!(
            "{} vertices had all-zero weights and were bound to their skin's first joint",
            s.zero
        ));
    }
    if s.renormalised > 0 {
        w.push(format!(
            "{} vertices had weights not summing to 1 (worst sum {:.4}); renormalised",
            s.renormalised, s.worst_sum
        ));
    }
    if s.lost > 0 {
        // More than 8 cannot be baked: only below 8 is there more to keep.
        let more = if influences < 8 {
            " (bake with 8 influences per vertex to keep more)"
        } else {
            ""
        };
        w.push(format!(
            "{} vertices have more than {influences} influences; the largest weight dropped is {:.4}{more}",
            s.lost, s.max_dropped
        ));
    }
    w
}
