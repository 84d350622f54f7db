//! A `KHR_materials_variants` variant whose base-colour image has another size than the image
//! of the material it replaces: the bake stores a copy resized to the replaced image's size (as
//! it does `--variant` textures), so the crowd paths (one texture array per primitive) and the
//! reference path (each image as stored) draw the same. The skinned test file's `striped`
//! image is made 8×8 here (the own is 4×4). Before the bake resized such images, 4,926 of
//! 180,000 pixels differed on lavapipe, all on the instance showing `striped`.

mod common;

use serde_json::json;
use throng_testdata::variants as tv;

#[test]
fn a_khr_variant_image_of_another_size_draws_as_the_reference() {
    let Some(mut r) = common::renderer() else {
        return;
    };
    let img = image::RgbaImage::from_fn(8, 8, |x, _| {
        if x % 4 < 2 {
            image::Rgba([255, 0, 0, 255])
        } else {
            image::Rgba([255, 255, 0, 255])
        }
    });
    let mut png = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .expect("encode");
    let (mut doc, mut bin) = tv::json();
    let offset = bin.len();
    bin.extend_from_slice(&png);
    while bin.len() % 4 != 0 {
        bin.push(0);
    }
    let views = doc["bufferViews"].as_array_mut().expect("bufferViews");
    views.push(json!({"buffer": 0, "byteOffset": offset, "byteLength": png.len()}));
    let view = views.len() - 1;
    doc["images"][1]["bufferView"] = json!(view);
    doc["buffers"][0]["byteLength"] = json!(bin.len());
    let model = throng_gltf::import_slice(&tv::glb_of(&doc, &bin), None, "sized.glb")
        .expect("the edited file imports");
    let options = throng_bake::BakeOptions {
        source_name: "sized.glb".into(),
        sampling: throng_bake::Sampling::Fixed(10.0),
        ..Default::default()
    };
    let (asset, report) = throng_bake::bake(&model, &options).expect("bake");
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("striped") && w.contains("resized to 4×4")),
        "{:?}",
        report.warnings
    );
    common::variants::draw_row(&mut r, &asset, "size", 0.0);
}
