//! Layer masks and additive clips at bake time (docs/design.md §4 "Layer masks and additive
//! layers"), on Fox.glb (a spine hierarchy: b_Spine01_02 carries the neck, head and front legs):
//!
//! - a mask over a subtree gives weight 1 to exactly the palette entries whose node is the root
//!   or below it (checked against the glTF node hierarchy walked here), and survives the file;
//! - an unknown joint is a typed error that lists the joints;
//! - an additive clip's rows decode to `Δ = S_ref⁻¹ · S(t)`: `S_ref · Δ(row)` equals the clip's
//!   pose sampled by throng-anim at that row's time, within the mat3x4-f32 encoding's rounding
//!   (1e-4 of Fox's ~180-unit size per component, in file units).

use glam::Mat4;
use throng_asset::decode::skin_matrix;
use throng_asset::Encoding;
use throng_bake::masks::MaskSetting;
use throng_bake::{bake, BakeError, BakeOptions, Sampling};

fn import(name: &str) -> Option<throng_anim::Model> {
    let p = throng_testdata::asset(name)?;
    Some(throng_gltf::import(&p).unwrap_or_else(|e| panic!("{name}: {e}")))
}

fn options() -> BakeOptions {
    BakeOptions {
        source_name: "Fox.glb".into(),
        sampling: Sampling::Fixed(10.0),
        encoding: Encoding::Mat3x4F32,
        masks: vec![MaskSetting::parse("upper=b_Spine01_02").expect("mask")],
        ..BakeOptions::default()
    }
}

#[test]
fn a_subtree_mask_covers_the_root_and_everything_below_it() {
    let Some(model) = import("Fox.glb") else {
        return;
    };
    let (asset, _) = bake(&model, &options()).expect("bake");
    assert_eq!(asset.masks.len(), 1);
    assert_eq!(asset.find_mask("upper"), Some(1));
    let spine = (0..model.nodes.len())
        .find(|&i| model.nodes[i].name.as_deref() == Some("b_Spine01_02"))
        .expect("spine node");
    let mut covered = 0;
    for (e, w) in asset.palette.iter().zip(&asset.masks[0].weights) {
        // walk the parents from the entry's node
        let mut n = Some(e.node);
        let mut below = false;
        while let Some(i) = n {
            below |= i == spine;
            n = model.nodes[i].parent;
        }
        assert_eq!(*w, if below { 1.0 } else { 0.0 }, "entry {}", e.name);
        covered += below as usize;
    }
    // spine 01 and 02, neck, head, two arms of three joints each
    assert_eq!(covered, 10);
    // the mask is stored in the file
    let bytes = throng_asset::to_glb_bytes(&asset).expect("write");
    let back = throng_asset::from_glb_bytes(&bytes, "fox").expect("read");
    assert_eq!(back.masks, asset.masks);
}

#[test]
fn an_unknown_mask_joint_names_the_joints() {
    let Some(model) = import("Fox.glb") else {
        return;
    };
    let o = BakeOptions {
        masks: vec![MaskSetting::parse("upper=Spine").expect("mask")],
        ..options()
    };
    match bake(&model, &o) {
        Err(e @ BakeError::UnknownMaskJoint { .. }) => {
            let msg = e.to_string();
            assert!(msg.contains("'Spine'"), "{msg}");
            assert!(
                msg.contains("b_Spine01_02") && msg.contains("b_Head_05"),
                "{msg}"
            );
        }
        other => panic!("expected UnknownMaskJoint, got {other:?}"),
    }
    assert!(MaskSetting::parse("upper").is_err());
    assert!(MaskSetting::parse("=Spine").is_err());
}

#[test]
fn additive_rows_are_deltas_from_the_reference_pose() {
    let Some(model) = import("Fox.glb") else {
        return;
    };
    let survey = model
        .clips
        .iter()
        .position(|c| c.name == "Survey")
        .expect("Survey");
    // the reference on frame 5 of the 10 fps rows (not the default 0 s)
    let (plain, _) = bake(&model, &options()).expect("bake");
    let t_ref = plain.clips[survey].frame_time(5) as f32;
    let mut o = options();
    o.additive.insert("Survey".into(), t_ref);
    let (asset, _) = bake(&model, &o).expect("bake");
    let info = &asset.clips[survey];
    assert_eq!(info.additive, Some(t_ref));
    assert!(asset.clips.iter().filter(|c| c.additive.is_some()).count() == 1);
    let mut poser = throng_anim::Poser::new(&model);
    let skin = |poser: &mut throng_anim::Poser, t: f32| -> Vec<Mat4> {
        let ms = poser.pose(&model, Some(survey), t).to_vec();
        asset
            .palette
            .iter()
            .map(|e| ms[e.node] * e.inverse_bind_matrix)
            .collect()
    };
    let reference = skin(&mut poser, t_ref);
    let mut worst = 0.0f32;
    for k in 0..info.frames {
        let t = info.frame_time(k) as f32;
        let want = skin(&mut poser, t);
        for (j, (r, w)) in reference.iter().zip(&want).enumerate() {
            let delta =
                skin_matrix(&asset.bone_texture, j as u32, info.first_row + k).expect("texel");
            let got = *r * delta;
            let err = (got - *w)
                .to_cols_array()
                .iter()
                .fold(0.0f32, |a, x| a.max(x.abs()));
            worst = worst.max(err);
        }
    }
    eprintln!("Survey as additive: S_ref · Δ vs the pose, worst {worst:.2e} file units");
    assert!(worst < 1e-4 * 180.0, "worst {worst}");
    // the frame at the reference time is (nearly) the identity
    for j in 0..asset.palette.len() as u32 {
        let d = skin_matrix(&asset.bone_texture, j, info.first_row + 5).expect("texel");
        assert!(d.abs_diff_eq(Mat4::IDENTITY, 1e-3), "entry {j}: {d}");
    }
}
