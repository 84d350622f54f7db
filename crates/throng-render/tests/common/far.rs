//! The far tier's twin scenario (docs/design.md §3 "Far tier"), shared by `tests/far_twin.rs`
//! (the default backend) and `tests/far_twin_gl.rs` (wgpu's GL backend).

use glam::{Vec2, Vec3};
use throng_asset::{BakedAsset, LoopMode};
use throng_bake::far_tier::FarTierSettings;
use throng_bake::{bake, BakeOptions};
use throng_contract::Appearance;
use throng_render::compute::{far_on_gpu, FarProbe};

/// Runs the comparison on `gpu` for the built-in fox (own materials) and the skinned test file
/// with two material variants (throng_testdata::variants: a factor, an untextured colour and a
/// texture changed; probes in variants 0 to 3, 3 past the last, every fifth with its second
/// part hidden); prints the worst difference under `label`.
pub fn far_twin_scenario(gpu: &throng_render::Gpu, label: &str) {
    let settings = FarTierSettings {
        elevations_deg: vec![-20.0, 15.0, 45.0],
        azimuths: 12,
        ..Default::default()
    };
    let baked = |glb: &[u8], name: &str| {
        let model = throng_gltf::import_slice(glb, None, name).expect("the model imports");
        bake(
            &model,
            &BakeOptions {
                source_name: name.into(),
                far_tier: Some(settings.clone()),
                ..Default::default()
            },
        )
        .expect("bake")
        .0
    };
    let fox = baked(&throng_demo::demo_glb(), "demo.glb");
    twin(gpu, &format!("{label}, fox"), &fox, 1);
    let variants = baked(&throng_testdata::variants::glb(), "variants.glb");
    let maps = &variants
        .far_tier
        .as_deref()
        .expect("far tier")
        .variant_colours;
    assert_eq!(maps.len(), 2, "a colour map per variant");
    twin(gpu, &format!("{label}, variants"), &variants, 4);
}

/// 20,000 probes of `asset`'s far tier in variants `0..variants` (with a part hidden on some
/// where there is more than one): the GPU against the CPU twin.
fn twin(gpu: &throng_render::Gpu, label: &str, asset: &BakedAsset, variants: u32) {
    let tier = asset.far_tier.as_deref().expect("far tier");
    let looped: Vec<bool> = asset
        .clips
        .iter()
        .map(|c| c.loop_mode == LoopMode::Loop)
        .collect();
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng >> 40) as f32 / (1u64 << 24) as f32
    };
    let mut probes = Vec::new();
    for i in 0..20_000u32 {
        let clip = i % tier.clips.len() as u32;
        let n = tier.clips[clip as usize].frames as f32;
        let x = match i % 7 {
            0 => 0.0,
            1 => n,
            2 => n - 1.0,
            _ => next() * n,
        };
        let toward = match i % 50 {
            0 => Vec3::Y,
            1 => -Vec3::Y,
            _ => Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5),
        };
        let uv = Vec2::new(next() * 1.1 - 0.05, next() * 1.1 - 0.05);
        probes.push(FarProbe {
            clip,
            x,
            toward,
            uv,
            look: Appearance::DEFAULT
                .with_variant(i % variants)
                // Every fifth probe of an asset with variants hides its second part.
                .with_parts(if variants > 1 && i % 5 == 0 {
                    !2
                } else {
                    u32::MAX
                }),
        });
    }
    let gpu_texels = far_on_gpu(gpu, tier, &looped, &probes).expect("far compute");
    assert_eq!(gpu_texels.len(), probes.len());
    let mut worst = 0.0f32;
    let (mut covered, mut recoloured, mut hidden) = (0, 0, 0);
    for (p, g) in probes.iter().zip(&gpu_texels) {
        let shown = |look| {
            tier.shown_at(
                p.clip as usize,
                looped[p.clip as usize],
                p.x,
                p.toward,
                p.uv,
                look,
            )
        };
        let c = shown(p.look);
        let d = (c.albedo - g.albedo)
            .abs()
            .max_element()
            .max((c.normal - g.normal).abs().max_element())
            .max((c.coverage - g.coverage).abs());
        worst = worst.max(d);
        covered += usize::from(c.coverage > 0.0);
        let own = shown(Appearance::DEFAULT);
        recoloured += usize::from(c.coverage > 0.0 && (c.albedo - own.albedo).length() > 0.05);
        hidden += usize::from(own.coverage > 0.0 && c.coverage == 0.0);
        assert!(d <= 1e-4, "{p:?}: CPU {c:?}, GPU {g:?}");
    }
    println!(
        "{label}: {} probes ({covered} on the character, {recoloured} of them recoloured by their variant; {hidden} on a part their part mask hides): worst difference {worst:.2e}",
        probes.len()
    );
    assert_eq!(
        (recoloured > 0, hidden > 0),
        (variants > 1, variants > 1),
        "probes in a variant, or with a part hidden, differ from the own look only where they ask it"
    );
    assert!(
        covered > probes.len() / 10,
        "too few probes on the character"
    );
}
