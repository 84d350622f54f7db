//! `throng bench render`: what a frame of a crowd costs on the adapter at hand, for 1, 100 and
//! 1,000 instances (`--instances`), on the four paths in the same run (docs/design.md §5):
//!
//! - texture: the runtime's records in a `CrowdUpload` kept across frames — CPU-timed
//!   (`--timing cpu`): every record (64 B per instance) each frame, written by the runtime
//!   straight into the upload's staging memory (`update_into`); GPU-timed (`--timing gpu`):
//!   only the records of the `--changing` fraction of instances whose speed changes that frame
//!   (64 B writes, scattered by a compute pass) and the clock — the transforms (48 B) once; the vertex shader skins from the
//!   bone texture; one indirect draw per primitive after culling;
//! - palette: the same records; after culling a compute pass blends each drawn instance's skin
//!   matrices once, and the vertex shader reads one per influence (the palette pass's GPU time
//!   is reported apart where the adapter has timestamp queries);
//! - vat: the same records, positions and normals fetched from the vertex animation texture;
//! - reference: every instance skinned on the CPU by throng-asset's decoder and uploaded as
//!   vertices (32 B each) + indices, one draw per instance and primitive. Drawn untextured: the
//!   renderer's reference API decodes a mesh's texture per mesh, which would measure PNG
//!   decoding rather than skinning.
//!
//! Frame time = wall time of one whole frame: records (or CPU skinning), upload, GPU work and
//! the read back of the picture (the renderer is headless and every frame ends in a read back).
//! CPU time = the part spent preparing per-frame data on the CPU before the renderer is called
//! (the runtime's update; on the reference path also the CPU skinning).
//! Without `--asset` the built-in fox is baked in memory.

use anyhow::Context;
use std::path::PathBuf;
use std::time::Instant;
use throng_asset::BakedAsset;
use throng_render::gpu_types::FrameUniform;
use throng_render::{
    Crowd, CrowdUpload, DecodedMeshes, Playback, RenderOptions, Renderer, SkinPath, Skinning,
    Timing,
};
use throng_runtime::crowd::{self, Assignment};
use throng_runtime::{PlaybackControl, Runtime};

use super::shared::{load_model, parse_size, print_stdout};

mod field;

/// The reference path skins every instance on the CPU: it stops at this many instances.
const REFERENCE_MAX: u32 = 1000;
/// Bytes of one reference-path vertex (position, normal, uv: 8 f32).
const REF_VERTEX_BYTES: u64 = 32;

