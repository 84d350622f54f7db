//! The field (`throng bench render --field N`): what culling and LOD selection buy on a crowd at
//! scale.
//!
//! N instances of one asset (default the Fox of `THRONG_ASSETS`, else the built-in fox; baked in
//! memory with LODs, [`FieldOptions::lods`]) stand on a square grid 1.2 model lengths apart. The camera
//! stands low at the middle of one edge ([`FieldOptions::eye`] model heights up) and looks across the
//! field; its far plane ends the view at 0.56 × the field's side, so the view wedge (35° field of
//! view) holds about a tenth of the field: near instances fill many pixels (LOD 0), far ones a few
//! (the smallest LOD).
//!
//! Six cases, the same camera placement and shadows:
//! - `cull+lod`: GPU frustum culling (view and shadow camera, each instance boxed by the
//!   frame-table rows it shows) and LOD selection with `lod_bias` = 1 pixel, all N instances
//!   submitted;
//! - `cull+lod+occlusion`: the same and occlusion culling (two phases around a depth pyramid);
//!   its picture is compared with `cull+lod`'s (pixels differing by more than 8/255);
//! - `cull+lod (clip boxes)`: the same with each instance boxed by its clips' union of rows
//!   (`row_bounds: false`), to show what per-row boxes save;
//! - `cull+lod (shadows at the view's LOD)`: the shadow pass at the LOD the view chose instead of
//!   its own by shadow-map texel size (`ShadowLod::Main`);
//! - `cull+lod+occlusion (GPU-timed)`: the same GPU-timed, [`RenderBenchOptions::changing`] of
//!   the instances (1 % by the command line's default) changing speed each frame: only their records and the clock are uploaded
//!   (`upload_bytes` against `full_record_bytes`);
//! - `off`: no culling, LOD 0 everywhere (`cull: false`, `lod_bias` 0) on a field of
//!   min(N, [`FieldOptions::off_cap`]) instances: every instance drawn in full in both passes.
//!
//! Every case keeps its records in a `CrowdUpload` across frames (CPU-timed: every record each
//! frame). Per case, medians over [`FieldOptions::frames`] timed frames after two warm-ups (occlusion culling's
//! history settles in two frames: the first finds every instance visible, the second draws them
//! all first and finds which are hidden):
//! - frame ms = wall time of a whole frame: the CPU-timed records (64 B per instance), then
//!   `Renderer::render_scene` (uploads, culling, shadow and main pass, waiting for the GPU and
//!   reading the picture and the indirect arguments back);
//! - cpu ms = the CPU side alone: the same records plus recording the frame with
//!   `Renderer::encode_frame` into a command buffer that is never submitted (buffer creation
//!   and uploads, bind groups, pass recording; no GPU wait);
//! - draws, instances per LOD, triangles: the GPU's own counts from the indirect arguments.
//!
//! Ratios compare `cull+lod` with `off` raw and per submitted instance (the cases differ in N).

use anyhow::Context;
use glam::Vec3;
use std::path::PathBuf;
use std::time::Instant;
use throng_asset::BakedAsset;
use throng_render::image::RgbaImage;
use throng_render::{Camera, Crowd, FrameStats, Playback, RenderOptions, Renderer};

use super::{bench_assignments, load_asset, upload_frame, RenderBenchOptions, RunInfo, WARM_UP};
use throng_render::{CrowdUpload, Timing};
use throng_runtime::crowd;

#[derive(serde::Serialize)]
struct Case {
    case: &'static str,
    /// Instances submitted (on the grid).
    instances: u32,
    cull: bool,
    lod_bias: f32,
    /// Median wall time of a frame incl. read back, milliseconds.
    frame_ms: f64,
    /// Median CPU time of recording a frame (records + encode, no GPU wait), milliseconds.
    cpu_ms: f64,
    /// Median GPU time of a frame's passes (timestamp queries), milliseconds; null where the
    /// device has none.
    gpu_ms: Option<f64>,
    /// Every timed frame's wall time, milliseconds.
    frame_ms_all: Vec<f64>,
    draws: u32,
    shadow_draws: u32,
    instances_drawn: u64,
    instances_per_lod: Vec<u64>,
    shadow_instances: u64,
    triangles: u64,
    shadow_triangles: u64,
    /// Of `instances_drawn`, drawn by occlusion culling's second phase (0 without it).
    second_phase_instances: u64,
    /// Who timed playback (`cpu`, `gpu`).
    timing: &'static str,
    /// Mean bytes the crowd's `CrowdUpload` wrote per timed frame (records, transforms, clock).
    upload_bytes: u64,
    /// Every instance's record: what a frame would upload if it wrote them all.
    full_record_bytes: u64,
    /// frame_ms × 1000 / instances submitted.
    frame_us_per_instance: f64,
    cpu_us_per_instance: f64,
    /// Main-pass triangles / instances submitted.
    triangles_per_instance: f64,
}

