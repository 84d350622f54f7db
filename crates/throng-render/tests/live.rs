//! Live poses and update-rate LOD on the palette path (docs/design.md §4 "Live poses", §5
//! "Update-rate LOD"), on whatever adapter wgpu finds (lavapipe without a GPU).
//!
//! Live poses: a tube instance posed by the application (its own skin matrices: the chain bent
//! the other way with a tilt of the top joint, computed here, not read from the bone texture)
//! beside a baked one. The palette buffer holds the given matrices bit for bit (a copy) and the
//! palette pass computes only the baked instance; the image equals the reference path drawing
//! the same matrices skinned on the CPU here (linear blend, normals by the inverse transpose) and
//! the baked instance by throng-asset's decoder: at most 0.5 % of pixels differ by more than
//! 8/255 (the two paths rasterise the same triangles; only f32 rounding of the skinned
//! positions differs). Dual quaternions: each live entry is the unit dual quaternion of its
//! matrix (within 1e-6). Wrong inputs are typed errors naming the asset.
//!
//! Update-rate LOD: 8 instances at LOD 1 with a refresh interval of 2 there: frame 1 computes
//! all 8 (nothing written yet), frames 2 and 3 each the half whose turn it is (4 and 4), and with
//! the animation paused frame 3's image equals a refresh-every-frame image exactly (0 pixels off
//! by more than 8/255; the kept matrices are the ones recomputing would give). Playing, the
//! frame after the records move shows the instances whose turn it was at the new rows and the
//! others at their kept matrices — exactly a fresh render of those mixed records — and the next
//! frame catches the others up.

mod common;

use glam::{Mat3, Mat4, Quat, Vec3};
use throng_asset::{BakedAsset, Encoding, Lod};
use throng_render::gpu_types::single_layer;
use throng_render::{
    Crowd, InstanceRecord, InstanceTransform, LivePose, Playback, Records, RenderError,
    RenderOptions, Renderer, SkinMatrix, SkinPath, Skinning,
};

/// Heights of the tube's joints (common::tube_asset).
const JOINTS_Y: [f32; 3] = [0.0, 2.0 / 3.0, 4.0 / 3.0];

/// The live pose: the tube's chain bent by -0.9 rad about Z over its joints, the top joint also
/// tilted by 0.5 rad about X (a procedural tweak no baked row has). `S_j = W_j · IBM_j`.
fn live_matrices() -> Vec<SkinMatrix> {
    let mut world = Mat4::IDENTITY;
    let mut out = vec![];
    for (j, &y) in JOINTS_Y.iter().enumerate() {
        let parent_y = if j == 0 { 0.0 } else { JOINTS_Y[j - 1] };
        let mut local = Mat4::from_translation(Vec3::new(0.0, y - parent_y, 0.0))
            * Mat4::from_rotation_z(-0.9 / 3.0);
        if j == 2 {
            local *= Mat4::from_rotation_x(0.5);
        }
        world *= local;
        let ibm = Mat4::from_translation(Vec3::new(0.0, -y, 0.0));
        out.push(SkinMatrix::from_mat4(&(world * ibm)));
    }
    out
}

/// Linear blend skinning of primitive 0 of `asset` by `matrices` on the CPU (positions, unit
/// normals by the inverse transpose of the blended 3×3).
fn cpu_lbs(asset: &BakedAsset, matrices: &[SkinMatrix]) -> (Vec<Vec3>, Vec<Vec3>) {
    let p = &asset.primitives[0];
    let k = p.influences as usize;
    let m: Vec<Mat4> = matrices.iter().map(|s| s.to_mat4()).collect();
    let mut positions = vec![];
    let mut normals = vec![];
    for v in 0..p.positions.len() {
        let mut blend = Mat4::ZERO;
        for i in 0..k {
            let w = p.weights[v * k + i] as f32 / 65535.0;
            blend += m[p.joints[v * k + i] as usize] * w;
        }
        positions.push(blend.transform_point3(p.positions[v]));
        let l = Mat3::from_mat4(blend);
        normals.push((l.inverse().transpose() * p.normals[v]).normalize_or_zero());
    }
    (positions, normals)
}

