//! The far draw's CPU twin (docs/design.md §5 "Far tier"), shared by `tests/far_tier.rs` (the
//! default backend) and `tests/far_tier_gl.rs` (wgpu's GL backend).

use glam::Vec3;
use throng_contract::Timing;
use throng_render::{Camera, Crowd, Playback, RenderOptions};

/// A CPU-timed runtime of one instance placed by `transform`, playing clip `clip` of `asset`
/// from `t` seconds (updated once, so its records are ready).
pub fn playing_one(
    asset: &throng_asset::BakedAsset,
    transform: throng_contract::InstanceTransform,
    clip: usize,
    t: f32,
) -> throng_runtime::Runtime {
    let mut rt = throng_runtime::Runtime::new(Timing::Cpu, &asset.clips);
    let h = rt.spawn(transform);
    let play = throng_runtime::PlayOptions {
        start_time: t,
        ..Default::default()
    };
    rt.instance(h)
        .play(throng_runtime::ClipId::new(clip), play)
        .expect("play");
    rt.update(0.0);
    rt
}

/// The skinned test file with two material variants (throng_testdata::variants) baked with a
/// far tier: it holds a colour map per variant.
pub fn variants_with_far_tier() -> throng_asset::BakedAsset {
    let asset = baked_with_far_tier(&throng_testdata::variants::glb(), "variants.glb");
    let maps = &asset.far_tier.as_deref().expect("far tier").variant_colours;
    assert_eq!(maps.len(), 2, "a colour map per variant");
    asset
}

/// `glb` (named `name`) baked with the default far tier.
pub fn baked_with_far_tier(glb: &[u8], name: &str) -> throng_asset::BakedAsset {
    let model = throng_gltf::import_slice(glb, None, name).expect("import");
    let options = throng_bake::BakeOptions {
        source_name: name.into(),
        far_tier: Some(Default::default()),
        ..Default::default()
    };
    throng_bake::bake(&model, &options).expect("bake").0
}

/// A `size`-pixel square picture of what `camera` sees on `background`, without ground or
/// shadows, so that only the characters differ from the background.
pub fn lone(size: u32, camera: Camera, background: [f32; 4]) -> RenderOptions {
    RenderOptions {
        width: size,
        height: size,
        camera: Some(camera),
        ground: false,
        shadows: false,
        background,
        ..Default::default()
    }
}

