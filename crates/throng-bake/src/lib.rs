//! throng-bake: a [`throng_anim::Model`] → a [`throng_asset::BakedAsset`] (docs/design.md §3): one
//! palette of distinct (node, inverse bind matrix) pairs plus rigid parts, a frame table (rest
//! row, then each clip at its rate), the bone texture in any of the five encodings, K-influence
//! unorm16 weights, bind-space primitives, materials and per-row bounds; and a fidelity report
//! ([`verify`]) that measures the baked result, decoded by `throng_asset::decode`, against
//! full-rate reference skinning of the source.
//!
//! Units are the source file's (metres per glTF), seconds, radians; matrices column-major;
//! positions in model space (the glTF scene root's). No GPU crate is used.

pub mod anchors;
pub mod bake;
pub mod budget;
pub mod encode;
pub mod error;
pub mod export;
pub mod frames;
pub mod influences;
pub mod lod;
pub mod masks;
pub mod nodes;
pub mod options;
pub mod palette;
pub mod report;
pub mod root_motion;
pub mod settings;
pub mod vat;
pub mod verify;

pub use bake::{bake, bake_with_progress, material_factors, Progress, Stage};
pub use error::BakeError;
pub use options::{
    AnchorSelection, BakeOptions, ClipSettings, EventSetting, MaxError, RootMotion, Sampling,
};
pub use report::{BakeReport, ClipReport, ErrorParts, Fallback};
pub use throng_asset::Encoding;
