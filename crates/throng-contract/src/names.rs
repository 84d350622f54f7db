//! The named enums every crate shares: loop mode, skinning method, playback timing and the
//! texture encodings. Each name is written once, in [`named_enum!`]'s table: `as_str`, `parse`,
//! `Display`, `FromStr`, serde and (with the `clap` feature) `clap::ValueEnum` all read it.

/// An enum whose variants have one fixed lower-case name each.
macro_rules! named_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident ($what:literal) {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal, )+
        }
        default $default:ident;
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
        }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: [$name; [$($text),+].len()] = [$($name::$variant),+];

            /// The variant's name as files and command lines spell it.
            pub const fn as_str(&self) -> &'static str {
                match self {
                    $( $name::$variant => $text, )+
                }
            }

            /// The variant named `s` (exactly as [`Self::as_str`] spells it).
            pub fn parse(s: &str) -> Option<$name> {
                match s {
                    $( $text => Some($name::$variant), )+
                    _ => None,
                }
            }

            /// The names, comma-separated (for messages).
            pub fn names() -> String {
                let v: Vec<&str> = Self::ALL.iter().map(|x| x.as_str()).collect();
                v.join(", ")
            }
        }

        impl Default for $name {
            fn default() -> Self {
                $name::$default
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = UnknownName;
            fn from_str(s: &str) -> Result<Self, UnknownName> {
                $name::parse(s).ok_or_else(|| UnknownName {
                    what: $what,
                    got: s.to_string(),
                    expected: $name::names(),
                })
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }

        #[cfg(feature = "clap")]
        impl clap::ValueEnum for $name {
            fn value_variants<'a>() -> &'a [Self] {
                &Self::ALL
            }
            fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
                Some(clap::builder::PossibleValue::new(self.as_str()))
            }
        }
    };
}

/// A name that is not one of an enum's names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownName {
    pub what: &'static str,
    pub got: String,
    pub expected: String,
}

impl std::fmt::Display for UnknownName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "unknown {} {:?}: expected one of {}",
            self.what, self.got, self.expected
        )
    }
}

impl std::error::Error for UnknownName {}

named_enum! {
    /// What a clip does at its ends (docs/design.md §4 "Time rules"). Authored in
    /// `animations[i].extras.throng.loop` or chosen at bake or play time.
    pub enum LoopMode ("loop mode") {
        /// Wraps: after the last frame comes the first.
        Loop = "loop",
        /// Plays to the end once and holds the last frame; the runtime reports the end.
        Once = "once",
        /// Like `once` (holds the last frame, reports the end); kept apart because authoring
        /// tools distinguish "play once" from "clamp at the end".
        Clamp = "clamp",
        /// Forward to the end, backward to the start, and again.
        PingPong = "ping-pong",
    }
    default Loop;
}

impl LoopMode {
    /// The code stored in records and read by the shaders (2 bits).
    pub const fn code(self) -> u32 {
        match self {
            LoopMode::Loop => crate::MODE_LOOP,
            LoopMode::Once => crate::MODE_ONCE,
            LoopMode::Clamp => crate::MODE_CLAMP,
            LoopMode::PingPong => crate::MODE_PINGPONG,
        }
    }

    /// The loop mode of a record code (only the low 2 bits are read).
    pub const fn from_code(code: u32) -> LoopMode {
        match code & 3 {
            crate::MODE_LOOP => LoopMode::Loop,
            crate::MODE_ONCE => LoopMode::Once,
            crate::MODE_CLAMP => LoopMode::Clamp,
            _ => LoopMode::PingPong,
        }
    }

    /// Holds the end instead of wrapping (`once` and `clamp`).
    pub const fn holds_end(self) -> bool {
        matches!(self, LoopMode::Once | LoopMode::Clamp)
    }
}

