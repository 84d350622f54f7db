//! `throng render`: a headless picture (PNG) or animation (GIF) of a crowd — a shell over the
//! libraries: inputs are loaded (or baked in memory), the crowd is laid out and its clips picked
//! by `throng_runtime::crowd`, played by `CpuRuntime` or `GpuRuntime` exactly as a game plays
//! it, and drawn by `throng_render` on the texture, VAT or reference path.
//!
//! - A baked asset is drawn by the GPU from its bone texture (`--path texture`) or its vertex
//!   animation textures (`--path vat`), or with `--path reference` from the CPU decoder's
//!   skinned vertices (with `--source SRC`: the source glTF skinned by throng-anim).
//! - A source (glTF, GLB or FBX) is baked in memory and drawn like a baked asset; with
//!   `--path reference` it is drawn itself (full-rate evaluation and CPU skinning, the baseline
//!   the bake is measured against), within [`throng_scene::REFERENCE_MEMORY_LIMIT`].
//!
//! Every path frames the still with the same camera — chosen from the inputs' bounds and the
//! layout, or given with `--camera` — so images of two paths can be compared pixel by pixel.

use anyhow::Context;
use std::path::PathBuf;
use std::time::Instant;
use throng_anim::Skinning;
use throng_asset::{Aabb, Encoding};
use throng_contract::Timing;
use throng_render::{
    Camera, DebugView, InstanceTransform, RenderOptions, Renderer, ShadowLod, SkinPath,
};
use throng_runtime::crowd::{self, ClipMix, Layout};

use super::shared::{self, load_model, usage, SourceArgs};
use throng_scene::{
    bake_in_memory, draw_baked, draw_source, split_layout, stats_line, warn_mixed_scales,
    BakedScene, Frames, GraphSetup, InMemoryBake, Input, Overlay, Part, PlacedProps, PropSource,
    VariantChoice, Variety, VarietyError,
};

