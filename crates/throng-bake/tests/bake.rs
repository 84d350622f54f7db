//! Bake contracts of docs/design.md §3, checked against independent computations.

mod common;

use glam::{Mat4, Vec3};
use std::collections::HashSet;
use throng_anim::{binding_influences, binding_matrices, skin_lbs, BindingKind, Poser};
use throng_asset::decode::skin_matrix;
use throng_asset::{Aabb, Encoding};
use throng_bake::{bake, BakeError, BakeOptions, Sampling};

/// Uniform 30 fps rows: these tests check the uniform frame table of docs/design.md §3 (the
/// error-budgeted default has its own tests in budget.rs).
fn opts(encoding: Encoding) -> BakeOptions {
    BakeOptions {
        source_name: "test".into(),
        encoding,
        sampling: Sampling::Fixed(30.0),
        ..Default::default()
    }
}

fn import(name: &str) -> Option<throng_anim::Model> {
    let p = throng_testdata::asset(name)?;
    Some(throng_gltf::import(&p).unwrap_or_else(|e| panic!("{name}: {e}")))
}

#[test]
fn frame_table_follows_the_formula_and_rows_hold_the_sampled_matrices() {
    let mut model = common::two_joint_rig(0.7, None);
    // A zero-length clip: one frame.
    let mut still = model.clips[0].clone();
    still.name = "still".into();
    still.duration = 0.0;
    for ch in &mut still.channels {
        ch.times = vec![0.0; 1];
        if let throng_anim::ChannelValues::Rotation(v) = &mut ch.values {
            v.truncate(1);
        }
    }
    model.clips.push(still);
    let (asset, report) = bake(&model, &opts(Encoding::Mat4F32)).expect("bake");
    let c = &asset.clips[0];
    // floor(0.7 · 30 + 1e-3) + 1 = 22 frames, first row 1 (row 0 = rest).
    assert_eq!((c.first_row, c.frames), (1, 22));
    assert_eq!(c.fps, 30.0);
    assert!((c.step - 0.7f32 as f64 / 21.0).abs() < 1e-15);
    assert_eq!((asset.clips[1].first_row, asset.clips[1].frames), (23, 1));
    assert_eq!(asset.rows(), 24);
    assert_eq!(report.rows, 24);
    assert_eq!(asset.row_bounds.len(), 24);
    // Row 1 + k holds S_j at t_k = k · d / 21, computed here independently.
    let mut poser = Poser::new(&model);
    let d = model.clips[0].duration as f64;
    for k in 0..22u32 {
        let t = if k == 21 { d } else { k as f64 * d / 21.0 };
        let ms = poser.pose(&model, Some(0), t as f32);
        for (j, &node) in model.skins[0].joints.iter().enumerate() {
            let expect = ms[node] * model.skins[0].inverse_bind_matrices[j];
            let got = skin_matrix(&asset.bone_texture, j as u32, 1 + k).expect("decode");
            assert!(got.abs_diff_eq(expect, 1e-6), "row {} entry {j}", 1 + k);
        }
    }
    // Row 0 is the rest pose: the tip is unrotated, so S_tip = identity.
    let rest = skin_matrix(&asset.bone_texture, 1, 0).expect("decode");
    assert!(rest.abs_diff_eq(Mat4::IDENTITY, 1e-6));
}

#[test]
fn auto_fps_follows_the_source_keys() {
    let Some(model) = import("Fox.glb") else {
        return;
    };
    let o = BakeOptions {
        sampling: Sampling::SourceKeys,
        ..opts(Encoding::QuatSnorm16)
    };
    let (asset, report) = bake(&model, &o).expect("bake");
    for ((c, r), src) in asset.clips.iter().zip(&report.clips).zip(&model.clips) {
        // Fox's keys are 1/24 s apart, but Walk and Run end with a longer gap: every key time
        // is a frame, and no gap is longer than 1/24 s.
        assert_eq!(r.key_rate, Some(24.0), "{}", c.name);
        let times: Vec<f64> = (0..c.frames).map(|k| c.frame_time(k)).collect();
        for ch in &src.channels {
            for &t in &ch.times {
                if t > 0.0 && (t as f64) < c.duration {
                    assert!(
                        times.iter().any(|&f| (f - t as f64).abs() <= 1e-6),
                        "{}: key {t} s is not a frame",
                        c.name
                    );
                }
            }
        }
        assert!(
            times
                .windows(2)
                .all(|w| w[1] > w[0] && w[1] - w[0] <= 1.0 / 24.0 + 1e-6),
            "{}: {times:?}",
            c.name
        );
        assert_eq!((times[0], *times.last().unwrap()), (0.0, c.duration));
    }
    assert!(
        asset.clips.iter().any(|c| c.times.is_some()),
        "an irregular clip is listed"
    );
    assert_eq!(asset.settings.fps, "auto");
}

