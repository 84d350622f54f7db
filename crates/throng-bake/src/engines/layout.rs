//! Where each vertex and frame goes in a vertex animation texture, in the two layouts the
//! engines' decoders read. Texel (x, y) has row 0 at the image's top (PNG and EXR order, and
//! glTF's texture coordinates with v down).

/// OpenVAT's layout (docs/export.md "OpenVAT"): vertex slot i sits in column `i mod W` of row
/// group `g = i div W`; group g holds its frames in rows `g·F .. g·F + F − 1`, so a decoder
/// steps one texel row per frame from the vertex's frame-0 texel. Packed normals repeat the
/// layout from row `H / 2`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowGroups {
    pub width: u32,
    pub height: u32,
    pub vertices: u32,
    pub frames: u32,
    /// Row groups, `ceil(V / W)`.
    pub groups: u32,
    /// Whether the bottom half holds normals.
    pub packed_normals: bool,
}

impl RowGroups {
    /// OpenVAT's power-of-two search: for W = 64, 128, …, `max`: `groups = ceil(V / W)`,
    /// `H = next_pow2(groups · F)` (twice that with packed normals); W and H at most one octave
    /// apart; the smallest W · H, the first found on a tie. `None` when nothing fits `max`.
    pub fn power_of_two(
        vertices: u32,
        frames: u32,
        packed_normals: bool,
        max: u32,
    ) -> Option<RowGroups> {
        let mut best: Option<RowGroups> = None;
        let mut w: u64 = 64;
        while w <= max as u64 {
            let groups = (vertices as u64).div_ceil(w).max(1);
            let rows = groups * frames as u64 * if packed_normals { 2 } else { 1 };
            let h = rows.next_power_of_two();
            let octaves = (w.trailing_zeros() as i64 - h.trailing_zeros() as i64).abs();
            if h <= max as u64
                && octaves <= 1
                && best.is_none_or(|b| w * h < b.width as u64 * b.height as u64)
            {
                best = Some(RowGroups {
                    width: w as u32,
                    height: h as u32,
                    vertices,
                    frames,
                    groups: groups as u32,
                    packed_normals,
                });
            }
            w *= 2;
        }
        best
    }

    /// The smallest size the layout needs at width W (for messages): `(W, rows)`.
    pub fn needed(vertices: u32, frames: u32, packed_normals: bool, width: u32) -> (u64, u64) {
        let groups = (vertices as u64).div_ceil(width as u64).max(1);
        let rows = groups * frames as u64 * if packed_normals { 2 } else { 1 };
        (width as u64, rows.next_power_of_two())
    }

    /// Texel of vertex slot `i` at frame `f` (positions).
    pub fn position_texel(&self, i: u32, f: u32) -> (u32, u32) {
        (i % self.width, (i / self.width) * self.frames + f)
    }

    /// Texel of vertex slot `i`'s normal at frame `f` (packed: bottom half).
    pub fn normal_texel(&self, i: u32, f: u32) -> (u32, u32) {
        let (x, y) = self.position_texel(i, f);
        (x, y + self.height / 2)
    }

    /// The VAT UV of slot `i` (`TEXCOORD_1`, v down): the centre of its frame-0 texel.
    pub fn uv(&self, i: u32) -> [f32; 2] {
        let (x, y) = self.position_texel(i, 0);
        [
            (x as f32 + 0.5) / self.width as f32,
            (y as f32 + 0.5) / self.height as f32,
        ]
    }
}

/// Unreal AnimToTexture's layout (docs/export.md "Unreal"): element e (a vertex or a bone) of
/// frame f at `(e mod W, f · R + e div W)`, frames contiguous blocks of `R` rows. The size is
/// the plugin's non-power-of-two choice: `R = ceil(E / max_width)`, `W = ceil(E / R)`, `H = F · R`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameBlocks {
    pub width: u32,
    pub height: u32,
    pub rows_per_frame: u32,
}

impl FrameBlocks {
    /// The plugin's default maximum width.
    pub const MAX_WIDTH: u32 = 4096;

    /// `(W, H, R)` as u64 so that a size too large can be reported before it is checked.
    pub fn size(elements: u32, frames: u32, max_width: u32) -> (u64, u64, u64) {
        let r = (elements as u64).div_ceil(max_width as u64).max(1);
        let w = (elements as u64).div_ceil(r).max(1);
        (w, frames as u64 * r, r)
    }

    pub fn new(width: u64, height: u64, rows_per_frame: u64) -> FrameBlocks {
        FrameBlocks {
            width: width as u32,
            height: height as u32,
            rows_per_frame: rows_per_frame as u32,
        }
    }

    pub fn texel(&self, e: u32, f: u32) -> (u32, u32) {
        (e % self.width, f * self.rows_per_frame + e / self.width)
    }

    /// UV of element e at frame 0 (v down): its texel's centre.
    pub fn uv(&self, e: u32) -> [f32; 2] {
        let (x, y) = self.texel(e, 0);
        [
            (x as f32 + 0.5) / self.width as f32,
            (y as f32 + 0.5) / self.height as f32,
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openvat_sample_size() {
        // OpenVAT's normalsCube sample: 1,538 vertex slots, 60 frames, packed normals.
        let l = RowGroups::power_of_two(1538, 60, true, 16384).unwrap();
        assert_eq!((l.width, l.height, l.groups), (512, 512, 4));
        assert_eq!(l.normal_texel(1537, 59), (1537 % 512, 256 + 3 * 60 + 59));
    }

    #[test]
    fn unreal_blocks() {
        let (w, h, r) = FrameBlocks::size(5000, 10, 4096);
        assert_eq!((w, h, r), (2500, 20, 2));
        let b = FrameBlocks::new(w, h, r);
        assert_eq!(b.texel(4999, 3), (2499, 7));
    }
}
