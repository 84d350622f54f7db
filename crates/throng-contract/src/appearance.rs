//! Per-instance appearance (docs/design.md §4 "Appearance"): what an instance looks like, beside
//! its playback record (which stays 64 B / 56 B) — a tint, a material variant, the parts and the
//! props it shows. 16 B, one texel of an `Rgba32Uint` texture on the GPU. WGSL twin: `Appearance`
//! in `shaders/appearance.wgsl` (`throng::appearance`, pure functions, no bindings; sizes and
//! offsets checked by naga in throng-render's tests).
//!
//! Non-uniform scale is not here: it is part of the instance transform ([`crate::Affine3x4`]
//! is a general affine), which every path already applies (normals by its cofactors).

use bytemuck::{Pod, Zeroable};

/// Parts (primitives) an appearance mask can switch: bit `i` of [`Appearance::parts`] is the
/// asset's primitive `i`. Primitives from index 32 on are always shown.
pub const MAX_PARTS: u32 = 32;

/// Props a mask can switch: bit `k` of [`Appearance::props`] is the crowd's prop `k`; props
/// from index 32 on are always shown.
pub const MAX_PROP_BITS: u32 = 32;

/// One instance's appearance, 16 B (four little-endian words, as WGSL reads them).
///
/// - `tint`: RGBA8, each channel `c / 255`, multiplied with the material's base colour (factor
///   × texture) in linear colour — the way glTF's `baseColorFactor` multiplies, so
///   `[255; 4]` changes nothing;
/// - `parts`: bit `i` set = primitive `i` of the asset is drawn (in every pass: a hidden part
///   casts no shadow); bits past the asset's primitives are ignored;
/// - `variant`: 0 = every primitive's own material, `v ≥ 1` = the asset's material variant
///   `v − 1` (`throng_asset::BakedAsset::variants`); a number past the asset's variants draws
///   the own materials;
/// - `props`: bit `k` set = the crowd's prop `k` is drawn on this instance.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Pod, Zeroable)]
pub struct Appearance {
    pub tint: [u8; 4],
    pub parts: u32,
    pub variant: u32,
    pub props: u32,
}

impl Appearance {
    /// Untinted, own materials, every part and prop shown: how an instance without an
    /// appearance is drawn.
    pub const DEFAULT: Appearance = Appearance {
        tint: [255; 4],
        parts: u32::MAX,
        variant: 0,
        props: u32::MAX,
    };

    /// This appearance with `tint` (RGBA8, linear, multiplied with the base colour).
    pub const fn with_tint(self, tint: [u8; 4]) -> Appearance {
        Appearance { tint, ..self }
    }

    /// This appearance with the part mask `parts` (bit i = primitive i).
    pub const fn with_parts(self, parts: u32) -> Appearance {
        Appearance { parts, ..self }
    }

    /// This appearance with material variant `variant` (0 = own materials).
    pub const fn with_variant(self, variant: u32) -> Appearance {
        Appearance { variant, ..self }
    }

    /// This appearance with the prop mask `props` (bit k = prop k).
    pub const fn with_props(self, props: u32) -> Appearance {
        Appearance { props, ..self }
    }

    /// Whether primitive `part` is drawn (primitives from [`MAX_PARTS`] on always are).
    pub const fn shows_part(&self, part: usize) -> bool {
        part >= MAX_PARTS as usize || self.parts & (1 << part) != 0
    }

    /// Whether prop `prop` is drawn (props from [`MAX_PROP_BITS`] on always are).
    pub const fn shows_prop(&self, prop: usize) -> bool {
        prop >= MAX_PROP_BITS as usize || self.props & (1 << prop) != 0
    }

    /// The tint as linear RGBA in [0, 1] (`c / 255`), as the shaders decode it.
    pub fn tint_linear(&self) -> [f32; 4] {
        self.tint.map(|c| c as f32 / 255.0)
    }

    /// The four words as the GPU reads them (one `Rgba32Uint` texel).
    pub fn words(&self) -> [u32; 4] {
        bytemuck::cast(*self)
    }
}

/// A crowd's appearances as a renderer uploads them: every value in dense instance order, and
/// which of them changed since the last upload (`None`: all of them, e.g. after a spawn or a
/// despawn changed the count). What `throng_runtime::Appearances::changes` hands over.
#[derive(Debug, Clone, Copy)]
pub struct AppearanceChanges<'a> {
    pub values: &'a [Appearance],
    /// Dense indices changed since the last upload, each once, in the order first changed.
    pub changed: Option<&'a [u32]>,
}

impl Default for Appearance {
    fn default() -> Appearance {
        Appearance::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_shows_everything_untinted() {
        let a = Appearance::default();
        assert!((0..40).all(|p| a.shows_part(p) && a.shows_prop(p)));
        assert_eq!(a.tint_linear(), [1.0; 4]);
        assert_eq!(a.words(), [u32::MAX, u32::MAX, 0, u32::MAX]);
    }

    #[test]
    fn tint_is_the_first_word_red_in_the_low_byte() {
        let a = Appearance::DEFAULT.with_tint([1, 2, 3, 4]);
        assert_eq!(a.words()[0], 0x0403_0201);
        let hidden = Appearance::DEFAULT.with_parts(0b101);
        assert!(hidden.shows_part(0) && !hidden.shows_part(1) && hidden.shows_part(2));
        assert!(!hidden.shows_part(31) && hidden.shows_part(32));
    }
}
