//! Runs the embedding example (examples/crowd.rs) headless: its own device, its own offscreen
//! target, `Renderer::encode_frame` into its own encoder. The pictures must show foxes on the
//! ground under the sky and move from frame to frame; a frame of 10 and of 1,000 instances
//! records the same draw calls. PNGs go to the target dir (CARGO_TARGET_TMPDIR) for people to look at.
//!
//! Without any Vulkan/Metal/DX12 adapter (not even lavapipe) the tests skip outside CI and fail
//! in CI.

#[allow(dead_code)]
#[path = "../examples/crowd.rs"]
mod crowd;

use throng_render::image::RgbaImage;

/// The example's own device, or `None` (skip) outside CI when no adapter exists.
fn device() -> Option<(wgpu::Adapter, wgpu::Device, wgpu::Queue)> {
    match crowd::create_device(&crowd::headless_instance(), None) {
        Ok(d) => Some(d),
        Err(e) if std::env::var_os("CI").is_none() => {
            eprintln!("skipping GPU test: no adapter ({e})");
            None
        }
        Err(e) => panic!("CI has no usable GPU adapter: {e}"),
    }
}

fn save(img: &RgbaImage, name: &str) {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    img.save(&path).expect("write png");
    eprintln!("wrote {}", path.display());
}

/// Fox orange: red well above green and blue (the sky is blue, the ground grey).
fn orange(p: &[u8]) -> bool {
    p[0] as i32 > p[1] as i32 + 40 && p[0] as i32 > p[2] as i32 + 60
}

/// Sky: blue above red by more than any lit fox or grey ground texel.
fn sky(p: &[u8]) -> bool {
    p[2] as i32 > p[0] as i32 + 25
}

/// Ground: grey (channels within 12 levels), not black.
fn grey(p: &[u8]) -> bool {
    let (lo, hi) = (p[..3].iter().min(), p[..3].iter().max());
    matches!((lo, hi), (Some(&lo), Some(&hi)) if hi - lo < 12 && hi > 40)
}

fn share(img: &RgbaImage, f: fn(&[u8]) -> bool) -> f64 {
    let n = img.pixels().filter(|p| f(&p.0)).count();
    n as f64 / (img.width() * img.height()) as f64
}

#[test]
fn headless_crowd_shows_moving_foxes_on_the_ground() {
    let Some(device) = device() else { return };
    eprintln!("adapter: {}", device.0.get_info().name);
    let asset = crowd::bake_fox().expect("bake the built-in fox");
    let t = std::time::Instant::now();
    let frames = crowd::headless(device, &asset, 16, 4, (256, 256)).expect("headless frames");
    eprintln!("4 frames of 16 foxes in {:.2} s", t.elapsed().as_secs_f64());
    assert_eq!(frames.len(), 4);
    let (first, last) = (&frames[0].image, &frames[3].image);
    save(first, "example-crowd-first.png");
    save(last, "example-crowd-last.png");

    // All three parts of the picture are there: 16 foxes cover a few percent of a 256² image
    // framed on the crowd; sky and ground each cover a large part.
    for img in [first, last] {
        let (fox, sky, ground) = (share(img, orange), share(img, sky), share(img, grey));
        eprintln!("fox {fox:.3}, sky {sky:.3}, ground {ground:.3}");
        assert!(fox > 0.02, "too few fox pixels: {fox:.4}");
        assert!(sky > 0.05, "no sky: {sky:.4}");
        assert!(ground > 0.10, "no ground: {ground:.4}");
    }

    // 3 × 1/30 s later the animation has moved: legs and tails land on other pixels (the
    // camera and the instances' transforms stay put, so nothing else changes).
    let moved = first
        .pixels()
        .zip(last.pixels())
        .filter(|(a, b)| (0..3).any(|c| (a[c] as i32 - b[c] as i32).abs() > 24))
        .count();
    let moved = moved as f64 / (256.0 * 256.0);
    eprintln!("pixels changed between frame 1 and 4: {moved:.4}");
    assert!(moved > 0.002, "the crowd does not move: {moved:.4}");

    // The draw calls recorded are the same every frame.
    assert!(frames.iter().all(|f| f.stats == frames[0].stats));
    assert!(frames[0].stats.draws > 0);
}

#[test]
fn draw_calls_do_not_grow_with_instances() {
    let Some((adapter, device, queue)) = device() else {
        return;
    };
    let asset = crowd::bake_fox().expect("bake the built-in fox");
    let gpu = throng_render::Gpu::from_device(adapter, device.clone(), queue);
    let mut renderer = throng_render::Renderer::with_gpu(gpu);
    let fox = renderer.upload(&asset).expect("upload");
    let target = device.create_texture(&wgpu::TextureDescriptor {
        label: None,
        size: wgpu::Extent3d {
            width: 64,
            height: 64,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8UnormSrgb,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
        view_formats: &[],
    });
    let view = target.create_view(&Default::default());
    let mut draws = vec![];
    for n in [10, 1_000] {
        let mut runtime = crowd::spawn_crowd(&asset, n).expect("crowd");
        let mut encoder = device.create_command_encoder(&Default::default());
        let format = wgpu::TextureFormat::Rgba8UnormSrgb;
        let stats = crowd::draw(
            &mut renderer,
            &fox,
            &mut runtime,
            crowd::HEADLESS_DT,
            &mut encoder,
            &view,
            format,
            (64, 64),
        )
        .expect("record a frame");
        // Recording is what is counted; the frame is not submitted (lavapipe would skin
        // 1,000 foxes twice on the CPU, tens of seconds; the other test draws for real).
        drop(encoder.finish());
        eprintln!(
            "{n} instances: {} draws ({} in the shadow pass), {} dispatches",
            stats.draws, stats.shadow_draws, stats.dispatches,
        );
        draws.push(stats);
    }
    assert_eq!(draws[0], draws[1]);
    // Independently: each primitive once per LOD per pass (the main pass's two phases of
    // occlusion culling and the shadow pass), plus the ground.
    let lods = 1 + asset.primitives[0].lods.len() as u32;
    let prims = asset.primitives.len() as u32;
    assert_eq!(draws[0].shadow_draws, prims * lods);
    assert_eq!(draws[0].draws, 3 * prims * lods + 1);
    // Culling (2), the depth pyramid of 64×64 (32² … 1²: 6 levels), occlusion culling's
    // second phase (2).
    assert_eq!(draws[0].dispatches, 2 + 6 + 2);
}