/// Distinct (node, inverse bind matrix bits) pairs of every skin, computed directly.
fn distinct_pairs(model: &throng_anim::Model) -> usize {
    let mut set = HashSet::new();
    for s in &model.skins {
        for (j, &n) in s.joints.iter().enumerate() {
            set.insert((
                n,
                s.inverse_bind_matrices[j].to_cols_array().map(f32::to_bits),
            ));
        }
    }
    set.len()
}

/// Every baked vertex's strongest influence is the node of the source's strongest joint.
fn check_remap(model: &throng_anim::Model, asset: &throng_asset::BakedAsset) {
    let bindings = model.mesh_bindings();
    for bp in &asset.primitives {
        let b = bindings
            .iter()
            .find(|b| b.node == bp.node_index && b.mesh == bp.mesh)
            .expect("binding");
        let prim = &model.meshes[b.mesh].primitives[bp.primitive];
        let (infl, _) = binding_influences(b, prim);
        let k = bp.influences as usize;
        for v in 0..bp.vertex_count() {
            let (j, w) = infl
                .of(v)
                .fold((0u16, -1.0f32), |a, x| if x.1 > a.1 { x } else { a });
            let src_node = match b.kind {
                BindingKind::Skinned { skin } => model.skins[skin].joints[j as usize],
                BindingKind::Rigid => b.node,
            };
            let baked_node = asset.palette[bp.joints[v * k] as usize].node;
            // Ties between equal weights may pick either joint.
            if infl.of(v).filter(|x| x.1 == w).count() == 1 {
                assert_eq!(baked_node, src_node, "vertex {v}");
            }
        }
    }
}

#[test]
fn skins_that_share_joints_share_palette_entries() {
    let Some(model) = import("Quaternius_Enemy.glb") else {
        return;
    };
    assert_eq!(model.skins.len(), 3);
    let (asset, report) = bake(&model, &opts(Encoding::QuatSnorm16)).expect("bake");
    let rigid = model
        .mesh_bindings()
        .iter()
        .filter(|b| b.kind == BindingKind::Rigid)
        .count();
    // 3 skins × 7 shared joints → 7 entries, plus one per rigid part node.
    assert_eq!(distinct_pairs(&model), 7);
    assert_eq!(report.palette_size, 7 + rigid);
    assert_eq!(report.rigid_entries, rigid);
    check_remap(&model, &asset);
}

#[test]
fn a_mesh_bound_through_84_nodes_becomes_84_primitives() {
    let Some(model) = import("RecursiveSkeletons.glb") else {
        return;
    };
    let (asset, report) = bake(&model, &opts(Encoding::QuatSnorm16)).expect("bake");
    assert_eq!(report.primitives, 84);
    let nodes: HashSet<usize> = asset.primitives.iter().map(|p| p.node_index).collect();
    assert_eq!(nodes.len(), 84);
    assert_eq!(report.palette_size, distinct_pairs(&model));
    check_remap(&model, &asset);
}

