//! `throng render`: a headless picture (PNG) or animation (GIF) of a crowd.
//!
//! - A baked asset is drawn by the GPU with the texture skinning path (the bone texture read in
//!   the vertex shader), with `--path vat` from its vertex animation textures, or with
//!   `--path reference` from the CPU decoder's skinned vertices (what the GPU should draw,
//!   uploaded per frame; with `--source SRC`, from the source glTF skinned by throng-anim).
//!   Instances outside the view are culled on the GPU unless `--no-cull`.
//! - A source glTF is drawn with the reference path: every animated primitive skinned on the CPU
//!   from full-rate glTF evaluation (throng-anim), the baseline the bake is measured against.
//!   With `--encoding`, `--influences` or `--timing gpu` it is baked in memory first and drawn
//!   by the GPU like a baked asset.
//! - `--timing cpu` (default): the CLI computes every instance's frame rows each frame;
//!   `--timing gpu`: throng-runtime's GpuRuntime keeps a compact record per instance and the
//!   vertex shader derives the rows from it and the clock (DESIGN.md §4).
//!
//! Instances stand on a grid (or seeded random spots, `--layout random`) facing +Z; instance i
//! shows its clip at `time + i · stagger (+ a seeded random phase)` seconds. Without `--clip`
//! a crowd plays a seeded mix of clips and phases. `--frames K --fps F` draws K frames 1/F s
//! apart into an animated GIF. Runs on any adapter wgpu finds; without a GPU that is Mesa's
//! lavapipe (software Vulkan: `apt-get install mesa-vulkan-drivers libvulkan1`).

use anyhow::Context;
use glam::{Mat4, Quat, Vec3};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::time::Instant;
use throng_asset::decode::skin_vertices;
use throng_asset::{Aabb, BakedAsset, ClipInfo, Encoding, Layer, LoopMode};
use throng_render::gpu_types::{InstanceRecord, MaterialUniform};
use throng_render::image::{codecs::gif, Delay, Frame, RgbaImage};
use throng_render::DEFAULT_COLOR;
use throng_render::{
    Camera, Crowd, DebugView, FrameStats, InstanceTransform, Playback, ReferenceMesh,
    RenderOptions, Renderer, SkinPath, Skinning,
};

use super::sample_baked::find_baked_clip;
use super::source::{find_clip, is_baked, load_model};

#[derive(clap::Args)]
pub struct Args {
    /// A baked throng asset (.glb), or a source glTF (.gltf/.glb: drawn with CPU skinning).
    /// Several inputs share one frame: instance i is an instance of input i mod K; each must be
    /// a baked asset or a source glTF (baked in memory), drawn on the GPU.
    #[arg(required = true, num_args = 1.., value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    /// Output PNG, or GIF with `--frames` (default: the first input's name with `.png`/`.gif`
    /// in the current folder).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Clip name or index; without it the first clip (the rest pose when there is none).
    #[arg(long)]
    pub clip: Option<String>,
    /// Clip time in seconds (wrapped or held by the clip's loop mode).
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true, value_parser = super::parse_finite)]
    pub time: f64,
    /// Number of instances, on a square grid (at most 10,000,000; the device may allow fewer).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
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
    /// Who times playback: `cpu` (rows computed per frame by the CLI) or `gpu` (throng-runtime's
    /// GpuRuntime records + clock; the shader derives the rows). Texture and VAT paths only.
    #[arg(long, default_value = "cpu", value_parser = ["cpu", "gpu"])]
    pub timing: String,
    /// Source glTF input: bake it in memory with this bone-texture encoding and draw it on the
    /// GPU (mat4-f32, mat3x4-f32, mat3x4-f16, quat-f32, quat-snorm16).
    #[arg(long)]
    pub encoding: Option<String>,
    /// Source glTF input: bake it in memory with K influences per vertex (4 or 8) and draw it
    /// on the GPU.
    #[arg(long)]
    pub influences: Option<u32>,
    /// Baked input with `--path reference`: skin this source glTF on the CPU instead of
    /// decoding the baked asset.
    #[arg(long)]
    pub source: Option<PathBuf>,
    /// Add a seeded random phase (0..clip duration) to every instance's time.
    #[arg(long)]
    pub random_phase: bool,
    /// Seed of the random clip mix, phases and layout.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Where instances stand: a square `grid` or seeded `random` spots with random headings.
    #[arg(long, default_value = "grid", value_parser = ["grid", "random"])]
    pub layout: String,
    /// Number of frames; more than 1 writes an animated GIF.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub frames: u32,
    /// Frames per second of the animation (clip time between frames = 1/fps).
    #[arg(long, default_value_t = 15.0)]
    pub fps: f64,
    /// Largest projected LOD simplification error allowed, in pixels: larger picks coarser
    /// LODs nearer the camera; 0 draws LOD 0 everywhere. Assets baked with `--lod` only.
    #[arg(long, default_value_t = 1.0, value_parser = parse_lod_bias, value_name = "PIXELS")]
    pub lod_bias: f32,
    /// Influences per vertex at LOD 0, 1, 2, 3, e.g. `4,2,1`: up to 4 values of 1..8, the last
    /// repeats for further LODs (default: all the asset has, at every LOD).
    #[arg(long, value_parser = parse_lod_influences, value_name = "K,K,...")]
    pub lod_influences: Option<[u32; 4]>,
    /// Leave out the shadows of the directional light (no shadow depth pass).
    #[arg(long)]
    pub no_shadows: bool,
    /// Shadow map size, texels per side.
    #[arg(
        long,
        default_value_t = throng_render::light::DEFAULT_SHADOW_MAP_SIZE,
        value_parser = clap::value_parser!(u32).range(16..=16384),
        value_name = "TEXELS"
    )]
    pub shadow_map_size: u32,
    /// Debug view (GPU paths): `weights` (heat map of skin weights), `palette` (a colour per
    /// strongest palette entry), `row` (heat map of the bone-texture row), `lod` (a colour per
    /// LOD level).
    #[arg(long, value_parser = ["weights", "palette", "row", "lod"])]
    pub debug: Option<String>,
    /// With `--debug weights`: the weight of this palette entry (0-based) instead of how much
    /// joints share each vertex.
    #[arg(long, value_name = "N")]
    pub debug_joint: Option<u32>,
}