named_enum! {
    /// How skin matrices are combined per vertex (docs/design.md §2), on the CPU (reference
    /// and decoder) and the GPU alike.
    pub enum Skinning ("skinning method") {
        /// Linear blend skinning: `p' = Σ w_i · S_i · p`, matrices blended (every encoding).
        Linear = "lbs",
        /// Dual-quaternion linear blending (Kavan, Collins, Žára, O'Sullivan 2007, "Skinning
        /// with dual quaternions"); baked assets need a `quat-*` bone texture.
        DualQuat = "dq",
    }
    default Linear;
}

named_enum! {
    /// Who times an instance's playback (docs/design.md §4).
    pub enum Timing ("playback timing") {
        /// The CPU writes every instance's 4 layers of (weight, frac, row, clip) each frame.
        Cpu = "cpu",
        /// The GPU derives rows and fracs from a compact record and a global clock; the CPU
        /// writes a record only when that instance's playback changes.
        Gpu = "gpu",
    }
    default Cpu;
}

impl Timing {
    /// "CPU-timed" / "GPU-timed", for messages.
    pub const fn describe(self) -> &'static str {
        match self {
            Timing::Cpu => "CPU-timed",
            Timing::Gpu => "GPU-timed",
        }
    }
}

named_enum! {
    /// Bone-texture encodings (docs/design.md §3 "Bone texture"; texel layouts in
    /// docs/format.md).
    pub enum Encoding ("bone-texture encoding") {
        /// 4 RGBA32Float texels per entry: texel 4j + c = column c of S_j. 64 B per entry-frame.
        Mat4F32 = "mat4-f32",
        /// 3 RGBA32Float texels per entry: texel 3j + r = row r of the affine part. 48 B.
        Mat3x4F32 = "mat3x4-f32",
        /// As `mat3x4-f32` in RGBA16Float. 24 B.
        Mat3x4F16 = "mat3x4-f16",
        /// 2 RGBA32Float texels: unit quaternion (x, y, z, w), then (translation xyz, uniform
        /// scale). 32 B.
        QuatF32 = "quat-f32",
        /// As `quat-f32` at 16 bits per channel in an Rgba16Sint texture: snorm16 quaternion,
        /// translation / `translation_range`, scale / `scale_range`. 16 B.
        QuatSnorm16 = "quat-snorm16",
        /// As `mat3x4-f32` at 16 bits per channel in an Rgba16Sint texture: each row's
        /// linear part (x, y, z) / `scale_range` (the bake's largest |linear entry|) and its
        /// translation (w) / `translation_range` (largest |translation component|), snorm16.
        /// Any affine, non-uniform scale and shear included. 24 B.
        Mat3x4Snorm16 = "mat3x4-snorm16",
    }
    default QuatSnorm16;
}

impl Encoding {
    /// RGBA texels per palette entry.
    pub const fn texels_per_entry(&self) -> u32 {
        match self {
            Encoding::Mat4F32 => 4,
            Encoding::Mat3x4F32 | Encoding::Mat3x4F16 | Encoding::Mat3x4Snorm16 => 3,
            Encoding::QuatF32 | Encoding::QuatSnorm16 => 2,
        }
    }

    /// Bytes per RGBA texel (4 channels).
    pub const fn bytes_per_texel(&self) -> u32 {
        match self {
            Encoding::Mat4F32 | Encoding::Mat3x4F32 | Encoding::QuatF32 => 16,
            Encoding::Mat3x4F16 | Encoding::QuatSnorm16 | Encoding::Mat3x4Snorm16 => 8,
        }
    }

    pub const fn bytes_per_entry_frame(&self) -> u32 {
        self.texels_per_entry() * self.bytes_per_texel()
    }

    /// Whether the encoding stores (rotation, translation, uniform scale) and so supports
    /// dual-quaternion skinning.
    pub const fn is_quat(&self) -> bool {
        matches!(self, Encoding::QuatF32 | Encoding::QuatSnorm16)
    }

    /// The code the shaders select their decoder by (`ENCODING` shader def).
    pub const fn code(&self) -> u32 {
        match self {
            Encoding::Mat4F32 => 0,
            Encoding::Mat3x4F32 => 1,
            Encoding::Mat3x4F16 => 2,
            Encoding::QuatF32 => 3,
            Encoding::QuatSnorm16 => 4,
            Encoding::Mat3x4Snorm16 => 5,
        }
    }
}