#[test]
fn rigid_parts_are_bound_to_their_own_node() {
    let Some(model) = import("kenney/character.glb") else {
        return;
    };
    let (asset, report) = bake(&model, &opts(Encoding::QuatF32)).expect("bake");
    assert!(report.primitives > 0);
    assert_eq!(report.rigid_entries, report.palette_size);
    for p in &asset.primitives {
        assert!(p.rigid);
        let k = p.influences as usize;
        for v in 0..p.vertex_count() {
            let e = &asset.palette[p.joints[v * k] as usize];
            assert_eq!(e.node, p.node_index);
            assert_eq!(e.inverse_bind_matrix, Mat4::IDENTITY);
            assert_eq!(p.weights[v * k], 65535);
        }
    }
    for f in throng_bake::verify::verify(&asset, &model).expect("verify") {
        assert!(f.max_rel_samples <= 1e-5, "{f:?}");
    }
}

#[test]
fn weights_are_sorted_cut_and_sum_to_65535_exactly() {
    for (name, k) in [
        ("Fox.glb", 4),
        ("CesiumMan.glb", 4),
        ("derived/RiggedFigure_8infl.glb", 4),
        ("derived/RiggedFigure_8infl.glb", 8),
    ] {
        let Some(model) = import(name) else { return };
        let o = BakeOptions {
            influences: k,
            ..opts(Encoding::QuatSnorm16)
        };
        let (asset, report) = bake(&model, &o).expect("bake");
        let most = model
            .meshes
            .iter()
            .flat_map(|m| &m.primitives)
            .map(|p| p.max_influences())
            .max()
            .unwrap_or(0);
        for p in &asset.primitives {
            assert_eq!(p.influences, k);
            for v in 0..p.vertex_count() {
                let w = &p.weights[v * k as usize..(v + 1) * k as usize];
                assert_eq!(w.iter().map(|&x| x as u32).sum::<u32>(), 65535, "{name}");
                assert!(w.windows(2).all(|x| x[0] >= x[1]), "{name}: {w:?}");
            }
        }
        if most > k as usize {
            assert!(report.vertices_lost_weight > 0 && report.max_dropped_weight > 0.0);
            assert!(report
                .warnings
                .iter()
                .any(|w| w.contains("largest weight dropped")));
        } else {
            assert_eq!(report.vertices_lost_weight, 0, "{name} K={k}");
            assert_eq!(report.max_dropped_weight, 0.0);
        }
    }
}

#[test]
fn non_uniform_scale_falls_back_naming_entry_and_frame() {
    // The tip joint scales to (1, 2, 1) at t = 0.5 s: frame 1 (t = 1/30 s) is the first whose
    // S_tip has column norms (1, 1.0667, 1).
    let model = common::two_joint_rig(1.0, Some(Vec3::new(1.0, 2.0, 1.0)));
    // each to the affine rows of its own precision
    for (enc, used) in [
        (Encoding::QuatSnorm16, Encoding::Mat3x4Snorm16),
        (Encoding::QuatF32, Encoding::Mat3x4F32),
    ] {
        let (asset, report) = bake(&model, &opts(enc)).expect("bake");
        assert_eq!(asset.bone_texture.encoding, used);
        assert_eq!(asset.settings.requested_encoding, enc);
        let f = report.fallback.expect("fallback reported");
        assert_eq!(
            (f.entry, f.node_name.as_str(), f.clip.as_str(), f.frame),
            (1, "tip", "bend", 1)
        );
        assert!(report
            .warnings
            .iter()
            .any(|w| w.contains("'tip'") && w.contains("frame 1")));
        let strict = BakeOptions {
            strict: true,
            ..opts(enc)
        };
        match bake(&model, &strict) {
            Err(
                e @ BakeError::EncodingUnsupported {
                    entry: 1, frame: 1, ..
                },
            ) => {
                let msg = e.to_string();
                assert!(msg.contains("'tip'") && msg.contains("frame 1"), "{msg}");
            }
            other => panic!("expected EncodingUnsupported, got {other:?}"),
        }
    }
    // Uniform scale is fine for quat encodings.
    let model = common::two_joint_rig(1.0, Some(Vec3::splat(1.5)));
    let (_, report) = bake(&model, &opts(Encoding::QuatSnorm16)).expect("bake");
    assert_eq!(report.encoding, Encoding::QuatSnorm16);
    assert!(report.fallback.is_none());
}