/// `cull+lod` / `off`.
#[derive(serde::Serialize)]
struct Ratios {
    frame_ms: f64,
    frame_per_instance: f64,
    cpu_ms: f64,
    cpu_per_instance: f64,
    triangles: f64,
    triangles_per_instance: f64,
    draws: f64,
}

/// The field's report: every case, and the ratios that say what culling and LODs buy.
#[derive(serde::Serialize)]
pub struct Report {
    /// Its `frames` are timed after 2 warm-up frames.
    #[serde(flatten)]
    run: RunInfo,
    lod_ratios: Vec<f32>,
    /// Triangles of one instance at LOD 0, 1, ... (all primitives).
    lod_triangles: Vec<u64>,
    /// Grid spacing, file units.
    spacing: f32,
    cases: Vec<Case>,
    on_vs_off: Ratios,
    occlusion: OcclusionFigures,
}

/// `cull+lod+occlusion` against `cull+lod`.
#[derive(serde::Serialize)]
struct OcclusionFigures {
    /// Instances drawn in the main pass, occlusion / cull+lod.
    instances_drawn: f64,
    /// Main-pass triangles, occlusion / cull+lod.
    triangles: f64,
    /// Of the last frame, the instances drawn by the second phase (newly visible).
    second_phase_instances: u64,
    /// Fraction of pixels whose R, G or B differ by more than 8/255 between the two pictures.
    pixels_differing: f64,
}

/// The spacing of a field of `asset`'s instances (the runtime's grid for its posed bounds)
/// and the model's height (1 without bounds), as [`field_camera`] takes them.
pub(crate) fn field_scale(asset: &BakedAsset) -> (f32, f32) {
    let bounds = asset.pose_bounds();
    let height = if bounds.is_empty() {
        1.0
    } else {
        bounds.max.y - bounds.min.y
    };
    (crowd::spacing(&bounds), height)
}

/// The camera of a field of `n` instances `s` apart (the runtime's square grid, centred on the
/// origin) of a model `height` tall: at the middle of the −Z edge, `eye` heights up, looking
/// across the field at a point a third of the way in (on the ground); far plane at 0.56 × the
/// side (about a tenth of the field inside the 35° view wedge: 0.56² × tan 17.5° ≈ 0.1).
pub(crate) fn field_camera(n: u32, s: f32, height: f32, eye: f32) -> Camera {
    let cols = (n as f32).sqrt().ceil().max(1.0);
    let rows = (n as f32 / cols).ceil().max(1.0);
    let (w, d) = ((cols - 1.0) * s, (rows - 1.0) * s);
    let side = w.max(d).max(s);
    let h = height.max(1e-3);
    // the grid's −Z edge is at z = −d/2
    let eye = Vec3::new(0.0, eye * h, -0.5 * d - 3.0 * s);
    Camera {
        eye,
        target: Vec3::new(0.0, 0.0, -0.5 * d + d / 3.0),
        up: Vec3::Y,
        fov_y: 35f32.to_radians(),
        near: (0.05 * s).max(1e-4),
        far: 0.56 * side + 3.0 * s,
    }
}

pub(crate) fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    match s.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => s[n / 2],
        n => 0.5 * (s[n / 2 - 1] + s[n / 2]),
    }
}

/// Default field asset: the options' asset, else `THRONG_ASSETS/Fox.glb` when it exists, else
/// the built-in fox.
pub(crate) fn field_asset(options: &RenderBenchOptions) -> Option<PathBuf> {
    options.asset.clone().or_else(|| {
        std::env::var_os("THRONG_ASSETS")
            .map(|d| PathBuf::from(d).join("Fox.glb"))
            .filter(|p| p.is_file())
    })
}

