// throng::live — live poses and the palette path's refresh rule (docs/design.md §4 "Live poses",
// §5 "Update-rate LOD"); the Rust twin is throng_contract::live. The import path and the
// constants PALETTE_LIVE and PALETTE_UNWRITTEN are written above this line from the Rust values
// (throng_contract::wgsl::live_module). Pure functions, no bindings.

// Whether the palette pass computes an instance's palette at `frame`: never for a live pose,
// always when none is written yet, else at its turn ((frame + instance) mod interval = 0: the
// phase spread by instance) or when its last write is `interval` or more frames old.
// Twin: throng_contract::live::palette_refresh.
fn palette_refresh(frame: u32, instance: u32, interval: u32, state: u32) -> bool {
    if (state == PALETTE_LIVE) {
        return false;
    }
    let n = max(interval, 1u);
    return state == PALETTE_UNWRITTEN || (frame + instance) % n == 0u || frame - state >= n;
}
