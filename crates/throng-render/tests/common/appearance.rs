//! The crowd variety scenario (docs/design.md §4 "Appearance"): the KayKit mannequin (8
//! primitives on one skin) with two material variants added, a row of six instances each with
//! its own look, drawn by every crowd path against the reference path. Shared by
//! `tests/appearance.rs` and `tests/appearance_gl.rs` (the GL backend, alone in its binary).

use glam::{Mat4, Vec3};
use throng_asset::{BakedAsset, BakedImage, MaterialVariant};
use throng_contract::Appearance;
use throng_render::{
    AppearanceUpload, Crowd, CrowdAppearance, DecodedMeshes, InstanceRecord, InstanceTransform,
    Playback, Records, RenderOptions, Renderer, SkinPath, Skinning,
};

use super::save;

/// The mannequin, baked (a VAT too), with two material variants added: "green" (primitive
/// 0..7's material with another base-colour factor) and "checker" (another texture).
pub fn manny() -> Option<BakedAsset> {
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
pub fn crowd(asset: &BakedAsset) -> (Vec<InstanceTransform>, Vec<Appearance>) {
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
pub fn front_camera(asset: &BakedAsset) -> throng_render::Camera {
    let b = asset.pose_bounds();
    let w = (b.max.x - b.min.x).max(b.max.z - b.min.z) * 1.3;
    let h = b.max.y - b.min.y;
    let target = Vec3::new(0.0, 0.5 * h, 0.0);
    throng_render::Camera::looking_at(target + Vec3::new(0.0, 0.8 * h, 3.4 * w), target, 0.6)
}

/// Pixels off by more than 8/255 in any channel, over the whole picture and per column band of
/// `bands` (each instance stands in its own band).
pub fn differing(a: &image::RgbaImage, b: &image::RgbaImage, bands: u32) -> (usize, Vec<usize>) {
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

/// The mannequin crowd of [`crowd`] on the texture, palette, VAT and downlevel paths (slice and
/// uploaded appearances) against the reference path: at most 0.5 % of the pixels, overall and
/// per instance, differ by more than 8/255. `tag` names the saved pictures.
pub fn reference_scenario(r: &mut Renderer, tag: &str) {
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
    save(&reference, &format!("appearance-reference{tag}.png"));
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
                ..Crowd::new(&g, &transforms, Playback::Records(Records::Cpu(&records)))
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
