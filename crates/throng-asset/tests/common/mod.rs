//! Test-only helpers: a small reference *encoder* of every bone-texture encoding (the baker owns
//! the real one; this one follows docs/format.md independently so the decoders can be
//! round-tripped), a deterministic random source, and a hand-built baked asset.
#![allow(dead_code)]

use glam::{Mat4, Quat, Vec2, Vec3, Vec4};
use throng_asset::*;

/// xorshift64*: deterministic, no dependency.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        let u = (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * u
    }

    pub fn rotation(&mut self) -> Quat {
        loop {
            let v = Vec4::new(
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            );
            let l = v.length();
            if l > 0.1 && l <= 1.0 {
                return Quat::from_vec4(v / l);
            }
        }
    }

    /// Rotation · uniform scale in [0.5, 2) + translation in [-2, 2)³.
    pub fn similarity(&mut self) -> Mat4 {
        let t = Vec3::new(
            self.range(-2.0, 2.0),
            self.range(-2.0, 2.0),
            self.range(-2.0, 2.0),
        );
        let s = self.range(0.5, 2.0);
        Mat4::from_scale_rotation_translation(Vec3::splat(s), self.rotation(), t)
    }
}

fn push_f32(out: &mut Vec<u8>, v: Vec4) {
    for x in v.to_array() {
        out.extend_from_slice(&x.to_le_bytes());
    }
}

fn push_f16(out: &mut Vec<u8>, v: Vec4) {
    for x in v.to_array() {
        out.extend_from_slice(&half::f16::from_f32(x).to_bits().to_le_bytes());
    }
}

/// docs/format.md: `q = round(clamp(v, −1, 1) × 32767)` as i16.
pub fn snorm16_encode(v: f32) -> i16 {
    (v.clamp(-1.0, 1.0) * 32767.0).round() as i16
}

fn push_snorm16(out: &mut Vec<u8>, v: Vec4) {
    for x in v.to_array() {
        out.extend_from_slice(&snorm16_encode(x).to_le_bytes());
    }
}

/// Row r of the affine 3×4 of `m`: (m[0][r], m[1][r], m[2][r], m[3][r]) in column-major terms.
fn affine_row(m: &Mat4, r: usize) -> Vec4 {
    m.row(r)
}

/// (rotation, translation, uniform scale) of a similarity transform.
pub fn decompose(m: &Mat4) -> (Quat, Vec3, f32) {
    let (s, q, t) = m.to_scale_rotation_translation();
    ((q).normalize(), t, (s.x + s.y + s.z) / 3.0)
}

/// Encodes `frames[row][entry]` (column-major skin matrices) into a bone texture.
pub fn encode(encoding: Encoding, frames: &[Vec<Mat4>], rows_per_layer: u32) -> BoneTexture {
    let rows = frames.len() as u32;
    let entries = frames.first().map_or(0, |f| f.len()) as u32;
    let mut translation_range: f32 = 0.0;
    let mut scale_range: f32 = 0.0;
    if encoding.is_quat() {
        for f in frames {
            for m in f {
                let (_, t, s) = decompose(m);
                translation_range = translation_range.max(t.abs().max_element());
                scale_range = scale_range.max(s.abs());
            }
        }
    }
    if encoding == Encoding::Mat3x4Snorm16 {
        for f in frames {
            for m in f {
                translation_range = translation_range.max(m.w_axis.truncate().abs().max_element());
                for c in [m.x_axis, m.y_axis, m.z_axis] {
                    scale_range = scale_range.max(c.truncate().abs().max_element());
                }
            }
        }
    }
    let translation_range = if translation_range > 0.0 {
        translation_range
    } else {
        1.0
    };
    let scale_range = if scale_range > 0.0 { scale_range } else { 1.0 };
    let mut prev: Vec<Option<Quat>> = vec![None; entries as usize];
    let mut data = Vec::new();
    for f in frames {
        for (j, m) in f.iter().enumerate() {
            match encoding {
                Encoding::Mat4F32 => {
                    for c in 0..4 {
                        push_f32(&mut data, m.col(c));
                    }
                }
                Encoding::Mat3x4F32 => {
                    for r in 0..3 {
                        push_f32(&mut data, affine_row(m, r));
                    }
                }
                Encoding::Mat3x4F16 => {
                    for r in 0..3 {
                        push_f16(&mut data, affine_row(m, r));
                    }
                }
                Encoding::Mat3x4Snorm16 => {
                    for r in 0..3 {
                        let v = affine_row(m, r);
                        let k = Vec4::new(scale_range, scale_range, scale_range, translation_range);
                        push_snorm16(&mut data, v / k);
                    }
                }
                Encoding::QuatF32 | Encoding::QuatSnorm16 => {
                    let (mut q, t, s) = decompose(m);
                    // Same hemisphere as the previous frame of this entry.
                    if let Some(p) = prev[j] {
                        if p.dot(q) < 0.0 {
                            q = -q;
                        }
                    }
                    prev[j] = Some(q);
                    if encoding == Encoding::QuatF32 {
                        push_f32(&mut data, Vec4::from(q));
                        push_f32(&mut data, t.extend(s));
                    } else {
                        push_snorm16(&mut data, Vec4::from(q));
                        push_snorm16(&mut data, (t / translation_range).extend(s / scale_range));
                    }
                }
            }
        }
    }
    BoneTexture {
        encoding,
        entries,
        rows,
        rows_per_layer,
        translation_range,
        scale_range,
        data,
    }
}

