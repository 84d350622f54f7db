//! Material variants end to end (issue 37): the bake's variants (`throng_bake`, glTF
//! `KHR_materials_variants` and texture variants given at bake time) written to a baked file,
//! read back, and drawn by the crowd paths with each instance's `Appearance::variant`, against
//! the reference path (the decoder's CPU-skinned meshes in each instance's variant material).
//! Shared by `tests/variants_e2e.rs` and `tests/variants_e2e_gl.rs` (the GL backend, alone in
//! its binary).

use std::path::{Path, PathBuf};

use glam::{Mat4, Vec3};
use throng_asset::BakedAsset;
use throng_contract::Appearance;
use throng_render::{
    Crowd, CrowdAppearance, DecodedMeshes, InstanceRecord, InstanceTransform, Playback, Records,
    RenderOptions, Renderer, SkinPath, Skinning,
};

use super::appearance::differing;
use super::save;

/// A folder of this test run's files (the target's temporary dir, one folder per `tag`).
fn scratch(tag: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("variants-e2e{tag}"));
    std::fs::create_dir_all(&dir).expect("create the scratch folder");
    dir
}

/// `asset` written as a baked file and read back (what a game loads).
fn through_file(asset: &BakedAsset, dir: &Path, name: &str) -> BakedAsset {
    let path = dir.join(name);
    throng_asset::write(asset, &path).expect("write the baked file");
    let back = throng_asset::read(&path).expect("read the baked file");
    assert_eq!(&back, asset, "{name}: the file gives back what was baked");
    back
}

fn bake_options(name: &str) -> throng_bake::BakeOptions {
    throng_bake::BakeOptions {
        source_name: name.into(),
        sampling: throng_bake::Sampling::Fixed(10.0),
        ..Default::default()
    }
}

/// The skinned test file with two `KHR_materials_variants` variants (`red`, `striped`;
/// throng_testdata::variants), baked, through a file.
pub fn skinned_variants(tag: &str) -> BakedAsset {
    let model = throng_gltf::import_slice(&throng_testdata::variants::glb(), None, "variants.glb")
        .expect("the test file imports");
    let (asset, _) = throng_bake::bake(&model, &bake_options("variants.glb")).expect("bake");
    let names: Vec<&str> = asset.variants.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, throng_testdata::variants::VARIANTS);
    through_file(&asset, &scratch(tag), "variants.baked.glb")
}

/// Fox with a texture variant `blue`: its own texture with red and blue swapped, at half its
/// size (so the bake resizes it to the texture it replaces), baked, through a file. `None`
/// (skip) when Fox.glb is not found outside CI.
pub fn fox_blue(tag: &str) -> Option<BakedAsset> {
    let path = throng_testdata::asset("Fox.glb")?;
    let model = throng_gltf::import(&path).expect("Fox imports");
    let own = &model.images[0];
    let (w, h) = (own.width, own.height);
    let img = image::RgbaImage::from_raw(w, h, own.rgba8.clone()).expect("Fox's texture");
    let mut swapped =
        image::imageops::resize(&img, w / 2, h / 2, image::imageops::FilterType::Triangle);
    for p in swapped.pixels_mut() {
        p.0.swap(0, 2);
    }
    let dir = scratch(tag);
    let texture = dir.join("fox_blue.png");
    swapped.save(&texture).expect("write the variant texture");
    let mut options = bake_options("Fox.glb");
    options.texture_variants = vec![throng_bake::TextureVariant {
        name: "blue".into(),
        path: texture,
    }];
    let (asset, report) = throng_bake::bake(&model, &options).expect("bake");
    assert!(
        report.warnings.iter().any(|w| w.contains("resized")),
        "a half-size texture is resized: {:?}",
        report.warnings
    );
    Some(through_file(&asset, &dir, "fox_blue.glb"))
}

/// `looks.len()` instances in a row along x, each turned a little about +Y (the spacing from
/// the asset's rest bounds), and a camera in front of the row filling a picture of aspect 3.
fn row(asset: &BakedAsset, n: usize, turn: f32) -> (Vec<InstanceTransform>, throng_render::Camera) {
    let b = asset.pose_bounds();
    let w = (b.max.x - b.min.x).max(b.max.z - b.min.z) * 1.4;
    let h = b.max.y - b.min.y;
    let transforms = (0..n)
        .map(|i| {
            let x = (i as f32 - (n as f32 - 1.0) * 0.5) * w;
            InstanceTransform::from_mat4(
                &(Mat4::from_translation(Vec3::new(x, 0.0, 0.0)) * Mat4::from_rotation_y(turn)),
            )
        })
        .collect();
    let span = (n as f32 * w / 3.0).max(h);
    let target = Vec3::new(0.0, b.min.y + 0.5 * h, 0.0);
    let camera = throng_render::Camera::looking_at(
        target + Vec3::new(0.0, 0.3 * span, 2.2 * span),
        target,
        0.6,
    );
    (transforms, camera)
}

/// Per band of a picture cut in `n` columns, the pixels `pred` accepts.
fn count_per_band(
    img: &image::RgbaImage,
    n: u32,
    pred: impl Fn(&image::Rgba<u8>) -> bool,
) -> Vec<usize> {
    let mut per = vec![0; n as usize];
    for (x, _, p) in img.enumerate_pixels() {
        if pred(p) {
            per[(x * n / img.width()) as usize] += 1;
        }
    }
    per
}

