//! The far tier's crossfade (docs/design.md §5 "Far tier") and the picture comparison the far
//! tier's tests share, for `tests/far_tier.rs` (the default backend) and `tests/far_tier_gl.rs`
//! (wgpu's GL backend).

use glam::Vec3;
use throng_render::{Camera, Crowd, Playback, RenderOptions};

/// Mean absolute difference of the RGB channels over the box of pixels either image differs
/// from the background in, as a share of 255; the share of that box where exactly one of them
/// does; and the box's larger side, pixels.
pub fn compare(a: &image::RgbaImage, b: &image::RgbaImage, background: [u8; 3]) -> (f64, f64, u32) {
    let differs = |p: &image::Rgba<u8>| (0..3).any(|c| p[c].abs_diff(background[c]) > 8);
    let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0, 0);
    for (x, y, p) in a.enumerate_pixels() {
        if differs(p) || differs(b.get_pixel(x, y)) {
            (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
        }
    }
    if x0 > x1 {
        return (0.0, 0.0, 0);
    }
    let (mut sum, mut masks, mut n) = (0u64, 0u64, 0u64);
    for y in y0..=y1 {
        for x in x0..=x1 {
            let (p, q) = (a.get_pixel(x, y), b.get_pixel(x, y));
            sum += (0..3).map(|c| p[c].abs_diff(q[c]) as u64).sum::<u64>();
            masks += u64::from(differs(p) != differs(q));
            n += 1;
        }
    }
    (
        sum as f64 / (3 * n) as f64 / 255.0,
        masks as f64 / n as f64,
        (x1 - x0 + 1).max(y1 - y0 + 1),
    )
}

/// Pixels where exactly one of `a` and `b` differs from the background.
fn mask_disagreement(a: &image::RgbaImage, b: &image::RgbaImage, background: [u8; 3]) -> u32 {
    let differs = |p: &image::Rgba<u8>| (0..3).any(|c| p[c].abs_diff(background[c]) > 8);
    a.enumerate_pixels()
        .filter(|&(x, y, p)| differs(p) != differs(b.get_pixel(x, y)))
        .count() as u32
}

/// Steps of the walk across the band: the card's share goes from −2/16 to 18/16 in 1/16.
const STEPS: i32 = 21;

