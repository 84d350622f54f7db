//! The directional light's shadow camera (docs/design.md §5 "Shadows"): an orthographic camera
//! looking along the light that covers what the main camera can see of the receivers (the
//! crowd and the ground) and, in depth, everything that can cast onto them.

use glam::{Mat4, Vec3, Vec4};
use throng_asset::Aabb;

use crate::camera::look_at_rh;

/// Shadow-map size used when [`crate::RenderOptions::shadow_map_size`] is left at its default.
pub const DEFAULT_SHADOW_MAP_SIZE: u32 = 2048;

/// World-space bounds of what `view_proj` (depth 0..1) can see: its 8 frustum corners.
pub fn frustum_bounds(view_proj: &Mat4) -> Aabb {
    let inv = view_proj.inverse();
    let mut b = Aabb::EMPTY;
    for i in 0..8 {
        let ndc = Vec4::new(
            if i & 1 == 0 { -1.0 } else { 1.0 },
            if i & 2 == 0 { -1.0 } else { 1.0 },
            if i & 4 == 0 { 0.0 } else { 1.0 },
            1.0,
        );
        let p = inv * ndc;
        if p.w.abs() > f32::MIN_POSITIVE {
            b.extend(p.truncate() / p.w);
        }
    }
    b
}

fn intersect(a: &Aabb, b: &Aabb) -> Aabb {
    let min = a.min.max(b.min);
    let max = a.max.min(b.max);
    if min.cmple(max).all() {
        Aabb { min, max }
    } else {
        Aabb::EMPTY
    }
}

/// Right-handed orthographic projection with depth 0..1 (view-space z = −near → 0, −far → 1).
pub fn orthographic_rh(left: f32, right: f32, bottom: f32, top: f32, near: f32, far: f32) -> Mat4 {
    let w = 1.0 / (right - left).max(f32::MIN_POSITIVE);
    let h = 1.0 / (top - bottom).max(f32::MIN_POSITIVE);
    let d = 1.0 / (near - far).min(-f32::MIN_POSITIVE);
    Mat4::from_cols(
        Vec4::new(2.0 * w, 0.0, 0.0, 0.0),
        Vec4::new(0.0, 2.0 * h, 0.0, 0.0),
        Vec4::new(0.0, 0.0, d, 0.0),
        Vec4::new(-(right + left) * w, -(top + bottom) * h, near * d, 1.0),
    )
}

/// An orthographic shadow camera.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShadowCamera {
    /// Clip-from-world matrix (column-major, depth 0..1).
    pub view_proj: Mat4,
    /// One shadow-map texel in world units (file units).
    pub texel: f32,
    /// Depth offset (clip depth) applied to receivers before the comparison: 1.5 texels.
    pub depth_bias: f32,
}