#[derive(clap::Args)]
pub struct Args {
    /// A source glTF (baked in memory with a VAT) or a baked asset; default the built-in fox.
    #[arg(long, value_name = "FILE")]
    pub asset: Option<PathBuf>,
    /// Instance counts to measure, comma-separated (the reference path stops at 1,000).
    #[arg(long, value_delimiter = ',', default_value = "1,100,1000")]
    pub instances: Vec<u32>,
    /// Image size in pixels, WIDTHxHEIGHT.
    #[arg(long, default_value = "512x512", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Timed frames per case (after 2 warm-up frames).
    #[arg(long, default_value_t = 10)]
    pub frames: u32,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Crowd-scale scenario instead of the path comparison: a grid field of N instances seen
    /// by a low camera at one edge, culling + LOD on against off (see `field`).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub field: Option<u32>,
    /// Instances of the field's "off" case (no culling, LOD 0 everywhere): at most this many.
    #[arg(long, default_value_t = 10_000, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub field_off_cap: u32,
    /// LOD index-count ratios of the field's in-memory bake.
    #[arg(long, value_delimiter = ',', default_value = "0.5,0.25,0.1", value_parser = super::shared::parse_lod, value_name = "R,R,...")]
    pub field_lods: Vec<f32>,
    /// Timed frames per field case (after 2 warm-up frames: occlusion culling's history settles
    /// in two); the median is reported.
    #[arg(long, default_value_t = 3, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub field_frames: u32,
    /// Write the field's last frame of each case here (field-cull-lod.png,
    /// field-occlusion.png, field-off.png).
    #[arg(long, value_name = "DIR")]
    pub field_images: Option<PathBuf>,
    /// Height of the field's camera, in model heights (below 1 the front rows hide most of the
    /// field; above, every instance's top shows over the ones in front).
    #[arg(long, default_value_t = 0.6, value_name = "HEIGHTS", value_parser = super::shared::parse_positive_f32)]
    pub field_eye: f32,
    /// Who times playback on the texture and VAT paths: `cpu` (every record written each
    /// frame) or `gpu` (only the records that changed, plus the clock).
    #[arg(long, value_enum, default_value_t = Timing::Cpu)]
    pub timing: Timing,
    /// GPU timing: the fraction of instances whose playback changes each frame (their speed).
    #[arg(long, default_value_t = 0.01, value_parser = super::shared::parse_fraction, value_name = "F")]
    pub changing: f64,
    /// Leave out the shadow pass (every path).
    #[arg(long)]
    pub no_shadows: bool,
    /// Leave out occlusion culling (frustum culling and LODs stay; every path).
    #[arg(long)]
    pub no_occlusion: bool,
    /// The paths to measure, comma-separated (texture, palette, vat, reference, and
    /// palette-motion: the palette path writing motion vectors too); a path the asset cannot
    /// take (vat without a VAT) is left out.
    #[arg(long, value_delimiter = ',', default_value = "texture,palette,vat,reference", value_parser = ["texture", "palette", "palette-motion", "vat", "reference"])]
    pub paths: Vec<String>,
    /// Palette path, update-rate LOD: refresh intervals at LOD 0, 1, 2, 3 (e.g. `1,1,2,4`; the
    /// last repeats; default every frame). The built-in fox has no LODs: `2` halves its work.
    #[arg(long, value_parser = super::shared::parse_palette_refresh, value_name = "N,N,...")]
    pub palette_refresh: Option<[u32; 4]>,
}

#[derive(serde::Serialize)]
struct Case {
    path: &'static str,
    instances: u32,
    /// Mean wall time of a frame, milliseconds.
    frame_ms: f64,
    /// Mean CPU time preparing a frame's data (records or skinned vertices), milliseconds.
    cpu_ms: f64,
    /// Mean GPU time of a frame's passes from timestamp queries, milliseconds (GPU paths on
    /// devices with timestamp queries; null otherwise).
    gpu_ms: Option<f64>,
    /// The palette path: mean GPU time of the palette pass (timestamp queries), milliseconds,
    /// and per instance it wrote, microseconds.
    palette_ms: Option<f64>,
    palette_us_per_instance: Option<f64>,
    /// The palette path: palettes the pass computed in each timed frame (update-rate LOD makes
    /// them fewer than the instances drawn; `--palette-refresh`), and the intervals used.
    palettes_per_frame: Option<Vec<u64>>,
    palette_refresh: Option<[u32; 4]>,
    /// frame_ms / the texture path's frame_ms at the same instance count (null without a
    /// texture case).
    vs_texture: Option<f64>,
    draws: u64,
    /// Who timed playback (`cpu`, `gpu`; the reference path is CPU-timed).
    timing: &'static str,
    /// Bytes the CPU writes to the GPU per frame (records, transforms, clock, vertices,
    /// indices, frame uniform): on the texture and VAT paths the mean of what the crowd's
    /// `CrowdUpload` wrote over the timed frames.
    upload_bytes: u64,
    /// Every instance's record: what a frame would upload if it wrote them all.
    full_record_bytes: u64,
}

/// What both reports (this one and [`field`]'s) open with: the device, the asset and the frames
/// timed. Flattened into each, so the JSON keys stay where tools read them.
#[derive(serde::Serialize)]
struct RunInfo {
    adapter: String,
    asset: String,
    width: u32,
    height: u32,
    /// Timed frames per case (after the warm-up frames).
    frames: u32,
}

