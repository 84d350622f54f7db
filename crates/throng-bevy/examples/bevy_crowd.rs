//! A field of foxes in Bevy, drawn by throng or, for comparison, by Bevy's own glTF scenes.
//!
//! ```text
//! cargo run --release -p throng-bevy --example bevy_crowd -- [--instances N] [--frames N]
//!     [--screenshot OUT.png] [--mode throng|bevy] [--timing cpu|gpu] [--asset BAKED.glb]
//!     [--size WxH] [--warmup N] [--path palette|texture|vat] [--no-shadows] [--ground] [--variety]
//!     [--variants]
//!     [--prepass none|depth|normal|motion] [--show-motion] [--camera overview|patch]
//!     [--skinning lbs|dq] [--no-msaa] [--no-far-dots] [--dump-scene OUT.json] [--no-cull] [--lod-bias PX]
//!     [--dump-cull OUT.txt] [--crowd-layer N] [--hide-crowd] [--lod R,R,...] [--far-tier]
//!     [--debug normals]
//!     [--still-camera] [--spawn-in-view MARGIN] [--change-share SHARE]
//!     [--graph GRAPH.json] [--graph-on auto|cpu|gpu]
//! ```
//!
//! `--graph` drives every fox by an animation graph (docs/graph.md; e.g.
//! `crates/throng-graph/graphs/fox-locomotion.json` for `Fox.glb`) instead of playback
//! commands: each fox's `speed` parameter (`throng_bevy::ThrongParams`) starts at idle, walk or
//! run, one fox in eight changes speed every second and one in five fires the `look` trigger
//! where the graph has one (Fox.glb's; the built-in fox's graph,
//! `crates/throng-graph/graphs/demo-fox-locomotion.json`, has none, and its clips fire footstep
//! events); in second 2 foxes 1 and 5 leave (despawned) and in second 3 two
//! new foxes take their spots, running. `--graph-on` says where the graph steps (`throng_bevy::GraphOn`:
//! `auto`, the default, the GPU of a hardware adapter and the CPU of a software one). On exit
//! it prints where the graph stepped and every state and clip event received, in order, one
//! line each (`graph event: fox I STATE EVENT enter|exit`, `graph clip event: fox I NAME at
//! SECONDS`).
//!
//! `--camera patch` circles the camera low over the field, about a tenth of the foxes in view
//! (printed on exit): the scene for measuring a large crowd the camera mostly does not see.
//! The crowd is culled per instance and view on the GPU and drawn at LODs by default
//! (`throng_bevy::ThrongCull`); `--no-cull` draws every fox, `--dump-cull` writes what culling
//! kept at the last frame. `--still-camera` holds the patch camera where it starts, and
//! `--spawn-in-view 1.3` then spawns only the foxes near what it sees: the same foxes are drawn
//! as from the whole field, so the two frames differ by what the foxes out of view cost.
//!
//! - `--mode throng` (default): one `ThrongCrowd`, one entity per fox with `ThrongInstance`,
//!   `Transform` and `ThrongPlayback`; the asset is `--asset` (a file `throng bake` wrote,
//!   loaded through Bevy's `AssetServer` and the plugin's loader), else `THRONG_ASSETS/Fox.glb`
//!   baked in memory, else the built-in fox baked in memory. `--path` picks the skinning path
//!   (`throng_bevy::SkinPath`: a palette pass per frame, the default, the texture path, or
//!   vertex animation textures — the in-memory bake then adds f32 VATs; a `--asset` file
//!   must have been baked with `--vat`).
//! - `--mode bevy`: the same number of `THRONG_ASSETS/Fox.glb` scenes, each animated by Bevy's
//!   `AnimationPlayer` (what Bevy's `many_foxes` stress test does) — the baseline.
//!
//! `--ground` puts a plane under the field to catch the foxes' shadows; `--prepass` gives the
//! camera Bevy's depth prepass (`depth`), with normals (`normal`) or with normals and motion
//! vectors (`motion`); throng's crowds are drawn into them, as into the light's shadow map.
//! `--show-motion` draws the motion-vector prepass itself instead of the scene (a quad in front
//! of the camera whose material reads it, as Bevy's `shader_prepass` example does; MSAA and
//! tonemapping off): red and green are 0.5 + 32 × the motion in UV units per frame, x and y.
//!
//! `--dump-scene` writes the camera, instance transforms and records of the frame the
//! screenshot shows (`examples/support/scene_dump.rs`), for the tests that draw the same
//! scene with throng-render; `--no-msaa` turns Bevy's default 4× MSAA off (throng-render
//! draws without it; the far tier's one-pixel cards are then drawn as points unless the
//! camera has a `--prepass`, which `--no-far-dots` turns off). `--debug normals` draws the crowd's world-space normals as colour, unlit
//! (`throng_bevy::ThrongDebugView::Normals`, the colour of throng-render's `--debug normals`),
//! and turns the camera's tonemapping and deband dithering off so that the colour reaches the
//! picture as written: the tests compare it with throng-render's pixel for pixel.
//!
//! Frames are counted, and time runs, from when the scene is ready: every fox spawned and no
//! pipeline still compiling (lavapipe compiles them in the background while frames draw
//! nothing); `--frames` and `--warmup` count from there.
//!
//! Both modes use the same layout, clips (walk or run, varied starts and speeds) and
//! crossfades (every second one fox in eight switches between walk and run over 0.3 s), the
//! same camera and lights. On exit it prints the mean frame time and the CPU time per frame of
//! the app's own threads (Bevy's main, render and task-pool threads; Mesa's llvmpipe/lavapipe
//! threads — the software rasteriser — are left out), both over the frames after `--warmup`.
//! `--change-share 0.01` instead crossfades 1 % of the foxes every frame (rotating through them),
//! and the exit line `uploaded per frame` gives the mean bytes the plugin sent the GPU for
//! the crowd's records and transforms over the measured frames: GPU-timed, only the records
//! rewritten.
//! Units: file units (Fox.glb is modelled in centimetres), seconds.

