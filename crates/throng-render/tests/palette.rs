//! The palette path's buffer (docs/design.md §5 "Skinning paths"), read back after the palette
//! pass on whatever adapter wgpu finds (lavapipe without a GPU), against throng-asset's CPU
//! decoder — the CPU twin the texture path's tests already trust — for every encoding, with
//! crossfades over two layers, fractional frames, a disabled instance, LBS for all encodings and
//! dual quaternions for the quat-* ones, CPU- and GPU-timed, culled and not.
//!
//! LBS: every entry's 3×4 affine equals `blended_skin_matrix` within 1e-5 per component (the
//! poses' rotations, scales ≤ 1.25 and translations ≤ 0.8 keep components within ±2; both sides
//! run the same f32 operations on the same decoded bits, so only fused multiply-adds differ).
//! DQ: the stored blend, normalised by |Σ real|, equals `blended_dual_quat` within 1e-5.
//! Layer masks (hard and soft) and additive layers (docs/design.md §4): LBS entries equal
//! `masked_skin_matrix` within the same 1e-5, CPU- and GPU-timed (`play_layer`).

mod common;

use glam::{Mat4, Vec3, Vec4};
use throng_asset::decode::{blended_dual_quat, masked_dual_quat, masked_skin_matrix, DualQuat};
use throng_asset::{Encoding, Layer};
use throng_render::compute::layers_on_gpu;
use throng_render::gpu_types::PaletteEntry;
use throng_render::{
    Crowd, InstanceRecord, InstanceTransform, Playback, Records, RenderOptions, Renderer, Skinning,
};
use throng_runtime::PlaybackControl;
use throng_runtime::{ClipId, GpuInstanceRecord, GpuRuntime, PlayOptions};

const TOLERANCE: f32 = 1e-5;

/// Instances side by side in front of the framing camera (so culling keeps them all).
fn transforms(n: usize) -> Vec<InstanceTransform> {
    (0..n)
        .map(|i| InstanceTransform::from_mat4(&Mat4::from_translation(Vec3::X * 3.0 * i as f32)))
        .collect()
}

/// Row r of the affine part of a column-major matrix.
fn row(m: &Mat4, r: usize) -> Vec4 {
    Vec4::new(m.x_axis[r], m.y_axis[r], m.z_axis[r], m.w_axis[r])
}

/// The largest difference of one entry against the CPU decoder.
fn entry_error(
    asset: &throng_asset::BakedAsset,
    layers: &[Layer],
    entry: u32,
    got: &PaletteEntry,
    skinning: Skinning,
) -> f32 {
    let (a, b, c) = (Vec4::from(got.a), Vec4::from(got.b), Vec4::from(got.c));
    match skinning {
        Skinning::Linear => {
            // the palette path's pose: base layers, then masked and additive overlays
            let m = masked_skin_matrix(asset, layers, entry).expect("cpu decoder");
            [a, b, c]
                .iter()
                .enumerate()
                .map(|(r, g)| (*g - row(&m, r)).abs().max_element())
                .fold(0.0, f32::max)
        }
        Skinning::DualQuat => {
            // the palette path's pose under DQ: base layers, then masked and additive overlays
            let sum = masked_dual_quat(asset, layers, entry).expect("cpu decoder");
            let n = sum.real.length();
            let want = DualQuat {
                real: sum.real / n,
                dual: sum.dual / n,
                scale: sum.scale,
            };
            let len = a.length();
            assert!(len > 0.0, "entry {entry}: zero real part");
            let real = (a / len - want.real).abs().max_element();
            let dual = (b / len - want.dual).abs().max_element();
            real.max(dual).max((c.x - want.scale).abs())
        }
    }
}

/// Checks every written entry of `playback`, culled and not, against the CPU decoder fed
/// `layers` (per instance, the layers the GPU plays); returns the worst error.
fn check(
    r: &mut Renderer,
    asset: &throng_asset::BakedAsset,
    playback: Playback,
    layers: &[InstanceRecord],
    skinning: Skinning,
) -> f32 {
    [false, true]
        .into_iter()
        .map(|cull| check_pass(r, asset, playback, layers, (skinning, cull)))
        .fold(0.0, f32::max)
}

