//! Baked throng assets (DESIGN.md §3): the types a runtime and renderer read, the `.glb` file
//! reader and writer, and the CPU decoders of every bone-texture encoding (the CPU twin of the
//! WGSL decoders). Depends on no GPU crate, importer or baker.

pub mod types;

pub use types::*;
