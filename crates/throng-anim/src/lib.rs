//! throng's source animation model and the offline reference math: clip sampling jobs,
//! model-space poses, skin matrices and reference CPU skinning (linear blend skinning and dual
//! quaternion skinning). No GPU, no file formats: importers fill a [`Model`].

pub mod model;

pub use model::*;
