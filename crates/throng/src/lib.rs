//! The `throng` command line as a library: its arguments ([`Cli`]) and [`run`], which the
//! binary (`src/main.rs`) calls and the fuzz targets parse. Exit codes (docs/design.md §2):
//! 0 success, 1 the input or the work failed (the error is printed with its chain of causes),
//! 2 command-line usage error.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod cmd;

/// The command line: `Cli::parse()` (or `try_parse_from` for a list of arguments).
#[derive(Parser)]
#[command(
    name = "throng",
    version,
    about = "Bake skeletal animation from glTF 2.0 and FBX into GPU textures and play it on crowds"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Describe a glTF file or a baked asset: skins, primitives, rigid parts, clips, warnings.
    Inspect(cmd::inspect::Args),
    /// Skinned positions and normals of every animated primitive at one clip time.
    Sample(cmd::sample::Args),
    /// The whole pipeline on the built-in fox: bake, play a crowd, draw demo.png and demo.gif.
    Demo(cmd::demo::Args),
    /// Write the built-in character as a standard glTF binary.
    DemoAsset(cmd::demo_asset::Args),
    /// Bake a glTF or FBX character (or a folder of them) into a throng asset.
    Bake(cmd::bake::Args),
    /// Fidelity of a bake against full-rate CPU skinning of the source.
    Verify(cmd::verify::Args),
    /// Write a bake as other engines read it: openvat, ue-a2t-vertex, ue-a2t-bone, godot,
    /// bone-texture-json, unity, babylon.
    Export(cmd::export::Args),
    /// Draw a crowd headless to a PNG (or an animated GIF) on whatever GPU adapter exists.
    Render(cmd::render::Args),
    /// A window to look at bakes: clips, timeline, crowd, paths, the source beside or over it.
    View(cmd::view::Args),
    /// Write every composed WGSL program whole, for reading (debugging aid).
    Shaders(cmd::shaders::Args),
    /// Animation graphs (docs/graph.md): `graph check`, `graph dot`.
    #[command(subcommand)]
    Graph(cmd::graph::Command),
    /// Benchmarks: `bench runtime`, `bench render`, `bench summary`.
    #[command(subcommand)]
    Bench(BenchCommand),
}

#[derive(Subcommand)]
enum BenchCommand {
    /// Per-frame cost of the playback runtime on N instances, against a plain memory fill.
    Runtime(cmd::bench_runtime::Args),
    /// Animation graphs stepped on the GPU: the CPU's and the GPU's part of a frame at N
    /// instances, against the GPU-timed plain runtime's frame at the same change rate.
    Graph(cmd::bench_graph::Args),
    /// Frame and CPU time of 1, 100 and 1,000 instances on the texture, palette, VAT and
    /// reference paths.
    Render(cmd::bench_render::Args),
    /// One JSON file and one Markdown table of a `bench/gpu.sh` run's folder.
    Summary(cmd::bench_summary::Args),
}