/// Draws a row of instances showing variant 0, 1, …, `variants` of `asset` on the texture and
/// palette paths and checks each against the reference path: at most 0.5 % of the pixels,
/// overall and per instance, differ by more than 8/255. Returns the reference picture and,
/// per variant v, the reference picture of the same row with every instance showing v (for
/// the caller's own checks that the variants differ).
pub fn draw_row(
    r: &mut Renderer,
    asset: &BakedAsset,
    name: &str,
    turn: f32,
) -> (image::RgbaImage, Vec<image::RgbaImage>) {
    let shown = asset.variants.len() + 2; // the own materials, each variant, one past the last
    let looks: Vec<Appearance> = (0..shown)
        .map(|v| Appearance::DEFAULT.with_variant(v as u32))
        .collect();
    let g = r.upload(asset).expect("upload");
    let (transforms, camera) = row(asset, shown, turn);
    // The rest pose and a posed frame of the first clip: the variants follow the skin.
    let clip = &asset.clips[0];
    let mut records = vec![InstanceRecord::default(); shown];
    for rec in records.iter_mut().skip(1).step_by(2) {
        rec.layers[0] = throng_contract::Layer {
            weight: 1.0,
            frac: 0.25,
            row: (clip.first_row + (clip.frames - 1) / 2) as f32,
            clip: 0,
        };
    }
    let scene = throng_render::camera::crowd_bounds(&g.bounds, &transforms);
    let (width, height) = (150 * shown as u32, 300u32);
    let opts = RenderOptions {
        width,
        height,
        camera: Some(camera),
        scene: Some(scene),
        ..Default::default()
    };
    let meshes =
        DecodedMeshes::new(asset, &records, &transforms, Skinning::Linear).expect("decode");
    let reference = r
        .render_reference(&meshes.meshes_with(&looks), &opts)
        .expect("reference");
    save(&reference, &format!("variants-{name}-reference.png"));
    let uniform: Vec<image::RgbaImage> = (0..=asset.variants.len())
        .map(|v| {
            let all = vec![Appearance::DEFAULT.with_variant(v as u32); shown];
            r.render_reference(&meshes.meshes_with(&all), &opts)
                .expect("reference")
        })
        .collect();
    let total = (width * height) as usize;
    for path in [SkinPath::Texture, SkinPath::Palette] {
        let o = RenderOptions { path, ..opts };
        let crowd = Crowd {
            appearance: CrowdAppearance::Slice(&looks),
            ..Crowd::new(&g, &transforms, Playback::Records(Records::Cpu(&records)))
        };
        let img = r.render_scene(&[crowd], &o).expect("render").image;
        save(&img, &format!("variants-{name}-{path:?}.png"));
        let (all, per) = differing(&img, &reference, shown as u32);
        eprintln!("{name} {path:?}: {all} of {total} pixels differ; per instance {per:?}");
        assert!(all * 200 <= total, "{name} {path:?}: {all} pixels differ");
        let band = total / shown;
        for (i, d) in per.iter().enumerate() {
            assert!(
                d * 200 <= band,
                "{name} {path:?}: instance {i}: {d} pixels differ"
            );
        }
    }
    (reference, uniform)
}

/// The whole scenario: the skinned test file's `red` and `striped` and Fox's `blue`, each
/// drawn by the crowd paths like the reference path, and each variant visibly itself.
pub fn scenario(r: &mut Renderer, tag: &str) {
    let asset = skinned_variants(tag);
    let (reference, uniform) = draw_row(r, &asset, &format!("skinned{tag}"), 0.0);
    // Instance 1 shows `red` (a red factor on the black-and-white checker, a blue hat):
    // red pixels there, none on the own materials (white checker, grey hat) of instance 0.
    let red = |p: &image::Rgba<u8>| {
        p[0] > 90 && p[0] as u32 > 3 * p[1] as u32 && p[0] as u32 > 3 * p[2] as u32
    };
    let n = asset.variants.len() as u32 + 2;
    let reds = count_per_band(&reference, n, red);
    eprintln!("skinned{tag}: red pixels per instance {reds:?}");
    assert!(
        reds[1] > 300,
        "the `red` instance shows {} red pixels",
        reds[1]
    );
    assert!(
        reds[0] < 10,
        "the own instance shows {} red pixels",
        reds[0]
    );
    assert!(
        reds[3] < 10,
        "one past the variants shows the own: {} red",
        reds[3]
    );
    // Each variant differs from each other (the whole row in one variant each).
    for a in 0..uniform.len() {
        for b in a + 1..uniform.len() {
            let (d, _) = differing(&uniform[a], &uniform[b], 1);
            eprintln!("skinned{tag}: variant {a} vs {b}: {d} pixels differ");
            assert!(d > 1000, "variants {a} and {b} differ in only {d} pixels");
        }
    }
    let Some(fox) = fox_blue(tag) else { return };
    let (_, uniform) = draw_row(r, &fox, &format!("fox{tag}"), 1.2);
    // Where `blue` changes the picture, the own fur is orange (red over blue) and the variant's
    // blue over red, by the same margin the swap gives.
    let (d, _) = differing(&uniform[0], &uniform[1], 1);
    assert!(d > 2000, "Fox's `blue` changes only {d} pixels");
    let (mut own, mut blue) = (0i64, 0i64);
    for (p, q) in uniform[0].pixels().zip(uniform[1].pixels()) {
        if (0..3).any(|c| (p[c] as i32 - q[c] as i32).abs() > 8) {
            own += p[0] as i64 - p[2] as i64;
            blue += q[2] as i64 - q[0] as i64;
        }
    }
    let (own, blue) = (own as f64 / d as f64, blue as f64 / d as f64);
    eprintln!(
        "fox{tag}: {d} pixels changed; mean red − blue {own:.1} own, blue − red {blue:.1} variant"
    );
    assert!(own > 40.0 && blue > 40.0, "own {own:.1}, blue {blue:.1}");
}
