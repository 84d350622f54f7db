//! The README's Bevy snippet as a whole program, so the test run compiles it (examples are
//! built by `cargo test`) and throng-render's `tests/readme.rs` checks that the README shows
//! exactly the lines between the markers below. It needs `assets/fox.throng.glb` beside it.

// README begin
use bevy::prelude::*;
use throng_bevy::{GraphSource as Graph, ThrongAnchor, ThrongAsset, ThrongCrowd, ThrongEvent};
use throng_bevy::{ThrongInstance as Instance, ThrongParams, ThrongPlugin, Timing};
fn main() {
    App::new()
        .add_plugins((DefaultPlugins, ThrongPlugin))
        .add_systems(Startup, setup)
        .add_systems(Update, footsteps)
        .run();
}

fn setup(mut commands: Commands, server: Res<AssetServer>) {
    // `throng bake Fox.glb -o assets/fox.throng.glb --anchor b_Head_05`; the graph (docs/graph.md)
    // fox.json is crates/throng-graph/graphs/fox-locomotion.json: Survey, Walk, Run by "speed"
    let fox = server.load::<ThrongAsset>("fox.throng.glb");
    let json = std::fs::read_to_string("assets/fox.json").unwrap_or_default();
    let crowd = ThrongCrowd::new(fox, Timing::Cpu).with_graph(Graph::new("fox.json", json));
    let crowd = commands.spawn(crowd).id();
    for i in 0..10_000 {
        let mut params = ThrongParams::default(); // applied once the asset has loaded
        params.set_float("speed", (i % 3) as f32 * 2.0); // stands, trots, runs; later .fire("look")
        let at = Transform::from_xyz((i % 100) as f32 * 150.0, 0.0, (i / 100) as f32 * 150.0);
        let hat = ThrongAnchor::new("b_Head_05"); // follows the head: give it a mesh
        commands.spawn((Instance { crowd }, params, at, children![hat]));
    }
    // Then a Camera3d and a DirectionalLight; for this centimetre-scale field give the light
    // bevy::light::CascadeShadowConfigBuilder { maximum_distance: 40_000.0, ..default() }.build().
}

fn footsteps(mut events: MessageReader<ThrongEvent>) {
    for e in events.read() {
        info!("{} by {:?} at {:.2} s", e.name, e.entity, e.time); // once per crossing
    }
}
// README end
