//! Motion vectors on the palette path (docs/design.md §5 "Motion vectors"), on whatever adapter
//! wgpu finds (lavapipe without a GPU).
//!
//! A tube instance (linear blend skinning, and dual quaternions) moves (translated and turned), animates (other rows of its clip) and the
//! camera moves between two frames. The reference is computed here, per pixel, without the GPU:
//! a ray through the pixel's centre hits the tube as the CPU decoder skins it in the second
//! frame (or the ground plane); the hit's barycentric coordinates give the same surface point
//! in the first frame (the decoder's skinning of the first frame's record, at the first
//! transform), projected by the first camera. The motion vector is the pixel centre minus that
//! projection. Tolerance: 0.05 px per pixel (f16 storage of the UV motion is ~0.01 px here; the
//! rest is f32 skinning), exceeded by at most 1 % of the drawn pixels — those on silhouettes
//! and triangle edges, where the rasteriser's coverage and the ray's hit may pick different
//! triangles.
//!
//! Also: with nothing moving the target is 0 everywhere (to f16 precision of nothing: below
//! 1e-3 px), the first frame (no history) shows only the camera's motion (none: 0 too), the
//! debug view is written as a picture, and motion vectors off the palette path or with props
//! are typed errors.

mod common;

use common::motion::{frames, opts, render};
use glam::Vec3;
use throng_asset::Encoding;
use throng_render::{
    Crowd, DebugView, InstanceTransform, Playback, Records, RenderError, RenderOptions, SkinPath,
    Skinning,
};

#[test]
fn motion_vectors_equal_the_cpu_projection_of_the_same_surface_point() {
    let Some(mut r) = common::renderer() else {
        return;
    };
    common::motion::motion_scenario(&mut r, "", Skinning::Linear);
    // A renderer of its own: the scenario's first frame has no previous camera.
    let Some(mut r) = common::renderer() else {
        return;
    };
    common::motion::motion_scenario(&mut r, "-dq", Skinning::DualQuat);
}

#[test]
fn motion_debug_view_and_errors() {
    let Some(mut r) = common::renderer() else {
        return;
    };
    let (_, g) = common::uploaded_tube(&r, Encoding::Mat3x4F32);
    let fr = frames();
    let view = |camera| RenderOptions {
        motion_vectors: false,
        debug: Some(DebugView::Motion),
        ..opts(camera)
    };
    render(&mut r, &g, &fr[0], &view(fr[0].camera));
    let (image, _) = render(&mut r, &g, &fr[1], &view(fr[1].camera));
    common::save(&image, "motion-debug.png");
    // The tube moves by more than the ground: brighter pixels there (full at 8 px).
    let bright = image
        .pixels()
        .filter(|p| p[0].max(p[1]).max(p[2]) > 60)
        .count();
    assert!(bright > 500, "{bright} bright pixels in the motion view");
    // Off the palette path, and with props: typed errors.
    let t = [InstanceTransform::IDENTITY];
    let records = [fr[0].record];
    let crowd = Crowd::new(&g, &t, Playback::Records(Records::Cpu(&records)));
    let texture = RenderOptions {
        path: SkinPath::Texture,
        ..opts(fr[0].camera)
    };
    let err = r.render_scene(&[crowd], &texture).err();
    assert!(
        matches!(err, Some(RenderError::MotionVectorsNeedPalette { .. })),
        "{err:?}"
    );
    // One triangle is prop enough.
    let positions = [Vec3::ZERO, Vec3::X * 0.1, Vec3::Y * 0.1];
    let normals = [Vec3::Z; 3];
    let mesh = throng_render::PropMesh {
        positions: &positions,
        normals: &normals,
        indices: &[0, 1, 2],
        uvs: None,
        material: throng_render::gpu_types::MaterialUniform::color([1.0; 4]),
        texture: None,
    };
    let prop_mesh = r.upload_prop(&mesh).expect("prop");
    let props = [throng_render::Prop {
        anchor: 0,
        mesh: &prop_mesh,
    }];
    let with_props = Crowd {
        props: &props,
        ..crowd
    };
    let err = r.render_scene(&[with_props], &opts(fr[0].camera)).err();
    assert!(
        matches!(err, Some(RenderError::MotionVectorsWithProps { .. })),
        "{err:?}"
    );
}