#[derive(clap::Args)]
pub struct Args {
    /// A baked throng asset (.glb), or a source (.gltf/.glb/.fbx): one source alone is drawn with
    /// CPU skinning, and baked in memory for the GPU paths when a flag needs them (--encoding,
    /// --influences, --timing gpu, --debug). Several inputs share one frame: instance i is an
    /// instance of input i mod K, each drawn on the GPU (sources baked in memory).
    #[arg(required = true, num_args = 1.., value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    #[command(flatten)]
    pub source_args: SourceArgs,
    /// Output PNG, or GIF with `--frames` (default: the first input's name with `.png`/`.gif`
    /// in the current folder).
    #[arg(short, long, visible_alias = "out")]
    pub output: Option<PathBuf>,
    /// Clip name or index; without it the first clip (the rest pose when there is none), or a
    /// seeded mix of clips for a crowd.
    #[arg(long)]
    pub clip: Option<String>,
    /// Clip time in seconds (wrapped or held by the clip's loop mode).
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true, value_parser = shared::parse_finite)]
    pub time: f64,
    /// Number of instances (at most 10,000,000; the device may allow fewer). Default: one per
    /// input.
    #[arg(long, allow_hyphen_values = true, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    pub instances: Option<u32>,
    /// Seconds of clip time between consecutive instances.
    #[arg(long, default_value_t = 0.0, value_parser = shared::parse_finite)]
    pub stagger: f64,
    /// Blend a second clip in with `--blend-weight`, in normalised time (both clips complete a
    /// cycle together), as the runtime's blend does.
    #[arg(long)]
    pub blend: Option<String>,
    /// Weight of the `--blend` clip, 0..1.
    #[arg(long, default_value_t = 0.5, value_parser = shared::parse_fraction)]
    pub blend_weight: f64,
    /// Play the `--blend` clip as an overlay layer under this layer mask of the asset (baked
    /// with `bake --mask NAME=JOINT`), e.g. `--blend Survey --blend-mask upper`: the base clip
    /// keeps its full weight and the mask's joints move `--blend-weight` of the way to the
    /// blend clip. An additive `--blend` clip (`bake --additive`) is an overlay with or without
    /// a mask. Overlays are drawn by `--path palette` (LBS and DQ) and `--path reference`.
    #[arg(long, value_name = "MASK", requires = "blend")]
    pub blend_mask: Option<String>,
    /// Image size in pixels, WIDTHxHEIGHT.
    #[arg(long, allow_hyphen_values = true, default_value = "512x512", value_parser = shared::parse_size)]
    pub size: (u32, u32),
    /// Skinning method: linear blend (lbs) or dual quaternion (dq, quat-* encodings).
    #[arg(long, value_enum, default_value_t = Skinning::Linear)]
    pub skinning: Skinning,
    /// `palette` (skin matrices blended once per drawn instance by a compute pass, read per
    /// influence), `texture` (GPU skinning from the bone texture per vertex), `vat` (baked
    /// vertex animation textures; the asset must have them) or `reference` (vertices skinned
    /// on the CPU, uploaded; a source input is then drawn itself, unbaked). Default: the palette
    /// path, the fastest measured (docs/benchmarks.md), or the texture path when the crowd's
    /// palette does not fit the device's buffers; a source input is baked in memory first.
    /// The path taken is printed.
    #[arg(long, value_enum)]
    pub path: Option<SkinPath>,
    /// Draw every instance instead of culling against the view frustum on the GPU.
    #[arg(long)]
    pub no_cull: bool,
    /// Cull against the view frustum only, not also instances hidden behind others (occlusion
    /// culling saves work from the third frame of an animation on; it never changes the image).
    #[arg(long)]
    pub no_occlusion: bool,
    /// Leave out the ground plane.
    #[arg(long)]
    pub no_ground: bool,
    /// Who times playback: `cpu` (CpuRuntime writes every record each frame) or `gpu`
    /// (GpuRuntime's records + clock; the shader derives the rows). Every GPU path.
    #[arg(long, value_enum, default_value_t = Timing::Cpu)]
    pub timing: Timing,
    /// Source input (glTF or FBX): bake it in memory with this bone-texture encoding.
    #[arg(long, value_enum)]
    pub encoding: Option<Encoding>,
    /// Source input (glTF or FBX): bake it in memory with K influences per vertex (4 or 8).
    #[arg(long, value_parser = shared::parse_influences)]
    pub influences: Option<u32>,
    /// Baked input with `--path reference`: skin this source (glTF or FBX) on the CPU instead
    /// of decoding the baked asset.
    #[arg(long)]
    pub source: Option<PathBuf>,
    /// Add a seeded random phase (0..clip duration) to every instance's time.
    #[arg(long)]
    pub random_phase: bool,
    /// Seed of the random clip mix, phases and layout.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Where instances stand: a square `grid` or seeded `random` spots with random headings.
    #[arg(long, value_enum, default_value_t = Layout::Grid)]
    pub layout: Layout,
    /// Number of frames; more than 1 writes an animated GIF.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub frames: u32,
    /// Frames per second of the animation (clip time between frames = 1/fps).
    #[arg(long, default_value_t = 15.0, value_parser = parse_positive)]
    pub fps: f64,
    /// The camera, `EYE_X,EYE_Y,EYE_Z:TARGET_X,TARGET_Y,TARGET_Z[:FOV_DEG]` (file units,
    /// degrees); default: framed from the inputs' bounds and the layout, the same for every path.
    #[arg(long, value_parser = shared::parse_camera, allow_hyphen_values = true)]
    pub camera: Option<Camera>,
    /// Largest projected LOD simplification error allowed, in pixels: larger picks coarser
    /// LODs nearer the camera; 0 draws LOD 0 everywhere. Assets baked with `--lod` only.
    #[arg(long, allow_hyphen_values = true, default_value_t = 1.0, value_parser = shared::parse_lod_bias, value_name = "PIXELS")]
    pub lod_bias: f32,
    /// The far tier of assets baked with `bake --far-tier`: `on` draws an instance whose
    /// far-tier texel covers at most `--lod-bias` pixels as one card (docs/design.md §5 "Far
    /// tier"); `off` keeps such instances at the coarsest mesh LOD.
    #[arg(long, value_name = "on|off", default_value = "on", action = clap::ArgAction::Set, value_parser = shared::parse_on_off)]
    pub far_tier: bool,
    /// Width of the crossfade between the coarsest mesh and the far card, as a share of
    /// `--lod-bias`: the card starts to show where its texel covers `--lod-bias` pixels and
    /// shows alone at `(1 − SHARE) · --lod-bias`, the two drawing complementary halves of a
    /// screen-door pattern between; 0 switches at once.
    #[arg(long, value_name = "SHARE", default_value_t = throng_render::DEFAULT_FAR_FADE as f64, value_parser = shared::parse_fraction)]
    pub far_fade: f64,
    /// Far cards whose screen box holds one pixel centre: `on` draws each as one point there
    /// (the same picture, cheaper), `off` as a quad like every other card.
    #[arg(long, value_name = "on|off", default_value = "on", action = clap::ArgAction::Set, value_parser = shared::parse_on_off)]
    pub far_dots: bool,
    /// Influences per vertex at LOD 0, 1, 2, 3, e.g. `4,2,1`: up to 4 values of 1..8, the last
    /// repeats for further LODs (default: all the asset has, at every LOD).
    #[arg(long, value_parser = shared::parse_lod_influences, value_name = "K,K,...")]
    pub lod_influences: Option<[u32; 4]>,
    /// Palette path, update-rate LOD: instances at LOD 0, 1, 2, 3 compute their skin matrices
    /// every N-th frame (phase spread by instance), e.g. `1,1,2,4`; up to 4 values of 1..1024,
    /// the last repeats (default: every frame).
    #[arg(long, value_parser = shared::parse_palette_refresh, value_name = "N,N,...")]
    pub palette_refresh: Option<[u32; 4]>,
    /// How the shadow pass picks each caster's LOD: `texel` (the coarsest whose error covers at
    /// most `--lod-bias` shadow-map texels), `lowest` (always the coarsest) or `main` (the
    /// view's).
    #[arg(long, value_enum, default_value_t = ShadowLod::Texel)]
    pub shadow_lod: ShadowLod,
    /// At most K influences per vertex in the shadow pass (1..8; default: as the main view).
    #[arg(long, value_parser = shared::parse_influences_any, value_name = "K")]
    pub shadow_influences: Option<u32>,
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
    /// LOD level), `motion` (`--path palette`: the motion vectors since the frame 1/fps before,
    /// hue by direction, brightness by length, full at 8 px), `normals` (the world-space
    /// normal as colour, n · 0.5 + 0.5, unlit).
    #[arg(long, value_enum)]
    pub debug: Option<DebugView>,
    /// With `--debug weights`: the weight of this palette entry (0-based; `throng inspect`
    /// lists them) instead of how much joints share each vertex.
    #[arg(long, value_name = "N")]
    pub debug_joint: Option<u32>,
    /// Attach a prop to an anchor (repeatable): the meshes of the glTF file PROP as they stand,
    /// in its own space placed by anchor ANCHOR of every instance, all instances in one draw
    /// per pass. Every input must have the anchor (`throng bake --anchor NODE`; `throng
    /// inspect BAKED` lists them); a source input is baked in memory with ANCHOR as an
    /// anchor node. Every GPU path.
    #[arg(long, value_name = "ANCHOR=PROP", value_parser = parse_prop)]
    pub prop: Vec<(String, PathBuf)>,
    /// Uniform scale of every `--prop` mesh about its origin (the anchor), for a prop modelled
    /// at another size or in other units than the character.
    #[arg(long, allow_hyphen_values = true, default_value_t = 1.0, value_parser = parse_positive, value_name = "S")]
    pub prop_scale: f64,
    /// Play every instance through this animation graph (docs/graph.md; CPU-timed) instead of
    /// `--clip`/`--blend`: the graph's parameters and transitions choose the clips.
    #[arg(long, value_name = "GRAPH.json")]
    pub graph: Option<PathBuf>,
    /// A graph parameter for every instance, `NAME=VALUE` (repeatable): a number, `true` or
    /// `false`, or `LO..HI` for a float or int spread over the instances by index; a trigger
    /// by its name alone fires.
    #[arg(long, value_name = "NAME[=VALUE]", requires = "graph", value_parser = shared::parse_param)]
    pub param: Vec<(String, Option<String>)>,
    /// Where `--graph` steps once its warm-up is done: on the GPU (docs/graph.md "On the GPU":
    /// the CPU sends only parameter changes, the records stay on the GPU), on the CPU, or auto:
    /// the GPU on a hardware adapter with compute shaders, the CPU on a software or downlevel
    /// one. The reference path steps it on the CPU.
    #[arg(long, value_enum, default_value_t = shared::GraphOn::Auto, requires = "graph")]
    pub graph_on: shared::GraphOn,
    /// Hold every instance at its place in the layout. By default an asset baked with
    /// `--root-motion extract` moves each instance by its clips' root motion, as the source
    /// moves the character (CPU-timed playback; the GPU-timed runtime keeps no root motion).
    #[arg(long)]
    pub in_place: bool,
    /// Draw in the downlevel mode (docs/downlevel.md) even on a device that runs the full one:
    /// culling and LODs on the CPU, instances from a data texture, plain instanced draws — what
    /// a device without compute shaders (WebGL2, GL ES 3.0, GL 3.3) draws, where the mode is
    /// chosen by itself. Texture, VAT and reference paths; the palette path falls back to the
    /// texture path.
    #[arg(long)]
    pub downlevel: bool,
    /// Material variant every instance shows, by name (`throng inspect BAKED` lists an asset's
    /// variants; `throng bake --variant NAME=TEXTURE.png` adds texture variants). Every path.
    #[arg(long, value_name = "NAME", conflicts_with = "all_variants")]
    pub variant: Option<String>,
    /// Show every material variant: instance i shows variant i mod (V + 1) of an asset with V
    /// variants — its own materials, then each variant in turn.
    #[arg(long)]
    pub all_variants: bool,
    /// Tint each instance from the demo crowd's palette of fur shades.
    #[arg(long)]
    pub tints: bool,
    /// Hide part N (primitive N, as `throng inspect` lists them) on every instance; repeatable.
    #[arg(long, value_name = "N")]
    pub hide_part: Vec<u32>,
}

