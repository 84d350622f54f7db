//! One module per subcommand; each has `Args` (clap) and `run(Args) -> anyhow::Result<()>`.
//! Commands share helpers through [`shared`] only, never through each other.

pub mod bake;
pub mod bench_graph;
pub mod bench_render;
pub mod bench_runtime;
pub mod bench_summary;
pub mod demo;
pub mod demo_asset;
pub mod export;
pub mod graph;
pub mod inspect;
pub mod render;
pub mod sample;
pub mod shaders;
pub mod shared;
pub mod verify;
pub mod view;
