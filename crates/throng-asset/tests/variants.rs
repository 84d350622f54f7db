//! Material variants in the baked file (docs/format.md "variants"): they round trip, a file
//! without them is minor version 1 with no `variants` key, and a damaged or inconsistent list
//! is refused on write and on read with a typed error naming the element.

mod common;
mod glb_edit;

use glb_edit::{edit, repack, split};
use serde_json::json;
use throng_asset::*;

/// The common test asset (two materials) with two variants over its primitives.
fn with_variants() -> BakedAsset {
    let mut a = common::asset(Encoding::Mat4F32);
    let n = a.primitives.len();
    a.variants = vec![
        MaterialVariant {
            name: "grey".into(),
            materials: vec![Some(1); n],
        },
        MaterialVariant {
            name: "first only".into(),
            materials: (0..n).map(|p| (p == 0).then_some(1)).collect(),
        },
    ];
    a
}

#[test]
fn variants_round_trip_and_set_the_minor_version() {
    let a = with_variants();
    let bytes = to_glb_bytes(&a).expect("write");
    assert_eq!(from_glb_bytes(&bytes, "v.glb").expect("read"), a);
    assert_eq!(to_glb_bytes(&a).unwrap(), bytes, "deterministic");
    let (json, _) = split(&bytes);
    let ext = &json["extensions"][EXTENSION_NAME];
    assert_eq!(ext["minorVersion"], json!(2));
    assert_eq!(ext["variants"][0]["name"], json!("grey"));
    assert_eq!(a.find_variant("first only"), Some(2));
    assert_eq!(a.variant_material(2, 0), Some(1));

    let plain = common::asset(Encoding::Mat4F32);
    let (json, _) = split(&to_glb_bytes(&plain).unwrap());
    let ext = &json["extensions"][EXTENSION_NAME];
    assert_eq!(ext["minorVersion"], json!(1));
    assert!(ext.get("variants").is_none());
}

#[test]
fn inconsistent_variants_are_refused_on_write() {
    let mut a = with_variants();
    a.variants[0].materials.pop();
    let e = to_glb_bytes(&a).unwrap_err().to_string();
    assert!(
        e.contains("variants[0] (\"grey\").materials") && e.contains("entries for"),
        "{e}"
    );

    let mut a = with_variants();
    a.variants[1].name = "grey".into();
    let e = to_glb_bytes(&a).unwrap_err().to_string();
    assert!(e.contains("repeats the name"), "{e}");

    let mut a = with_variants();
    a.variants = vec![a.variants[0].clone(); MAX_MATERIAL_VARIANTS + 1];
    for (i, v) in a.variants.iter_mut().enumerate() {
        v.name = format!("v{i}");
    }
    let e = to_glb_bytes(&a).unwrap_err().to_string();
    assert!(e.contains("more than the 255"), "{e}");
}

#[test]
fn damaged_variants_are_typed_errors_on_read() {
    let bytes = to_glb_bytes(&with_variants()).unwrap();
    let (json, bin) = split(&bytes);
    let at = |p: &str| format!("/extensions/{EXTENSION_NAME}/variants{p}");
    let cases = [
        (at("/0/materials/0"), json!(7), "material 7 of 2"),
        (at("/1/name"), json!(""), "empty name"),
        (at("/1/materials"), json!([1]), "entries for"),
        (at("/0/materials/0"), json!(-1), "not valid JSON"),
        (at("/0/materials/0"), json!("x"), "not valid JSON"),
        (at("/0"), json!({"name": "n"}), "not valid JSON"),
    ];
    for (pointer, value, says) in cases {
        let damaged = repack(&edit(&json, &[(pointer.clone(), value.clone())]), &bin);
        let e = from_glb_bytes(&damaged, "damaged.glb").unwrap_err();
        let msg = e.to_string();
        assert!(msg.starts_with("damaged.glb: "), "{msg}");
        assert!(msg.contains(says), "{pointer} = {value}: {msg}");
    }
}

/// The shared material-slot rule (`gpu::material::material_slots`, what throng-render and
/// throng-bevy upload): slot 0 the own material, slot v variant v − 1's (its `None` the own),
/// one texture layer per distinct image (an untextured slot a white layer), the count and the
/// part bit; a material past the asset's is a typed error naming the variant.
#[test]
fn material_slots_follow_the_variants() {
    use throng_asset::gpu::material::{material_slots, MaterialSet, MaterialSlotError};
    use throng_asset::gpu::MaterialUniform;
    let a = with_variants();
    let fallback = MaterialUniform::color([0.5; 4]);
    let uniform = |m: usize| {
        MaterialUniform::new(
            a.materials[m].base_color_factor,
            &a.materials[m].texture_transform,
        )
    };
    // primitive 0: own material 0 (textured), "grey" and "first only" material 1 (untextured)
    let (set, layers) = material_slots(&a, 0, Some(0), fallback).expect("slots");
    assert_eq!((set.count, set.part, set.prop), (3, 0, MaterialSet::ALWAYS));
    assert_eq!(set.slots[0], uniform(0));
    assert_eq!(set.slots[1], uniform(1));
    assert_eq!(set.slots[2], uniform(1));
    assert_eq!(layers, vec![Some(0), None]);
    assert_eq!([set.layer(0), set.layer(1), set.layer(2)], [0, 1, 1]);
    assert_eq!(set.slot(3), 0, "past the last variant: the own");
    // primitive 1: "first only" leaves it its own material (layer 0 again)
    let (set, layers) = material_slots(&a, 1, Some(0), fallback).expect("slots");
    assert_eq!(set.slots[2], uniform(0));
    assert_eq!(layers, vec![Some(0), None]);
    assert_eq!([set.layer(0), set.layer(1), set.layer(2)], [0, 1, 0]);
    // no own material and no textured slot: the fallback colour where no material is named,
    // no layers
    let mut b = a.clone();
    b.materials[0].base_color_texture = None;
    let (set, layers) = material_slots(&b, 1, None, fallback).expect("slots");
    assert_eq!(set.slots[0], fallback);
    assert_eq!(set.slots[1], uniform(1));
    assert_eq!(set.slots[2], fallback);
    assert!(layers.is_empty());
    // a variant naming a material past the asset's
    let mut c = a.clone();
    c.variants[0].materials[0] = Some(9);
    let e = material_slots(&c, 0, Some(0), fallback).unwrap_err();
    assert_eq!(
        e,
        MaterialSlotError::MaterialOutOfRange {
            variant: "grey".into(),
            part: 0,
            material: 9,
            materials: 2
        }
    );
    assert!(e.to_string().contains("'grey'"), "{e}");
}
