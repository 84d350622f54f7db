//! The render benchmark (`throng bench render`): what a frame of a crowd costs on the adapter at hand, for 1, 100 and
//! 1,000 instances ([`RenderBenchOptions::instances`]), on the four paths in the same run (docs/design.md §5):
//!
//! - texture: the runtime's records in a `CrowdUpload` kept across frames — CPU-timed
//!   ([`Timing::Cpu`]): every record (64 B per instance) each frame, written by the runtime
//!   straight into the upload's staging memory (`update_into`); GPU-timed ([`Timing::Gpu`]):
//!   only the records of the [`RenderBenchOptions::changing`] fraction of instances whose speed changes that frame
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
//! Without an asset the built-in fox is baked in memory. [`field`] is the crowd-scale scenario.

use anyhow::Context;
use std::path::PathBuf;
use std::time::Instant;
use throng_asset::BakedAsset;
use throng_render::gpu_types::FrameUniform;
use throng_render::{
    Crowd, CrowdUpload, DecodedMeshes, GpuAsset, InstanceTransform, Playback, RenderOptions,
    Renderer, SkinPath, Skinning, Timing,
};
use throng_runtime::crowd::{self, Assignment};
use throng_runtime::Runtime;

pub mod cpu_cull;
pub mod field;

pub use field::FieldOptions;

/// The reference path skins every instance on the CPU: it stops at this many instances.
const REFERENCE_MAX: u32 = 1000;
/// Bytes of one reference-path vertex (position, normal, uv: 8 f32).
const REF_VERTEX_BYTES: u64 = 32;
/// Warm-up frames before the timed ones.
const WARM_UP: u32 = 2;
/// Simulated seconds per frame.
const DT: f64 = 1.0 / 60.0;

/// A path the benchmark measures (docs/design.md §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BenchPath {
    Texture,
    Palette,
    /// The palette path writing motion vectors too.
    PaletteMotion,
    /// The palette path with crowd variety (docs/design.md §5 "Appearance"): every instance
    /// tinted (a part hidden on every third where the asset has several), kept in an
    /// `AppearanceUpload`, and one instance's tint changed each frame.
    PaletteVariety,
    Vat,
    Reference,
    /// The texture path in the downlevel mode (docs/downlevel.md): CPU culling and LODs, the
    /// instances of each list in a data texture made every frame, plain instanced draws.
    TextureDownlevel,
}

impl BenchPath {
    /// Every path, in the order a run measures them.
    pub const ALL: [BenchPath; 7] = [
        BenchPath::Texture,
        BenchPath::Palette,
        BenchPath::PaletteVariety,
        BenchPath::PaletteMotion,
        BenchPath::Vat,
        BenchPath::Reference,
        BenchPath::TextureDownlevel,
    ];

    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            BenchPath::Texture => "texture",
            BenchPath::Palette => "palette",
            BenchPath::PaletteMotion => "palette-motion",
            BenchPath::PaletteVariety => "palette-variety",
            BenchPath::Vat => "vat",
            BenchPath::Reference => "reference",
            BenchPath::TextureDownlevel => "texture-downlevel",
        }
    }

    /// The path named `name` ([`BenchPath::name`]).
    pub fn from_name(name: &str) -> Option<BenchPath> {
        BenchPath::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The renderer's skinning path.
    fn skin_path(self) -> SkinPath {
        match self {
            BenchPath::Vat => SkinPath::Vat,
            BenchPath::Palette | BenchPath::PaletteMotion | BenchPath::PaletteVariety => {
                SkinPath::Palette
            }
            BenchPath::Texture | BenchPath::TextureDownlevel => SkinPath::Texture,
            BenchPath::Reference => SkinPath::Reference,
        }
    }
}