/// [`check`] of one pass, culled or not.
fn check_pass(
    r: &mut Renderer,
    asset: &throng_asset::BakedAsset,
    playback: Playback,
    layers: &[InstanceRecord],
    (skinning, cull): (Skinning, bool),
) -> f32 {
    let g = r.upload(asset).expect("upload");
    let t = transforms(layers.len());
    let crowd = Crowd::new(&g, &t, playback);
    let opts = RenderOptions {
        skinning,
        cull,
        ..Default::default()
    };
    let p = r.palettes(&crowd, &opts).expect("palette pass");
    let all: Vec<u32> = (0..layers.len() as u32).collect();
    assert_eq!(p.written, all, "every instance is in view and written");
    let entries = p.entries_per_instance;
    assert_eq!(entries as usize, asset.palette.len());
    let mut worst = 0.0f32;
    for (i, rec) in layers.iter().enumerate() {
        for e in 0..entries {
            let got = &p.entries[i * entries as usize + e as usize];
            let err = entry_error(asset, &rec.layers, e, got, skinning);
            assert!(
                err <= TOLERANCE,
                "{} {skinning:?} cull={cull} instance {i} entry {e}: off by {err:.2e}: {got:?}",
                asset.source_name
            );
            worst = worst.max(err);
        }
    }
    worst
}

/// [`check`] of CPU-timed test records on `asset` under every skinning its encoding takes.
fn check_every_skinning(r: &mut Renderer, asset: &throng_asset::BakedAsset, what: &str) {
    let recs = common::test_records();
    for skinning in Skinning::ALL {
        if skinning == Skinning::DualQuat && !asset.bone_texture.encoding.is_quat() {
            continue;
        }
        let worst = check(
            r,
            asset,
            Playback::Records(Records::Cpu(&recs)),
            &recs,
            skinning,
        );
        eprintln!(
            "{what} {} {skinning:?}: worst {worst:.2e}",
            asset.bone_texture.encoding.as_str()
        );
    }
}

#[test]
fn palette_buffer_equals_the_cpu_decoder_for_every_encoding() {
    let Some(mut r) = common::renderer() else {
        return;
    };
    for encoding in Encoding::ALL {
        let (asset, _) = common::random_asset(encoding, 8, 11);
        check_every_skinning(&mut r, &asset, "linear");
    }
}

/// The palette pass on Catmull-Rom rows (four taps per layer; the first clip periodic) and on
/// degree-3 polynomial pieces against the CPU decoder, every encoding, LBS and (quat-*) DQ,
/// culled and not.
#[test]
fn cubic_rows_in_the_palette_equal_the_cpu_decoder() {
    let Some(mut r) = common::renderer() else {
        return;
    };
    for encoding in Encoding::ALL {
        let (asset, _) = common::random_asset(encoding, 4, 13);
        check_every_skinning(
            &mut r,
            &common::with_cubic_rows(asset.clone()),
            "catmull-rom",
        );
        check_every_skinning(&mut r, &common::with_piece_rows(asset), "pieces");
    }
}

#[test]
fn gpu_timed_palette_equals_the_cpu_decoder_of_the_gpu_layers() {
    let Some(mut r) = common::renderer() else {
        return;
    };
    let (asset, _) = common::random_asset(Encoding::QuatSnorm16, 4, 5);
    let mut rt = GpuRuntime::new(&asset.clips);
    let mut handles = vec![];
    for i in 0..9 {
        let h = rt.spawn(InstanceTransform::IDENTITY);
        let opts = PlayOptions::at(0.017 * i as f32).with_speed([1.0, 0.37, 2.5][i % 3]);
        rt.instance(h).play(ClipId::new(i % 2), opts).expect("play");
        handles.push(h);
    }
    rt.update(0.21);
    rt.instance(handles[2])
        .crossfade(ClipId::new(1), 0.25)
        .expect("crossfade");
    rt.instance(handles[4])
        .blend(ClipId::new(0), ClipId::new(1), 0.35)
        .expect("blend");
    rt.update(0.1);
    let (records, layers) = derived_layers(&r, &asset, &rt);
    let play = Playback::Records(Records::Gpu {
        records: &records,
        clock: rt.gpu_clock(),
    });
    assert!(
        layers.iter().any(|l| l.layers[1].weight > 0.0),
        "a two-layer instance"
    );
    for skinning in Skinning::ALL {
        check(&mut r, &asset, play, &layers, skinning);
    }
}

