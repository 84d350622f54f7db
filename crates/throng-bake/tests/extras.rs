//! Bake extras on real assets: clip settings (loop mode, events, fps) and their round trip
//! through the file, anchors, root-motion extraction, and per-row / per-clip bounds.

use glam::Vec3;
use std::collections::BTreeMap;
use throng_anim::Poser;
use throng_asset::decode::{skin_positions, Skinning};
use throng_asset::{BakedAsset, Encoding, Layer, LoopMode};
use throng_bake::verify::verify;
use throng_bake::{
    bake, AnchorSelection, BakeError, BakeOptions, ClipSettings, EventSetting, RootMotion, Sampling,
};

fn import(name: &str) -> Option<throng_anim::Model> {
    let p = throng_testdata::asset(name)?;
    Some(throng_gltf::import(&p).unwrap_or_else(|e| panic!("{name}: {e}")))
}

fn f32_options(name: &str) -> BakeOptions {
    BakeOptions {
        source_name: name.into(),
        encoding: Encoding::Mat3x4F32,
        strict: true,
        ..Default::default()
    }
}

fn layer(asset: &BakedAsset, clip: usize, frame: u32) -> Layer {
    Layer {
        weight: 1.0,
        frac: 0.0,
        row: (asset.clips[clip].first_row + frame) as f32,
        clip: clip as u32,
    }
}

fn write_read(asset: &BakedAsset) -> BakedAsset {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("a.glb");
    throng_asset::write(asset, &path).expect("write");
    throng_asset::read(&path).expect("read")
}

#[test]
fn clip_settings_override_the_source_and_round_trip_through_the_file() {
    let Some(model) = import("Fox.glb") else {
        return;
    };
    let mut o = f32_options("Fox.glb");
    o.clip_settings.insert(
        "Survey".into(),
        ClipSettings {
            loop_mode: Some(LoopMode::Once),
            ..Default::default()
        },
    );
    o.clip_settings.insert(
        "Walk".into(),
        ClipSettings {
            loop_mode: Some(LoopMode::PingPong),
            fps: Some(60.0),
            events: Some(vec![
                EventSetting {
                    time: 0.5,
                    name: "right".into(),
                },
                EventSetting {
                    time: 0.1,
                    name: "left".into(),
                },
            ]),
            additive: None,
        },
    );
    let (asset, _) = bake(&model, &o).expect("bake");
    let back = write_read(&asset);
    assert_eq!(back.clips, asset.clips);
    let by = |n: &str| back.clips.iter().find(|c| c.name == n).expect(n);
    assert_eq!(by("Survey").loop_mode, LoopMode::Once);
    assert_eq!(
        by("Run").loop_mode,
        LoopMode::Loop,
        "untouched clip keeps the default"
    );
    let walk = by("Walk");
    assert_eq!(walk.loop_mode, LoopMode::PingPong);
    assert_eq!(walk.fps, 60.0);
    // n = floor(d · 60 + 1e-3) + 1 (docs/design.md §3), d = the source clip's duration.
    let d = model
        .clips
        .iter()
        .find(|c| c.name == "Walk")
        .unwrap()
        .duration as f64;
    assert_eq!(walk.frames, (d * 60.0 + 1e-3).floor() as u32 + 1);
    // Without a clip setting a clip follows the bake's sampling: the error budget's frame-time
    // list; a clip fps overrides it with uniform rows.
    assert!(by("Run").times.is_some());
    assert!(walk.times.is_none());
    let ev: Vec<(f32, &str)> = walk
        .events
        .iter()
        .map(|e| (e.time, e.name.as_str()))
        .collect();
    assert_eq!(ev, vec![(0.1, "left"), (0.5, "right")], "sorted by time");
}

#[test]
fn bad_clip_settings_name_the_clip_and_value() {
    let Some(model) = import("Fox.glb") else {
        return;
    };
    let cases: Vec<(&str, ClipSettings, &str)> = vec![
        ("Wlak", ClipSettings::default(), "\"Wlak\""),
        (
            "Walk",
            ClipSettings {
                fps: Some(-3.0),
                ..Default::default()
            },
            "-3",
        ),
        (
            "Walk",
            ClipSettings {
                events: Some(vec![EventSetting {
                    time: 5.0,
                    name: "late".into(),
                }]),
                ..Default::default()
            },
            "\"late\" at 5 s",
        ),
    ];
    for (clip, set, needle) in cases {
        let mut o = f32_options("Fox.glb");
        o.clip_settings = BTreeMap::from([(clip.to_string(), set)]);
        let e = bake(&model, &o).expect_err(needle);
        let msg = e.to_string();
        assert!(matches!(e, BakeError::InvalidOption { .. }), "{msg}");
        assert!(msg.contains(needle) && msg.contains(clip), "{msg}");
    }
}

