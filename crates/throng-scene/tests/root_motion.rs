//! Root motion on screen: a baked asset whose root motion was extracted, played by the
//! runtimes `throng render` and the viewer draw ([`ScenePlayer`]), puts the character where the
//! source puts it — the independent computation is the source glTF skinned on the CPU at the
//! same clip time (throng-anim's reference skinning), its bounding box against the box of the
//! baked vertices placed by the instance transform that is drawn.

use glam::Vec3;
use throng_asset::{Aabb, Layer};
use throng_contract::{InstanceTransform, Skinning, Timing};
use throng_runtime::crowd::Assignment;
use throng_scene::{BakedScene, Part, PlacedProps, ScenePlayer};

/// Steps of 1/30 s played from clip time 0: 0.433 s of the Enemy's 0.458 s Death clip (it
/// falls backwards, its root travelling 0.366 units; before the loop wraps, where the source
/// jumps back and root motion does not).
const STEPS: u32 = 13;
const FILE: &str = "Quaternius_Enemy.glb";
const CLIP: &str = "MonsterArmature|Death";
const DT: f64 = 1.0 / 30.0;

fn boxed(points: impl Iterator<Item = Vec3>) -> Aabb {
    let mut b = Aabb::EMPTY;
    points.for_each(|p| b.extend(p));
    b
}

fn center(b: &Aabb) -> Vec3 {
    (b.min + b.max) * 0.5
}

#[test]
fn extracted_root_motion_moves_the_instance_where_the_source_goes() {
    let Some(path) = throng_testdata::asset(FILE) else {
        return;
    };
    let model = throng_gltf::import(&path).expect("import");
    let clip = model.clips.iter().position(|c| c.name == CLIP).expect(CLIP);
    let options = throng_bake::BakeOptions {
        source_name: FILE.into(),
        // A fixed rate, so the test does not hang on the error budget's choices.
        sampling: throng_bake::Sampling::Fixed(60.0),
        root_motion: throng_bake::RootMotion::Extract { motion_root: None },
        ..Default::default()
    };
    let (asset, _) = throng_bake::bake(&model, &options).expect("bake");
    assert!(
        asset.clips[0].root_motion.is_some(),
        "root motion extracted"
    );
    let part = Part {
        assignments: vec![Assignment {
            clip: Some(clip),
            phase: 0.0,
        }],
        transforms: vec![InstanceTransform::IDENTITY],
        blend: None,
        overlay: None,
        appearances: Vec::new(),
    };
    let props = PlacedProps::default();
    let drawn_box = |root_motion: bool| {
        let scene = BakedScene {
            assets: vec![&asset],
            parts: std::slice::from_ref(&part),
            timing: Timing::Cpu,
            props: &props,
            root_motion,
            graph: None,
            graph_on: throng_graph_gpu::StepOn::Cpu,
        };
        let mut player = ScenePlayer::new(&scene, 0.0).expect("start");
        for _ in 0..STEPS {
            player.step(DT).expect("step");
        }
        let record = (player.records(0).and_then(|r| r.cpu())).expect("CPU-timed")[0];
        let world = player.transforms(0)[0].to_mat4();
        let layers: Vec<Layer> = record
            .layers
            .iter()
            .copied()
            .filter(|l| l.weight > 0.0)
            .collect();
        let mut points = Vec::new();
        for p in 0..asset.primitives.len() {
            let local = throng_asset::decode::skin_positions(&asset, p, &layers, Skinning::Linear)
                .expect("decode");
            points.extend(local.into_iter().map(|v| world.transform_point3(v)));
        }
        boxed(points.into_iter())
    };
    let mut skinner = throng_anim::ModelSkinner::new(&model);
    let mut parts = Vec::new();
    let t = (STEPS as f64 * DT) as f32;
    skinner.skin(&model, Some(clip), t, Skinning::Linear, &mut parts);
    let source = boxed(
        parts
            .iter()
            .flat_map(|p| p.vertices.positions.iter().copied()),
    );
    let diag = source.diagonal();
    let moved = drawn_box(true);
    let held = drawn_box(false);
    let off = |b: &Aabb| (center(b) - center(&source)).length() / diag;
    eprintln!(
        "{CLIP} at {t} s: drawn box centre off the source's by {:.2e} of the diagonal with root motion, {:.2e} held",
        off(&moved),
        off(&held)
    );
    // Box centres follow vertices; 1e-2 of the diagonal leaves room for cutting influences to
    // 4 and interpolating between baked frames. The root's travel (~0.1 of the diagonal) is
    // ten times more.
    assert!(
        off(&moved) < 1e-2,
        "moved by root motion: off by {:.2e} of the diagonal",
        off(&moved)
    );
    // Held at its place the character is far from the source's: the check above can fail.
    assert!(off(&held) > 0.02, "held: off by only {:.2e}", off(&held));
}
