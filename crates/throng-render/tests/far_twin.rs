//! The far tier's GPU twin (docs/design.md §3 "Far tier"): WGSL `throng::far::far_shown`, run by
//! `compute::far_on_gpu` on the tier of the baked built-in fox, against its CPU twin
//! `throng_asset::FarTier::shown_at` — the view and frame taps, the tiles' bilinear filtering
//! and the coverage-weighted blend — at random directions (every azimuth and elevation,
//! including straight up and down), frame coordinates (both ends and the seams) and points on
//! the card. Agreement within 1e-4 in every channel: both sides do the same f32 arithmetic;
//! what may differ is the GPU's `atan2`, `asin` and `pow`, a few ulps.

#[path = "common/far.rs"]
mod far;

#[test]
fn the_far_card_on_the_gpu_equals_its_cpu_twin() {
    let Some(gpu) = throng_render::device::test_gpu() else {
        return;
    };
    far::far_twin_scenario(&gpu, "default backend");
}