/// Anchor rows equal the source's model-space node transforms at every row (f32 storage).
#[test]
fn anchors_hold_model_space_node_transforms_per_row() {
    let Some(model) = import("Fox.glb") else {
        return;
    };
    let mut o = f32_options("Fox.glb");
    o.anchors = AnchorSelection::Nodes(vec!["b_Head_05".into(), "b_RightHand_08".into()]);
    let (asset, _) = bake(&model, &o).expect("bake");
    let at = write_read(&asset)
        .anchors
        .expect("anchors written and read");
    assert_eq!(at, asset.anchors.clone().unwrap());
    let names: Vec<&str> = at.anchors.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["b_Head_05", "b_RightHand_08"]);
    let diag = asset.rest_bounds().diagonal();
    let mut poser = Poser::new(&model);
    for (ci, c) in asset.clips.iter().enumerate() {
        for k in 0..c.frames {
            let t = c.frame_time(k) as f32;
            let ms = poser.pose(&model, Some(ci), t);
            for (a, info) in at.anchors.iter().enumerate() {
                let got = at.matrix(a, c.first_row + k);
                let want = ms[info.node];
                assert!(
                    got.abs_diff_eq(want, 1e-6 * diag),
                    "{} {} frame {k}",
                    c.name,
                    info.name
                );
            }
        }
    }
    let e = {
        let mut o = f32_options("Fox.glb");
        o.anchors = AnchorSelection::Nodes(vec!["b_Nose".into()]);
        bake(&model, &o).expect_err("unknown node")
    };
    assert!(e.to_string().contains("\"b_Nose\""), "{e}");
}

/// `auto` picks the non-joint nodes under joints (Quaternius_Enemy's `*_end` leaves).
#[test]
fn auto_anchors_pick_non_joint_nodes_under_joints() {
    let Some(model) = import("Quaternius_Enemy.glb") else {
        return;
    };
    let joints = throng_bake::anchors::joints(&model);
    let auto = throng_bake::anchors::auto_nodes(&model);
    assert!(!auto.is_empty());
    for &n in &auto {
        assert!(!joints[n], "node {n} is a joint");
        let mut p = model.nodes[n].parent;
        let mut under_joint = false;
        while let Some(i) = p {
            under_joint |= joints[i];
            p = model.nodes[i].parent;
        }
        assert!(under_joint, "node {n} hangs under a joint");
    }
    let mut o = f32_options("Quaternius_Enemy.glb");
    o.anchors = AnchorSelection::Auto;
    let (asset, _) = bake(&model, &o).expect("bake");
    let at = asset.anchors.expect("anchors");
    assert_eq!(at.anchors.iter().map(|a| a.node).collect::<Vec<_>>(), auto);
    let mut names: Vec<&str> = at.anchors.iter().map(|a| a.name.as_str()).collect();
    names.dedup();
    assert_eq!(names.len(), auto.len(), "names are unique");
}

/// Extraction + putting the curve back reproduces the source at every sample time, with f32
/// encodings (verify puts the root motion back), and the motion root ends up without
/// horizontal motion or yaw in the baked rows.
#[test]
fn root_motion_extracted_and_put_back_matches_the_source() {
    // CesiumMan's walk is in place (its root joint moves ~1 cm), so a third case makes it walk
    // and turn: its root joint's keys get +0.8 units/s along the parent's X and a turn of
    // 0.6 rad/s about the parent's Z (model +Y under the file's Z_UP node).
    for (name, walking) in [
        ("Fox.glb", false),
        ("CesiumMan.glb", false),
        ("CesiumMan.glb", true),
        ("Quaternius_Enemy.glb", false),
    ] {
        let Some(mut model) = import(name) else {
            return;
        };
        // The turn starts at the first key (CesiumMan's is at 0.0417 s; before it the first
        // value holds).
        let first_key = if walking {
            make_walk(&mut model, "Skeleton_torso_joint_1")
        } else {
            0.0
        };
        let mut o = f32_options(name);
        o.sampling = Sampling::SourceKeys;
        o.root_motion = RootMotion::Extract { motion_root: None };
        // VAT rows are baked from the corrected skin matrices; verify measures them too.
        o.vat = walking.then_some(throng_asset::VatEncoding::F32);
        let (asset, _) = bake(&model, &o).expect("bake");
        assert!(asset.settings.root_motion);
        let mut encodings = Vec::new();
        let root = asset.settings.motion_root.expect("motion root");
        for f in verify(&asset, &model).expect("verify") {
            println!(
                "{name} {} {}: extracted, put back: max {:.2e} of the diagonal",
                f.clip, f.encoding, f.max_rel_samples
            );
            encodings.push(f.encoding.clone());
            assert!(f.max_rel_samples <= 1e-5, "{name} {}", f.clip);
        }
        if walking {
            assert!(
                encodings.iter().any(|e| e.starts_with("vat")),
                "{encodings:?}"
            );
        }
        // The motion root as an anchor: constant horizontal position and yaw in baked rows.
        let mut o2 = o.clone();
        o2.anchors = AnchorSelection::Nodes(vec![model.nodes[root].display_name(root)]);
        let (a2, _) = bake(&model, &o2).expect("bake");
        let at = a2.anchors.as_ref().unwrap();
        let diag = a2.rest_bounds().diagonal();
        let mut travelled = 0.0f32;
        for c in &a2.clips {
            let rm = c.root_motion.as_ref().expect("curve");
            assert_eq!(rm.len(), c.frames as usize);
            assert_eq!(rm[0], [0.0, 0.0, 0.0]);
            let m0 = at.matrix(0, c.first_row);
            for k in 0..c.frames {
                let m = at.matrix(0, c.first_row + k);
                let (d0, d) = (m0.w_axis, m.w_axis);
                assert!((d.x - d0.x).abs() <= 1e-5 * diag && (d.z - d0.z).abs() <= 1e-5 * diag);
                // Yaw left: the twist about +Y of R_k R_0⁻¹.
                let (_, r, _) = m.to_scale_rotation_translation();
                let (_, r0, _) = m0.to_scale_rotation_translation();
                let q = r * r0.inverse();
                assert!(q.y.abs() <= 1e-4, "{name} {} {k}: {q}", c.name);
                let last = rm[k as usize];
                travelled = travelled.max(Vec3::new(last[0], 0.0, last[1]).length());
            }
        }
        println!("{name}: root travels up to {travelled:.3} (diagonal {diag:.3})");
        if walking {
            assert!(travelled > 0.5 * diag, "the walking CesiumMan travels");
            let last = a2.clips[0]
                .root_motion
                .as_ref()
                .unwrap()
                .last()
                .copied()
                .unwrap();
            let d = a2.clips[0].duration as f32;
            let want = 0.6 * (d - first_key);
            assert!(
                (last[2] - want).abs() < 1e-3,
                "yaw {} after {d} s, not {want}",
                last[2]
            );
        }
        // Bounds follow the extracted poses: every decoded vertex inside its row's box.
        check_bounds(&a2, 1e-5);
    }
}

