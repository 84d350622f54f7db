//! A frame's inputs for throng's tools — the command line (`throng render`, `demo`, `bench`),
//! the viewer (throng-view) and the bench harness (throng-bench) — so that each front end draws
//! the same thing from the same files:
//!
//! - [`source`]: a source glTF read with its extra clip files ([`load_model`]), clips found by
//!   name or index, a source's bounds over its clips, its meshes skinned on the CPU as the
//!   reference path draws them ([`source_meshes`]), and props ([`PropSource`]);
//! - [`input`]: one input of a frame ([`Input`]): a baked asset, or a source glTF drawn by the
//!   reference path or baked in memory for the GPU paths ([`InMemoryBake`]);
//! - [`stats`]: a frame's statistics as text;
//! - [`demo_crowd`]: the demo's scripted crowd ([`DemoCrowd`]) and [`overview`]: the camera of
//!   its overview picture;
//! - [`frames`]: a crowd of inputs laid out and drawn over a run of frames ([`draw_baked`],
//!   [`draw_source`]);
//! - [`graphs`]: a crowd played by an animation graph ([`GraphSetup`]);
//! - [`files`]: the images a frame is written as (PNG, GIF), written atomically;
//! - [`variety`]: a crowd's variety by name (material variant, tints, hidden parts) as
//!   per-instance appearances ([`Variety`]).
//!
//! It sits above the pipeline's libraries (anim, gltf, bake, asset, render) and below the front
//! ends; it names no command-line flag. Lengths are in file units.
//!
//! Why a crate of its own: the viewer and the bench harness are crates the command line depends
//! on, so what they share with it cannot live in the command line's crate (they would depend on
//! the crate that depends on them); and it does not belong in throng-render, which a game links
//! without the offline side (gltf, bake) that reading and baking a source needs.

pub mod demo_crowd;
pub mod files;
pub mod frames;
pub mod graphs;
pub mod input;
pub mod overview;
pub mod source;
pub mod stats;
pub mod variety;

pub use demo_crowd::{demo_appearance, DemoCrowd, Roles};
pub use files::{
    check_writable, differing_fraction, encode_gif, encode_png, file_name, write_atomic,
};
pub use frames::{
    check_reference_memory, draw_baked, draw_source, split_layout, BakedScene, Frames, Overlay,
    Part, PlacedProps, ScenePlayer, REFERENCE_BYTES_PER_VERTEX, REFERENCE_MEMORY_LIMIT,
};
pub use graphs::{param_spec, param_value, set_param_text, GraphSetup, ParamSpec};
pub use input::{bake_in_memory, bake_model, InMemoryBake, Input};
pub use overview::overview_camera;
pub use source::{
    find_baked_clip, find_clip, load_model, source_bounds, source_meshes, PropSource, SourceOptions,
};
pub use stats::{lod_counts, stats_line, warn_mixed_scales};
pub use throng_graph_gpu::GraphPlayer;
pub use variety::{VariantChoice, Variety, VarietyError};
