//! Material variants at bake time (docs/design.md §3 "Meshes"):
//!
//! - the skinned test file's two `KHR_materials_variants` variants become `BakedAsset::variants`
//!   exactly: names, the material of each baked primitive, those materials' factors and
//!   textures (checked against the table in throng_testdata::variants, not against the
//!   importer's output), and survive the file bit for bit;
//! - texture variants: a copy of each textured material with the given texture, untextured
//!   primitives keep theirs; on Fox a texture of Fox's own size is embedded byte for byte, one of
//!   another size is resized to it with a warning;
//! - files without variants are written as before (minor version 1, no `variants` key);
//! - every bad input is a typed error naming the variant and the file.

use std::path::{Path, PathBuf};

use throng_asset::{BakedAsset, Encoding};
use throng_bake::{bake, BakeError, BakeOptions, Sampling, TextureVariant};
use throng_testdata::variants as tv;

fn options(name: &str) -> BakeOptions {
    BakeOptions {
        source_name: name.into(),
        sampling: Sampling::Fixed(10.0),
        encoding: Encoding::Mat3x4F32,
        ..BakeOptions::default()
    }
}

fn test_model() -> throng_anim::Model {
    throng_gltf::import_slice(&tv::glb(), None, "variants.glb").expect("test file imports")
}

fn png(w: u32, h: u32, rgba: [u8; 4]) -> Vec<u8> {
    let img = image::RgbaImage::from_pixel(w, h, image::Rgba(rgba));
    let mut out = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
        .unwrap();
    out
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// The asset's material index whose name is `name`.
fn material_named(asset: &BakedAsset, name: &str) -> usize {
    asset
        .materials
        .iter()
        .position(|m| m.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no material {name:?}"))
}

#[test]
fn khr_variants_bake_exactly() {
    let (asset, report) = bake(&test_model(), &options("variants.glb")).expect("bake");
    assert_eq!(asset.primitives.len(), 2);
    let names: Vec<&str> = asset.variants.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, tv::VARIANTS);
    // Every source material is used once: the primitives' own first, then the variants' in
    // order of first use (red: 2, 3; striped: 4), so the asset's numbering equals the source's.
    assert_eq!(asset.materials.len(), tv::MATERIALS.len());
    for (i, m) in asset.materials.iter().enumerate() {
        assert_eq!(m.name.as_deref(), Some(tv::MATERIALS[i]), "material {i}");
        assert_eq!(m.base_color_factor, tv::FACTORS[i], "material {i}");
        assert_eq!(m.base_color_texture, tv::TEXTURES[i], "material {i}");
    }
    assert_eq!(asset.images.len(), 2);
    assert_eq!(asset.images[0].bytes, tv::texture_png(false));
    assert_eq!(asset.images[1].bytes, tv::texture_png(true));
    for (p, prim) in asset.primitives.iter().enumerate() {
        assert_eq!((prim.mesh, prim.primitive, prim.material), (0, p, Some(p)));
    }
    for (v, variant) in asset.variants.iter().enumerate() {
        assert_eq!(variant.materials, tv::MAPPINGS[v].to_vec(), "variant {v}");
    }
    // The lookups the renderer uses: variant 0 is the own material.
    assert_eq!(asset.find_variant("striped"), Some(2));
    assert_eq!(asset.variant_material(0, 1), Some(1));
    assert_eq!(asset.variant_material(1, 1), Some(3));
    assert_eq!(asset.variant_material(2, 1), Some(1));
    assert!(
        report.warnings.iter().all(|w| !w.contains("variant")),
        "{:?}",
        report.warnings
    );
}

#[test]
fn variants_round_trip_through_the_file_and_bake_byte_identically() {
    let model = test_model();
    let (asset, _) = bake(&model, &options("variants.glb")).expect("bake");
    let bytes = throng_asset::to_glb_bytes(&asset).expect("write");
    let back = throng_asset::from_glb_bytes(&bytes, "variants.glb").expect("read");
    assert_eq!(back, asset);
    let (again, _) = bake(&model, &options("variants.glb")).expect("bake again");
    assert_eq!(throng_asset::to_glb_bytes(&again).unwrap(), bytes);
    let text = String::from_utf8_lossy(&bytes);
    assert!(
        text.contains("\"minorVersion\":2"),
        "a file with variants is 2.2"
    );
    assert!(text.contains(
        "\"variants\":[{\"name\":\"red\",\"materials\":[2,3]},{\"name\":\"striped\",\"materials\":[4,null]}]"
    ));
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "variants.glb", &bytes);
    if let Some(r) = throng_testdata::validate_gltf(&path) {
        assert_eq!(r.errors, 0, "{:?}", r.messages);
    }
}

