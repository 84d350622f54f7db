//! Per-instance appearance (docs/design.md §5 "Appearance") on whatever adapter wgpu finds: a
//! crowd of the KayKit mannequin (8 primitives on one skin) with tints, material variants (a
//! second base-colour factor, and a second texture) and part masks, on the texture, palette,
//! VAT and downlevel paths, against the reference path drawing each instance's shown primitives
//! in its variant's material with its tint (`DecodedMeshes::meshes_with`). At most 0.5 % of the
//! pixels — of the picture and of each instance's share of it — differ by more than 8/255. A
//! crowd whose every part is hidden draws the ground alone: no pixel and no shadow.

mod common;

use common::appearance::{crowd, differing, front_camera, manny, reference_scenario};
use common::renderer;

use throng_contract::Appearance;
use throng_render::{
    AppearanceUpload, Crowd, CrowdAppearance, InstanceRecord, Playback, Records, RenderOptions,
    SkinPath,
};

#[test]
fn appearance_draws_what_the_reference_path_draws() {
    let Some(mut r) = renderer() else { return };
    reference_scenario(&mut r, "");
}

#[test]
fn a_hidden_part_leaves_no_pixel_and_no_shadow() {
    let Some(mut r) = renderer() else { return };
    let Some(asset) = manny() else { return };
    let g = r.upload(&asset).expect("upload");
    let (transforms, _) = crowd(&asset);
    let records = vec![InstanceRecord::default(); transforms.len()];
    let scene = throng_render::camera::crowd_bounds(&g.bounds, &transforms);
    let opts = RenderOptions {
        width: 360,
        height: 120,
        camera: Some(front_camera(&asset)),
        scene: Some(scene),
        ..Default::default()
    };
    let hidden = vec![Appearance::DEFAULT.with_parts(0); transforms.len()];
    let ground = r
        .render_scene(
            &[Crowd::new(&g, &[], Playback::Records(Records::Cpu(&[])))],
            &opts,
        )
        .expect("ground");
    for path in [SkinPath::Texture, SkinPath::Palette, SkinPath::Vat] {
        let o = RenderOptions { path, ..opts };
        let crowd = Crowd {
            appearance: CrowdAppearance::Slice(&hidden),
            ..Crowd::new(&g, &transforms, Playback::Records(Records::Cpu(&records)))
        };
        let img = r.render_scene(&[crowd], &o).expect("render").image;
        let (d, _) = differing(&img, &ground.image, 1);
        assert_eq!(d, 0, "{path:?}: hidden parts drew {d} pixels (or shadows)");
        let shown = r
            .render_scene(
                &[Crowd::new(
                    &g,
                    &transforms,
                    Playback::Records(Records::Cpu(&records)),
                )],
                &o,
            )
            .expect("render")
            .image;
        let (d, _) = differing(&shown, &ground.image, 1);
        assert!(d > 1000, "{path:?}: the shown crowd drew only {d} pixels");
    }
}

#[test]
fn one_changed_tint_uploads_one_texel() {
    let Some(r) = renderer() else { return };
    let mut looks = throng_runtime::Appearances::new(10_000);
    let gpu = &r.gpu;
    let mut up = AppearanceUpload::new(&gpu.device, &gpu.queue, looks.values());
    looks.clear_changes();
    looks
        .set_tint(4321, [10, 20, 30, 255])
        .expect("in the crowd");
    assert_eq!(up.update(&gpu.device, &gpu.queue, looks.changes()), 16);
    looks.clear_changes();
    assert_eq!(up.update(&gpu.device, &gpu.queue, looks.changes()), 0);
    looks.swap_remove(3);
    assert_eq!(
        up.update(&gpu.device, &gpu.queue, looks.changes()),
        16 * 9_999,
        "a despawn re-sends all"
    );
}
