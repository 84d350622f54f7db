//! ufbx's f64 values as throng's f32 glam values, refusing non-finite ones.

use glam::{Mat4, Quat, Vec2, Vec3, Vec4};

use crate::error::ImportErrorKind as K;

pub(crate) fn v2(v: &ufbx::Vec2) -> Vec2 {
    Vec2::new(v.x as f32, v.y as f32)
}

pub(crate) fn v3(v: &ufbx::Vec3) -> Vec3 {
    Vec3::new(v.x as f32, v.y as f32, v.z as f32)
}

pub(crate) fn v4(v: &ufbx::Vec4) -> Vec4 {
    Vec4::new(v.x as f32, v.y as f32, v.z as f32, v.w as f32)
}

pub(crate) fn quat(q: &ufbx::Quat) -> Quat {
    Quat::from_xyzw(q.x as f32, q.y as f32, q.z as f32, q.w as f32)
}

/// ufbx matrices are affine 3×4, column-major by name (`m<row><col>`).
pub(crate) fn mat4(m: &ufbx::Matrix) -> Mat4 {
    Mat4::from_cols(
        Vec4::new(m.m00 as f32, m.m10 as f32, m.m20 as f32, 0.0),
        Vec4::new(m.m01 as f32, m.m11 as f32, m.m21 as f32, 0.0),
        Vec4::new(m.m02 as f32, m.m12 as f32, m.m22 as f32, 0.0),
        Vec4::new(m.m03 as f32, m.m13 as f32, m.m23 as f32, 1.0),
    )
}

/// `NonFinite` for `element` at `at` unless every component is finite (after the f64 → f32
/// conversion, so values past f32's range count as infinite too).
pub(crate) fn finite(values: &[f32], element: &str, at: impl FnOnce() -> String) -> Result<(), K> {
    if values.iter().all(|x| x.is_finite()) {
        Ok(())
    } else {
        Err(K::NonFinite {
            element: element.to_string(),
            at: at(),
        })
    }
}

/// `kind "name"` or `kind index` when the element has no name.
pub(crate) fn label(kind: &str, name: &str, index: usize) -> String {
    if name.is_empty() {
        format!("{kind} {index}")
    } else {
        format!("{kind} {name:?}")
    }
}
