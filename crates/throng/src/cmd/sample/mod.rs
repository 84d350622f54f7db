//! `throng sample`: skinned positions and normals in model space of every skinned primitive and
//! rigid part, at one clip time, from a source glTF (reference CPU skinning) or a baked asset
//! (the CPU decoder, which predicts what the GPU draws).
//!
//! `--out F.bin` writes the positions as little-endian f32 triples, primitive after primitive in
//! the order `--json` lists them.

mod baked;

use super::shared::{find_clip, load_model, print_stdout, write_atomic, InputArgs};
use anyhow::Context;
use baked::SampledPrimitive;
use serde_json::{json, Value};
use std::path::PathBuf;
use throng_anim::{ModelSkinner, Skinning};
use throng_asset::LoopMode;

#[derive(clap::Args)]
pub struct Args {
    // The input file and its source options, shared with the other command that reads either kind.
    #[command(flatten)]
    pub file: InputArgs,
    /// Clip name or index; without it the rest pose.
    #[arg(long)]
    pub clip: Option<String>,
    /// Clip time in seconds (past the end holds the last pose, before 0 the first).
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true, value_parser = super::shared::parse_finite)]
    pub time: f64,
    /// Skinning method: linear blend (lbs) or dual quaternion (dq).
    #[arg(long, value_enum, default_value_t = Skinning::Linear)]
    pub skinning: Skinning,
    /// Print every position and normal as JSON.
    #[arg(long, conflicts_with = "out")]
    pub json: bool,
    /// Write positions as little-endian f32 triples to this file.
    #[arg(short = 'o', long, visible_alias = "output")]
    pub out: Option<PathBuf>,
    /// Anchor name (baked assets): print its model-space transform instead.
    #[arg(long)]
    pub anchor: Option<String>,
    /// Baked assets with extracted root motion: leave it out of the output.
    #[arg(long)]
    pub no_root_motion: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    if let Some(out) = &args.out {
        super::shared::ensure_folder(out)?;
    }
    let baked = throng_asset::is_baked_file(&args.file.input);
    let query = baked::Query {
        input: &args.file.input,
        clip: args.clip.as_deref(),
        time: args.time,
        skinning: args.skinning,
        no_root_motion: args.no_root_motion,
    };
    if let Some(name) = &args.anchor {
        if !baked {
            anyhow::bail!(
                "{}: --anchor reads a baked asset's anchors and this is a source file; bake it with `throng bake --anchor NODE` (or --anchors auto) first",
                args.file.input.display()
            );
        }
        return baked::anchor(&query, name, args.json);
    }
    let prims = if baked {
        baked::sample(&query)?
    } else {
        sample_source(&args)?
    };
    emit(&args, &prims)
}

/// The source skinned on the CPU at full rate (throng-anim's reference), at the clip time held
/// at the clip's ends like the baked sample.
fn sample_source(args: &Args) -> anyhow::Result<Vec<SampledPrimitive>> {
    let model = load_model(&args.file.input, &args.file.source_args)?;
    let mut skinner = ModelSkinner::new(&model);
    if skinner.is_empty() {
        anyhow::bail!(
            "{}: nothing to animate (no skin and no mesh under a joint or an animated node)",
            args.file.input.display()
        );
    }
    let clip = args
        .clip
        .as_deref()
        .map(|c| find_clip(&model, c))
        .transpose()?;
    let time = clip.map_or(0.0, |c| {
        model.clips[c].local_time(LoopMode::Clamp, args.time)
    });
    let mut parts = Vec::new();
    skinner.skin(&model, clip, time as f32, args.skinning, &mut parts);
    Ok(parts
        .into_iter()
        .map(|p| SampledPrimitive {
            node_index: p.node,
            node: model.nodes[p.node].name.clone(),
            mesh: p.mesh,
            primitive: p.primitive,
            positions: p.vertices.positions,
            normals: p.vertices.normals,
        })
        .collect())
}

fn emit(args: &Args, prims: &[SampledPrimitive]) -> anyhow::Result<()> {
    if let Some(path) = &args.out {
        let mut bytes = Vec::new();
        for p in prims {
            for v in &p.positions {
                for c in v.to_array() {
                    bytes.extend_from_slice(&c.to_le_bytes());
                }
            }
        }
        write_atomic(path, &bytes).with_context(|| format!("writing {}", path.display()))?;
        let n: usize = prims.iter().map(|p| p.positions.len()).sum();
        eprintln!(
            "wrote {n} positions ({} bytes) to {}",
            bytes.len(),
            path.display()
        );
        return Ok(());
    }
    if args.json {
        let list: Vec<Value> = prims
            .iter()
            .map(|p| {
                json!({
                    "node_index": p.node_index,
                    "node": p.node,
                    "mesh": p.mesh,
                    "primitive": p.primitive,
                    "positions": p.positions.iter().map(|v| v.to_array()).collect::<Vec<_>>(),
                    "normals": p.normals.iter().map(|v| v.to_array()).collect::<Vec<_>>(),
                })
            })
            .collect();
        print_stdout(&serde_json::to_string(&json!({ "primitives": list }))?)?;
        return Ok(());
    }
    for p in prims {
        let (mut lo, mut hi) = (
            glam::Vec3::splat(f32::INFINITY),
            glam::Vec3::splat(f32::NEG_INFINITY),
        );
        for v in &p.positions {
            lo = lo.min(*v);
            hi = hi.max(*v);
        }
        println!(
            "node {:>3} {:<20} mesh {} prim {}: {} vertices, bounds {:?} .. {:?}",
            p.node_index,
            p.node.as_deref().unwrap_or("-"),
            p.mesh,
            p.primitive,
            p.positions.len(),
            lo.to_array(),
            hi.to_array()
        );
    }
    Ok(())
}