impl Args {
    /// `--instances`, else one instance per input.
    fn instance_count(&self) -> u32 {
        self.instances
            .unwrap_or_else(|| u32::try_from(self.inputs.len()).unwrap_or(u32::MAX).max(1))
    }

    /// The crowd's variety from `--variant`, `--all-variants`, `--tints` and `--hide-part`.
    fn variety(&self) -> Variety {
        Variety {
            variant: match (&self.variant, self.all_variants) {
                (Some(name), _) => VariantChoice::Named(name.clone()),
                (None, true) => VariantChoice::All,
                (None, false) => VariantChoice::Own,
            },
            tints: self.tints,
            hidden_parts: self.hide_part.clone(),
        }
    }
}

/// `ANCHOR=PROP` of `--prop`.
fn parse_prop(s: &str) -> Result<(String, PathBuf), String> {
    match s.split_once('=') {
        Some((anchor, file)) if !anchor.is_empty() && !file.is_empty() => {
            Ok((anchor.to_string(), PathBuf::from(file)))
        }
        _ => Err(format!(
            "expected ANCHOR=PROP (an anchor name, '=', a glTF file), not {s:?}"
        )),
    }
}

fn parse_positive(s: &str) -> Result<f64, String> {
    shared::parse_finite(s).and_then(|v| {
        (v > 0.0)
            .then_some(v)
            .ok_or_else(|| format!("expected a positive number, not {s:?}"))
    })
}

