//! `throng sample` of a baked asset: positions decoded from the baked data by throng-asset's CPU
//! decoder (the twin of the shaders), with the same clip indices, primitive keys and time
//! semantics as sampling the source.

use super::sample::{Args, SampledPrimitive};
use anyhow::Context;
use throng_asset::decode::{skin_vertices, SkinMode};
use throng_asset::{BakedAsset, Layer};

/// The single full-weight layer that shows `clip` at `time` seconds: times past the end hold the
/// last frame and times before 0 the first, as when sampling the source. `None` = rest row.
pub fn layer_at(asset: &BakedAsset, clip: Option<usize>, time: f64) -> Vec<Layer> {
    let Some(c) = clip.and_then(|c| asset.clips.get(c).map(|info| (c, info))) else {
        return Vec::new();
    };
    let (index, info) = c;
    let f = info.frame_at(time.clamp(0.0, info.duration));
    vec![Layer {
        weight: 1.0,
        frac: f.frac,
        row: f.row as f32,
        clip: index as f32,
    }]
}

/// Finds a clip of a baked asset by name or index, listing the clips when there is none.
pub fn find_baked_clip(asset: &BakedAsset, clip: &str) -> anyhow::Result<usize> {
    asset.find_clip(clip).with_context(|| {
        let names: Vec<String> = asset
            .clips
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{i}: {}", c.name))
            .collect();
        format!(
            "no clip named or numbered {clip:?}; the asset has {} clip(s): {}",
            names.len(),
            names.join(", ")
        )
    })
}

pub fn sample(args: &Args) -> anyhow::Result<Vec<SampledPrimitive>> {
    let asset = throng_asset::read(&args.input)?;
    let clip = args
        .clip
        .as_deref()
        .map(|c| find_baked_clip(&asset, c))
        .transpose()?;
    let layers = layer_at(&asset, clip, args.time);
    let mode = match args.skinning.as_str() {
        "dq" => SkinMode::DualQuaternion,
        _ => SkinMode::Linear,
    };
    let mut out = Vec::with_capacity(asset.primitives.len());
    for (i, p) in asset.primitives.iter().enumerate() {
        let sv = skin_vertices(&asset, i, &layers, mode)
            .with_context(|| format!("{}: primitive {i}", args.input.display()))?;
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