use super::usage;

/// `--lod-bias`: a finite, non-negative number of pixels.
fn parse_lod_bias(s: &str) -> Result<f32, String> {
    s.trim()
        .parse::<f32>()
        .ok()
        .filter(|v| v.is_finite() && *v >= 0.0)
        .ok_or_else(|| format!("{s:?}: expected a number of pixels >= 0, e.g. 1"))
}

/// `--lod-influences 4,2,1`: 1 to 4 values of 1..8 for LOD 0, 1, 2, 3; the last repeats.
pub(crate) fn parse_lod_influences(s: &str) -> Result<[u32; 4], String> {
    let values: Vec<u32> = s
        .split(',')
        .map(|v| {
            v.trim()
                .parse::<u32>()
                .ok()
                .filter(|k| (1..=8).contains(k))
                .ok_or_else(|| format!("{v:?}: expected influences per vertex 1..8"))
        })
        .collect::<Result<_, _>>()?;
    if values.is_empty() || values.len() > 4 {
        return Err(format!(
            "{s:?}: expected 1 to 4 comma-separated values (LOD 0, 1, 2, 3), e.g. 4,2,1"
        ));
    }
    let last = values[values.len() - 1];
    Ok(std::array::from_fn(|i| {
        values.get(i).copied().unwrap_or(last)
    }))
}

/// The debug view of `--debug` / `--debug-joint` (a usage error when the joint comes without
/// the weights view).
fn debug_view(args: &Args) -> anyhow::Result<Option<DebugView>> {
    if args.debug_joint.is_some() && args.debug.as_deref() != Some("weights") {
        return Err(usage("--debug-joint N goes with --debug weights"));
    }
    Ok(match args.debug.as_deref() {
        None => None,
        Some("weights") => Some(DebugView::Weights),
        Some("palette") => Some(DebugView::Palette),
        Some("row") => Some(DebugView::Row),
        Some("lod") => Some(DebugView::Lod),
        Some(other) => {
            return Err(usage(format!(
                "--debug {other:?}: expected weights, palette, row or lod"
            )))
        }
    })
}

/// What each instance plays: clip (None = rest pose) and the seconds added to the frame time.
#[derive(Debug, Clone, Copy)]
struct Inst {
    clip: Option<usize>,
    phase: f64,
}

/// SplitMix64: a seeded, reproducible stream without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Clips and phases of the instances `ids` (global instance indices, for `--stagger`).
/// `--clip` (or a single instance): every instance plays that clip (default the first);
/// otherwise a mix of clips with random phases from `seed`. `durations[c]` = clip c's duration
/// in seconds.
fn plan(args: &Args, ids: &[u32], clip: Option<usize>, durations: &[f64], seed: u64) -> Vec<Inst> {
    let mut rng = Rng(seed);
    let mix = args.clip.is_none() && args.instances > 1 && !durations.is_empty();
    ids.iter()
        .map(|&i| {
            let c = if mix {
                Some((rng.next() % durations.len() as u64) as usize)
            } else {
                clip
            };
            let d = c.map(|c| durations[c]).unwrap_or(0.0);
            let random = if mix || args.random_phase {
                rng.unit() * d
            } else {
                0.0
            };
            Inst {
                clip: c,
                phase: i as f64 * args.stagger + random,
            }
        })
        .collect()
}

