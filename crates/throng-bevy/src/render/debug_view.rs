//! A debug view of a crowd in place of Bevy's shading ([`ThrongDebugView`]).

use bevy::prelude::*;

/// A debug view of the crowd (a component of the crowd entity) in place of Bevy's PBR shading
/// in the main pass; shadow maps and prepasses are drawn as without it. Named as
/// throng-render's `DebugView` values and writing the same colours, so that the two renderers'
/// pictures of one scene compare pixel for pixel (`tests/example.rs`).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ThrongDebugView {
    /// The world-space normal as colour, `n · 0.5 + 0.5` per channel (x red, y green, z blue;
    /// a double-sided material's back faces with the flipped normal), unlit: def
    /// `DEBUG_NORMALS` of `shaders/crowd.wgsl`. Written as linear values into the camera's
    /// target (Bevy's `Rgba8UnormSrgb` view target without `Hdr`, sRGB-encoded as
    /// throng-render's target is); the picture shows them unchanged only with
    /// `Tonemapping::None`, `DebandDither::Disabled` and no post-processing (bloom, …) on the
    /// camera.
    Normals,
}