/// A colour target of the picture's size for [`Renderer::encode_frame`].
fn encode_target(renderer: &Renderer, w: u32, h: u32) -> wgpu::TextureView {
    let t = renderer
        .gpu
        .device
        .create_texture(&wgpu::TextureDescriptor {
            label: Some("throng bench encode target"),
            size: wgpu::Extent3d {
                width: w,
                height: h,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: throng_render::COLOR_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            view_formats: &[],
        });
    t.create_view(&Default::default())
}

#[allow(clippy::too_many_arguments)]
/// One case: `n` instances `s` apart of a model `height` tall, camera `eye` heights up, timed
/// over `frames`, played with `timing` (`changing`: the fraction changing per frame).
fn measure(
    renderer: &mut Renderer,
    target: &wgpu::TextureView,
    (asset, gpu_asset): (&BakedAsset, &throng_render::GpuAsset),
    case: &'static str,
    (n, s, height): (u32, f32, f32),
    opts: RenderOptions,
    (frames, eye): (u32, f32),
    (timing, changing): (Timing, f64),
) -> anyhow::Result<(Case, throng_render::image::RgbaImage)> {
    let transforms = crowd::grid(n, s);
    let assignments = bench_assignments(asset, transforms.len());
    let mut player =
        crowd::new_runtime(timing, &asset.clips, &assignments, &transforms, 0.0, None)?;
    let mut up = CrowdUpload::new(&renderer.gpu.device, timing);
    let changes = super::changes_per_frame(timing, changing, n);
    let mut uploaded = 0u64;
    let opts = RenderOptions {
        camera: Some(field_camera(n, s, height, eye)),
        ..opts
    };
    let dt = super::DT;
    let (mut frame_ms, mut cpu_ms, mut gpu_ms) = (Vec::new(), Vec::new(), Vec::new());
    let mut last: Option<(FrameStats, throng_render::image::RgbaImage)> = None;
    for f in 0..frames + WARM_UP {
        // CPU side alone: the runtime's update and upload + recording the frame, never
        // submitted.
        let start = Instant::now();
        let bytes = upload_frame(
            &mut player,
            renderer,
            &mut up,
            &transforms,
            (f, changes, dt),
        )?;
        let crowd = Crowd {
            asset: gpu_asset,
            transforms: &transforms,
            playback: Playback::Uploaded(&up),
            props: &[],
            live: &[],
            appearance: throng_render::CrowdAppearance::Default,
        };
        let mut enc = renderer
            .gpu
            .device
            .create_command_encoder(&Default::default());
        renderer.encode_frame(
            &mut enc,
            target,
            throng_render::COLOR_FORMAT,
            opts.width,
            opts.height,
            &[crowd],
            &opts,
        )?;
        drop(enc.finish());
        let cpu = start.elapsed().as_secs_f64() * 1e3;
        // The whole frame: the same upload, render, wait, read back.
        let start = Instant::now();
        let frame = renderer
            .render_scene(&[crowd], &opts)
            .with_context(|| format!("rendering the {case} field of {n}"))?;
        let wall = start.elapsed().as_secs_f64() * 1e3;
        eprintln!("  {case} × {n}: frame {f}: {wall:.1} ms (cpu {cpu:.1} ms)");
        if f >= WARM_UP {
            uploaded += bytes;
            frame_ms.push(wall);
            cpu_ms.push(cpu);
            gpu_ms.extend(frame.stats.gpu_ns.map(|ns| ns as f64 * 1e-6));
        }
        last = Some((frame.stats, frame.image));
    }
    let Some((st, image)) = last else {
        anyhow::bail!("no frame rendered");
    };
    let (fm, cm) = (median(&frame_ms), median(&cpu_ms));
    let nf = n as f64;
    Ok((
        Case {
            case,
            instances: n,
            cull: opts.cull,
            lod_bias: opts.lod_bias,
            frame_ms: fm,
            cpu_ms: cm,
            gpu_ms: (gpu_ms.len() == frame_ms.len()).then(|| median(&gpu_ms)),
            frame_ms_all: frame_ms,
            draws: st.draws,
            shadow_draws: st.shadow_draws,
            instances_drawn: st.instances_drawn,
            instances_per_lod: st.instances_per_lod.clone(),
            shadow_instances: st.shadow_instances,
            triangles: st.triangles,
            shadow_triangles: st.shadow_triangles,
            second_phase_instances: st.second_phase_instances,
            timing: timing.as_str(),
            upload_bytes: uploaded / frames.max(1) as u64,
            full_record_bytes: n as u64 * timing.record_bytes() as u64,
            frame_us_per_instance: fm * 1e3 / nf,
            cpu_us_per_instance: cm * 1e3 / nf,
            triangles_per_instance: st.triangles as f64 / nf,
        },
        image,
    ))
}

/// The field's own settings (the asset, picture size and changing fraction are the
/// benchmark's).
#[derive(Debug, Clone)]
pub struct FieldOptions {
    /// Instances on the grid.
    pub instances: u32,
    /// Instances of the `off` case (no culling, LOD 0 everywhere): at most this many.
    pub off_cap: u32,
    /// LOD index-count ratios of the in-memory bake.
    pub lods: Vec<f32>,
    /// Timed frames per case (after 2 warm-up frames: occlusion culling's history settles in
    /// two); the median is reported.
    pub frames: u32,
    /// Write each case's last frame here (field-cull-lod.png, field-occlusion.png,
    /// field-off.png).
    pub images: Option<PathBuf>,
    /// Height of the camera, in model heights (below 1 the front rows hide most of the field;
    /// above, every instance's top shows over the ones in front).
    pub eye: f32,
}

/// Triangles of one instance at LOD 0, 1, ... (all primitives; a primitive with fewer LODs
/// keeps its last).
fn lod_triangles(asset: &BakedAsset) -> Vec<u64> {
    let lod_count = asset
        .primitives
        .iter()
        .map(|p| p.lods.len() + 1)
        .max()
        .unwrap_or(1);
    (0..lod_count)
        .map(|l| {
            asset
                .primitives
                .iter()
                .map(|p| match l {
                    0 => p.indices.len() as u64 / 3,
                    _ => {
                        p.lods
                            .get(l - 1)
                            .or(p.lods.last())
                            .map_or(p.indices.len(), |x| x.indices.len())
                            as u64
                            / 3
                    }
                })
                .sum()
        })
        .collect()
}

/// Writes the pictures of `cull+lod`, `cull+lod+occlusion` and `off` into `dir` (created when
/// missing).
fn write_images(dir: &std::path::Path, [on, occ, off]: [&RgbaImage; 3]) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    for (img, file) in [
        (on, "field-cull-lod.png"),
        (occ, "field-occlusion.png"),
        (off, "field-off.png"),
    ] {
        let p = dir.join(file);
        let png = throng_scene::encode_png(img)?;
        throng_scene::write_atomic(&p, &png).with_context(|| format!("writing {}", p.display()))?;
    }
    Ok(())
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        f64::NAN
    }
}

