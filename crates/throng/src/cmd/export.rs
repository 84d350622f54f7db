//! `throng export`: a baked asset (or a source baked on the fly) as the files another engine's
//! stock decoders read (docs/export.md). A shell over `throng_bake::engines::export`.

use super::shared::{self, load_model, usage, SourceArgs};
use std::path::PathBuf;
use std::time::Instant;
use throng_bake::engines::{self, EngineExportOptions, EngineFormat, VatContainer};

const FORMATS_HELP: &str = "openvat: OpenVAT 1.1 textures, remap JSON and mesh (Blender axes; Unity, Godot and Unreal OpenVAT decoders)
ue-a2t-vertex: Unreal AnimToTexture, vertex mode (Unreal axes, cm)
ue-a2t-bone: Unreal AnimToTexture, bone mode (Unreal axes, cm)
godot: a Godot 4 folder: OpenVAT data, MultiMesh shaders (VAT and bone mode), sample scene
bone-texture-json: throng's skin matrices and influences, described in JSON
unity: OpenVAT data with URP templates (HLSL custom function, importer script)
babylon: Babylon.js BakedVertexAnimationManager texture (its JSON) and a skinned mesh";

#[derive(clap::Args)]
#[command(after_help = format!("Formats:\n{FORMATS_HELP}\n\nA source is baked first at --fps (uniform rows, so the exported frames are baked rows); a baked asset is sampled at --fps through throng's CPU decoder. Every export folder holds throng-export.json (what wrote it, the frames and the files)."))]
pub struct Args {
    /// A glTF (.gltf/.glb) or FBX (.fbx) source, or a baked throng asset (.glb).
    pub input: PathBuf,
    /// What to write: openvat, ue-a2t-vertex, ue-a2t-bone, godot, bone-texture-json, unity,
    /// babylon.
    #[arg(long, value_parser = parse_format)]
    pub format: EngineFormat,
    /// The export folder (made; an earlier export there is replaced whole).
    #[arg(short = 'o', long, visible_alias = "output", value_name = "DIR")]
    pub out: PathBuf,
    /// A clip by name or index (repeatable); every clip when left out.
    #[arg(long)]
    pub clip: Vec<String>,
    /// Frames per second of the exported frames (VAT decoders step one uniform frame at a time).
    #[arg(long, default_value_t = 30.0, value_parser = shared::parse_positive_f32)]
    pub fps: f32,
    /// Texture container of the VAT formats: png (16-bit) or exr (half float). Default: png,
    /// exr for godot.
    #[arg(long, value_parser = ["png", "exr"])]
    pub texture: Option<String>,
    /// Short for --texture exr.
    #[arg(long, conflicts_with = "texture")]
    pub exr: bool,
    /// Base name of the files (default: the input's file stem).
    #[arg(long)]
    pub name: Option<String>,
    /// Instances in the Godot sample scene.
    #[arg(long, default_value_t = 100)]
    pub instances: u32,
    /// Largest texture side to write.
    #[arg(long, default_value_t = engines::MAX_TEXTURE_SIZE, value_parser = clap::value_parser!(u32).range(64..=65536))]
    pub max_texture_size: u32,
    #[command(flatten)]
    pub source: SourceArgs,
}

fn parse_format(s: &str) -> Result<EngineFormat, String> {
    s.parse()
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let start = Instant::now();
    let fps = args.fps as f64;
    if fps > 1000.0 {
        return Err(usage(format!("--fps {fps}: at most 1000")));
    }
    let asset = if throng_asset::is_baked_file(&args.input) {
        throng_asset::read(&args.input)?
    } else {
        let model = load_model(&args.input, &args.source)?;
        let options = throng_bake::BakeOptions {
            source_name: throng_scene::file_name(&args.input),
            sampling: throng_bake::Sampling::Fixed(fps),
            ..throng_bake::BakeOptions::default()
        };
        let (asset, report) = shared::bake_with_bar(&model, &options)?;
        for w in &report.warnings {
            eprintln!("warning: {w}");
        }
        asset
    };
    let clips = args
        .clip
        .iter()
        .map(|c| throng_scene::find_baked_clip(&asset, c))
        .collect::<anyhow::Result<Vec<usize>>>()?;
    let name = args.name.clone().unwrap_or_else(|| {
        args.input
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "asset".into())
    });
    if name.is_empty() || name.contains(['/', '\\']) {
        return Err(usage(format!(
            "--name '{name}': a file name, without folders"
        )));
    }
    let options = EngineExportOptions {
        format: args.format,
        clips,
        fps,
        container: match (args.exr, args.texture.as_deref()) {
            (true, _) | (_, Some("exr")) => Some(VatContainer::ExrHalf),
            (_, Some(_)) => Some(VatContainer::Png16),
            _ => None,
        },
        name,
        max_texture_size: args.max_texture_size,
        instances: args.instances,
    };
    let report = engines::export(&asset, &options, &args.out)?;
    println!(
        "exported {} → {} ({}) in {:.1} ms",
        args.input.display(),
        report.dir.display(),
        report.format,
        start.elapsed().as_secs_f64() * 1e3
    );
    let w = shared::name_width(report.plan.clips.iter().map(|c| c.name.as_str()), 16, 48);
    println!(
        "  {} frames at {} fps (each clip's own rate: its frames span it end to end)",
        report.plan.total_frames(),
        fps
    );
    for c in &report.plan.clips {
        println!(
            "  clip {:w$} frames {:5}..{:<5} {:7.3} fps {:.3} s {}",
            shared::cell(&c.name, w),
            c.start,
            c.end(),
            c.fps,
            c.duration,
            c.loop_mode.as_str()
        );
    }
    for f in &report.files {
        println!("  {:9} B  {}", f.bytes, f.path);
    }
    println!(
        "  {} bytes in all (the bone texture it was baked to: {} bytes)",
        report.bytes(),
        asset.bone_texture.byte_len()
    );
    for n in &report.notes {
        println!("  {n}");
    }
    Ok(())
}
