//! The README's "Embedding" snippet as a whole program, so the test run compiles it (examples
//! are built by `cargo test`) and `tests/readme.rs` checks that the README shows exactly the
//! lines between the markers below. A sketch of a game's frame loop: one fox, 60 frames.
//!
//! ```text
//! cargo run --release -p throng-render --example readme_embedding -- BAKED.glb
//! ```

use throng_runtime::InstanceTransform;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).unwrap_or_else(|| "fox.glb".into());
    // World from model, file units.
    let transform = InstanceTransform::IDENTITY;
    // Seconds per frame.
    let dt = 1.0 / 60.0;

    // README begin
    use throng_render::{Crowd, RenderOptions};
    use throng_runtime::{PlayOptions, Runtime, Timing};
    let asset = throng_asset::read(path.as_ref())?; // no GPU, no importer needed
    let mut renderer = throng_render::Renderer::new()?; // any adapter wgpu finds
    let gpu_asset = renderer.upload(&asset)?;
    let mut crowd = Runtime::new(Timing::Cpu, &asset.clips); // or Timing::Gpu: same calls
    let (walk, run) = (crowd.clip("Walk")?, crowd.clip("Run")?); // a typo lists the clips
    let fox = crowd.spawn(transform);
    crowd.instance(fox).play(walk, PlayOptions::default())?;
    crowd.instance(fox).crossfade(run, 0.3)?.speed(1.2)?; // walk plays on while it fades
    for _frame in 0..60 {
        crowd.update(dt);
        for _e in crowd.events() { /* footsteps, … */ }
        let frame = renderer.render_scene(
            &[Crowd {
                asset: &gpu_asset,
                transforms: crowd.transforms(),
                playback: crowd.records().into(), // the runtime's records, no copy
                props: &[], // meshes on anchors: [Prop { anchor, mesh: &sword }]
                live: &[],  // live poses (ragdolls, IK) on the palette path
                appearance: throng_render::CrowdAppearance::Default, // tints, variants, parts
            }],
            &RenderOptions::default(), // culling, LODs, shadows on
        )?;
        println!("{} draw calls", frame.stats.draws); // frame.image: the picture
    }
    // README end
    Ok(())
}
