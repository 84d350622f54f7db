//! Typed errors of the asset crate. Every message names the file (or asset) and the element,
//! and says what to do about it.

use crate::types::Encoding;

/// Errors reading, writing or validating a baked asset file.
#[derive(Debug, thiserror::Error)]
pub enum AssetError {
    #[error("{file}: cannot read the file: {source}")]
    Read {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}: cannot write the file (nothing was replaced): {source}")]
    Write {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}: not a glTF binary (.glb): {what}; bake the source glTF to get one")]
    NotGlb { file: String, what: String },
    #[error("{file}: truncated or corrupt: {element}: {what}; the file was damaged after it was written, re-bake it")]
    Corrupt {
        file: String,
        element: String,
        what: String,
    },
    #[error("{file}: {element} is not valid JSON for this format: {source}; the file is corrupt or was written by another tool, re-bake it")]
    Json {
        file: String,
        element: String,
        #[source]
        source: serde_json::Error,
    },
    #[error("{file}: not a throng baked asset (no THRONG_baked_animation extension); bake the source glTF first")]
    NotBaked { file: String },
    #[error("{file}: baked with throng format version {found}, but this throng reads versions {oldest} to {expected}; re-bake the source with this version of throng")]
    Version {
        file: String,
        found: String,
        oldest: u32,
        expected: u32,
    },
    #[error("{file}: {element}: {what}; the asset is inconsistent, re-bake it with this version of throng (if a fresh bake fails this check, that is a throng bug)")]
    Invalid {
        file: String,
        element: String,
        what: String,
    },
    #[error("{file}: static rest-pose mesh of primitive {primitive}: {source}")]
    Decode {
        file: String,
        primitive: usize,
        #[source]
        source: DecodeError,
    },
}

/// Errors of the CPU decoders: inputs that point outside the asset's tables.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DecodeError {
    #[error("bone texture has no texel {x} in row {row} ({width} texels × {rows} rows, {len} bytes of data): the asset is inconsistent, re-bake it")]
    TexelOutOfRange {
        x: u32,
        row: u32,
        width: u32,
        rows: u32,
        len: usize,
    },
    #[error("palette entry {entry} does not exist (the bone texture has {entries} entries)")]
    EntryOutOfRange { entry: u32, entries: u32 },
    #[error("layer {layer}: clip {clip} does not exist (the asset has {clips} clips)")]
    BadClip {
        layer: usize,
        clip: u32,
        clips: usize,
    },
    #[error("layer {layer}: mask number {mask} does not exist (the asset has {masks} masks, numbered from 1; 0 = no mask)")]
    BadMask {
        layer: usize,
        mask: u32,
        masks: usize,
    },
    #[error("layer {layer}: row {row} is outside clip {clip} (rows {first}..={last})")]
    BadRow {
        layer: usize,
        row: f32,
        clip: usize,
        first: u32,
        last: u32,
    },
    #[error("layer {layer}: weight {weight} or frac {frac} is not a finite number (frac must be in [0, 1])")]
    BadLayerValue {
        layer: usize,
        weight: f32,
        frac: f32,
    },
    #[error("primitive {index} does not exist (the asset has {count} primitives)")]
    BadPrimitive { index: usize, count: usize },
    #[error("primitive {primitive}: vertex {vertex} influence {influence} uses palette entry {entry}, but the palette has {entries} entries")]
    BadJoint {
        primitive: usize,
        vertex: usize,
        influence: usize,
        entry: u16,
        entries: u32,
    },
    #[error("primitive {primitive}: its streams disagree ({what}); the asset is inconsistent, re-bake it")]
    BadStreams { primitive: usize, what: String },
    #[error("primitive {primitive} has no vertex animation texture; bake the asset with one")]
    NoVat { primitive: usize },
    #[error("primitive {primitive}: the vertex animation texture has no vertex {vertex} at row {row} ({vertices} vertices × {rows} rows): the asset is inconsistent, re-bake it")]
    VatOutOfRange {
        primitive: usize,
        vertex: u32,
        row: u32,
        vertices: u32,
        rows: u32,
    },
    #[error("dual-quaternion skinning needs a quat-* bone-texture encoding, this asset uses {}; use linear blend skinning or re-bake with a quat-* encoding", .0.as_str())]
    DqNeedsQuat(Encoding),
}
