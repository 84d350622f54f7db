//! throng-bake: a [`throng_anim::Model`] → a [`throng_asset::BakedAsset`] (docs/design.md §3): one
//! palette of distinct (node, inverse bind matrix) pairs plus rigid parts, a frame table (rest
//! row, then each clip at its rate), the bone texture in any of its encodings, K-influence
//! unorm16 weights, bind-space primitives, materials and per-row bounds; and a fidelity report
//! ([`verify`]) that measures the baked result, decoded by `throng_asset::decode`, against
//! full-rate reference skinning of the source.
//!
//! Units are the source file's (metres per glTF), seconds, radians; matrices column-major;
//! positions in model space (the glTF scene root's). No GPU crate is used.

//!
//! [`bake()`] is a pipeline; each stage is a module that takes its inputs and gives its outputs,
//! in this order:
//!
//! 1. [`validate`]: the options, on their own and against the model;
//! 2. [`palette`]: the one palette of (node, inverse bind matrix) pairs;
//! 3. [`primitives`]: the baked primitives with K influences, and the reference skin;
//! 4. [`masks`], [`anchors`], [`root_motion`]: the nodes the options name;
//! 5. [`timing`]: when each clip is sampled (under an error budget, by measuring);
//! 6. [`frame_table`]: the rows, and each clip's entry ([`playback`]: loop mode, events);
//! 7. [`sample`]: every row posed;
//! 8. [`root_motion`]: the motion taken out of the rows;
//! 9. [`anchors`]: the anchor texture;
//! 10. [`bounds`]: per row and per clip;
//! 11. [`additive`]: additive clips' rows as deltas;
//! 12. [`bone_texture`]: the rows encoded;
//! 13. [`extras`]: LODs and VATs;
//! 14. [`materials`]: the materials and images used;
//! 15. [`variants`]: the material variants (the source's, then texture variants), their
//!     materials and images added after those.

pub mod additive;
pub mod anchors;
pub mod bake;
pub mod bone_texture;
pub mod bounds;
pub mod extras;
pub mod far_tier;
pub mod frame_table;
pub mod masks;
pub mod materials;
pub mod palette;
pub mod playback;
pub mod primitives;
pub mod root_motion;
pub mod sample;
pub mod timing;
pub mod validate;
pub mod variants;

// What the stages share.
pub mod budget;
pub mod encode;
pub mod error;
pub mod frames;
pub mod influences;
pub mod lod;
pub mod nodes;
pub mod options;
pub mod progress;
pub mod reference;
pub mod report;
pub mod sampling;
pub mod settings;
pub mod uniform_budget;
pub mod vat;

// Beside the bake: exports of a baked asset, and its fidelity.
pub mod engines;
pub mod export;
pub mod verify;

pub use bake::{bake, bake_with_progress};
pub use error::BakeError;
pub use materials::material_factors;
pub use options::{
    AnchorSelection, BakeOptions, ClipSettings, EventSetting, InfluenceCount, MaxError, RootMotion,
    Sampling, TextureVariant,
};
pub use progress::{Progress, Stage};
pub use report::{BakeReport, ClipReport, ClipSampling, ErrorParts, Fallback};
pub use sampling::MAX_FPS;
pub use throng_asset::Encoding;
