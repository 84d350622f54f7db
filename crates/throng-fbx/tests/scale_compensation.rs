//! Maya's segment scale compensation (FBX inherit type "ignore parent scale"): in the sausage's
//! `deform` take a joint with children is scaled along x, and its child joints must not inherit
//! that scale. Checked on the model's own world transforms (an independent property of the FBX
//! semantics, not a comparison with another importer): with compensation every child joint
//! keeps unit-length axes while its parent shrinks; without it (Blender's behaviour) they shrink
//! too.

mod common;

use glam::Mat4;
use throng_anim::{Model, Poser};

fn worlds(model: &Model, clip: usize, t: f32) -> Vec<Mat4> {
    Poser::new(model).pose(model, Some(clip), t).to_vec()
}

fn axis_lengths(m: &Mat4) -> [f32; 3] {
    [
        m.x_axis.truncate().length(),
        m.y_axis.truncate().length(),
        m.z_axis.truncate().length(),
    ]
}

#[test]
fn child_joints_ignore_their_parents_scale() {
    let Some(path) = common::fbx_asset("ufbx/maya_game_sausage_7500_binary_deform.fbx") else {
        return;
    };
    let on = throng_fbx::import(&path).unwrap_or_else(|e| panic!("{e}"));
    let off = throng_fbx::import_with(
        &path,
        &throng_fbx::ImportOptions {
            scale_compensation: false,
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let node = |m: &Model, name: &str| {
        m.nodes
            .iter()
            .position(|n| n.name.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("no node {name}"))
    };
    let clip = &on.clips[0];
    assert_eq!(clip.name, "deform");
    let mut parent_shrank = false;
    let mut uncompensated_shrank = false;
    for k in 0..=20 {
        let t = clip.duration * k as f32 / 20.0;
        let w_on = worlds(&on, 0, t);
        let w_off = worlds(&off, 0, t);
        // joint1 carries the scale; joint2..4 are compensated children (their own scale is 1).
        let j1 = axis_lengths(&w_on[node(&on, "joint1")]);
        let helper_scaled = on
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.parent == Some(node(&on, "joint1")))
            .any(|(i, _)| axis_lengths(&w_on[i]).iter().any(|l| *l < 0.99));
        parent_shrank |= j1.iter().any(|l| *l < 0.99) || helper_scaled;
        for j in ["joint2", "joint3", "joint4"] {
            let l = axis_lengths(&w_on[node(&on, j)]);
            assert!(
                l.iter().all(|x| (x - 1.0).abs() < 1e-4),
                "t = {t}: {j} has axes {l:?} with compensation"
            );
            let l = axis_lengths(&w_off[node(&off, j)]);
            uncompensated_shrank |= l.iter().any(|x| *x < 0.99);
        }
    }
    assert!(
        parent_shrank,
        "the take does scale joint1 (else this test checks nothing)"
    );
    assert!(
        uncompensated_shrank,
        "without compensation the children inherit the scale"
    );
}
