//! throng's source animation model and the offline reference math: clip sampling jobs,
//! model-space poses, skin matrices and reference CPU skinning (linear blend skinning and dual
//! quaternion skinning). No GPU, no file formats: importers fill a [`Model`].
//!
//! [`ModelSkinner`] skins a whole model at one clip time (the classic per-character CPU cost).
//!
//! Conventions (glTF 2.0): right-handed, +Y up, seconds, radians, column-major matrices,
//! quaternions (x, y, z, w), lengths in the file's units.

mod input;
pub mod model;
mod pose_skin;
pub mod sample;
pub mod skin;

pub use input::{import_file, read_bounded, FileError};
pub use model::*;
pub use pose_skin::{ModelSkinner, SkinnedPart};
pub use sample::{apply_channel, locals_to_model, sample_locals, skin_matrices, Poser};
pub use skin::{
    binding_influences, binding_matrices, skin_lbs, skin_primitive, DualQuat, InfluenceRepairs,
    Influences, SkinnedVertices, Skinning,
};
