//! What the renderer's downlevel mode (the one WebGL2 runs, docs/web.md) cannot draw reaches
//! the page as an error naming the missing capability, never as an empty frame: the page's
//! own frame options and crowd, drawn natively with the mode forced, and the message the
//! JavaScript `Error` would carry (`message_chain`).

use throng_render::{Renderer, SkinPath};
use throng_runtime::Timing;
use throng_web::error::message_chain;
use throng_web::{ClipRef, CrowdSpec, Player, WebError};

fn fox() -> throng_asset::BakedAsset {
    let glb = throng_demo::demo_glb();
    let model = throng_gltf::import_slice(&glb, None, "throng-demo-fox.glb").expect("import");
    let options = throng_bake::BakeOptions {
        source_name: "throng-demo-fox.glb".into(),
        ..Default::default()
    };
    throng_bake::bake(&model, &options).expect("bake").0
}

#[test]
fn what_the_downlevel_mode_cannot_draw_is_an_error_naming_the_capability() {
    let Some(gpu) = throng_render::device::test_gpu() else {
        return;
    };
    let mut renderer = Renderer::with_gpu(gpu);
    let fox = fox();
    let gpu_asset = renderer.upload(&fox).expect("upload");
    let mut player = Player::new(fox, Timing::Cpu);
    let spec = CrowdSpec {
        count: 4,
        clip: Some(ClipRef::Name("walk".into())),
        ..Default::default()
    };
    player.spawn_crowd(&spec).expect("crowd");
    let options = |path, motion_vectors| {
        let mut opts = player.render_options(64, 48, path == SkinPath::Palette);
        opts.downlevel = true;
        opts.motion_vectors = motion_vectors;
        opts
    };
    let crowd = player.crowd(&gpu_asset);
    let mut draw = |crowds: &[throng_render::Crowd], path, motion_vectors| {
        renderer
            .render_scene(crowds, &options(path, motion_vectors))
            .map(|frame| frame.image)
            .map_err(|e| message_chain(&WebError::from(e)))
    };
    let palette = draw(&[crowd], SkinPath::Palette, false).expect_err("no palette path");
    assert!(
        palette.starts_with("the palette path needs compute shaders"),
        "{palette}"
    );
    let motion = draw(&[crowd], SkinPath::Texture, true).expect_err("no motion vectors");
    assert!(
        motion.starts_with("drawing motion vectors needs the palette path's compute shaders"),
        "{motion}"
    );
    // What the page asks for on a WebGL2 device (no palette: `palette_fits` is false there)
    // draws the foxes.
    let frame = draw(&[crowd], SkinPath::Texture, false).expect("the texture path draws");
    let empty = draw(&[], SkinPath::Texture, false).expect("the empty scene draws");
    let foxes = (frame.pixels().zip(empty.pixels()))
        .filter(|(a, b)| a != b)
        .count();
    assert!(foxes > 64 * 48 / 50, "foxes on only {foxes} pixels");
}