/// The `--blend` clip as an overlay layer (clip, mask number, weight), when `--blend-mask` is
/// given or the clip is additive; errors name the mask and list the asset's masks.
fn overlay_of(
    args: &Args,
    input: &Input,
    blend: Option<(usize, f32)>,
    name: &str,
) -> anyhow::Result<Option<Overlay>> {
    let (Some((clip, weight)), Some(asset)) = (blend, input.baked()) else {
        return Ok(None);
    };
    let additive = asset.clips.get(clip).is_some_and(|c| c.additive.is_some());
    let mask = match &args.blend_mask {
        None if !additive => return Ok(None),
        None => 0,
        Some(m) => asset.find_mask(m).ok_or_else(|| {
            let names: Vec<&str> = asset.masks.iter().map(|m| m.name.as_str()).collect();
            anyhow::anyhow!(
                "--blend-mask {m:?}: {name} has no such layer mask (masks: {}); bake one with --mask {m}=JOINT",
                if names.is_empty() { "none".to_string() } else { names.join(", ") }
            )
        })?,
    };
    if !matches!(
        args.path,
        None | Some(SkinPath::Palette) | Some(SkinPath::Reference)
    ) {
        anyhow::bail!(
            "{name}: masked and additive layers are drawn by --path palette (or reference); the texture and VAT paths show only the base layers"
        );
    }
    Ok(Some(Overlay { clip, mask, weight }))
}

