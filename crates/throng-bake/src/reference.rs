//! The reference skin: every baked vertex with every source influence in palette space (not
//! only the K the bake keeps). It is what the bake measures itself against — the frame
//! placement of [`crate::budget`] and the bounds of every row ([`crate::bounds`]) skin it with
//! the exact sampled matrices (docs/design.md §3).

use glam::{Mat4, Vec3};
use throng_asset::Aabb;

/// Every vertex of every baked primitive, in primitive then vertex order, with its influences.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReferenceSkin {
    /// Bind-space positions (file units).
    pub positions: Vec<Vec3>,
    /// Vertex v's influences are `offsets[v]..offsets[v + 1]` of `entries` / `weights`.
    pub offsets: Vec<u32>,
    pub entries: Vec<u16>,
    pub weights: Vec<f32>,
}

impl ReferenceSkin {
    /// No vertices yet.
    pub fn new() -> ReferenceSkin {
        ReferenceSkin {
            offsets: vec![0],
            ..Default::default()
        }
    }

    fn influences(&self, v: usize) -> impl Iterator<Item = (usize, f32)> + '_ {
        let (a, b) = (self.offsets[v] as usize, self.offsets[v + 1] as usize);
        self.entries[a..b]
            .iter()
            .zip(&self.weights[a..b])
            .map(|(&e, &w)| (e as usize, w))
    }

    /// Vertex `v` skinned with the skin matrices `s` (linear blend skinning, every influence).
    pub fn vertex(&self, s: &[Mat4], v: usize) -> Vec3 {
        let p = self.positions[v];
        self.influences(v)
            .fold(Vec3::ZERO, |q, (e, w)| q + s[e].transform_point3(p) * w)
    }

    /// The vertices skinned with `s`.
    pub fn skin(&self, s: &[Mat4]) -> Vec<Vec3> {
        (0..self.positions.len())
            .map(|v| self.vertex(s, v))
            .collect()
    }

    /// The box around the vertices skinned with `s` (empty without vertices).
    pub fn bounds(&self, s: &[Mat4]) -> Aabb {
        let mut bb = Aabb::EMPTY;
        for v in 0..self.positions.len() {
            bb.extend(self.vertex(s, v));
        }
        bb
    }
}
