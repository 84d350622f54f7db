//! Limits of the contract, each with the reason it exists. Going past one is an error where the
//! data is made (the bake, the runtime), never a wrong picture.

/// Frame-table rows of an asset: rows travel as f32 in [`crate::Layer::row`], exact below 2^24.
pub const MAX_ROWS: u32 = 1 << 24;

/// Clips of an asset: the GPU-timed record keeps the clip index in 24 bits of `clip_mode`
/// ([`crate::CLIP_MASK`]), and the CPU-timed record keeps it as an f32 (exact below 2^24).
pub const MAX_CLIPS: u32 = crate::CLIP_MASK + 1;

/// Layers of a CPU-timed record (64 B = 4 × 16 B).
pub const MAX_LAYERS: usize = 4;

/// Layers of a GPU-timed record (the incoming and the outgoing clip of a crossfade).
pub const GPU_TIMED_LAYERS: usize = 2;

/// Influences per vertex the shaders read (two vec4 of palette indices and weights).
pub const MAX_INFLUENCES: u32 = 8;

/// Layer masks of an asset (docs/design.md §4 "Layer masks and additive layers"): a layer
/// names its mask in the 3 bits 29..31 of its clip word ([`crate::LAYER_MASK_SHIFT`]), the
/// bits both runtimes leave free in their per-layer state (the clip index takes 0..23, the
/// loop mode 24..25, HELD and the runtimes' own flags 26..28), so neither record grows.
/// Value 0 means no mask, so 7 masks fit.
pub const MAX_MASKS: u32 = 7;

/// Longest clip, seconds (11.6 days). Clip times are f32 on the GPU: at 10^6 s they are 0.06 s
/// apart, already coarser than any frame, and 1e308 would be infinite there. Every reader (glTF,
/// FBX, baked) refuses a clip past it before allocating anything for the clip's frames.
pub const MAX_CLIP_SECONDS: f64 = 1e6;

/// Smallest clip sample rate, frames per second: one frame over the longest clip. The bake
/// refuses a slower rate and every baked-file reader refuses one, so a rate of 1e-300 fps can
/// only be a damaged file.
pub const MIN_FPS: f64 = 1.0 / MAX_CLIP_SECONDS;

/// Whether an adapter rasterises on the CPU (Mesa's lavapipe, llvmpipe and softpipe,
/// SwiftShader, Microsoft WARP), from its name and its device type as wgpu's `Debug` writes it
/// (`"Cpu"`): tools then choose smaller crowds, and graphs step on the CPU, whose cores the
/// rasteriser already uses. One rule for throng-render and the Bevy plugin.
pub fn software_adapter(name: &str, device_type: &str) -> bool {
    let name = name.to_ascii_lowercase();
    device_type == "Cpu"
        || ["llvmpipe", "lavapipe", "softpipe", "swiftshader", "warp"]
            .iter()
            .any(|s| name.contains(s))
}
