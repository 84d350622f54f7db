//! How the commands read a source glTF, as flags: `--clips` files and `--asset-root`, parsed
//! into throng-scene's [`SourceOptions`](throng_scene::SourceOptions).

use std::path::{Path, PathBuf};
use throng_anim::Model;

/// How the commands read a source glTF: extra clip files and the folder its URIs may reach.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct SourceArgs {
    /// Animation files (glTF, GLB or FBX) whose clips bind to the source skeleton by joint
    /// name (repeatable). A clip named as one the model has is renamed (docs/settings.md
    /// "Clip names").
    #[arg(long = "clips", value_name = "OTHER")]
    pub clips: Vec<PathBuf>,
    /// The folder a glTF's buffer and image URIs may reach (with `..`); by default each file's
    /// own folder. It must contain that folder.
    #[arg(long, value_name = "DIR")]
    pub asset_root: Option<PathBuf>,
}

impl SourceArgs {
    /// The library's options these flags give.
    pub fn options(&self) -> throng_scene::SourceOptions {
        throng_scene::SourceOptions {
            clips: self.clips.clone(),
            asset_root: self.asset_root.clone(),
        }
    }
}

/// The file `inspect` and `sample` read, with how to read it when it is a source glTF: both
/// commands take either kind, so they share one positional argument and its help.
#[derive(clap::Args, Debug, Clone)]
pub struct InputArgs {
    /// A glTF (.gltf/.glb) or FBX (.fbx) file, or a baked throng asset (.glb).
    pub input: PathBuf,
    #[command(flatten)]
    pub source_args: SourceArgs,
}

/// [`throng_scene::load_model`] with the flags' options.
pub fn load_model(input: &Path, source: &SourceArgs) -> anyhow::Result<Model> {
    throng_scene::load_model(input, &source.options())
}
