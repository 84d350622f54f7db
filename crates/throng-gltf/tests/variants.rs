//! KHR_materials_variants: the names and each primitive's mappings are imported exactly from the
//! skinned test file (throng_testdata::variants), required or not; broken mappings are typed
//! errors naming the element, fixable oddities are repaired with a warning.

use serde_json::json;
use throng_gltf::{import_slice, ImportErrorKind as K};
use throng_testdata::variants as tv;

fn import(
    doc: &serde_json::Value,
    bin: &[u8],
) -> Result<throng_anim::Model, throng_gltf::ImportError> {
    import_slice(&tv::glb_of(doc, bin), None, "variants.glb")
}

/// The `(variant, material)` pairs the module table of the test file gives primitive `p`.
fn expected_pairs(p: usize) -> Vec<(usize, usize)> {
    (0..tv::VARIANTS.len())
        .filter_map(|v| tv::MAPPINGS[v][p].map(|m| (v, m)))
        .collect()
}

#[test]
fn variants_import_exactly() {
    let (doc, bin) = tv::json();
    let m = import(&doc, &bin).expect("the test file imports");
    assert_eq!(m.variants, tv::VARIANTS);
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    let prims = &m.meshes[0].primitives;
    assert_eq!(prims.len(), 2);
    for (p, prim) in prims.iter().enumerate() {
        assert_eq!(prim.material, Some(p));
        assert_eq!(prim.variant_materials, expected_pairs(p), "primitive {p}");
        for v in 0..tv::VARIANTS.len() {
            assert_eq!(prim.variant_material(v), tv::MAPPINGS[v][p]);
        }
    }
    // The variant materials (not used by any primitive itself) and their images are imported.
    for (i, mat) in m.materials.iter().enumerate() {
        assert_eq!(mat.name.as_deref(), Some(tv::MATERIALS[i]));
        assert_eq!(mat.base_color_factor.to_array(), tv::FACTORS[i]);
        assert_eq!(
            mat.base_color_texture.as_ref().map(|t| t.image),
            tv::TEXTURES[i]
        );
    }
    assert_eq!(m.images[1].encoded, tv::texture_png(true));
    assert_eq!(m.skins[0].joints, vec![0, 1]);
    assert_eq!(m.clips.len(), 1);
}

#[test]
fn the_test_file_passes_the_khronos_validator() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("variants.glb");
    std::fs::write(&path, tv::glb()).unwrap();
    let Some(r) = throng_testdata::validate_gltf(&path) else {
        return;
    };
    assert_eq!((r.errors, r.warnings), (0, 0), "{:?}", r.messages);
}

#[test]
fn a_required_variants_extension_is_accepted() {
    let (mut doc, bin) = tv::json();
    doc["extensionsRequired"] = json!(["KHR_materials_variants"]);
    let m = import(&doc, &bin).expect("KHR_materials_variants may be required");
    assert_eq!(m.variants, tv::VARIANTS);
}

#[test]
fn a_file_without_the_extension_has_no_variants() {
    let (mut doc, bin) = tv::json();
    doc.as_object_mut().unwrap().remove("extensions");
    for p in doc["meshes"][0]["primitives"].as_array_mut().unwrap() {
        p.as_object_mut().unwrap().remove("extensions");
    }
    let m = import(&doc, &bin).unwrap();
    assert!(m.variants.is_empty());
    assert!(m.meshes[0]
        .primitives
        .iter()
        .all(|p| p.variant_materials.is_empty()));
}

fn mappings(doc: &mut serde_json::Value, p: usize) -> &mut serde_json::Value {
    &mut doc["meshes"][0]["primitives"][p]["extensions"]["KHR_materials_variants"]["mappings"]
}

#[test]
fn a_mapping_to_a_missing_material_is_an_error_naming_it() {
    let (mut doc, bin) = tv::json();
    mappings(&mut doc, 1)[0]["material"] = json!(9);
    let e = import(&doc, &bin).unwrap_err();
    assert!(matches!(e.kind, K::BadReference { .. }), "{e}");
    let msg = e.to_string();
    assert!(msg.starts_with("variants.glb: "), "{msg}");
    assert!(
        msg.contains("mesh 0 (\"figure\") primitive 1 KHR_materials_variants mapping 0")
            && msg.contains("material 9"),
        "{msg}"
    );
}

#[test]
fn a_mapping_to_a_missing_variant_is_an_error_naming_it() {
    let (mut doc, bin) = tv::json();
    mappings(&mut doc, 0)[1]["variants"] = json!([5]);
    let e = import(&doc, &bin).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e.kind, K::BadReference { .. }), "{msg}");
    assert!(
        msg.contains("variant 5") && msg.contains("variants 0..1"),
        "{msg}"
    );

    // Mappings without the root's variant list.
    let (mut doc, bin) = tv::json();
    doc.as_object_mut().unwrap().remove("extensions");
    let msg = import(&doc, &bin).unwrap_err().to_string();
    assert!(msg.contains("declares no variants"), "{msg}");
}

#[test]
fn a_negative_or_fractional_index_is_a_schema_error() {
    for bad in [json!(-1), json!(0.5), json!("0")] {
        let (mut doc, bin) = tv::json();
        mappings(&mut doc, 0)[0]["material"] = bad.clone();
        let e = import(&doc, &bin).unwrap_err();
        assert!(matches!(e.kind, K::NotGltfSchema { .. }), "{bad}: {e}");
    }
}

#[test]
fn repeated_and_empty_names_are_renamed_with_a_warning() {
    let (mut doc, bin) = tv::json();
    doc["extensions"]["KHR_materials_variants"]["variants"] =
        json!([{"name": "red"}, {"name": "red"}]);
    let m = import(&doc, &bin).unwrap();
    assert_eq!(m.variants, ["red", "red (2)"]);
    assert!(
        m.warnings
            .iter()
            .any(|w| w.contains("variant 1 repeats the name \"red\"")),
        "{:?}",
        m.warnings
    );
    doc["extensions"]["KHR_materials_variants"]["variants"] =
        json!([{"name": " "}, {"name": "variant 0"}]);
    let m = import(&doc, &bin).unwrap();
    assert_eq!(m.variants, ["variant 0", "variant 0 (2)"]);
}

#[test]
fn a_variant_mapped_twice_keeps_the_first_mapping() {
    let (mut doc, bin) = tv::json();
    // Primitive 1 maps variant 0 to material 3; add variant 0 → material 1 after it.
    mappings(&mut doc, 1)
        .as_array_mut()
        .unwrap()
        .push(json!({"material": 1, "variants": [0]}));
    let m = import(&doc, &bin).unwrap();
    assert_eq!(m.meshes[0].primitives[1].variant_material(0), Some(3));
    assert!(
        m.warnings
            .iter()
            .any(|w| w.contains("maps variant 0 again")),
        "{:?}",
        m.warnings
    );
}
