//! Crowd variety chosen by name (docs/design.md §4 "Appearance"): which material variant every
//! instance shows (one by name, or all of them in turn by instance), the demo's tints, and parts
//! hidden on every instance — turned into one [`Appearance`] per instance of an asset, checked
//! against the asset's variants and parts. What `throng render` draws for its variety flags;
//! names no flag.

use throng_asset::BakedAsset;
use throng_contract::{Appearance, MAX_PARTS};

/// Which material variant the instances show.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum VariantChoice {
    /// Every primitive's own material (variant 0).
    #[default]
    Own,
    /// The variant of this name (`BakedAsset::variants`) on every instance.
    Named(String),
    /// Instance i shows variant `i mod (V + 1)` of an asset with V variants: the own
    /// materials, then each variant in turn.
    All,
}

/// The variety of a crowd (the default: every instance as the asset is).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Variety {
    pub variant: VariantChoice,
    /// Tint instance i as the demo crowd tints it ([`crate::demo_appearance`]'s palette).
    pub tints: bool,
    /// Parts (primitive indices) hidden on every instance.
    pub hidden_parts: Vec<u32>,
}

/// A variety the asset cannot show. Each names the asset (as the caller names it: the file
/// given) and lists what it has.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum VarietyError {
    #[error("{asset}: no material variant named {name:?} (variants: {})", list(.known))]
    UnknownVariant {
        asset: String,
        name: String,
        known: Vec<String>,
    },
    #[error("{asset}: has no material variants to show")]
    NoVariants { asset: String },
    #[error("{asset}: no part {part} to hide (it has {parts} part(s), primitives numbered from 0; the first {MAX_PARTS} can be hidden)")]
    NoSuchPart {
        asset: String,
        part: u32,
        parts: usize,
    },
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

impl Variety {
    /// Whether every instance is drawn as the asset is (no appearance to upload).
    pub fn is_default(&self) -> bool {
        *self == Variety::default()
    }

    /// The appearance of each instance of `asset` whose crowd-wide index is in `ids` (the
    /// index picks the tint and, with [`VariantChoice::All`], the variant, so that several
    /// inputs sharing a crowd vary along one sequence). Empty when the variety is the default.
    pub fn appearances(
        &self,
        asset: &BakedAsset,
        asset_name: &str,
        ids: &[u32],
    ) -> Result<Vec<Appearance>, VarietyError> {
        if self.is_default() {
            return Ok(Vec::new());
        }
        let name = || asset_name.to_string();
        let known = || asset.variants.iter().map(|v| v.name.clone()).collect();
        let variants = asset.variants.len() as u32;
        let fixed = match &self.variant {
            VariantChoice::Own | VariantChoice::All => 0,
            VariantChoice::Named(n) if asset.variants.is_empty() => {
                return Err(VarietyError::UnknownVariant {
                    asset: name(),
                    name: n.clone(),
                    known: known(),
                })
            }
            VariantChoice::Named(n) => match asset.variants.iter().position(|v| v.name == *n) {
                Some(v) => v as u32 + 1,
                None => {
                    return Err(VarietyError::UnknownVariant {
                        asset: name(),
                        name: n.clone(),
                        known: known(),
                    })
                }
            },
        };
        if self.variant == VariantChoice::All && variants == 0 {
            return Err(VarietyError::NoVariants { asset: name() });
        }
        let parts = asset.primitives.len();
        let mut mask = u32::MAX;
        for &p in &self.hidden_parts {
            if p as usize >= parts || p >= MAX_PARTS {
                return Err(VarietyError::NoSuchPart {
                    asset: name(),
                    part: p,
                    parts,
                });
            }
            mask &= !(1 << p);
        }
        Ok(ids
            .iter()
            .map(|&i| {
                let base = if self.tints {
                    // The demo's tints, without its hidden parts (one part).
                    crate::demo_appearance(i as u64, 1)
                } else {
                    Appearance::DEFAULT
                };
                let variant = match self.variant {
                    VariantChoice::All => i % (variants + 1),
                    _ => fixed,
                };
                base.with_parts(mask).with_variant(variant)
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The skinned test file (2 parts; variants `red`, `striped`), baked; without its
    /// variants when `plain`.
    fn asset(plain: bool) -> BakedAsset {
        let glb = throng_testdata::variants::glb();
        let model = throng_gltf::import_slice(&glb, None, "a.glb").expect("import");
        let options = throng_bake::BakeOptions {
            source_name: "a.glb".into(),
            sampling: throng_bake::Sampling::Fixed(5.0),
            ..Default::default()
        };
        let mut a = throng_bake::bake(&model, &options).expect("bake").0;
        if plain {
            a.variants.clear();
        }
        a
    }

    #[test]
    fn named_all_tints_and_hidden_parts() {
        let a = asset(false);
        assert!(Variety::default()
            .appearances(&a, "a.glb", &[0, 1])
            .unwrap()
            .is_empty());
        let v = Variety {
            variant: VariantChoice::Named("striped".into()),
            ..Default::default()
        };
        let looks = v.appearances(&a, "a.glb", &[0, 5]).unwrap();
        assert!(looks
            .iter()
            .all(|l| *l == Appearance::DEFAULT.with_variant(2)));
        let v = Variety {
            variant: VariantChoice::All,
            tints: true,
            hidden_parts: vec![0],
        };
        let looks = v.appearances(&a, "a.glb", &[0, 1, 2, 3, 4]).unwrap();
        let shown: Vec<u32> = looks.iter().map(|l| l.variant).collect();
        assert_eq!(shown, [0, 1, 2, 0, 1]);
        assert!(looks.iter().all(|l| l.parts == !0b1));
        for (i, l) in looks.iter().enumerate() {
            assert_eq!(l.tint, crate::demo_appearance(i as u64, 1).tint);
        }
        assert!(looks.iter().any(|l| l.tint != [255; 4]));
    }

    #[test]
    fn what_the_asset_lacks_is_an_error_listing_what_it_has() {
        let a = asset(false);
        let named = |n: &str| Variety {
            variant: VariantChoice::Named(n.into()),
            ..Default::default()
        };
        let e = named("blue").appearances(&a, "a.glb", &[0]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "a.glb: no material variant named \"blue\" (variants: red, striped)"
        );
        let e = named("blue")
            .appearances(&asset(true), "a.glb", &[0])
            .unwrap_err();
        assert!(e.to_string().ends_with("(variants: none)"), "{e}");
        let all = Variety {
            variant: VariantChoice::All,
            ..Default::default()
        };
        assert_eq!(
            all.appearances(&asset(true), "a.glb", &[0]).unwrap_err(),
            VarietyError::NoVariants {
                asset: "a.glb".into()
            }
        );
        let hide = Variety {
            hidden_parts: vec![2],
            ..Default::default()
        };
        let e = hide.appearances(&a, "a.glb", &[0]).unwrap_err();
        assert!(
            e.to_string()
                .contains("no part 2 to hide (it has 2 part(s)"),
            "{e}"
        );
    }
}
