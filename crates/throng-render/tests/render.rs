//! Headless renders of a hand-built bending tube crowd on whatever adapter wgpu finds. The
//! texture path must draw what the reference path draws from the CPU decoder's skinned vertices
//! (same camera, same shading), and the picture must show the crowd on its ground.
//! PNGs go to the target dir (CARGO_TARGET_TMPDIR) for people to look at.

mod common;

use glam::{Mat4, Vec3};
use throng_asset::decode::{skin_vertices, SkinMode};
use throng_asset::Encoding;
use throng_render::device::test_gpu;
use throng_render::gpu_types::single_layer;
use throng_render::{
    InstanceTransform, LayerRecord, ReferenceMesh, RenderOptions, Renderer, Skinning,
};

fn crowd() -> (Vec<InstanceTransform>, Vec<LayerRecord>) {
    let mut t = vec![];
    let mut r = vec![];
    for i in 0..5u32 {
        let x = (i as f32 - 2.0) * 1.4;
        t.push(InstanceTransform::from_mat4(
            Mat4::from_translation(Vec3::new(x, 0.0, -(i as f32 % 2.0) * 0.8))
                * Mat4::from_rotation_y(0.3 * i as f32),
        ));
        // Frames 0, 4, 7 (+ 0.5), 11, 15 of the bend clip (rows 1..=16).
        let row = 1 + [0, 4, 7, 11, 15][i as usize];
        r.push(single_layer(row, if i == 2 { 0.5 } else { 0.0 }, 0));
    }
    (t, r)
}

fn save(img: &image::RgbaImage, name: &str) {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    img.save(&path).expect("write png");
    eprintln!("wrote {}", path.display());
}

fn is_orange(p: &image::Rgba<u8>) -> bool {
    p[0] > 100 && p[0] as i32 > p[2] as i32 + 60 && p[1] < p[0]
}

#[test]
fn texture_path_draws_what_the_reference_path_draws() {
    let Some(gpu) = test_gpu() else { return };
    let mut r = Renderer::with_gpu(gpu);
    eprintln!("adapter: {}", r.adapter());
    let (transforms, records) = crowd();
    let opts = RenderOptions {
        width: 256,
        height: 192,
        ..Default::default()
    };
    for (encoding, skinning) in [
        (Encoding::Mat3x4F32, Skinning::Linear),
        (Encoding::QuatSnorm16, Skinning::DualQuat),
    ] {
        let asset = common::tube_asset(encoding);
        let g = r.upload(&asset).expect("upload");
        let opts = RenderOptions { skinning, ..opts };
        let shown = r
            .render_texture(&g, &transforms, &records, &opts)
            .expect("texture render");
        save(
            &shown,
            &format!("tube-{}-{}.png", encoding.as_str(), skinning.as_str()),
        );
        let total = (opts.width * opts.height) as usize;
        let grey = shown
            .pixels()
            .filter(|p| (p[0] as i32 - p[2] as i32).abs() < 12 && p[0] > 40)
            .count();
        assert!(grey > total / 5, "ground not visible ({grey} grey pixels)");

        // The same crowd skinned on the CPU, one reference mesh per instance.
        let mode = match skinning {
            Skinning::Linear => SkinMode::Linear,
            Skinning::DualQuat => SkinMode::DualQuaternion,
        };
        let skinned: Vec<_> = records
            .iter()
            .map(|rec| skin_vertices(&asset, 0, rec, mode).expect("cpu skin"))
            .collect();
        let prim = &asset.primitives[0];
        let meshes: Vec<ReferenceMesh> = skinned
            .iter()
            .zip(&transforms)
            .map(|(s, t)| ReferenceMesh {
                positions: &s.positions,
                normals: &s.normals,
                indices: &prim.indices,
                base_color: asset.materials[0].base_color_factor,
                transforms: std::slice::from_ref(t),
            })
            .collect();
        // The reference path frames the camera from the skinned vertices, the texture path from
        // the clip bounds: give both the same camera.
        let aspect = opts.width as f32 / opts.height as f32;
        let scene = throng_render::camera::crowd_bounds(&g.bounds, &transforms);
        let cam = throng_render::Camera::framing(&scene, aspect);
        // The ground is sized from the scene bounds, which differ between the two paths too.
        let opts_cam = RenderOptions {
            camera: Some(cam),
            ground: false,
            ..opts
        };
        let tex = r
            .render_texture(&g, &transforms, &records, &opts_cam)
            .expect("texture render");
        let reference = r
            .render_reference(&meshes, &opts_cam)
            .expect("reference render");
        save(
            &reference,
            &format!(
                "tube-{}-{}-reference.png",
                encoding.as_str(),
                skinning.as_str()
            ),
        );

        let orange = tex.pixels().filter(|p| is_orange(p)).count();
        assert!(orange > total / 50, "only {orange} tube pixels of {total}");
        let bg = tex.pixels().filter(|p| p[2] > p[0] + 30).count();
        assert!(bg > total / 10, "no sky/background visible ({bg} pixels)");
        // Pixels that differ by more than 8/255 in any channel: only along a few edges.
        let differ = tex
            .pixels()
            .zip(reference.pixels())
            .filter(|(a, b)| (0..3).any(|c| (a[c] as i32 - b[c] as i32).abs() > 8))
            .count();
        eprintln!(
            "{} {}: {orange} tube pixels, {differ} of {total} differ from the reference path",
            encoding.as_str(),
            skinning.as_str()
        );
        assert!(
            differ <= total / 500,
            "{differ} pixels differ from the reference path"
        );
    }
}

#[test]
fn empty_crowd_draws_only_the_ground_and_mismatched_inputs_are_errors() {
    let Some(gpu) = test_gpu() else { return };
    let mut r = Renderer::with_gpu(gpu);
    let asset = common::tube_asset(Encoding::QuatF32);
    let g = r.upload(&asset).expect("upload");
    let opts = RenderOptions {
        width: 64,
        height: 64,
        ..Default::default()
    };
    let img = r.render_texture(&g, &[], &[], &opts).expect("empty render");
    assert!(!img.pixels().any(is_orange));
    let err = r
        .render_texture(&g, &[InstanceTransform::IDENTITY], &[], &opts)
        .expect_err("one transform, no record");
    assert!(err.to_string().contains("instance records"), "{err}");
    let bad = RenderOptions { width: 0, ..opts };
    assert!(r.render_texture(&g, &[], &[], &bad).is_err());
}
