//! `throng sample` of a baked asset: positions decoded from the baked data by throng-asset's CPU
//! decoder (the twin of the shaders), with the same clip indices, primitive keys and time
//! semantics as sampling the source.

use anyhow::Context;
use std::path::Path;
use throng_asset::decode::{blended_anchor_matrix, skin_vertices, Skinning};
use throng_asset::{BakedAsset, Layer};

use crate::cmd::shared::{find_baked_clip, print_stdout};

/// One sampled primitive, keyed like the source file.
pub struct SampledPrimitive {
    pub node_index: usize,
    pub node: Option<String>,
    pub mesh: usize,
    pub primitive: usize,
    pub positions: Vec<glam::Vec3>,
    pub normals: Vec<glam::Vec3>,
}

/// What to sample of a baked asset.
pub struct Query<'a> {
    pub input: &'a Path,
    pub clip: Option<&'a str>,
    /// Clip time, seconds (held at the clip's ends).
    pub time: f64,
    pub skinning: Skinning,
    /// Leave the extracted root motion out.
    pub no_root_motion: bool,
}

/// The single full-weight layer that shows `clip` at `time` seconds: times past the end hold the
/// last frame and times before 0 the first (the time rules' `clamp`), as when sampling the
/// source. `None` = rest row.
pub fn layer_at(asset: &BakedAsset, clip: Option<usize>, time: f64) -> Vec<Layer> {
    let Some(c) = clip.and_then(|c| asset.clips.get(c).map(|info| (c, info))) else {
        return Vec::new();
    };
    let (index, info) = c;
    let f = info
        .frames_table()
        .sample(throng_asset::LoopMode::Clamp, time);
    vec![Layer {
        weight: 1.0,
        frac: f.frac,
        row: f.row as f32,
        clip: index as u32,
    }]
}

pub fn sample(q: &Query) -> anyhow::Result<Vec<SampledPrimitive>> {
    let asset = throng_asset::read(q.input)?;
    let clip = q.clip.map(|c| find_baked_clip(&asset, c)).transpose()?;
    let layers = layer_at(&asset, clip, q.time);
    let mode = q.skinning;
    let motion = if q.no_root_motion {
        None
    } else {
        root_motion(&asset, &layers)
    };
    let mut out = Vec::with_capacity(asset.primitives.len());
    for (i, p) in asset.primitives.iter().enumerate() {
        let mut sv = skin_vertices(&asset, i, &layers, mode)
            .with_context(|| format!("{}: primitive {i}", q.input.display()))?;
        if let Some(g) = motion {
            // G is a rotation about +Y plus a translation: normals take its rotation only.
            sv.positions
                .iter_mut()
                .for_each(|p| *p = g.transform_point3(*p));
            sv.normals
                .iter_mut()
                .for_each(|n| *n = g.transform_vector3(*n));
        }
        let node = asset
            .palette
            .iter()
            .find(|e| e.node == p.node_index)
            .map(|e| e.name.clone());
        out.push(SampledPrimitive {
            node_index: p.node_index,
            node,
            mesh: p.mesh,
            primitive: p.primitive,
            positions: sv.positions,
            normals: sv.normals,
        });
    }
    Ok(out)
}

/// The extracted root motion `G` (docs/design.md §2) of the single layer's clip at its row and frac,
/// `None` for the rest pose or a clip without root motion. Baked data is `G⁻¹ · source`.
fn root_motion(asset: &BakedAsset, layers: &[Layer]) -> Option<glam::Mat4> {
    let l = layers.first()?;
    let clip = asset.clips.get(l.clip_index() as usize)?;
    let frame = (l.row as u32).checked_sub(clip.first_row)?;
    throng_bake::root_motion::motion_at(clip, frame, l.frac)
}

/// `throng sample BAKED --anchor NAME`: the anchor's model-space transform at the clip time,
/// interpolated between rows like skin matrices (`throng_asset::decode::blended_anchor_matrix`),
/// with the extracted root motion put back unless `--no-root-motion`.
pub fn anchor(q: &Query, name: &str, json: bool) -> anyhow::Result<()> {
    let asset = throng_asset::read(q.input)?;
    let Some(at) = asset.anchors.as_ref() else {
        anyhow::bail!(
            "{}: the asset has no anchors; bake it with --anchor NODE or --anchors auto",
            q.input.display()
        );
    };
    let index = at
        .anchors
        .iter()
        .position(|a| a.name == name)
        .with_context(|| {
            let names: Vec<&str> = at.anchors.iter().map(|a| a.name.as_str()).collect();
            format!(
                "{}: no anchor named {name:?}; the asset has: {}",
                q.input.display(),
                names.join(", ")
            )
        })?;
    let clip = q.clip.map(|c| find_baked_clip(&asset, c)).transpose()?;
    let layers = layer_at(&asset, clip, q.time);
    let mut m = if layers.is_empty() {
        at.matrix(index, 0)
    } else {
        blended_anchor_matrix(&asset, index, &layers)
            .with_context(|| format!("{}: anchor {name:?}", q.input.display()))?
            .with_context(|| format!("{}: anchor {name:?} is missing", q.input.display()))?
    };
    if !q.no_root_motion {
        if let Some(g) = root_motion(&asset, &layers) {
            m = g * m;
        }
    }
    if json {
        let v = serde_json::json!({
            "anchor": name,
            "node": at.anchors[index].node,
            "clip": clip.map(|c| asset.clips[c].name.clone()),
            "time": q.time,
            "matrix": m.to_cols_array(),
        });
        return print_stdout(&v.to_string()).map_err(Into::into);
    }
    println!(
        "anchor {name} (node {}) at {} t = {} s, model space (rows of the affine part):",
        at.anchors[index].node,
        clip.map(|c| format!("clip {}", asset.clips[c].name))
            .unwrap_or_else(|| "rest pose".into()),
        q.time
    );
    let r = m.transpose();
    for row in [r.x_axis, r.y_axis, r.z_axis] {
        println!(
            "  {:>12.6} {:>12.6} {:>12.6} {:>12.6}",
            row.x, row.y, row.z, row.w
        );
    }
    Ok(())
}
