//! Where the camera of an overview picture (`throng demo`) stands: a 3/4 view from above and to the front-right of the crowd,
//! as close as it can be while every corner of the crowd's bounds stays in the picture.
//! World space: +Y up, file units; angles radians.

use glam::Vec3;
use std::f32::consts::{FRAC_PI_6, PI};
use throng_asset::Aabb;
use throng_render::camera::{look_at_rh, perspective_rh};
use throng_render::Camera;

/// Vertical field of view (35°, a mild telephoto that keeps the far rows readable).
const FOV_Y: f32 = 35.0 * PI / 180.0;
/// Azimuth of the camera around +Y from +Z (the way the characters face by default): 30°.
const YAW: f32 = FRAC_PI_6;
/// Elevation above the ground plane: 30°.
const PITCH: f32 = FRAC_PI_6;
/// Largest |x| and |y| in normalised device coordinates the crowd's bounds may reach: a small
/// margin inside the image edge.
const FILL: f32 = 0.97;

/// The projected extent of `b`'s corners in normalised device coordinates: (min x, max x,
/// min y, max y), or `None` when a corner is behind the camera.
fn extent(b: &Aabb, eye: Vec3, target: Vec3, aspect: f32) -> Option<[f32; 4]> {
    let m = perspective_rh(FOV_Y, aspect, 1e-3, 1e9) * look_at_rh(eye, target, Vec3::Y);
    let mut e = [
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::INFINITY,
        f32::NEG_INFINITY,
    ];
    for c in b.corners() {
        let p = m * c.extend(1.0);
        if p.w <= 1e-6 {
            return None;
        }
        let (x, y) = (p.x / p.w, p.y / p.w);
        e = [e[0].min(x), e[1].max(x), e[2].min(y), e[3].max(y)];
    }
    Some(e)
}

/// Whether every corner of `b` lands inside ±`FILL` of the image and in front of the camera.
fn fits(b: &Aabb, eye: Vec3, target: Vec3, aspect: f32) -> bool {
    extent(b, eye, target, aspect)
        .is_some_and(|e| e[0] >= -FILL && e[1] <= FILL && e[2] >= -FILL && e[3] <= FILL)
}

/// Smallest distance along `dir` from `target` at which `b` fits (bisection: 40 halvings of
/// 0.01…20 radii; at 20 radii a 35° view holds the bounding sphere).
fn fit_distance(b: &Aabb, target: Vec3, dir: Vec3, radius: f32, aspect: f32) -> f32 {
    let (mut lo, mut hi) = (radius * 0.01, radius * 20.0);
    for _ in 0..40 {
        let mid = 0.5 * (lo + hi);
        if fits(b, target + dir * mid, target, aspect) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

/// The camera for a crowd whose bounds are `scene`, for an image of `aspect` = width / height.
/// It looks from the fixed direction (`YAW`, `PITCH`) and is moved sideways and up or down
/// until the crowd's projection is centred, and in or out (bisection) until it just fits:
/// perspective makes the near rows larger, so looking at the centre of the bounds would leave
/// the top of the picture empty.
pub fn overview_camera(scene: &Aabb, aspect: f32) -> Camera {
    let (min, max) = if scene.is_empty() {
        (Vec3::splat(-1.0), Vec3::splat(1.0))
    } else {
        (scene.min, scene.max)
    };
    let b = Aabb { min, max };
    let radius = ((max - min).length() * 0.5).max(1e-6);
    let mut target = (min + max) * 0.5;
    let dir = Vec3::new(
        YAW.sin() * PITCH.cos(),
        PITCH.sin(),
        YAW.cos() * PITCH.cos(),
    );
    let right = Vec3::Y.cross(dir).normalize();
    let up = dir.cross(right);
    let half_h = (FOV_Y * 0.5).tan();
    let mut dist = fit_distance(&b, target, dir, radius, aspect);
    for _ in 0..6 {
        let Some(e) = extent(&b, target + dir * dist, target, aspect) else {
            break;
        };
        // An offset of one NDC unit at the target's depth is `dist · tan(fov/2)` (× aspect
        // horizontally) in world units.
        let (cx, cy) = (0.5 * (e[0] + e[1]), 0.5 * (e[2] + e[3]));
        target += right * (cx * dist * half_h * aspect) + up * (cy * dist * half_h);
        dist = fit_distance(&b, target, dir, radius, aspect);
    }
    let eye = target + dir * dist;
    let centre = (min + max) * 0.5;
    let to_centre = (eye - centre).length();
    Camera {
        eye,
        target,
        up: Vec3::Y,
        fov_y: FOV_Y,
        // The ground reaches 2.5 radii from the centre (throng_render::camera::frame_uniform).
        near: (to_centre - 1.5 * radius).max(to_centre * 0.01),
        far: to_centre + 3.0 * radius,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crowd_fits_and_touches_an_edge() {
        let scene = Aabb {
            min: Vec3::new(-50.0, 0.0, -50.0),
            max: Vec3::new(50.0, 0.8, 50.0),
        };
        for aspect in [16.0 / 9.0, 1.0, 0.5] {
            let cam = overview_camera(&scene, aspect);
            let m = cam.view_proj(aspect);
            let mut widest = 0f32;
            for c in scene.corners() {
                let p = m * c.extend(1.0);
                let (x, y, z) = (p.x / p.w, p.y / p.w, p.z / p.w);
                assert!(
                    x.abs() <= FILL + 1e-4 && y.abs() <= FILL + 1e-4,
                    "{c} → {x} {y}"
                );
                assert!((0.0..=1.0).contains(&z), "{c}: depth {z}");
                widest = widest.max(x.abs()).max(y.abs());
            }
            // Bisection to 40 halvings: the crowd reaches the margin within 1 %.
            assert!(widest > FILL * 0.99, "aspect {aspect}: widest {widest}");
            assert!(cam.eye.y > scene.max.y, "camera above the crowd");
        }
    }
}