/// What a render benchmark measures.
#[derive(Debug, Clone)]
pub struct RenderBenchOptions {
    /// A source glTF (baked in memory with a VAT) or a baked asset; `None`: the built-in fox.
    pub asset: Option<PathBuf>,
    /// Instance counts to measure (each at least 1; the reference path stops at 1,000).
    pub instances: Vec<u32>,
    /// Image size in pixels (width, height).
    pub size: (u32, u32),
    /// Timed frames per case (at least 1, after 2 warm-up frames).
    pub frames: u32,
    /// Who times playback on the texture, palette and VAT paths.
    pub timing: Timing,
    /// GPU timing: the fraction of instances whose playback (their speed) changes each frame.
    pub changing: f64,
    /// The shadow pass (every path).
    pub shadows: bool,
    /// Occlusion culling (frustum culling and LODs stay; every path).
    pub occlusion: bool,
    /// The paths to measure; a path the asset cannot take (vat without a VAT) is left out.
    pub paths: Vec<BenchPath>,
    /// Palette path, update-rate LOD: refresh intervals at LOD 0..3 (`None`: every frame).
    pub palette_refresh: Option<[u32; 4]>,
    /// LOD index-count ratios of the path comparison's in-memory bake (empty: none); with LODs
    /// the bake has a far tier past them too, which the frames draw (a source or the built-in
    /// fox; a baked asset is used as it is).
    pub lods: Vec<f32>,
}

/// One path at one instance count.
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
    /// The last timed frame's main-pass instances per LOD level, from the GPU's indirect
    /// arguments (with a far tier its cards are the last level).
    instances_per_lod: Vec<u64>,
    /// Who timed playback (`cpu`, `gpu`; the reference path is CPU-timed).
    timing: &'static str,
    /// Bytes the CPU writes to the GPU per frame (records, transforms, clock, vertices,
    /// indices, frame uniform): on the texture and VAT paths the mean of what the crowd's
    /// `CrowdUpload` wrote over the timed frames.
    upload_bytes: u64,
    /// Every instance's record: what a frame would upload if it wrote them all.
    full_record_bytes: u64,
    /// palette-variety: bytes of appearances uploaded per timed frame (one instance's tint
    /// changes each frame).
    appearance_bytes: Option<u64>,
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

/// The path comparison: every case of a run.
#[derive(serde::Serialize)]
pub struct Report {
    #[serde(flatten)]
    run: RunInfo,
    primitives: usize,
    vertices: usize,
    /// The in-memory bake's LOD ratios (empty: none), and whether the asset has a far tier.
    lod_ratios: Vec<f32>,
    far_tier: bool,
    cases: Vec<Case>,
}

/// A baked asset from `path` (used as is) or a source glTF / the built-in fox baked in memory
/// with `vat` and `lods` — and, with LODs, a far tier past them (docs/design.md §5 "Far
/// tier"), as `throng demo` bakes.
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
        Some(p) => (
            throng_scene::load_model(p, &Default::default())?,
            p.display().to_string(),
        ),
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
        far_tier: (!lods.is_empty()).then(Default::default),
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

/// Instances whose playback changes each frame: the changing fraction applies to GPU timing
/// only.
pub(crate) fn changes_per_frame(timing: Timing, changing: f64, n: u32) -> usize {
    if timing == Timing::Gpu {
        (changing * n as f64).ceil() as usize
    } else {
        0
    }
}

/// One frame of a texture or VAT case: `changes` instances (from `frame · changes` on) get a
/// new speed (GPU timing), the runtime advances by `dt`, and the crowd's upload receives what
/// changed. Returns the bytes it wrote.
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
            rt.instance(h)
                .speed(if frame % 2 == 0 { 1.0 } else { 1.05 })?;
        }
    }
    if let Some(cpu) = rt.cpu_mut().filter(|_| !first) {
        // CPU-timed: the records go straight into the upload's staging memory, written once
        return up.update_cpu_timed_in_place(gpu, n, transforms, false, |out| {
            cpu.update_into(dt, out).map_err(anyhow::Error::from)
        });
    }
    if !first {
        rt.update(dt);
    }
    let bytes = up.update(gpu, rt.record_changes(), transforms, first)?;
    rt.clear_changes();
    Ok(bytes)
}

/// The asset's size: what the reference path uploads per instance.
#[derive(Clone, Copy)]
struct Sizes {
    primitives: u64,
    vertices: u64,
    indices: u64,
}

impl Sizes {
    fn of(asset: &BakedAsset) -> Sizes {
        let p = &asset.primitives;
        Sizes {
            primitives: p.len() as u64,
            vertices: p.iter().map(|p| p.positions.len() as u64).sum(),
            indices: p.iter().map(|p| p.indices.len() as u64).sum(),
        }
    }
}

