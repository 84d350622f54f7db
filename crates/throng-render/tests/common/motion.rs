//! Motion vectors' scenario (docs/design.md §5 "Motion vectors"), shared by `tests/motion.rs`
//! (default backend) and `tests/motion_gl.rs` (wgpu's GL backend). See `tests/motion.rs` for
//! what it checks and its tolerances.

use glam::{DVec3, Mat4, Vec2, Vec3, Vec4Swizzles};
use throng_asset::{decode, Aabb, Encoding};
use throng_render::gpu_types::single_layer;
use throng_render::{
    Camera, Crowd, InstanceRecord, InstanceTransform, MotionImage, Playback, Records,
    RenderOptions, Renderer, SkinPath, Skinning,
};

pub const W: u32 = 320;
pub const H: u32 = 240;

/// One frame of the scene: the tube's record and transform and the camera.
pub struct Frame {
    pub record: InstanceRecord,
    pub transform: Mat4,
    pub camera: Camera,
}

pub fn frames() -> [Frame; 2] {
    let target = Vec3::new(0.0, 1.0, 0.0);
    [
        Frame {
            record: single_layer(4, 0.3, 0),
            transform: Mat4::IDENTITY,
            camera: Camera::looking_at(Vec3::new(0.8, 1.6, 5.0), target, 0.6),
        },
        Frame {
            record: single_layer(6, 0.7, 0),
            transform: Mat4::from_translation(Vec3::new(0.12, 0.0, 0.05))
                * Mat4::from_rotation_y(0.1),
            camera: Camera::looking_at(Vec3::new(0.95, 1.55, 5.0), target, 0.6),
        },
    ]
}

/// The scene's bounds (fixed, so the ground sits at y = 0 and the shadow camera stays put).
pub fn scene() -> Aabb {
    Aabb {
        min: Vec3::new(-1.5, 0.0, -1.5),
        max: Vec3::new(1.5, 2.2, 1.5),
    }
}

pub fn opts(camera: Camera) -> RenderOptions {
    RenderOptions {
        width: W,
        height: H,
        path: SkinPath::Palette,
        camera: Some(camera),
        scene: Some(scene()),
        motion_vectors: true,
        ..Default::default()
    }
}

pub fn render(
    r: &mut Renderer,
    g: &throng_render::GpuAsset,
    f: &Frame,
    opts: &RenderOptions,
) -> (image::RgbaImage, MotionImage) {
    let t = [InstanceTransform::from_mat4(&f.transform)];
    let records = [f.record];
    let crowd = Crowd::new(g, &t, Playback::Records(Records::Cpu(&records)));
    let frame = r.render_scene(&[crowd], opts).expect("render");
    (frame.image, frame.motion.expect("motion vectors read back"))
}

/// Pixel coordinates (x right, y down, pixel centres at +0.5) of a world point seen by
/// `view_proj`.
pub fn to_pixels(view_proj: &Mat4, p: DVec3) -> Vec2 {
    let c = *view_proj * p.as_vec3().extend(1.0);
    let ndc = c.xy() / c.w;
    Vec2::new(
        (ndc.x + 1.0) * 0.5 * W as f32,
        (1.0 - ndc.y) * 0.5 * H as f32,
    )
}

/// Möller–Trumbore: distance along `dir` and barycentric (u, v) of the hit, if any.
pub fn ray_triangle(o: DVec3, dir: DVec3, a: DVec3, b: DVec3, c: DVec3) -> Option<(f64, f64, f64)> {
    let e1 = b - a;
    let e2 = c - a;
    let p = dir.cross(e2);
    let det = e1.dot(p);
    if det.abs() < 1e-12 {
        return None;
    }
    let s = o - a;
    let u = s.dot(p) / det;
    let q = s.cross(e1);
    let v = dir.dot(q) / det;
    if u < 0.0 || v < 0.0 || u + v > 1.0 {
        return None;
    }
    let t = e2.dot(q) / det;
    (t > 0.0).then_some((t, u, v))
}

/// The tube's world-space vertices in a frame, skinned by the CPU decoder.
pub fn world_vertices(
    asset: &throng_asset::BakedAsset,
    f: &Frame,
    skinning: decode::Skinning,
) -> Vec<DVec3> {
    let skinned = super::cpu_skinned(asset, &[f.record], skinning);
    skinned[0]
        .positions
        .iter()
        .map(|p| f.transform.transform_point3(*p).as_dvec3())
        .collect()
}

