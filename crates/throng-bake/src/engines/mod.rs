//! Exports for other engines (docs/export.md): a baked asset written as the files a stock engine
//! decoder reads — OpenVAT's vertex animation textures (Unity, Godot and Unreal decoders of that
//! project read them), Unreal's AnimToTexture plugin in vertex and bone mode, a Godot 4 folder
//! with its own shaders and a sample scene, throng's bone texture described in JSON, and
//! templates for Unity's URP.
//!
//! Every export samples the asset's clips at uniform times ([`frames`]) through throng-asset's CPU
//! decoder, the twin of what throng's own renderers draw, so an export shows the poses the bake
//! holds. Files are written into a staging folder that replaces the destination whole
//! ([`stage`]): an export that fails leaves nothing behind.

pub mod frames;
pub mod layout;
pub mod mesh;
mod stage;
pub mod texture;

pub mod babylon;
pub mod bone_json;
pub mod godot;
pub mod openvat;
pub mod unity;
pub mod unreal;

use std::path::{Path, PathBuf};
use throng_asset::{BakedAsset, DecodeError};

pub use frames::{ExportClip, FramePlan};
pub use stage::MARKER;

/// What an export writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EngineFormat {
    /// OpenVAT 1.1: position-offset VAT (16-bit PNG or half EXR), packed normals, the remap
    /// JSON, the mesh with the VAT UV in `TEXCOORD_1`.
    OpenVat,
    /// Unreal's AnimToTexture, vertex mode: position offsets and normals per vertex and frame.
    UeA2tVertex,
    /// Unreal's AnimToTexture, bone mode: bone positions and rotations per frame, weights per
    /// vertex.
    UeA2tBone,
    /// A Godot 4 folder: the OpenVAT data, a MultiMesh shader with frame interpolation and a
    /// two-clip blend, a bone-texture shader, a sample scene and a README.
    Godot,
    /// throng's own bone texture (skin matrices per frame) and influences, described in JSON.
    BoneTextureJson,
    /// Unity URP templates over the OpenVAT data: an HLSL include, a Shader Graph custom
    /// function and an importer script.
    Unity,
    /// Babylon.js's `BakedVertexAnimationManager` texture (its JSON) and a skinned mesh.
    Babylon,
}

impl EngineFormat {
    pub const ALL: [EngineFormat; 7] = [
        EngineFormat::OpenVat,
        EngineFormat::UeA2tVertex,
        EngineFormat::UeA2tBone,
        EngineFormat::Godot,
        EngineFormat::BoneTextureJson,
        EngineFormat::Unity,
        EngineFormat::Babylon,
    ];

    /// The name on the command line and in files.
    pub fn as_str(self) -> &'static str {
        match self {
            EngineFormat::OpenVat => "openvat",
            EngineFormat::UeA2tVertex => "ue-a2t-vertex",
            EngineFormat::UeA2tBone => "ue-a2t-bone",
            EngineFormat::Godot => "godot",
            EngineFormat::BoneTextureJson => "bone-texture-json",
            EngineFormat::Unity => "unity",
            EngineFormat::Babylon => "babylon",
        }
    }

    /// One line for help texts.
    pub fn describe(self) -> &'static str {
        match self {
            EngineFormat::OpenVat => "OpenVAT 1.1 textures, remap JSON and mesh (Blender axes)",
            EngineFormat::UeA2tVertex => "Unreal AnimToTexture, vertex mode (Unreal axes, cm)",
            EngineFormat::UeA2tBone => "Unreal AnimToTexture, bone mode (Unreal axes, cm)",
            EngineFormat::Godot => {
                "a Godot 4 folder: OpenVAT data, MultiMesh shaders, sample scene"
            }
            EngineFormat::BoneTextureJson => {
                "throng's skin matrices and influences, described in JSON"
            }
            EngineFormat::Unity => "OpenVAT data with URP templates (HLSL, Shader Graph, importer)",
            EngineFormat::Babylon => {
                "Babylon.js BakedVertexAnimationManager texture and skinned mesh"
            }
        }
    }
}

impl std::fmt::Display for EngineFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for EngineFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        EngineFormat::ALL
            .into_iter()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| {
                format!(
                    "unknown export format '{s}'; one of: {}",
                    EngineFormat::ALL.map(|f| f.as_str()).join(", ")
                )
            })
    }
}

/// The texture container of the VAT exports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VatContainer {
    /// 16-bit RGBA PNG (1/65535 of the remap range).
    Png16,
    /// Half-float RGBA OpenEXR.
    ExrHalf,
}

