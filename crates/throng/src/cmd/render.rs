//! `throng render`: a headless picture of a crowd, written as PNG.
//!
//! - A baked asset is drawn by the GPU with the texture skinning path (the bone texture read in
//!   the vertex shader), with `--path vat` from its vertex animation textures, or with
//!   `--path reference` from the CPU decoder's skinned vertices (what the GPU should draw,
//!   uploaded per frame). Instances outside the view are culled on the GPU unless `--no-cull`.
//! - A source glTF is drawn with the reference path: every animated primitive skinned on the CPU
//!   from full-rate glTF evaluation (throng-anim), the baseline the bake is measured against.
//!
//! Instances stand on a grid facing +Z; instance i shows the clip at `time + i · stagger`
//! seconds. Runs on any adapter wgpu finds; without a GPU that is Mesa's lavapipe (software
//! Vulkan: `apt-get install mesa-vulkan-drivers libvulkan1`).

use anyhow::Context;
use glam::{Mat4, Vec3};
use std::path::PathBuf;
use std::time::Instant;
use throng_asset::decode::{skin_vertices, SkinMode};
use throng_asset::{Aabb, BakedAsset, ClipInfo, Layer, LoopMode};
use throng_render::gpu_types::{LayerRecord, MaterialUniform};

/// Base colour of primitives without a material (linear).
const GREY: [f32; 4] = [0.6, 0.6, 0.62, 1.0];
use throng_render::{
    InstanceTransform, ReferenceMesh, RenderOptions, Renderer, SkinPath, Skinning,
};

use super::source::{find_clip, is_baked, load_model};

#[derive(clap::Args)]
pub struct Args {
    /// A baked throng asset (.glb), or a source glTF (.gltf/.glb: drawn with CPU skinning).
    pub input: PathBuf,
    /// Output PNG (default: the input's name with `.png`).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Clip name or index; without it the first clip (the rest pose when there is none).
    #[arg(long)]
    pub clip: Option<String>,
    /// Clip time in seconds (wrapped or held by the clip's loop mode).
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    pub time: f64,
    /// Number of instances, on a square grid.
    #[arg(long, default_value_t = 1)]
    pub instances: u32,
    /// Seconds of clip time between consecutive instances.
    #[arg(long, default_value_t = 0.0)]
    pub stagger: f64,
    /// Baked assets: blend a second clip in as layer 1 (same time), with `--blend-weight`.
    #[arg(long)]
    pub blend: Option<String>,
    /// Weight of the `--blend` clip, 0..1.
    #[arg(long, default_value_t = 0.5)]
    pub blend_weight: f32,
    /// Image size in pixels, WIDTHxHEIGHT.
    #[arg(long, default_value = "512x512", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Skinning method: linear blend (lbs) or dual quaternion (dq, quat-* encodings).
    #[arg(long, default_value = "lbs", value_parser = ["lbs", "dq"])]
    pub skinning: String,
    /// Baked assets: `texture` (GPU skinning from the bone texture), `vat` (baked vertex
    /// animation textures; the asset must have them) or `reference` (CPU decoder, uploaded).
    #[arg(long, default_value = "texture", value_parser = ["texture", "vat", "reference"])]
    pub path: String,
    /// Draw every instance instead of culling against the view frustum on the GPU.
    #[arg(long)]
    pub no_cull: bool,
    /// Leave out the ground plane.
    #[arg(long)]
    pub no_ground: bool,
}

pub(crate) fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("{s:?}: expected WIDTHxHEIGHT, e.g. 512x512"))?;
    let p = |v: &str| {
        v.trim()
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=16384).contains(n))
            .ok_or_else(|| format!("{v:?}: expected a pixel count 1..=16384"))
    };
    Ok((p(w)?, p(h)?))
}

pub fn run(args: Args) -> anyhow::Result<()> {
    if args.instances == 0 {
        anyhow::bail!("--instances must be at least 1");
    }
    if !(0.0..=1.0).contains(&args.blend_weight) {
        anyhow::bail!(
            "--blend-weight must be within 0..1, got {}",
            args.blend_weight
        );
    }
    let skinning = match args.skinning.as_str() {
        "dq" => Skinning::DualQuat,
        _ => Skinning::Linear,
    };
    let opts = RenderOptions {
        width: args.size.0,
        height: args.size.1,
        skinning,
        ground: !args.no_ground,
        cull: !args.no_cull,
        path: if args.path == "vat" {
            SkinPath::Vat
        } else {
            SkinPath::Texture
        },
        ..Default::default()
    };
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| args.input.with_extension("png"));
    let mut renderer = Renderer::new().context("creating a GPU device")?;
    eprintln!("adapter: {}", renderer.adapter());
    let start = Instant::now();
    let image = if is_baked(&args.input) {
        render_baked(&args, &mut renderer, &opts)?
    } else {
        render_source(&args, &mut renderer, &opts)?
    };
    let took = start.elapsed();
    let mut png = Vec::new();
    image
        .write_to(
            &mut std::io::Cursor::new(&mut png),
            throng_render::image::ImageFormat::Png,
        )
        .context("encoding the PNG")?;
    super::write_atomic(&output, &png).with_context(|| format!("writing {}", output.display()))?;
    eprintln!(
        "wrote {} ({}×{}, {} instance(s), {:.0} ms)",
        output.display(),
        opts.width,
        opts.height,
        args.instances,
        took.as_secs_f64() * 1e3
    );
    Ok(())
}

