//! Per-instance appearance (docs/design.md §5 "Appearance") on whatever adapter wgpu finds: a
//! crowd of the KayKit mannequin (8 primitives on one skin) with tints, material variants (a
//! second base-colour factor, and a second texture) and part masks, on the texture, palette,
//! VAT and downlevel paths, against the reference path drawing each instance's shown primitives
//! in its variant's material with its tint (`DecodedMeshes::meshes_with`). At most 0.5 % of the
//! pixels — of the picture and of each instance's share of it — differ by more than 8/255. A
//! crowd whose every part is hidden draws the ground alone: no pixel and no shadow.

mod common;

use common::{renderer, save};

use glam::{Mat4, Vec3};
use throng_asset::{BakedAsset, BakedImage, MaterialVariant};
use throng_contract::Appearance;
use throng_render::{
    AppearanceUpload, Crowd, CrowdAppearance, DecodedMeshes, InstanceRecord, InstanceTransform,
    Playback, RenderOptions, SkinPath, Skinning,
};

/// The mannequin, baked (a VAT too), with two material variants added: "green" (primitive
/// 0..7's material with another base-colour factor) and "checker" (another texture).
fn manny() -> Option<BakedAsset> {
    let dir = std::env::var("THRONG_ASSETS").unwrap_or("../../../shared/assets".into());
    let path = std::path::Path::new(&dir).join("kaykit/manny_med_mod.gltf");
    if !path.exists() {
        assert!(
            std::env::var("CI").is_err(),
            "{} not found (THRONG_ASSETS)",
            path.display()
        );
        eprintln!("skipped: {} not found (set THRONG_ASSETS)", path.display());
        return None;
    }
    let model = throng_gltf::import(&path).expect("import");
    let options = throng_bake::BakeOptions {
        source_name: "manny_med_mod.gltf".into(),
        vat: Some(throng_asset::VatEncoding::F32),
        ..Default::default()
    };
    let mut asset = throng_bake::bake(&model, &options).expect("bake").0;
    let n = asset.primitives.len();
    assert!(n >= 8, "manny bakes {n} primitives");
    let own = asset.primitives[0].material.expect("a material");
    let mut green = asset.materials[own].clone();
    green.base_color_factor = [0.3, 0.9, 0.4, 1.0];
    asset.materials.push(green);
    // A checker the size of the own texture, as a variant's base colour texture.
    let size = asset.materials[own]
        .base_color_texture
        .and_then(|i| image::load_from_memory(&asset.images[i].bytes).ok())
        .map_or((64, 64), |i| (i.width(), i.height()));
    let checker = image::RgbaImage::from_fn(size.0, size.1, |x, y| {
        if (x / 8 + y / 8) % 2 == 0 {
            image::Rgba([230, 200, 40, 255])
        } else {
            image::Rgba([40, 60, 200, 255])
        }
    });
    let mut png = Vec::new();
    checker
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .expect("png");
    asset.images.push(BakedImage {
        mime_type: "image/png".into(),
        bytes: png,
    });
    let mut checkered = asset.materials[own].clone();
    checkered.base_color_texture = Some(asset.images.len() - 1);
    asset.materials.push(checkered);
    let m = asset.materials.len();
    asset.variants = vec![
        MaterialVariant {
            name: "green".into(),
            materials: vec![Some(m - 2); n],
        },
        // Primitive 0 keeps its own material (None).
        MaterialVariant {
            name: "checker".into(),
            materials: (0..n).map(|p| (p > 0).then_some(m - 1)).collect(),
        },
    ];
    Some(asset)
}

/// Six instances in a row, each its own look, one with a non-uniform scale.
fn crowd(asset: &BakedAsset) -> (Vec<InstanceTransform>, Vec<Appearance>) {
    let b = asset.pose_bounds();
    let w = (b.max.x - b.min.x).max(b.max.z - b.min.z) * 1.3;
    let d = Appearance::DEFAULT;
    let looks = vec![
        d,
        d.with_tint([255, 60, 60, 255]),
        d.with_parts(!0b1010_0110),
        d.with_variant(1).with_tint([200, 200, 255, 255]),
        d.with_variant(2),
        d.with_parts(0b0000_0011).with_variant(7),
    ];
    let transforms = (0..looks.len())
        .map(|i| {
            let x = (i as f32 - 2.5) * w;
            let scale = if i == 4 {
                Vec3::new(1.3, 0.8, 1.0)
            } else {
                Vec3::ONE
            };
            InstanceTransform::from_mat4(
                &(Mat4::from_translation(Vec3::new(x, 0.0, 0.0))
                    * Mat4::from_rotation_y(0.4 * i as f32)
                    * Mat4::from_scale(scale)),
            )
        })
        .collect();
    (transforms, looks)
}

/// A camera in front of the row of six, the row filling the picture's width (aspect 3).
fn front_camera(asset: &BakedAsset) -> throng_render::Camera {
    let b = asset.pose_bounds();
    let w = (b.max.x - b.min.x).max(b.max.z - b.min.z) * 1.3;
    let h = b.max.y - b.min.y;
    let target = Vec3::new(0.0, 0.5 * h, 0.0);
    throng_render::Camera::looking_at(target + Vec3::new(0.0, 0.8 * h, 3.4 * w), target, 0.6)
}