/// What every case of a run shares.
struct Bench<'a> {
    options: &'a RenderBenchOptions,
    asset: &'a BakedAsset,
    gpu_asset: &'a GpuAsset,
    base: RenderOptions,
    sizes: Sizes,
}

/// Sums over one case's timed frames.
struct Sums {
    frame_s: f64,
    cpu_s: f64,
    /// `None` once a frame had no GPU timestamps.
    gpu_ns: Option<u64>,
    palette_ns: Option<u64>,
    palette_instances: u64,
    palettes_per_frame: Vec<u64>,
    uploaded: u64,
    /// palette-variety: appearance bytes uploaded over the timed frames.
    appearance_bytes: Option<u64>,
    /// The last timed frame's main-pass instances per LOD level (the far tier's cards last).
    instances_per_lod: Vec<u64>,
}

impl Sums {
    fn new() -> Sums {
        Sums {
            frame_s: 0.0,
            cpu_s: 0.0,
            gpu_ns: Some(0),
            palette_ns: Some(0),
            palette_instances: 0,
            palettes_per_frame: Vec::new(),
            uploaded: 0,
            appearance_bytes: None,
            instances_per_lod: Vec::new(),
        }
    }
}

/// Measures every path of `options` at every instance count: the path comparison.
pub fn paths(options: &RenderBenchOptions) -> anyhow::Result<Report> {
    let (asset, name) = load_asset(
        options.asset.as_deref(),
        Some(throng_asset::VatEncoding::F32),
        &options.lods,
    )?;
    let mut renderer = Renderer::new().context("creating a GPU device")?;
    let gpu_asset = renderer.upload(&asset)?;
    let has_vat = asset.primitives.iter().all(|p| p.vat.is_some());
    let bounds = asset.pose_bounds();
    let (w, h) = options.size;
    let bench = Bench {
        options,
        asset: &asset,
        gpu_asset: &gpu_asset,
        base: RenderOptions {
            width: w,
            height: h,
            shadows: options.shadows,
            occlusion: options.occlusion,
            palette_refresh: options.palette_refresh.unwrap_or([1; 4]),
            ..Default::default()
        },
        sizes: Sizes::of(&asset),
    };
    let mut paths = options.paths.clone();
    if let Some(missing) = renderer.downlevel_reason() {
        // Every other path keeps its records on the GPU (compute shaders scatter them).
        eprintln!("note: this device lacks {missing}: only texture-downlevel is measured");
        paths = vec![BenchPath::TextureDownlevel];
    }
    let mut cases = Vec::new();
    for &n in &options.instances {
        let transforms = crowd::grid(n, crowd::spacing(&bounds));
        let mut texture_ms = f64::NAN;
        for path in BenchPath::ALL {
            if !paths.contains(&path)
                || (path == BenchPath::Vat && !has_vat)
                || (path == BenchPath::Reference && n > REFERENCE_MAX)
            {
                continue;
            }
            let mut case = measure_path(&bench, &mut renderer, path, &transforms)?;
            if path == BenchPath::Texture {
                texture_ms = case.frame_ms;
            }
            case.vs_texture = Some(case.frame_ms / texture_ms).filter(|r| r.is_finite());
            cases.push(case);
        }
    }
    Ok(Report {
        run: RunInfo::new(&renderer, name, (w, h), options.frames),
        primitives: asset.primitives.len(),
        vertices: bench.sizes.vertices as usize,
        lod_ratios: options.lods.clone(),
        far_tier: asset.far_tier.is_some(),
        cases,
    })
}

