//! CPU decoders against independent computations (f64, glam's own matrix functions) with stated
//! tolerances. Matrices come from the test-only encoder in `common`.

mod common;

use glam::{DMat4, DVec3, Mat4, Quat, Vec3, Vec4};
use throng_asset::decode::*;
use throng_asset::*;

fn max_abs_diff(a: &Mat4, b: &Mat4) -> f32 {
    (*a - *b)
        .to_cols_array()
        .iter()
        .fold(0.0f32, |m, x| m.max(x.abs()))
}

/// Encode random similarity transforms and decode them back; the worst element error of the
/// linear part (relative to the scale) and of the translation (relative to the translation
/// range) per encoding.
fn round_trip_error(enc: Encoding) -> (f32, f32) {
    let mut rng = common::Rng(1234);
    let rows = 40;
    let entries = 25;
    let frames: Vec<Vec<Mat4>> = (0..rows)
        .map(|_| (0..entries).map(|_| rng.similarity()).collect())
        .collect();
    let tex = common::encode(enc, &frames, 16);
    assert_eq!(
        tex.data.len(),
        rows * entries * enc.bytes_per_entry_frame() as usize
    );
    let t_range = 2.0f32; // translations are drawn in [-2, 2)
    let (mut lin, mut tr) = (0.0f32, 0.0f32);
    for (r, f) in frames.iter().enumerate() {
        for (j, m) in f.iter().enumerate() {
            let d = skin_matrix(&tex, j as u32, r as u32).expect("decode");
            let s = m.x_axis.truncate().length();
            for c in 0..3 {
                let e = (d.col(c) - m.col(c)).abs().max_element() / s;
                lin = lin.max(e);
            }
            tr = tr.max((d.w_axis - m.w_axis).abs().max_element() / t_range);
            assert_eq!(d.row(3), Vec4::W, "last row is (0, 0, 0, 1)");
        }
    }
    (lin, tr)
}

#[test]
fn every_encoding_round_trips_within_its_precision() {
    // (encoding, bound on linear-part error / scale, bound on translation error / range)
    let bounds = [
        (Encoding::Mat4F32, 0.0, 0.0),
        (Encoding::Mat3x4F32, 0.0, 0.0),
        // f16 has 11 significant bits: half a unit in the last place is 2^-12 ≈ 2.4e-4 relative
        // to the element; elements are at most ~1 × scale (linear) and 2 (translation).
        (Encoding::Mat3x4F16, 5e-4, 5e-4),
        // Quaternion ↔ matrix conversions in f32: a few ulps.
        (Encoding::QuatF32, 1e-6, 1e-6),
        // snorm16: each quaternion component is within 0.5/32767 = 1.5e-5, which moves matrix
        // elements by up to ~4 × that; translations within 1.5e-5 of the range.
        (Encoding::QuatSnorm16, 8e-5, 3e-5),
    ];
    for (enc, lin_bound, tr_bound) in bounds {
        let (lin, tr) = round_trip_error(enc);
        eprintln!("{}: linear {lin:.2e}, translation {tr:.2e}", enc.as_str());
        assert!(lin <= lin_bound, "{}: linear error {lin}", enc.as_str());
        assert!(tr <= tr_bound, "{}: translation error {tr}", enc.as_str());
    }
}

#[test]
fn texel_layouts_match_the_format_document() {
    // mat4-f32: texel 4j + c = column c.
    let m = Mat4::from_cols_array(&std::array::from_fn(|i| i as f32 + 1.0));
    let t = common::encode(Encoding::Mat4F32, &[vec![Mat4::IDENTITY, m]], 8);
    assert_eq!(fetch_texel(&t, 4 + 2, 0).unwrap(), m.z_axis);
    // mat3x4: texel 3j + r = row r.
    let t = common::encode(Encoding::Mat3x4F32, &[vec![Mat4::IDENTITY, m]], 8);
    assert_eq!(
        fetch_texel(&t, 3 + 1, 0).unwrap(),
        Vec4::new(2.0, 6.0, 10.0, 14.0)
    );
    // quat-snorm16: q = round(clamp(v) × 32767); −32768 decodes to −1 like −32767.
    assert_eq!(snorm16(-32768), -1.0);
    assert_eq!(snorm16(-32767), -1.0);
    assert_eq!(snorm16(32767), 1.0);
    assert_eq!(unorm16(65535), 1.0);
    let q = Quat::from_rotation_y(0.5);
    let s = Mat4::from_scale_rotation_translation(Vec3::splat(1.5), q, Vec3::new(3.0, -6.0, 1.5));
    let t = common::encode(Encoding::QuatSnorm16, &[vec![s]], 8);
    assert_eq!(t.translation_range, 6.0);
    let raw = fetch_texel(&t, 1, 0).unwrap();
    assert_eq!(
        raw,
        Vec4::new(16384.0 / 32767.0, -1.0, 8192.0 / 32767.0, 1.0)
    );
    let qt = quat_texels(&t, 0, 0).unwrap();
    assert!(
        (qt.translation - Vec3::new(3.0, -6.0, 1.5))
            .abs()
            .max_element()
            < 1e-3
    );
    assert!((qt.scale - 1.5).abs() < 1e-6);
    // Out of range: errors, not panics.
    assert!(fetch_texel(&t, 2, 0).is_err());
    assert!(fetch_texel(&t, 0, 1).is_err());
    assert!(skin_matrix(&t, 1, 0).is_err());
}

