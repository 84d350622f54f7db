//! `throng view`: parses its flags into throng-view's options and opens the window
//! ([`throng_view::run`]); words the viewer's errors a flag fixes in the flag's terms.
//!
//! `--screenshot OUT.png --frames N` runs N frames in the real window and writes its image with
//! the panels, then exits (for tests and documentation). Without a display it fails with how to
//! run it under Xvfb.

use anyhow::Context;
use std::path::PathBuf;
use throng_asset::Encoding;
use throng_contract::{Skinning, Timing};
use throng_render::SkinPath;
use throng_view::{Compare, ViewError, ViewOptions};

use super::shared::{self, SourceArgs};

#[derive(clap::Args)]
pub struct Args {
    /// Baked throng assets (.glb) or source (glTF or FBX) files (baked in memory), side by side: instance
    /// i belongs to file i mod K.
    #[arg(required = true, num_args = 1.., value_name = "FILE")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub source_args: SourceArgs,
    /// The source (glTF or FBX) of the first (baked) file, for the comparison views.
    #[arg(long)]
    pub source: Option<PathBuf>,
    /// Clip name or index to start with (default: the first).
    #[arg(long, conflicts_with = "graph")]
    pub clip: Option<String>,
    /// Clip time to start at, seconds (wrapped or held by the clip's loop mode).
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true, value_parser = shared::parse_finite)]
    pub time: f64,
    /// Start paused (the pose changes only through the panels).
    #[arg(long)]
    pub paused: bool,
    /// Seconds of clip time between consecutive instances.
    #[arg(long, default_value_t = 0.1, allow_negative_numbers = true, value_parser = shared::parse_finite)]
    pub stagger: f64,
    /// Instances in the crowd.
    #[arg(long, allow_hyphen_values = true, default_value_t = 9, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub instances: u32,
    /// `palette` (the fastest measured), `texture`, `vat` (baked in memory with a VAT for
    /// source files) or `reference`.
    #[arg(long, value_enum, default_value_t = SkinPath::Palette)]
    pub path: SkinPath,
    /// Who times playback: `cpu` or `gpu`.
    #[arg(long, value_enum, default_value_t = Timing::Cpu)]
    pub timing: Timing,
    /// Skinning method: linear blend (lbs) or dual quaternion (dq).
    #[arg(long, value_enum, default_value_t = Skinning::Linear)]
    pub skinning: Skinning,
    /// Bone-texture encoding of in-memory bakes (source files).
    #[arg(long, value_enum)]
    pub encoding: Option<Encoding>,
    /// Window size in pixels, WIDTHxHEIGHT.
    #[arg(long, allow_hyphen_values = true, default_value = "1280x720", value_parser = shared::parse_size)]
    pub size: (u32, u32),
    /// Write the window's image (with the panels) as a PNG after `--frames` frames, then exit.
    #[arg(long, value_name = "OUT.png")]
    pub screenshot: Option<PathBuf>,
    /// Frames to run before exiting (default: until the window is closed; with --screenshot, 3).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub frames: Option<u32>,
    /// Start with the source beside the bake (`beside`), over it (`over`) or as an error heat
    /// map (`heat`); needs a source.
    #[arg(long, value_enum, conflicts_with = "graph")]
    pub compare: Option<CompareArg>,
    /// Play every file's crowd through this animation graph (docs/graph.md); its parameters
    /// are set from the Graph panel, which also shows one instance's state machine.
    #[arg(long, value_name = "GRAPH.json")]
    pub graph: Option<PathBuf>,
    /// A graph parameter's starting value, `NAME=VALUE` (repeatable; `LO..HI` spreads a float
    /// or int over the instances until its slider moves); a trigger by its name alone fires at
    /// the start.
    #[arg(long, value_name = "NAME[=VALUE]", requires = "graph", value_parser = shared::parse_param)]
    pub param: Vec<(String, Option<String>)>,
    /// Where `--graph` steps (docs/graph.md "On the GPU"): on the GPU (the CPU sends only
    /// parameter changes), on the CPU, or auto: the GPU on a hardware adapter with compute
    /// shaders, the CPU on a software or downlevel one. It prints which.
    #[arg(long, value_enum, default_value_t = shared::GraphOn::Auto, requires = "graph")]
    pub graph_on: shared::GraphOn,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareArg {
    Beside,
    Over,
    Heat,
}

