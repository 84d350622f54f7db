//! The far tier's material variants (docs/design.md §3 "Far tier"): one set of pictures, stored
//! in the primitives' own colours, and per variant and primitive a colour map fitted to what the
//! tiles' samples show in that variant ([`throng_asset::FarVariantColour`]). A variant's own
//! pictures would multiply the tier's bytes by the variants; the maps cost 48 B per variant
//! and primitive.

use super::raster::{Materials, Samples};
use glam::{DMat3, DVec3, Vec3};
use throng_asset::FarVariantColour;
use throng_contract::Affine3x4;

/// How strongly the fit is pulled towards the identity where the own colours do not vary
/// enough to decide it (per sample, in squared linear colour: a spread under ~1 % leaves a
/// channel to the pull). Without it a primitive of one colour has no unique map.
const RIDGE_PER_SAMPLE: f64 = 1e-4;

/// Sums of one (variant, primitive) pair's samples: own colour `x`, variant colour `y`.
#[derive(Debug, Clone, Copy)]
pub struct ColourFit {
    n: f64,
    sx: DVec3,
    sy: DVec3,
    /// Σ x xᵀ and Σ y xᵀ, by columns.
    sxx: DMat3,
    syx: DMat3,
}

impl Default for ColourFit {
    /// No samples (glam's own default matrix is the identity, not zero).
    fn default() -> ColourFit {
        ColourFit {
            n: 0.0,
            sx: DVec3::ZERO,
            sy: DVec3::ZERO,
            sxx: DMat3::ZERO,
            syx: DMat3::ZERO,
        }
    }
}

impl ColourFit {
    fn add(&mut self, x: Vec3, y: Vec3) {
        let (x, y) = (x.as_dvec3(), y.as_dvec3());
        self.n += 1.0;
        self.sx += x;
        self.sy += y;
        self.sxx += outer(x, x);
        self.syx += outer(y, x);
    }

    /// Adds `other`'s sums (in a fixed order, the bake stays byte-identical).
    pub fn merge(&mut self, other: &ColourFit) {
        self.n += other.n;
        self.sx += other.sx;
        self.sy += other.sy;
        self.sxx += other.sxx;
        self.syx += other.syx;
    }

    /// The map `y ≈ M x + b` of least squares, pulled towards the identity by
    /// [`RIDGE_PER_SAMPLE`]: with centred sums `Cxx`, `Cyx`, `M = (Cyx + λI)(Cxx + λI)⁻¹` and
    /// `b = ȳ − M x̄`. The identity without samples.
    pub fn solve(&self) -> FarVariantColour {
        if self.n == 0.0 {
            return FarVariantColour::IDENTITY;
        }
        let mx = self.sx / self.n;
        let my = self.sy / self.n;
        let lambda = DMat3::from_diagonal(DVec3::splat(RIDGE_PER_SAMPLE * self.n));
        let cxx = self.sxx - outer(mx, self.sx) + lambda;
        let cyx = self.syx - outer(my, self.sx) + lambda;
        // Cxx + λI is symmetric positive definite (λ > 0), so it inverts.
        let m = cyx * cxx.inverse();
        let b = my - m * mx;
        let rows = [0, 1, 2].map(|r| {
            let row = m.row(r);
            [row.x as f32, row.y as f32, row.z as f32, b[r] as f32]
        });
        if rows.iter().flatten().all(|w| w.is_finite()) {
            FarVariantColour(Affine3x4 { rows })
        } else {
            FarVariantColour::IDENTITY
        }
    }
}

/// `a bᵀ`.
fn outer(a: DVec3, b: DVec3) -> DMat3 {
    DMat3::from_cols(a * b.x, a * b.y, a * b.z)
}

/// The sums of every variant and primitive: variant number v (≥ 1) and the tier's primitive p
/// (≤ 254) at `(v − 1) · primitives + p`.
pub struct VariantFits {
    pub primitives: usize,
    pub fits: Vec<ColourFit>,
}

impl VariantFits {
    /// Empty sums for `variants` variants of `primitives` primitives (the tier's: at most 255).
    pub fn new(variants: usize, primitives: usize) -> VariantFits {
        let primitives = primitives.min(255);
        VariantFits {
            primitives,
            fits: vec![ColourFit::default(); variants * primitives],
        }
    }

    /// Adds every covered sample of one view: its own colour against each variant's at the same
    /// primitive and texture coordinate.
    pub fn add(&mut self, materials: &Materials, s: &Samples) {
        if self.primitives == 0 {
            return;
        }
        for i in (0..s.hit.len()).filter(|&i| s.hit[i]) {
            let (prim, tier_prim) = (s.primitive[i] as usize, s.prim[i] as usize);
            for v in 1..=materials.variants() {
                let y = materials.albedo_in(v, prim, s.uv[i]);
                if let Some(f) = self
                    .fits
                    .get_mut((v - 1) * self.primitives + tier_prim.min(self.primitives - 1))
                {
                    f.add(s.albedo[i], y);
                }
            }
        }
    }

    /// Adds `other`'s sums.
    pub fn merge(&mut self, other: &VariantFits) {
        for (a, b) in self.fits.iter_mut().zip(&other.fits) {
            a.merge(b);
        }
    }

    /// Per variant the maps of its primitives.
    pub fn solve(&self) -> Vec<Vec<FarVariantColour>> {
        self.fits
            .chunks(self.primitives.max(1))
            .map(|c| c.iter().map(ColourFit::solve).collect())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fit(pairs: &[(Vec3, Vec3)]) -> FarVariantColour {
        let mut f = ColourFit::default();
        for &(x, y) in pairs {
            f.add(x, y);
        }
        f.solve()
    }

    fn colours() -> Vec<Vec3> {
        (0..64)
            .map(|i| {
                let t = i as f32 / 63.0;
                Vec3::new(t, (t * 7.0).fract(), (t * 3.0 + 0.2).fract())
            })
            .collect()
    }

    #[test]
    fn a_channel_swap_and_a_factor_are_fitted_within_the_ridge() {
        let xs = colours();
        let swap: Vec<_> = xs.iter().map(|&x| (x, Vec3::new(x.z, x.y, x.x))).collect();
        let scale: Vec<_> = xs
            .iter()
            .map(|&x| (x, x * Vec3::new(0.5, 1.0, 0.25)))
            .collect();
        for (pairs, what) in [(swap, "swap"), (scale, "factor")] {
            let m = fit(&pairs);
            let worst = pairs
                .iter()
                .map(|&(x, y)| (m.apply(x) - y).abs().max_element())
                .fold(0.0f32, f32::max);
            assert!(worst < 2e-3, "{what}: worst {worst}");
        }
    }

    #[test]
    fn one_colour_maps_to_the_variant_and_no_samples_to_the_identity() {
        let x = Vec3::new(0.8, 0.3, 0.1);
        let y = Vec3::new(0.1, 0.7, 0.2);
        let m = fit(&[(x, y); 10]);
        assert!((m.apply(x) - y).abs().max_element() < 1e-6);
        assert_eq!(ColourFit::default().solve(), FarVariantColour::IDENTITY);
        let xs = colours();
        let same: Vec<_> = xs.iter().map(|&x| (x, x)).collect();
        let m = fit(&same);
        for r in 0..3 {
            for c in 0..4 {
                let want = if r == c { 1.0 } else { 0.0 };
                assert!((m.0.rows[r][c] - want).abs() < 1e-6, "{m:?}");
            }
        }
    }
}
