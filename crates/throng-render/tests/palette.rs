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

mod common;

use glam::{Mat4, Vec3, Vec4};
use throng_asset::decode::{blended_dual_quat, blended_skin_matrix};
use throng_asset::{Encoding, Layer};
use throng_render::compute::layers_on_gpu;
use throng_render::gpu_types::{single_layer, PaletteEntry};
use throng_render::{
    Crowd, InstanceRecord, InstanceTransform, Playback, RenderOptions, Renderer, Skinning,
};
use throng_runtime::{GpuRuntime, PlayOptions};

const TOLERANCE: f32 = 1e-5;

fn records() -> Vec<InstanceRecord> {
    let l = |weight, frac, row: u32, clip: u32| Layer {
        weight,
        frac,
        row: row as f32,
        clip: clip as f32,
    };
    vec![
        // Crossfade: clip a at row 2 + 0.3, clip b at row 6 + 0.65.
        InstanceRecord {
            layers: [
                l(0.7, 0.3, 2, 0),
                l(0.3, 0.65, 6, 1),
                Layer::default(),
                Layer::default(),
            ],
        },
        // Two layers in slots 1 and 3, one on a clip's last row (next clamps to it).
        InstanceRecord {
            layers: [
                Layer::default(),
                l(0.45, 0.8, 4, 0),
                Layer::default(),
                l(0.55, 0.25, 7, 1),
            ],
        },
        single_layer(5, 0.5, 1),
        // Disabled: the rest row.
        InstanceRecord::default(),
    ]
}

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
            let m = blended_skin_matrix(&asset.bone_texture, &asset.clips, layers, entry)
                .expect("cpu decoder");
            [a, b, c]
                .iter()
                .enumerate()
                .map(|(r, g)| (*g - row(&m, r)).abs().max_element())
                .fold(0.0, f32::max)
        }
        Skinning::DualQuat => {
            let want = blended_dual_quat(&asset.bone_texture, &asset.clips, layers, entry)
                .expect("cpu decoder");
            let len = a.length();
            assert!(len > 0.0, "entry {entry}: zero real part");
            let real = (a / len - want.real).abs().max_element();
            let dual = (b / len - want.dual).abs().max_element();
            real.max(dual).max((c.x - want.scale).abs())
        }
    }
}

/// Checks every written entry of `playback` against the CPU decoder fed `layers` (per instance,
/// the layers the GPU plays); returns the worst error.
fn check(
    r: &mut Renderer,
    asset: &throng_asset::BakedAsset,
    playback: Playback,
    layers: &[InstanceRecord],
    (skinning, cull): (Skinning, bool),
) -> f32 {
    let g = r.upload(asset).expect("upload");
    let t = transforms(layers.len());
    let crowd = Crowd {
        asset: &g,
        transforms: &t,
        playback,
        props: &[],
        live: &[],
    };
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

#[test]
fn palette_buffer_equals_the_cpu_decoder_for_every_encoding() {
    let Some(mut r) = common::renderer() else {
        return;
    };
    let recs = records();
    for encoding in Encoding::ALL {
        let (asset, _) = common::random_asset(encoding, 8, 11);
        for skinning in Skinning::ALL {
            if skinning == Skinning::DualQuat && !encoding.is_quat() {
                continue;
            }
            for cull in [false, true] {
                let worst = check(
                    &mut r,
                    &asset,
                    Playback::Cpu(&recs),
                    &recs,
                    (skinning, cull),
                );
                eprintln!(
                    "{} {skinning:?} cull={cull}: worst {worst:.2e}",
                    encoding.as_str()
                );
            }
        }
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
        rt.play(h, i % 2, opts).expect("play");
        handles.push(h);
    }
    rt.update(0.21);
    rt.crossfade(handles[2], 1, 0.25).expect("crossfade");
    rt.blend(handles[4], 0, 1, 0.35).expect("blend");
    rt.update(0.1);
    let records = rt.collect_records();
    let play = Playback::Gpu {
        records: &records,
        clock: rt.gpu_clock(),
    };
    let g = r.upload(&asset).expect("upload");
    // The layers the GPU derives (tested against the runtime's twin in gpu_timed.rs).
    let layers = layers_on_gpu(&r.gpu, &g, play).expect("gpu layers");
    assert!(
        layers.iter().any(|l| l.layers[1].weight > 0.0),
        "a two-layer instance"
    );
    for skinning in Skinning::ALL {
        for cull in [false, true] {
            check(&mut r, &asset, play, &layers, (skinning, cull));
        }
    }
}