/// Two tubes side by side in front of the framing camera.
fn transforms() -> Vec<InstanceTransform> {
    (0..2)
        .map(|i| InstanceTransform::from_mat4(&Mat4::from_translation(Vec3::X * 2.5 * i as f32)))
        .collect()
}

fn opts(skinning: Skinning) -> RenderOptions {
    RenderOptions {
        width: 320,
        height: 240,
        skinning,
        path: SkinPath::Palette,
        ..Default::default()
    }
}

#[test]
fn live_pose_draws_as_cpu_skinning_of_its_matrices() {
    let Some(mut r) = common::renderer() else {
        return;
    };
    let (asset, g) = common::uploaded_tube(&r, Encoding::Mat3x4F32);
    let t = transforms();
    let records = vec![single_layer(5, 0.5, 0), single_layer(9, 0.0, 0)];
    let matrices = live_matrices();
    let live = [LivePose {
        instance: 1,
        matrices: &matrices,
    }];
    let crowd = Crowd {
        live: &live,
        ..Crowd::new(&g, &t, Playback::Records(Records::Cpu(&records)))
    };
    let opts = opts(Skinning::Linear);
    // The buffer: the baked instance computed, the live one the given matrices, bit for bit.
    let p = r.palettes(&crowd, &opts).expect("palettes");
    assert_eq!(
        p.written,
        vec![0],
        "the pass computes only the baked instance"
    );
    let entries = p.entries_per_instance as usize;
    for (e, m) in matrices.iter().enumerate() {
        let got = &p.entries[entries + e];
        assert_eq!([got.a, got.b, got.c], m.rows, "live entry {e}");
    }
    // The picture against the reference path.
    let frame = r.render_scene(&[crowd], &opts).expect("render");
    common::save(&frame.image, "live-tube.png");
    assert_eq!(frame.stats.palette_instances, 1, "{:?}", frame.stats);
    assert_eq!(frame.stats.palette_live, 1);
    assert_eq!(
        frame.stats.instances_drawn, 2,
        "the live instance is culled in view"
    );
    let baked = common::cpu_skinned(
        &asset,
        &records[..1],
        throng_asset::decode::Skinning::Linear,
    );
    let (lp, ln) = cpu_lbs(&asset, &matrices);
    let verts = [
        (baked[0].positions.as_slice(), baked[0].normals.as_slice()),
        (lp.as_slice(), ln.as_slice()),
    ];
    let meshes = common::instance_meshes(&asset, verts, &t);
    let scene = throng_render::camera::crowd_bounds(&g.bounds, &t);
    let reference = r
        .render_reference(
            &meshes,
            &RenderOptions {
                scene: Some(scene),
                ..opts
            },
        )
        .expect("reference");
    let gpu = r
        .render_scene(
            &[crowd],
            &RenderOptions {
                scene: Some(scene),
                ..opts
            },
        )
        .expect("render")
        .image;
    common::save(&reference, "live-tube-reference.png");
    let off = common::differ_count(&gpu, &reference);
    let total = (gpu.width() * gpu.height()) as usize;
    eprintln!("live vs CPU skinning: {off} of {total} pixels off by > 8/255");
    assert!(off * 200 <= total, "{off} of {total} pixels differ");
    // The live tube really is posed differently from any baked row (it leans the other way).
    let baked_only = r
        .render_scene(
            &[Crowd { live: &[], ..crowd }],
            &RenderOptions {
                scene: Some(scene),
                ..opts
            },
        )
        .expect("render")
        .image;
    assert!(common::differ_count(&gpu, &baked_only) * 100 > total / 100);
}