/// `cull+lod` against `off`.
fn on_vs_off(on: &Case, off: &Case) -> Ratios {
    Ratios {
        frame_ms: ratio(on.frame_ms, off.frame_ms),
        frame_per_instance: ratio(on.frame_us_per_instance, off.frame_us_per_instance),
        cpu_ms: ratio(on.cpu_ms, off.cpu_ms),
        cpu_per_instance: ratio(on.cpu_us_per_instance, off.cpu_us_per_instance),
        triangles: ratio(on.triangles as f64, off.triangles as f64),
        triangles_per_instance: ratio(on.triangles_per_instance, off.triangles_per_instance),
        draws: ratio(on.draws as f64, off.draws as f64),
    }
}

/// Runs the field's six cases.
pub fn run(options: &RenderBenchOptions, field: &FieldOptions) -> anyhow::Result<Report> {
    let n = field.instances;
    let path = field_asset(options);
    let (asset, name) = load_asset(path.as_deref(), None, &field.lods)?;
    let lod_triangles = lod_triangles(&asset);
    if lod_triangles.len() == 1 {
        eprintln!("note: {name} has no LODs: the cull+lod case culls only");
    }
    let mut renderer = Renderer::new().context("creating a GPU device")?;
    let gpu_asset = renderer.upload(&asset)?;
    let (s, height) = field_scale(&asset);
    let (w, h) = options.size;
    let target = encode_target(&renderer, w, h);
    let base = RenderOptions {
        width: w,
        height: h,
        ..Default::default()
    };
    let off_n = n.min(field.off_cap);
    eprintln!(
        "field: {n} × {name} ({} LOD(s), triangles {:?}), off case {off_n} instances, {w}x{h}",
        lod_triangles.len(),
        lod_triangles
    );
    let frames = field.frames.max(1);
    let eye = field.eye;
    let cpu = (Timing::Cpu, 0.0);
    let mut case = |name, n, opts, timing| {
        measure(
            &mut renderer,
            &target,
            (&asset, &gpu_asset),
            name,
            (n, s, height),
            opts,
            (frames, eye),
            timing,
        )
    };
    let culled = RenderOptions {
        cull: true,
        occlusion: false,
        lod_bias: 1.0,
        ..base
    };
    let occluded = RenderOptions {
        occlusion: true,
        ..culled
    };
    let (on, on_img) = case("cull+lod", n, culled, cpu)?;
    let (occ, occ_img) = case("cull+lod+occlusion", n, occluded, cpu)?;
    // GPU-timed: only what changed is uploaded.
    let (gpu_timed, _) = case(
        "cull+lod+occlusion (GPU-timed)",
        n,
        occluded,
        (Timing::Gpu, options.changing),
    )?;
    // The same culling with each instance boxed by its clips' union instead of the rows it
    // shows: what the per-row bounds save.
    let clip_boxes = RenderOptions {
        row_bounds: false,
        ..culled
    };
    let (clip_boxes, _) = case("cull+lod (clip boxes)", n, clip_boxes, cpu)?;
    // The shadow pass at the view's LOD instead of its own (by shadow-map texel size).
    let view_lod = RenderOptions {
        shadow_lod: throng_render::ShadowLod::Main,
        ..culled
    };
    let (view_lod_shadows, _) = case("cull+lod (shadows at the view's LOD)", n, view_lod, cpu)?;
    let off = RenderOptions {
        cull: false,
        lod_bias: 0.0,
        ..base
    };
    let (off, off_img) = case("off", off_n, off, cpu)?;
    if let Some(dir) = &field.images {
        write_images(dir, [&on_img, &occ_img, &off_img])?;
    }
    let occlusion = OcclusionFigures {
        instances_drawn: ratio(occ.instances_drawn as f64, on.instances_drawn as f64),
        triangles: ratio(occ.triangles as f64, on.triangles as f64),
        second_phase_instances: occ.second_phase_instances,
        pixels_differing: throng_scene::differing_fraction(&occ_img, &on_img),
    };
    Ok(Report {
        run: RunInfo::new(&renderer, name, (w, h), frames),
        lod_ratios: field.lods.clone(),
        lod_triangles,
        spacing: s,
        on_vs_off: on_vs_off(&on, &off),
        cases: vec![on, occ, gpu_timed, clip_boxes, view_lod_shadows, off],
        occlusion,
    })
}

