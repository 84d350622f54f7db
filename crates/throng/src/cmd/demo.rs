//! `throng demo`: the whole pipeline in one command, for a first look.
//!
//! 1. The built-in fox (`throng_demo`, generated in code) or `--asset F` is imported and baked
//!    in memory (the bake summary and fidelity line of `throng bake`).
//! 2. A crowd plays (`throng_scene::DemoCrowd`) on a jittered grid facing random ways: the
//!    built-in fox through its locomotion graph (throng-graph), each instance's speed and sit
//!    trigger changing over time; another character through a clip script in the CPU-timed
//!    runtime (idle → walk → run → walk crossfades, walk/run blends, a one-shot).
//! 3. The GPU draws it on the palette skinning path (texture when the crowd's palette does not
//!    fit the device's buffers) on whatever adapter exists (Mesa's
//!    lavapipe without a GPU: fewer instances and a smaller picture by default, since every
//!    vertex is skinned on the CPU there), culled on the GPU, with LODs (baked at
//!    [`DEMO_LODS`]), far-tier cards for the distant foxes and shadows: `demo.png` after a short warm-up, then `demo.gif`, one
//!    runtime step per GIF frame.
//!
//! Without any adapter the bake and the runtime still run; then it says what to install and
//! fails (exit 1).

use anyhow::Context;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use throng_asset::BakedAsset;
use throng_bake::BakeOptions;
use throng_render::device::DeviceError;
use throng_render::{InstanceRecord, Playback, Records, RenderOptions, Renderer, SkinPath};
use throng_runtime::crowd::spacing;

use super::shared::{self, encode_gif, encode_png, parse_size, write_atomic, GraphOn};
use throng_scene::{overview_camera, DemoCrowd, Roles};

/// LOD index-count ratios the demo bakes: far foxes are drawn with a tenth of the triangles.
pub const DEMO_LODS: [f32; 3] = [0.5, 0.25, 0.1];

/// Default crowd on a hardware GPU and on a software rasteriser (lavapipe/llvmpipe skins and
/// rasterises on the CPU: ~9 M skinned vertices per frame at 1,000 foxes).
const HARDWARE_INSTANCES: u32 = 10_000;
const SOFTWARE_INSTANCES: u32 = 1_000;
const HARDWARE_SIZE: (u32, u32) = (1280, 720);
const SOFTWARE_SIZE: (u32, u32) = (960, 540);
const HARDWARE_FRAMES: u32 = 36;
const SOFTWARE_FRAMES: u32 = 24;
/// The GIF is at most this wide by default (file size grows with the pixel count).
const GIF_MAX_WIDTH: u32 = 480;
/// Simulated seconds played before the PNG is taken, in steps of 1/30 s, so crossfades are
/// under way and clips out of step.
const WARMUP_S: f64 = 1.5;
const WARMUP_DT: f64 = 1.0 / 30.0;
/// Simulated seconds per GIF frame: 7 hundredths (GIF delays are whole hundredths), ~14 fps.
const GIF_DELAY_CS: u32 = 7;
/// Source name of the built-in character in messages and in the baked asset.
const BUILTIN_NAME: &str = "throng-demo-fox.glb";

#[derive(clap::Args)]
pub struct Args {
    /// Number of instances (default: 10,000 on a hardware GPU, 1,000 on a software adapter).
    #[arg(long, allow_hyphen_values = true, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub instances: Option<u32>,
    /// Folder for demo.png and demo.gif (created when missing).
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub out_dir: PathBuf,
    /// A glTF or FBX character (.gltf/.glb/.fbx) to use instead of the built-in fox.
    #[arg(long, value_name = "FILE")]
    pub asset: Option<PathBuf>,
    /// Frames of the animated GIF, 7/100 s of simulated time each (default: 36 on a hardware
    /// GPU, 24 on software).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub frames: Option<u32>,
    /// Size of demo.png, WIDTHxHEIGHT (default 1280x720 on a hardware GPU, 960x540 on software).
    #[arg(long, allow_hyphen_values = true, value_parser = parse_size)]
    pub size: Option<(u32, u32)>,
    /// Size of demo.gif, WIDTHxHEIGHT (default: --size, scaled down to at most 480 wide).
    #[arg(long, value_parser = parse_size)]
    pub gif_size: Option<(u32, u32)>,
    /// Where the built-in fox's locomotion graph steps: on the GPU (docs/graph.md "On the
    /// GPU": the CPU sends only parameter changes), on the CPU, or auto: the GPU on a hardware
    /// adapter with compute shaders, the CPU on a software or downlevel one.
    #[arg(long, value_enum, default_value_t = GraphOn::Auto)]
    pub graph: GraphOn,
}