#[path = "support/scene_dump.rs"]
mod scene_dump;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use bevy::animation::{AnimationClip, AnimationPlayer};
use bevy::asset::uuid_handle;
use bevy::core_pipeline::prepass::{DepthPrepass, MotionVectorPrepass, NormalPrepass};
use bevy::core_pipeline::tonemapping::{DebandDither, Tonemapping};
use bevy::gltf::GltfAssetLabel;
use bevy::light::CascadeShadowConfigBuilder;
use bevy::light::NotShadowCaster;
use bevy::pbr::{Material, MaterialPlugin};
use bevy::prelude::*;
use bevy::render::render_resource::{AsBindGroup, PipelineCache};
use bevy::render::view::screenshot::{save_to_disk, Screenshot, ScreenshotCaptured};
use bevy::render::{Render, RenderApp, RenderSystems};
use bevy::shader::ShaderRef;
use bevy::time::TimeUpdateStrategy;
use bevy::window::{PresentMode, WindowResolution};
use bevy::world_serialization::WorldAssetRoot;
use clap::{CommandFactory, Parser, ValueEnum};
use std::sync::{Arc, Mutex};
use throng_bevy::render::cull_readback::{CullReadback, CullSnapshot};
use throng_bevy::{GraphOn, GraphSource, ThrongParams, ThrongStateEvent};
use throng_bevy::{
    SkinPath, ThrongAppearance, ThrongAsset, ThrongCrowd, ThrongCull, ThrongDebugView,
    ThrongHandle, ThrongInstance, ThrongPlayback, ThrongPlugin, Timing,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Mode {
    /// throng: baked bone texture, throng-runtime, instanced draws.
    Throng,
    /// Bevy's glTF scenes and AnimationPlayer (the baseline).
    Bevy,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum PathArg {
    /// A palette pass writes each fox's skin matrices once a frame (throng_bevy::SkinPath).
    Palette,
    /// The vertex stage blends from the bone texture itself.
    Texture,
    /// The vertex stage fetches baked positions and normals from vertex animation textures.
    Vat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum CameraArg {
    /// Still, above the field's near edge: the whole field in view.
    Overview,
    /// Circling low over the field, looking down at a patch of it: about a tenth of the
    /// foxes in view at any time (the figure is printed), the rest out of the frustum.
    Patch,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum SkinningArg {
    /// Linear blend skinning.
    Lbs,
    /// Dual-quaternion skinning (the in-memory bake then uses the quat-f32 encoding).
    Dq,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum DebugArg {
    /// World-space normals as colour, unlit (`ThrongDebugView::Normals`).
    Normals,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum PrepassArg {
    None,
    /// `DepthPrepass`.
    Depth,
    /// `DepthPrepass` and `NormalPrepass`.
    Normal,
    /// `DepthPrepass`, `NormalPrepass` and `MotionVectorPrepass`.
    Motion,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum TimingArg {
    Cpu,
    Gpu,
}

#[derive(Parser, Debug, Clone, Resource)]
#[command(
    name = "bevy_crowd",
    about = "A field of foxes: throng in Bevy, or Bevy's own animation"
)]
struct Args {
    /// Number of foxes.
    #[arg(long, default_value_t = 1000)]
    instances: u32,
    /// Exit after this many frames (with --screenshot: ask for the capture then, and exit once
    /// it is saved, a few frames later; the figures count those frames too).
    #[arg(long)]
    frames: Option<u32>,
    /// Save the window to this PNG via Bevy's screenshot API, then exit.
    #[arg(long)]
    screenshot: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "throng")]
    mode: Mode,
    /// throng's playback timing.
    #[arg(long, value_enum, default_value = "cpu")]
    timing: TimingArg,
    /// The light casts no shadows (no shadow pass).
    #[arg(long)]
    no_shadows: bool,
    /// A ground plane under the field, which receives the foxes' shadows.
    #[arg(long)]
    ground: bool,
    /// Per-instance appearance (`ThrongAppearance`, throng mode): every fox tinted green
    /// (`VARIETY_TINT`), and every odd one with all its parts hidden (no pixels, no shadow).
    #[arg(long)]
    variety: bool,
    /// Material variants (`ThrongAppearance::variant`, throng mode): fox i shows variant
    /// `i mod (V + 2)` of the asset's V variants — 0 its own materials, 1..=V each variant,
    /// V + 1 one past the last (the own materials again, by the rule). An asset baked with
    /// variants: `--asset` a file of `throng bake --variant NAME=PNG` or of a source with
    /// `KHR_materials_variants`. With `--variety` both apply.
    #[arg(long)]
    variants: bool,
    /// Bevy prepasses the camera runs, each of which the foxes are drawn into.
    #[arg(long, value_enum, default_value = "none")]
    prepass: PrepassArg,
    /// Show the motion-vector prepass instead of the scene (implies `--prepass motion`).
    #[arg(long)]
    show_motion: bool,
    /// throng's skinning path.
    #[arg(long, value_enum, default_value = "palette")]
    path: PathArg,
    /// Where the camera is: `patch` circles over a tenth of the field (a crowd-scale test of
    /// culling).
    #[arg(long, value_enum, default_value = "overview")]
    camera: CameraArg,
    /// How skin matrices combine per vertex (throng_bevy::ThrongCrowd::skinning).
    #[arg(long, value_enum, default_value = "lbs")]
    skinning: SkinningArg,
    /// A baked file to load through the AssetServer (default: Fox.glb baked in memory).
    #[arg(long)]
    asset: Option<PathBuf>,
    /// Window size, WIDTHxHEIGHT.
    #[arg(long, default_value = "1280x720")]
    size: String,
    /// Frames left out of the figures (pipeline compilation, asset loading).
    #[arg(long, default_value_t = 3)]
    warmup: u32,
    /// Simulated seconds per frame (0: real time). Fixed steps make screenshots repeatable.
    #[arg(long, default_value_t = 0.0)]
    fixed_dt: f64,
    /// Bevy's multisampling off (a single sample per pixel, as throng-render draws).
    #[arg(long)]
    no_msaa: bool,
    /// Every far card drawn as a quad: no one-pixel cards drawn as points
    /// (throng_bevy::ThrongCull::far_dots; points are drawn only without MSAA).
    #[arg(long)]
    no_far_dots: bool,
    /// With --screenshot: write the camera, instance transforms and records of the frame the
    /// screenshot shows to this JSON file (throng mode, CPU timing).
    #[arg(long)]
    dump_scene: Option<PathBuf>,
    /// No per-instance culling (throng_bevy::ThrongCull): every fox drawn at LOD 0 whenever
    /// the crowd's box is in view.
    #[arg(long)]
    no_cull: bool,
    /// Largest projected LOD simplification error, pixels (ThrongCull::lod_bias; an asset
    /// baked with `--lod` has LODs).
    #[arg(long, default_value_t = 1.0)]
    lod_bias: f32,
    /// At the last frame, read back what culling kept and write it here (text: per view and
    /// LOD the instance ids), with the instance transforms and records the culling pass read
    /// beside it (OUT.transforms, OUT.records). Needs culling (not with `--no-cull`).
    #[arg(long, conflicts_with = "no_cull")]
    dump_cull: Option<PathBuf>,
    /// The in-memory bake's LOD ratios (`throng bake --lod`), e.g. `0.5,0.25,0.1`; culling
    /// then draws each fox at the coarsest LOD within `--lod-bias` pixels.
    #[arg(long, value_delimiter = ',')]
    lod: Vec<f32>,
    /// The in-memory bake adds the far tier (`throng bake --far-tier`, default settings):
    /// culling then draws a fox whose tile texel covers at most `--lod-bias` pixels as one
    /// card (docs/design.md §5 "Far tier").
    #[arg(long)]
    far_tier: bool,
    /// Put the crowd entity on this render layer (`RenderLayers`; the camera sees layer 0).
    #[arg(long)]
    crowd_layer: Option<usize>,
    /// Spawn the crowd entity with `Visibility::Hidden`.
    #[arg(long)]
    hide_crowd: bool,
    /// A debug view of the crowd instead of Bevy's lighting (throng mode); the camera then
    /// has no tonemapping and no deband dithering, so the colour reaches the picture as
    /// written (sRGB-encoded, as throng-render's `--debug normals` writes it).
    #[arg(long, value_enum)]
    debug: Option<DebugArg>,
    /// `--camera patch` stays where it starts (one set of foxes in view for every frame).
    #[arg(long)]
    still_camera: bool,
    /// With `--camera patch --still-camera`: spawn only the foxes whose spot the camera
    /// projects within MARGIN times its frame (normalised device coordinates; 1.3 keeps every
    /// fox it or its shadows show), so a run draws what the whole field's run draws without
    /// the rest of the field — what culling the out-of-view foxes costs is the difference.
    #[arg(long, value_name = "MARGIN")]
    spawn_in_view: Option<f32>,
    /// Share of the foxes (0 to 1) given a crossfade every frame, in place of one in eight
    /// each second: the change rate of the upload benchmark (`--mode throng`).
    #[arg(long, value_name = "SHARE")]
    change_share: Option<f64>,
    /// Drive every fox by this animation graph file (throng mode) instead of clips: its
    /// `speed` parameter set per fox and changed every second, its `look` trigger fired where
    /// the graph has one, foxes 1 and 5 despawned in second 2 and two new foxes spawned in
    /// second 3; every state and clip event is printed at exit. For Fox.glb:
    /// crates/throng-graph/graphs/fox-locomotion.json; for the built-in fox (no
    /// THRONG_ASSETS): demo-fox-locomotion.json.
    #[arg(long, value_name = "GRAPH.json")]
    graph: Option<PathBuf>,
    /// Where `--graph` steps: auto (the default: the GPU of a hardware adapter, the CPU of a
    /// software one), cpu or gpu.
    #[arg(long, value_enum, requires = "graph")]
    graph_on: Option<GraphOnArg>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum GraphOnArg {
    Auto,
    Cpu,
    Gpu,
}

/// `--graph`: the graph file's text, every state event received in order (fox, state, event,
/// entered) and every clip event (fox, name, time in seconds).
#[derive(Resource, Default)]
struct GraphRun {
    json: Option<String>,
    events: Vec<(u32, String, String, bool)>,
    clip_events: Vec<(u32, String, f64)>,
}

fn main() -> AppExit {
    let args = Args::parse();
    match run(args) {
        Ok(exit) => exit,
        Err(e) => {
            eprintln!("bevy_crowd: {e}");
            AppExit::error()
        }
    }
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn assets_dir() -> Option<PathBuf> {
    std::env::var_os("THRONG_ASSETS").map(PathBuf::from)
}

/// The asset of `--mode throng` without `--asset`: Fox.glb from THRONG_ASSETS baked in
/// memory, else the built-in fox.
fn bake_in_memory(
    skinning: SkinningArg,
    path: PathArg,
    lods: &[f32],
    far_tier: bool,
) -> Result<throng_asset::BakedAsset> {
    let fox = assets_dir()
        .map(|d| d.join("Fox.glb"))
        .filter(|p| p.is_file());
    let (bytes, name) = match &fox {
        Some(p) => (std::fs::read(p)?, "Fox.glb".to_string()),
        None => (throng_demo::demo_glb(), "throng-demo-fox.glb".to_string()),
    };
    let model = throng_gltf::import_slice(&bytes, None, &name)?;
    let encoding = match skinning {
        SkinningArg::Lbs => throng_asset::Encoding::default(),
        SkinningArg::Dq => throng_asset::Encoding::QuatF32,
    };
    let options = throng_bake::BakeOptions {
        source_name: name,
        encoding,
        // f32 positions, as `throng render --path vat` bakes them.
        vat: (path == PathArg::Vat).then_some(throng_asset::VatEncoding::F32),
        lods: lods.to_vec(),
        far_tier: far_tier.then(Default::default),
        ..Default::default()
    };
    let baked = throng_bake::bake(&model, &options)?.0;
    if skinning == SkinningArg::Dq && !baked.bone_texture.encoding.is_quat() {
        return Err(format!(
            "--skinning dq: {} fell back to {} (not a quat-* encoding)",
            baked.source_name,
            baked.bone_texture.encoding.as_str()
        )
        .into());
    }
    Ok(baked)
}

/// What the crowd is made of, decided before the app starts.
#[derive(Resource, Clone)]
struct Plan {
    args: Args,
    /// Model-space pose bounds (file units): for spacing and the camera.
    bounds: (Vec3, Vec3),
    /// Clip indices of walk and run.
    walk: usize,
    run: usize,
    /// In-memory asset for throng mode without --asset.
    baked: Option<throng_asset::BakedAsset>,
    /// Path of the asset to load, relative to the asset folder.
    load: Option<String>,
    /// Foxes spawned (`--instances`, or fewer with `--spawn-in-view`).
    spawned: u32,
    /// Window size, pixels.
    size: (u32, u32),
}

fn run(args: Args) -> Result<AppExit> {
    let (w, h) = args
        .size
        .split_once('x')
        .and_then(|(w, h)| Some((w.parse::<u32>().ok()?, h.parse::<u32>().ok()?)))
        .filter(|&(w, h)| w > 0 && h > 0)
        .ok_or_else(|| format!("--size {}: expected WIDTHxHEIGHT, both above 0", args.size))?;
    if args.graph.is_some() && args.dump_scene.is_some() && args.graph_on != Some(GraphOnArg::Cpu) {
        // A graph stepped on the GPU writes its records there: the dump would hold none.
        Args::command()
            .error(
                clap::error::ErrorKind::ArgumentConflict,
                "--dump-scene with --graph needs --graph-on cpu (on the GPU the records are written there, not in the runtime)",
            )
            .exit();
    }
    if let Some(m) = args.spawn_in_view {
        if args.camera != CameraArg::Patch || !args.still_camera || m.is_nan() || m <= 0.0 {
            // A usage error: clap's message and exit status 2.
            Args::command()
                .error(
                    clap::error::ErrorKind::ArgumentConflict,
                    format!("--spawn-in-view {m}: needs --camera patch --still-camera and a margin above 0"),
                )
                .exit();
        }
    }
    // Output folders are checked before the app starts: Bevy only logs a failed save.
    for out in [&args.screenshot, &args.dump_scene, &args.dump_cull]
        .into_iter()
        .flatten()
    {
        if let Some(dir) = out
            .parent()
            .filter(|d| !d.as_os_str().is_empty() && !d.is_dir())
        {
            return Err(format!(
                "{}: the folder {} does not exist; create it or write elsewhere",
                out.display(),
                dir.display()
            )
            .into());
        }
    }
    if args.mode == Mode::Bevy {
        let ignored: Vec<&str> = [
            (args.variety, "--variety"),
            (args.variants, "--variants"),
            (args.debug.is_some(), "--debug"),
            (!args.lod.is_empty(), "--lod"),
            (args.far_tier, "--far-tier"),
            (args.asset.is_some(), "--asset"),
        ]
        .into_iter()
        .filter_map(|(on, flag)| on.then_some(flag))
        .collect();
        if !ignored.is_empty() {
            eprintln!(
                "bevy_crowd: {} draw throng's crowd only: ignored with --mode bevy",
                ignored.join(", ")
            );
        }
    }
    if args.asset.is_some() && !args.lod.is_empty() {
        eprintln!(
            "bevy_crowd: --lod bakes LODs into the in-memory bake: ignored with --asset (bake the file with `throng bake --lod`)"
        );
    }
    if args.asset.is_some() && args.far_tier {
        eprintln!(
            "bevy_crowd: --far-tier bakes the far tier into the in-memory bake: ignored with --asset (bake the file with `throng bake --far-tier`)"
        );
    }
    // Where the AssetServer reads from, and what the plan loads.
    let (asset_root, load, baked) = match (args.mode, &args.asset) {
        (Mode::Throng, Some(p)) => {
            if !p.is_file() {
                return Err(format!("--asset {}: no such file", p.display()).into());
            }
            // A bare file name has the empty parent: the current folder.
            let dir = p
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .map(|d| d.to_path_buf())
                .unwrap_or_else(|| PathBuf::from("."));
            let file = p
                .file_name()
                .ok_or_else(|| format!("--asset {}: not a file", p.display()))?
                .to_string_lossy()
                .to_string();
            let dir = std::fs::canonicalize(&dir)
                .map_err(|e| format!("--asset {}: {}: {e}", p.display(), dir.display()))?;
            (dir, Some(file), None)
        }
        (Mode::Throng, None) => (
            assets_dir().unwrap_or_else(|| PathBuf::from(".")),
            None,
            Some(bake_in_memory(
                args.skinning,
                args.path,
                &args.lod,
                args.far_tier,
            )?),
        ),
        (Mode::Bevy, _) => {
            let dir = assets_dir().ok_or("--mode bevy needs THRONG_ASSETS (for Fox.glb)")?;
            if !dir.join("Fox.glb").is_file() {
                return Err(format!("--mode bevy: {} has no Fox.glb", dir.display()).into());
            }
            (dir, Some("Fox.glb".to_string()), None)
        }
    };
    // Bounds and clip names come from a baked asset; the bevy and --asset modes read the
    // bounds from the file too (bake or read once, before the app).
    let info = match (&baked, args.mode, &args.asset) {
        (Some(b), _, _) => b.clone(),
        (None, Mode::Throng, Some(p)) => throng_asset::read(p)?,
        _ => bake_in_memory(args.skinning, args.path, &args.lod, args.far_tier)?,
    };
    if args.mode == Mode::Throng && args.variants && info.variants.is_empty() {
        eprintln!(
            "bevy_crowd: --variants: {} has no material variants, so every fox shows its own materials (bake some with `throng bake --variant NAME=TEXTURE.png` and pass the file with --asset)",
            args.asset
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| info.source_name.clone())
        );
    }
    let b = info.pose_bounds();
    let find = |n: &str| {
        info.clips
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(n))
            .unwrap_or(0)
    };
    let graph_json = match &args.graph {
        Some(p) if args.mode == Mode::Throng => {
            Some(std::fs::read_to_string(p).map_err(|e| format!("--graph {}: {e}", p.display()))?)
        }
        Some(_) => return Err("--graph drives throng's crowd: it needs --mode throng".into()),
        None => None,
    };
    let plan = Plan {
        bounds: (
            Vec3::from_array(b.min.to_array()),
            Vec3::from_array(b.max.to_array()),
        ),
        walk: find("Walk"),
        run: find("Run").min(info.clips.len().saturating_sub(1)),
        baked,
        load,
        spawned: args.instances,
        size: (w, h),
        args: args.clone(),
    };
    let mut app = App::new();
    app.add_plugins(
        DefaultPlugins
            .set(AssetPlugin {
                file_path: asset_root.to_string_lossy().to_string(),
                ..default()
            })
            .set(WindowPlugin {
                primary_window: Some(Window {
                    title: format!("bevy_crowd — {:?}, {} foxes", args.mode, args.instances),
                    resolution: WindowResolution::new(w, h),
                    present_mode: PresentMode::AutoNoVsync,
                    ..default()
                }),
                ..default()
            }),
    )
    .add_plugins((ThrongPlugin, MaterialPlugin::<ShowMotion>::default()))
    .insert_resource(ClearColor(Color::srgb(0.05, 0.07, 0.12)))
    .insert_resource(plan)
    .insert_resource(Stats::default())
    .insert_resource(GraphRun {
        json: graph_json,
        ..default()
    })
    .add_systems(Startup, (setup_scene, setup_crowd))
    .add_systems(First, (count_frame, stamp_main_start))
    .add_systems(Last, (stamp_main_end, dump_scene))
    .add_systems(
        Update,
        (
            crossfade_throng,
            drive_graph,
            note_state_events,
            vary_foxes,
            start_bevy_players,
            crossfade_bevy,
            move_camera,
        ),
    );
    if args.mode == Mode::Bevy {
        register_scene_types(&mut app);
    }
    // Time stands still until the scene is ready (count_frame), then runs: by exactly
    // --fixed-dt a frame, or by the wall clock.
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::ZERO));
    // Wall time of the render world's own work per frame: from its first system set
    // (extract commands) to the end of Prepare, before the render graph records and submits.
    let timers = Timers::default();
    app.insert_resource(timers.clone());
    if args.dump_cull.is_some() {
        let readback = CullReadback::default();
        app.insert_resource(readback.clone());
        if let Some(render_app) = app.get_sub_app_mut(RenderApp) {
            render_app.insert_resource(readback);
        }
    }
    if let Some(render_app) = app.get_sub_app_mut(RenderApp) {
        render_app.insert_resource(timers);
        render_app.add_systems(
            Render,
            (
                stamp_render_start.in_set(RenderSystems::ExtractCommands),
                stamp_render_end
                    .after(RenderSystems::Prepare)
                    .before(RenderSystems::Render),
                count_depth_items
                    .after(RenderSystems::Queue)
                    .before(RenderSystems::Render),
                note_pipelines
                    .after(RenderSystems::Prepare)
                    .before(RenderSystems::Render),
            ),
        );
    }
    let exit = app.run();
    Ok(exit)
}

/// The component types a spawned glTF scene holds. Bevy's `reflect_auto_register` feature
/// (left out of this build: it would rebuild every Bevy crate) registers them itself; the
/// scene spawner needs each one registered.
fn register_scene_types(app: &mut App) {
    use bevy::animation::{AnimatedBy, AnimationTargetId};
    use bevy::camera::primitives::Aabb;
    use bevy::gltf::{
        GltfExtras, GltfMaterialExtras, GltfMaterialName, GltfMeshExtras, GltfMeshName,
        GltfSceneExtras, GltfSceneName,
    };
    use bevy::mesh::morph::{MeshMorphWeights, MorphWeights};
    use bevy::mesh::skinning::SkinnedMesh;
    app.register_type::<Transform>()
        .register_type::<GlobalTransform>()
        .register_type::<Name>()
        .register_type::<ChildOf>()
        .register_type::<Children>()
        .register_type::<Visibility>()
        .register_type::<InheritedVisibility>()
        .register_type::<ViewVisibility>()
        .register_type::<Mesh3d>()
        .register_type::<MeshMaterial3d<StandardMaterial>>()
        .register_type::<SkinnedMesh>()
        .register_type::<AnimationPlayer>()
        .register_type::<AnimationTargetId>()
        .register_type::<AnimatedBy>()
        .register_type::<Aabb>()
        .register_type::<MorphWeights>()
        .register_type::<MeshMorphWeights>()
        .register_type::<GltfExtras>()
        .register_type::<GltfSceneExtras>()
        .register_type::<GltfSceneName>()
        .register_type::<GltfMeshExtras>()
        .register_type::<GltfMeshName>()
        .register_type::<GltfMaterialExtras>()
        .register_type::<GltfMaterialName>()
        .register_type::<bevy::camera::visibility::VisibilityClass>()
        .register_type::<bevy::render::sync_world::SyncToRenderWorld>()
        .register_type::<bevy::mesh::MeshTag>()
        .register_type::<bevy::transform::components::TransformTreeChanged>()
        .register_type::<bevy::camera::visibility::NoFrustumCulling>()
        .register_type::<bevy::camera::visibility::DynamicSkinnedMeshBounds>();
}

/// Frame counting, timings and the exit.
#[derive(Resource, Default)]
struct Stats {
    /// Frames since the scene became ready (`ready`).
    frames: u32,
    /// The content is in (every fox spawned: the crowd's instances, or Bevy's animation
    /// players) and no pipeline has been compiling for 3 frames; until then time stands
    /// still and frames are not counted, so a loaded machine changes when, not what, the
    /// screenshot shows.
    ready: bool,
    launched: Option<Instant>,
    started: Option<Instant>,
    cpu_at_start: u64,
    shot_requested: bool,
    shot_saved: bool,
    reported: bool,
    dumped: bool,
    /// Bytes the plugin sent the GPU for the crowd over the measured frames: records,
    /// transforms (`ThrongCrowd::uploaded`).
    uploaded: (u64, u64),
    uploaded_frames: u32,
    /// The crowd's records, all of them, in bytes (at the last measured frame).
    all_records: u64,
    /// The crowd's graph steps on the GPU (at the last measured frame).
    graph_on_gpu: bool,
}

/// Wall-clock timers of the app's schedules, shared by the main and the render world:
/// (main-world start, summed main-world seconds, render start, summed render seconds, frames
/// counted).
#[derive(Resource, Clone, Default)]
struct Timers(Arc<Mutex<TimerState>>);

#[derive(Default)]
struct TimerState {
    counting: bool,
    main_start: Option<Instant>,
    main_s: f64,
    render_start: Option<Instant>,
    render_s: f64,
    /// The most crowd items queued into shadow and prepass phases in one frame.
    shadow_items: u32,
    prepass_items: u32,
    /// Render-world frames in a row with no pipeline waiting to compile.
    idle_frames: u32,
}

/// Counts the render world's frames in a row with no pipeline still compiling.
fn note_pipelines(t: Res<Timers>, cache: Res<PipelineCache>) {
    if let Ok(mut s) = t.0.lock() {
        if cache.waiting_pipelines().next().is_none() {
            s.idle_frames += 1;
        } else {
            s.idle_frames = 0;
        }
    }
}

fn count_depth_items(t: Res<Timers>, queue: Option<Res<throng_bevy::prepass::CrowdDepthQueue>>) {
    if let (Ok(mut s), Some(q)) = (t.0.lock(), queue) {
        s.shadow_items = s.shadow_items.max(q.shadow_items);
        s.prepass_items = s.prepass_items.max(q.prepass_items);
    }
}

fn stamp_main_start(t: Res<Timers>) {
    if let Ok(mut s) = t.0.lock() {
        s.main_start = Some(Instant::now());
    }
}

fn stamp_main_end(t: Res<Timers>) {
    if let Ok(mut s) = t.0.lock() {
        if let (true, Some(t0)) = (s.counting, s.main_start) {
            s.main_s += t0.elapsed().as_secs_f64();
        }
    }
}

fn stamp_render_start(t: Res<Timers>) {
    if let Ok(mut s) = t.0.lock() {
        s.render_start = Some(Instant::now());
    }
}

fn stamp_render_end(t: Res<Timers>) {
    if let Ok(mut s) = t.0.lock() {
        if let (true, Some(t0)) = (s.counting, s.render_start) {
            s.render_s += t0.elapsed().as_secs_f64();
        }
    }
}

/// App CPU time so far (ns): on-CPU time of this process's threads except Mesa's software
/// rasteriser threads (`llvmpipe-*`, `lavapipe*`, `lp:*`), from /proc/self/task/*/schedstat.
fn app_cpu_ns() -> u64 {
    thread_cpu_ns()
        .into_iter()
        .filter(|(name, _)| !is_rasteriser(name))
        .map(|(_, ns)| ns)
        .sum()
}

/// Mesa's software rasteriser threads (llvmpipe's `llvmpipe-N`, lavapipe's queue thread).
fn is_rasteriser(comm: &str) -> bool {
    comm.starts_with("llvmpipe")
        || comm.starts_with("lavapipe")
        || comm.starts_with("lp:")
        || comm.starts_with("vk_queue")
        || comm.starts_with("lvp")
}

/// (thread name, on-CPU ns) of every thread of this process.
fn thread_cpu_ns() -> Vec<(String, u64)> {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return Vec::new();
    };
    tasks
        .flatten()
        .map(|t| {
            let comm = std::fs::read_to_string(t.path().join("comm")).unwrap_or_default();
            let stat = std::fs::read_to_string(t.path().join("schedstat")).unwrap_or_default();
            let ns = stat
                .split_whitespace()
                .next()
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(0);
            (comm.trim().to_string(), ns)
        })
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn count_frame(
    mut stats: ResMut<Stats>,
    plan: Res<Plan>,
    mut commands: Commands,
    mut exit: MessageWriter<AppExit>,
    timers: Res<Timers>,
    mut strategy: ResMut<TimeUpdateStrategy>,
    crowds: Query<&ThrongCrowd>,
    players: Query<(), With<AnimationPlayer>>,
    view: Query<&bevy::camera::primitives::Frustum, With<Camera3d>>,
    foxes: Query<(&FoxIndex, &GlobalTransform)>,
    readback: Option<Res<CullReadback>>,
    graph: Res<GraphRun>,
) {
    let a = &plan.args;
    if !stats.ready {
        let launched = *stats.launched.get_or_insert_with(Instant::now);
        let content = match a.mode {
            Mode::Throng => crowds
                .iter()
                .any(|c| c.runtime().is_some_and(|r| r.len() as u32 >= plan.spawned)),
            Mode::Bevy => players.iter().count() as u32 >= a.instances,
        };
        let idle = timers.0.lock().map_or(true, |s| s.idle_frames >= 3);
        let waited = launched.elapsed() > Duration::from_secs(300);
        let ready = waited || (content && idle);
        if !ready {
            return;
        }
        if waited {
            eprintln!("bevy_crowd: not ready after 300 s (content {content}, pipelines idle {idle}); counting frames anyway");
        }
        stats.ready = true;
        *strategy = if a.fixed_dt > 0.0 {
            // Each frame advances time by exactly fixed_dt, whatever the wall clock did.
            TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(a.fixed_dt))
        } else {
            TimeUpdateStrategy::Automatic
        };
    }
    stats.frames += 1;
    if stats.frames > a.warmup + 1 && stats.frames <= a.frames.unwrap_or(u32::MAX) + 1 {
        // what the last frame's extract sent
        if let Some(c) = crowds.iter().next() {
            let u = c.uploaded();
            stats.uploaded.0 += u.records;
            stats.uploaded.1 += u.transforms;
            stats.uploaded_frames += 1;
            stats.all_records = c.record_bytes().len() as u64;
            stats.graph_on_gpu = c.graph_on_gpu();
        }
    }
    if stats.frames == a.warmup + 1 {
        stats.started = Some(Instant::now());
        stats.cpu_at_start = app_cpu_ns();
        if let Ok(mut s) = timers.0.lock() {
            s.counting = true;
        }
    }
    let end = a.frames.unwrap_or(u32::MAX);
    if stats.frames <= end {
        return;
    }
    if let Some(p) = &a.screenshot {
        if !stats.shot_requested {
            stats.shot_requested = true;
            commands
                .spawn(Screenshot::primary_window())
                .observe(save_to_disk(p.clone()))
                .observe(|_: On<ScreenshotCaptured>, mut s: ResMut<Stats>| s.shot_saved = true);
        }
        if !stats.shot_saved {
            return;
        }
    }
    if let (Some(rb), Some(out)) = (&readback, &a.dump_cull) {
        let Ok(mut state) = rb.0.lock() else {
            return;
        };
        if state.snapshots.is_empty() {
            state.requested = true;
            return;
        }
        if !stats.dumped {
            stats.dumped = true;
            if let Err(e) = write_cull_dump(out, &state.snapshots) {
                eprintln!("bevy_crowd: --dump-cull {}: {e}", out.display());
                exit.write(AppExit::error());
                return;
            }
        }
    }
    if !stats.reported {
        stats.reported = true;
        report(&stats, a, plan.spawned, &timers);
        if graph.json.is_some() && !crowds.iter().any(ThrongCrowd::graph_ready) {
            eprintln!("bevy_crowd: --graph: the graph did not load (the error above says why)");
            exit.write(AppExit::error());
            return;
        }
        if graph.json.is_some() {
            let on_gpu = crowds.iter().any(ThrongCrowd::graph_on_gpu);
            let why = (crowds.iter().find_map(ThrongCrowd::graph_cpu_because))
                .map(|w| format!(" ({w})"))
                .unwrap_or_default();
            println!(
                "bevy_crowd: graph stepped on the {}{why}; {} state events",
                if on_gpu { "GPU" } else { "CPU" },
                graph.events.len()
            );
            for (fox, state, event, enter) in &graph.events {
                let kind = if *enter { "enter" } else { "exit" };
                println!("graph event: fox {fox} {state} {event} {kind}");
            }
            println!("bevy_crowd: {} clip events", graph.clip_events.len());
            for (fox, name, time) in &graph.clip_events {
                // the time's bits: the GPU step times an event as the CPU step does
                println!("graph clip event: fox {fox} {name} at {time:?}");
            }
        }
        // How much of the crowd the camera sees: each fox's sphere (its pose box's reach
        // from its origin) against the camera's frustum.
        let reach = (plan.bounds.1.abs().max(plan.bounds.0.abs())).length();
        if let Some(frustum) = view.iter().next() {
            // A fox of `--mode bevy` is a scene root and its AnimationPlayer, both indexed:
            // each fox counts once, seen when one of its entities is.
            let mut all = std::collections::HashSet::new();
            let mut seen = std::collections::HashSet::new();
            for (i, g) in &foxes {
                all.insert(i.0);
                let sphere = bevy::camera::primitives::Sphere {
                    center: g.translation_vec3a(),
                    radius: reach,
                };
                // Bevy draws with an infinite far plane; the frustum's far plane is the
                // projection's `far` (1,000 units), nearer than a centimetre field.
                if frustum.intersects_sphere(&sphere, false) {
                    seen.insert(i.0);
                }
            }
            let (seen, all) = (seen.len(), all.len());
            println!(
                "bevy_crowd: the camera sees {seen} of {all} foxes ({:.1} %)",
                seen as f64 * 100.0 / all.max(1) as f64
            );
        }
        exit.write(AppExit::Success);
    }
}

