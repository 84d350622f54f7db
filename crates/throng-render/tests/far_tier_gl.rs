//! The far draw against its CPU twin and the crossfade at the switch on wgpu's GL backend
//! (llvmpipe in CI): the scenarios of `tests/far_tier.rs`'s `far_cards_equal_their_cpu_twin`
//! and `far_cards_show_material_variants_and_part_masks` (each card in the full and the
//! downlevel mode), `one_pixel_cards_draw_what_their_quads_draw`,
//! `downlevel_cards_draw_what_the_full_mode_draws` and `the_crossfade_spreads_the_switch`.
//! Alone in its test binary, so that setting `WGPU_BACKEND` races with no other test.

mod common;
#[path = "common/far_card.rs"]
mod far_card;
#[path = "common/far_fade.rs"]
mod far_fade;

#[test]
fn far_cards_on_gl_equal_their_cpu_twin() {
    // SAFETY of the environment change: this binary runs this one test.
    std::env::set_var("WGPU_BACKEND", "gl");
    let Some(mut r) = common::renderer() else {
        return;
    };
    assert_eq!(r.adapter().backend, "gl", "expected a GL adapter");
    let asset = far_card::baked_with_far_tier(&throng_demo::demo_glb(), "throng-demo-fox.glb");
    for downlevel in [false, true] {
        far_card::card_twin(
            &mut r,
            &asset,
            throng_contract::Appearance::DEFAULT,
            downlevel,
        );
    }
    let variants = far_card::variants_with_far_tier();
    let look = throng_contract::Appearance::DEFAULT
        .with_variant(1)
        .with_parts(!2);
    for downlevel in [false, true] {
        far_card::card_twin(&mut r, &variants, look, downlevel);
    }
    far_card::one_pixel_cards(&mut r, &asset, "gl");
    far_card::downlevel_crowd(&mut r, &asset, "gl");
    far_fade::crossfade(&mut r, &asset, "gl");
}
