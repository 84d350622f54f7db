//! A small generated base-colour texture (sRGB PNG). It multiplies the material's
//! `baseColorFactor` (glTF 2.0 §3.9.2), so it only darkens: dark socks on the legs, dark ear
//! tips and backs, eyes and a nose; white elsewhere, so the fox stays fox-coloured without it.
//! Each tube maps into one horizontal band of the texture (`Band::outer`); within a band
//! U runs around the tube and V along it.

use crate::band::{Band, SIZE};
use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use image::{ExtendedColorType, ImageEncoder};

/// The texture as PNG bytes (deterministic: no metadata, fixed compression settings).
pub(crate) fn png() -> Vec<u8> {
    let mut rgb = Vec::with_capacity((SIZE * SIZE * 3) as usize);
    for y in 0..SIZE {
        let v = (y as f32 + 0.5) / SIZE as f32;
        for x in 0..SIZE {
            let u = (x as f32 + 0.5) / SIZE as f32;
            let c = shade(u, v);
            rgb.extend(c.iter().map(|&f| (f.clamp(0.0, 1.0) * 255.0).round() as u8));
        }
    }
    let mut out = Vec::new();
    let enc = PngEncoder::new_with_quality(&mut out, CompressionType::Best, FilterType::NoFilter);
    // Encoding a correctly sized in-memory RGB8 buffer into a Vec cannot fail.
    enc.write_image(&rgb, SIZE, SIZE, ExtendedColorType::Rgb8)
        .expect("PNG encoding of an in-memory buffer");
    out
}

const WHITE: [f32; 3] = [1.0, 1.0, 1.0];
const DARK: [f32; 3] = [0.12, 0.08, 0.07];
const EYE: [f32; 3] = [0.03, 0.02, 0.02];

fn mix(a: [f32; 3], b: [f32; 3], s: f32) -> [f32; 3] {
    let s = s.clamp(0.0, 1.0);
    [
        a[0] + (b[0] - a[0]) * s,
        a[1] + (b[1] - a[1]) * s,
        a[2] + (b[2] - a[2]) * s,
    ]
}

/// Colour multiplier at texture coordinate (u, v).
fn shade(u: f32, v: f32) -> [f32; 3] {
    let Some(band) = Band::ALL.into_iter().find(|b| v < b.outer().1) else {
        return WHITE;
    };
    let (v0, v1) = band.v_range();
    // Position along the tube: 0 at its start, 1 at its end (held in the band's margins).
    let s = ((v - v0) / (v1 - v0)).clamp(0.0, 1.0);
    // Angle around the tube: u = 0 → +X side, 0.25 → second axis (up for the torso and head).
    let around = u * std::f32::consts::TAU;
    match band {
        Band::Body => {
            // A slightly darker saddle along the top of the back.
            let top = around.sin().max(0.0).powi(4);
            mix(
                WHITE,
                [0.78, 0.7, 0.65],
                top * (1.0 - (2.0 * s - 1.0).abs()),
            )
        }
        Band::Neck => WHITE,
        Band::Head => {
            // Eyes on both sides of the upper head, a dark nose at the snout tip.
            let eye_s = 0.52;
            let mut c = WHITE;
            for eye_u in [0.1, 0.4] {
                let du = (u - eye_u) * 2.2;
                let ds = s - eye_s;
                let r2 = du * du + ds * ds;
                c = mix(c, EYE, (1.0 - r2 / 0.004) * 4.0);
            }
            mix(c, DARK, (s - 0.93) * 20.0)
        }
        // Dark ear tips; the backs (second axis negative = −Z) darker too.
        Band::Ear => {
            let back = (-around.sin()).max(0.0);
            mix(mix(WHITE, [0.55, 0.45, 0.4], back), DARK, (s - 0.55) * 5.0)
        }
        // Dark socks from just above the wrist/hock down.
        Band::Leg => mix(WHITE, DARK, (s - 0.5) * 5.0),
        Band::Tail => mix(WHITE, [0.7, 0.62, 0.55], (s - 0.8) * 6.0),
    }
}
