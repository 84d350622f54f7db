//! Swept tubes with rounded caps: the building block of the fox's body.
//!
//! A tube follows a Catmull-Rom curve through control points; each control point carries an
//! elliptical cross-section (radii along the tube's lateral and second axis) and skinning
//! weights. Rings are placed along the curve (about one per `spacing` metres); radii follow the
//! same curve and weights blend with a smoothstep between neighbouring control points, so
//! skinning blends smoothly across joint boundaries. Both ends are closed by half-ellipsoid caps
//! ending in a single pole vertex (no degenerate triangles).

use crate::band::Band;
use glam::{Vec2, Vec3};

/// Most joints a vertex may be bound to (glTF JOINTS_0/WEIGHTS_0 hold four).
pub(crate) const MAX_INFLUENCES: usize = 4;

/// A control point: model-space centre (metres), cross-section radii (metres) and skinning
/// weights as (joint, weight) pairs summing to 1.
#[derive(Debug, Clone)]
pub(crate) struct Ctrl {
    pub pos: Vec3,
    pub radius: Vec2,
    pub weights: Vec<(usize, f32)>,
}

pub(crate) fn ctrl(pos: [f32; 3], rx: f32, ry: f32, weights: &[(usize, f32)]) -> Ctrl {
    Ctrl {
        pos: Vec3::from(pos),
        radius: Vec2::new(rx, ry),
        weights: weights.to_vec(),
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Tube {
    pub ctrl: Vec<Ctrl>,
    /// Reference for the first cross-section axis (radius.x); projected off the tangent.
    pub side: Vec3,
    /// Vertices around a ring (plus one duplicate seam vertex for the UV wrap).
    pub segments: usize,
    /// Ring spacing along the curve (metres).
    pub spacing: f32,
    pub band: Band,
}

/// A triangle-list mesh in model space (= bind space: the skinned node has no transform).
#[derive(Debug, Clone, Default)]
pub(crate) struct MeshData {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    pub uvs: Vec<Vec2>,
    pub joints: Vec<[u8; 4]>,
    pub weights: Vec<[f32; 4]>,
    pub indices: Vec<u32>,
}

struct Ring {
    centre: Vec3,
    tangent: Vec3,
    radius: Vec2,
    weights: Vec<(usize, f32)>,
}

fn catmull_rom<T>(p0: T, p1: T, p2: T, p3: T, u: f32) -> T
where
    T: Copy
        + std::ops::Add<Output = T>
        + std::ops::Sub<Output = T>
        + std::ops::Mul<f32, Output = T>,
{
    let u2 = u * u;
    let u3 = u2 * u;
    (p1 * 2.0
        + (p2 - p0) * u
        + (p0 * 2.0 - p1 * 5.0 + p2 * 4.0 - p3) * u2
        + (p1 * 3.0 - p0 - p2 * 3.0 + p3) * u3)
        * 0.5
}

fn smoothstep(u: f32) -> f32 {
    u * u * (3.0 - 2.0 * u)
}

/// `(1 − s)·a + s·b` of two sparse weight lists, merged by joint (joint order kept sorted).
fn blend_weights(a: &[(usize, f32)], b: &[(usize, f32)], s: f32) -> Vec<(usize, f32)> {
    let mut out: Vec<(usize, f32)> = Vec::new();
    for (list, f) in [(a, 1.0 - s), (b, s)] {
        for &(j, w) in list {
            let w = w * f;
            if w <= 0.0 {
                continue;
            }
            match out.iter_mut().find(|(k, _)| *k == j) {
                Some(e) => e.1 += w,
                None => out.push((j, w)),
            }
        }
    }
    out.sort_by_key(|e| e.0);
    out
}

/// Keeps the (up to) four largest weights, renormalises them so that they sum to 1 in f32,
/// and packs them as glTF JOINTS_0/WEIGHTS_0 (unused slots: joint 0, weight 0).
pub(crate) fn pack_weights(list: &[(usize, f32)]) -> ([u8; 4], [f32; 4]) {
    let mut sorted: Vec<(usize, f32)> = list.iter().copied().filter(|e| e.1 > 0.0).collect();
    // Largest first; ties by joint index so the result does not depend on input order.
    sorted.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
    sorted.truncate(MAX_INFLUENCES);
    let total: f32 = sorted.iter().map(|e| e.1).sum();
    let mut joints = [0u8; 4];
    let mut weights = [0f32; 4];
    for (k, &(j, w)) in sorted.iter().enumerate() {
        // Joint indices come from the fixed skeleton table (24 joints), so they fit in u8.
        joints[k] = j as u8;
        weights[k] = w / total;
    }
    // Put the rounding error on the largest weight so the f32 sum is 1 as closely as it can be.
    weights[0] = 1.0 - weights[1..].iter().sum::<f32>();
    (joints, weights)
}

impl MeshData {
    pub(crate) fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    fn push_vertex(&mut self, p: Vec3, n: Vec3, uv: Vec2, w: &[(usize, f32)]) {
        let (j, wt) = pack_weights(w);
        self.positions.push(p);
        self.normals.push(n);
        self.uvs.push(uv);
        self.joints.push(j);
        self.weights.push(wt);
    }

    /// Adds a triangle wound counter-clockwise seen from outside (the side the vertex normals
    /// point to), as glTF front faces are (glTF 2.0 §3.7.2.1).
    fn push_triangle(&mut self, a: u32, b: u32, c: u32) {
        let (pa, pb, pc) = (
            self.positions[a as usize],
            self.positions[b as usize],
            self.positions[c as usize],
        );
        let face = (pb - pa).cross(pc - pa);
        let n = self.normals[a as usize] + self.normals[b as usize] + self.normals[c as usize];
        if face.dot(n) >= 0.0 {
            self.indices.extend_from_slice(&[a, b, c]);
        } else {
            self.indices.extend_from_slice(&[a, c, b]);
        }
    }

    /// Sweeps `tube` and appends its vertices and triangles.
    pub(crate) fn add_tube(&mut self, tube: &Tube) {
        let rings = sample_rings(tube);
        let seg = tube.segments.max(3);
        let first = &rings[0];
        let last = &rings[rings.len() - 1];
        let cap0 = first.radius.min_element();
        let cap1 = last.radius.min_element();
        let pole0 = first.centre - first.tangent * cap0;
        let pole1 = last.centre + last.tangent * cap1;

        // Caps: half-ellipsoids of length = the smaller end radius.
        let cap_rings = (seg / 4).max(3);
        let mut all: Vec<Ring> = Vec::new();
        for k in (1..cap_rings).rev() {
            let phi = k as f32 / cap_rings as f32 * std::f32::consts::FRAC_PI_2;
            all.push(Ring {
                centre: first.centre - first.tangent * (cap0 * phi.sin()),
                tangent: first.tangent,
                radius: first.radius * phi.cos(),
                weights: first.weights.clone(),
            });
        }
        let (w0, w1) = (first.weights.clone(), last.weights.clone());
        let (t1, r1, c1) = (last.tangent, last.radius, last.centre);
        all.extend(rings);
        for k in 1..cap_rings {
            let phi = k as f32 / cap_rings as f32 * std::f32::consts::FRAC_PI_2;
            all.push(Ring {
                centre: c1 + t1 * (cap1 * phi.sin()),
                tangent: t1,
                radius: r1 * phi.cos(),
                weights: w1.clone(),
            });
        }

        // Ring vertex positions (seg + 1 per ring; the last duplicates the first for UVs).
        let grid: Vec<Vec<Vec3>> = all
            .iter()
            .map(|r| {
                let (n1, n2) = frame(r.tangent, tube.side);
                (0..=seg)
                    .map(|j| {
                        let th = j as f32 / seg as f32 * std::f32::consts::TAU;
                        r.centre + n1 * (r.radius.x * th.cos()) + n2 * (r.radius.y * th.sin())
                    })
                    .collect()
            })
            .collect();

        // Arc length along the centre line (poles included) for the V coordinate.
        let mut arc = vec![0.0f32; all.len() + 2];
        let mut prev = pole0;
        for (i, r) in all.iter().enumerate() {
            arc[i + 1] = arc[i] + (r.centre - prev).length();
            prev = r.centre;
        }
        let n = all.len();
        arc[n + 1] = arc[n] + (pole1 - prev).length();
        let total = arc[n + 1].max(1e-6);
        let (v0, v1) = tube.band.v_range();
        let v_at = |a: f32| v0 + (v1 - v0) * (a / total);

        let base = self.vertex_count() as u32;
        self.push_vertex(pole0, -first_tangent(&all), Vec2::new(0.5, v_at(0.0)), &w0);
        for (r, ring) in all.iter().enumerate() {
            for j in 0..=seg {
                let jm = if j == 0 { seg - 1 } else { j - 1 };
                let jp = if j == seg { 1 } else { j + 1 };
                let around = grid[r][jp] - grid[r][jm];
                let before = if r == 0 { pole0 } else { grid[r - 1][j] };
                let after = if r + 1 == n { pole1 } else { grid[r + 1][j] };
                let radial = grid[r][j] - ring.centre;
                let mut normal = (after - before).cross(around).normalize_or_zero();
                if normal == Vec3::ZERO {
                    normal = radial.normalize_or(ring.tangent);
                }
                if normal.dot(radial) < 0.0 {
                    normal = -normal;
                }
                let uv = Vec2::new(j as f32 / seg as f32, v_at(arc[r + 1]));
                self.push_vertex(grid[r][j], normal, uv, &ring.weights);
            }
        }
        self.push_vertex(pole1, t1, Vec2::new(0.5, v_at(total)), &w1);

        let stride = (seg + 1) as u32;
        let ring_idx = |r: usize, j: usize| base + 1 + r as u32 * stride + j as u32;
        let end_pole = base + 1 + n as u32 * stride;
        for j in 0..seg {
            self.push_triangle(base, ring_idx(0, j), ring_idx(0, j + 1));
        }
        for r in 0..n - 1 {
            for j in 0..seg {
                let (a, b) = (ring_idx(r, j), ring_idx(r, j + 1));
                let (c, d) = (ring_idx(r + 1, j + 1), ring_idx(r + 1, j));
                self.push_triangle(a, b, c);
                self.push_triangle(a, c, d);
            }
        }
        for j in 0..seg {
            self.push_triangle(end_pole, ring_idx(n - 1, j + 1), ring_idx(n - 1, j));
        }
    }
}

fn first_tangent(rings: &[Ring]) -> Vec3 {
    rings.first().map_or(Vec3::Z, |r| r.tangent)
}

/// Cross-section axes: `n1` = `side` projected off the tangent, `n2` = tangent × n1.
fn frame(tangent: Vec3, side: Vec3) -> (Vec3, Vec3) {
    let mut n1 = (side - tangent * side.dot(tangent)).normalize_or_zero();
    if n1 == Vec3::ZERO {
        n1 = tangent.any_orthonormal_vector();
    }
    (n1, tangent.cross(n1))
}

/// Rings along the control curve, from the first to the last control point.
fn sample_rings(tube: &Tube) -> Vec<Ring> {
    let c = &tube.ctrl;
    let n = c.len();
    let mut centres = Vec::new();
    let mut radii = Vec::new();
    let mut weights = Vec::new();
    for i in 0..n - 1 {
        let p1 = c[i].pos;
        let p2 = c[i + 1].pos;
        let p0 = if i == 0 { p1 * 2.0 - p2 } else { c[i - 1].pos };
        let p3 = if i + 2 >= n {
            p2 * 2.0 - p1
        } else {
            c[i + 2].pos
        };
        let r1 = c[i].radius;
        let r2 = c[i + 1].radius;
        let r0 = if i == 0 { r1 } else { c[i - 1].radius };
        let r3 = if i + 2 >= n { r2 } else { c[i + 2].radius };
        let steps = ((p2 - p1).length() / tube.spacing).ceil().max(2.0) as usize;
        for k in 0..steps {
            let u = k as f32 / steps as f32;
            centres.push(catmull_rom(p0, p1, p2, p3, u));
            radii.push(catmull_rom(r0, r1, r2, r3, u).max(Vec2::splat(0.001)));
            weights.push(blend_weights(
                &c[i].weights,
                &c[i + 1].weights,
                smoothstep(u),
            ));
        }
    }
    centres.push(c[n - 1].pos);
    radii.push(c[n - 1].radius);
    weights.push(c[n - 1].weights.clone());

    let m = centres.len();
    (0..m)
        .map(|i| {
            let a = centres[i.saturating_sub(1)];
            let b = centres[(i + 1).min(m - 1)];
            Ring {
                centre: centres[i],
                tangent: (b - a).normalize_or(Vec3::Z),
                radius: radii[i],
                weights: weights[i].clone(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_weights_sum_to_one_and_keep_the_largest_four() {
        let (j, w) = pack_weights(&[(3, 0.1), (1, 0.3), (7, 0.05), (2, 0.3), (5, 0.25)]);
        assert_eq!(j, [1, 2, 5, 3]);
        assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!((w[1] - 0.3 / 0.95).abs() < 1e-6);
    }

    #[test]
    fn blended_weights_merge_joints() {
        let b = blend_weights(&[(1, 0.5), (2, 0.5)], &[(2, 1.0)], 0.5);
        assert_eq!(b, vec![(1, 0.25), (2, 0.75)]);
    }
}