/// How to run the viewer where there is no display.
const RUN_UNDER_XVFB: &str = "Run it in a desktop session, or headless under Xvfb: \
    xvfb-run -a -s \"-screen 0 1280x720x24\" throng view FILE";

/// Flags that do not go together, and a screenshot path that cannot be written: found before
/// the window opens.
fn check_usage(args: &Args) -> anyhow::Result<()> {
    if args.graph.is_some() && args.timing == Timing::Gpu {
        return Err(shared::usage(shared::GRAPH_PLAYS_CPU_TIMED));
    }
    if args.source.is_some() && !throng_asset::is_baked_file(&args.files[0]) {
        return Err(shared::usage(format!(
            "--source gives a baked file its source (glTF or FBX); {} is already a source",
            args.files[0].display()
        )));
    }
    if let Some(p) = &args.screenshot {
        let png = p.extension().is_some_and(|e| e.eq_ignore_ascii_case("png"));
        if !png {
            return Err(shared::usage(format!(
                "--screenshot writes a PNG: give a path ending in .png (got {})",
                p.display()
            )));
        }
        shared::ensure_folder(p).context("--screenshot")?;
    }
    Ok(())
}

/// The viewer's options from the flags.
fn options(args: Args) -> ViewOptions {
    ViewOptions {
        source_options: args.source_args.options(),
        files: args.files,
        source: args.source,
        clip: args.clip,
        time: args.time,
        paused: args.paused,
        stagger: args.stagger,
        instances: args.instances,
        path: args.path,
        timing: args.timing,
        skinning: args.skinning,
        encoding: args.encoding,
        size: args.size,
        screenshot: args.screenshot,
        frames: args.frames,
        compare: match args.compare {
            None => Compare::Off,
            Some(CompareArg::Beside) => Compare::Beside,
            Some(CompareArg::Over) => Compare::Over,
            Some(CompareArg::Heat) => Compare::Heat,
        },
        graph: args.graph,
        graph_params: args.param,
        graph_on: args.graph_on.step_on(),
    }
}

/// A viewer error in the command line's terms: the flag that fixes it, and a usage error (exit
/// code 2) for a comparison without a source.
fn in_flag_terms(e: ViewError) -> anyhow::Error {
    match e {
        ViewError::NoDisplay => anyhow::anyhow!(
            "throng view needs a display to open its window on: DISPLAY and WAYLAND_DISPLAY are \
             unset. {RUN_UNDER_XVFB}"
        ),
        ViewError::Window { display, cause } => anyhow::anyhow!(
            "cannot open a window on the display {display:?} ({cause}). Run throng view in a \
             desktop session, or headless under Xvfb: xvfb-run -a -s \"-screen 0 1280x720x24\" \
             throng view FILE"
        ),
        ViewError::NotTheSource {
            source_file,
            file,
            cause,
        } => cause.context(format!(
            "--source {} is not the source of {}",
            source_file.display(),
            file.display()
        )),
        ViewError::NoVat { file } => anyhow::anyhow!(
            "{}: the VAT path needs a vertex animation texture for every primitive; bake it with \
             --vat f32|f16|unorm16, or open its source (glTF or FBX)",
            file.display()
        ),
        ViewError::NoClip { file, cause } => cause.context(format!("--clip in {}", file.display())),
        ViewError::NoSource { file } => shared::usage(format!(
            "--compare needs the source of {}: open the source (glTF or FBX), or pass --source SRC",
            file.display()
        )),
        ViewError::Other(e) => e,
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    check_usage(&args)?;
    let all_baked = args.files.iter().all(|f| throng_asset::is_baked_file(f));
    if args.encoding.is_some() && all_baked {
        eprintln!(
            "warning: --encoding applies to source (glTF or FBX) files baked in memory; the baked input(s) keep their encoding"
        );
    }
    throng_view::run(options(args)).map_err(in_flag_terms)
}