#[test]
fn a_file_without_variants_is_written_as_before() {
    let mut model = test_model();
    model.variants.clear();
    for p in &mut model.meshes[0].primitives {
        p.variant_materials.clear();
    }
    let (asset, _) = bake(&model, &options("plain.glb")).expect("bake");
    assert!(asset.variants.is_empty());
    // Only the primitives' own materials, and only their image.
    assert_eq!(asset.materials.len(), 2);
    assert_eq!(asset.images.len(), 1);
    let bytes = throng_asset::to_glb_bytes(&asset).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.contains("\"minorVersion\":1,"));
    assert!(!text.contains("\"variants\""));
}

#[test]
fn a_texture_variant_copies_textured_materials_and_keeps_untextured_ones() {
    let dir = tempfile::tempdir().unwrap();
    // 8×8 where the replaced texture is 4×4: resized, with a warning.
    let gold = write(dir.path(), "gold.png", &png(8, 8, [255, 200, 0, 255]));
    let mut o = options("variants.glb");
    o.texture_variants = vec![TextureVariant {
        name: "gold".into(),
        path: gold,
    }];
    let (asset, report) = bake(&test_model(), &o).expect("bake");
    let names: Vec<&str> = asset.variants.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["red", "striped", "gold"]);
    let gold = &asset.variants[2];
    let copy = material_named(&asset, "body (gold)");
    // Primitive 0 (textured `body`) gets the copy; primitive 1 (untextured `hat`) keeps its own.
    assert_eq!(gold.materials, vec![Some(copy), None]);
    let (m, body) = (&asset.materials[copy], &asset.materials[0]);
    assert_eq!(m.base_color_factor, body.base_color_factor);
    assert_eq!(m.texture_transform, body.texture_transform);
    assert_eq!(m.double_sided, body.double_sided);
    let img = m.base_color_texture.expect("the copy is textured");
    assert_ne!(Some(img), body.base_color_texture);
    let decoded = image::load_from_memory(&asset.images[img].bytes)
        .unwrap()
        .to_rgba8();
    assert_eq!(decoded.dimensions(), (tv::TEXTURE_SIZE, tv::TEXTURE_SIZE));
    // A uniform colour resizes to itself.
    assert!(decoded.pixels().all(|p| p.0 == [255, 200, 0, 255]));
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("'gold'") && w.contains("8×8") && w.contains("resized to 4×4")),
        "{:?}",
        report.warnings
    );
    let bytes = throng_asset::to_glb_bytes(&asset).unwrap();
    assert_eq!(
        throng_asset::from_glb_bytes(&bytes, "v.glb").unwrap(),
        asset
    );
}

