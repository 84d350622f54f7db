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
        appearances: Vec::new(),
    };
    let graph_file = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../throng-graph/graphs/fox-locomotion.json");
    let props = PlacedProps::default();
    for (speed, shown) in [("0", "Survey"), ("1", "Walk"), ("4", "Run")] {
        let params = vec![("speed".into(), Some(speed.into()))];
        let setup = GraphSetup::read(graph_file.clone(), params).expect("graph file");
        let scene = BakedScene {
            assets: vec![&asset],
            parts: std::slice::from_ref(&part),
            timing: Timing::Cpu,
            props: &props,
            root_motion: true,
            graph: Some(&setup),
            graph_on: throng_graph_gpu::StepOn::Cpu,
        };
        // 2 s of warm-up: every transition (at most 0.3 s) has ended.
        let mut player = ScenePlayer::new(&scene, 2.0).expect("graph crowd");
        player.step(1.0 / 30.0).expect("step");
        for record in (player.records(0).and_then(|r| r.cpu())).expect("CPU-timed") {
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
    let setup =
        GraphSetup::read(graph_file, vec![("sped".into(), Some("2".into()))]).expect("graph file");
    let err = setup.crowd(&asset, 1).err().expect("unknown parameter");
    assert!(format!("{err:#}").contains("sped"), "{err:#}");
}

/// `--param speed=LO..HI`: every instance's value from its index alone, inside the range and
/// spread over it (checked against the uniform distribution's mean and a histogram); ints
/// cover every whole number of the range; a bool or a reversed range is an error.
#[test]
fn parameter_ranges_spread_over_the_instances() {
    use throng_graph::ParamKind;
    use throng_scene::{param_spec, ParamSpec};
    let n = 20_000;
    let spec = param_spec(ParamKind::Float, Some("0.5..3")).expect("a float range");
    assert_eq!(spec, ParamSpec::Floats { lo: 0.5, hi: 3.0 });
    let v: Vec<f32> = (0..n).map(|i| spec.at(i)).collect();
    assert!(v.iter().all(|&x| (0.5..3.0).contains(&x)));
    assert_eq!(v, (0..n).map(|i| spec.at(i)).collect::<Vec<_>>());
    // mean of U[0.5, 3) is 1.75, its standard error over 20,000 draws 0.005
    let mean = v.iter().map(|&x| x as f64).sum::<f64>() / n as f64;
    assert!((mean - 1.75).abs() < 0.03, "mean {mean}");
    // ten equal bins hold 2,000 each, give or take 5 standard deviations (~ 212)
    let mut bins = [0usize; 10];
    for &x in &v {
        bins[((x - 0.5) / 0.25) as usize] += 1;
    }
    assert!(bins.iter().all(|&b| b.abs_diff(2000) < 212), "{bins:?}");
    let ints = param_spec(ParamKind::Int, Some("-1..2")).expect("an int range");
    let mut seen = [0usize; 4];
    for i in 0..n {
        let x = ints.at(i);
        assert!(x.fract() == 0.0 && (-1.0..=2.0).contains(&x), "{x}");
        seen[(x + 1.0) as usize] += 1;
    }
    assert!(seen.iter().all(|&k| k.abs_diff(5000) < 350), "{seen:?}");
    assert_eq!(
        param_spec(ParamKind::Float, Some("2")).unwrap(),
        ParamSpec::Same(2.0)
    );
    assert!(param_spec(ParamKind::Bool, Some("0..1")).is_err());
    assert!(param_spec(ParamKind::Float, Some("3..1")).is_err());
    assert!(param_spec(ParamKind::Int, Some("0.5..2")).is_err());
    assert!(param_spec(ParamKind::Float, Some("0..nan")).is_err());
}