/// Flags that do not go together (usage errors, found before any file is read).
fn check_usage(args: &Args) -> anyhow::Result<()> {
    let reference = args.path == Some(SkinPath::Reference);
    if args.debug_joint.is_some() && args.debug != Some(DebugView::Weights) {
        return Err(usage("--debug-joint N goes with --debug weights"));
    }
    if args.debug == Some(DebugView::Motion) {
        if !matches!(args.path, None | Some(SkinPath::Palette)) {
            return Err(usage(
                "--debug motion shows the palette path's motion vectors: use --path palette",
            ));
        }
        if !args.prop.is_empty() {
            return Err(usage(
                "--debug motion draws no props (their anchors keep no previous frame): leave out --prop",
            ));
        }
    }
    if args.debug.is_some() && reference {
        return Err(usage(
            "--debug views draw the GPU paths: use --path texture, palette or vat",
        ));
    }
    if !args.prop.is_empty() && reference {
        return Err(usage(
            "--prop draws props on the GPU paths: use --path texture, palette or vat",
        ));
    }
    if args.graph.is_some() {
        if args.timing == Timing::Gpu {
            return Err(usage(shared::GRAPH_PLAYS_CPU_TIMED));
        }
        if args.source.is_some() {
            return Err(usage(
                "--graph plays the baked input; --source draws the source's own clips: use one",
            ));
        }
        if args.clip.is_some() || args.blend.is_some() {
            return Err(usage(
                "--graph chooses the clips by its parameters: leave out --clip and --blend (set --param NAME=VALUE)",
            ));
        }
        if args.graph_on == shared::GraphOn::Gpu && reference {
            return Err(usage(
                "the reference path steps --graph on the CPU: leave out --graph-on gpu, or use --path texture, palette or vat",
            ));
        }
    }
    if args.source.is_some() && !args.variety().is_default() {
        return Err(usage(
            "--source draws the source's own materials: leave out --variant, --all-variants, --tints and --hide-part",
        ));
    }
    if args.timing == Timing::Gpu && reference {
        return Err(usage(
            "--timing gpu needs --path texture, palette or vat (the reference path is CPU-timed)",
        ));
    }
    if args.inputs.len() > 1 {
        if reference {
            return Err(usage(
                "--path reference draws one input; several inputs need --path texture, palette or vat",
            ));
        }
        if args.source.is_some() {
            return Err(usage(
                "--source goes with one baked input and --path reference",
            ));
        }
        if (args.instance_count() as usize) < args.inputs.len() {
            return Err(usage(format!(
                "--instances {} is fewer than the {} inputs: each input needs an instance",
                args.instance_count(),
                args.inputs.len()
            )));
        }
    }
    Ok(())
}

/// Loads the inputs; a source is baked in memory unless `--path reference` draws it itself.
fn load_inputs(args: &Args) -> anyhow::Result<Vec<Input>> {
    let baked: Vec<bool> = args
        .inputs
        .iter()
        .map(|p| throng_asset::is_baked_file(p))
        .collect();
    let bake_flags = args.encoding.is_some() || args.influences.is_some();
    if baked.iter().all(|&b| b) && bake_flags {
        anyhow::bail!(
            "--encoding and --influences apply to a source (glTF or FBX); the input is already baked"
        );
    }
    if baked.iter().all(|&b| b) && !args.source_args.clips.is_empty() {
        return Err(usage(
            "--clips binds animation files to a source (glTF or FBX); the input is already baked",
        ));
    }
    // A source is baked and drawn like a baked asset (drawn unbaked by the reference path, a
    // 3,000-fox crowd took 24 GB and the kernel's kill); `--path reference` draws it itself.
    let to_gpu = args.path != Some(SkinPath::Reference);
    let gpu_flags = bake_flags
        || args.timing == Timing::Gpu
        || args.debug.is_some()
        || matches!(
            args.path,
            Some(SkinPath::Vat | SkinPath::Palette | SkinPath::Texture)
        )
        || !args.prop.is_empty()
        || args.graph.is_some()
        || !args.variety().is_default()
        || args.inputs.len() > 1;
    if gpu_flags && !to_gpu && baked.iter().any(|&b| !b) {
        anyhow::bail!(
            "--path reference draws the source itself: leave out --encoding, --influences, \
             --timing gpu, --debug, --graph and the variety flags (--variant, --all-variants, \
             --tints, --hide-part)"
        );
    }
    let how = InMemoryBake {
        encoding: args.encoding,
        influences: args.influences,
        vat: (args.path == Some(SkinPath::Vat)).then_some(throng_asset::VatEncoding::F32),
        source: args.source_args.options(),
        // Props attach to anchors: a source baked for them gets an anchor per named node.
        anchors: args.prop.iter().map(|(a, _)| a.clone()).collect(),
    };
    let mut inputs = Vec::with_capacity(args.inputs.len());
    for (path, &is) in args.inputs.iter().zip(&baked) {
        inputs.push(match (is, to_gpu) {
            // The asset's errors name the file.
            (true, _) => Input::Baked(throng_asset::read(path)?),
            (false, true) => Input::Baked(bake_in_memory(path, &how)?),
            (false, false) => Input::Source(load_model(path, &args.source_args)?),
        });
    }
    Ok(inputs)
}