/// Global instance indices of input `a` of `k`: instance i belongs to input i mod k, so the
/// inputs mix on the shared layout.
fn ids_of(a: usize, k: usize, instances: u32) -> Vec<u32> {
    (a as u32..instances).step_by(k.max(1)).collect()
}

/// Instance transforms: `--layout grid` (square grid) or `random` (seeded spots over the same
/// area, random heading about +Y).
fn layout(args: &Args, spacing: f32) -> Vec<InstanceTransform> {
    let n = args.instances;
    if args.layout != "random" {
        return grid(n, spacing);
    }
    let mut rng = Rng(args.seed ^ 0x5eed_1a70);
    let side = (n as f32).sqrt().ceil().max(1.0) * spacing;
    (0..n)
        .map(|_| {
            let x = (rng.unit() as f32 - 0.5) * side;
            let z = (rng.unit() as f32 - 0.5) * side;
            let yaw = rng.unit() as f32 * std::f32::consts::TAU;
            InstanceTransform::from_mat4(&Mat4::from_rotation_translation(
                Quat::from_rotation_y(yaw),
                Vec3::new(x, 0.0, z),
            ))
        })
        .collect()
}

/// Encodes frames as an endlessly looping GIF, `fps` frames per second.
pub(crate) fn encode_gif(frames: Vec<RgbaImage>, fps: f64) -> anyhow::Result<Vec<u8>> {
    let mut out = Vec::new();
    {
        let mut enc = gif::GifEncoder::new_with_speed(&mut out, 10);
        enc.set_repeat(gif::Repeat::Infinite)
            .context("encoding the GIF")?;
        // GIF delays are in 1/100 s; Delay rounds the µs value to that.
        let delay = Delay::from_numer_denom_ms((1e6 / fps).round() as u32, 1000);
        enc.encode_frames(
            frames
                .into_iter()
                .map(|f| Frame::from_parts(f, 0, 0, delay)),
        )
        .context("encoding the GIF")?;
    }
    Ok(out)
}

