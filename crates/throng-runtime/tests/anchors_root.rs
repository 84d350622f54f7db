//! Anchor world transforms and root motion.

mod common;
use common::*;
use glam::{Affine3A, Mat4, Vec3};
use throng_asset::{AnchorInfo, AnchorTexture, LoopMode};
use throng_runtime::{
    ClipId, CpuRuntime, GpuRuntime, InstanceTransform, PlayOptions, PlaybackControl, RuntimeError,
};

/// Model-space anchor a at row r: T(0.1 r, a, 0) · R_y(0.05 r).
fn anchor_model(a: usize, r: u32) -> Mat4 {
    Mat4::from_translation(Vec3::new(0.1 * r as f32, a as f32, 0.0))
        * Mat4::from_rotation_y(0.05 * r as f32)
}

fn texture(rows: u32) -> AnchorTexture {
    let anchors = vec![
        AnchorInfo {
            name: "hand_l".into(),
            node: 3,
        },
        AnchorInfo {
            name: "hand_r".into(),
            node: 7,
        },
    ];
    let mut data = Vec::new();
    for r in 0..rows {
        for a in 0..2 {
            let m = anchor_model(a, r);
            for k in 0..3 {
                data.extend_from_slice(&m.row(k).to_array());
            }
        }
    }
    AnchorTexture {
        anchors,
        rows,
        data,
    }
}

fn lerp_rows(a: usize, (row, frac): (u32, f32), rows: u32) -> Mat4 {
    anchor_model(a, row) * (1.0 - frac) + anchor_model(a, (row + 1).min(rows - 1)) * frac
}

#[test]
fn anchors_interpolate_rows_blend_layers_and_follow_the_instance() {
    let clips = table(&[(1.0, LoopMode::Loop, &[]), (0.5, LoopMode::Loop, &[])]);
    let rows = 1 + clips[0].frames + clips[1].frames;
    let tex = texture(rows);
    let inst =
        Affine3A::from_translation(Vec3::new(5.0, 0.0, -2.0)) * Affine3A::from_rotation_y(1.0);
    let mut rt = CpuRuntime::new(&clips);
    let h = rt.spawn(InstanceTransform::from_affine(&inst));
    rt.instance(h)
        .play(ClipId::new(0), PlayOptions::default())
        .unwrap();
    rt.update(0.31);
    rt.instance(h).crossfade(ClipId::new(1), 1.0).unwrap();
    rt.update(0.25);
    // clip 0 at 0.56 s, clip 1 at 0.25 s, weights 0.75 / 0.25
    for a in 0..2 {
        let want = Mat4::from(inst)
            * (lerp_rows(a, expected(&clips[0], LoopMode::Loop, 0.56), rows) * 0.75
                + lerp_rows(a, expected(&clips[1], LoopMode::Loop, 0.25), rows) * 0.25);
        let got = rt.anchor_world(h, &tex, a).unwrap();
        assert!(got.abs_diff_eq(want, 1e-5), "anchor {a}: {got} vs {want}");
    }
    // the same through the GPU-timed mode
    let mut g = GpuRuntime::new(&clips);
    let hg = g.spawn(InstanceTransform::from_affine(&inst));
    g.instance(hg)
        .play(ClipId::new(0), PlayOptions::at(0.4))
        .unwrap();
    g.update(0.2);
    let want = Mat4::from(inst) * lerp_rows(1, expected(&clips[0], LoopMode::Loop, 0.6), rows);
    assert!(g.anchor_world(hg, &tex, 1).unwrap().abs_diff_eq(want, 1e-4));
    // disabled: the rest row
    rt.instance(h).enabled(false).unwrap();
    let want = Mat4::from(inst) * anchor_model(0, 0);
    assert!(rt.anchor_world(h, &tex, 0).unwrap().abs_diff_eq(want, 1e-6));
    assert!(matches!(
        rt.anchor_world(h, &tex, 2),
        Err(RuntimeError::NoSuchAnchor { .. })
    ));
}

/// A clip walking forward along +Z at `v` file units per second while turning `w` rad/s.
fn walker(first_row: u32, d: f64, v: f32, w: f32, mode: LoopMode) -> throng_asset::ClipInfo {
    let mut c = clip(first_row, d, 30.0, mode, &[]);
    let n = c.frames;
    let curve = (0..n)
        .map(|k| {
            let t = c.frame_time(k) as f32;
            if w == 0.0 {
                [0.0, v * t, 0.0]
            } else {
                // arc: position of a body moving forward at v while turning at w
                let r = v / w;
                [r * (1.0 - (w * t).cos()), r * (w * t).sin(), w * t]
            }
        })
        .collect();
    c.root_motion = Some(curve);
    c
}