/// `--dump-scene`: in the frame the screenshot was asked for (its state is what this frame's
/// extraction draws and the screenshot captures), writes the camera and the crowd's
/// transforms, records and appearances.
fn dump_scene(
    stats: Res<Stats>,
    plan: Res<Plan>,
    crowds: Query<(&ThrongCrowd, Option<&ThrongCull>)>,
    cameras: Query<(&GlobalTransform, &Projection), With<Camera3d>>,
    windows: Query<&Window>,
    clear: Res<ClearColor>,
    mut done: Local<bool>,
) {
    let Some(out) = &plan.args.dump_scene else {
        return;
    };
    if *done || !stats.shot_requested {
        return;
    }
    *done = true;
    let (Some((crowd, cull)), Some((place, Projection::Perspective(p))), Some(window)) = (
        crowds.iter().next(),
        cameras.iter().next(),
        windows.iter().next(),
    ) else {
        eprintln!("bevy_crowd: --dump-scene needs --mode throng and a perspective camera");
        return;
    };
    let Some(rt) = crowd.runtime() else {
        return;
    };
    let eye = place.translation();
    let dump = scene_dump::SceneDump {
        width: window.physical_width(),
        height: window.physical_height(),
        eye: eye.to_array(),
        target: (eye + place.forward().as_vec3()).to_array(),
        up: place.up().as_vec3().to_array(),
        fov_y: p.fov,
        near: p.near,
        transforms: bytemuck::pod_collect_to_vec(rt.transforms()),
        records: bytemuck::pod_collect_to_vec(crowd.record_bytes()),
        clock: match rt.records() {
            throng_contract::Records::Gpu { clock, .. } => Some(clock),
            _ => None,
        },
        background: clear.0.to_linear().to_f32_array(),
        culled: cull.copied().unwrap_or_default().per_instance,
        lod_bias: cull.copied().unwrap_or_default().lod_bias,
        appearances: bytemuck::pod_collect_to_vec(crowd.appearances().values()),
    };
    let written = serde_json::to_vec(&dump)
        .map_err(|e| e.to_string())
        .and_then(|bytes| std::fs::write(out, bytes).map_err(|e| e.to_string()));
    if let Err(e) = written {
        eprintln!("bevy_crowd: --dump-scene {}: {e}", out.display());
    }
}