/// Pixels off by more than 8/255 in any channel, over the whole picture and per column band of
/// `bands` (each instance stands in its own band).
fn differing(a: &image::RgbaImage, b: &image::RgbaImage, bands: u32) -> (usize, Vec<usize>) {
    let mut per = vec![0; bands as usize];
    let mut all = 0;
    for (x, y, p) in a.enumerate_pixels() {
        let q = b.get_pixel(x, y);
        if (0..3).any(|c| (p[c] as i32 - q[c] as i32).abs() > 8) {
            all += 1;
            per[(x * bands / a.width()) as usize] += 1;
        }
    }
    (all, per)
}

#[test]
fn appearance_draws_what_the_reference_path_draws() {
    let Some(mut r) = renderer() else { return };
    let Some(asset) = manny() else { return };
    let g = r.upload(&asset).expect("upload");
    let (transforms, looks) = crowd(&asset);
    let n = transforms.len();
    // The rest pose (no clips): disabled records.
    let records = vec![InstanceRecord::default(); n];
    let scene = throng_render::camera::crowd_bounds(&g.bounds, &transforms);
    let (width, height) = (720u32, 240u32);
    let opts = RenderOptions {
        width,
        height,
        camera: Some(front_camera(&asset)),
        scene: Some(scene),
        ..Default::default()
    };
    let meshes =
        DecodedMeshes::new(&asset, &records, &transforms, Skinning::Linear).expect("decode");
    let reference = r
        .render_reference(&meshes.meshes_with(&looks), &opts)
        .expect("reference");
    save(&reference, "appearance-reference.png");
    let plain = r
        .render_reference(&meshes.meshes(), &opts)
        .expect("reference");
    // The looks change the picture (else the comparison below proves nothing).
    let (changed, _) = differing(&reference, &plain, n as u32);
    assert!(changed > 2000, "appearances changed only {changed} pixels");
    let up = AppearanceUpload::new(&r.gpu.device, &r.gpu.queue, &looks);
    let total = (width * height) as usize;
    for (path, downlevel) in [
        (SkinPath::Texture, false),
        (SkinPath::Palette, false),
        (SkinPath::Vat, false),
        (SkinPath::Texture, true),
    ] {
        let o = RenderOptions {
            path,
            downlevel,
            ..opts
        };
        for (how, appearance) in [
            ("slice", CrowdAppearance::Slice(&looks)),
            ("uploaded", CrowdAppearance::Uploaded(&up)),
        ] {
            let crowd = Crowd {
                appearance,
                ..Crowd::new(&g, &transforms, Playback::Cpu(&records))
            };
            let frame = r.render_scene(&[crowd], &o).expect("render");
            let tag = format!(
                "{path:?}{}-{how}",
                if downlevel { "-downlevel" } else { "" }
            );
            save(&frame.image, &format!("appearance-{tag}.png"));
            let (all, per) = differing(&frame.image, &reference, n as u32);
            eprintln!("{tag}: {all} of {total} pixels differ; per instance {per:?}");
            assert!(all * 200 <= total, "{tag}: {all} pixels differ");
            let band = total / n;
            for (i, d) in per.iter().enumerate() {
                assert!(d * 200 <= band, "{tag}: instance {i}: {d} pixels differ");
            }
        }
    }
}

#[test]
fn a_hidden_part_leaves_no_pixel_and_no_shadow() {
    let Some(mut r) = renderer() else { return };
    let Some(asset) = manny() else { return };
    let g = r.upload(&asset).expect("upload");
    let (transforms, _) = crowd(&asset);
    let records = vec![InstanceRecord::default(); transforms.len()];
    let scene = throng_render::camera::crowd_bounds(&g.bounds, &transforms);
    let opts = RenderOptions {
        width: 360,
        height: 120,
        camera: Some(front_camera(&asset)),
        scene: Some(scene),
        ..Default::default()
    };
    let hidden = vec![Appearance::DEFAULT.with_parts(0); transforms.len()];
    let ground = r
        .render_scene(&[Crowd::new(&g, &[], Playback::Cpu(&[]))], &opts)
        .expect("ground");
    for path in [SkinPath::Texture, SkinPath::Palette, SkinPath::Vat] {
        let o = RenderOptions { path, ..opts };
        let crowd = Crowd {
            appearance: CrowdAppearance::Slice(&hidden),
            ..Crowd::new(&g, &transforms, Playback::Cpu(&records))
        };
        let img = r.render_scene(&[crowd], &o).expect("render").image;
        let (d, _) = differing(&img, &ground.image, 1);
        assert_eq!(d, 0, "{path:?}: hidden parts drew {d} pixels (or shadows)");
        let shown = r
            .render_scene(&[Crowd::new(&g, &transforms, Playback::Cpu(&records))], &o)
            .expect("render")
            .image;
        let (d, _) = differing(&shown, &ground.image, 1);
        assert!(d > 1000, "{path:?}: the shown crowd drew only {d} pixels");
    }
}

#[test]
fn one_changed_tint_uploads_one_texel() {
    let Some(r) = renderer() else { return };
    let mut looks = throng_runtime::Appearances::new(10_000);
    let gpu = &r.gpu;
    let mut up = AppearanceUpload::new(&gpu.device, &gpu.queue, looks.values());
    looks.clear_changes();
    looks
        .set_tint(4321, [10, 20, 30, 255])
        .expect("in the crowd");
    assert_eq!(up.update(&gpu.device, &gpu.queue, looks.changes()), 16);
    looks.clear_changes();
    assert_eq!(up.update(&gpu.device, &gpu.queue, looks.changes()), 0);
    looks.swap_remove(3);
    assert_eq!(
        up.update(&gpu.device, &gpu.queue, looks.changes()),
        16 * 9_999,
        "a despawn re-sends all"
    );
}
