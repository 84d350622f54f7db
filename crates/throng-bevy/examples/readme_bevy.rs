//! The README's Bevy snippet as a whole program, so the test run compiles it (examples are
//! built by `cargo test`) and throng-render's `tests/readme.rs` checks that the README shows
//! exactly the lines between the markers below. It needs `assets/fox.throng.glb` beside it.

// README begin
use bevy::prelude::*;
use throng_bevy::{ThrongAsset, ThrongCrowd, ThrongInstance, ThrongPlayback, ThrongPlugin, Timing};
const WALK: usize = 1; // an index into the baked clip table (`throng inspect` lists them)
fn main() {
    App::new()
        .add_plugins((DefaultPlugins, ThrongPlugin))
        .add_systems(Startup, setup)
        .run();
}

fn setup(mut commands: Commands, server: Res<AssetServer>) {
    let fox = server.load::<ThrongAsset>("fox.throng.glb"); // from `throng bake Fox.glb -o assets/fox.throng.glb`
    let crowd = commands.spawn(ThrongCrowd::new(fox, Timing::Cpu)).id();
    for i in 0..10_000 {
        let mut playback = ThrongPlayback::default(); // commands wait until the asset has loaded
        playback.play(WALK); // later: .crossfade(RUN, 0.3), .blend(..), .pause()
        let at = Transform::from_xyz((i % 100) as f32 * 150.0, 0.0, (i / 100) as f32 * 150.0);
        commands.spawn((ThrongInstance { crowd }, playback, at));
    }
    // Then a Camera3d and a DirectionalLight; for this centimetre-scale field give the light
    // bevy::light::CascadeShadowConfigBuilder { maximum_distance: 40_000.0, ..default() }.build().
}
// README end