impl RunInfo {
    fn new(renderer: &Renderer, asset: String, (width, height): (u32, u32), frames: u32) -> Self {
        Self {
            adapter: renderer.adapter().to_string(),
            asset,
            width,
            height,
            frames,
        }
    }
}

#[derive(serde::Serialize)]
struct Report {
    #[serde(flatten)]
    run: RunInfo,
    primitives: usize,
    vertices: usize,
    cases: Vec<Case>,
}

fn load(args: &Args) -> anyhow::Result<(BakedAsset, String)> {
    load_asset(
        args.asset.as_deref(),
        Some(throng_asset::VatEncoding::F32),
        &[],
    )
}

/// A baked asset from `path` (used as is) or a source glTF / the built-in fox baked in memory
/// with `vat` and `lods`.
pub(crate) fn load_asset(
    path: Option<&std::path::Path>,
    vat: Option<throng_asset::VatEncoding>,
    lods: &[f32],
) -> anyhow::Result<(BakedAsset, String)> {
    let (model, name) = match path {
        Some(p) if throng_asset::is_baked_file(p) => {
            let asset = throng_asset::read(p)
                .with_context(|| format!("loading the baked asset {}", p.display()))?;
            return Ok((asset, p.display().to_string()));
        }
        Some(p) => (load_model(p, &Default::default())?, p.display().to_string()),
        None => {
            let bytes = throng_demo::demo_glb();
            let model = throng_gltf::import_slice(&bytes, None, "built-in fox")
                .context("importing the built-in fox")?;
            (model, "built-in fox".to_string())
        }
    };
    let opts = throng_bake::BakeOptions {
        source_name: name.clone(),
        vat,
        lods: lods.to_vec(),
        ..Default::default()
    };
    let (asset, _) =
        throng_bake::bake(&model, &opts).with_context(|| format!("baking {name} in memory"))?;
    Ok((asset, name))
}

/// The benchmark crowd: instance i plays clip i mod clips from `0.37 i` seconds.
pub(crate) fn bench_assignments(asset: &BakedAsset, n: usize) -> Vec<Assignment> {
    (0..n)
        .map(|i| Assignment {
            clip: (!asset.clips.is_empty()).then(|| i % asset.clips.len()),
            phase: 0.37 * i as f64,
        })
        .collect()
}

/// One frame of a texture or VAT case: `changes` instances (from `frame · changes` on) get a
/// new speed (GPU timing), the runtime advances by `dt`, and the crowd's upload receives what
/// changed. Returns the bytes it wrote.
/// Instances whose playback changes each frame: `--changing` applies to GPU timing only.
pub(crate) fn changes_per_frame(timing: Timing, changing: f64, n: u32) -> usize {
    if timing == Timing::Gpu {
        (changing * n as f64).ceil() as usize
    } else {
        0
    }
}

pub(crate) fn upload_frame(
    rt: &mut Runtime,
    renderer: &Renderer,
    up: &mut CrowdUpload,
    transforms: &[throng_render::InstanceTransform],
    (frame, changes, dt): (u32, usize, f64),
) -> anyhow::Result<u64> {
    let gpu = &renderer.gpu;
    let first = frame == 0;
    let n = rt.len();
    for k in 0..changes.min(n) {
        let i = (frame as usize * changes + k) % n;
        if let Some(h) = rt.handle_at(i) {
            // Alternating speeds: every change rewrites the record.
            rt.set_speed(h, if frame % 2 == 0 { 1.0 } else { 1.05 })?;
        }
    }
    if let Some(cpu) = rt.cpu_mut().filter(|_| !first) {
        // CPU-timed: the records go straight into the upload's staging memory, written once
        return Ok(
            up.update_cpu_timed_in_place(gpu, n, transforms, false, |out| {
                cpu.update_into(dt, out).map_err(anyhow::Error::from)
            })?,
        );
    }
    if !first {
        rt.update(dt);
    }
    let bytes = up.update(gpu, rt.record_changes(), transforms, first)?;
    rt.clear_changes();
    Ok(bytes)
}