#[test]
fn root_motion_moves_the_instance_across_loop_wraps() {
    let clips = vec![walker(1, 1.0, 1.5, 0.0, LoopMode::Loop)];
    let (mut rt, h) = one(&clips, 0, PlayOptions::default());
    rt.update(0.4);
    rt.update(2.35); // across two wraps in one step
    let t = rt.transform(h).unwrap().to_affine();
    assert!(
        (t.translation - glam::Vec3A::new(0.0, 0.0, 1.5 * 2.75)).length() < 1e-4,
        "{t:?}"
    );
}

#[test]
fn root_motion_composes_turns() {
    // walking in a circle: after 2.5 laps of a 1 s clip the body is where the arc says
    let (v, w) = (1.0f32, 0.8f32);
    let clips = vec![walker(1, 1.0, v, w, LoopMode::Loop)];
    let (mut rt, h) = one(&clips, 0, PlayOptions::default());
    for _ in 0..150 {
        rt.update(1.0 / 60.0);
    }
    let t = rt.transform(h).unwrap().to_affine();
    let tt = 2.5f32;
    let r = v / w;
    let want = Vec3::new(r * (1.0 - (w * tt).cos()), 0.0, r * (w * tt).sin());
    assert!(
        (Vec3::from(t.translation) - want).length() < 1e-3,
        "{:?} vs {want}",
        t.translation
    );
    let fwd = t.transform_vector3(Vec3::Z);
    let want_fwd = Vec3::new((w * tt).sin(), 0.0, (w * tt).cos());
    assert!((fwd - want_fwd).length() < 1e-3, "{fwd} vs {want_fwd}");
}

#[test]
fn root_motion_is_weighted_across_layers() {
    // blend of two straight walkers (speeds 1 and 3, same length): weight 0.25 → 1.5 per s
    let clips = vec![
        walker(1, 1.0, 1.0, 0.0, LoopMode::Loop),
        walker(32, 1.0, 3.0, 0.0, LoopMode::Loop),
    ];
    let mut rt = CpuRuntime::new(&clips);
    let h = rt.spawn(InstanceTransform::IDENTITY);
    rt.instance(h)
        .blend(ClipId::new(0), ClipId::new(1), 0.25)
        .unwrap();
    for _ in 0..30 {
        rt.update(0.1);
    }
    let z = rt.transform(h).unwrap().rows[2][3];
    assert!((z - 1.5 * 3.0).abs() < 1e-3, "{z}");
    // a one-shot stops moving at its end
    let clips = vec![walker(1, 1.0, 2.0, 0.0, LoopMode::Once)];
    let (mut rt, h) = one(&clips, 0, PlayOptions::default());
    rt.update(0.5);
    rt.update(5.0);
    let z = rt.transform(h).unwrap().rows[2][3];
    assert!((z - 2.0).abs() < 1e-4, "{z}");
}

#[test]
fn ping_pong_root_motion_returns_home() {
    let clips = vec![walker(1, 1.0, 1.0, 0.0, LoopMode::PingPong)];
    let (mut rt, h) = one(&clips, 0, PlayOptions::default());
    rt.update(0.75);
    assert!((rt.transform(h).unwrap().rows[2][3] - 0.75).abs() < 1e-4);
    rt.update(0.5); // to the end and back 0.25
    assert!((rt.transform(h).unwrap().rows[2][3] - 0.75).abs() < 1e-4);
    rt.update(4.75); // 2 whole cycles + back to the start
    assert!(rt.transform(h).unwrap().rows[2][3].abs() < 1e-4);
}

#[test]
fn root_motion_follows_the_rows_interpolation() {
    // a clip of degree-2 polynomial pieces (30 gaps of 1/30 s, a piece every 2) whose root
    // accelerates along +Z: z(t) = a·t². The pieces pass through any quadratic, so between
    // frames the root is where the curve says; a lerp between frames would miss by up to
    // a·h²/4 = 2.8e-3 (h = 1/30 s) at mid-gap.
    let a = 10.0f32;
    let mut c = walker(1, 1.0, 0.0, 0.0, LoopMode::Clamp);
    c.interpolation = throng_asset::RowInterpolation::Pieces;
    c.degree = 2;
    let n = c.frames;
    c.root_motion = Some(
        (0..n)
            .map(|k| {
                let t = c.frame_time(k) as f32;
                [0.0, a * t * t, 0.0]
            })
            .collect(),
    );
    // (root motion is CPU-timed only: docs/design.md §4)
    let (mut rt, h) = one(&[c], 0, PlayOptions::default());
    // mid-gap in the first and the second gap of a piece, then across several pieces
    let mut t = 0.0f32;
    for dt in [0.05f32, 0.0333, 0.2, 0.1234] {
        rt.update(dt as f64);
        t += dt;
        let (z, want) = (
            rt.transform(h).unwrap().to_affine().translation.z,
            a * t * t,
        );
        assert!(
            (z - want).abs() < 1e-5,
            "at {t} s: z {z}, the curve's {want}"
        );
    }
}