fn frame_bar(frames: u32) -> ProgressBar {
    if frames <= 1 {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(frames as u64).with_message("rendering");
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} frames ({eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
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
    if args.frames == 0 {
        anyhow::bail!("--frames must be at least 1");
    }
    if !(args.fps.is_finite() && args.fps > 0.0) {
        anyhow::bail!("--fps must be a positive number of frames per second");
    }
    if let Some(k) = args.influences {
        if k != 4 && k != 8 {
            anyhow::bail!("--influences must be 4 or 8, got {k}");
        }
    }
    let debug = debug_view(&args)?;
    let several = args.inputs.len() > 1;
    if several {
        if args.path == "reference" {
            return Err(usage(
                "--path reference draws one input; several inputs need --path texture or vat",
            ));
        }
        if args.source.is_some() {
            return Err(usage(
                "--source goes with one baked input and --path reference",
            ));
        }
        if (args.instances as usize) < args.inputs.len() {
            return Err(usage(format!(
                "--instances {} is fewer than the {} inputs: each input needs an instance",
                args.instances,
                args.inputs.len()
            )));
        }
    }
    if debug.is_some() && args.path == "reference" {
        return Err(usage(
            "--debug views draw the GPU paths: use --path texture or vat",
        ));
    }
    let encoding = args
        .encoding
        .as_deref()
        .map(|e| {
            Encoding::parse(e).ok_or_else(|| {
                let all: Vec<&str> = Encoding::ALL.iter().map(|e| e.as_str()).collect();
                anyhow::anyhow!("--encoding {e:?}: expected one of {}", all.join(", "))
            })
        })
        .transpose()?;
    let gpu_timing = args.timing == "gpu";
    if gpu_timing && args.path == "reference" {
        anyhow::bail!("--timing gpu needs --path texture or vat (the reference path is CPU-timed)");
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
        shadows: !args.no_shadows,
        shadow_map_size: args.shadow_map_size,
        lod_bias: args.lod_bias,
        // 0 = every influence the asset has.
        lod_influences: args.lod_influences.unwrap_or([0; 4]),
        debug,
        debug_joint: args.debug_joint,
        ..Default::default()
    };
    let first = &args.inputs[0];
    let output = args.output.clone().unwrap_or_else(|| {
        // In the current folder, not beside the input (which may be a read-only library).
        let stem = first.file_stem().unwrap_or(first.as_os_str());
        PathBuf::from(stem).with_extension(if args.frames > 1 { "gif" } else { "png" })
    });
    let ext = output
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    let is_gif = ext.as_deref() == Some("gif");
    if !matches!(ext.as_deref(), Some("png") | Some("gif")) {
        return Err(usage(format!(
            "{}: throng render writes PNG (one frame) or animated GIF (--frames K); name the \
             output *.png or *.gif",
            output.display()
        )));
    }
    if args.frames > 1 && !is_gif {
        return Err(usage(format!(
            "{}: --frames {} writes an animated GIF; name the output *.gif",
            output.display(),
            args.frames
        )));
    }
    // Checked before any work: a long render should not end in a failed write.
    if let Some(dir) = output.parent().filter(|d| !d.as_os_str().is_empty()) {
        if !dir.is_dir() {
            anyhow::bail!(
                "{}: the folder {} does not exist; create it or write elsewhere",
                output.display(),
                dir.display()
            );
        }
    }
    let baked: Vec<bool> = args.inputs.iter().map(|p| is_baked(p)).collect();
    if baked.iter().all(|&b| b) && (encoding.is_some() || args.influences.is_some()) {
        anyhow::bail!(
            "{} already baked: --encoding and --influences apply to a source glTF",
            if several {
                "every input is".to_string()
            } else {
                format!("{} is", first.display())
            }
        );
    }
    let mut renderer = Renderer::new().context("creating a GPU device")?;
    eprintln!("adapter: {}", renderer.adapter());
    let start = Instant::now();
    // A source glTF goes to the GPU (baked in memory) when a flag needs the GPU paths or when
    // it shares the frame with other inputs; otherwise it is drawn by the reference path.
    let bake_in_memory =
        encoding.is_some() || args.influences.is_some() || gpu_timing || debug.is_some() || several;
    let (images, stats) = if !several && baked[0] {
        match (&args.source, args.path == "reference") {
            (Some(src), true) => (render_source(&args, src, &mut renderer, &opts)?, None),
            _ => {
                let asset = throng_asset::read(first)?;
                render_baked(&args, &[asset], &mut renderer, &opts)?
            }
        }
    } else if !several && !bake_in_memory {
        (render_source(&args, first, &mut renderer, &opts)?, None)
    } else {
        if args.path == "reference" {
            anyhow::bail!(
                "--path reference draws the source itself: leave out --encoding, --influences, \
                 --timing gpu and --debug"
            );
        }
        let mut assets = Vec::with_capacity(args.inputs.len());
        for (input, &is) in args.inputs.iter().zip(&baked) {
            assets.push(if is {
                throng_asset::read(input)
                    .with_context(|| format!("reading the baked asset {}", input.display()))?
            } else {
                bake_source(input, encoding, args.influences, &opts)?
            });
        }
        render_baked(&args, &assets, &mut renderer, &opts)?
    };
    let took = start.elapsed();
    let bytes = if is_gif {
        encode_gif(images, args.fps)?
    } else {
        let mut png = Vec::new();
        let first = images
            .first()
            .context("no frame was rendered (--frames 0?)")?;
        first
            .write_to(
                &mut std::io::Cursor::new(&mut png),
                throng_render::image::ImageFormat::Png,
            )
            .context("encoding the PNG")?;
        png
    };
    super::write_atomic(&output, &bytes)
        .with_context(|| format!("writing {}", output.display()))?;
    eprintln!(
        "wrote {} ({}×{}, {} instance(s), {} frame(s), {:.0} ms)",
        output.display(),
        opts.width,
        opts.height,
        args.instances,
        args.frames,
        took.as_secs_f64() * 1e3
    );
    if let Some(s) = stats {
        eprintln!("{}", stats_line(&s));
    }
    Ok(())
}

/// One line of a frame's statistics (frame 0 of an animation): draw calls, instances drawn
/// per LOD, triangles, shadow casters.
fn stats_line(s: &FrameStats) -> String {
    let lods: Vec<String> = s
        .instances_per_lod
        .iter()
        .enumerate()
        .map(|(l, n)| format!("LOD {l}: {n}"))
        .collect();
    format!(
        "frame: {} draw calls ({} shadow), {} culling dispatches; {} instances drawn ({}), \
         {} triangles; shadows: {} instances, {} triangles",
        s.draws,
        s.shadow_draws,
        s.dispatches,
        s.instances_drawn,
        if lods.is_empty() {
            "none".to_string()
        } else {
            lods.join(", ")
        },
        s.triangles,
        s.shadow_instances,
        s.shadow_triangles
    )
}

/// Bakes a source glTF in memory (`--encoding`, `--influences`; a VAT too for `--path vat`).
fn bake_source(
    input: &Path,
    encoding: Option<Encoding>,
    influences: Option<u32>,
    opts: &RenderOptions,
) -> anyhow::Result<BakedAsset> {
    let model = load_model(input, &[])?;
    let defaults = throng_bake::BakeOptions::default();
    let bake_opts = throng_bake::BakeOptions {
        source_name: input
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        encoding: encoding.unwrap_or(defaults.encoding),
        influences: influences.unwrap_or(defaults.influences),
        vat: (opts.path == SkinPath::Vat).then_some(throng_asset::VatEncoding::F32),
        ..defaults
    };
    let (asset, _) = throng_bake::bake(&model, &bake_opts)
        .with_context(|| format!("baking {} in memory", input.display()))?;
    eprintln!(
        "baked {} in memory: {}, {} influences, {} clip(s)",
        input.display(),
        asset.bone_texture.encoding.as_str(),
        bake_opts.influences,
        asset.clips.len()
    );
    Ok(asset)
}

/// With several frames the camera stays where frame 0 put it (framed on `scene`).
fn fixed_camera(args: &Args, opts: &RenderOptions, scene: &Aabb) -> RenderOptions {
    let mut o = *opts;
    if args.frames > 1 && o.camera.is_none() && !scene.is_empty() {
        o.camera = Some(Camera::framing(
            scene,
            o.width as f32 / o.height.max(1) as f32,
        ));
    }
    o
}

/// Instance transforms on a square grid in the XZ plane, `spacing` apart, centred on the origin.
fn grid(n: u32, spacing: f32) -> Vec<InstanceTransform> {
    let cols = (n as f32).sqrt().ceil().max(1.0) as u32;
    let rows = n.div_ceil(cols);
    (0..n)
        .map(|i| {
            let x = (i % cols) as f32 - (cols - 1) as f32 * 0.5;
            let z = (i / cols) as f32 - (rows - 1) as f32 * 0.5;
            InstanceTransform::from_mat4(&Mat4::from_translation(Vec3::new(x, 0.0, z) * spacing))
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
    let f = clip.sample(local_time(t, clip.duration, clip.loop_mode));
    Layer {
        weight,
        frac: f.frac,
        row: f.row as f32,
        clip: index as f32,
    }
}

/// CPU-timed records at frame time `t` (seconds): layer 0 the instance's clip, layer 1 the
/// `--blend` clip at the same time.
fn cpu_records(
    asset: &BakedAsset,
    insts: &[Inst],
    blend: Option<usize>,
    blend_weight: f32,
    t: f64,
) -> Vec<InstanceRecord> {
    insts
        .iter()
        .map(|inst| {
            let mut r = InstanceRecord::default();
            if let Some(c) = inst.clip {
                let tt = t + inst.phase;
                let w1 = if blend.is_some() { blend_weight } else { 0.0 };
                r.layers[0] = layer(&asset.clips[c], c, 1.0 - w1, tt);
                if let Some(b) = blend {
                    r.layers[1] = layer(&asset.clips[b], b, w1, tt);
                }
            }
            r
        })
        .collect()
}

/// One input's share of the crowd: its instances (every k-th of the shared layout), their
/// clips and the `--blend` clip.
struct Part {
    insts: Vec<Inst>,
    transforms: Vec<InstanceTransform>,
    blend: Option<usize>,
}

/// Draws baked assets (one per input, instance i of input i mod K) on the texture, VAT or
/// (one asset only) reference path; returns the frames and frame 0's statistics (GPU paths).
fn render_baked(
    args: &Args,
    assets: &[BakedAsset],
    renderer: &mut Renderer,
    opts: &RenderOptions,
) -> anyhow::Result<(Vec<RgbaImage>, Option<FrameStats>)> {
    let k = assets.len();
    let bounds: Vec<Aabb> = assets
        .iter()
        .map(|a| a.row_bounds.iter().fold(Aabb::EMPTY, |x, b| x.union(b)))
        .collect();
    // One layout for all inputs, spaced for the largest.
    let space = bounds.iter().map(spacing).fold(0.0f32, f32::max);
    let sizes: Vec<f32> = bounds.iter().map(|b| b.diagonal()).collect();
    let (small, large) = sizes
        .iter()
        .fold((f32::MAX, 0.0f32), |(lo, hi), &d| (lo.min(d), hi.max(d)));
    if k > 1 && small > 0.0 && large > 10.0 * small {
        eprintln!(
            "warning: the inputs differ in size by {:.0}× (bounding diagonals {}); they are drawn \
             in their own file units, so the smallest may be too small to see",
            large / small,
            sizes
                .iter()
                .zip(&args.inputs)
                .map(|(d, p)| format!("{}: {d:.3}", p.display()))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let all = layout(args, space);
    if let (Some(j), Some(max)) = (
        args.debug_joint,
        assets.iter().map(|a| a.palette.len()).max(),
    ) {
        if j as usize >= max {
            anyhow::bail!(
                "--debug-joint {j}: the input(s) have {max} palette entries (0..{}); \
                 `throng inspect` lists them",
                max.saturating_sub(1)
            );
        }
    }
    let mut parts = Vec::with_capacity(k);
    let mut scene = Aabb::EMPTY;
    for (a, asset) in assets.iter().enumerate() {
        let name = args
            .inputs
            .get(a)
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        let clip = match &args.clip {
            Some(c) => {
                Some(find_baked_clip(asset, c).with_context(|| format!("--clip in {name}"))?)
            }
            None => (!asset.clips.is_empty()).then_some(0),
        };
        let blend = args
            .blend
            .as_deref()
            .map(|b| find_baked_clip(asset, b).with_context(|| format!("--blend in {name}")))
            .transpose()?;
        let durations: Vec<f64> = asset.clips.iter().map(|c| c.duration).collect();
        let ids = ids_of(a, k, args.instances);
        // Input 0 keeps the seed as given (one input draws what it always drew).
        let insts = plan(
            args,
            &ids,
            clip,
            &durations,
            args.seed.wrapping_add(a as u64),
        );
        let transforms: Vec<InstanceTransform> = ids.iter().map(|&i| all[i as usize]).collect();
        scene = scene.union(&throng_render::camera::crowd_bounds(
            &bounds[a],
            &transforms,
        ));
        parts.push(Part {
            insts,
            transforms,
            blend,
        });
    }
    let opts = fixed_camera(args, opts, &scene);
    let dt = 1.0 / args.fps;
    let bar = frame_bar(args.frames);
    let mut images = Vec::with_capacity(args.frames as usize);
    let mut stats = None;
    if args.path == "reference" {
        let (asset, part) = (&assets[0], &parts[0]);
        for f in 0..args.frames {
            let t = args.time + f as f64 * dt;
            let records = cpu_records(asset, &part.insts, part.blend, args.blend_weight, t);
            images.push(render_decoded(
                asset,
                &records,
                &part.transforms,
                renderer,
                &opts,
            )?);
            bar.inc(1);
        }
    } else {
        let mut gpu_assets = Vec::with_capacity(k);
        for asset in assets {
            gpu_assets.push(renderer.upload(asset)?);
        }
        let mut runtimes = Vec::new();
        if args.timing == "gpu" {
            for (asset, part) in assets.iter().zip(&parts) {
                runtimes.push(gpu_runtime(args, asset, part)?);
            }
        }
        for f in 0..args.frames {
            let t = args.time + f as f64 * dt;
            let cpu: Vec<Vec<InstanceRecord>> = if runtimes.is_empty() {
                assets
                    .iter()
                    .zip(&parts)
                    .map(|(asset, p)| cpu_records(asset, &p.insts, p.blend, args.blend_weight, t))
                    .collect()
            } else {
                if f > 0 {
                    for rt in &mut runtimes {
                        rt.update(dt);
                    }
                }
                Vec::new()
            };
            let crowds: Vec<Crowd> = (0..k)
                .map(|a| Crowd {
                    asset: &gpu_assets[a],
                    transforms: &parts[a].transforms,
                    playback: match runtimes.get(a) {
                        Some(rt) => Playback::Gpu {
                            records: rt.records(),
                            clock: rt.gpu_clock(),
                        },
                        None => Playback::Cpu(&cpu[a]),
                    },
                })
                .collect();
            let frame = renderer.render_scene(&crowds, &opts)?;
            stats.get_or_insert(frame.stats);
            images.push(frame.image);
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    Ok((images, stats))
}

/// A GPU-timed runtime playing `part`'s instances (`--timing gpu`).
fn gpu_runtime(
    args: &Args,
    asset: &BakedAsset,
    part: &Part,
) -> anyhow::Result<throng_runtime::GpuRuntime> {
    let mut rt = throng_runtime::GpuRuntime::new(&asset.clips);
    for (inst, tr) in part.insts.iter().zip(&part.transforms) {
        let h = rt.spawn(*tr);
        let Some(c) = inst.clip else { continue };
        match part.blend {
            // The runtime blends in normalised time (both clips loop together).
            Some(b) => rt.blend(h, c, b, args.blend_weight)?,
            None => rt.play(
                h,
                c,
                throng_runtime::PlayOptions {
                    start_time: (args.time + inst.phase) as f32,
                    ..Default::default()
                },
            )?,
        }
    }
    Ok(rt)
}

/// The reference path of a baked asset: every instance skinned by the CPU decoder, uploaded.
fn render_decoded(
    asset: &BakedAsset,
    records: &[InstanceRecord],
    transforms: &[InstanceTransform],
    renderer: &mut Renderer,
    opts: &RenderOptions,
) -> anyhow::Result<RgbaImage> {
    let mode = opts.skinning;
    // One skinned copy per instance and primitive (instances may show different frames).
    let mut skinned = Vec::new();
    for rec in records {
        for p in 0..asset.primitives.len() {
            skinned.push(skin_vertices(asset, p, &rec.layers, mode)?);
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
                    .unwrap_or(MaterialUniform::color(DEFAULT_COLOR)),
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

/// Source-glTF parts of one frame: (instance, mesh, primitive, skinned vertices).
type SourceParts = Vec<(usize, usize, usize, throng_anim::SkinnedVertices)>;

/// Skins every instance of a source model on the CPU at frame time `t` (seconds); also returns
/// the bounds of instance 0's vertices (model space).
fn skin_source(
    model: &throng_anim::Model,
    poser: &mut throng_anim::Poser,
    insts: &[Inst],
    t: f64,
    method: throng_anim::Skinning,
) -> (SourceParts, Aabb) {
    let bindings = model.mesh_bindings();
    let mut matrices = Vec::new();
    let mut parts = Vec::new();
    let mut bounds = Aabb::EMPTY;
    for (i, inst) in insts.iter().enumerate() {
        let tt = t + inst.phase;
        let local = match inst.clip.and_then(|c| model.clips.get(c)) {
            Some(cl) => local_time(tt, cl.duration as f64, cl.loop_mode),
            None => 0.0,
        };
        let model_space = poser.pose(model, inst.clip, local as f32).to_vec();
        for b in &bindings {
            throng_anim::binding_matrices(model, b, &model_space, &mut matrices);
            for (pi, prim) in model.meshes[b.mesh].primitives.iter().enumerate() {
                let (inf, _) = throng_anim::binding_influences(b, prim);
                let mut sv = throng_anim::SkinnedVertices::default();
                throng_anim::skin_primitive(method, prim, &inf, &matrices, &mut sv);
                if i == 0 {
                    for &p in &sv.positions {
                        bounds.extend(p);
                    }
                }
                parts.push((i, b.mesh, pi, sv));
            }
        }
    }
    (parts, bounds)
}

fn render_source(
    args: &Args,
    input: &Path,
    renderer: &mut Renderer,
    opts: &RenderOptions,
) -> anyhow::Result<Vec<RgbaImage>> {
    if args.blend.is_some() {
        anyhow::bail!("--blend needs a baked asset (layer blending is a runtime feature)");
    }
    let model = load_model(input, &[])?;
    let clip = match &args.clip {
        Some(c) => Some(find_clip(&model, c)?),
        None => (!model.clips.is_empty()).then_some(0),
    };
    let method = opts.skinning;
    if model.mesh_bindings().is_empty() {
        anyhow::bail!(
            "{}: nothing to animate (no skin and no mesh under a joint or an animated node)",
            input.display()
        );
    }
    let durations: Vec<f64> = model.clips.iter().map(|c| c.duration as f64).collect();
    let ids: Vec<u32> = (0..args.instances).collect();
    let insts = plan(args, &ids, clip, &durations, args.seed);
    let mut poser = throng_anim::Poser::new(&model);
    let dt = 1.0 / args.fps;
    let bar = frame_bar(args.frames);
    let mut images = Vec::with_capacity(args.frames as usize);
    // Transforms and camera come from frame 0 and stay for the rest.
    let mut placed: Option<(Vec<InstanceTransform>, RenderOptions)> = None;
    for f in 0..args.frames {
        let t = args.time + f as f64 * dt;
        let (parts, bounds) = skin_source(&model, &mut poser, &insts, t, method);
        let (transforms, fopts) = placed.get_or_insert_with(|| {
            let transforms = layout(args, spacing(&bounds));
            let scene = throng_render::camera::crowd_bounds(&bounds, &transforms);
            let o = fixed_camera(args, opts, &scene);
            (transforms, o)
        });
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
                    material: mat
                        .map(|m| {
                            let (color, transform) = throng_bake::material_factors(m);
                            MaterialUniform::new(color, &transform)
                        })
                        .unwrap_or(MaterialUniform::color(DEFAULT_COLOR)),
                    texture: tex
                        .and_then(|t| model.images.get(t.image))
                        .map(|img| img.encoded.as_slice())
                        .filter(|b| !b.is_empty()),
                    transforms: std::slice::from_ref(&transforms[*i]),
                }
            })
            .collect();
        images.push(renderer.render_reference(&meshes, fopts)?);
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(images)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    fn args(extra: &[&str]) -> Args {
        let argv = ["render", "in.glb"].iter().chain(extra);
        match Cli::try_parse_from(argv) {
            Ok(c) => c.args,
            Err(e) => panic!("{e}"),
        }
    }

    /// Every instance of one input, seeded by `--seed`.
    fn plan_all(a: &Args, clip: Option<usize>, durations: &[f64]) -> Vec<Inst> {
        let ids: Vec<u32> = (0..a.instances).collect();
        plan(a, &ids, clip, durations, a.seed)
    }

    #[test]
    fn lod_influences_take_one_to_four_values_of_1_to_8_and_repeat_the_last() {
        assert_eq!(parse_lod_influences("4,2,1"), Ok([4, 2, 1, 1]));
        assert_eq!(parse_lod_influences("8"), Ok([8; 4]));
        assert_eq!(parse_lod_influences(" 4, 4 ,2,1"), Ok([4, 4, 2, 1]));
        for bad in ["", "0", "9", "4,2,1,1,1", "4,,1", "a", "-1"] {
            assert!(parse_lod_influences(bad).is_err(), "{bad:?} accepted");
        }
        assert_eq!(
            args(&["--lod-influences", "3,1"]).lod_influences,
            Some([3, 1, 1, 1])
        );
        assert_eq!(args(&[]).lod_influences, None);
        assert!(parse_lod_bias("0").is_ok() && parse_lod_bias("-1").is_err());
        assert!(parse_lod_bias("inf").is_err() && parse_lod_bias("NaN").is_err());
    }

    #[test]
    fn debug_joint_goes_only_with_the_weights_view() {
        let view = |extra: &[&str]| {
            debug_view(&args(extra)).map_err(|e| e.is::<super::super::UsageError>())
        };
        assert_eq!(view(&[]).ok(), Some(None));
        assert_eq!(
            view(&["--debug", "palette"]).ok(),
            Some(Some(DebugView::Palette))
        );
        assert_eq!(
            view(&["--debug", "weights", "--debug-joint", "3"]).ok(),
            Some(Some(DebugView::Weights))
        );
        assert_eq!(view(&["--debug-joint", "3"]).err(), Some(true));
        assert_eq!(
            view(&["--debug", "lod", "--debug-joint", "3"]).err(),
            Some(true)
        );
    }

    #[test]
    fn several_inputs_take_every_kth_instance_of_the_shared_layout() {
        assert_eq!(ids_of(0, 2, 5), vec![0, 2, 4]);
        assert_eq!(ids_of(1, 2, 5), vec![1, 3]);
        assert_eq!(ids_of(0, 1, 3), vec![0, 1, 2]);
        // Together the inputs cover every instance once.
        let mut all: Vec<u32> = (0..3).flat_map(|a| ids_of(a, 3, 10)).collect();
        all.sort_unstable();
        assert_eq!(all, (0..10).collect::<Vec<_>>());
        // Stagger follows the global index.
        let a = args(&["--instances", "4", "--clip", "x", "--stagger", "0.5"]);
        let p = plan(&a, &ids_of(1, 2, 4), Some(0), &[2.0], a.seed);
        assert_eq!(
            p.iter().map(|i| i.phase).collect::<Vec<_>>(),
            vec![0.5, 1.5]
        );
    }

    #[test]
    fn without_clip_a_crowd_plays_a_seeded_mix_of_clips_and_phases() {
        let durations = [1.0, 2.0, 0.5];
        let a = args(&["--instances", "64", "--seed", "9"]);
        let p = plan_all(&a, Some(0), &durations);
        let q = plan_all(&a, Some(0), &durations);
        assert_eq!(p.len(), 64);
        // Same seed, same crowd.
        assert!(p
            .iter()
            .zip(&q)
            .all(|(x, y)| x.clip == y.clip && x.phase == y.phase));
        // Every clip shows up and every phase lies within its clip.
        for c in 0..3 {
            assert!(p.iter().any(|i| i.clip == Some(c)), "clip {c} never picked");
        }
        assert!(p.iter().all(|i| i
            .clip
            .is_some_and(|c| (0.0..durations[c]).contains(&i.phase))));
        let other = plan_all(
            &args(&["--instances", "64", "--seed", "10"]),
            Some(0),
            &durations,
        );
        assert!(p.iter().zip(&other).any(|(x, y)| x.phase != y.phase));
    }

    #[test]
    fn a_named_clip_plays_on_every_instance_with_stagger_and_optional_random_phase() {
        let durations = [1.0, 2.0];
        let a = args(&["--instances", "5", "--clip", "x", "--stagger", "0.25"]);
        let p = plan_all(&a, Some(1), &durations);
        for (i, inst) in p.iter().enumerate() {
            assert_eq!(inst.clip, Some(1));
            assert!((inst.phase - 0.25 * i as f64).abs() < 1e-12);
        }
        let r = args(&["--instances", "5", "--clip", "x", "--random-phase"]);
        let p = plan_all(&r, Some(1), &durations);
        assert!(p
            .iter()
            .all(|i| i.clip == Some(1) && (0.0..2.0).contains(&i.phase)));
        assert!(p.iter().any(|i| i.phase > 0.0));
    }

    #[test]
    fn random_layout_is_seeded_and_stays_on_the_ground_within_the_grid_area() {
        let a = args(&["--instances", "25", "--layout", "random", "--seed", "4"]);
        let t = layout(&a, 2.0);
        let u = layout(&a, 2.0);
        assert_eq!(t, u);
        for x in &t {
            let m = x.to_mat4();
            let p = m.w_axis;
            assert!(
                p.y.abs() < 1e-6 && p.x.abs() <= 5.0 && p.z.abs() <= 5.0,
                "{p}"
            );
            // A rotation about +Y only: the up axis stays up.
            assert!((m.y_axis.truncate() - Vec3::Y).length() < 1e-5);
        }
        assert_eq!(layout(&args(&["--instances", "25"]), 2.0), grid(25, 2.0));
    }
}
