//! Baked throng assets (docs/design.md §3): the types a runtime and renderer read, the `.glb` file
//! reader and writer, and the CPU decoders of every bone-texture encoding (the CPU twin of the
//! WGSL decoders). Depends on no GPU crate, importer or baker.
//!
//! - [`types`]: the baked data (palette, frame table, bone texture, primitives, materials);
//! - [`decode`]: texel fetch, skin matrices, layer blending, LBS and dual-quaternion skinning;
//! - [`mod@file`]: [`write()`] / [`read()`] of the baked `.glb` (schema: docs/format.md);
//! - [`vat`]: the vertex-animation-texture decoder (fetch, interpolate, blend);
//! - [`error`]: typed errors;
//! - [`is_baked_file`]: a baked asset told from a source glTF by its header.
//!
//! The per-instance contract (records, time rules, loop modes, encodings) is throng-contract's;
//! the names this crate's types use are re-exported here.

pub mod decode;
mod detect;
pub mod error;
pub mod far_tier;
pub mod file;
mod glb;
pub mod gpu;
mod schema;
pub mod types;
mod validate;
pub mod vat;

pub use detect::{is_baked_file, is_baked_glb, EXTENSION_NAME};
pub use error::{AssetError, DecodeError};
pub use far_tier::{FarClip, FarTier, FarVariantColour, FAR_TIER_BYTES_PER_TEXEL};
pub use file::{from_glb_bytes, read, to_glb_bytes, write};
/// The GLB container (glTF 2.0 §4.4) the exports beside the baked file write too.
pub use glb::pack as pack_glb;
pub use types::*;
pub use validate::validate;