fn asset_with(enc: Encoding) -> BakedAsset {
    common::asset(enc)
}

fn m(asset: &BakedAsset, entry: u32, row: u32) -> DMat4 {
    skin_matrix(&asset.bone_texture, entry, row)
        .expect("matrix")
        .as_dmat4()
}

#[test]
fn two_layers_with_frac_equal_hand_computed_matrices() {
    let asset = asset_with(Encoding::Mat4F32);
    // Clip 0 (Walk) rows 1..=5, clip 1 (Idle) rows 6..=8.
    let layers = [
        Layer {
            weight: 0.25,
            frac: 0.5,
            row: 2.0,
            clip: 0,
        },
        Layer {
            weight: 0.75,
            frac: 0.2,
            row: 6.0,
            clip: 1,
        },
    ];
    for j in 0..common::ENTRIES as u32 {
        let want = (m(&asset, j, 2) * 0.5 + m(&asset, j, 3) * 0.5) * 0.25
            + (m(&asset, j, 6) * 0.8 + m(&asset, j, 7) * 0.2) * 0.75;
        let got = blended_skin_matrix(&asset.bone_texture, &asset.clips, &layers, j)
            .unwrap()
            .as_dmat4();
        let err = (got - want)
            .to_cols_array()
            .iter()
            .fold(0.0f64, |a, x| a.max(x.abs()));
        assert!(err < 1e-6, "entry {j}: {err}");
    }
}

#[test]
fn interpolation_is_clamped_into_the_clip() {
    let asset = asset_with(Encoding::Mat4F32);
    let tex = &asset.bone_texture;
    // Last row of Walk (5) with frac 0.5 must not reach Idle's first row (6).
    let layers = [Layer {
        weight: 1.0,
        frac: 0.5,
        row: 5.0,
        clip: 0,
    }];
    let rows = layer_rows(&layers, &asset.clips).unwrap();
    assert_eq!(rows[0].next, 5);
    let got = blended_skin_matrix(tex, &asset.clips, &layers, 1).unwrap();
    assert_eq!(got, skin_matrix(tex, 1, 5).unwrap());
}

#[test]
fn all_weights_zero_shows_the_rest_row() {
    let asset = asset_with(Encoding::Mat3x4F16);
    let tex = &asset.bone_texture;
    let off = [Layer {
        weight: 0.0,
        frac: 0.3,
        row: 1e9, // not read
        clip: 99,
    }; 4];
    for j in 0..3 {
        let rest = skin_matrix(tex, j, 0).unwrap();
        assert_eq!(
            blended_skin_matrix(tex, &asset.clips, &off, j).unwrap(),
            rest
        );
        assert_eq!(
            blended_skin_matrix(tex, &asset.clips, &[], j).unwrap(),
            rest
        );
    }
}

#[test]
fn bad_layers_are_errors() {
    let asset = asset_with(Encoding::QuatSnorm16);
    let l = |weight, frac, row, clip| {
        [Layer {
            weight,
            frac,
            row,
            clip,
        }]
    };
    let c = &asset.clips;
    assert!(matches!(
        layer_rows(&l(1.0, 0.0, 2.0, 5), c),
        Err(DecodeError::BadClip { .. })
    ));
    assert!(matches!(
        layer_rows(&l(1.0, 0.0, 6.0, 0), c),
        Err(DecodeError::BadRow { .. })
    ));
    assert!(matches!(
        layer_rows(&l(1.0, 0.0, -1.0, 0), c),
        Err(DecodeError::BadRow { .. })
    ));
    assert!(matches!(
        layer_rows(&l(1.0, f32::NAN, 2.0, 0), c),
        Err(DecodeError::BadLayerValue { .. })
    ));
    assert!(matches!(
        skin_positions(&asset, 9, &[], Skinning::Linear),
        Err(DecodeError::BadPrimitive { .. })
    ));
    let m4 = asset_with(Encoding::Mat4F32);
    assert!(matches!(
        skin_positions(&m4, 0, &[], Skinning::DualQuat),
        Err(DecodeError::DqNeedsQuat(Encoding::Mat4F32))
    ));
}

fn diagonal(p: &[Vec3]) -> f32 {
    let mut b = Aabb::EMPTY;
    p.iter().for_each(|x| b.extend(*x));
    b.diagonal()
}