/// Instance transforms on a square grid in the XZ plane, `spacing` apart, centred on the origin.
fn grid(n: u32, spacing: f32) -> Vec<InstanceTransform> {
    let cols = (n as f32).sqrt().ceil().max(1.0) as u32;
    let rows = n.div_ceil(cols);
    (0..n)
        .map(|i| {
            let x = (i % cols) as f32 - (cols - 1) as f32 * 0.5;
            let z = (i / cols) as f32 - (rows - 1) as f32 * 0.5;
            InstanceTransform::from_mat4(Mat4::from_translation(Vec3::new(x, 0.0, z) * spacing))
        })
        .collect()
}

/// Grid spacing for a model of `bounds`: 1.2 × its larger horizontal extent.
pub(crate) fn spacing(bounds: &Aabb) -> f32 {
    if bounds.is_empty() {
        return 1.0;
    }
    let e = bounds.max - bounds.min;
    (e.x.max(e.z) * 1.2).max(1e-3)
}

/// Local clip time per loop mode (DESIGN.md §4): loop wraps into [0, d), ping-pong reflects,
/// once and clamp hold within [0, d].
fn local_time(t: f64, d: f64, mode: LoopMode) -> f64 {
    if d <= 0.0 {
        return 0.0;
    }
    match mode {
        LoopMode::Loop => t.rem_euclid(d),
        LoopMode::PingPong => {
            let p = t.rem_euclid(2.0 * d);
            if p > d {
                2.0 * d - p
            } else {
                p
            }
        }
        LoopMode::Once | LoopMode::Clamp => t.clamp(0.0, d),
    }
}

fn layer(clip: &ClipInfo, index: usize, weight: f32, t: f64) -> Layer {
    let f = clip.frame_at(local_time(t, clip.duration, clip.loop_mode));
    Layer {
        weight,
        frac: f.frac,
        row: f.row as f32,
        clip: index as f32,
    }
}

fn baked_clip(asset: &BakedAsset, name: &str) -> anyhow::Result<usize> {
    asset.find_clip(name).ok_or_else(|| {
        let names: Vec<String> = asset
            .clips
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{i}: {}", c.name))
            .collect();
        anyhow::anyhow!(
            "{}: no clip named or numbered {name:?}; clips: {}",
            asset.source_name,
            if names.is_empty() {
                "none".into()
            } else {
                names.join(", ")
            }
        )
    })
}

fn render_baked(
    args: &Args,
    renderer: &mut Renderer,
    opts: &RenderOptions,
) -> anyhow::Result<throng_render::image::RgbaImage> {
    let asset = throng_asset::read(&args.input)?;
    let clip = match &args.clip {
        Some(c) => Some(baked_clip(&asset, c)?),
        None => (!asset.clips.is_empty()).then_some(0),
    };
    let blend = args
        .blend
        .as_deref()
        .map(|b| baked_clip(&asset, b))
        .transpose()?;
    let records: Vec<LayerRecord> = (0..args.instances)
        .map(|i| {
            let t = args.time + i as f64 * args.stagger;
            let mut r = [Layer::default(); 4];
            if let Some(c) = clip {
                let w1 = if blend.is_some() {
                    args.blend_weight
                } else {
                    0.0
                };
                r[0] = layer(&asset.clips[c], c, 1.0 - w1, t);
                if let Some(b) = blend {
                    r[1] = layer(&asset.clips[b], b, w1, t);
                }
            }
            r
        })
        .collect();
    let bounds = asset.row_bounds.iter().fold(Aabb::EMPTY, |a, b| a.union(b));
    let transforms = grid(args.instances, spacing(&bounds));
    if args.path != "reference" {
        let gpu_asset = renderer.upload(&asset)?;
        return Ok(renderer.render_texture(&gpu_asset, &transforms, &records, opts)?);
    }
    let mode = match opts.skinning {
        Skinning::DualQuat => SkinMode::DualQuaternion,
        Skinning::Linear => SkinMode::Linear,
    };
    // One skinned copy per instance and primitive (instances may show different frames).
    let mut skinned = Vec::new();
    for rec in &records {
        for p in 0..asset.primitives.len() {
            skinned.push(skin_vertices(&asset, p, rec, mode)?);
        }
    }
    let np = asset.primitives.len();
    let meshes: Vec<ReferenceMesh> = skinned
        .iter()
        .enumerate()
        .map(|(k, s)| {
            let prim = &asset.primitives[k % np];
            let mat = prim.material.and_then(|m| asset.materials.get(m));
            ReferenceMesh {
                positions: &s.positions,
                normals: &s.normals,
                indices: &prim.indices,
                uvs: prim.uv0.as_deref(),
                material: mat
                    .map(|m| MaterialUniform::new(m.base_color_factor, &m.texture_transform))
                    .unwrap_or(MaterialUniform::color(GREY)),
                texture: mat
                    .and_then(|m| m.base_color_texture)
                    .and_then(|i| asset.images.get(i))
                    .map(|img| img.bytes.as_slice()),
                transforms: std::slice::from_ref(&transforms[k / np]),
            }
        })
        .collect();
    Ok(renderer.render_reference(&meshes, opts)?)
}