named_enum! {
    /// Position storage of a vertex animation texture (docs/design.md §3 "VAT").
    pub enum VatEncoding ("VAT encoding") {
        /// RGBA32Float texels: (x, y, z, 1), file units.
        F32 = "f32",
        /// RGBA16Float texels: (x, y, z, 1), file units.
        F16 = "f16",
        /// RGBA16Uint texels: (qx, qy, qz, 0) with `p = min + q / 65535 · (max − min)` per axis.
        Unorm16 = "unorm16",
    }
    default F32;
}

impl VatEncoding {
    /// Bytes per RGBA position texel.
    pub const fn bytes_per_texel(&self) -> u32 {
        match self {
            VatEncoding::F32 => 16,
            VatEncoding::F16 | VatEncoding::Unorm16 => 8,
        }
    }

    /// The code the VAT shader reads (`VatParams.encoding`).
    pub const fn code(&self) -> u32 {
        match self {
            VatEncoding::F32 => 0,
            VatEncoding::F16 => 1,
            VatEncoding::Unorm16 => 2,
        }
    }
}

/// For an error about a clip name that matched none of `names`: ` (did you mean "Walk"?)` when
/// one matches it but for letter case, else nothing.
pub fn clip_name_hint<'a>(name: &str, mut names: impl Iterator<Item = &'a str>) -> String {
    let lower = name.to_lowercase();
    names
        .find(|n| n.to_lowercase() == lower)
        .map_or_else(String::new, |n| format!(" (did you mean {n:?}?)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_parse_serde_and_from_str() {
        for m in LoopMode::ALL {
            assert_eq!(LoopMode::parse(m.as_str()), Some(m));
            assert_eq!(LoopMode::from_code(m.code()), m);
            let json = serde_json::to_string(&m).unwrap();
            assert_eq!(json, format!("\"{}\"", m.as_str()));
            assert_eq!(serde_json::from_str::<LoopMode>(&json).unwrap(), m);
        }
        for e in Encoding::ALL {
            assert_eq!(e.as_str().parse::<Encoding>(), Ok(e));
        }
        assert_eq!(
            serde_json::to_string(&Encoding::Mat3x4F16).unwrap(),
            "\"mat3x4-f16\""
        );
        let err = "quat".parse::<Encoding>().unwrap_err().to_string();
        assert!(
            err.contains("mat4-f32, mat3x4-f32") && err.contains("\"quat\""),
            "{err}"
        );
        assert!(serde_json::from_str::<VatEncoding>("\"f64\"").is_err());
        assert_eq!(Skinning::default(), Skinning::Linear);
        assert_eq!(Encoding::default(), Encoding::QuatSnorm16);
    }

    #[test]
    fn clip_name_hint_suggests_only_a_case_match() {
        let names = ["Survey", "Walk", "Run"];
        assert_eq!(
            super::clip_name_hint("walk", names.into_iter()),
            " (did you mean \"Walk\"?)"
        );
        assert_eq!(super::clip_name_hint("Jog", names.into_iter()), "");
    }
}

named_enum! {
    /// How a clip's frame-table rows are interpolated between frames (docs/design.md §3
    /// "Row interpolation"); the taps are [`crate::row_taps`].
    pub enum RowInterpolation ("row interpolation") {
        /// Two rows: `mix(S(k), S(k + 1), frac)`. Any frame spacing.
        Linear = "linear",
        /// Four rows on a uniform clip: the uniform Catmull-Rom spline through frames
        /// `k − 1 … k + 2` (it passes through every frame; wrapped on a periodic clip, the
        /// end frames repeated otherwise).
        CatmullRom = "catmull-rom",
        /// Polynomial pieces (`ClipInfo::degree` 2 or 3): every d gaps make one piece, shown by
        /// the polynomial through its d + 1 rows, equally spaced in time inside the piece; the
        /// pieces end on frames the bake chose (the source's keys where its motion bends).
        Pieces = "pieces",
    }
    default Linear;
}