pub fn run(args: Args) -> anyhow::Result<()> {
    if args.frames == 0 {
        anyhow::bail!("--frames must be at least 1");
    }
    if args.instances.contains(&0) {
        anyhow::bail!("--instances: every count must be at least 1");
    }
    if let Some(n) = args.field {
        return field::run(&args, n);
    }
    let (asset, name) = load(&args)?;
    let mut renderer = Renderer::new().context("creating a GPU device")?;
    let gpu_asset = renderer.upload(&asset)?;
    let has_vat = asset.primitives.iter().all(|p| p.vat.is_some());
    let bounds = asset.pose_bounds();
    let (w, h) = args.size;
    let base = RenderOptions {
        width: w,
        height: h,
        shadows: !args.no_shadows,
        occlusion: !args.no_occlusion,
        palette_refresh: args.palette_refresh.unwrap_or([1; 4]),
        ..Default::default()
    };
    let prims = asset.primitives.len() as u64;
    let verts: u64 = asset
        .primitives
        .iter()
        .map(|p| p.positions.len() as u64)
        .sum();
    let indices: u64 = asset
        .primitives
        .iter()
        .map(|p| p.indices.len() as u64)
        .sum();
    let frame_uniform = std::mem::size_of::<FrameUniform>() as u64;
    let dt = 1.0 / 60.0;
    let mut cases = Vec::new();
    for &n in &args.instances {
        let transforms = crowd::grid(n, crowd::spacing(&bounds));
        let mut texture_ms = f64::NAN;
        for path in ["texture", "palette", "palette-motion", "vat", "reference"] {
            if !args.paths.iter().any(|p| p == path)
                || (path == "vat" && !has_vat)
                || (path == "reference" && n > REFERENCE_MAX)
            {
                continue;
            }
            let (mut frame_s, mut cpu_s) = (0.0, 0.0);
            let mut gpu_ns: Option<u64> = Some(0);
            let (mut palette_ns, mut palette_instances): (Option<u64>, u64) = (Some(0), 0);
            let mut palettes_per_frame = Vec::new();
            let timing = if path == "reference" {
                Timing::Cpu
            } else {
                args.timing
            };
            let assignments = bench_assignments(&asset, transforms.len());
            let mut player =
                crowd::new_runtime(timing, &asset.clips, &assignments, &transforms, 0.0, None)?;
            let mut up = CrowdUpload::new(&renderer.gpu.device, timing);
            let changes = changes_per_frame(timing, args.changing, n);
            let mut uploaded = 0u64;
            for f in 0..args.frames + 2 {
                let start = Instant::now();
                if path == "reference" {
                    if f > 0 {
                        player.update(dt);
                    }
                    let records = (player.records().cpu())
                        .context("the reference path draws CPU-timed records")?;
                    let decoded =
                        DecodedMeshes::new(&asset, records, &transforms, Skinning::Linear)?;
                    let mut meshes = decoded.meshes();
                    // Untextured: the reference API decodes a mesh's texture per mesh, which
                    // would measure PNG decoding rather than skinning.
                    for m in &mut meshes {
                        m.texture = None;
                    }
                    let cpu = start.elapsed().as_secs_f64();
                    renderer.render_reference(&meshes, &base)?;
                    if f >= 2 {
                        cpu_s += cpu;
                        frame_s += start.elapsed().as_secs_f64();
                    }
                } else {
                    let bytes = upload_frame(
                        &mut player,
                        &renderer,
                        &mut up,
                        &transforms,
                        (f, changes, dt),
                    )?;
                    let cpu = start.elapsed().as_secs_f64();
                    let opts = RenderOptions {
                        path: match path {
                            "vat" => SkinPath::Vat,
                            "palette" | "palette-motion" => SkinPath::Palette,
                            _ => SkinPath::Texture,
                        },
                        motion_vectors: path == "palette-motion",
                        ..base
                    };
                    let crowd = Crowd {
                        asset: &gpu_asset,
                        transforms: &transforms,
                        playback: Playback::Uploaded(&up),
                        props: &[],
                        live: &[],
                    };
                    let frame = renderer.render_scene(&[crowd], &opts)?;
                    if f >= 2 {
                        cpu_s += cpu;
                        frame_s += start.elapsed().as_secs_f64();
                        gpu_ns = gpu_ns.zip(frame.stats.gpu_ns).map(|(a, b)| a + b);
                        palette_ns = palette_ns.zip(frame.stats.palette_ns).map(|(a, b)| a + b);
                        palette_instances += frame.stats.palette_instances;
                        palettes_per_frame.push(frame.stats.palette_instances);
                        uploaded += bytes;
                    }
                }
            }
            let frame_ms = frame_s * 1e3 / args.frames as f64;
            let gpu_ms = gpu_ns
                .filter(|_| path != "reference")
                .map(|ns| ns as f64 * 1e-6 / args.frames as f64);
            if path == "texture" {
                texture_ms = frame_ms;
            }
            let palette = path.starts_with("palette");
            let palette_ms = palette_ns
                .filter(|_| palette)
                .map(|ns| ns as f64 * 1e-6 / args.frames as f64);
            let palette_us_per_instance = palette_ns
                .filter(|_| palette && palette_instances > 0)
                .map(|ns| ns as f64 * 1e-3 / palette_instances as f64);
            let n64 = n as u64;
            let record = timing.record_bytes() as u64;
            let (draws, upload_bytes) = if path == "reference" {
                (
                    n64 * prims + 1,
                    n64 * (verts * REF_VERTEX_BYTES + indices * 4 + 48) + frame_uniform,
                )
            } else {
                (prims + 1, uploaded / args.frames as u64 + frame_uniform)
            };
            cases.push(Case {
                path,
                instances: n,
                frame_ms,
                cpu_ms: cpu_s * 1e3 / args.frames as f64,
                gpu_ms,
                palette_ms,
                palette_us_per_instance,
                palettes_per_frame: palette.then_some(palettes_per_frame),
                palette_refresh: palette.then_some(base.palette_refresh),
                vs_texture: Some(frame_ms / texture_ms).filter(|r| r.is_finite()),
                draws,
                timing: timing.as_str(),
                upload_bytes,
                full_record_bytes: n64 * record,
            });
        }
    }
    let report = Report {
        run: RunInfo::new(&renderer, name, (w, h), args.frames),
        primitives: asset.primitives.len(),
        vertices: verts as usize,
        cases,
    };
    let text = if args.json {
        serde_json::to_string_pretty(&report)? + "\n"
    } else {
        table(&report)
    };
    print_stdout(&text)?;
    Ok(())
}

