//! Props on anchors (docs/design.md §5 "Props"): the GPU places them exactly where the CPU twin
//! `throng_runtime::anchor::anchor_world` puts the anchor — numerically (the anchors job reads
//! back the world transform the prop draw uses, CPU- and GPU-timed, over 2-layer blends and
//! fractional rows) and in the picture (a crowd with a prop drawn on the GPU against the
//! reference path drawing the CPU-decoded crowd and the prop mesh at the CPU anchor transforms).

mod common;

use common::{differ_count, renderer, save, Rng};

use glam::{Mat4, Quat, Vec3};
use throng_asset::{AnchorInfo, AnchorTexture, BakedAsset, Encoding, LoopMode};
use throng_render::compute::anchors_on_gpu;
use throng_render::device::test_gpu;
use throng_render::gpu_types::MaterialUniform;
use throng_render::image::RgbaImage;
use throng_render::{
    Crowd, DecodedMeshes, GpuAsset, InstanceRecord, InstanceTransform, Layer, Playback, Prop,
    PropMesh, Records, ReferenceMesh, RenderError, RenderOptions, Renderer,
};
use throng_runtime::anchor_world;
use throng_runtime::{ClipId, GpuRuntime, PlayOptions, PlaybackControl};

/// A layer of `weight` showing `row` + `frac` of `clip`.
fn layer(weight: f32, frac: f32, row: u32, clip: u32) -> Layer {
    Layer {
        weight,
        frac,
        row: row as f32,
        clip,
    }
}

/// Tolerance of a GPU anchor against the CPU twin: points at one bounding diagonal d from the
/// anchor (along each of its axes, and the anchor itself) may move by 1e-4 · d — the brief's
/// "1e-4 of the asset diagonal", far above f32 rounding (measured ~1e-7) but far below anything
/// one would see.
const TOLERANCE: f32 = 1e-4;

/// The error of `got` against `want` as above: max over the anchor's origin and the points d
/// along its axes of the distance they land apart, over d.
fn anchor_error(got: &Mat4, want: &Mat4, d: f32) -> f32 {
    let delta = *got - *want;
    let origin = delta.w_axis.truncate().length();
    let axes = [delta.x_axis, delta.y_axis, delta.z_axis]
        .map(|c| (c.truncate() * d + delta.w_axis.truncate()).length());
    axes.into_iter().fold(origin, f32::max) / d
}

/// [`anchor_error`] of `got` against `want`, asserted within [`TOLERANCE`]; `what` names the
/// anchor in the message.
fn checked_error(got: &Mat4, want: &Mat4, d: f32, what: &str) -> f32 {
    let e = anchor_error(got, want, d);
    assert!(
        e <= TOLERANCE,
        "{what}: GPU {got:?} vs CPU {want:?}: {e:.2e} of the diagonal"
    );
    e
}

/// A random similarity transform: uniform scale 0.5..2, a rotation, a translation within
/// ±`reach` on each axis.
fn random_similarity(rng: &mut Rng, reach: f32) -> Mat4 {
    Mat4::from_scale_rotation_translation(
        Vec3::splat(rng.range(0.5, 2.0)),
        Quat::from_axis_angle(rng.unit3(), rng.range(-3.0, 3.0)),
        Vec3::new(
            rng.range(-reach, reach),
            rng.range(-reach, reach),
            rng.range(-reach, reach),
        ),
    )
}

/// Random model-space anchors (rotation, uniform scale 0.5..2, translation within ±1) for every
/// row of `asset`'s frame table.
fn random_anchors(asset: &BakedAsset, count: usize, seed: u64) -> AnchorTexture {
    let mut rng = Rng::new(seed);
    let rows = asset.rows();
    let mut data = vec![];
    for _ in 0..rows as usize * count {
        let m = random_similarity(&mut rng, 1.0);
        let t = m.transpose();
        for r in [t.x_axis, t.y_axis, t.z_axis] {
            data.extend(r.to_array());
        }
    }
    AnchorTexture {
        anchors: (0..count)
            .map(|i| AnchorInfo {
                name: format!("anchor{i}"),
                node: i,
            })
            .collect(),
        rows,
        data,
    }
}