/// The far draw against its CPU twin, pixel by pixel: one instance in appearance `look` (its
/// material variant and part mask), turned and scaled, drawn as a card large enough to read (the tier forced by a large LOD bias), and the same picture made
/// on the CPU — each pixel's ray meets the card's plane (through the tier's sphere centre,
/// facing the eye), the point's place on the card is read through `FarTier::shown` from the
/// direction towards the eye in model space, kept above the same ordered-dither threshold and
/// lit as `throng_render::frame::shade` lights it (no shadows). Within 3 of 255 on every pixel
/// both draw; pixels where one draws and the other not (the card's edge, dither ties) at most
/// 1 % of the card's. With `downlevel`, drawn in the downlevel mode (docs/downlevel.md: the
/// card's instance, clips and tables from data textures).
pub fn card_twin(
    r: &mut throng_render::Renderer,
    asset: &throng_asset::BakedAsset,
    look: throng_contract::Appearance,
    downlevel: bool,
) {
    let g = r.upload(asset).expect("upload");
    let tier = asset.far_tier.as_deref().expect("far tier");
    let clip = 1.min(asset.clips.len() - 1);
    let t = 0.37 * asset.clips[clip].duration;
    let model = glam::Mat4::from_scale_rotation_translation(
        Vec3::splat(1.3),
        glam::Quat::from_rotation_y(0.8),
        Vec3::new(5.0, 0.0, -3.0),
    );
    let transform = throng_contract::InstanceTransform::from_mat4(&model);
    let centre = model.transform_point3(tier.centre);
    let (size, fov) = (160u32, 0.7f32);
    let eye = centre + Vec3::new(0.35, 0.45, 0.82).normalize() * tier.radius * 5.0;
    let camera = Camera::looking_at(eye, centre, fov);
    let rt = playing_one(asset, transform, clip, t as f32);
    let transforms = [transform];
    let looks = [look];
    let crowd = Crowd {
        appearance: throng_render::CrowdAppearance::Slice(&looks),
        ..Crowd::new(&g, &transforms, Playback::from(rt.records()))
    };
    let background = [0.2f32, 0.3, 0.4, 1.0];
    let opts = RenderOptions {
        lod_bias: 1.0e6,
        downlevel,
        ..lone(size, camera, background)
    };
    let frame = r.render_scene(&[crowd], &opts).expect("render");
    let far_level = g.far.as_ref().expect("far").level as usize;
    assert_eq!(
        frame.stats.instances_per_lod.get(far_level),
        Some(&1),
        "not a card"
    );

    // The CPU twin.
    let uniform = throng_render::camera::frame_uniform(&camera, 1.0, &throng_asset::Aabb::EMPTY);
    let light_dir = Vec3::from_slice(&uniform.light_dir[..3]);
    let (light, ambient) = (Vec3::from_slice(&uniform.light[..3]), uniform.light[3]);
    let inverse = camera.view_proj(1.0).inverse();
    let linear = glam::Mat3::from_mat4(model);
    let to_model = linear.inverse();
    let normal_to_world = to_model.transpose();
    let toward = (to_model * (eye - centre)).normalize();
    let right = Vec3::Y.cross(toward).normalize();
    let up = toward.cross(right);
    let plane_n = (eye - centre).normalize();
    // The card's world axes (its model axes through the instance's linear part).
    let (right_w, up_w) = (linear * right, linear * up);
    let c = &asset.clips[clip];
    let bayer = [
        0.0f32, 8.0, 2.0, 10.0, 12.0, 4.0, 14.0, 6.0, 3.0, 11.0, 1.0, 9.0, 15.0, 7.0, 13.0, 5.0,
    ];
    let (mut both, mut one, mut worst) = (0u32, 0u32, 0u8);
    for y in 0..size {
        for x in 0..size {
            let ndc = glam::Vec2::new(
                (x as f32 + 0.5) / size as f32 * 2.0 - 1.0,
                1.0 - (y as f32 + 0.5) / size as f32 * 2.0,
            );
            let near = inverse.project_point3(ndc.extend(0.0));
            let far = inverse.project_point3(ndc.extend(1.0));
            let dir = (far - near).normalize();
            let hit = near + dir * ((centre - near).dot(plane_n) / dir.dot(plane_n));
            // Solve hit − centre = a · right_w + b · up_w (both in the card's plane).
            let q = hit - centre;
            let m = glam::Mat2::from_cols_array(&[
                right_w.dot(right_w),
                right_w.dot(up_w),
                up_w.dot(right_w),
                up_w.dot(up_w),
            ]);
            let ab = m.inverse() * glam::Vec2::new(q.dot(right_w), q.dot(up_w)) / tier.radius;
            let uv = glam::Vec2::new(ab.x * 0.5 + 0.5, 0.5 - ab.y * 0.5);
            let inside = uv.cmpge(glam::Vec2::ZERO).all() && uv.cmple(glam::Vec2::ONE).all();
            let cpu = inside
                .then(|| tier.shown((clip, c), t, toward, uv, look))
                .filter(|s| s.coverage > (bayer[((y & 3) * 4 + (x & 3)) as usize] + 0.5) / 16.0);
            let gpu = *frame.image.get_pixel(x, y);
            let bg = background.map(throng_asset::far_tier::srgb_encode);
            let gpu_drawn = (0..3).any(|k| gpu[k] != bg[k]);
            match cpu {
                Some(s) => {
                    let n = (normal_to_world * s.normal).normalize_or_zero() * s.normal.length();
                    let lit = s.albedo * (ambient + n.dot(-light_dir).max(0.0) * light);
                    let want = lit.to_array().map(throng_asset::far_tier::srgb_encode);
                    if gpu_drawn {
                        both += 1;
                        worst =
                            worst.max((0..3).map(|k| want[k].abs_diff(gpu[k])).max().unwrap_or(0));
                    } else {
                        one += 1;
                    }
                }
                None => one += u32::from(gpu_drawn),
            }
        }
    }
    let mode = if downlevel { " (downlevel)" } else { "" };
    eprintln!("card{mode} in variant {} with parts {:#x}: {both} pixels drawn by both, {one} by one only, worst difference {worst}/255", look.variant, look.parts);
    assert!(both > 500, "the card covers only {both} pixels");
    assert!(worst <= 3, "worst difference {worst}/255");
    assert!(one * 100 <= both, "{one} pixels drawn by one side only");
}