#[test]
fn a_texture_variant_on_fox_of_its_size_is_embedded_as_given() {
    let Some(path) = throng_testdata::asset("Fox.glb") else {
        return;
    };
    let model = throng_gltf::import(&path).expect("Fox imports");
    let (w, h) = (model.images[0].width, model.images[0].height);
    assert_eq!((w, h), (1024, 1024), "Fox's texture");
    let dir = tempfile::tempdir().unwrap();
    let given = png(w, h, [40, 40, 200, 255]);
    let blue = write(dir.path(), "blue.png", &given);
    let mut o = options("Fox.glb");
    o.texture_variants = vec![TextureVariant {
        name: "blue".into(),
        path: blue,
    }];
    let (asset, report) = bake(&model, &o).expect("bake");
    assert_eq!(asset.primitives.len(), 1);
    assert_eq!(asset.materials.len(), 2);
    assert_eq!(asset.images.len(), 2);
    let v = &asset.variants[0];
    assert_eq!(
        (v.name.as_str(), v.materials.as_slice()),
        ("blue", &[Some(1)][..])
    );
    let m = &asset.materials[1];
    assert_eq!(m.name.as_deref(), Some("fox_material (blue)"));
    assert_eq!(m.base_color_texture, Some(1));
    assert_eq!(m.base_color_factor, asset.materials[0].base_color_factor);
    assert_eq!(
        asset.images[1].bytes, given,
        "same size: the file's own bytes"
    );
    assert_eq!(asset.images[1].mime_type, "image/png");
    assert!(report.warnings.iter().all(|w| !w.contains("resized")));
    let bytes = throng_asset::to_glb_bytes(&asset).unwrap();
    assert_eq!(
        throng_asset::from_glb_bytes(&bytes, "Fox.glb").unwrap(),
        asset
    );
    let path = write(dir.path(), "fox_blue.glb", &bytes);
    if let Some(r) = throng_testdata::validate_gltf(&path) {
        assert_eq!(r.errors, 0, "{:?}", r.messages);
    }
}

fn bake_with(variants: Vec<(&str, PathBuf)>) -> Result<BakedAsset, BakeError> {
    let mut o = options("variants.glb");
    o.texture_variants = variants
        .into_iter()
        .map(|(name, path)| TextureVariant {
            name: name.into(),
            path,
        })
        .collect();
    bake(&test_model(), &o).map(|(a, _)| a)
}

#[test]
fn bad_texture_files_are_typed_errors_naming_the_variant() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("missing", dir.path().join("nope.png"), "cannot read it"),
        (
            "text",
            write(dir.path(), "text.png", b"not an image at all"),
            "is not a PNG or JPEG image",
        ),
        (
            "gif",
            write(dir.path(), "a.gif", b"GIF89a\x01\x00\x01\x00\x00\x00\x00;"),
            "is not a PNG or JPEG image",
        ),
        // Over the default maximum texture size (8192): refused from the header.
        (
            "wide",
            write(dir.path(), "wide.png", &png(8193, 1, [0, 0, 0, 255])),
            "8193×1 pixels",
        ),
        ("folder", dir.path().to_path_buf(), "cannot read it"),
    ];
    for (name, path, says) in cases {
        let e = bake_with(vec![(name, path.clone())]).unwrap_err();
        assert!(matches!(e, BakeError::VariantTexture { .. }), "{name}: {e}");
        let msg = e.to_string();
        assert!(
            msg.starts_with(&format!(
                "variants.glb: material variant '{name}': texture {}",
                path.display()
            )),
            "{msg}"
        );
        assert!(msg.contains(says), "{name}: {msg}");
        assert!(!msg.contains("--"), "library errors name no flag: {msg}");
    }
}

#[test]
fn bad_variant_names_and_untextured_sources_are_typed_errors() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "t.png", &png(4, 4, [1, 2, 3, 255]));
    for (list, says) in [
        (vec![("red", p.clone())], "the source already has"),
        (
            vec![("a", p.clone()), ("a", p.clone())],
            "two texture variants",
        ),
        (vec![(" ", p.clone())], "needs a name"),
    ] {
        let e = bake_with(list).unwrap_err();
        assert!(matches!(e, BakeError::BadVariant { .. }), "{e}");
        assert!(e.to_string().contains(says), "{e}");
    }
    // Without any textured material there is nothing for a texture to replace.
    let mut model = test_model();
    for m in &mut model.materials {
        m.base_color_texture = None;
    }
    let mut o = options("variants.glb");
    o.texture_variants = vec![TextureVariant {
        name: "t".into(),
        path: p,
    }];
    let e = bake(&model, &o).unwrap_err();
    assert!(
        e.to_string()
            .contains("no baked primitive's material has a base-colour texture"),
        "{e}"
    );
}