impl Report {
    /// The report as a table, for people.
    pub fn table(&self) -> String {
        table(self)
    }
}

fn table(r: &Report) -> String {
    let mut s = format!(
        "adapter: {}\nfield of {} ({} px), LOD ratios {:?} → triangles per instance {:?}\n\
         medians of {} frame(s) after 2 warm-ups; frame = wall time incl. read back; cpu = \
         records + recording the frame (no GPU wait)\n\n",
        r.run.adapter, r.run.asset, r.run.width, r.lod_ratios, r.lod_triangles, r.run.frames
    );
    s += &format!(
        // The case names run to 36 characters: left-aligned in a column that wide.
        "{:<36} {:>9} {:>10} {:>9} {:>9} {:>6} {:>9} {:>24} {:>12} {:>9} {:>12} {:>10}\n",
        "case",
        "instances",
        "frame ms",
        "gpu ms",
        "cpu ms",
        "draws",
        "drawn",
        "per LOD",
        "triangles",
        "shadow in",
        "shadow tris",
        "µs/inst"
    );
    for c in &r.cases {
        let lods: Vec<String> = c.instances_per_lod.iter().map(|x| x.to_string()).collect();
        let gpu = c.gpu_ms.map_or("-".to_string(), |g| format!("{g:.1}"));
        s += &format!(
            "{:<36} {:>9} {:>10.1} {:>9} {:>9.2} {:>6} {:>9} {:>24} {:>12} {:>9} {:>12} {:>10.2}\n",
            c.case,
            c.instances,
            c.frame_ms,
            gpu,
            c.cpu_ms,
            c.draws,
            c.instances_drawn,
            lods.join("/"),
            c.triangles,
            c.shadow_instances,
            c.shadow_triangles,
            c.frame_us_per_instance
        );
    }
    let q = &r.on_vs_off;
    s += &format!(
        "\ncull+lod vs off: frame {:.3}x raw, {:.3}x per instance; cpu {:.3}x raw, {:.3}x per \
         instance; triangles {:.4}x raw, {:.4}x per instance; draws {:.2}x\n",
        q.frame_ms,
        q.frame_per_instance,
        q.cpu_ms,
        q.cpu_per_instance,
        q.triangles,
        q.triangles_per_instance,
        q.draws
    );
    for c in r.cases.iter().filter(|c| c.timing == "gpu") {
        s += &format!(
            "{}: uploads {} B per frame of {} B of records ({:.2} %)\n",
            c.case,
            c.upload_bytes,
            c.full_record_bytes,
            100.0 * c.upload_bytes as f64 / c.full_record_bytes.max(1) as f64
        );
    }
    let o = &r.occlusion;
    s += &format!(
        "cull+lod+occlusion vs cull+lod: instances drawn {:.3}x, triangles {:.3}x, {} newly \
         visible in the last frame; {:.3} % of pixels differ\n",
        o.instances_drawn,
        o.triangles,
        o.second_phase_instances,
        100.0 * o.pixels_differing
    );
    s
}