/// The crowd and pictures of a run: the flags, else the adapter's defaults.
struct Plan {
    instances: u32,
    /// Size of demo.png.
    size: (u32, u32),
    gif_frames: u32,
    gif_size: (u32, u32),
}

impl Plan {
    /// The plan for `args` on `renderer` (an error counts as a software adapter), with the
    /// line that says what was found and chosen.
    fn new(args: &Args, renderer: &Result<Renderer, throng_render::RenderError>) -> Plan {
        let software = match renderer {
            Ok(r) => r.adapter().is_software(),
            Err(_) => true,
        };
        fn by<T>(software: bool, hardware: T, soft: T) -> T {
            if software {
                soft
            } else {
                hardware
            }
        }
        let size = args
            .size
            .unwrap_or(by(software, HARDWARE_SIZE, SOFTWARE_SIZE));
        let plan = Plan {
            instances: args.instances.unwrap_or(by(
                software,
                HARDWARE_INSTANCES,
                SOFTWARE_INSTANCES,
            )),
            size,
            gif_frames: args
                .frames
                .unwrap_or(by(software, HARDWARE_FRAMES, SOFTWARE_FRAMES)),
            gif_size: args
                .gif_size
                .unwrap_or_else(|| fit_width(size, GIF_MAX_WIDTH)),
        };
        let how = if args.instances.is_some() {
            "as asked"
        } else if software {
            "the software default: it skins and rasterises on the CPU; pass --instances for more"
        } else {
            "the hardware-GPU default"
        };
        match renderer {
            Ok(r) => println!(
                "adapter: {} — {} → {} instances ({how})",
                r.adapter(),
                by(software, "a hardware GPU", "a software rasteriser"),
                thousands(plan.instances as u64),
            ),
            Err(throng_render::RenderError::Device(DeviceError::RequestDevice {
                adapter, ..
            })) => {
                println!(
                    "adapter: {adapter} refused a device → {} instances (the runtime runs; nothing can be drawn)",
                    thousands(plan.instances as u64)
                )
            }
            Err(_) => println!(
                "adapter: none found → {} instances (the runtime runs; nothing can be drawn)",
                thousands(plan.instances as u64)
            ),
        }
        if let Ok(r) = renderer {
            if let Some(line) = shared::mode_line(r, false) {
                println!("{line}");
            }
        }
        plan
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    std::fs::create_dir_all(&args.out_dir)
        .with_context(|| format!("creating the output folder {}", args.out_dir.display()))?;
    // Absolute, so the "wrote …" lines say exactly where the pictures are.
    let out_dir = std::fs::canonicalize(&args.out_dir).unwrap_or_else(|_| args.out_dir.clone());
    // Before the bake and the drawing, not after them.
    for name in ["demo.png", "demo.gif"] {
        throng_scene::check_writable(&out_dir.join(name))?;
    }

    let (model, name) = load(args.asset.as_deref())?;
    let asset = bake(&model, &name)?;

    // The adapter decides the default crowd and picture size.
    let renderer = Renderer::new();
    let plan = Plan::new(&args, &renderer);

    let bounds = asset.pose_bounds();
    let mut crowd = DemoCrowd::new(&asset.clips, plan.instances, spacing(&bounds))
        .context("starting the crowd")?;
    describe_crowd(&asset, &crowd);
    let warmup_steps = (WARMUP_S / WARMUP_DT).round() as u32;
    for _ in 0..warmup_steps {
        crowd.step(WARMUP_DT)?;
    }

    let mut renderer = match renderer {
        Ok(r) => r,
        Err(e) => return Err(no_device(&mut crowd, plan.gif_frames, e)),
    };
    move_graph(&mut crowd, &renderer, args.graph)?;
    let gpu_asset = renderer
        .upload(&asset)
        .context("uploading the baked asset")?;
    let transforms = crowd.transforms().to_vec();
    let scene = throng_render::camera::crowd_bounds(&gpu_asset.bounds, &transforms);
    // The palette path, the fastest measured (docs/benchmarks.md), when the crowd's palette
    // fits one buffer of the device.
    // A downlevel device (no compute shaders) never fits: the texture path.
    let (path, path_name) = match renderer.palette_fits(asset.palette.len(), crowd.len()) {
        true => (SkinPath::Palette, "palette"),
        false => (SkinPath::Texture, "texture"),
    };
    let options = |(width, height): (u32, u32)| RenderOptions {
        width,
        height,
        path,
        camera: Some(overview_camera(&scene, width as f32 / height as f32)),
        ..Default::default()
    };
    let drawing = (&mut renderer, &gpu_asset, transforms.as_slice());
    draw_still(drawing, &mut crowd, &options(plan.size), &out_dir)?;
    // The still's time includes compiling the pipelines, so it does not predict a GIF frame;
    // the progress bar shows the estimate once frames are drawn.
    println!(
        "drawing {} GIF frames at {}×{}",
        plan.gif_frames, plan.gif_size.0, plan.gif_size.1
    );
    let drawing = (&mut renderer, &gpu_asset, transforms.as_slice());
    let gif = draw_gif(
        drawing,
        &mut crowd,
        &plan,
        &options(plan.gif_size),
        &out_dir,
    )?;
    let stats = &gif.stats;
    print_runtime(&crowd);
    println!(
        "render: {:.1} ms per frame at {}×{} (GPU {path_name} skinning, {} culling and LODs, \
         shadows, readback included); last frame: {} draw calls for {} instances ({} \
         primitive(s), {} LODs, 2 passes, the ground), {} in view (per LOD {:?}), {} casting \
         shadows, {} triangles",
        ms(gif.render_time) / plan.gif_frames as f64,
        plan.gif_size.0,
        plan.gif_size.1,
        if renderer.downlevel_reason().is_some() {
            "CPU (downlevel mode)"
        } else {
            "GPU"
        },
        stats.draws,
        thousands(plan.instances as u64),
        asset.primitives.len(),
        gpu_asset.lod_count(),
        thousands(stats.instances_drawn),
        stats.instances_per_lod,
        thousands(stats.shadow_instances),
        thousands(stats.triangles),
    );
    println!(
        "wrote {} ({}×{}, {} frames at {:.1} fps, {}, encoded in {:.0} ms)",
        gif.path.display(),
        plan.gif_size.0,
        plan.gif_size.1,
        plan.gif_frames,
        100.0 / GIF_DELAY_CS as f64,
        kib(gif.bytes),
        gif.encode_ms
    );
    Ok(())
}

/// Without a GPU device: plays the simulated time the GIF would have shown (so the runtime's
/// timing means the same), prints it, and says what to install.
fn no_device(
    crowd: &mut DemoCrowd,
    gif_frames: u32,
    e: throng_render::RenderError,
) -> anyhow::Error {
    for _ in 0..gif_frames {
        if let Err(step) = crowd.step(gif_dt()) {
            return step;
        }
    }
    print_runtime(crowd);
    // Software Vulkan helps only where no adapter was found, not where one refused a device.
    let no_adapter = matches!(
        e,
        throng_render::RenderError::Device(DeviceError::NoAdapter { .. })
    );
    let hint = if e.to_string().contains("apt-get") || !no_adapter {
        String::new()
    } else {
        format!("; {}", throng_render::device::SOFTWARE_GPU_HINT)
    };
    anyhow::Error::new(e).context(format!(
        "cannot render the demo: the bake and the runtime ran, but no GPU device \
         could be created{hint}"
    ))
}

/// Moves the locomotion graph to the GPU as `graph` asks, and says where it steps.
fn move_graph(crowd: &mut DemoCrowd, renderer: &Renderer, graph: GraphOn) -> anyhow::Result<()> {
    if !crowd.graph_driven() {
        if graph == GraphOn::Gpu {
            println!("graph: --graph gpu has nothing to step (this crowd is played by clips)");
        }
        return Ok(());
    }
    let placed = crowd
        .place_graph(&renderer.gpu, graph.step_on())
        .with_context(|| {
            format!(
                "stepping the locomotion graph on the GPU of {} (--graph gpu); --graph cpu steps \
             it on the CPU",
                renderer.adapter().name
            )
        })?;
    let (on_gpu, because) = placed.unwrap_or((false, None));
    let line = throng_graph_gpu::where_it_steps(on_gpu, because.as_deref(), None, "--graph");
    println!("{line}");
    Ok(())
}

/// What the crowd is drawn from (after `DemoCrowd::prepare_draw`): the records the GPU graph
/// wrote, or the CPU's, copied into `records`.
fn playback<'a>(crowd: &'a DemoCrowd, records: &'a mut Vec<InstanceRecord>) -> Playback<'a> {
    match crowd.gpu_upload() {
        Some(upload) => Playback::Uploaded(upload),
        None => {
            *records = crowd.records();
            Playback::Records(Records::Cpu(records))
        }
    }
}

/// What the pictures are drawn with: the renderer, the uploaded asset, the crowd's transforms.
type Drawing<'a> = (
    &'a mut Renderer,
    &'a throng_render::GpuAsset,
    &'a [throng_render::InstanceTransform],
);

