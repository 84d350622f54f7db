//! Live poses and the palette path's refresh rule (docs/design.md §4 "Live poses", §5
//! "Update-rate LOD"). WGSL twin: `throng::live` (`shaders/live.wgsl`; the constants are
//! written into its header from the values here, [`crate::wgsl::live_module`]).
//!
//! On the palette path every instance has one 48 B entry per palette entry in the palette
//! buffer, at `instance · entries + entry`. A *live* instance's entries are not computed by the
//! palette pass but given by the application each frame as [`SkinMatrix`]es — the skin matrix
//! `S_j = W_j · IBM_j` of palette entry j (docs/design.md §3), model space from bind space, in
//! file units — laid out exactly as the pass writes linear-blend entries.
//!
//! Each instance also has a *palette state* word, kept by the renderer across frames: 0 = no
//! palette written since the buffer was made, [`PALETTE_LIVE`] = the application's, else the
//! frame number (never 0 nor `PALETTE_LIVE`, see [`next_palette_frame`]) it was last computed.

/// Palette state of an instance whose entries the application gives (a live pose).
pub const PALETTE_LIVE: u32 = u32::MAX;

/// Palette state of an instance with nothing written since the palette buffer was made.
pub const PALETTE_UNWRITTEN: u32 = 0;

/// One skin matrix of a live pose: the three rows of the affine part `[L | t]` of `S_j`
/// (column vectors: `p' = S · p`), each `(m_r0, m_r1, m_r2, t_r)`. 48 B, the layout of the
/// renderer's linear-blend palette entry (WGSL `PaletteEntry` of `throng::palette`; naga
/// checks the layout in throng-render's tests). The GPU-facing affine ([`crate::Affine3x4`]:
/// `from_mat4` keeps the affine part, `to_mat4` restores the last row (0, 0, 0, 1)); its
/// default is the identity.
pub type SkinMatrix = crate::Affine3x4;

/// Whether the palette pass computes an instance's palette at `frame` (update-rate LOD): never
/// for a live pose; always when none is written yet; else on the frames where
/// `(frame + instance) mod interval = 0` — the phase spread by instance, so `1/interval` of
/// the instances at a LOD refresh each frame — or when the last write is `interval` or more
/// frames old (the instance was out of view at its turn). `interval` 0 counts as 1 (every
/// frame). Wrapping arithmetic, as the WGSL twin `palette_refresh`.
pub fn palette_refresh(frame: u32, instance: u32, interval: u32, state: u32) -> bool {
    if state == PALETTE_LIVE {
        return false;
    }
    let n = interval.max(1);
    state == PALETTE_UNWRITTEN
        || frame.wrapping_add(instance).is_multiple_of(n)
        || frame.wrapping_sub(state) >= n
}

/// The frame number after `frame`, skipping the two reserved state values (0 and
/// [`PALETTE_LIVE`]), so that a stamp is never mistaken for either. Frames start at 1.
pub fn next_palette_frame(frame: u32) -> u32 {
    match frame.wrapping_add(1) {
        PALETTE_UNWRITTEN | PALETTE_LIVE => 1,
        f => f,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Mat4;

    #[test]
    fn skin_matrix_keeps_the_affine_rows() {
        let m = Mat4::from_cols_array(&[
            1.0, 2.0, 3.0, 0.0, 4.0, 5.0, 6.0, 0.0, 7.0, 8.0, 9.0, 0.0, 10.0, 11.0, 12.0, 1.0,
        ]);
        let s = SkinMatrix::from_mat4(&m);
        assert_eq!(s.rows[0], [1.0, 4.0, 7.0, 10.0]);
        assert_eq!(s.rows[2], [3.0, 6.0, 9.0, 12.0]);
        assert_eq!(s.to_mat4(), m);
        assert_eq!(std::mem::size_of::<SkinMatrix>(), 48);
    }

    #[test]
    fn refresh_spreads_each_interval_evenly_and_catches_up() {
        // 1000 instances all written last frame at interval 4: a quarter refresh each frame,
        // and each instance once in any 4 consecutive frames.
        let n = 4;
        let mut state = vec![1u32; 1000];
        let mut refreshed = vec![0u32; 1000];
        for frame in 2..=9u32 {
            let mut count = 0;
            for (i, s) in state.iter_mut().enumerate() {
                if palette_refresh(frame, i as u32, n, *s) {
                    *s = frame;
                    refreshed[i] += 1;
                    count += 1;
                }
            }
            assert_eq!(count, 250, "frame {frame}");
        }
        assert!(refreshed.iter().all(|&r| r == 2));
        // Never written, live, stale, and interval 0 or 1.
        assert!(palette_refresh(7, 2, 4, PALETTE_UNWRITTEN));
        assert!(!palette_refresh(8, 0, 1, PALETTE_LIVE));
        assert!(palette_refresh(10, 1, 4, 6), "4 frames old");
        assert!(!palette_refresh(9, 1, 4, 6), "3 frames old, not its turn");
        assert!(palette_refresh(9, 5, 0, 8) && palette_refresh(9, 5, 1, 8));
    }

    #[test]
    fn frame_numbers_skip_the_reserved_states() {
        assert_eq!(next_palette_frame(1), 2);
        assert_eq!(next_palette_frame(u32::MAX - 1), 1);
        assert_eq!(next_palette_frame(u32::MAX), 1);
    }
}