/// Settings of an engine export.
#[derive(Debug, Clone)]
pub struct EngineExportOptions {
    pub format: EngineFormat,
    /// Clips by index into the asset's clip table, in export order; empty = every clip.
    pub clips: Vec<usize>,
    /// Frames per second of the uniform frames (VAT decoders step one frame at a time).
    pub fps: f64,
    /// The container of the VAT textures; `None`: the format's default (PNG for OpenVAT and
    /// Unreal, EXR for Godot, whose importer keeps 8 bits of a 16-bit PNG).
    pub container: Option<VatContainer>,
    /// Base name of the files (e.g. `fox` → `fox.png`, `fox-remap_info.json`).
    pub name: String,
    /// Largest texture side an export may write (engines' limit: 16,384).
    pub max_texture_size: u32,
    /// Instances in the Godot sample scene.
    pub instances: u32,
}

impl Default for EngineExportOptions {
    fn default() -> Self {
        EngineExportOptions {
            format: EngineFormat::OpenVat,
            clips: Vec::new(),
            fps: 30.0,
            container: None,
            name: "asset".into(),
            max_texture_size: MAX_TEXTURE_SIZE,
            instances: 100,
        }
    }
}

/// The texture side every engine supports (Unity, Unreal, Godot and WebGL2 devices of today).
pub const MAX_TEXTURE_SIZE: u32 = 16384;

/// Frames an export may hold in all (a bound on the work before any is done).
pub const MAX_FRAMES: u64 = 1 << 20;

/// One file of an export.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportedFile {
    /// Relative to the export folder.
    pub path: String,
    pub bytes: u64,
}

/// What an export wrote.
#[derive(Debug, Clone)]
pub struct EngineExportReport {
    pub format: EngineFormat,
    pub dir: PathBuf,
    pub plan: FramePlan,
    pub files: Vec<ExportedFile>,
    /// Main texture: width × height texels.
    pub texture: (u32, u32),
    /// Lines for people (what to import how).
    pub notes: Vec<String>,
}

impl EngineExportReport {
    pub fn bytes(&self) -> u64 {
        self.files.iter().map(|f| f.bytes).sum()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum EngineExportError {
    #[error("{file}: the asset has no clips to export (it holds the rest pose only)")]
    NoClips { file: String },
    #[error("{file}: no clip {clip}; the asset has {count}")]
    NoClip {
        file: String,
        clip: usize,
        count: usize,
    },
    #[error("{file}: frames per second must be finite and in (0, 1000], not {fps}")]
    BadFps { file: String, fps: f64 },
    #[error("{file}: {frames} frames in all at {fps} fps is more than an export holds ({max})")]
    TooManyFrames {
        file: String,
        frames: u64,
        fps: f64,
        max: u64,
    },
    #[error("{file}: the {what} would be {width} × {height} texels, over the {limit}-texel side engines read; export fewer frames (a lower frame rate, fewer clips){advice}")]
    TextureTooLarge {
        file: String,
        what: &'static str,
        width: u64,
        height: u64,
        limit: u32,
        advice: &'static str,
    },
    #[error("{file}: {what}")]
    Unsupported { file: String, what: String },
    #[error("{file}: {source}")]
    Decode {
        file: String,
        #[source]
        source: DecodeError,
    },
    #[error("{}: cannot export there: {why}", .path.display())]
    Destination { path: PathBuf, why: String },
    #[error("writing {}: {source}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}: encoding {what}: {why}")]
    Encode {
        file: String,
        what: String,
        why: String,
    },
}

/// The per-channel range `(min, max)` of `values`, which the VAT formats remap to [0, 1]: a
/// still channel is widened to ±1e-3 around its value (so the remap never divides by zero and
/// the value still decodes exactly); no values give [0, 1].
pub fn remap_range(values: impl Iterator<Item = glam::Vec3>) -> ([f32; 3], [f32; 3]) {
    let mut lo = glam::Vec3::splat(f32::INFINITY);
    let mut hi = glam::Vec3::splat(f32::NEG_INFINITY);
    for v in values {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() || !hi.is_finite() {
        return ([0.0; 3], [1.0; 3]);
    }
    let (mut min, mut max) = (lo.to_array(), hi.to_array());
    for c in 0..3 {
        if max[c] - min[c] <= f32::EPSILON * min[c].abs().max(max[c].abs()).max(1.0) {
            min[c] -= 1e-3;
            max[c] += 1e-3;
        }
    }
    (min, max)
}

/// What every format's writer gets.
pub struct ExportInput<'a> {
    pub asset: &'a BakedAsset,
    pub options: &'a EngineExportOptions,
    pub plan: FramePlan,
    /// The export folder's own name (templates that name their files by project path use it).
    pub folder: String,
}

impl ExportInput<'_> {
    pub fn file(&self) -> String {
        self.asset.source_name.clone()
    }

    pub fn decode_err(&self) -> impl Fn(DecodeError) -> EngineExportError + '_ {
        move |source| EngineExportError::Decode {
            file: self.file(),
            source,
        }
    }

