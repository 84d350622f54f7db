//! A crowd played by an animation graph in `throng render`'s scene player: Fox's locomotion
//! graph (crates/throng-graph/graphs/fox-locomotion.json) shows Survey, Walk or Run where the
//! speed parameter says so. The independent computation is the graph file itself: its 1D blend
//! space puts Walk at speed 1 and Run at speed 4, and idle (Survey) at speed ≤ 0.1.

use std::path::PathBuf;
use throng_contract::{InstanceTransform, Timing};
use throng_runtime::crowd::Assignment;
use throng_scene::{BakedScene, GraphSetup, Part, PlacedProps, ScenePlayer};

#[test]
fn fox_locomotion_graph_shows_the_clip_its_speed_asks_for() {
    let Some(path) = throng_testdata::asset("Fox.glb") else {
        return;
    };
    let model = throng_gltf::import(&path).expect("import Fox");
    let options = throng_bake::BakeOptions {
        source_name: "Fox.glb".into(),
        sampling: throng_bake::Sampling::Fixed(30.0),
        ..Default::default()
    };
    let (asset, _) = throng_bake::bake(&model, &options).expect("bake");
    let clip = |name: &str| asset.clips.iter().position(|c| c.name == name).expect(name);
    let part = Part {
        assignments: vec![
            Assignment {
                clip: None,
                phase: 0.0
            };
            3
        ],
        transforms: vec![InstanceTransform::IDENTITY; 3],
        blend: None,
        overlay: None,
    };
    let graph_file = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../throng-graph/graphs/fox-locomotion.json");
    let props = PlacedProps::default();
    for (speed, shown) in [("0", "Survey"), ("1", "Walk"), ("4", "Run")] {
        let setup = GraphSetup {
            path: graph_file.clone(),
            params: vec![("speed".into(), Some(speed.into()))],
        };
        let scene = BakedScene {
            assets: vec![&asset],
            parts: std::slice::from_ref(&part),
            timing: Timing::Cpu,
            props: &props,
            root_motion: true,
            graph: Some(&setup),
        };
        // 2 s of warm-up: every transition (at most 0.3 s) has ended.
        let mut player = ScenePlayer::new(&scene, 2.0).expect("graph crowd");
        player.step(1.0 / 30.0);
        for record in player.records(0).cpu().expect("CPU-timed") {
            let on: Vec<(u32, f32)> = (record.layers.iter())
                .filter(|l| l.weight > 0.0)
                .map(|l| (l.clip_index(), l.weight))
                .collect();
            assert_eq!(on.len(), 1, "speed {speed}: one clip, not {on:?}");
            assert_eq!(on[0].0 as usize, clip(shown), "speed {speed}: {on:?}");
            assert!((on[0].1 - 1.0).abs() < 1e-6, "speed {speed}: {on:?}");
        }
    }
    // A parameter the graph does not have is an error naming it, not a silent no-op.
    let setup = GraphSetup {
        path: graph_file,
        params: vec![("sped".into(), Some("2".into()))],
    };
    let err = setup.crowd(&asset, 1).err().expect("unknown parameter");
    assert!(format!("{err:#}").contains("sped"), "{err:#}");
}