/// A fox walking away from the camera across the far tier's switch, drawn three ways at each
/// step: meshes only (tier off: the reference), a hard switch (`far_fade` 0) and the default
/// crossfade. The LOD bias is 4 pixels so that the fox is about 64 pixels across at the switch
/// and the change is big enough to measure. At each step the picture is compared with the
/// meshes' (mean colour difference over the fox's box); a pop is the largest change of that
/// difference from one step to the next. The hard switch puts its whole difference into one
/// step; the crossfade must spread it (largest step at most 0.4 of the hard switch's), never
/// leave holes (the pixels where its mask disagrees with the meshes' are among those where the
/// card's alone does: the two keep complementary halves of one pattern; 2 pixels of slack) and
/// draw both the mesh and the card in the middle of the band. Writes the
/// walk (hard switch above the crossfade) to the target folder, `far_tier/crossfade.png`.
pub fn crossfade(r: &mut throng_render::Renderer, asset: &throng_asset::BakedAsset, label: &str) {
    let g = r.upload(asset).expect("upload");
    let far = g.far.as_ref().expect("far tier");
    let (level, error) = (far.level as usize, far.error);
    let tier = asset.far_tier.as_deref().expect("far tier");
    let clip = 1.min(asset.clips.len() - 1);
    let (size, fov, bias) = (192u32, 0.6f32, 4.0f32);
    let fade = throng_render::DEFAULT_FAR_FADE;
    let pixels_per_unit = size as f32 * 0.5 / (fov * 0.5).tan();
    let transforms = vec![throng_contract::InstanceTransform::IDENTITY];
    let t = (0.3 * asset.clips[clip].duration) as f32;
    let rt = super::far_card::playing_one(asset, transforms[0], clip, t);
    let crowd = Crowd::new(&g, &transforms, Playback::from(rt.records()));
    let background = [0.55f32, 0.66, 0.8, 1.0];
    let bg = background.map(throng_asset::far_tier::srgb_encode);
    let bg = [bg[0], bg[1], bg[2]];
    let dir = Vec3::new(0.45, 0.35, 0.82).normalize();
    let (mut hard, mut soft, mut sheet) = (Vec::new(), Vec::new(), Vec::new());
    for k in 0..STEPS {
        // Where the card's share is s: its texel covers bias · (1 − fade · s) pixels from the
        // sphere's nearest point (throng_asset::far_tier::card_share).
        let s = (k - 2) as f32 / 16.0;
        let distance = error * pixels_per_unit / (bias * (1.0 - fade * s)) + tier.radius;
        let camera = Camera::looking_at(tier.centre + dir * distance, tier.centre, fov);
        let opts = RenderOptions {
            lod_bias: bias,
            ..super::far_card::lone(size, camera, background)
        };
        let meshes = r
            .render_scene(
                &[crowd],
                &RenderOptions {
                    far_tier: false,
                    ..opts
                },
            )
            .expect("meshes");
        let switched = r
            .render_scene(
                &[crowd],
                &RenderOptions {
                    far_fade: 0.0,
                    ..opts
                },
            )
            .expect("hard switch");
        let faded = r.render_scene(&[crowd], &opts).expect("crossfade");
        let per_lod = &faded.stats.instances_per_lod;
        if (4..=14).contains(&k) {
            let mesh: u64 = per_lod[..level].iter().sum();
            assert_eq!(
                (mesh, per_lod[level]),
                (1, 1),
                "{label}: step {k} (share {s}) draws the mesh and the card"
            );
        }
        let (h_diff, h_mask, _) = compare(&switched.image, &meshes.image, bg);
        let (f_diff, f_mask, extent) = compare(&faded.image, &meshes.image, bg);
        eprintln!(
            "{label}: share {s:+.3}, box {extent} px: hard switch {:.2} % (masks {:.1} %), crossfade {:.2} % (masks {:.1} %)",
            h_diff * 100.0,
            h_mask * 100.0,
            f_diff * 100.0,
            f_mask * 100.0
        );
        let (f_px, h_px) = (
            mask_disagreement(&faded.image, &meshes.image, bg),
            mask_disagreement(&switched.image, &meshes.image, bg),
        );
        assert!(
            f_px <= h_px + 2,
            "{label}: share {s}: the crossfade's mask disagrees with the meshes' on {f_px} pixels, the card's alone on {h_px}"
        );
        hard.push(h_diff);
        soft.push(f_diff);
        sheet.push((switched.image, faded.image));
    }
    let pop = |d: &[f64]| {
        d.windows(2)
            .map(|w| (w[1] - w[0]).abs())
            .fold(0.0, f64::max)
    };
    let (hard_pop, soft_pop) = (pop(&hard), pop(&soft));
    eprintln!(
        "{label}: largest step: hard switch {:.2} %, crossfade {:.2} % of 255",
        hard_pop * 100.0,
        soft_pop * 100.0
    );
    // The middle 96 × 96 pixels of each step, the hard switch above the crossfade.
    let name = format!("crossfade-{}.png", label.replace(' ', "-"));
    write_strip(&sheet, 96, 1, &name);
    assert!(
        hard_pop >= 0.01,
        "{label}: the hard switch changes the picture by only {:.2} %: the test sees nothing",
        hard_pop * 100.0
    );
    assert!(
        soft_pop <= 0.4 * hard_pop,
        "{label}: the crossfade pops by {:.2} % (hard switch {:.2} %)",
        soft_pop * 100.0,
        hard_pop * 100.0
    );
}

/// A strip of picture pairs to `far_tier/{name}` in the target folder: per pair the middle
/// `crop` × `crop` pixels of each, `zoom`× enlarged, the first above the second.
pub fn write_strip(
    pairs: &[(image::RgbaImage, image::RgbaImage)],
    crop: u32,
    zoom: u32,
    name: &str,
) {
    let side = crop * zoom;
    let mut out = image::RgbaImage::new(side * pairs.len() as u32, 2 * side);
    for (i, (top, bottom)) in pairs.iter().enumerate() {
        for (row, img) in [top, bottom].into_iter().enumerate() {
            let (x0, y0) = ((img.width() - crop) / 2, (img.height() - crop) / 2);
            for y in 0..side {
                for x in 0..side {
                    let p = *img.get_pixel(x0 + x / zoom, y0 + y / zoom);
                    out.put_pixel(i as u32 * side + x, row as u32 * side + y, p);
                }
            }
        }
    }
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("far_tier");
    let _ = std::fs::create_dir_all(&dir);
    let _ = out.save(dir.join(name));
}
