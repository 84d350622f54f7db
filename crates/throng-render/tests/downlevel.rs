//! The downlevel mode (docs/downlevel.md) on whatever adapter wgpu finds: its CPU culling keeps
//! the instances the GPU culling pass keeps, per (pass, LOD), for a crowd of the built-in fox
//! seen from inside it (frustum, shadow casters outside the view, every LOD), CPU- and
//! GPU-timed; its programs read no storage buffer; what it cannot draw is an error naming the
//! missing capability. The images are compared with the full mode's by the CLI's
//! `tests/downlevel.rs`, also on a real device without compute shaders.

mod common;

use common::renderer;

use glam::Vec3;
use throng_contract::Timing;
use throng_render::shaders::{all_programs, compose, Program};
use throng_render::{
    Camera, Crowd, Playback, Records, RenderError, RenderOptions, ShadowLod, SkinPath,
};
use throng_runtime::crowd::{assign, layout, new_runtime, ClipMix, Layout};

fn fox() -> throng_asset::BakedAsset {
    let glb = throng_demo::demo_glb();
    let model = throng_gltf::import_slice(&glb, None, "throng-demo-fox.glb").expect("import");
    let options = throng_bake::BakeOptions {
        source_name: "throng-demo-fox.glb".into(),
        lods: vec![0.5, 0.25, 0.1],
        ..Default::default()
    };
    throng_bake::bake(&model, &options).expect("bake").0
}

#[test]
fn cpu_culling_keeps_what_the_gpu_pass_keeps() {
    let Some(mut r) = renderer() else { return };
    if r.downlevel_reason().is_some() {
        // The GPU pass needs compute: there is nothing to compare with.
        eprintln!("skipping: a downlevel device runs no GPU culling pass");
        return;
    }
    let asset = fox();
    let g = r.upload(&asset).expect("upload");
    assert!(g.lod_count() >= 3, "the fox bakes {} LODs", g.lod_count());
    let n = 3000u32;
    let bounds = asset.pose_bounds();
    let spacing = throng_runtime::crowd::spacing(&bounds);
    // Standing among the foxes, looking across them: near ones at LOD 0, far ones coarser,
    // some out of view but casting into it.
    let h = bounds.max.y - bounds.min.y;
    let camera = Camera::looking_at(
        Vec3::new(0.0, 1.5 * h, 0.0),
        Vec3::new(20.0 * spacing, 0.0, 12.0 * spacing),
        0.9,
    );
    let mut levels_seen = vec![false; g.lod_count() as usize];
    for timing in [Timing::Cpu, Timing::Gpu] {
        let (transforms, rt) = common::crowd_of(&asset, n, timing);
        let crowd = Crowd::new(&g, &transforms, Playback::from(rt.records()));
        for shadow_lod in [ShadowLod::Texel, ShadowLod::Lowest] {
            let opts = RenderOptions {
                width: 1920,
                height: 1080,
                camera: Some(camera),
                shadow_lod,
                lod_bias: 0.25,
                ..Default::default()
            };
            let gpu = r.cull_lists(&crowd, &opts).expect("GPU culling");
            let cpu = r.cpu_cull_lists(&crowd, &opts).expect("CPU culling");
            assert_eq!(gpu.main, cpu.main, "{timing:?} {shadow_lod:?}: main lists");
            assert_eq!(
                gpu.shadow, cpu.shadow,
                "{timing:?} {shadow_lod:?}: shadow lists"
            );
            let seen: usize = cpu.main.iter().map(Vec::len).sum();
            eprintln!(
                "{timing:?} {shadow_lod:?}: main per LOD {:?}, shadow per LOD {:?}",
                cpu.main.iter().map(Vec::len).collect::<Vec<_>>(),
                cpu.shadow.iter().map(Vec::len).collect::<Vec<_>>()
            );
            assert!(seen > 100 && seen < n as usize, "{seen} in view");
            for (l, list) in cpu.main.iter().enumerate() {
                levels_seen[l] |= !list.is_empty();
            }
        }
    }
    assert!(
        levels_seen.iter().filter(|&&s| s).count() >= 2,
        "the scene uses a single LOD: {levels_seen:?}"
    );
}

/// The downlevel programs bind no storage buffer (a WebGL2 device has none).
#[test]
fn downlevel_programs_read_no_storage_buffer() {
    let downlevel: Vec<Program> = all_programs()
        .into_iter()
        .filter(|p| p.name().contains("downlevel"))
        .collect();
    assert!(downlevel.len() > 20, "{} programs", downlevel.len());
    for p in downlevel {
        let module = compose(p).expect("composes");
        let storage: Vec<_> = module
            .global_variables
            .iter()
            .filter(|(_, v)| matches!(v.space, naga::AddressSpace::Storage { .. }))
            .map(|(_, v)| v.name.clone().unwrap_or_default())
            .collect();
        assert!(storage.is_empty(), "{}: {storage:?}", p.name());
    }
}