/// The runtime's GPU-timed records, and the layers the GPU derives from them (tested against
/// the runtime's twin in gpu_timed.rs).
fn derived_layers(
    r: &Renderer,
    asset: &throng_asset::BakedAsset,
    rt: &GpuRuntime,
) -> (Vec<GpuInstanceRecord>, Vec<InstanceRecord>) {
    let records = rt.collect_records();
    let play = Playback::Records(Records::Gpu {
        records: &records,
        clock: rt.gpu_clock(),
    });
    let g = r.upload(asset).expect("upload");
    let layers = layers_on_gpu(&r.gpu, &g, play).expect("gpu layers");
    (records, layers)
}

/// The random asset with two masks (a hard subtree-like one and a soft one) and clip "b"
/// additive (its random rows read as deltas: the blend's formula does not care).
fn masked_asset(encoding: Encoding) -> throng_asset::BakedAsset {
    let (mut asset, _) = common::random_asset(encoding, 4, 23);
    let mask = |name: &str, weights: Vec<f32>| throng_asset::LayerMask {
        name: name.into(),
        roots: vec![],
        weights,
    };
    asset.masks = vec![
        mask("hard", vec![1.0, 1.0, 0.0, 0.0, 1.0]),
        mask("soft", vec![0.25, 0.5, 0.75, 1.0, 0.0]),
    ];
    asset.clips[1].additive = Some(0.0);
    asset
}

/// The independent formula of docs/design.md §4 for one entry of a record of a base layer (clip
/// a, row `r0` + `f0`), an ordinary layer under mask `m` (clip a, row `r1` + `f1`, weight `w1`)
/// and an additive layer (clip b, row `r2` + `f2`, weight `w2`, no mask), in glam arithmetic:
/// `S = S0 + w1·m_j·(S1 − S0)`, then `S + w2·(S · Δ − S)`.
fn expected(asset: &throng_asset::BakedAsset, entry: u32, rec: &InstanceRecord) -> Mat4 {
    let tex = &asset.bone_texture;
    let at = |l: &Layer| {
        let row = l.row as u32;
        let next = (row + 1).min(if l.clip_index() == 0 { 4 } else { 8 });
        let a = throng_asset::decode::skin_matrix(tex, entry, row).expect("row");
        let b = throng_asset::decode::skin_matrix(tex, entry, next).expect("row");
        a * (1.0 - l.frac) + b * l.frac
    };
    let [base, over, add, _] = rec.layers;
    let mut s = at(&base);
    let m = asset.masks[over.mask() as usize - 1].weights[entry as usize];
    s = s + (at(&over) - s) * (over.weight * m);
    s + (s * at(&add) - s) * add.weight
}