fn render_source(
    args: &Args,
    renderer: &mut Renderer,
    opts: &RenderOptions,
) -> anyhow::Result<throng_render::image::RgbaImage> {
    if args.blend.is_some() {
        anyhow::bail!("--blend needs a baked asset (layer blending is a runtime feature)");
    }
    let model = load_model(&args.input, &[])?;
    let clip = match &args.clip {
        Some(c) => Some(find_clip(&model, c)?),
        None => (!model.clips.is_empty()).then_some(0),
    };
    let method = match opts.skinning {
        Skinning::DualQuat => throng_anim::SkinningMethod::DualQuaternion,
        Skinning::Linear => throng_anim::SkinningMethod::LinearBlend,
    };
    let bindings = model.mesh_bindings();
    if bindings.is_empty() {
        anyhow::bail!(
            "{}: nothing to animate (no skin and no mesh under a joint or an animated node)",
            args.input.display()
        );
    }
    let mut poser = throng_anim::Poser::new(&model);
    let mut matrices = Vec::new();
    // Per instance: (binding, primitive, skinned vertices).
    let mut parts = Vec::new();
    let mut bounds = Aabb::EMPTY;
    for i in 0..args.instances {
        let t = args.time + i as f64 * args.stagger;
        let t = match clip {
            Some(c) => {
                let cl = &model.clips[c];
                let mode = match cl.loop_mode {
                    throng_anim::LoopMode::Loop => LoopMode::Loop,
                    throng_anim::LoopMode::Once => LoopMode::Once,
                    throng_anim::LoopMode::Clamp => LoopMode::Clamp,
                    throng_anim::LoopMode::PingPong => LoopMode::PingPong,
                };
                local_time(t, cl.duration as f64, mode)
            }
            None => 0.0,
        };
        let model_space = poser.pose(&model, clip, t as f32).to_vec();
        for b in &bindings {
            throng_anim::binding_matrices(&model, b, &model_space, &mut matrices);
            for (pi, prim) in model.meshes[b.mesh].primitives.iter().enumerate() {
                let (inf, _) = throng_anim::binding_influences(b, prim);
                let mut sv = throng_anim::SkinnedVertices::default();
                throng_anim::skin_primitive(method, prim, &inf, &matrices, &mut sv);
                if i == 0 {
                    for &p in &sv.positions {
                        bounds.extend(p);
                    }
                }
                parts.push((i as usize, b.mesh, pi, sv));
            }
        }
    }
    let transforms = grid(args.instances, spacing(&bounds));
    let meshes: Vec<ReferenceMesh> = parts
        .iter()
        .map(|(i, mesh, pi, sv)| {
            let prim = &model.meshes[*mesh].primitives[*pi];
            let mat = prim.material.and_then(|m| model.materials.get(m));
            let tex = mat.and_then(|m| m.base_color_texture.as_ref());
            ReferenceMesh {
                positions: &sv.positions,
                normals: &sv.normals,
                indices: &prim.indices,
                uvs: prim.uv0.as_deref(),
                material: match (mat, tex) {
                    (Some(m), Some(t)) => MaterialUniform::new(
                        m.base_color_factor.to_array(),
                        &throng_asset::TextureTransform {
                            offset: t.transform.offset.to_array(),
                            rotation: t.transform.rotation,
                            scale: t.transform.scale.to_array(),
                        },
                    ),
                    (Some(m), None) => MaterialUniform::color(m.base_color_factor.to_array()),
                    _ => MaterialUniform::color(GREY),
                },
                texture: tex
                    .and_then(|t| model.images.get(t.image))
                    .map(|img| img.encoded.as_slice())
                    .filter(|b| !b.is_empty()),
                transforms: std::slice::from_ref(&transforms[*i]),
            }
        })
        .collect();
    Ok(renderer.render_reference(&meshes, opts)?)
}
