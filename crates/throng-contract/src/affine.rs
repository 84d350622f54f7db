//! The 48 B 3×4 affine every GPU-facing transform is uploaded as: the instance transform
//! ([`crate::InstanceTransform`]), a live pose's skin matrix ([`crate::SkinMatrix`], the
//! linear-blend palette entry's layout) and an anchor's transform (throng-render's
//! `gpu_types::AnchorAffine`). One type, so the conversions are written once. WGSL twins: three
//! `vec4<f32>` rows (`InstanceTransform` in `throng::playback`, `PaletteEntry` in
//! `throng::palette`, `AnchorAffine` in `throng_render::anchor`; naga checks the layouts in
//! throng-render's tests).

use bytemuck::{Pod, Zeroable};
use glam::{Affine3A, Mat4, Vec4};

/// The 3 rows of a 3×4 affine matrix `[L | t]` (column vectors: `p' = L · p + t`), each a
/// vec4 `(m_r0, m_r1, m_r2, t_r)`; the last row (0, 0, 0, 1) is implied. 48 B, 16-byte aligned
/// (three `vec4<f32>` in WGSL). File units.
#[repr(C, align(16))]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct Affine3x4 {
    pub rows: [[f32; 4]; 3],
}

impl Default for Affine3x4 {
    fn default() -> Self {
        Affine3x4::IDENTITY
    }
}

impl Affine3x4 {
    pub const IDENTITY: Affine3x4 = Affine3x4 {
        rows: [
            [1.0, 0.0, 0.0, 0.0],
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
        ],
    };

    /// The largest row length of the linear part: the scale of a uniform scale, and how much
    /// the transform can stretch a length for any other. WGSL twin:
    /// `throng::decode::affine_scale` (throng-asset).
    pub fn scale(&self) -> f32 {
        let len = |r: &[f32; 4]| glam::Vec3::new(r[0], r[1], r[2]).length();
        len(&self.rows[0]).max(len(&self.rows[1]).max(len(&self.rows[2])))
    }

    /// From an affine transform (column-major glam type).
    pub fn from_affine(a: &Affine3A) -> Affine3x4 {
        Affine3x4::from_mat4(&Mat4::from(*a))
    }

    /// The affine part of a column-major matrix whose last row is (0, 0, 0, 1); the last row
    /// is dropped.
    pub fn from_mat4(m: &Mat4) -> Affine3x4 {
        Affine3x4 {
            rows: [
                m.row(0).to_array(),
                m.row(1).to_array(),
                m.row(2).to_array(),
            ],
        }
    }

    /// From 12 f32, row after row (how the asset's anchor table stores one anchor of a row).
    pub fn from_rows(r: &[f32; 12]) -> Affine3x4 {
        Affine3x4 {
            rows: [
                [r[0], r[1], r[2], r[3]],
                [r[4], r[5], r[6], r[7]],
                [r[8], r[9], r[10], r[11]],
            ],
        }
    }

    /// As a column-major 4×4 matrix with last row (0, 0, 0, 1).
    pub fn to_mat4(&self) -> Mat4 {
        Mat4::from_cols(
            Vec4::new(self.rows[0][0], self.rows[1][0], self.rows[2][0], 0.0),
            Vec4::new(self.rows[0][1], self.rows[1][1], self.rows[2][1], 0.0),
            Vec4::new(self.rows[0][2], self.rows[1][2], self.rows[2][2], 0.0),
            Vec4::new(self.rows[0][3], self.rows[1][3], self.rows[2][3], 1.0),
        )
    }

    pub fn to_affine(&self) -> Affine3A {
        Affine3A::from_mat4(self.to_mat4())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_hold_the_affine_part_and_convert_back() {
        let m = Mat4::from_cols_array(&[
            1.0, 2.0, 3.0, 0.0, 4.0, 5.0, 6.0, 0.0, 7.0, 8.0, 9.0, 0.0, 10.0, 11.0, 12.0, 1.0,
        ]);
        let a = Affine3x4::from_mat4(&m);
        assert_eq!(a.rows[0], [1.0, 4.0, 7.0, 10.0]);
        assert_eq!(a.rows[2], [3.0, 6.0, 9.0, 12.0]);
        assert_eq!(a.to_mat4(), m);
        let flat: [f32; 12] = bytemuck::cast(a.rows);
        assert_eq!(Affine3x4::from_rows(&flat), a);
        assert_eq!(Affine3x4::default(), Affine3x4::IDENTITY);
        assert_eq!(std::mem::size_of::<Affine3x4>(), 48);
        assert_eq!(std::mem::align_of::<Affine3x4>(), 16);
    }
}