/// Random instance transforms: rotation, uniform scale 0.5..2, translation within ±5.
fn random_transforms(n: usize, rng: &mut Rng) -> Vec<InstanceTransform> {
    (0..n)
        .map(|_| InstanceTransform::from_mat4(&random_similarity(rng, 5.0)))
        .collect()
}

/// The bounding diagonal of the asset's bind-pose vertices (file units).
fn diagonal(asset: &BakedAsset) -> f32 {
    let mut b = throng_asset::Aabb::EMPTY;
    asset.primitives[0]
        .positions
        .iter()
        .for_each(|p| b.extend(*p));
    b.diagonal()
}

#[test]
fn gpu_anchors_equal_anchor_world_cpu_timed() {
    let Some(gpu) = test_gpu() else { return };
    let (mut asset, _) = common::random_asset(Encoding::Mat3x4F32, 4, 11);
    asset.anchors = Some(random_anchors(&asset, 3, 12));
    let anchors = asset.anchors.clone().expect("anchors");
    let g = GpuAsset::new(&gpu, &asset).expect("upload");
    let d = diagonal(&asset);
    let mut rng = Rng::new(13);
    // Clip a: rows 1–4, clip b: rows 5–8 (common::random_asset).
    let mut records = vec![];
    for i in 0..61 {
        let frac = |rng: &mut Rng| if i % 7 == 0 { 0.0 } else { rng.f() };
        let w = rng.range(0.05, 0.95);
        // Rows below each clip's last frame (frac moves towards the next), or the last with
        // frac 0, as the time rules write them.
        let (ra, fa) = (1 + (rng.next_u64() % 3) as u32, frac(&mut rng));
        let (rb, fb) = (5 + (rng.next_u64() % 3) as u32, frac(&mut rng));
        let layers = match i % 4 {
            // A 2-clip blend.
            0 | 1 => [
                layer(w, fa, ra, 0),
                layer(1.0 - w, fb, rb, 1),
                Layer::default(),
                Layer::default(),
            ],
            // A crossfade within one clip, at the clip's last frame.
            2 => [
                layer(w, fa, ra, 0),
                layer(1.0 - w, 0.0, 4, 0),
                Layer::default(),
                Layer::default(),
            ],
            // One layer, or (every 12th) disabled: the rest row.
            _ if i % 12 == 3 => [Layer::default(); 4],
            _ => [
                layer(1.0, fb, rb, 1),
                Layer::default(),
                Layer::default(),
                Layer::default(),
            ],
        };
        records.push(InstanceRecord { layers });
    }
    let transforms = random_transforms(records.len(), &mut rng);
    let mut worst = 0.0f32;
    for a in 0..anchors.anchors.len() {
        let got = anchors_on_gpu(
            &gpu,
            &g,
            &transforms,
            Playback::Records(Records::Cpu(&records)),
            a as u32,
        )
        .expect("gpu anchors");
        for (i, (rec, t)) in records.iter().zip(&transforms).enumerate() {
            let want = anchor_world(
                rec,
                t,
                &throng_asset::gpu_clip_table(&asset.clips),
                &anchors,
                a,
            )
            .expect("cpu anchor");
            let e = checked_error(
                &got[i],
                &want,
                d,
                &format!("instance {i} anchor {a} ({rec:?})"),
            );
            worst = worst.max(e);
        }
    }
    eprintln!("CPU-timed: max anchor error {worst:.2e} of the diagonal ({d:.3} units)");
}