fn table(r: &Report) -> String {
    let mut s = format!(
        "adapter: {}\nasset: {} ({} primitive(s), {} vertices), {}x{}, {} timed frames per case\n\
         frame = wall time of a whole frame incl. read back; cpu = preparing records or \
         skinned vertices\n\n",
        r.run.adapter,
        r.run.asset,
        r.primitives,
        r.vertices,
        r.run.width,
        r.run.height,
        r.run.frames
    );
    s += &format!(
        "{:>9} {:>14} {:>10} {:>9} {:>9} {:>11} {:>11} {:>7} {:>22}\n",
        "instances",
        "path",
        "frame ms",
        "gpu ms",
        "cpu ms",
        "palette ms",
        "vs texture",
        "draws",
        "upload / all records B"
    );
    for c in &r.cases {
        let gpu = c.gpu_ms.map_or("-".to_string(), |g| format!("{g:.2}"));
        let palette = c.palette_ms.map_or("-".to_string(), |g| format!("{g:.2}"));
        let vs = c.vs_texture.map_or("-".to_string(), |v| format!("{v:.2}x"));
        let up = format!(
            "{} / {} ({})",
            c.upload_bytes, c.full_record_bytes, c.timing
        );
        s += &format!(
            "{:>9} {:>14} {:>10.2} {:>9} {:>9.3} {palette:>11} {vs:>11} {:>7} {up:>22}\n",
            c.instances, c.path, c.frame_ms, gpu, c.cpu_ms, c.draws
        );
    }
    s
}