#[test]
fn the_16_bit_fallback_holds_the_scaled_joint() {
    // quat-snorm16's fallback, mat3x4-snorm16, against quat-f32's, mat3x4-f32 (f32 as sampled):
    // every skin matrix of every row within half a snorm16 step of its range per entry
    // (ranges: the largest |linear entry|, the largest |translation|), so the stretched tip is
    // drawn as sampled.
    let model = common::two_joint_rig(1.0, Some(Vec3::new(1.0, 2.0, 1.0)));
    let (s16, _) = bake(&model, &opts(Encoding::QuatSnorm16)).expect("bake");
    let (f32s, _) = bake(&model, &opts(Encoding::QuatF32)).expect("bake");
    let (a, b) = (&s16.bone_texture, &f32s.bone_texture);
    assert_eq!(a.encoding, Encoding::Mat3x4Snorm16);
    // the stretch takes linear entries past 1
    assert!(a.scale_range > 1.0, "{}", a.scale_range);
    let step = |range: f32| 0.5 * range / 32767.0 * 1.001;
    for row in 0..a.rows {
        for e in 0..a.entries {
            let (x, y) = (
                throng_asset::decode::skin_matrix(a, e, row).unwrap(),
                throng_asset::decode::skin_matrix(b, e, row).unwrap(),
            );
            for c in 0..3 {
                let d = (x.col(c) - y.col(c)).abs().max_element();
                assert!(
                    d <= step(a.scale_range),
                    "row {row} entry {e} column {c}: {d}"
                );
            }
            let d = (x.col(3) - y.col(3)).abs().max_element();
            assert!(
                d <= step(a.translation_range),
                "row {row} entry {e} translation: {d}"
            );
        }
    }
}

#[test]
fn rows_continue_in_layers_and_wide_rows_are_an_error() {
    let model = common::two_joint_rig(10.0, None);
    let o = BakeOptions {
        max_texture_size: 64,
        ..opts(Encoding::QuatF32)
    };
    let (asset, report) = bake(&model, &o).expect("bake");
    // 1 + floor(10 · 30 + 1e-3) + 1 = 302 rows → 5 layers of 64; nothing truncated.
    assert_eq!(asset.rows(), 302);
    assert_eq!((asset.bone_texture.rows_per_layer, report.layers), (64, 5));
    assert_eq!(asset.bone_texture.data.len(), 302 * 2 * 2 * 16);
    let last = skin_matrix(&asset.bone_texture, 1, 301).expect("decode");
    let ms = Poser::new(&model).pose(&model, Some(0), 10.0).to_vec();
    let expect = ms[1] * model.skins[0].inverse_bind_matrices[1];
    assert!(last.abs_diff_eq(expect, 1e-5));

    let o = BakeOptions {
        max_texture_size: 7,
        ..opts(Encoding::Mat4F32)
    };
    match bake(&model, &o) {
        Err(
            e @ BakeError::TextureTooWide {
                entries: 2,
                width: 8,
                max: 7,
                ..
            },
        ) => {
            let msg = e.to_string();
            assert!(
                msg.contains("2 palette entries") && msg.contains("mat4-f32"),
                "{msg}"
            );
        }
        other => panic!("expected TextureTooWide, got {other:?}"),
    }
}

#[test]
fn typed_errors_for_nothing_to_animate_nan_and_bad_settings() {
    if let Some(model) = import("Box.glb") {
        assert!(matches!(
            bake(&model, &opts(Encoding::QuatSnorm16)),
            Err(BakeError::NothingToAnimate { .. })
        ));
    }
    let mut model = common::two_joint_rig(1.0, None);
    model.skins[0].inverse_bind_matrices[1].x_axis.x = f32::NAN;
    match bake(&model, &opts(Encoding::QuatSnorm16)) {
        Err(BakeError::NonFinite { entry: 1, node, .. }) => assert_eq!(node, "tip"),
        other => panic!("expected NonFinite, got {other:?}"),
    }
    let model = common::two_joint_rig(1.0, None);
    let o = BakeOptions {
        influences: 5,
        ..opts(Encoding::QuatSnorm16)
    };
    assert!(matches!(
        bake(&model, &o),
        Err(BakeError::InvalidOption { .. })
    ));
}

