//! `throng sample`: skinned positions and normals in model space of every skinned primitive and
//! rigid part, at one clip time, from a source glTF (reference CPU skinning) or a baked asset
//! (the CPU decoder, which predicts what the GPU draws).
//!
//! `--out F.bin` writes the positions as little-endian f32 triples, primitive after primitive in
//! the order `--json` lists them.

use super::source::{find_clip, is_baked, load_model};
use anyhow::Context;
use serde_json::{json, Value};
use std::path::PathBuf;
use throng_anim::{binding_influences, binding_matrices, skin_primitive, Poser, SkinnedVertices};

#[derive(clap::Args)]
pub struct Args {
    /// A glTF file (.gltf/.glb) or a baked throng asset (.glb).
    pub input: PathBuf,
    /// Animation-only glTF files whose clips bind to this skeleton by joint name (repeatable).
    #[arg(long = "clips", value_name = "OTHER")]
    pub clips: Vec<PathBuf>,
    /// Clip name or index; without it the rest pose.
    #[arg(long)]
    pub clip: Option<String>,
    /// Clip time in seconds (past the end holds the last pose, before 0 the first).
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true, value_parser = super::parse_finite)]
    pub time: f64,
    /// Skinning method: linear blend (lbs) or dual quaternion (dq).
    #[arg(long, default_value = "lbs", value_parser = ["lbs", "dq"])]
    pub skinning: String,
    /// Print every position and normal as JSON.
    #[arg(long, conflicts_with = "out")]
    pub json: bool,
    /// Write positions as little-endian f32 triples to this file.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Anchor name (baked assets): print its model-space transform instead.
    #[arg(long)]
    pub anchor: Option<String>,
    /// Baked assets with extracted root motion: leave it out of the output.
    #[arg(long)]
    pub no_root_motion: bool,
}

/// One sampled primitive, keyed like the source file.
pub struct SampledPrimitive {
    pub node_index: usize,
    pub node: Option<String>,
    pub mesh: usize,
    pub primitive: usize,
    pub positions: Vec<glam::Vec3>,
    pub normals: Vec<glam::Vec3>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    if let Some(name) = &args.anchor {
        if !is_baked(&args.input) {
            anyhow::bail!(
                "{}: --anchor reads a baked asset's anchors and this is a source file; bake it with `throng bake --anchor NODE` (or --anchors auto) first",
                args.input.display()
            );
        }
        return super::sample_baked::anchor(&args, name);
    }
    let prims = if is_baked(&args.input) {
        super::sample_baked::sample(&args)?
    } else {
        sample_source(&args)?
    };
    emit(&args, &prims)
}

fn sample_source(args: &Args) -> anyhow::Result<Vec<SampledPrimitive>> {
    let model = load_model(&args.input, &args.clips)?;
    let bindings = model.mesh_bindings();
    if bindings.is_empty() {
        anyhow::bail!(
            "{}: nothing to animate (no skin and no mesh under a joint or an animated node)",
            args.input.display()
        );
    }
    let clip = args
        .clip
        .as_deref()
        .map(|c| find_clip(&model, c))
        .transpose()?;
    let method = match args.skinning.as_str() {
        "dq" => throng_anim::Skinning::DualQuat,
        _ => throng_anim::Skinning::Linear,
    };
    let mut poser = Poser::new(&model);
    let model_space = poser.pose(&model, clip, args.time as f32).to_vec();
    let mut matrices = Vec::new();
    let mut out = Vec::new();
    for b in &bindings {
        binding_matrices(&model, b, &model_space, &mut matrices);
        for (pi, prim) in model.meshes[b.mesh].primitives.iter().enumerate() {
            let (inf, _) = binding_influences(b, prim);
            let mut sv = SkinnedVertices::default();
            skin_primitive(method, prim, &inf, &matrices, &mut sv);
            out.push(SampledPrimitive {
                node_index: b.node,
                node: model.nodes[b.node].name.clone(),
                mesh: b.mesh,
                primitive: pi,
                positions: sv.positions,
                normals: sv.normals,
            });
        }
    }
    Ok(out)
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
        super::write_atomic(path, &bytes).with_context(|| format!("writing {}", path.display()))?;
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
        super::print_stdout(&serde_json::to_string(&json!({ "primitives": list }))?)?;
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