/// demo.png: the crowd now (the first draw also compiles the pipelines).
fn draw_still(
    (renderer, gpu_asset, transforms): Drawing,
    crowd: &mut DemoCrowd,
    options: &RenderOptions,
    out_dir: &Path,
) -> anyhow::Result<()> {
    let t = Instant::now();
    crowd.prepare_draw()?;
    let mut records = Vec::new();
    let playback = playback(crowd, &mut records);
    let looks = crowd.appearances(gpu_asset.primitives.len());
    let png_image = renderer
        .render_scene(
            &[throng_render::Crowd {
                appearance: throng_render::CrowdAppearance::Slice(&looks),
                ..throng_render::Crowd::new(gpu_asset, transforms, playback)
            }],
            options,
        )?
        .image;
    let png_ms = ms(t.elapsed());
    let png_path = out_dir.join("demo.png");
    let png_bytes = encode_png(&png_image)?;
    write_atomic(&png_path, &png_bytes)
        .with_context(|| format!("writing {}", png_path.display()))?;
    println!(
        "wrote {} ({}×{}, {}; drawn in {png_ms:.0} ms with pipeline compilation)",
        png_path.display(),
        options.width,
        options.height,
        kib(png_bytes.len())
    );
    Ok(())
}

/// What drawing demo.gif took and wrote.
struct Gif {
    /// Time spent drawing the frames.
    render_time: Duration,
    /// The last frame's statistics.
    stats: throng_render::FrameStats,
    path: PathBuf,
    bytes: usize,
    encode_ms: f64,
}

