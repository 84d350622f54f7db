//! throng's benchmark harnesses, the `throng bench` commands' work: each measures, in one run,
//! throng's cost beside the baseline it replaces, and returns a report (JSON by serde, and a
//! table for people); the command line parses its flags and prints.
//!
//! - [`runtime`]: the per-instance playback runtime's frame cost (CPU- or GPU-timed) on N
//!   instances against a plain fill of the same record bytes, and ([`runtime::versus`]) against
//!   classic CPU skinning of one character;
//! - [`render`]: a frame's wall, CPU and GPU time on the texture, palette, VAT and reference
//!   paths, and ([`render::field`]) what culling and LODs buy on a crowd at scale;
//! - [`graph_gpu`]: animation graphs stepped on the GPU against the GPU-timed plain runtime's
//!   frame at the same change rate;
//! - [`summary`]: one JSON file and one Markdown table of a `bench/gpu.sh` run's folder.
//!
//! The criterion benches of single operations stay with their crates (`cargo bench -p
//! throng-runtime`, `-p throng-render`, `-p throng-bake`); CPU sampling and skinning of real
//! characters, the baseline of them all, is this crate's (`cargo bench -p throng-bench`).

pub mod graph_gpu;
pub mod render;
pub mod runtime;
pub mod summary;