/// What the CPU expects at one pixel of the second frame: the motion in pixels, and whether
/// the tube (rather than the ground or nothing) is there.
pub fn expected(
    asset: &throng_asset::BakedAsset,
    [a, b]: &[Frame; 2],
    skinning: decode::Skinning,
) -> Vec<Option<(Vec2, bool)>> {
    let aspect = W as f32 / H as f32;
    let vp_a = a.camera.view_proj(aspect);
    let vp_b = b.camera.view_proj(aspect);
    let inv_b = vp_b.inverse().as_dmat4();
    let verts_a = world_vertices(asset, a, skinning);
    let verts_b = world_vertices(asset, b, skinning);
    let tris: Vec<[usize; 3]> = asset.primitives[0]
        .indices
        .chunks_exact(3)
        .map(|t| [t[0] as usize, t[1] as usize, t[2] as usize])
        .collect();
    let ground = scene();
    let half = 2.5 * ground.diagonal() * 0.5;
    let mut out = Vec::with_capacity((W * H) as usize);
    for y in 0..H {
        for x in 0..W {
            let centre = Vec2::new(x as f32 + 0.5, y as f32 + 0.5);
            let ndc = glam::DVec2::new(
                centre.x as f64 / W as f64 * 2.0 - 1.0,
                1.0 - centre.y as f64 / H as f64 * 2.0,
            );
            let near = inv_b.project_point3(ndc.extend(0.0));
            let far = inv_b.project_point3(ndc.extend(1.0));
            let dir = (far - near).normalize();
            let mut best: Option<(f64, [usize; 3], f64, f64)> = None;
            for t in &tris {
                let [i, j, k] = *t;
                if let Some((d, u, v)) = ray_triangle(near, dir, verts_b[i], verts_b[j], verts_b[k])
                {
                    if best.is_none_or(|b| d < b.0) {
                        best = Some((d, *t, u, v));
                    }
                }
            }
            // The ground plane y = 0 within its half extent (centred on the scene).
            let ground_hit = (dir.y < 0.0).then(|| -near.y / dir.y).and_then(|d| {
                let p = near + dir * d;
                let c = ((ground.min + ground.max) * 0.5).as_dvec3();
                ((p.x - c.x).abs() < half as f64 && (p.z - c.z).abs() < half as f64)
                    .then_some((d, p))
            });
            let e = match (best, ground_hit) {
                (Some((d, [i, j, k], u, v)), g) if g.is_none_or(|g| d < g.0) => {
                    let prev = verts_a[i] * (1.0 - u - v) + verts_a[j] * u + verts_a[k] * v;
                    Some((centre - to_pixels(&vp_a, prev), true))
                }
                (_, Some((_, p))) => Some((centre - to_pixels(&vp_a, p), false)),
                _ => None,
            };
            out.push(e);
        }
    }
    out
}

/// The scenario of `tests/motion.rs` (and `motion_gl.rs`): its assertions, on `r`, skinned by
/// linear blend or (a quat-f32 tube) dual quaternions; `tag` names the saved picture.
pub fn motion_scenario(r: &mut Renderer, tag: &str, skinning: Skinning) {
    let (encoding, cpu) = match skinning {
        Skinning::Linear => (Encoding::Mat3x4F32, decode::Skinning::Linear),
        Skinning::DualQuat => (Encoding::QuatF32, decode::Skinning::DualQuat),
    };
    let opts = |camera| RenderOptions {
        skinning,
        ..opts(camera)
    };
    let asset = super::tube_asset(encoding);
    let g = r.upload(&asset).expect("upload");
    let fr = frames();
    // The first frame has no history: only the camera could have moved, and there is no
    // previous camera either.
    let (_, first) = render(r, &g, &fr[0], &opts(fr[0].camera));
    let first_max = first
        .uv
        .iter()
        .map(|m| m[0].abs().max(m[1].abs()))
        .fold(0.0f32, f32::max);
    assert!(
        first_max * W as f32 <= 1e-3,
        "first frame moved {first_max}"
    );
    let (image, motion) = render(r, &g, &fr[1], &opts(fr[1].camera));
    super::save(&image, &format!("motion-frame{tag}.png"));
    let want = expected(&asset, &fr, cpu);
    let (mut tube, mut ground, mut off, mut worst) = (0usize, 0usize, 0usize, 0.0f32);
    let mut tube_motion = Vec2::ZERO;
    for y in 0..H {
        for x in 0..W {
            let got = motion.pixels_at(x, y).expect("inside");
            let Some((e, on_tube)) = want[(y * W + x) as usize] else {
                // Nothing drawn: cleared to 0.
                if got.length() > 0.0 {
                    off += 1;
                }
                continue;
            };
            if on_tube {
                tube += 1;
                tube_motion += e;
            } else {
                ground += 1;
            }
            let err = (got - e).length();
            if err > 0.05 {
                off += 1;
            } else {
                worst = worst.max(err);
            }
        }
    }
    let drawn = tube + ground;
    eprintln!(
        "motion vectors ({skinning:?}): {tube} tube and {ground} ground pixels; mean tube motion {:.2} px; {off} pixels off by more than 0.05 px; worst of the rest {worst:.4} px",
        (tube_motion / tube.max(1) as f32).length()
    );
    assert!(tube > 1500, "the tube covers {tube} pixels");
    assert!(
        (tube_motion / tube as f32).length() > 2.0,
        "the tube moves several pixels"
    );
    assert!(
        off * 100 <= drawn,
        "{off} of {drawn} pixels differ by more than 0.05 px"
    );
    // Nothing moves: a frame like the last one has no motion.
    let (_, still) = render(r, &g, &fr[1], &opts(fr[1].camera));
    let still_max = (0..H)
        .flat_map(|y| (0..W).map(move |x| (x, y)))
        .map(|(x, y)| still.pixels_at(x, y).map_or(0.0, |m| m.length()))
        .fold(0.0f32, f32::max);
    assert!(still_max <= 1e-3, "a still frame moved {still_max} px");
}