/// demo.gif: one runtime step per frame.
fn draw_gif(
    (renderer, gpu_asset, transforms): Drawing,
    crowd: &mut DemoCrowd,
    plan: &Plan,
    options: &RenderOptions,
    out_dir: &Path,
) -> anyhow::Result<Gif> {
    let bar = shared::bar(plan.gif_frames as u64, "rendering demo.gif", "frames");
    let mut frames = Vec::with_capacity(plan.gif_frames as usize);
    let mut render_time = Duration::ZERO;
    let mut stats = throng_render::FrameStats::default();
    for _ in 0..plan.gif_frames {
        crowd.step(gif_dt())?;
        let t = Instant::now();
        crowd.prepare_draw()?;
        let mut records = Vec::new();
        let playback = playback(crowd, &mut records);
        let looks = crowd.appearances(gpu_asset.primitives.len());
        let frame = renderer.render_scene(
            &[throng_render::Crowd {
                asset: gpu_asset,
                transforms,
                playback,
                props: &[],
                live: &[],
                appearance: throng_render::CrowdAppearance::Slice(&looks),
            }],
            options,
        )?;
        render_time += t.elapsed();
        frames.push(frame.image);
        stats = frame.stats;
        bar.inc(1);
    }
    bar.finish_and_clear();
    let t = Instant::now();
    let gif_bytes = encode_gif(frames, 100.0 / GIF_DELAY_CS as f64)?;
    let gif_ms = ms(t.elapsed());
    let gif_path = out_dir.join("demo.gif");
    write_atomic(&gif_path, &gif_bytes)
        .with_context(|| format!("writing {}", gif_path.display()))?;
    Ok(Gif {
        render_time,
        stats,
        path: gif_path,
        bytes: gif_bytes.len(),
        encode_ms: gif_ms,
    })
}

/// Seconds of simulated time per GIF frame.
fn gif_dt() -> f64 {
    GIF_DELAY_CS as f64 / 100.0
}

/// The source model and its name: `--asset`, or the built-in fox.
fn load(asset: Option<&Path>) -> anyhow::Result<(throng_anim::Model, String)> {
    let (model, name) = match asset {
        Some(path) => {
            let model = shared::load_model(path, &shared::SourceArgs::default())?;
            (model, shared::file_name(path))
        }
        None => {
            let t = Instant::now();
            let bytes = throng_demo::demo_glb();
            let model = throng_gltf::import_slice(&bytes, None, BUILTIN_NAME)
                .context("importing the built-in fox")?;
            let d = throng_demo::demo_description();
            println!(
                "built-in fox: {} joints, {} vertices, {} triangles, {} clips ({} bytes of glTF, \
                 generated in {:.1} ms)",
                d.joints,
                d.vertices,
                d.triangles,
                d.clips.len(),
                bytes.len(),
                ms(t.elapsed())
            );
            (model, BUILTIN_NAME.to_string())
        }
    };
    for w in &model.warnings {
        eprintln!("warning: {w}");
    }
    Ok((model, name))
}