#[test]
fn live_pose_under_dual_quaternions_is_the_matrix_as_a_dual_quaternion() {
    let Some(mut r) = common::renderer() else {
        return;
    };
    let (_, g) = common::uploaded_tube(&r, Encoding::QuatF32);
    let t = transforms();
    let records = vec![single_layer(5, 0.5, 0); 2];
    let matrices = live_matrices();
    let live = [LivePose {
        instance: 0,
        matrices: &matrices,
    }];
    let crowd = Crowd {
        live: &live,
        ..Crowd::new(&g, &t, Playback::Records(Records::Cpu(&records)))
    };
    let p = r
        .palettes(&crowd, &opts(Skinning::DualQuat))
        .expect("palettes");
    assert_eq!(p.written, vec![1]);
    for (e, m) in matrices.iter().enumerate() {
        let got = &p.entries[e];
        let (_, q, tr) = m.to_mat4().to_scale_rotation_translation();
        let dual = Quat::from_xyzw(tr.x, tr.y, tr.z, 0.0) * q * 0.5;
        let real_off = (glam::Vec4::from(got.a) - glam::Vec4::from(q))
            .abs()
            .max_element();
        let dual_off = (glam::Vec4::from(got.b) - glam::Vec4::from(dual))
            .abs()
            .max_element();
        assert!(real_off.max(dual_off) <= 1e-6, "entry {e}: {got:?}");
        assert!((got.c[0] - 1.0).abs() <= 1e-6, "scale of entry {e}");
    }
}

#[test]
fn wrong_live_poses_are_typed_errors() {
    let Some(mut r) = common::renderer() else {
        return;
    };
    let (_, g) = common::uploaded_tube(&r, Encoding::Mat3x4F32);
    let t = transforms();
    let records = vec![single_layer(5, 0.5, 0); 2];
    let matrices = live_matrices();
    let render = |r: &mut Renderer, live: &[LivePose], path| {
        let crowd = Crowd {
            live,
            ..Crowd::new(&g, &t, Playback::Records(Records::Cpu(&records)))
        };
        r.render_scene(
            &[crowd],
            &RenderOptions {
                path,
                ..opts(Skinning::Linear)
            },
        )
        .map(|_| ())
    };
    let short = [LivePose {
        instance: 0,
        matrices: &matrices[..2],
    }];
    match render(&mut r, &short, SkinPath::Palette) {
        Err(RenderError::LivePoseMatrices {
            asset,
            instance: 0,
            got: 2,
            expected: 3,
        }) => assert_eq!(asset, "tube"),
        other => panic!("{other:?}"),
    }
    let past = [LivePose {
        instance: 2,
        matrices: &matrices,
    }];
    assert!(matches!(
        render(&mut r, &past, SkinPath::Palette),
        Err(RenderError::LivePoseInstance {
            instance: 2,
            instances: 2,
            ..
        })
    ));
    let twice = [past[0], past[0]].map(|l| LivePose { instance: 1, ..l });
    assert!(matches!(
        render(&mut r, &twice, SkinPath::Palette),
        Err(RenderError::LivePoseTwice { instance: 1, .. })
    ));
    assert!(matches!(
        render(&mut r, &twice[..1], SkinPath::Texture),
        Err(RenderError::LivePoseNeedsPalette { .. })
    ));
}

/// The tube with a second LOD level (the same triangles, error 0.05 of the model), so that a
/// large LOD bias puts every instance at LOD 1.
fn tube_with_lod() -> BakedAsset {
    let mut asset = common::tube_asset(Encoding::Mat3x4F32);
    let indices = asset.primitives[0].indices.clone();
    asset.primitives[0].lods = vec![Lod {
        ratio: 1.0,
        indices,
        error: 0.05,
    }];
    asset
}