/// What the downlevel mode does without is an error naming the capability.
#[test]
fn the_palette_path_in_the_downlevel_mode_names_compute_shaders() {
    let Some(mut r) = renderer() else { return };
    let asset = fox();
    let g = r.upload(&asset).expect("upload");
    let transforms = layout(4, Layout::Grid, 100.0, 1);
    let records = vec![throng_render::InstanceRecord::default(); 4];
    let crowd = Crowd::new(&g, &transforms, Playback::Records(Records::Cpu(&records)));
    let opts = RenderOptions {
        width: 64,
        height: 64,
        path: SkinPath::Palette,
        downlevel: true,
        ..Default::default()
    };
    match r.render_scene(&[crowd], &opts) {
        Err(e @ RenderError::NeedsCapability { .. }) => {
            let text = e.to_string();
            assert!(
                text.contains("palette path needs compute shaders"),
                "{text}"
            );
        }
        Err(e) => panic!("another error: {e}"),
        Ok(_) => panic!("the palette path drew in the downlevel mode"),
    }
}

/// The downlevel mode keeps its instance and appearance textures across frames (issue 51: a
/// texture made per crowd and frame is what WebGL2 pays for): one renderer drawing a crowd of
/// 40, then 400 (its textures outgrow their room), then 40 again, then two crowds (a second
/// slot), every frame with per-instance tints, draws each frame exactly as a fresh renderer
/// draws it alone (0 pixels differ): rows a smaller frame leaves from a larger one are never
/// read.
#[test]
fn kept_textures_draw_each_frame_as_fresh_ones_do() {
    let Some(mut kept) = renderer() else { return };
    let asset = fox();
    let g = kept.upload(&asset).expect("upload");
    let bounds = asset.pose_bounds();
    let spacing = throng_runtime::crowd::spacing(&bounds);
    let crowd_of = |n: u32, seed: u64| {
        let transforms = layout(n, Layout::Random, spacing, seed);
        let ids: Vec<u32> = (0..n).collect();
        let durations: Vec<f64> = asset.clips.iter().map(|c| c.duration).collect();
        let mix = ClipMix {
            clip: None,
            mix: true,
            stagger: 0.0,
            random_phase: true,
            seed,
        };
        let assignments = assign(&mix, &ids, &durations);
        let rt = new_runtime(
            Timing::Cpu,
            &asset.clips,
            &assignments,
            &transforms,
            0.5,
            None,
        )
        .expect("crowd");
        let records = rt.records().cpu().expect("CPU-timed").to_vec();
        let looks: Vec<throng_contract::Appearance> = (0..n)
            .map(|i| throng_contract::Appearance {
                tint: [80 + (i % 5) as u8 * 40, 160, 255 - (i % 3) as u8 * 50, 255],
                ..throng_contract::Appearance::DEFAULT
            })
            .collect();
        (transforms, records, looks)
    };
    let opts = RenderOptions {
        width: 160,
        height: 120,
        path: SkinPath::Texture,
        downlevel: true,
        // above and beside the field, every crowd in view
        camera: Some(Camera::looking_at(
            Vec3::new(0.0, 14.0 * spacing, 22.0 * spacing),
            Vec3::ZERO,
            0.9,
        )),
        ..Default::default()
    };
    let frames = [
        vec![(40, 1)],
        vec![(400, 2)],
        vec![(40, 3)],
        vec![(40, 4), (120, 5)],
    ];
    for (f, crowds) in frames.iter().enumerate() {
        let data: Vec<_> = crowds.iter().map(|&(n, seed)| crowd_of(n, seed)).collect();
        let scene = |g| -> Vec<Crowd> {
            (data.iter())
                .map(|(t, r, a)| {
                    let mut c = Crowd::new(g, t, Playback::Records(Records::Cpu(r)));
                    c.appearance = throng_render::CrowdAppearance::Slice(a);
                    c
                })
                .collect()
        };
        let got = kept.render_scene(&scene(&g), &opts).expect("kept").image;
        let Some(mut fresh) = renderer() else { return };
        let g2 = fresh.upload(&asset).expect("upload");
        let want = fresh.render_scene(&scene(&g2), &opts).expect("fresh").image;
        let differ = (got.pixels().zip(want.pixels()))
            .filter(|(a, b)| a != b)
            .count();
        assert_eq!(
            differ, 0,
            "frame {f}: {differ} pixels differ from a fresh renderer's"
        );
        let empty = got.pixels().filter(|p| *p == got.get_pixel(0, 0)).count();
        assert!(
            empty < got.pixels().count(),
            "frame {f}: the picture is empty"
        );
    }
}