#[test]
fn gpu_anchors_equal_anchor_world_gpu_timed() {
    let Some(gpu) = test_gpu() else { return };
    let (mut asset, _) = common::random_asset(Encoding::QuatSnorm16, 4, 21);
    asset.clips[1].loop_mode = LoopMode::PingPong;
    asset.anchors = Some(random_anchors(&asset, 2, 22));
    let anchors = asset.anchors.clone().expect("anchors");
    let g = GpuAsset::new(&gpu, &asset).expect("upload");
    let d = diagonal(&asset);
    let mut rng = Rng::new(23);
    let transforms = random_transforms(24, &mut rng);
    let mut rt = GpuRuntime::new(&asset.clips);
    let handles: Vec<_> = transforms
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let h = rt.spawn(*t);
            let opts = PlayOptions::at(0.011 * i as f32).with_speed([1.0, 0.37, 2.5][i % 3]);
            rt.instance(h).play(ClipId::new(i % 2), opts).expect("play");
            h
        })
        .collect();
    for (k, &h) in handles.iter().enumerate() {
        match k % 4 {
            0 => rt
                .instance(h)
                .blend(ClipId::new(0), ClipId::new(1), 0.35)
                .map(drop)
                .expect("blend"),
            1 => rt
                .instance(h)
                .crossfade(ClipId::new((k + 1) % 2), 0.5)
                .map(drop)
                .expect("crossfade"),
            _ if k == 6 => rt.instance(h).enabled(false).map(drop).expect("disable"),
            _ => {}
        }
    }
    let mut worst = 0.0f32;
    let mut checked = 0;
    // Mid-crossfade, then later, then after many loops.
    for dt in [0.137, 0.2, 37.31] {
        rt.update(dt);
        let records = rt.collect_records();
        let play = Playback::Records(Records::Gpu {
            records: &records,
            clock: rt.gpu_clock(),
        });
        for a in 0..anchors.anchors.len() {
            let got = anchors_on_gpu(&gpu, &g, &transforms, play, a as u32).expect("gpu anchors");
            for (i, &h) in handles.iter().enumerate() {
                // The runtime's own anchor at its GPU clock (anchor_world on its CPU twin of the
                // layers the shader derives).
                let want = rt.anchor_world(h, &anchors, a).expect("cpu anchor");
                let e = checked_error(
                    &got[i],
                    &want,
                    d,
                    &format!("dt {dt}, instance {i} anchor {a}"),
                );
                worst = worst.max(e);
                checked += 1;
            }
        }
    }
    eprintln!("GPU-timed: max anchor error {worst:.2e} of the diagonal over {checked} anchors");
}

/// A box of half size `h` centred at `c` (anchor space), 24 vertices with face normals.
fn cube(c: Vec3, h: f32) -> (Vec<Vec3>, Vec<Vec3>, Vec<u32>) {
    let mut p = vec![];
    let mut n = vec![];
    let mut idx = vec![];
    for axis in 0..3 {
        for sign in [-1.0f32, 1.0] {
            let mut normal = Vec3::ZERO;
            normal[axis] = sign;
            let u = Vec3::new(normal.y.abs(), normal.z.abs(), normal.x.abs());
            let v = normal.cross(u);
            let base = p.len() as u32;
            for (a, b) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                p.push(c + (normal + u * a + v * b) * h);
                n.push(normal);
            }
            idx.extend([base, base + 1, base + 2, base, base + 2, base + 3]);
        }
    }
    (p, n, idx)
}

const PROP_COLOR: [f32; 4] = [0.1, 0.2, 0.95, 1.0];

/// A [`cube`]'s triangles as a prop mesh of [`PROP_COLOR`].
fn prop_mesh((positions, normals, indices): &(Vec<Vec3>, Vec<Vec3>, Vec<u32>)) -> PropMesh<'_> {
    PropMesh {
        positions,
        normals,
        indices,
        uvs: None,
        material: MaterialUniform::color(PROP_COLOR),
        texture: None,
    }
}

/// The reference path's picture of a decoded crowd with `prop` drawn at `placed`.
fn reference_with_prop(
    r: &mut Renderer,
    decoded: &DecodedMeshes,
    prop: &PropMesh,
    placed: &[InstanceTransform],
    opts: &RenderOptions,
) -> RgbaImage {
    let mut meshes = decoded.meshes();
    meshes.push(ReferenceMesh {
        mesh: *prop,
        transforms: placed,
    });
    r.render_reference(&meshes, opts).expect("reference")
}