/// A valid 1×1 RGBA PNG.
pub const PNG_1X1: [u8; 70] = [
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xdf, 0xe0, 0xf0,
    0x1f, 0x00, 0x07, 0x00, 0x02, 0xbf, 0x2b, 0xd7, 0xc7, 0xe2, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

pub const ENTRIES: usize = 3;
/// Clip A: 5 frames at rows 1..=5; clip B: 3 frames at rows 6..=8.
pub const ROWS: usize = 9;

/// Per row and entry, a random similarity transform; row 0 = the rest pose.
pub fn frames(seed: u64) -> Vec<Vec<Mat4>> {
    let mut rng = Rng(seed);
    (0..ROWS)
        .map(|_| (0..ENTRIES).map(|_| rng.similarity()).collect())
        .collect()
}

/// A unit-box-ish primitive of 8 vertices, 12 triangles, K = 4, weighted on all 3 entries.
pub fn primitive(rng: &mut Rng) -> BakedPrimitive {
    let positions: Vec<Vec3> = (0..8)
        .map(|i| {
            Vec3::new(
                if i & 1 == 0 { -0.5 } else { 0.5 },
                if i & 2 == 0 { 0.0 } else { 1.8 },
                if i & 4 == 0 { -0.3 } else { 0.3 },
            )
        })
        .collect();
    let normals: Vec<Vec3> = positions
        .iter()
        .map(|p| (*p - Vec3::new(0.0, 0.9, 0.0)).normalize())
        .collect();
    let tangents = positions
        .iter()
        .enumerate()
        .map(|(i, _)| Vec4::new(1.0, 0.0, 0.0, if i % 2 == 0 { 1.0 } else { -1.0 }))
        .collect();
    let uv0 = positions
        .iter()
        .map(|p| Vec2::new(p.x + 0.5, p.y / 1.8))
        .collect();
    let mut joints = Vec::new();
    let mut weights = Vec::new();
    for v in 0..8u16 {
        let a = rng.range(0.2, 1.0);
        let b = rng.range(0.0, 1.0 - a);
        let qa = (a * 65535.0).round() as u16;
        let qb = (b * 65535.0).round() as u16;
        let qc = 65535 - qa - qb;
        joints.extend_from_slice(&[v % 3, (v + 1) % 3, (v + 2) % 3, 0]);
        weights.extend_from_slice(&[qa, qb, qc, 0]);
    }
    let indices = vec![
        0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4, 2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6,
        1, 3, 5, 3, 7, 5,
    ];
    BakedPrimitive {
        node_index: 4,
        mesh: 0,
        primitive: 0,
        rigid: false,
        positions,
        normals,
        tangents: Some(tangents),
        uv0: Some(uv0),
        influences: 4,
        joints,
        weights,
        lods: vec![Lod {
            ratio: 0.5,
            indices: indices[..18].to_vec(),
            error: 0.01,
        }],
        indices,
        material: Some(0),
        vat: None,
    }
}

/// A small but complete baked asset: 3 palette entries, 2 clips (one with root motion and
/// events), 2 primitives (one rigid, without tangents or UVs), a textured material with a
/// texture transform, a plain material, an image and 2 anchors.
pub fn asset(encoding: Encoding) -> BakedAsset {
    let frames = frames(7);
    let tex = encode(encoding, &frames, 4);
    let mut rng = Rng(99);
    let mut rigid = primitive(&mut rng);
    rigid.node_index = 5;
    rigid.mesh = 1;
    rigid.rigid = true;
    rigid.tangents = None;
    rigid.uv0 = None;
    rigid.influences = 1;
    rigid.joints = vec![2; 8];
    rigid.weights = vec![65535; 8];
    rigid.material = Some(1);
    rigid.lods.clear();
    let prims = vec![primitive(&mut rng), rigid];
    let mut row_bounds = Vec::new();
    for row in &frames {
        let mut b = Aabb::EMPTY;
        for f in row {
            b.extend(f.w_axis.truncate());
        }
        row_bounds.push(b);
    }
    let anchors = AnchorTexture {
        anchors: vec![
            AnchorInfo {
                name: "hand.R".into(),
                node: 2,
            },
            AnchorInfo {
                name: "node7".into(),
                node: 7,
            },
        ],
        rows: ROWS as u32,
        data: (0..ROWS * 2 * 12).map(|i| i as f32 * 0.25 - 3.0).collect(),
    };
    BakedAsset {
        source_name: "hand-built.gltf".into(),
        settings: BakeSettings {
            fps: "30".into(),
            requested_encoding: Encoding::QuatSnorm16,
            influences: 4,
            max_texture_size: 8192,
            root_motion: true,
            motion_root: Some(1),
        },
        palette: (0..ENTRIES)
            .map(|j| PaletteEntry {
                node: j + 1,
                name: format!("joint{j}"),
                inverse_bind_matrix: Mat4::from_translation(Vec3::new(0.0, -(j as f32), 0.1)),
                rigid: j == 2,
            })
            .collect(),
        clips: vec![
            ClipInfo {
                additive: None,
                interpolation: Default::default(),
                periodic: false,
                degree: 0,
                times: None,
                name: "Walk".into(),
                first_row: 1,
                frames: 5,
                fps: 30.0,
                step: 0.4 / 3.0,
                duration: 4.0 / 30.0 * 4.0,
                loop_mode: LoopMode::Loop,
                events: vec![ClipEvent {
                    time: 0.25,
                    name: "footstep \"left\"".into(),
                }],
                root_motion: Some((0..5).map(|k| [k as f32 * 0.1, 0.0, 0.01]).collect()),
                bounds: row_bounds[1..6].iter().fold(Aabb::EMPTY, |a, b| a.union(b)),
            },
            ClipInfo {
                additive: None,
                interpolation: Default::default(),
                periodic: false,
                degree: 0,
                times: None,
                name: "Idle".into(),
                first_row: 6,
                frames: 3,
                fps: 30.0,
                step: 1.0 / 30.0,
                duration: 2.0 / 30.0,
                loop_mode: LoopMode::PingPong,
                events: vec![],
                root_motion: None,
                bounds: Aabb::EMPTY,
            },
        ],
        row_bounds,
        bone_texture: tex,
        primitives: prims,
        materials: vec![
            BakedMaterial {
                name: Some("skin".into()),
                base_color_factor: [1.0, 0.9, 0.8, 1.0],
                base_color_texture: Some(0),
                texture_transform: TextureTransform {
                    offset: [0.5, 0.0],
                    rotation: 0.3,
                    scale: [2.0, 2.0],
                },
                metallic_factor: 0.4,
                roughness_factor: 0.415,
                double_sided: true,
            },
            BakedMaterial {
                name: None,
                base_color_factor: [0.2, 0.2, 0.2, 0.5],
                base_color_texture: None,
                texture_transform: TextureTransform::default(),
                metallic_factor: 0.0,
                roughness_factor: 1.0,
                double_sided: false,
            },
        ],
        images: vec![BakedImage {
            mime_type: "image/png".into(),
            bytes: PNG_1X1.to_vec(),
        }],
        anchors: Some(anchors),
        masks: Vec::new(),
        variants: Vec::new(),
        far_tier: None,
    }
}

/// A fresh empty folder under the system temp folder for one test.
/// [`asset`] with an error-budgeted Walk: five frames at irregular times (what a
/// `--max-error` bake writes).
pub fn listed_asset(encoding: Encoding) -> BakedAsset {
    let mut a = asset(encoding);
    let w = &mut a.clips[0];
    let d = w.duration as f32;
    w.times = Some(vec![0.0, 0.03125, 0.25, 0.375, d]);
    w.fps = 4.0 / w.duration;
    a
}

pub fn temp_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("throng-asset-{}-{}", name, std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("create temp dir");
    d
}