pub fn run(args: Args) -> anyhow::Result<()> {
    check_usage(&args)?;
    let (out_path, is_gif) =
        shared::image_output(args.output.as_deref(), &args.inputs[0], args.frames)?;
    let graph = (args.graph.as_ref())
        .map(|path| GraphSetup::read(path.clone(), args.param.clone()))
        .transpose()?;
    if let Some(g) = &graph {
        // Its syntax and parameters before any input is read or baked.
        g.check_file()?;
    }
    let inputs = load_inputs(&args)?;
    check_inputs(&args, &inputs)?;
    if let Some(g) = &graph {
        // The graph's clips and parameters against every input, before any GPU work.
        for asset in inputs.iter().filter_map(Input::baked) {
            g.crowd(asset, 0)?;
        }
    }
    let props = load_props(&args, &inputs)?;
    let sizes: Vec<Aabb> = inputs.iter().map(Input::bounds).collect();
    warn_mixed_scales(&args.inputs, &sizes);
    let (places, scene) = split_layout(&sizes, args.instance_count(), args.layout, args.seed);
    let mut parts = Vec::with_capacity(inputs.len());
    for (a, (input, transforms)) in inputs.iter().zip(places).enumerate() {
        parts.push(part_of(&args, a, input, transforms)?);
    }
    let mut renderer = Renderer::new().context("creating a GPU device")?;
    eprintln!("adapter: {}", renderer.adapter());
    let downlevel = shared::print_mode(&renderer, args.downlevel);
    let path = skin_path(&args, &inputs, &renderer, downlevel);
    if graph.is_some() {
        print_graph_on(args.graph_on, path, &renderer);
    }
    if path == SkinPath::Reference && args.source.is_none() {
        if let Some(asset) = inputs[0].baked() {
            let vertices = asset.primitives.iter().map(|p| p.vertex_count()).sum();
            let name = args.inputs[0].display().to_string();
            throng_scene::check_reference_memory(&name, args.instance_count() as usize, vertices)?;
        }
    }
    let aspect = args.size.0 as f32 / args.size.1 as f32;
    let opts = RenderOptions {
        width: args.size.0,
        height: args.size.1,
        skinning: args.skinning,
        path,
        camera: Some(
            args.camera
                .unwrap_or_else(|| Camera::framing(&scene, aspect)),
        ),
        // One scene for every path: the ground and the shadow camera match too.
        scene: Some(scene),
        ground: !args.no_ground,
        cull: !args.no_cull,
        occlusion: !args.no_occlusion,
        shadows: !args.no_shadows,
        shadow_map_size: args.shadow_map_size,
        lod_bias: args.lod_bias,
        far_tier: args.far_tier,
        far_fade: args.far_fade as f32,
        far_dots: args.far_dots,
        // 0 = every influence the asset has.
        lod_influences: args.lod_influences.unwrap_or([0; 4]),
        shadow_lod: args.shadow_lod,
        shadow_influences: args.shadow_influences.unwrap_or(0),
        debug: args.debug,
        debug_joint: args.debug_joint,
        palette_refresh: args.palette_refresh.unwrap_or([1; 4]),
        downlevel: args.downlevel,
        ..Default::default()
    };
    let frames = Frames {
        start: args.time,
        fps: args.fps,
        count: args.frames,
    };
    let bar = shared::bar(args.frames as u64, "rendering", "frames");
    let start = Instant::now();
    // The reference path of a source: the input itself, or `--source` beside a baked input.
    let extra_source = match (&inputs[0], &args.source) {
        (Input::Baked(_), Some(src)) if path == SkinPath::Reference => {
            Some((load_model(src, &args.source_args)?, src.as_path()))
        }
        _ => None,
    };
    let source = match (&inputs[0], &extra_source) {
        (_, Some((model, path))) => Some((model, *path)),
        (Input::Source(model), None) => Some((model, args.inputs[0].as_path())),
        _ => None,
    };
    let (images, stats) = match source {
        Some((model, path)) => {
            let name = path.display().to_string();
            let on_frame = || bar.inc(1);
            let images = draw_source(
                &mut renderer,
                model,
                &name,
                &parts[0],
                frames,
                &opts,
                on_frame,
            )?;
            (images, None)
        }
        None => {
            let scene = BakedScene {
                assets: inputs.iter().filter_map(Input::baked).collect(),
                parts: &parts,
                timing: args.timing,
                props: &props,
                root_motion: !args.in_place,
                graph: graph.as_ref(),
                graph_on: args.graph_on.step_on(),
            };
            draw_baked(&mut renderer, &scene, frames, &opts, || bar.inc(1))?
        }
    };
    bar.finish_and_clear();
    let took = start.elapsed();
    let bytes = if is_gif {
        shared::encode_gif(images, args.fps)?
    } else {
        shared::encode_png(images.first().context("no frame was rendered")?)?
    };
    shared::write_atomic(&out_path, &bytes)
        .with_context(|| format!("writing {}", out_path.display()))?;
    eprintln!(
        "wrote {} ({}×{}, {} instance(s), {} frame(s), {:.0} ms)",
        out_path.display(),
        opts.width,
        opts.height,
        args.instance_count(),
        args.frames,
        took.as_secs_f64() * 1e3
    );
    if let Some(s) = stats {
        eprintln!("{}", stats_line(&s));
    }
    Ok(())
}