/// The prop's blue (the tube is orange, the background light blue-grey).
fn is_prop_blue(p: &throng_render::image::Rgba<u8>) -> bool {
    p[2] > 120 && p[2] as i32 > p[0] as i32 + 80 && p[2] as i32 > p[1] as i32 + 40
}

#[test]
fn props_draw_where_the_cpu_anchor_puts_them() {
    let Some(mut r) = renderer() else { return };
    let (asset, g) = common::uploaded_tube(&r, Encoding::Mat3x4F32);
    let anchors = asset.anchors.clone().expect("tube anchors");
    let tip = g.anchor("tip").expect("tip anchor");
    // A box sticking out of the tip sideways, so a wrong rotation shows as well as a wrong
    // position.
    let shape = cube(Vec3::new(0.25, 0.1, 0.0), 0.15);
    let mesh = prop_mesh(&shape);
    let prop = r.upload_prop(&mesh).expect("prop upload");
    let props = [Prop {
        anchor: tip,
        mesh: &prop,
    }];
    // Five tubes bent to different fractional rows, two of them blending two rows.
    let mut transforms = vec![];
    let mut records = vec![];
    for i in 0..5u32 {
        let x = (i as f32 - 2.0) * 1.6;
        transforms.push(InstanceTransform::from_mat4(
            &(Mat4::from_translation(Vec3::new(x, 0.0, -(i as f32 % 2.0) * 0.8))
                * Mat4::from_rotation_y(0.4 * i as f32)),
        ));
        let layers = if i % 2 == 1 {
            [
                layer(0.6, 0.3, 2 + 3 * i, 0),
                layer(0.4, 0.7, 9, 0),
                Layer::default(),
                Layer::default(),
            ]
        } else {
            [
                layer(1.0, 0.25 * i as f32, 1 + 3 * i, 0),
                Layer::default(),
                Layer::default(),
                Layer::default(),
            ]
        };
        records.push(InstanceRecord { layers });
    }
    // One scene and camera for both paths (the ground, shadow camera and framing follow it).
    let scene = throng_render::camera::crowd_bounds(&g.bounds, &transforms);
    let opts = RenderOptions {
        width: 256,
        height: 192,
        camera: Some(throng_render::Camera::framing(&scene, 256.0 / 192.0)),
        scene: Some(scene),
        ..Default::default()
    };
    let crowd = |props| Crowd {
        props,
        ..Crowd::new(&g, &transforms, Playback::Records(Records::Cpu(&records)))
    };
    let with = r.render_scene(&[crowd(&props)], &opts).expect("render");
    let without = r.render_scene(&[crowd(&[])], &opts).expect("render");
    save(&with.image, "props-tube-gpu.png");
    // Two more draws (main and shadow) than without.
    assert_eq!(
        with.stats.draws,
        without.stats.draws + 2,
        "{:?}",
        with.stats
    );

    // The reference: the CPU decoder's tube and the prop mesh at the CPU anchor transforms.
    let decoded = DecodedMeshes::new(
        &asset,
        &records,
        &transforms,
        throng_render::Skinning::Linear,
    )
    .expect("decode");
    let placed: Vec<InstanceTransform> = records
        .iter()
        .zip(&transforms)
        .map(|(rec, t)| {
            InstanceTransform::from_mat4(
                &anchor_world(
                    rec,
                    t,
                    &throng_asset::gpu_clip_table(&asset.clips),
                    &anchors,
                    tip as usize,
                )
                .expect("anchor"),
            )
        })
        .collect();
    let reference = reference_with_prop(&mut r, &decoded, &mesh, &placed, &opts);
    save(&reference, "props-tube-reference.png");

    let total = (opts.width * opts.height) as usize;
    let blue = with.image.pixels().filter(|p| is_prop_blue(p)).count();
    let blue_ref = reference.pixels().filter(|p| is_prop_blue(p)).count();
    let blue_without = without.image.pixels().filter(|p| is_prop_blue(p)).count();
    // Where the prop pixels of the two pictures fail to coincide.
    let misplaced = with
        .image
        .pixels()
        .zip(reference.pixels())
        .filter(|(a, b)| is_prop_blue(a) != is_prop_blue(b))
        .count();
    let differ = differ_count(&with.image, &reference);
    eprintln!(
        "prop pixels: GPU {blue}, reference {blue_ref}, without props {blue_without}; \
         prop pixels in one picture only: {misplaced}; pixels differing by > 8/255: {differ} of {total}"
    );
    assert_eq!(blue_without, 0, "prop colour without props");
    assert!(blue > 200, "only {blue} prop pixels");
    // The same boxes in the same places: only antialiasing-free edge pixels may disagree.
    assert!(
        misplaced * 50 <= blue,
        "{misplaced} prop pixels in one picture only (of {blue})"
    );
    assert!(differ * 200 <= total, "{differ} pixels differ of {total}");

    // Props per instance (docs/design.md §4 "Appearance"): the odd instances' prop masks clear
    // bit 0, so only the even ones carry the box, in both passes; the reference places it on
    // the even ones alone.
    let looks: Vec<throng_contract::Appearance> = (0..transforms.len())
        .map(|i| throng_contract::Appearance::DEFAULT.with_props(if i % 2 == 1 { 0 } else { 1 }))
        .collect();
    let some = Crowd {
        appearance: throng_render::CrowdAppearance::Slice(&looks),
        ..crowd(&props)
    };
    let some = r.render_scene(&[some], &opts).expect("render");
    save(&some.image, "props-tube-some.png");
    let even: Vec<InstanceTransform> = placed.iter().step_by(2).copied().collect();
    let reference = reference_with_prop(&mut r, &decoded, &mesh, &even, &opts);
    let differ = differ_count(&some.image, &reference);
    let blue_some = some.image.pixels().filter(|p| is_prop_blue(p)).count();
    eprintln!("props on the even instances: {blue_some} prop pixels, {differ} differ");
    assert!(
        blue_some > 50 && blue_some < blue,
        "{blue_some} prop pixels of {blue}"
    );
    assert!(differ * 200 <= total, "{differ} pixels differ of {total}");
}