#[test]
fn masked_and_additive_layers_equal_the_cpu_decoder_and_the_formula() {
    let Some(mut r) = common::renderer() else {
        return;
    };
    let asset = masked_asset(Encoding::Mat3x4F32);
    // A record of layers (weight, frac, row, clip, mask), the rest empty.
    let rec = |layers: &[(f32, f32, u32, u32, u32)]| {
        let mut r = InstanceRecord::default();
        for (l, &(weight, frac, row, clip, mask)) in r.layers.iter_mut().zip(layers) {
            *l = Layer {
                weight,
                frac,
                row: row as f32,
                clip,
            }
            .with_mask(mask);
        }
        r
    };
    let recs = vec![
        // base a, "hard" over it at 0.6, additive b at 0.8
        rec(&[
            (1.0, 0.3, 2, 0, 0),
            (0.6, 0.7, 3, 0, 1),
            (0.8, 0.4, 6, 1, 0),
        ]),
        // base a, "soft" at full weight, additive b at full weight on its last row
        rec(&[
            (1.0, 0.9, 1, 0, 0),
            (1.0, 0.0, 4, 0, 2),
            (1.0, 0.5, 8, 1, 0),
        ]),
        // overlays only: the rest row below them
        rec(&[(0.5, 0.5, 2, 0, 2), (0.7, 0.2, 5, 1, 0)]),
    ];
    // The decoder against the formula written out (independent of pose_matrix's code).
    for rec in &recs[..2] {
        for e in 0..5 {
            let got = masked_skin_matrix(&asset, &rec.layers, e).expect("decoder");
            let want = expected(&asset, e, rec);
            assert!(got.abs_diff_eq(want, 1e-5), "entry {e}: {got} vs {want}");
        }
    }
    let worst = check(
        &mut r,
        &asset,
        Playback::Records(Records::Cpu(&recs)),
        &recs,
        Skinning::Linear,
    );
    eprintln!("masks + additive: worst {worst:.2e}");
    // Dual quaternions: the same records on a quat-f32 asset against the DQ twin
    // (pose_dual_quat), whose composition of a delta is checked against the matrix product in
    // throng-asset's tests; without overlays the twin is the DQ blend the texture path uses.
    let dq_asset = masked_asset(Encoding::QuatF32);
    for rec in &recs {
        for e in 0..5 {
            // The record's base layers alone (overlays at weight 0).
            let overlay = |l: &Layer| {
                let clip = dq_asset.clips.get(l.clip_index() as usize);
                l.mask() != 0 || clip.is_some_and(|c| c.additive.is_some())
            };
            let plain = InstanceRecord {
                layers: rec.layers.map(|l| Layer {
                    weight: if overlay(&l) { 0.0 } else { l.weight },
                    ..l
                }),
            };
            let sum = masked_dual_quat(&dq_asset, &plain.layers, e).expect("twin");
            let base = blended_dual_quat(&dq_asset.bone_texture, &dq_asset.clips, &plain.layers, e)
                .expect("blend");
            let n = sum.real.length();
            assert!(
                (sum.real / n - base.real).abs().max_element() < 1e-5,
                "entry {e}"
            );
        }
    }
    let playback = Playback::Records(Records::Cpu(&recs));
    let worst = check(&mut r, &dq_asset, playback, &recs, Skinning::DualQuat);
    eprintln!("masks + additive under DQ: worst {worst:.2e}");
    // GPU-timed: play_layer puts the overlay in layer 1 with its mask; layer 0 keeps weight 1.
    let mut rt = GpuRuntime::new(&asset.clips);
    let mut handles = vec![];
    for i in 0..3 {
        let h = rt.spawn(InstanceTransform::IDENTITY);
        rt.instance(h)
            .play(ClipId::new(0), PlayOptions::at(0.05 * i as f32))
            .expect("play");
        handles.push(h);
    }
    rt.instance(handles[0])
        .layer(ClipId::new(0), 1, 0.6, PlayOptions::at(0.3))
        .expect("masked layer");
    rt.instance(handles[1])
        .layer(ClipId::new(1), 0, 0.75, PlayOptions::default())
        .expect("additive layer");
    rt.instance(handles[2])
        .layer(ClipId::new(1), 2, 1.0, PlayOptions::at(0.1))
        .expect("masked additive layer");
    assert!(rt
        .instance(handles[2])
        .layer(ClipId::new(0), 0, 1.0, PlayOptions::default())
        .is_err());
    rt.update(0.13);
    let (records, layers) = derived_layers(&r, &asset, &rt);
    let play = Playback::Records(Records::Gpu {
        records: &records,
        clock: rt.gpu_clock(),
    });
    for (i, rec) in layers.iter().enumerate() {
        assert_eq!(
            rec.layers[0].weight, 1.0,
            "instance {i}: the base keeps its weight"
        );
        assert!(rec.layers[1].weight > 0.5, "instance {i}: {rec:?}");
    }
    assert_eq!(layers[0].layers[1].mask(), 1);
    assert_eq!(layers[2].layers[1].mask(), 2);
    check(&mut r, &asset, play, &layers, Skinning::Linear);
}