/// A sample rate over `MAX_FPS`, for the whole bake or one clip, is refused before any work
/// with the limit and what to do (a 100,000 fps bake once wrote 203 MB); the limit itself
/// bakes.
#[test]
fn sample_rates_over_the_limit_are_refused() {
    let model = common::two_joint_rig(1.0, None);
    let o = BakeOptions {
        sampling: Sampling::Fixed(100_000.0),
        ..opts(Encoding::QuatSnorm16)
    };
    match bake(&model, &o) {
        Err(e @ BakeError::FpsTooHigh { .. }) => {
            let msg = e.to_string();
            assert!(
                msg.starts_with("test: the bake asks for 100000 frames per second")
                    && msg.contains("limit of 1000")
                    && msg.contains("sample at 1000 fps or less"),
                "{msg}"
            );
        }
        other => panic!("expected FpsTooHigh, got {other:?}"),
    }
    let mut o = opts(Encoding::QuatSnorm16);
    let clip = model.clips[0].name.clone();
    o.clip_settings.entry(clip.clone()).or_default().fps = Some(1000.5);
    match bake(&model, &o) {
        Err(e @ BakeError::FpsTooHigh { .. }) => {
            assert!(
                e.to_string()
                    .contains(&format!("clip '{clip}' asks for 1000.5")),
                "{e}"
            )
        }
        other => panic!("expected FpsTooHigh, got {other:?}"),
    }
    let o = BakeOptions {
        sampling: Sampling::Fixed(throng_bake::MAX_FPS),
        ..opts(Encoding::QuatSnorm16)
    };
    let (asset, _) = bake(&model, &o).expect("the limit itself bakes");
    // The rest row, then 1 + 1 s · 1000 frames.
    assert_eq!(asset.rows(), 1002);
}

#[test]
fn row_bounds_are_the_reference_skinned_aabb() {
    let Some(model) = import("CesiumMan.glb") else {
        return;
    };
    let (asset, _) = bake(&model, &opts(Encoding::QuatSnorm16)).expect("bake");
    let diag = asset.clips[0].bounds.diagonal();
    let mut poser = Poser::new(&model);
    let c = &asset.clips[0];
    let mut union = Aabb::EMPTY;
    for k in 0..c.frames as u64 {
        let t = throng_bake::frames::frame_time(k, c.frames as u64, c.duration);
        let ms = poser.pose(&model, Some(0), t as f32).to_vec();
        let mut bb = Aabb::EMPTY;
        for b in model.mesh_bindings() {
            let mut mats = Vec::new();
            binding_matrices(&model, &b, &ms, &mut mats);
            for prim in &model.meshes[b.mesh].primitives {
                let (infl, _) = binding_influences(&b, prim);
                let mut out = Default::default();
                skin_lbs(prim, &infl, &mats, &mut out);
                for p in out.positions {
                    bb.extend(p);
                }
            }
        }
        let got = asset.row_bounds[(c.first_row as u64 + k) as usize];
        assert!(
            (got.min - bb.min).abs().max_element() <= 1e-6 * diag,
            "row {k}"
        );
        assert!(
            (got.max - bb.max).abs().max_element() <= 1e-6 * diag,
            "row {k}"
        );
        union = union.union(&got);
    }
    assert_eq!(union, c.bounds);
}

#[test]
fn same_input_gives_identical_output_whatever_the_thread_count() {
    let Some(model) = import("Fox.glb") else {
        return;
    };
    let o = opts(Encoding::QuatSnorm16);
    let (a, _) = bake(&model, &o).expect("bake");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    let (b, _) = pool.install(|| bake(&model, &o)).expect("bake");
    assert_eq!(a, b);
    let (x, y) = (
        throng_asset::to_glb_bytes(&a).expect("write"),
        throng_asset::to_glb_bytes(&b).expect("write"),
    );
    assert!(x == y, "baked bytes differ");
}