/// `--dump-cull`: per crowd and view, its lists per LOD and the view's matrices (text), and the
/// first crowd's transforms and records (`OUT.transforms`, `OUT.records`, raw little-endian
/// bytes as the culling pass read them). Line formats:
/// `crowd <instances> <lods> <gpu_timed 0|1>`;
/// `view <light 0|1> eye <4 floats> clip_from_view <16> world_from_view <16>` (column-major);
/// `lod <l> <count> <ids…>` (the far tier's level: its cards drawn as quads and as points
/// together); `points <count>` after a view's lists (of its far level's cards, those drawn as
/// points); `palette <count> <ids…>`.
fn write_cull_dump(out: &std::path::Path, snaps: &[CullSnapshot]) -> std::io::Result<()> {
    use std::fmt::Write as _;
    let mut text = String::new();
    let floats = |m: &Mat4| {
        m.to_cols_array()
            .iter()
            .map(|v| format!("{v:e}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let ids = |v: &[u32]| {
        v.iter()
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    };
    for s in snaps {
        let _ = writeln!(
            text,
            "crowd {} {} {}",
            s.instances, s.lods, s.gpu_timed as u8
        );
        for v in &s.views {
            let eye = v.eye.map(|e| format!("{e:e}")).join(" ");
            let _ = writeln!(
                text,
                "view {} eye {eye} clip_from_view {} world_from_view {}",
                v.light as u8,
                floats(&v.clip_from_view),
                floats(&v.world_from_view)
            );
            for (l, list) in v.lists.iter().enumerate() {
                let _ = writeln!(text, "lod {l} {} {}", list.len(), ids(list));
            }
            // Of the far level's cards, those drawn as points.
            let _ = writeln!(text, "points {}", v.points);
        }
        let _ = writeln!(text, "palette {} {}", s.palette.len(), ids(&s.palette));
    }
    std::fs::write(out, text)?;
    if let Some(s) = snaps.first() {
        std::fs::write(out.with_extension("transforms"), &s.transforms)?;
        std::fs::write(out.with_extension("records"), &s.records)?;
    }
    let main: Vec<usize> = snaps
        .iter()
        .flat_map(|s| s.views.iter().filter(|v| !v.light))
        .take(1)
        .flat_map(|v| v.lists.iter().map(Vec::len))
        .collect();
    println!("bevy_crowd: culling kept per LOD in the first camera: {main:?}");
    Ok(())
}

fn report(stats: &Stats, a: &Args, spawned: u32, timers: &Timers) {
    let Some(t0) = stats.started else {
        println!(
            "bevy_crowd: {} frames, fewer than --warmup {}: no figures",
            stats.frames, a.warmup
        );
        return;
    };
    let n = stats.frames.saturating_sub(a.warmup + 1).max(1);
    let wall = t0.elapsed().as_secs_f64() / n as f64;
    let cpu = (app_cpu_ns().saturating_sub(stats.cpu_at_start)) as f64 * 1e-9 / n as f64;
    if std::env::var_os("BEVY_CROWD_THREADS").is_some() {
        // Since the process started, per thread: which threads count as the app's.
        for (name, ns) in thread_cpu_ns() {
            let side = if is_rasteriser(&name) {
                "rasteriser"
            } else {
                "app"
            };
            println!(
                "  thread {name:<28} {side:<10} {:>10.1} ms",
                ns as f64 * 1e-6
            );
        }
    }
    println!(
        "bevy_crowd: mode {:?}, {} foxes, {} frames measured: mean frame time {:.2} ms, app CPU time {:.2} ms per frame (all app threads, without llvmpipe/lavapipe)",
        a.mode,
        spawned,
        n,
        wall * 1e3,
        cpu * 1e3
    );
    if a.mode == Mode::Throng {
        let (records, transforms) = stats.uploaded;
        let per = |b: u64| b as f64 / stats.uploaded_frames.max(1) as f64;
        if stats.graph_on_gpu {
            println!(
                "bevy_crowd: uploaded per frame: records none (a graph stepped on the GPU writes them there), transforms {:.0} B",
                per(transforms)
            );
        } else {
            println!(
                "bevy_crowd: uploaded per frame: records {:.0} B ({:.2} % of the crowd's {} B), transforms {:.0} B",
                per(records),
                per(records) * 100.0 / stats.all_records.max(1) as f64,
                stats.all_records,
                per(transforms)
            );
        }
    }
    if let Ok(t) = timers.0.lock() {
        println!(
            "bevy_crowd: wall time per frame of the main world's schedules {:.2} ms, of the render world's extract-commands..prepare sets {:.2} ms",
            t.main_s * 1e3 / n as f64,
            t.render_s * 1e3 / n as f64
        );
        if a.mode == Mode::Throng {
            println!(
                "bevy_crowd: throng crowd items in one frame: {} in light views' shadow phases, {} in cameras' prepass phases",
                t.shadow_items, t.prepass_items
            );
        }
    }
}

/// Grid spot of fox `i` of `n` (file units), facing varied ways.
fn spot(i: u32, n: u32, spacing: f32) -> Transform {
    let side = (n as f32).sqrt().ceil().max(1.0) as u32;
    let (col, row) = ((i % side) as f32, (i / side) as f32);
    let centre = (side - 1) as f32 * 0.5;
    Transform::from_xyz((col - centre) * spacing, 0.0, (row - centre) * spacing)
        .with_rotation(Quat::from_rotation_y(i as f32 * 2.4))
}

/// `--camera patch`: height above the field (file units) and radius of the circle the camera
/// flies, from the field's side. Looking down steeply with Bevy's default 45° vertical field
/// of view from a quarter of the side up, the patch in view is about a tenth of the field
/// (11.0 % of 10,000 foxes measured; the example prints the share on exit).
fn patch_orbit(side: f32) -> (f32, f32) {
    (side * 0.24, side * 0.25)
}

/// The camera of `--camera patch` at `time` seconds: circling the field's centre once every
/// 60 s, looking down ahead of itself.
fn patch_camera(side: f32, time: f32) -> Transform {
    let (height, radius) = patch_orbit(side);
    let a = time * std::f32::consts::TAU / 60.0;
    let eye = Vec3::new(radius * a.cos(), height, radius * a.sin());
    let ahead = Vec3::new(-a.sin(), 0.0, a.cos()) * height * 0.45;
    Transform::from_translation(eye).looking_at(Vec3::new(eye.x, 0.0, eye.z) + ahead, Vec3::Y)
}

/// `--spawn-in-view`: whether the patch camera at its start projects a world point within
/// `margin` times its frame (Bevy's default perspective at the window's aspect).
fn in_patch_view(plan: &Plan, margin: f32) -> impl Fn(Vec3) -> bool {
    use bevy::camera::CameraProjection;
    let projection = PerspectiveProjection {
        aspect_ratio: plan.size.0 as f32 / plan.size.1 as f32,
        ..default()
    };
    let clip_from_world =
        projection.get_clip_from_view() * patch_camera(field_side(plan), 0.0).to_matrix().inverse();
    move |p: Vec3| {
        let c = clip_from_world * p.extend(1.0);
        c.w > 0.0 && c.x.abs() <= margin * c.w && c.y.abs() <= margin * c.w
    }
}

/// The field's side (file units) for `plan`'s instance count.
fn field_side(plan: &Plan) -> f32 {
    (plan.args.instances as f32).sqrt().ceil().max(1.0) * spacing(plan)
}

/// Moves the `--camera patch` camera along its circle (time stands still until the scene is
/// ready, so the path is the same on any machine).
fn move_camera(
    plan: Res<Plan>,
    time: Res<Time>,
    mut cameras: Query<&mut Transform, With<Camera3d>>,
) {
    if plan.args.camera != CameraArg::Patch || plan.args.still_camera {
        return;
    }
    let side = field_side(&plan);
    for mut t in &mut cameras {
        *t = patch_camera(side, time.elapsed_secs());
    }
}

fn spacing(plan: &Plan) -> f32 {
    let e = plan.bounds.1 - plan.bounds.0;
    (e.x.max(e.z) * 1.2).max(1e-3)
}

fn setup_scene(
    mut commands: Commands,
    plan: Res<Plan>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    mut show: ResMut<Assets<ShowMotion>>,
    mut shaders: ResMut<Assets<Shader>>,
) {
    if plan.args.show_motion {
        let _ = shaders.insert(
            SHOW_MOTION_SHADER.id(),
            Shader::from_wgsl(SHOW_MOTION_WGSL, "examples/bevy_crowd.rs#show_motion"),
        );
    }
    let s = spacing(&plan);
    let side = field_side(&plan);
    let height = (plan.bounds.1.y - plan.bounds.0.y).max(1e-3);
    // Looking down at the field from its near edge: a small field whole; of a large one the
    // near rows fall below the frame (at 10,000 foxes and 16:9, 9,249 in view).
    let eye = Vec3::new(0.0, side * 0.55 + height * 2.0, side * 0.75 + height * 3.0);
    let place = match plan.args.camera {
        CameraArg::Overview => {
            Transform::from_translation(eye).looking_at(Vec3::new(0.0, height * 0.3, 0.0), Vec3::Y)
        }
        CameraArg::Patch => patch_camera(side, 0.0),
    };
    let mut camera = commands.spawn((
        Camera3d::default(),
        // A tonemapper without lookup tables (the LUT feature is left out of the build).
        Tonemapping::AcesFitted,
        place,
    ));
    let prepass = match plan.args.show_motion {
        true => PrepassArg::Motion,
        false => plan.args.prepass,
    };
    if prepass != PrepassArg::None {
        camera.insert(DepthPrepass);
    }
    if matches!(prepass, PrepassArg::Normal | PrepassArg::Motion) {
        camera.insert(NormalPrepass);
    }
    if prepass == PrepassArg::Motion {
        camera.insert(MotionVectorPrepass);
    }
    if plan.args.no_msaa {
        camera.insert(Msaa::Off);
    }
    if plan.args.debug.is_some() {
        camera.insert((Tonemapping::None, DebandDither::Disabled));
    }
    if plan.args.show_motion {
        // A fragment shader reads a multisampled prepass only with MULTISAMPLED_SHADING, and
        // the encoding should reach the PNG as written.
        camera.insert((Msaa::Off, Tonemapping::None));
        let quad_size = Vec2::splat(eye.length() * 4.0);
        camera.with_child((
            Mesh3d(meshes.add(Rectangle::from_size(quad_size))),
            MeshMaterial3d(show.add(ShowMotion {
                scale: Vec4::new(32.0, 0.0, 0.0, 0.0),
            })),
            Transform::from_xyz(0.0, 0.0, -1.0),
            NotShadowCaster,
        ));
    }
    if plan.args.ground {
        // A grey plane a little wider than the field, at the foxes' feet.
        let extent = side + s * 2.0;
        commands.spawn((
            Mesh3d(meshes.add(Plane3d::default().mesh().size(extent, extent))),
            MeshMaterial3d(materials.add(StandardMaterial {
                base_color: Color::srgb(0.55, 0.55, 0.5),
                perceptual_roughness: 1.0,
                ..default()
            })),
            Transform::from_xyz(0.0, plan.bounds.0.y.min(0.0), 0.0),
        ));
    }
    commands.spawn((
        DirectionalLight {
            illuminance: 8_000.0,
            shadow_maps_enabled: !plan.args.no_shadows,
            ..default()
        },
        Transform::from_xyz(1.0, 2.0, 1.5).looking_at(Vec3::ZERO, Vec3::Y),
        // Bevy's default cascades reach 150 units from the camera, short of a field of foxes
        // modelled in centimetres: two cascades over the whole field instead — or, for the
        // patch camera, over what it sees (the ground it looks at lies within 0.35 sides of
        // it), as a game fits its cascades to its view: cascades over the whole field would
        // draw every fox into the shadow maps.
        match plan.args.camera {
            CameraArg::Overview => CascadeShadowConfigBuilder {
                num_cascades: 2,
                first_cascade_far_bound: eye.length(),
                maximum_distance: eye.length() + side * 1.5,
                ..default()
            },
            CameraArg::Patch => CascadeShadowConfigBuilder {
                num_cascades: 2,
                first_cascade_far_bound: side * 0.25,
                maximum_distance: side * 0.45,
                ..default()
            },
        }
        .build(),
    ));
    commands.insert_resource(GlobalAmbientLight {
        brightness: 400.0,
        ..default()
    });
}

/// `--show-motion`: a quad in front of the camera that shows the camera's motion-vector
/// prepass, drawn after the opaque scene (blended, not in the prepass itself).
#[derive(Asset, TypePath, AsBindGroup, Debug, Clone)]
struct ShowMotion {
    /// x: colour units per UV unit of motion.
    #[uniform(0)]
    scale: Vec4,
}

const SHOW_MOTION_SHADER: Handle<Shader> = uuid_handle!("6b0f3b6e-3c55-4f4e-9d1e-5f2f6e0f7a51");

const SHOW_MOTION_WGSL: &str = r#"
#import bevy_pbr::{forward_io::VertexOutput, prepass_utils}

@group(#{MATERIAL_BIND_GROUP}) @binding(0) var<uniform> scale: vec4<f32>;

@fragment
fn fragment(in: VertexOutput) -> @location(0) vec4<f32> {
    let mv = prepass_utils::prepass_motion_vector(in.position, 0u);
    return vec4<f32>(vec2<f32>(0.5) + mv * scale.x, 0.5, 1.0);
}
"#;

impl Material for ShowMotion {
    fn fragment_shader() -> ShaderRef {
        SHOW_MOTION_SHADER.into()
    }

    fn alpha_mode(&self) -> AlphaMode {
        AlphaMode::Blend
    }

    fn enable_prepass() -> bool {
        false
    }

    fn enable_shadows() -> bool {
        false
    }
}

#[derive(Component)]
struct FoxIndex(u32);

/// The clip fox `i` starts with (walk or run) and its start time and speed.
fn start_of(i: u32, plan: &Plan) -> (usize, f32, f32) {
    let clip = if i % 2 == 0 { plan.walk } else { plan.run };
    (clip, i as f32 * 0.37 % 1.0, 0.8 + 0.1 * (i % 5) as f32)
}

/// The tint of `--variety` (RGBA8, linear, multiplied with the fox's base colour): red down to
/// a third, so no fox stays orange.
const VARIETY_TINT: [u8; 4] = [80, 255, 80, 255];

/// Foxes in their crowd that have no appearance yet.
type PlainFoxes = (With<ThrongHandle>, Without<ThrongAppearance>);

/// `--variety` and `--variants`: each fox's appearance, given once its instance is in the
/// crowd (so it reaches the GPU as 16 B per changed instance rather than with the spawn's
/// upload of every one).
fn vary_foxes(
    plan: Res<Plan>,
    foxes: Query<(Entity, &FoxIndex, &ThrongInstance), PlainFoxes>,
    crowds: Query<&ThrongCrowd>,
    mut commands: Commands,
) {
    if !plan.args.variety && !plan.args.variants {
        return;
    }
    for (e, i, inst) in &foxes {
        let mut look = ThrongAppearance::default();
        if plan.args.variety {
            look = look.with_tint(VARIETY_TINT);
            if i.0 % 2 == 1 {
                look = look.with_parts(0);
            }
        }
        if plan.args.variants {
            let v = crowds
                .get(inst.crowd)
                .ok()
                .and_then(|c| c.baked())
                .map_or(0, |b| b.variants.len() as u32);
            look = look.with_variant(i.0 % (v + 2));
        }
        commands.entity(e).insert(look);
    }
}

fn setup_crowd(
    mut commands: Commands,
    mut plan: ResMut<Plan>,
    graph: Res<GraphRun>,
    asset_server: Res<AssetServer>,
    mut throng_assets: ResMut<Assets<ThrongAsset>>,
    mut images: ResMut<Assets<Image>>,
) {
    let n = plan.args.instances;
    let s = spacing(&plan);
    match plan.args.mode {
        Mode::Throng => {
            let handle = match (plan.baked.take(), &plan.load) {
                (Some(b), _) => throng_assets.add(throng_bevy::from_baked(b, &mut images)),
                (None, Some(path)) => asset_server.load::<ThrongAsset>(path.clone()),
                (None, None) => return,
            };
            let timing = match plan.args.timing {
                TimingArg::Cpu => Timing::Cpu,
                TimingArg::Gpu => Timing::Gpu,
            };
            let path = match plan.args.path {
                PathArg::Palette => SkinPath::Palette,
                PathArg::Texture => SkinPath::Texture,
                PathArg::Vat => SkinPath::Vat,
            };
            let skinning = match plan.args.skinning {
                SkinningArg::Lbs => throng_contract::Skinning::Linear,
                SkinningArg::Dq => throng_contract::Skinning::DualQuat,
            };
            let cull = ThrongCull {
                per_instance: !plan.args.no_cull,
                lod_bias: plan.args.lod_bias,
                far_dots: !plan.args.no_far_dots,
                ..default()
            };
            let mut throng_crowd = ThrongCrowd::new(handle, timing)
                .with_skin_path(path)
                .with_skinning(skinning);
            if let (Some(json), Some(file)) = (&graph.json, &plan.args.graph) {
                let on = match plan.args.graph_on {
                    None | Some(GraphOnArg::Auto) => GraphOn::Auto,
                    Some(GraphOnArg::Cpu) => GraphOn::Cpu,
                    Some(GraphOnArg::Gpu) => GraphOn::Gpu,
                };
                let name = file.display().to_string();
                throng_crowd = throng_crowd
                    .with_graph(GraphSource::new(name, json.as_str()))
                    .with_graph_on(on);
            }
            let crowd = commands.spawn((throng_crowd, cull)).id();
            if let Some(layer) = plan.args.crowd_layer {
                commands
                    .entity(crowd)
                    .insert(bevy::camera::visibility::RenderLayers::layer(layer));
            }
            if plan.args.hide_crowd {
                commands.entity(crowd).insert(Visibility::Hidden);
            }
            if plan.args.debug == Some(DebugArg::Normals) {
                commands.entity(crowd).insert(ThrongDebugView::Normals);
            }
            let in_view = plan.args.spawn_in_view.map(|m| in_patch_view(&plan, m));
            let mut spawned = 0;
            for i in 0..n {
                let at = spot(i, n, s);
                if in_view.as_ref().is_some_and(|sees| !sees(at.translation)) {
                    continue;
                }
                if graph.json.is_some() {
                    let mut params = ThrongParams::default();
                    params.set_float("speed", graph_speed(i, 0));
                    commands.spawn((ThrongInstance { crowd }, params, at, FoxIndex(i)));
                    spawned += 1;
                    continue;
                }
                let (clip, t, speed) = start_of(i, &plan);
                let mut pb = ThrongPlayback::default();
                pb.play_with(clip, throng_bevy::PlayOptions::at(t).with_speed(speed));
                commands.spawn((ThrongInstance { crowd }, pb, at, FoxIndex(i)));
                spawned += 1;
            }
            plan.spawned = spawned;
        }
        Mode::Bevy => {
            let Some(path) = plan.load.clone() else {
                return;
            };
            let scene = asset_server.load(GltfAssetLabel::Scene(0).from_asset(path.clone()));
            let clips: Vec<Handle<AnimationClip>> = (0..3)
                .map(|k| asset_server.load(GltfAssetLabel::Animation(k).from_asset(path.clone())))
                .collect();
            commands.insert_resource(BevyClips(clips));
            for i in 0..n {
                commands.spawn((WorldAssetRoot(scene.clone()), spot(i, n, s), FoxIndex(i)));
            }
        }
    }
}

/// Bevy mode: the glTF's clips and the graph built from them.
#[derive(Resource)]
struct BevyClips(Vec<Handle<AnimationClip>>);

#[derive(Resource)]
struct BevyGraph {
    handle: Handle<AnimationGraph>,
    nodes: Vec<AnimationNodeIndex>,
}

/// Bevy mode: gives every new AnimationPlayer (one per spawned scene) the graph and its
/// fox's first clip.
// a Bevy system receives its resources and queries as arguments
#[allow(clippy::too_many_arguments)]
fn start_bevy_players(
    mut commands: Commands,
    plan: Res<Plan>,
    clips: Option<Res<BevyClips>>,
    graph: Option<Res<BevyGraph>>,
    mut graphs: ResMut<Assets<AnimationGraph>>,
    mut players: Query<(Entity, &mut AnimationPlayer), Added<AnimationPlayer>>,
    parents: Query<&ChildOf>,
    foxes: Query<&FoxIndex>,
) {
    let Some(clips) = clips else {
        return;
    };
    let graph = match graph {
        Some(g) => (g.handle.clone(), g.nodes.clone()),
        None => {
            let (g, nodes) = AnimationGraph::from_clips(clips.0.iter().cloned());
            let handle = graphs.add(g);
            commands.insert_resource(BevyGraph {
                handle: handle.clone(),
                nodes: nodes.clone(),
            });
            (handle, nodes)
        }
    };
    for (e, mut player) in &mut players {
        // The fox is the scene root above the player.
        let i = parents
            .iter_ancestors(e)
            .find_map(|a| foxes.get(a).ok())
            .map_or(0, |f| f.0);
        let (clip, at, speed) = start_of(i, &plan);
        let mut transitions = AnimationTransitions::new();
        let node = graph.1[clip.min(graph.1.len() - 1)];
        transitions
            .play(&mut player, node, Duration::ZERO)
            .repeat()
            .set_speed(speed)
            .seek_to(at);
        commands.entity(e).insert((
            AnimationGraphHandle(graph.0.clone()),
            transitions,
            FoxIndex(i),
        ));
    }
}

/// The fox that switches between walk and run this second: one in eight, rotating.
fn switches(i: u32, second: u64) -> bool {
    (i as u64 + second) % 8 == 0
}

fn crossfade_throng(
    time: Res<Time>,
    plan: Res<Plan>,
    stats: Res<Stats>,
    mut last: Local<u64>,
    mut foxes: Query<(&FoxIndex, &mut ThrongPlayback)>,
) {
    if let Some(share) = plan.args.change_share {
        // every frame once time runs: the foxes of this frame's slice of the rotation
        if !stats.ready {
            return;
        }
        let n = plan.spawned.max(1) as u64;
        let per_frame = ((share.clamp(0.0, 1.0) * n as f64).ceil() as u64).max(1);
        let start = stats.frames as u64 * per_frame;
        for (i, mut pb) in &mut foxes {
            let k = (i.0 as u64 + n - start % n) % n;
            if k < per_frame {
                let lap = (start + k) / n;
                pb.crossfade(if lap % 2 == 0 { plan.run } else { plan.walk }, 0.3);
            }
        }
        return;
    }
    let second = time.elapsed_secs_f64() as u64;
    if second == *last {
        return;
    }
    *last = second;
    for (i, mut pb) in &mut foxes {
        if switches(i.0, second) {
            let to = if (i.0 as u64 + second / 8) % 2 == 0 {
                plan.run
            } else {
                plan.walk
            };
            pb.crossfade(to, 0.3);
        }
    }
}

/// `--graph`: fox `i`'s speed in second `second` (idle, a walk, a run; one in eight changes
/// each second).
fn graph_speed(i: u32, second: u64) -> f32 {
    const SPEEDS: [f32; 4] = [0.0, 1.5, 4.0, 2.5];
    let changes = (i as u64 + 7 * second) / 8;
    SPEEDS[((i as u64 + changes) % 4) as usize]
}

/// `--graph`: every second once time runs, one fox in eight gets a new speed and one in five
/// fires the graph's `look` trigger (where the graph has none it is logged and skipped).
#[allow(clippy::too_many_arguments)]
fn drive_graph(
    mut commands: Commands,
    time: Res<Time>,
    graph: Res<GraphRun>,
    stats: Res<Stats>,
    plan: Res<Plan>,
    mut last: Local<u64>,
    mut foxes: Query<(Entity, &FoxIndex, &mut ThrongParams)>,
    crowds: Query<Entity, With<ThrongCrowd>>,
) {
    if graph.json.is_none() || !stats.ready {
        return;
    }
    let second = time.elapsed_secs_f64() as u64;
    if second == *last {
        return;
    }
    *last = second;
    let has_look = graph
        .json
        .as_deref()
        .is_some_and(|j| j.contains("\"look\""));
    // spawns and despawns while the graph runs (on the GPU they are repeated there)
    let n = plan.args.instances;
    let churn = [1, 5].map(|k| k.min(n.saturating_sub(1)));
    if second == 2 {
        for (e, i, _) in &foxes {
            if churn.contains(&i.0) {
                commands.entity(e).despawn();
            }
        }
    }
    if let (3, Some(crowd)) = (second, crowds.iter().next()) {
        for (k, &spot_of) in churn.iter().enumerate() {
            let mut params = ThrongParams::default();
            params.set_float("speed", 4.0);
            if has_look {
                params.fire("look");
            }
            let at = spot(spot_of, n, spacing(&plan));
            commands.spawn((ThrongInstance { crowd }, params, at, FoxIndex(n + k as u32)));
        }
    }
    for (_, i, mut params) in &mut foxes {
        if switches(i.0, second) {
            params.set_float("speed", graph_speed(i.0, second));
        }
        if has_look && (i.0 as u64 + second) % 5 == 0 {
            params.fire("look");
        }
    }
}

/// `--graph`: notes every state and clip event, in the order received.
fn note_state_events(
    mut graph: ResMut<GraphRun>,
    mut events: MessageReader<ThrongStateEvent>,
    mut clip_events: MessageReader<throng_bevy::ThrongEvent>,
    foxes: Query<&FoxIndex>,
) {
    let fox_of = |e: Option<Entity>| e.and_then(|f| foxes.get(f).ok()).map_or(u32::MAX, |f| f.0);
    for e in clip_events.read() {
        if graph.json.is_some() {
            let fox = fox_of(e.entity);
            graph.clip_events.push((fox, e.name.to_string(), e.time));
        }
    }
    for e in events.read() {
        let fox = fox_of(e.entity);
        graph.events.push((
            fox,
            e.state_name.to_string(),
            e.event_name.to_string(),
            e.enter,
        ));
    }
}

fn crossfade_bevy(
    time: Res<Time>,
    plan: Res<Plan>,
    graph: Option<Res<BevyGraph>>,
    mut last: Local<u64>,
    mut players: Query<(&FoxIndex, &mut AnimationPlayer, &mut AnimationTransitions)>,
) {
    let Some(graph) = graph else {
        return;
    };
    let second = time.elapsed_secs_f64() as u64;
    if second == *last {
        return;
    }
    *last = second;
    for (i, mut player, mut transitions) in &mut players {
        if switches(i.0, second) {
            let to = if (i.0 as u64 + second / 8) % 2 == 0 {
                plan.run
            } else {
                plan.walk
            };
            let node = graph.nodes[to.min(graph.nodes.len() - 1)];
            transitions
                .play(&mut player, node, Duration::from_millis(300))
                .repeat();
        }
    }
}
