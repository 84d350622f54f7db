//! The demo fox through throng's own importer (`throng-gltf`): the model it produces must be
//! what the generator wrote (checked against the `gltf` crate's independent reading and
//! `demo_description`), with no import warnings.

mod common;

use glam::{Quat, Vec3};
use throng_anim::model::{ChannelValues, Interpolation, LoopMode};

#[test]
fn importer_reads_back_exactly_what_was_generated() {
    let bytes = throng_demo::demo_glb();
    let model = throng_gltf::import_slice(&bytes, None, "demo.glb").expect("demo imports");
    assert!(
        model.warnings.is_empty(),
        "import warnings: {:?}",
        model.warnings
    );
    let d = throng_demo::demo_description();

    let (doc, buffers, _) = gltf::import_slice(&bytes).expect("gltf parses");

    // Skeleton: same joints, same names, same inverse bind matrices.
    assert_eq!(model.skins.len(), 1);
    let skin = &model.skins[0];
    assert_eq!(skin.joints.len(), d.joints);
    for (k, &node) in skin.joints.iter().enumerate() {
        assert_eq!(model.nodes[node].name.as_deref(), Some(d.joint_names[k]));
    }
    let gskin = doc.skins().next().expect("skin");
    let ibms = common::inverse_binds(&gskin, &buffers);
    assert_eq!(skin.inverse_bind_matrices, ibms);

    // Mesh: bit-identical positions, weights and indices.
    assert_eq!(model.meshes.len(), 1);
    let prim = &model.meshes[0].primitives[0];
    assert_eq!(prim.vertex_count(), d.vertices);
    assert_eq!(prim.indices.len(), d.triangles * 3);
    assert!(!prim.generated_normals);
    let gprim = common::first_primitive(&doc);
    let r = gprim.reader(|b| Some(&buffers[b.index()]));
    let pos: Vec<Vec3> = r.read_positions().expect("pos").map(Vec3::from).collect();
    let wts: Vec<[f32; 4]> = r.read_weights(0).expect("weights").into_f32().collect();
    let idx: Vec<u32> = r.read_indices().expect("indices").into_u32().collect();
    assert_eq!(prim.positions, pos);
    assert_eq!(prim.weight_sets, vec![wts]);
    assert_eq!(prim.indices, idx);
    assert!(prim.max_influences() <= 4);
    let material = &model.materials[prim.material.expect("material")];
    assert_eq!(
        material.base_color_factor.to_array(),
        throng_demo::BASE_COLOR
    );
    assert!(material.base_color_texture.is_some());

    // Clips: names, durations, loop modes, events and key values.
    assert_eq!(model.clips.len(), d.clips.len());
    for (clip, want) in model.clips.iter().zip(&d.clips) {
        assert_eq!(clip.name, want.name);
        assert_eq!(clip.duration, want.duration, "{}", clip.name);
        let mode = match want.loop_mode {
            throng_demo::DemoLoop::Loop => LoopMode::Loop,
            throng_demo::DemoLoop::Once => LoopMode::Once,
        };
        assert_eq!(clip.loop_mode, mode, "{}", clip.name);
        let events: Vec<(f32, String)> = clip
            .events
            .iter()
            .map(|e| (e.time, e.name.clone()))
            .collect();
        assert_eq!(events, want.events, "{}", clip.name);
        let ganim = doc
            .animations()
            .find(|a| a.name() == Some(want.name))
            .expect("clip");
        assert_eq!(clip.channels.len(), ganim.channels().count());
        for (ch, gch) in clip.channels.iter().zip(ganim.channels()) {
            assert_eq!(ch.node, gch.target().node().index());
            assert_eq!(ch.interpolation, Interpolation::Linear);
            assert_eq!(ch.times.len(), want.keys);
            let gr = gch.reader(|b| Some(&buffers[b.index()]));
            match (&ch.values, gr.read_outputs().expect("outputs")) {
                (ChannelValues::Rotation(q), gltf::animation::util::ReadOutputs::Rotations(g)) => {
                    let g: Vec<Quat> = g.into_f32().map(Quat::from_array).collect();
                    assert_eq!(q.len(), g.len());
                    // The importer renormalises quaternions, which may move the last bit.
                    for (k, (a, b)) in q.iter().zip(&g).enumerate() {
                        assert!(a.abs_diff_eq(*b, 1e-6), "{} key {k}: {a} vs {b}", clip.name);
                    }
                }
                (
                    ChannelValues::Translation(t),
                    gltf::animation::util::ReadOutputs::Translations(g),
                ) => {
                    let g: Vec<Vec3> = g.map(Vec3::from).collect();
                    assert_eq!(t, &g);
                }
                _ => panic!("{}: channel kinds differ", clip.name),
            }
        }
    }
}
