//! Camera and lighting of headless renders. World space = the scene's model space (glTF: right
//! handed, +Y up, characters face +Z); lengths in file units; angles in radians.

use glam::{Mat4, Vec3, Vec4};
use throng_asset::Aabb;

use crate::gpu_types::{FrameUniform, InstanceTransform};

/// A perspective camera (wgpu clip space: depth 0..1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    pub eye: Vec3,
    pub target: Vec3,
    pub up: Vec3,
    /// Vertical field of view, radians.
    pub fov_y: f32,
    /// Near and far plane distances (file units).
    pub near: f32,
    pub far: f32,
}

/// Direction (from the target) the framing camera looks from: front-right, a little above.
const FRAMING_DIR: Vec3 = Vec3::new(0.45, 0.35, 1.0);

impl Camera {
    /// Frames `bounds` for an image of `aspect` = width / height: looks at its centre from the
    /// front-right and above, far enough that its bounding sphere fits both fields of view.
    pub fn framing(bounds: &Aabb, aspect: f32) -> Camera {
        let (centre, radius) = if bounds.is_empty() {
            (Vec3::ZERO, 1.0)
        } else {
            (
                (bounds.min + bounds.max) * 0.5,
                (bounds.diagonal() * 0.5).max(1e-6),
            )
        };
        let fov_y = 35f32.to_radians();
        let half_x = ((fov_y * 0.5).tan() * aspect.max(1e-3)).atan();
        let half = (fov_y * 0.5).min(half_x);
        let dist = radius / half.sin() * 1.05;
        Camera {
            eye: centre + FRAMING_DIR.normalize() * dist,
            target: centre,
            up: Vec3::Y,
            fov_y,
            near: (dist - 4.0 * radius).max(dist * 0.01),
            far: dist + 4.0 * radius,
        }
    }

    /// A camera at `eye` looking at `target` (+Y up) with a vertical field of view of `fov_y`
    /// radians; near and far planes from the distance (1/100 and 100 times it).
    pub fn looking_at(eye: Vec3, target: Vec3, fov_y: f32) -> Camera {
        let dist = (eye - target).length().max(1e-6);
        Camera {
            eye,
            target,
            up: Vec3::Y,
            fov_y,
            near: dist * 0.01,
            far: dist * 100.0,
        }
    }

    /// Clip-from-world matrix (column-major): right-handed view, perspective to wgpu's clip
    /// space (x, y in −1..1, depth 0..1).
    pub fn view_proj(&self, aspect: f32) -> Mat4 {
        perspective_rh(self.fov_y, aspect, self.near, self.far)
            * look_at_rh(self.eye, self.target, self.up)
    }
}

/// Bounds of a crowd: `bounds` (model space) moved by every instance transform (its 8 corners).
pub fn crowd_bounds(bounds: &Aabb, transforms: &[InstanceTransform]) -> Aabb {
    let mut out = Aabb::EMPTY;
    if bounds.is_empty() {
        return out;
    }
    let corners = bounds.corners();
    for t in transforms {
        let m = t.to_mat4();
        for c in corners {
            out.extend(m.transform_point3(c));
        }
    }
    out
}

/// Frame uniform for a camera over `scene` bounds: one directional light from above-front-left,
/// ambient 0.25, and a checkered ground at the bottom of the scene spanning 2.5× its radius.
pub fn frame_uniform(camera: &Camera, aspect: f32, scene: &Aabb) -> FrameUniform {
    let (centre, radius, floor) = if scene.is_empty() {
        (Vec3::ZERO, 1.0, 0.0)
    } else {
        (
            (scene.min + scene.max) * 0.5,
            (scene.diagonal() * 0.5).max(1e-6),
            scene.min.y,
        )
    };
    let light_dir = Vec3::new(-0.4, -1.0, -0.5).normalize();
    let view_proj = camera.view_proj(aspect).to_cols_array_2d();
    FrameUniform {
        view_proj,
        light_dir: light_dir.extend(0.0).into(),
        light: [0.85, 0.85, 0.8, 0.25],
        ground: [centre.x, floor, centre.z, 2.5 * radius],
        ground_cell: [radius * 0.25, 0.0, 0.0, 0.0],
        // No shadow map and no debug view until the frame sets them.
        light_view_proj: glam::Mat4::IDENTITY.to_cols_array_2d(),
        shadow: [0.0; 4],
        debug: [0; 4],
        // No previous frame: nothing has moved.
        prev_view_proj: view_proj,
        motion: [0.0; 4],
        // The pixels a unit covers depend on the target's height: the frame sets w.
        eye: camera.eye.extend(0.0).into(),
    }
}

/// Right-handed perspective projection with depth 0..1 (near → 0, far → 1).
pub fn perspective_rh(fov_y: f32, aspect: f32, near: f32, far: f32) -> Mat4 {
    let h = 1.0 / (0.5 * fov_y).tan();
    let w = h / aspect;
    let r = far / (near - far);
    Mat4::from_cols(
        Vec4::new(w, 0.0, 0.0, 0.0),
        Vec4::new(0.0, h, 0.0, 0.0),
        Vec4::new(0.0, 0.0, r, -1.0),
        Vec4::new(0.0, 0.0, r * near, 0.0),
    )
}

/// Right-handed view matrix: the camera at `eye` looks at `target` (−Z forward, +Y up).
pub fn look_at_rh(eye: Vec3, target: Vec3, up: Vec3) -> Mat4 {
    let f = (target - eye).normalize();
    let s = f.cross(up).normalize();
    let u = s.cross(f);
    Mat4::from_cols(
        Vec4::new(s.x, u.x, -f.x, 0.0),
        Vec4::new(s.y, u.y, -f.y, 0.0),
        Vec4::new(s.z, u.z, -f.z, 0.0),
        Vec4::new(-s.dot(eye), -u.dot(eye), f.dot(eye), 1.0),
    )
}

/// The 6 frustum planes of a clip-from-world matrix with depth 0..1 (Gribb & Hartmann 2001,
/// "Fast Extraction of Viewing Frustum Planes from the World-View-Projection Matrix"):
/// left, right, bottom, top, near, far; normals point inside and are unit length.
pub fn frustum_planes(view_proj: &Mat4) -> [Vec4; 6] {
    let r = |i| view_proj.row(i);
    let planes = [
        r(3) + r(0),
        r(3) - r(0),
        r(3) + r(1),
        r(3) - r(1),
        r(2),
        r(3) - r(2),
    ];
    planes.map(|p| p / p.truncate().length().max(f32::MIN_POSITIVE))
}