/// One path on the crowd at `transforms`: warm-up and timed frames, and their figures.
fn measure_path(
    bench: &Bench,
    renderer: &mut Renderer,
    path: BenchPath,
    transforms: &[InstanceTransform],
) -> anyhow::Result<Case> {
    let o = bench.options;
    let timing = if path == BenchPath::Reference {
        Timing::Cpu
    } else {
        o.timing
    };
    let n = transforms.len() as u32;
    let assignments = bench_assignments(bench.asset, transforms.len());
    let mut player = crowd::new_runtime(
        timing,
        &bench.asset.clips,
        &assignments,
        transforms,
        0.0,
        None,
    )?;
    let mut up = CrowdUpload::new(&renderer.gpu.device, timing);
    let changes = changes_per_frame(timing, o.changing, n);
    let mut sums = Sums::new();
    let mut variety = (path == BenchPath::PaletteVariety).then(|| Variety::new(bench, renderer, n));
    for f in 0..o.frames + WARM_UP {
        if path == BenchPath::Reference {
            reference_frame(bench, renderer, &mut player, transforms, f, &mut sums)?;
        } else {
            let bytes = variety.as_mut().map(|v| v.change(renderer, f));
            if f >= WARM_UP {
                if let Some(b) = bytes {
                    *sums.appearance_bytes.get_or_insert(0) += b;
                }
            }
            let looks = variety.as_ref().map(|v| &v.upload);
            let playback = (&mut player, &mut up, f, changes);
            gpu_frame(
                bench,
                renderer,
                path,
                playback,
                (transforms, looks),
                &mut sums,
            )?;
        }
    }
    Ok(case(bench, path, (n, timing), sums))
}

/// palette-variety's appearances: the demo crowd's tints and parts, changed one instance a
/// frame.
struct Variety {
    looks: throng_runtime::Appearances,
    upload: throng_render::AppearanceUpload,
}

impl Variety {
    fn new(bench: &Bench, renderer: &Renderer, n: u32) -> Variety {
        let parts = bench.asset.primitives.len();
        let mut looks = throng_runtime::Appearances::from_values(
            (0..n as u64)
                .map(|i| throng_scene::demo_appearance(i, parts))
                .collect(),
        );
        let upload = throng_render::AppearanceUpload::new(
            &renderer.gpu.device,
            &renderer.gpu.queue,
            looks.values(),
        );
        looks.clear_changes();
        Variety { looks, upload }
    }

    /// Frame `f`'s change (instance f's tint) uploaded; returns the bytes written.
    fn change(&mut self, renderer: &Renderer, f: u32) -> u64 {
        let n = self.looks.len().max(1);
        let c = (f * 37 % 256) as u8;
        let _ = self.looks.set_tint(f as usize % n, [255, c, 255 - c, 255]);
        let bytes = self.upload.update(
            &renderer.gpu.device,
            &renderer.gpu.queue,
            self.looks.changes(),
        );
        self.looks.clear_changes();
        bytes
    }
}

/// One frame of the reference path: every instance skinned on the CPU by the decoder, then
/// drawn untextured (the reference API decodes a mesh's texture per mesh, which would measure
/// PNG decoding rather than skinning).
fn reference_frame(
    bench: &Bench,
    renderer: &mut Renderer,
    player: &mut Runtime,
    transforms: &[InstanceTransform],
    f: u32,
    sums: &mut Sums,
) -> anyhow::Result<()> {
    let start = Instant::now();
    if f > 0 {
        player.update(DT);
    }
    let records = (player.records().cpu()).context("the reference path draws CPU-timed records")?;
    let decoded = DecodedMeshes::new(bench.asset, records, transforms, Skinning::Linear)?;
    let mut meshes = decoded.meshes();
    for m in &mut meshes {
        m.mesh.texture = None;
    }
    let cpu = start.elapsed().as_secs_f64();
    renderer.render_reference(&meshes, &bench.base)?;
    if f >= WARM_UP {
        sums.cpu_s += cpu;
        sums.frame_s += start.elapsed().as_secs_f64();
    }
    Ok(())
}