#[test]
fn anchor_errors_name_the_asset_and_list_its_anchors() {
    let Some(mut r) = renderer() else { return };
    let (_, g) = common::uploaded_tube(&r, Encoding::Mat3x4F32);
    let e = g.anchor("hand").expect_err("no such anchor");
    let msg = e.to_string();
    assert!(matches!(e, RenderError::UnknownAnchor { .. }), "{msg}");
    assert!(
        msg.contains("tube") && msg.contains("\"hand\"") && msg.contains("tip, mid"),
        "{msg}"
    );
    let mut bare = common::tube_asset(Encoding::Mat3x4F32);
    bare.anchors = None;
    let bare = r.upload(&bare).expect("upload");
    let e = bare.anchor("tip").expect_err("no anchors");
    assert!(matches!(e, RenderError::NoAnchors { .. }), "{e}");
    assert!(e.to_string().contains("bake it with anchors"), "{e}");

    // An anchor index past the asset's is an error, not a read past the buffer.
    let shape = cube(Vec3::ZERO, 0.1);
    let mesh = prop_mesh(&shape);
    let prop = r.upload_prop(&mesh).expect("prop");
    let transforms = [InstanceTransform::IDENTITY];
    let records = [InstanceRecord::default()];
    let props = [Prop {
        anchor: 7,
        mesh: &prop,
    }];
    let crowd = Crowd {
        props: &props,
        ..Crowd::new(&g, &transforms, Playback::Records(Records::Cpu(&records)))
    };
    let Err(e) = r.render_scene(&[crowd], &RenderOptions::default()) else {
        panic!("anchor 7 of 2 drew");
    };
    assert!(matches!(e, RenderError::AnchorOutOfRange { .. }), "{e}");
    // A prop mesh without triangles is refused at upload.
    let empty = r.upload_prop(&PropMesh {
        indices: &[],
        ..mesh
    });
    assert!(empty.is_err());
}
