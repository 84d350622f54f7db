//! How the generated texture is laid out: its size and the horizontal band of it each tube's
//! UVs map into. Both the mesh (`shape.rs`, which writes the UVs) and the texture
//! (`texture.rs`, which paints the bands) read it, so it sits below both.

/// Width and height of the base-colour texture, in texels.
pub(crate) const SIZE: u32 = 128;

/// Which texture band a tube's UVs map into (see `texture.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Band {
    Body,
    Neck,
    Head,
    Ear,
    Leg,
    Tail,
}

impl Band {
    /// The band's rows of the texture as a V range (top = 0).
    pub(crate) fn outer(self) -> (f32, f32) {
        match self {
            Band::Body => (0.0, 0.3),
            Band::Neck => (0.3, 0.38),
            Band::Head => (0.38, 0.5),
            Band::Ear => (0.5, 0.6),
            Band::Leg => (0.6, 0.8),
            Band::Tail => (0.8, 1.0),
        }
    }

    /// The V range a tube's UVs span: `outer` shrunk by two texels at each end, so bilinear
    /// filtering never mixes in the neighbouring band at a tube's caps.
    pub(crate) fn v_range(self) -> (f32, f32) {
        let (a, b) = self.outer();
        let margin = 2.0 / SIZE as f32;
        (a + margin, b - margin)
    }

    pub(crate) const ALL: [Band; 6] = [
        Band::Body,
        Band::Neck,
        Band::Head,
        Band::Ear,
        Band::Leg,
        Band::Tail,
    ];
}