/// One frame of a GPU path: the runtime's records into the crowd's upload, then the frame.
fn gpu_frame(
    bench: &Bench,
    renderer: &mut Renderer,
    path: BenchPath,
    (player, up, f, changes): (&mut Runtime, &mut CrowdUpload, u32, usize),
    (transforms, looks): (
        &[InstanceTransform],
        Option<&throng_render::AppearanceUpload>,
    ),
    sums: &mut Sums,
) -> anyhow::Result<()> {
    let start = Instant::now();
    // The downlevel mode keeps no records on the GPU: it reads the runtime's every frame.
    let downlevel = path == BenchPath::TextureDownlevel;
    let mut bytes = if downlevel {
        if f > 0 {
            player.update(DT);
        }
        0
    } else {
        upload_frame(player, renderer, up, transforms, (f, changes, DT))?
    };
    let cpu = start.elapsed().as_secs_f64();
    let opts = RenderOptions {
        path: path.skin_path(),
        motion_vectors: path == BenchPath::PaletteMotion,
        downlevel,
        ..bench.base
    };
    let crowd = Crowd {
        asset: bench.gpu_asset,
        transforms,
        playback: if downlevel {
            Playback::from(player.records())
        } else {
            Playback::Uploaded(up)
        },
        props: &[],
        live: &[],
        appearance: looks.map_or(throng_render::CrowdAppearance::Default, |u| {
            throng_render::CrowdAppearance::Uploaded(u)
        }),
    };
    let frame = renderer.render_scene(&[crowd], &opts)?;
    if downlevel {
        // The instance texture: 112 B per listed instance of both passes.
        let listed = frame.stats.instances_drawn + frame.stats.shadow_instances;
        bytes = listed * 16 * throng_render::downlevel::INSTANCE_TEXELS as u64;
    }
    if f >= WARM_UP {
        let st = &frame.stats;
        sums.cpu_s += cpu;
        sums.frame_s += start.elapsed().as_secs_f64();
        sums.gpu_ns = sums.gpu_ns.zip(st.gpu_ns).map(|(a, b)| a + b);
        sums.palette_ns = sums.palette_ns.zip(st.palette_ns).map(|(a, b)| a + b);
        sums.palette_instances += st.palette_instances;
        sums.palettes_per_frame.push(st.palette_instances);
        sums.uploaded += bytes;
        sums.instances_per_lod = st.instances_per_lod.clone();
    }
    Ok(())
}

/// A case's figures from its sums (`vs_texture` is set by the caller).
fn case(bench: &Bench, path: BenchPath, (n, timing): (u32, Timing), s: Sums) -> Case {
    let frames = bench.options.frames as f64;
    let frame_ms = s.frame_s * 1e3 / frames;
    let gpu_ms = s
        .gpu_ns
        .filter(|_| path != BenchPath::Reference)
        .map(|ns| ns as f64 * 1e-6 / frames);
    let palette = matches!(path, BenchPath::Palette | BenchPath::PaletteMotion);
    let palette_ms = s
        .palette_ns
        .filter(|_| palette)
        .map(|ns| ns as f64 * 1e-6 / frames);
    let palette_us_per_instance = s
        .palette_ns
        .filter(|_| palette && s.palette_instances > 0)
        .map(|ns| ns as f64 * 1e-3 / s.palette_instances as f64);
    let n64 = n as u64;
    let z = bench.sizes;
    let frame_uniform = std::mem::size_of::<FrameUniform>() as u64;
    let (draws, upload_bytes) = if path == BenchPath::Reference {
        (
            n64 * z.primitives + 1,
            n64 * (z.vertices * REF_VERTEX_BYTES + z.indices * 4 + 48) + frame_uniform,
        )
    } else {
        (
            z.primitives + 1,
            s.uploaded / bench.options.frames as u64 + frame_uniform,
        )
    };
    Case {
        path: path.name(),
        instances: n,
        frame_ms,
        cpu_ms: s.cpu_s * 1e3 / frames,
        gpu_ms,
        palette_ms,
        palette_us_per_instance,
        palettes_per_frame: palette.then_some(s.palettes_per_frame),
        palette_refresh: palette.then_some(bench.base.palette_refresh),
        vs_texture: None,
        draws,
        instances_per_lod: s.instances_per_lod,
        timing: timing.as_str(),
        upload_bytes,
        full_record_bytes: n64 * timing.record_bytes() as u64,
        appearance_bytes: s.appearance_bytes.map(|b| b / frames as u64),
    }
}

impl Report {
    /// The report as a table, for people.
    pub fn table(&self) -> String {
        table(self)
    }
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
    if !r.lod_ratios.is_empty() {
        s += &format!(
            "LODs {:?}{}\n\n",
            r.lod_ratios,
            if r.far_tier {
                ", and the far tier past them (cards)"
            } else {
                ""
            }
        );
    }
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