/// Says where `--graph` steps (`StepOn::resolve`, the rule the draw applies).
fn print_graph_on(on: shared::GraphOn, path: SkinPath, renderer: &Renderer) {
    if path == SkinPath::Reference {
        eprintln!("graph: stepped on the CPU (the reference path)");
        return;
    }
    let (on_gpu, why) = on.step_on().resolve(Some(&renderer.gpu));
    let line = throng_graph_gpu::where_it_steps(on_gpu, why.as_deref(), None, "--graph-on");
    eprintln!("{line}");
}

/// `--path`, else the palette path when the largest input's palette for the whole crowd fits
/// the device, else the texture path; the choice is printed.
fn skin_path(args: &Args, inputs: &[Input], renderer: &Renderer, downlevel: bool) -> SkinPath {
    let palette = args.path.is_none_or(|p| p == SkinPath::Palette);
    if downlevel && palette {
        eprintln!(
            "path: texture (the palette path needs compute shaders, which the downlevel mode does without; --path texture or vat to choose)"
        );
        return SkinPath::Texture;
    }
    if let Some(p) = args.path {
        return p;
    }
    let entries = (inputs.iter().filter_map(Input::baked))
        .map(|a| a.palette.len())
        .max()
        .unwrap_or(0);
    if renderer.palette_fits(entries, args.instance_count() as usize) {
        eprintln!("path: palette (the fastest; --path to choose)");
        SkinPath::Palette
    } else {
        eprintln!(
            "path: texture ({} instances × {entries} palette entries do not fit one palette buffer of this device; --path to choose)",
            args.instance_count()
        );
        SkinPath::Texture
    }
}

/// What the inputs must have for the flags, checked before any GPU work.
fn check_inputs(args: &Args, inputs: &[Input]) -> anyhow::Result<()> {
    let baked = || inputs.iter().filter_map(Input::baked);
    if let Some(j) = args.debug_joint {
        let max = baked().map(|a| a.palette.len()).max().unwrap_or(0);
        if j as usize >= max {
            anyhow::bail!(
                "--debug-joint {j}: the input(s) have {max} palette entries (0..{}); `throng inspect FILE` lists them",
                max.saturating_sub(1)
            );
        }
    }
    if args.path == Some(SkinPath::Vat) {
        let lacking = inputs.iter().zip(&args.inputs).find(|(i, _)| {
            i.baked()
                .is_some_and(|a| a.primitives.iter().any(|p| p.vat.is_none()))
        });
        if let Some((_, file)) = lacking {
            anyhow::bail!("{}: the VAT path needs a vertex animation texture for every primitive; bake it with --vat f32|f16|unorm16", file.display());
        }
    }
    Ok(())
}