/// The shadow camera for a shadow map of `map_size` texels square.
///
/// - `light_dir`: unit direction the light travels (world).
/// - `receivers`: bounds of everything that receives shadows (crowd and ground).
/// - `casters`: bounds of everything that casts them (the crowd).
/// - `view_proj`: the main camera; only the part of `receivers` it can see is covered, so the
///   map's texels are spent where they show.
pub fn shadow_view_proj(
    light_dir: Vec3,
    receivers: &Aabb,
    casters: &Aabb,
    view_proj: &Mat4,
    map_size: u32,
) -> ShadowCamera {
    let seen = intersect(receivers, &frustum_bounds(view_proj));
    let cover = if seen.is_empty() { *receivers } else { seen };
    if cover.is_empty() {
        return ShadowCamera {
            view_proj: Mat4::IDENTITY,
            texel: 1.0,
            depth_bias: 0.0,
        };
    }
    let all = cover.union(casters);
    let centre = (cover.min + cover.max) * 0.5;
    let dir = light_dir.normalize_or(Vec3::NEG_Y);
    let up = if dir.cross(Vec3::Y).length_squared() < 1e-6 {
        Vec3::Z
    } else {
        Vec3::Y
    };
    let radius = all.diagonal().max(1e-6);
    let view = look_at_rh(centre - dir * radius, centre, up);
    // x, y: the covered receivers; depth: the casters too (they may stand outside the view).
    let mut xy = Aabb::EMPTY;
    for c in cover.corners() {
        xy.extend(view.transform_point3(c));
    }
    let mut z = Aabb::EMPTY;
    for c in all.corners() {
        z.extend(view.transform_point3(c));
    }
    // Right-handed view space looks down −z: near = −max z, far = −min z.
    let near = -z.max.z - 1e-3 * radius;
    let far = -z.min.z + 1e-3 * radius;
    let proj = orthographic_rh(xy.min.x, xy.max.x, xy.min.y, xy.max.y, near, far);
    let texel = (xy.max.x - xy.min.x).max(xy.max.y - xy.min.y) / map_size.max(1) as f32;
    ShadowCamera {
        view_proj: proj * view,
        texel,
        depth_bias: 1.5 * texel / (far - near).max(f32::MIN_POSITIVE),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aabb(min: [f32; 3], max: [f32; 3]) -> Aabb {
        Aabb {
            min: Vec3::from(min),
            max: Vec3::from(max),
        }
    }

    /// Every corner of the receivers and casters lands inside the shadow camera's clip volume
    /// when the main camera sees the whole scene.
    #[test]
    fn shadow_camera_holds_receivers_and_casters() {
        let receivers = aabb([-10.0, 0.0, -10.0], [10.0, 0.0, 10.0]);
        let casters = aabb([-2.0, 0.0, -2.0], [2.0, 3.0, 2.0]);
        let cam = crate::Camera::framing(&receivers.union(&casters), 1.0);
        let s = shadow_view_proj(
            Vec3::new(-0.4, -1.0, -0.5).normalize(),
            &receivers,
            &casters,
            &cam.view_proj(1.0),
            2048,
        );
        let (vp, texel) = (s.view_proj, s.texel);
        for c in receivers.corners().into_iter().chain(casters.corners()) {
            let p = vp * c.extend(1.0);
            let n = p.truncate() / p.w;
            assert!(
                n.x.abs() <= 1.0 + 1e-4 && n.y.abs() <= 1.0 + 1e-4,
                "{c} → {n}"
            );
            assert!((-1e-4..=1.0 + 1e-4).contains(&n.z), "{c} → depth {}", n.z);
        }
        // The 20 × 20 ground seen at an angle: texels of roughly 20·√2 / 2048 or more.
        assert!(texel > 20.0 / 2048.0 && texel < 40.0 / 2048.0, "{texel}");
    }

    /// A caster outside the main view but between the light and a seen receiver still falls
    /// inside the shadow camera.
    #[test]
    fn casters_outside_the_view_stay_in_the_shadow_camera() {
        let receivers = aabb([-1.0, 0.0, -1.0], [1.0, 0.0, 1.0]);
        // Straight above the receivers, far above the main camera's view.
        let casters = aabb([-0.5, 40.0, -0.5], [0.5, 41.0, 0.5]);
        let view = crate::camera::perspective_rh(0.6, 1.0, 0.1, 100.0)
            * look_at_rh(Vec3::new(0.0, 1.0, 6.0), Vec3::ZERO, Vec3::Y);
        let planes = crate::camera::frustum_planes(&view);
        let top = Vec3::new(0.0, 40.5, 0.0);
        assert!(planes.iter().any(|p| p.truncate().dot(top) + p.w < 0.0));
        let s = shadow_view_proj(Vec3::NEG_Y, &receivers, &casters, &view, 1024);
        let n = s.view_proj * top.extend(1.0);
        assert!(n.x.abs() <= 1.0 && n.y.abs() <= 1.0 && (0.0..=1.0).contains(&n.z));
    }
}