/// Bakes in memory with `throng bake`'s defaults, printing its summary and fidelity line.
fn bake(model: &throng_anim::Model, name: &str) -> anyhow::Result<BakedAsset> {
    let options = BakeOptions {
        source_name: name.to_string(),
        lods: DEMO_LODS.to_vec(),
        // `throng bake`'s defaults: 4 or 8 influences by the budget, the budget met as closely
        // as it can be (with a warning) rather than refused.
        auto_influences: true,
        budget_strict: false,
        // Distant foxes become far-tier cards (docs/design.md §5 "Far tier").
        far_tier: Some(Default::default()),
        ..BakeOptions::default()
    };
    let t = Instant::now();
    let (asset, report) =
        shared::bake_with_bar(model, &options).with_context(|| format!("baking {name}"))?;
    println!("baked {name} in memory in {:.1} ms", ms(t.elapsed()));
    shared::print_report(&report, report.influences);
    shared::print_fidelity(&asset, model)?;
    for w in &report.warnings {
        eprintln!("warning: {w}");
    }
    Ok(asset)
}

fn describe_crowd(asset: &BakedAsset, crowd: &DemoCrowd) {
    let roles = Roles::pick(&asset.clips);
    if asset.clips.is_empty() {
        println!(
            "crowd: {} instances in the rest pose (the asset has no clips)",
            thousands(crowd.len() as u64)
        );
        return;
    }
    if crowd.graph_driven() {
        println!(
            "crowd: {} instances on a jittered grid facing random ways, played by the locomotion \
             graph (throng-graph): idle, walk/run blended by each instance's speed parameter \
             (changing every 1.5–4 s), some stopping to sit on a trigger",
            thousands(crowd.len() as u64),
        );
        return;
    }
    let names = |v: &[usize]| {
        v.iter()
            .map(|&c| asset.clips[c].name.as_str())
            .collect::<Vec<_>>()
            .join(" → ")
    };
    let mut extra = String::new();
    if let Some((a, b)) = roles.blend {
        extra += &format!(
            ", some blending {}/{}",
            asset.clips[a].name, asset.clips[b].name
        );
    }
    if let Some(s) = roles.one_shot {
        extra += &format!(", some playing {} once", asset.clips[s].name);
    }
    println!(
        "crowd: {} instances on a jittered grid facing random ways, crossfading {}{extra}, \
         speeds ×0.8–1.25",
        thousands(crowd.len() as u64),
        names(&roles.cycle),
    );
}

fn print_runtime(crowd: &DemoCrowd) {
    let s = crowd.stats;
    if crowd.graph_on_gpu() {
        println!(
            "runtime: {:.3} ms per update on the CPU (the locomotion graph stepped on the GPU: the \
             script, its parameter changes uploaded and the last step's state events taken a \
             frame late; {} instances, {} updates = {:.1} s simulated, the warm-up on the CPU \
             included; {} parameter changes, {} state events fired)",
            s.ms_per_step(),
            thousands(crowd.len() as u64),
            s.steps,
            s.simulated,
            s.blends,
            s.events
        );
        return;
    }
    let (who, changes, steers) = match crowd.graph_driven() {
        true => (
            "the locomotion graph's step, ",
            "state transitions",
            "parameter changes",
        ),
        false => ("", "crossfades", "blend changes"),
    };
    println!(
        "runtime: {:.3} ms per update ({who}CPU-timed, {} instances, {} updates = {:.1} s simulated, \
         the warm-up before the picture included; \
         {} {changes}, {} {steers}, {} events fired)",
        s.ms_per_step(),
        thousands(crowd.len() as u64),
        s.steps,
        s.simulated,
        s.crossfades,
        s.blends,
        s.events
    );
}

/// `size` scaled down (keeping its aspect, even dimensions) to at most `max_w` pixels wide.
fn fit_width((w, h): (u32, u32), max_w: u32) -> (u32, u32) {
    if w <= max_w {
        return (w, h);
    }
    let h2 = (h as u64 * max_w as u64 / w as u64) as u32;
    (max_w, (h2 & !1).max(2))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn kib(bytes: usize) -> String {
    format!("{:.0} KiB", bytes as f64 / 1024.0)
}

/// `12345` → `12,345`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let groups: Vec<&str> = digits
        .as_bytes()
        .rchunks(3)
        .rev()
        .map(|g| std::str::from_utf8(g).unwrap_or("?"))
        .collect();
    groups.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn gif_size_fits_width() {
        assert_eq!(fit_width((1280, 720), 480), (480, 270));
        assert_eq!(fit_width((320, 180), 480), (320, 180));
        assert_eq!(fit_width((960, 541), 480), (480, 270));
    }
}
