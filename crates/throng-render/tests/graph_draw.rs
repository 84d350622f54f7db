//! A crowd driven by the GPU graph step and drawn from the records it wrote, without the
//! records crossing to the CPU (docs/graph.md "On the GPU"): 144 built-in foxes on the
//! locomotion graph (walk/run blend by `speed`, idle, sit on a trigger), stepped 26 frames by
//! `GraphPass` with their speeds and triggers changed each frame, the records copied into a
//! `CrowdUpload` on the GPU (`GraphPass::update_upload`). The picture equals, pixel for pixel, the
//! same records read back and uploaded from the CPU; and it matches the CPU graph step's
//! picture of the same crowd but for a few edge pixels (the GPU derives rows and fracs in f32,
//! within 1e-4 frames of the CPU's f64).

mod common;
#[path = "common/graph_gpu.rs"]
mod graph_gpu;

use throng_graph::{Graph, GraphCrowd};
use throng_render::graph_pass::ParamChange;
use throng_render::{Camera, Crowd, Playback, Records, RenderOptions};

#[test]
fn a_gpu_graph_crowd_draws_from_the_records_it_wrote() {
    let Some(mut r) = common::renderer() else {
        return;
    };
    let glb = throng_demo::demo_glb();
    let model = throng_gltf::import_slice(&glb, None, "throng-demo-fox.glb").expect("import");
    let options = throng_bake::BakeOptions {
        source_name: "throng-demo-fox.glb".into(),
        ..Default::default()
    };
    let asset = throng_bake::bake(&model, &options).expect("bake").0;
    let g = r.upload(&asset).expect("upload");
    let graph = Graph::from_json(
        throng_graph::DEMO_FOX_LOCOMOTION,
        "demo-fox-locomotion.json",
        &asset.clips,
    )
    .expect("graph");
    let n = 144usize;
    let mut crowd = GraphCrowd::new(graph.clone(), &asset.clips, n).expect("crowd");
    let speed = crowd.param::<throng_graph::kind::Float>("speed").unwrap();
    let sit = crowd.param::<throng_graph::kind::Trigger>("sit").unwrap();
    let mut pass = graph_gpu::pass_for(
        &r.gpu,
        &crowd,
        &asset.clips,
        throng_render::graph_pass::EventCapacity::for_crowd(n, 4 * n as u32),
    );

    // a 12 × 12 grid, seen from above and aside
    let bounds = asset.pose_bounds();
    let spacing = throng_runtime::crowd::spacing(&bounds);
    let transforms: Vec<_> = (0..n)
        .map(|i| {
            let p = glam::Vec3::new((i % 12) as f32, 0.0, (i / 12) as f32) * spacing;
            throng_render::InstanceTransform::from_affine(&glam::Affine3A::from_translation(p))
        })
        .collect();
    let h = bounds.max.y - bounds.min.y;
    let centre = glam::Vec3::new(5.5, 0.0, 5.5) * spacing;
    let opts = RenderOptions {
        width: 320,
        height: 240,
        camera: Some(Camera::looking_at(
            centre + glam::Vec3::new(0.0, 5.0 * h, 11.0 * spacing),
            centre,
            0.9,
        )),
        ..Default::default()
    };
    let mut up = throng_render::CrowdUpload::new(&r.gpu.device, throng_render::Timing::Cpu);
    let mut rng = common::Rng::new(7);
    let mut moved = 0;
    for frame in 0..26u32 {
        let mut changes: Vec<ParamChange> = Vec::new();
        for i in 0..n {
            if (i as u32 + frame).is_multiple_of(9) {
                let v = (rng.next_u64() % 8) as f32 * 0.5;
                crowd.set_float(i, speed, v).unwrap();
                changes.push([i as u32, speed.index() as u32, v.to_bits(), 0]);
            } else if (i as u32 * 7 + frame).is_multiple_of(97) {
                crowd.fire(i, sit).unwrap();
                changes.push([i as u32, sit.index() as u32, 1f32.to_bits(), 0]);
            }
        }
        let ticks = 1 << 14;
        crowd.step(ticks as f64 / 1_048_576.0);
        pass.step(&r.gpu, ticks, &changes).expect("step");
        if frame % 13 != 12 {
            continue;
        }
        let bytes = pass
            .update_upload(&r.gpu, &mut up, &transforms, frame == 12)
            .expect("records from the graph");
        // only the transforms (the first time) came from the CPU
        assert_eq!(bytes, if frame == 12 { 48 * n as u64 } else { 0 });
        let drawn = r
            .render_playback(&g, &transforms, Playback::Uploaded(&up), &opts)
            .expect("draw from the graph's records");
        let read = pass.read_records(&r.gpu).expect("records");
        let again = r
            .render_scene(
                &[Crowd::new(
                    &g,
                    &transforms,
                    Playback::Records(Records::Cpu(&read)),
                )],
                &opts,
            )
            .expect("draw")
            .image;
        assert_eq!(
            drawn, again,
            "frame {frame}: the copied records draw as the read ones"
        );
        let cpu = r
            .render_scene(
                &[Crowd::new(
                    &g,
                    &transforms,
                    Playback::Records(Records::Cpu(crowd.records())),
                )],
                &opts,
            )
            .expect("draw")
            .image;
        let differ = common::differ_count(&drawn, &cpu);
        let total = (opts.width * opts.height) as usize;
        assert!(
            differ <= total / 1000,
            "frame {frame}: {differ} pixels differ from the CPU step's"
        );
        assert!(
            drawn.pixels().filter(|p| common::is_orange(p)).count() > total / 50,
            "foxes drawn"
        );
        moved += 1;
        common::save(&drawn, &format!("graph_draw_{frame}.png"));
    }
    assert_eq!(moved, 2);
}