/// Input `a`'s share of the crowd: its clips (`--clip`, else the first clip, or a seeded mix
/// for a crowd), phases, and the `--blend` clip as a blend or an overlay layer.
fn part_of(
    args: &Args,
    a: usize,
    input: &Input,
    transforms: Vec<InstanceTransform>,
) -> anyhow::Result<Part> {
    let name = args.inputs[a].display().to_string();
    let clip = match &args.clip {
        Some(c) => Some(input.clip(c).with_context(|| format!("--clip in {name}"))?),
        None => (!input.durations().is_empty()).then_some(0),
    };
    let blend = match &args.blend {
        Some(b) => Some((
            input
                .clip(b)
                .with_context(|| format!("--blend in {name}"))?,
            args.blend_weight as f32,
        )),
        None => None,
    };
    if blend.is_some() && matches!(input, Input::Source(..)) {
        anyhow::bail!("--blend needs a baked asset (layer blending is a runtime feature)");
    }
    let overlay = overlay_of(args, input, blend, &name)?;
    let ids = crowd::ids_of(a, args.inputs.len(), args.instance_count());
    let mix = ClipMix {
        clip,
        mix: args.clip.is_none() && args.instance_count() > 1,
        stagger: args.stagger,
        random_phase: args.random_phase,
        // Input 0 keeps the seed as given (one input draws what it always drew).
        seed: args.seed.wrapping_add(a as u64),
    };
    Ok(Part {
        assignments: crowd::assign(&mix, &ids, &input.durations()),
        transforms,
        blend: if overlay.is_some() { None } else { blend },
        overlay,
        appearances: appearances_of(args, input, &ids, &name)?,
    })
}

/// Input `input`'s appearances for the variety flags; errors add which flag to change and how
/// to list or add what the asset lacks.
fn appearances_of(
    args: &Args,
    input: &Input,
    ids: &[u32],
    name: &str,
) -> anyhow::Result<Vec<throng_contract::Appearance>> {
    let variety = args.variety();
    let Some(asset) = input.baked() else {
        // load_inputs bakes a source for the variety flags: only the default reaches here.
        return Ok(Vec::new());
    };
    variety.appearances(asset, name, ids).map_err(|e| {
        let (flag, hint) = match &e {
            VarietyError::UnknownVariant { name: v, .. } => (
                format!("--variant {v}"),
                format!("`throng inspect {name}` lists its variants; `throng bake --variant NAME=TEXTURE.png` adds one"),
            ),
            VarietyError::NoVariants { .. } => (
                "--all-variants".to_string(),
                "bake texture variants with `throng bake --variant NAME=TEXTURE.png`, or leave out --all-variants".to_string(),
            ),
            VarietyError::NoSuchPart { part, .. } => (
                format!("--hide-part {part}"),
                format!("`throng inspect {name}` lists its parts"),
            ),
        };
        anyhow::anyhow!("{flag}: {e}; {hint}")
    })
}

/// The `--prop` files, each with its anchor's index in every input (checked before any GPU
/// work: an input without the anchor fails naming the file, the anchor and the anchors it has).
fn load_props(args: &Args, inputs: &[Input]) -> anyhow::Result<PlacedProps> {
    let mut anchors = vec![Vec::with_capacity(args.prop.len()); inputs.len()];
    for (input, (path, out)) in inputs.iter().zip(args.inputs.iter().zip(&mut anchors)) {
        for (anchor, file) in &args.prop {
            let flag = format!("--prop {anchor}={}", file.display());
            // Source inputs are baked for props (load_inputs): every input is baked here.
            let Some(asset) = input.baked() else {
                anyhow::bail!("{}: {flag} needs a baked input", path.display());
            };
            let index = throng_render::Prop::anchor_of(asset, anchor).map_err(|e| match e {
                // The library says to bake with anchors; the command line says how.
                throng_render::RenderError::NoAnchors { .. } => anyhow::anyhow!(
                    "{}: {flag}: the asset has no anchors; bake it with --anchor NODE (or --anchors auto)",
                    path.display()
                ),
                e => anyhow::anyhow!("{}: {flag}: {e}", path.display()),
            })?;
            out.push(index);
        }
    }
    let sources = args
        .prop
        .iter()
        .map(|(anchor, file)| {
            PropSource::load(file, &args.source_args.options(), args.prop_scale as f32)
                .with_context(|| format!("reading the prop of --prop {anchor}={}", file.display()))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok(PlacedProps { sources, anchors })
}

#[cfg(test)]
#[path = "render_tests.rs"]
mod tests;