/// Runs a parsed command line: prints errors (with a hint at the flags that fix them) and
/// returns the exit code.
pub fn run(cli: Cli) -> ExitCode {
    let result = match cli.command {
        Command::Inspect(a) => cmd::inspect::run(a),
        Command::Sample(a) => cmd::sample::run(a),
        Command::Demo(a) => cmd::demo::run(a),
        Command::DemoAsset(a) => cmd::demo_asset::run(a),
        Command::Bake(a) => cmd::bake::run(a),
        Command::Verify(a) => cmd::verify::run(a),
        Command::Export(a) => cmd::export::run(a),
        Command::Render(a) => cmd::render::run(a),
        Command::View(a) => cmd::view::run(a),
        Command::Shaders(a) => cmd::shaders::run(a),
        Command::Graph(c) => cmd::graph::run(c),
        Command::Bench(BenchCommand::Runtime(a)) => cmd::bench_runtime::run(a),
        Command::Bench(BenchCommand::Graph(a)) => cmd::bench_graph::run(a),
        Command::Bench(BenchCommand::Render(a)) => cmd::bench_render::run(a),
        Command::Bench(BenchCommand::Summary(a)) => cmd::bench_summary::run(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // Flags that do not go together, found after parsing: a usage error like clap's.
        Err(e) if e.is::<cmd::shared::UsageError>() => {
            eprintln!("error: {e}\n\nFor more information, try '--help'.");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("error: {}", error_chain(&e));
            if let Some(hint) = flag_hint(&e) {
                eprintln!("hint: {hint}");
            }
            ExitCode::from(1)
        }
    }
}

/// The command-line flags that fix a library error, when there are some (library messages say
/// what to change in the library's terms; the command line names its own flags).
fn flag_hint(e: &anyhow::Error) -> Option<&'static str> {
    use throng_bake::BakeError;
    e.chain().find_map(|cause| {
        if let Some(b) = cause.downcast_ref::<BakeError>() {
            return match b {
                BakeError::TextureTooWide { .. } => {
                    Some("--encoding quat-snorm16, or --max-texture-size N")
                }
                BakeError::EncodingUnsupported { .. } => {
                    Some("--encoding mat3x4-f32, or leave out --strict")
                }
                BakeError::NothingToAnimate { why, .. } if why.contains("animation-only") => {
                    Some("bake the character and pass this file with --clips FILE")
                }
                BakeError::BadPrimitive { what, .. } if what.contains("f16 range") => {
                    Some("--vat unorm16 or --vat f32")
                }
                BakeError::VariantTexture { .. } => Some(
                    "check the file given with --variant NAME=TEXTURE.png: a PNG or JPEG of at most --max-texture-size pixels a side",
                ),
                BakeError::BadVariant { what, .. } if !what.contains("base-colour texture") => Some(
                    "give each --variant a NAME of its own, not one of the source's variants (throng inspect SOURCE lists them)",
                ),
                BakeError::FpsTooHigh { .. } => Some(
                    "lower --fps or --clip-fps (or the settings file's clips.*.fps), use --fps auto for the source's keys, or leave them out to bake to the default error budget",
                ),
                _ => None,
            };
        }
        if let Some(i) = cause.downcast_ref::<throng_gltf::ImportError>() {
            use throng_gltf::{ImportErrorKind, UriProblem};
            return match &i.kind {
                ImportErrorKind::UnsafeUri {
                    problem: UriProblem::Escapes | UriProblem::SymlinkEscapes,
                    ..
                } => Some("--asset-root DIR, a folder that holds both the file and what it names"),
                ImportErrorKind::AssetRoot { .. } => {
                    Some("an --asset-root that contains the file's folder")
                }
                _ => None,
            };
        }
        if let Some(d) = cause.downcast_ref::<throng_asset::DecodeError>() {
            return match d {
                throng_asset::DecodeError::NoVat { .. } => Some("bake with --vat f32"),
                throng_asset::DecodeError::DqNeedsQuat(_) => {
                    Some("--skinning lbs, or bake with --encoding quat-snorm16")
                }
                _ => None,
            };
        }
        if let Some(a) = cause.downcast_ref::<throng_asset::AssetError>() {
            use throng_asset::AssetError;
            return match a {
                AssetError::NotGlb { .. } | AssetError::NotBaked { .. } => {
                    Some("throng bake SOURCE -o BAKED.glb, then pass BAKED.glb")
                }
                _ => None,
            };
        }
        if let Some(throng_bake::engines::EngineExportError::TextureTooLarge { .. }) =
            cause.downcast_ref::<throng_bake::engines::EngineExportError>()
        {
            return Some("a lower --fps, fewer --clip, or a bone format (--format ue-a2t-bone, bone-texture-json, godot's bone mode)");
        }
        match cause.downcast_ref::<throng_bake::verify::VerifyError>() {
            Some(throng_bake::verify::VerifyError::NoSourceClip { .. }) => {
                Some("the --clips files the bake used")
            }
            _ => None,
        }
    })
}

/// The error and its causes, joined by ": ", leaving out a cause whose text the message before
/// it already contains (typed errors often quote their source).
pub(crate) fn error_chain(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if out.contains(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}
