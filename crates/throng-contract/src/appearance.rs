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

/// Texels per row of the appearance texture every embedding binds: one [`Appearance`] per
/// `Rgba32Uint` texel, instance `i` at `(i % width, i / width)`, rows of this many texels (the
/// WGSL readers take the width from the texture, so this is the one place it is chosen).
pub const APPEARANCE_ROW: u32 = 1024;

/// The appearance texture's size (width, height) holding `count` instances: one row up to
/// [`APPEARANCE_ROW`], whole rows past it; at least 1×1.
pub fn appearance_texture_size(count: u64) -> (u32, u32) {
    let n = count.clamp(1, u32::MAX as u64) as u32;
    (n.min(APPEARANCE_ROW), n.div_ceil(APPEARANCE_ROW))
}

/// The changed instances below `count` as runs `start..end` of consecutive indices, each
/// within one row of [`APPEARANCE_ROW`] texels (so one texture write each), ascending, every
/// index once — what an upload writes, 16 B per changed instance.
pub fn appearance_runs(changed: &[u32], count: u32) -> Vec<(u32, u32)> {
    let mut sorted: Vec<u32> = changed.iter().copied().filter(|&i| i < count).collect();
    sorted.sort_unstable();
    sorted.dedup();
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for i in sorted {
        match runs.last_mut() {
            Some((_, end)) if *end == i && i % APPEARANCE_ROW != 0 => *end += 1,
            _ => runs.push((i, i + 1)),
        }
    }
    runs
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
    fn texels_fill_rows_of_appearance_row_texels() {
        assert_eq!(appearance_texture_size(0), (1, 1));
        assert_eq!(appearance_texture_size(64), (64, 1));
        assert_eq!(appearance_texture_size(1024), (1024, 1));
        assert_eq!(appearance_texture_size(1025), (1024, 2));
        assert_eq!(size_of::<Appearance>(), 16, "one Rgba32Uint texel");
    }

    #[test]
    fn changes_are_written_in_runs_that_stay_on_their_row() {
        // one changed instance: one write of one texel
        assert_eq!(appearance_runs(&[7], 100), vec![(7, 8)]);
        // unsorted, repeated, past the count, across a row end (1023 | 1024)
        let runs = appearance_runs(&[1024, 5, 1023, 6, 5, 4000, 1022], 2048);
        assert_eq!(runs, vec![(5, 7), (1022, 1024), (1024, 1025)]);
        let texels: u32 = runs.iter().map(|(a, b)| b - a).sum();
        assert_eq!(texels, 5, "each changed instance below the count once");
        for (a, b) in runs {
            assert_eq!(
                a / APPEARANCE_ROW,
                (b - 1) / APPEARANCE_ROW,
                "run {a}..{b} on one row"
            );
        }
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