#[test]
fn lbs_vertices_match_an_independent_sum() {
    for enc in Encoding::ALL {
        let asset = asset_with(enc);
        let layers = [
            Layer {
                weight: 0.6,
                frac: 0.25,
                row: 3.0,
                clip: 0,
            },
            Layer {
                weight: 0.4,
                frac: 0.9,
                row: 7.0,
                clip: 1,
            },
        ];
        let prim = &asset.primitives[0];
        let got = skin_vertices(&asset, 0, &layers, Skinning::Linear).unwrap();
        let diag = diagonal(&got.positions) as f64;
        for v in 0..prim.positions.len() {
            // Σ_i w_i Σ_l weight_l · lerp(S(row), S(next), frac) · p, in f64.
            let mut blended = DMat4::ZERO;
            for i in 0..4 {
                let j = prim.joints[v * 4 + i] as u32;
                let w = prim.weights[v * 4 + i] as f64 / 65535.0;
                let layer_a = m(&asset, j, 3) * 0.75 + m(&asset, j, 4) * 0.25;
                let layer_b =
                    m(&asset, j, 7) * (1.0 - 0.9f32 as f64) + m(&asset, j, 8) * 0.9f32 as f64;
                blended += (layer_a * 0.6f32 as f64 + layer_b * 0.4f32 as f64) * w;
            }
            let p = blended.transform_point3(prim.positions[v].as_dvec3());
            let err = (got.positions[v].as_dvec3() - p).length() / diag;
            assert!(
                err < 1e-6,
                "{} vertex {v}: {err:e} of the diagonal",
                enc.as_str()
            );
            // Normal: inverse-transpose of the blended linear part.
            let lin = glam::DMat3::from_mat4(blended);
            let n = (lin.inverse().transpose() * prim.normals[v].as_dvec3()).normalize();
            assert!(
                (got.normals[v].as_dvec3() - n).length() < 1e-5,
                "{} normal {v}",
                enc.as_str()
            );
            let t = prim.tangents.as_ref().unwrap()[v];
            let td = (lin * t.truncate().as_dvec3()).normalize();
            let gt = got.tangents.as_ref().unwrap()[v];
            assert!((gt.truncate().as_dvec3() - td).length() < 1e-5);
            assert_eq!(gt.w, t.w * lin.determinant().signum() as f32);
        }
    }
}

#[test]
fn mirrored_and_non_uniform_matrices_use_the_inverse_transpose() {
    // One entry, rest row only: a non-uniform mirror.
    let s = Mat4::from_scale(Vec3::new(-2.0, 1.0, 0.5)) * Mat4::from_rotation_z(0.7);
    let mut asset = asset_with(Encoding::Mat4F32);
    asset.bone_texture = common::encode(Encoding::Mat4F32, &vec![vec![s; 3]; common::ROWS], 8);
    let got = skin_vertices(&asset, 0, &[], Skinning::Linear).unwrap();
    let prim = &asset.primitives[0];
    let it = glam::Mat3::from_mat4(s).inverse().transpose();
    for v in 0..prim.positions.len() {
        let n = (it * prim.normals[v]).normalize();
        assert!((got.normals[v] - n).length() < 1e-5);
        let t = prim.tangents.as_ref().unwrap()[v];
        assert_eq!(got.tangents.as_ref().unwrap()[v].w, -t.w, "det < 0 flips w");
    }
}

#[test]
fn dual_quaternions_equal_lbs_for_a_single_influence() {
    for enc in [Encoding::QuatF32, Encoding::QuatSnorm16] {
        let mut asset = asset_with(enc);
        for p in &mut asset.primitives {
            let k = p.influences as usize;
            for v in 0..p.positions.len() {
                p.weights[v * k..v * k + k].fill(0);
                p.weights[v * k] = 65535;
            }
        }
        for layers in [
            vec![],
            vec![Layer {
                weight: 1.0,
                frac: 0.0,
                row: 4.0,
                clip: 0,
            }],
        ] {
            for prim in 0..2 {
                let lbs = skin_vertices(&asset, prim, &layers, Skinning::Linear).unwrap();
                let dq = skin_vertices(&asset, prim, &layers, Skinning::DualQuat).unwrap();
                let diag = diagonal(&lbs.positions);
                for v in 0..lbs.positions.len() {
                    let e = (lbs.positions[v] - dq.positions[v]).length() / diag;
                    assert!(e < 2e-6, "{} prim {prim} v {v}: {e:e}", enc.as_str());
                    assert!((lbs.normals[v] - dq.normals[v]).length() < 1e-5);
                }
                if let (Some(a), Some(b)) = (&lbs.tangents, &dq.tangents) {
                    for (x, y) in a.iter().zip(b) {
                        assert!((*x - *y).length() < 1e-5);
                    }
                }
            }
        }
    }
}