#[test]
fn verify_measures_the_analytic_mid_sample_error() {
    // The tip turns 1.6 rad/s about Z around its pivot (0, 1, 0). At 30 fps neighbouring rows
    // differ by Δ = 1.6/30 rad; halfway, the lerp of two rotation matrices puts a vertex at
    // distance r from the pivot at r·cos(Δ/2) instead of r: error r·(1 − cos(Δ/2)). The
    // farthest tip-only vertex, (±0.1, 2, 0), has r = √(0.1² + 1²).
    let model = common::two_joint_rig(1.0, None);
    let (asset, _) = bake(&model, &opts(Encoding::Mat4F32)).expect("bake");
    let f = &throng_bake::verify::verify(&asset, &model).expect("verify")[0];
    let r = (0.01f64 + 1.0).sqrt();
    let expect = r * (1.0 - (1.6f64 / 30.0 / 2.0).cos());
    assert!(
        (f.max_abs_mid - expect).abs() <= 1e-6,
        "{} vs {expect}",
        f.max_abs_mid
    );
    // At samples only rounding remains: f32, and the unorm16 weights of the half/half vertex
    // (32768/32767 instead of ½/½: ½/65535 of the distance between its two joints' images).
    assert!(f.max_rel_samples <= 1e-6, "{}", f.max_rel_samples);
    // Relative errors divide by the diagonal at each time, never more than the largest one.
    assert!(f.max_rel_mid >= f.max_abs_mid / f.diagonal * (1.0 - 1e-9));

    // A translation keyed linearly on the sample grid lerps exactly: mid-samples add nothing to
    // the rounding seen at samples (here the unorm16 weights: ½/65535 of the up to 1 unit
    // between the half/half vertex's two joint images).
    let mut model = common::two_joint_rig(1.0, None);
    let up = Vec3::Y;
    model.clips[0].channels[0].values =
        throng_anim::ChannelValues::Translation(vec![up, up + Vec3::X, up]);
    let (asset, _) = bake(&model, &opts(Encoding::Mat4F32)).expect("bake");
    let f = &throng_bake::verify::verify(&asset, &model).expect("verify")[0];
    assert!(f.max_rel_samples <= 5e-6, "{f:?}");
    assert!(f.max_abs_mid <= f.max_abs_samples + 1e-6, "{f:?}");
}

#[test]
fn quaternions_stay_in_the_previous_frames_hemisphere() {
    let Some(model) = import("Fox.glb") else {
        return;
    };
    let (asset, _) = bake(&model, &opts(Encoding::QuatF32)).expect("bake");
    let tex = &asset.bone_texture;
    for c in &asset.clips {
        for row in c.first_row + 1..c.first_row + c.frames {
            for e in 0..tex.entries {
                let a = throng_asset::decode::fetch_texel(tex, 2 * e, row - 1).expect("texel");
                let b = throng_asset::decode::fetch_texel(tex, 2 * e, row).expect("texel");
                assert!(a.dot(b) >= 0.0, "clip {} row {row} entry {e}", c.name);
                assert!((b.length() - 1.0).abs() < 1e-5);
            }
        }
    }
}

/// The source's metallic and roughness factors reach the baked file's standard glTF part
/// (issue 52, item 7: Quaternius' 0.4 / 0.415 used to become 0 / 1), and read back.
#[test]
fn metallic_and_roughness_factors_survive_the_bake() {
    let Some(model) = import("Quaternius_Enemy.glb") else {
        return;
    };
    let src = &model.materials[0];
    assert!((src.metallic_factor - 0.4).abs() < 1e-6, "{src:?}");
    assert!((src.roughness_factor - 0.415_087).abs() < 1e-5, "{src:?}");
    let (asset, _) = bake(&model, &opts(Encoding::QuatSnorm16)).expect("bake");
    let bytes = throng_asset::to_glb_bytes(&asset).expect("write");
    let back = throng_asset::from_glb_bytes(&bytes, "enemy.glb").expect("read back");
    assert!(!back.materials.is_empty());
    for m in &back.materials {
        assert_eq!(
            (m.metallic_factor, m.roughness_factor),
            (src.metallic_factor, src.roughness_factor),
            "{m:?}"
        );
    }
}