    pub fn encode_err<'b>(&'b self, what: &'b str) -> impl Fn(String) -> EngineExportError + 'b {
        move |why| EngineExportError::Encode {
            file: self.file(),
            what: what.to_string(),
            why,
        }
    }

    pub fn too_large(
        &self,
        what: &'static str,
        width: u64,
        height: u64,
        advice: &'static str,
    ) -> Result<(), EngineExportError> {
        let limit = self.options.max_texture_size;
        if width > limit as u64 || height > limit as u64 {
            return Err(EngineExportError::TextureTooLarge {
                file: self.file(),
                what,
                width,
                height,
                limit,
                advice,
            });
        }
        Ok(())
    }
}

/// A format writer's result: the files (relative path, bytes) and its report fields.
pub struct Written {
    pub files: Vec<(String, Vec<u8>)>,
    pub texture: (u32, u32),
    pub notes: Vec<String>,
}

/// Exports `asset` into the folder `dir` (made, or replacing an earlier export there; see
/// [`stage`]). The folder is checked before any work; nothing is left behind on failure.
pub fn export(
    asset: &BakedAsset,
    options: &EngineExportOptions,
    dir: &Path,
) -> Result<EngineExportReport, EngineExportError> {
    let file = asset.source_name.clone();
    if !(options.fps.is_finite() && options.fps > 0.0 && options.fps <= 1000.0) {
        return Err(EngineExportError::BadFps {
            file,
            fps: options.fps,
        });
    }
    if asset.clips.is_empty() {
        return Err(EngineExportError::NoClips { file });
    }
    let clips: Vec<usize> = if options.clips.is_empty() {
        (0..asset.clips.len()).collect()
    } else {
        options.clips.clone()
    };
    if let Some(&c) = clips.iter().find(|&&c| c >= asset.clips.len()) {
        return Err(EngineExportError::NoClip {
            file,
            clip: c,
            count: asset.clips.len(),
        });
    }
    let mut stage = stage::Stage::new(dir)?;
    let plan = FramePlan::new(asset, &clips, options.fps, MAX_FRAMES).map_err(|frames| {
        EngineExportError::TooManyFrames {
            file: file.clone(),
            frames,
            fps: options.fps,
            max: MAX_FRAMES,
        }
    })?;
    let folder = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| options.name.clone());
    let input = ExportInput {
        asset,
        options,
        plan,
        folder,
    };
    let written = match options.format {
        EngineFormat::OpenVat => openvat::write(&input)?,
        EngineFormat::UeA2tVertex => unreal::write_vertex(&input)?,
        EngineFormat::UeA2tBone => unreal::write_bone(&input)?,
        EngineFormat::Godot => godot::write(&input)?,
        EngineFormat::BoneTextureJson => bone_json::write(&input)?,
        EngineFormat::Unity => unity::write(&input)?,
        EngineFormat::Babylon => babylon::write(&input)?,
    };
    for (rel, bytes) in &written.files {
        stage.write(rel, bytes)?;
    }
    let files: Vec<ExportedFile> = stage
        .files
        .iter()
        .map(|(path, bytes)| ExportedFile {
            path: path.clone(),
            bytes: *bytes,
        })
        .collect();
    let marker = marker_json(&input, &files);
    stage.write(MARKER, marker.as_bytes())?;
    let dir = stage.commit()?;
    Ok(EngineExportReport {
        format: options.format,
        dir,
        plan: input.plan,
        files,
        texture: written.texture,
        notes: written.notes,
    })
}

/// The marker file: format, source, frames and files.
fn marker_json(input: &ExportInput<'_>, files: &[ExportedFile]) -> String {
    let clips: Vec<serde_json::Value> = input
        .plan
        .clips
        .iter()
        .map(|c| {
            serde_json::json!({
                "name": c.name, "start": c.start, "end": c.end(), "frames": c.frames,
                "duration": c.duration, "fps": c.fps, "loop": c.loop_mode.as_str(),
            })
        })
        .collect();
    let doc = serde_json::json!({
        "generator": concat!("throng export ", env!("CARGO_PKG_VERSION")),
        "format": input.options.format.as_str(),
        "source": input.asset.source_name,
        "fps": input.plan.fps,
        "frames": input.plan.total_frames(),
        "clips": clips,
        "files": files.iter().map(|f| serde_json::json!({"path": f.path, "bytes": f.bytes})).collect::<Vec<_>>(),
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}