#[test]
fn dual_quaternion_blend_flips_hemispheres_and_stays_rigid() {
    let t = QuatTransform {
        rotation: Vec4::from(Quat::from_rotation_y(0.4)),
        translation: Vec3::new(1.0, 2.0, 3.0),
        scale: 1.0,
    };
    let a = DualQuat::from_transform(&t);
    let neg = DualQuat {
        real: -a.real,
        dual: -a.dual,
        scale: 1.0,
    };
    let mut b = DqBlend::new();
    b.add(0.5, &a);
    b.add(0.5, &neg);
    let r = b.finish();
    assert!(
        (r.real - a.real).length() < 1e-6,
        "antipodal copies must not cancel"
    );
    assert!((r.translation() - t.translation).length() < 1e-6);

    // Two rotations about Y through the origin, 50/50: DQS rotates by the mean angle and keeps
    // the distance to the axis (LBS would shrink it by cos(45°)).
    let y0 = DualQuat::from_transform(&QuatTransform {
        rotation: Vec4::W,
        translation: Vec3::ZERO,
        scale: 1.0,
    });
    let y90 = DualQuat::from_transform(&QuatTransform {
        rotation: Vec4::from(Quat::from_rotation_y(std::f32::consts::FRAC_PI_2)),
        translation: Vec3::ZERO,
        scale: 1.0,
    });
    let mut b = DqBlend::new();
    b.add(0.5, &y0);
    b.add(0.5, &y90);
    let p = b.finish().transform_point(Vec3::X);
    let want = Quat::from_rotation_y(std::f32::consts::FRAC_PI_4) * Vec3::X;
    assert!((p - want).length() < 1e-6, "{p} vs {want}");
    // Matrix form agrees with the point form.
    let mm = b.finish().to_matrix();
    assert!(
        (mm.transform_point3(Vec3::new(0.3, 1.0, -2.0))
            - b.finish().transform_point(Vec3::new(0.3, 1.0, -2.0)))
        .length()
            < 1e-6
    );
}

#[test]
fn dual_quaternion_frames_interpolate_rigidly() {
    let asset = asset_with(Encoding::QuatF32);
    let layers = [Layer {
        weight: 1.0,
        frac: 0.5,
        row: 2.0,
        clip: 0,
    }];
    let dq = blended_dual_quat(&asset.bone_texture, &asset.clips, &layers, 0).unwrap();
    assert!((dq.real.length() - 1.0).abs() < 1e-6);
    // The blended transform's linear part is a rotation times the mean scale.
    let a = quat_texels(&asset.bone_texture, 0, 2).unwrap();
    let b = quat_texels(&asset.bone_texture, 0, 3).unwrap();
    assert!((dq.scale - 0.5 * (a.scale + b.scale)).abs() < 1e-6);
    let m = dq.to_matrix();
    let l = glam::Mat3::from_mat4(m) / dq.scale;
    assert!((l * l.transpose() - glam::Mat3::IDENTITY).abs_diff_eq(glam::Mat3::ZERO, 1e-5));
}

#[test]
fn anchors_blend_like_skin_matrices() {
    let asset = asset_with(Encoding::Mat4F32);
    let at = asset.anchors.as_ref().unwrap();
    let layers = [Layer {
        weight: 1.0,
        frac: 0.25,
        row: 1.0,
        clip: 0,
    }];
    let got = blended_anchor_matrix(&asset, 1, &layers).unwrap().unwrap();
    let want = at.matrix(1, 1) * 0.75 + at.matrix(1, 2) * 0.25;
    assert!(max_abs_diff(&got, &want) < 1e-6);
    assert_eq!(blended_anchor_matrix(&asset, 5, &layers).unwrap(), None);
    let _ = DVec3::ZERO;
}

#[test]
fn dual_quaternion_then_is_the_matrix_product() {
    // Two scaled rigid transforms; `b.then(x)` must equal B · X (X applied first), scales too.
    let dq = |axis: Vec3, angle: f32, t: Vec3, s: f32| {
        DualQuat::from_transform(&QuatTransform {
            rotation: Vec4::from(Quat::from_axis_angle(axis.normalize(), angle).to_array()),
            translation: t,
            scale: s,
        })
    };
    let b = dq(
        Vec3::new(1.0, 2.0, 0.5),
        0.7,
        Vec3::new(0.3, -1.2, 2.0),
        1.5,
    );
    let x = dq(
        Vec3::new(-0.4, 0.1, 1.0),
        -1.1,
        Vec3::new(-0.8, 0.25, 0.6),
        0.8,
    );
    let got = b.then(&x).to_matrix();
    let want = b.to_matrix() * x.to_matrix();
    assert!(max_abs_diff(&got, &want) < 1e-5, "{got} vs {want}");
}