/// Far cards whose screen box holds one pixel centre, drawn as one point there
/// (`RenderOptions::far_dots`, the default), against the same crowd with every card a quad: a
/// crowd of 20,000 seen from afar, each fox's sphere about a pixel across (so some cards' boxes
/// hold one pixel centre and some two along an axis), shadows on. The culling pass lists the same instances at the far level
/// either way; the GPU's one-pixel list equals its CPU twin's. The pictures (no ground): over
/// the pixels either draws, at most 2 % differ by more than 2/255 in a channel
/// (a point carries the quad's values at the pixel centre worked out in another order) and at
/// most 1 % by more than 16/255 (a card's edge or a dither threshold met within rounding).
pub fn one_pixel_cards(
    r: &mut throng_render::Renderer,
    asset: &throng_asset::BakedAsset,
    label: &str,
) {
    if r.downlevel_reason().is_some() {
        eprintln!("skipping: a downlevel device draws no one-pixel points");
        return;
    }
    let g = r.upload(asset).expect("upload");
    let far = g.far.as_ref().expect("far").level as usize;
    let n = 20_000u32;
    let step = throng_runtime::crowd::spacing(&asset.pose_bounds());
    let (transforms, rt) = crate::common::crowd_of(asset, n, Timing::Cpu);
    // Far enough that a fox's sphere is about a pixel across: its screen box holds one pixel
    // centre or two along an axis.
    let side = (n as f32).sqrt() * step;
    let camera = Camera::looking_at(
        Vec3::new(-2.5 * side, 0.8 * side, -2.5 * side),
        Vec3::ZERO,
        0.5,
    );
    let crowd = Crowd::new(&g, &transforms, Playback::from(rt.records()));
    // No ground, so the crowd's pixels are those that differ from the background; shadows on,
    // so the points are lit through the shadow map as the quads are.
    let background = [0.2f32, 0.3, 0.4, 1.0];
    let opts = RenderOptions {
        width: 480,
        height: 270,
        camera: Some(camera),
        ground: false,
        background,
        ..Default::default()
    };
    let quads = RenderOptions {
        far_dots: false,
        ..opts
    };
    let gpu = r.cull_lists(&crowd, &opts).expect("GPU culling");
    let cpu = r.cpu_cull_lists(&crowd, &opts).expect("CPU culling");
    assert_eq!(gpu.dots, cpu.dots, "{label}: one-pixel cards");
    assert_eq!(gpu.main, cpu.main, "{label}: main lists");
    let gpu_quads = r.cull_lists(&crowd, &quads).expect("GPU culling, quads");
    assert!(
        gpu_quads.dots.is_empty(),
        "{label}: points with far_dots off"
    );
    assert_eq!(
        gpu_quads.main, gpu.main,
        "{label}: the far level's instances"
    );
    let cards = gpu.main[far].len() - gpu.dots.len();
    eprintln!(
        "{label}: {} one-pixel cards, {cards} other cards, {} meshes",
        gpu.dots.len(),
        gpu.main[..far].iter().map(Vec::len).sum::<usize>()
    );
    assert!(
        gpu.dots.len() > 1000 && cards > 100,
        "{label}: the scene should hold both"
    );

    // Each the second frame of its options: occlusion culling's first frame has no history and
    // draws everything in its second phase (pass 2); the second draws what it saw in pass 0.
    let second = |r: &mut throng_render::Renderer, o: &RenderOptions| {
        r.render_scene(&[crowd], o).expect("render");
        r.render_scene(&[crowd], o).expect("render")
    };
    let with_dots = second(r, &opts);
    let with_quads = second(r, &quads);
    assert!(
        with_dots.stats.second_phase_instances * 2 < with_dots.stats.instances_drawn,
        "{label}: the points should be drawn from last frame's history"
    );
    let bg = background.map(throng_asset::far_tier::srgb_encode);
    assert_eq!(
        with_dots.stats.instances_per_lod, with_quads.stats.instances_per_lod,
        "{label}: instances per level"
    );
    assert!(with_dots.stats.triangles < with_quads.stats.triangles);
    let (mut crowd_px, mut over2, mut over16) = (0u32, 0u32, 0u32);
    for (a, b) in with_dots.image.pixels().zip(with_quads.image.pixels()) {
        if a.0 == bg && b.0 == bg {
            continue;
        }
        crowd_px += 1;
        let d = (0..3).map(|k| a[k].abs_diff(b[k])).max().unwrap_or(0);
        over2 += u32::from(d > 2);
        over16 += u32::from(d > 16);
    }
    eprintln!("{label}: of {crowd_px} crowd pixels, {over2} differ by more than 2/255, {over16} by more than 16/255");
    assert!(
        crowd_px > 1000,
        "{label}: the crowd covers {crowd_px} pixels"
    );
    assert!(
        over2 * 50 <= crowd_px,
        "{label}: {over2} pixels differ by more than 2/255"
    );
    assert!(
        over16 * 100 <= crowd_px,
        "{label}: {over16} pixels differ by more than 16/255"
    );
}