/// Adds forward travel and a steady turn to `node`'s translation and rotation keys.
/// Returns the first key time of the changed rotation channel.
fn make_walk(model: &mut throng_anim::Model, node: &str) -> f32 {
    use throng_anim::{ChannelValues, Interpolation};
    let mut first = 0.0;
    let n = model
        .nodes
        .iter()
        .position(|x| x.name.as_deref() == Some(node))
        .expect(node);
    for ch in model.clips.iter_mut().flat_map(|c| c.channels.iter_mut()) {
        if ch.node != n || ch.interpolation != Interpolation::Linear {
            continue;
        }
        match &mut ch.values {
            ChannelValues::Translation(v) => {
                for (x, t) in v.iter_mut().zip(&ch.times) {
                    *x += Vec3::new(0.8 * t, 0.0, 0.0);
                }
            }
            ChannelValues::Rotation(v) => {
                first = ch.times[0];
                for (q, t) in v.iter_mut().zip(&ch.times) {
                    *q = glam::Quat::from_rotation_z(0.6 * t) * *q;
                }
            }
            ChannelValues::Scale(_) => {}
        }
    }
    first
}

/// Every decoded skinned vertex of every row (CPU decoder) lies in that row's bounds and in its
/// clip's bounds, which are the union of the clip's rows.
pub fn check_bounds(asset: &BakedAsset, tol: f32) {
    assert_eq!(asset.row_bounds.len(), asset.rows() as usize);
    let slack = Vec3::splat(tol * asset.rest_bounds().diagonal());
    let inside = |b: &throng_asset::Aabb, p: Vec3| {
        p.cmpge(b.min - slack).all() && p.cmple(b.max + slack).all()
    };
    let check_row = |row: u32, layers: &[Layer], clip: Option<&throng_asset::ClipInfo>| {
        for pi in 0..asset.primitives.len() {
            for p in skin_positions(asset, pi, layers, Skinning::Linear).expect("decode") {
                assert!(inside(&asset.row_bounds[row as usize], p), "row {row}: {p}");
                if let Some(c) = clip {
                    assert!(inside(&c.bounds, p), "clip {}: {p}", c.name);
                }
            }
        }
    };
    check_row(0, &[], None);
    for (ci, c) in asset.clips.iter().enumerate() {
        let union = asset.row_bounds[c.first_row as usize..(c.first_row + c.frames) as usize]
            .iter()
            .fold(throng_asset::Aabb::EMPTY, |a, b| a.union(b));
        assert_eq!(union, c.bounds, "{}", c.name);
        for k in 0..c.frames {
            check_row(c.first_row + k, &[layer(asset, ci, k)], Some(c));
        }
    }
}

#[test]
fn row_and_clip_bounds_contain_every_decoded_vertex_on_fox() {
    let Some(model) = import("Fox.glb") else {
        return;
    };
    let (asset, _) = bake(&model, &f32_options("Fox.glb")).expect("bake");
    check_bounds(&asset, 1e-5);
    // The default encoding (quat-snorm16, 5.6e-5 of the diagonal at samples, fidelity.rs).
    let o = BakeOptions {
        source_name: "Fox.glb".into(),
        ..Default::default()
    };
    let (asset, _) = bake(&model, &o).expect("bake");
    check_bounds(&asset, 6e-5);
}