#[test]
fn far_lods_refresh_every_nth_frame_and_keep_their_matrices() {
    let Some(mut r) = common::renderer() else {
        return;
    };
    let asset = tube_with_lod();
    let g = r.upload(&asset).expect("upload");
    let n = 8;
    let t: Vec<InstanceTransform> = (0..n)
        .map(|i| InstanceTransform::from_mat4(&Mat4::from_translation(Vec3::X * 1.5 * i as f32)))
        .collect();
    // Paused: the same records every frame, a different row per instance.
    let records: Vec<InstanceRecord> = (0..n).map(|i| single_layer(2 + i, 0.25, 0)).collect();
    let crowd = Crowd::new(&g, &t, Playback::Records(Records::Cpu(&records)));
    let every = RenderOptions {
        lod_bias: 1e9,
        ..opts(Skinning::Linear)
    };
    let nth = RenderOptions {
        palette_refresh: [1, 2, 1, 1],
        ..every
    };
    let mut counts = vec![];
    let mut last = None;
    for _ in 0..3 {
        let f = r.render_scene(&[crowd], &nth).expect("render");
        assert_eq!(f.stats.instances_per_lod, vec![0, n as u64], "all at LOD 1");
        counts.push(f.stats.palette_instances);
        last = Some(f.image);
    }
    assert_eq!(counts, vec![8, 4, 4], "frame 1 all, then half each frame");
    // The same from the rule's Rust twin, every instance in view at LOD 1.
    let mut state = vec![throng_contract::PALETTE_UNWRITTEN; n as usize];
    let twin: Vec<u64> = (1..=3u32)
        .map(|frame| {
            let mut computed = 0;
            for (i, s) in state.iter_mut().enumerate() {
                if throng_contract::palette_refresh(frame, i as u32, 2, *s) {
                    *s = frame;
                    computed += 1;
                }
            }
            computed
        })
        .collect();
    assert_eq!(counts, twin);
    let last = last.expect("three frames");
    common::save(&last, "refresh-every-2nd.png");
    let mut fresh = common::renderer().expect("renderer");
    let g2 = fresh.upload(&asset).expect("upload");
    let reference = fresh
        .render_scene(
            &[Crowd {
                asset: &g2,
                ..crowd
            }],
            &every,
        )
        .expect("render");
    assert_eq!(reference.stats.palette_instances, n as u64);
    let off = common::differ_count(&last, &reference.image);
    eprintln!("refresh every 2nd frame vs every frame: {off} pixels off by > 8/255");
    assert_eq!(off, 0);

    // Playing: the records move on at frame 4 (the renderer's 4th frame of this crowd). Even
    // instances have their turn at even frames ((frame + i) mod 2 = 0), so frame 4 shows them
    // at the new rows and the odd ones still at the old (their matrices of frame 3); frame 5
    // brings the odd ones along.
    let moved: Vec<InstanceRecord> = (0..n).map(|i| single_layer(9 + i, 0.5, 0)).collect();
    let mixed: Vec<InstanceRecord> = (0..n as usize)
        .map(|i| {
            if i.is_multiple_of(2) {
                moved[i]
            } else {
                records[i]
            }
        })
        .collect();
    let playing = Crowd {
        playback: Playback::Records(Records::Cpu(&moved)),
        ..crowd
    };
    let f4 = r.render_scene(&[playing], &nth).expect("render");
    let f5 = r.render_scene(&[playing], &nth).expect("render");
    assert_eq!(
        (f4.stats.palette_instances, f5.stats.palette_instances),
        (4, 4)
    );
    for (got, want, name) in [(&f4.image, &mixed, "mixed"), (&f5.image, &moved, "moved")] {
        let want = fresh
            .render_scene(
                &[Crowd {
                    asset: &g2,
                    playback: Playback::Records(Records::Cpu(want)),
                    ..crowd
                }],
                &every,
            )
            .expect("render");
        let off = common::differ_count(got, &want.image);
        eprintln!("playing, {name}: {off} pixels off by > 8/255");
        assert_eq!(off, 0, "{name}");
    }
    assert!(
        common::differ_count(&f4.image, &f5.image) > 0,
        "the odd ones moved at frame 5"
    );
}