/// The downlevel mode's cards against the full mode's (docs/downlevel.md): 3,000 foxes seen
/// from low at the field's edge, so near ones are meshes, far ones cards and a band between
/// them crossfades, with ground and shadows (far casters are cards facing the light). Both modes
/// list the same instances per level (the CPU culling is the culling pass's twin); the full
/// mode draws without occlusion culling, which the downlevel mode lacks (it changes what is
/// drawn, not the picture), and without one-pixel points. The pictures: at most 0.1 % of pixels
/// differ by more than 8/255 (the same shaders on the same adapter; only the order of
/// instances within a list differs). Writes both to the target folder,
/// `far_tier/downlevel-LABEL.png` (full above downlevel).
pub fn downlevel_crowd(
    r: &mut throng_render::Renderer,
    asset: &throng_asset::BakedAsset,
    label: &str,
) {
    let g = r.upload(asset).expect("upload");
    let far = g.far.as_ref().expect("far").level as usize;
    let n = 3000u32;
    let step = throng_runtime::crowd::spacing(&asset.pose_bounds());
    let (transforms, rt) = crate::common::crowd_of(asset, n, Timing::Cpu);
    let side = (n as f32).sqrt() * step;
    let camera = Camera::looking_at(
        Vec3::new(0.1 * side, 0.04 * side, -0.62 * side),
        Vec3::new(0.0, 0.0, 0.1 * side),
        0.9,
    );
    let crowd = Crowd::new(&g, &transforms, Playback::from(rt.records()));
    let full = RenderOptions {
        width: 320,
        height: 180,
        camera: Some(camera),
        occlusion: false,
        far_dots: false,
        ..Default::default()
    };
    let downlevel = RenderOptions {
        downlevel: true,
        ..full
    };
    let a = r.render_scene(&[crowd], &full).expect("full mode");
    let b = r
        .render_scene(&[crowd], &downlevel)
        .expect("downlevel mode");
    let (la, lb) = (&a.stats.instances_per_lod, &b.stats.instances_per_lod);
    eprintln!("{label}: instances per level, full {la:?}, downlevel {lb:?}");
    assert_eq!(la, lb, "{label}: instances per level");
    assert_eq!(
        a.stats.shadow_instances, b.stats.shadow_instances,
        "{label}: shadow casters"
    );
    let meshes: u64 = la[..far].iter().sum();
    let cards = la.get(far).copied().unwrap_or(0);
    // Crossfading instances are on both lists.
    assert!(
        meshes > 100 && cards > 300 && meshes + cards > n as u64 / 3,
        "{label}: the scene should show meshes and cards: {la:?}"
    );
    let lists = r.cpu_cull_lists(&crowd, &downlevel).expect("CPU culling");
    let carded: std::collections::HashSet<u32> = lists.main[far].iter().copied().collect();
    let both = lists.main[..far]
        .iter()
        .flatten()
        .filter(|i| carded.contains(i))
        .count();
    eprintln!("{label}: {both} instances crossfade (on a mesh list and the far list)");
    assert!(both > 20, "{label}: {both} instances crossfade");
    let differ = crate::common::differ_count(&a.image, &b.image);
    let share = differ as f64 / (320.0 * 180.0);
    eprintln!(
        "{label}: {differ} pixels ({:.3} %) differ by more than 8/255",
        share * 100.0
    );
    let mut sheet = image::RgbaImage::new(320, 360);
    image::imageops::replace(&mut sheet, &a.image, 0, 0);
    image::imageops::replace(&mut sheet, &b.image, 0, 180);
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("far_tier");
    std::fs::create_dir_all(&dir).expect("target folder");
    crate::common::save(&sheet, &format!("far_tier/downlevel-{label}.png"));
    assert!(
        share <= 0.001,
        "{label}: {:.3} % of pixels differ",
        share * 100.0
    );
}
