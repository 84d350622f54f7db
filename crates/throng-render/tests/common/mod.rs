//! Hand-built baked assets for renderer tests (the baker is another crate; these encode bone
//! textures directly from known (rotation, translation, uniform scale) skin transforms).

#![allow(dead_code)]

pub mod appearance;
pub mod motion;
pub mod variants;

use glam::{Mat4, Quat, Vec2, Vec3, Vec4};
use half::f16;
use throng_asset::*;
use throng_render::gpu_types::MaterialUniform;
use throng_render::{
    image, InstanceRecord, InstanceTransform, PropMesh, Records, ReferenceMesh, Renderer,
};

/// A renderer on the test GPU, or `None` (skip) when there is none outside CI.
pub fn renderer() -> Option<Renderer> {
    throng_render::device::test_gpu().map(Renderer::with_gpu)
}

/// `records` drawn by the texture path (the skinning path `opts` picks).
pub fn texture(
    r: &mut Renderer,
    g: &throng_render::GpuAsset,
    transforms: &[InstanceTransform],
    records: &[InstanceRecord],
    opts: &throng_render::RenderOptions,
) -> image::RgbaImage {
    r.render_texture(g, transforms, records, opts)
        .expect("texture render")
}

/// The bending tube of `encoding` and its upload to `r`.
pub fn uploaded_tube(r: &Renderer, encoding: Encoding) -> (BakedAsset, throng_render::GpuAsset) {
    let asset = tube_asset(encoding);
    let g = r.upload(&asset).expect("upload");
    (asset, g)
}

/// Writes `img` as `name` in the test target dir, for people to look at.
pub fn save(img: &image::RgbaImage, name: &str) {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    img.save(&path).expect("write png");
    eprintln!("wrote {}", path.display());
}

/// The tube's orange (the background and the ground are blue and grey).
pub fn is_orange(p: &image::Rgba<u8>) -> bool {
    p[0] > 100 && p[0] as i32 > p[2] as i32 + 60 && p[1] < p[0]
}

/// Per pixel of two same-sized images: whether R, G or B differ by more than 8 levels (of 255).
pub fn differing(a: &image::RgbaImage, b: &image::RgbaImage) -> Vec<bool> {
    a.pixels()
        .zip(b.pixels())
        .map(|(p, q)| (0..3).any(|c| (p[c] as i32 - q[c] as i32).abs() > 8))
        .collect()
}

/// Primitive 0 of `asset` skinned on the CPU by the decoder for each record.
pub fn cpu_skinned(
    asset: &BakedAsset,
    records: &[InstanceRecord],
    mode: decode::Skinning,
) -> Vec<decode::SkinnedVertices> {
    records
        .iter()
        .map(|rec| decode::skin_vertices(asset, 0, &rec.layers, mode).expect("cpu skin"))
        .collect()
}

/// One reference mesh per instance: primitive 0 of `asset` with the i-th (positions, normals)
/// of `vertices`, at `transforms[i]`, in the asset's plain colour.
pub fn instance_meshes<'a>(
    asset: &'a BakedAsset,
    vertices: impl IntoIterator<Item = (&'a [Vec3], &'a [Vec3])>,
    transforms: &'a [InstanceTransform],
) -> Vec<ReferenceMesh<'a>> {
    vertices
        .into_iter()
        .zip(transforms)
        .map(|((positions, normals), t)| ReferenceMesh {
            mesh: PropMesh {
                positions,
                normals,
                indices: &asset.primitives[0].indices,
                uvs: None,
                material: MaterialUniform::color(asset.materials[0].base_color_factor),
                texture: None,
            },
            transforms: std::slice::from_ref(t),
        })
        .collect()
}

/// How many pixels `differing` marks.
pub fn differ_count(a: &image::RgbaImage, b: &image::RgbaImage) -> usize {
    differing(a, b).iter().filter(|&&d| d).count()
}

/// xorshift64* — deterministic test data without a dependency.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Uniform in [0, 1).
    pub fn f(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
    pub fn range(&mut self, a: f32, b: f32) -> f32 {
        a + (b - a) * self.f()
    }
    pub fn unit3(&mut self) -> Vec3 {
        loop {
            let v = Vec3::new(
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            );
            let l = v.length();
            if l > 0.1 && l <= 1.0 {
                return v / l;
            }
        }
    }
}

/// A skin transform S = T(t) · R(q) · s (uniform scale), the form every encoding can store.
#[derive(Clone, Copy, Debug)]
pub struct Trs {
    pub q: Quat,
    pub t: Vec3,
    pub s: f32,
}

impl Trs {
    pub fn matrix(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(Vec3::splat(self.s), self.q, self.t)
    }
}

/// Encodes `poses[row][entry]` into a bone texture of `encoding` (docs/design.md §3).
pub fn encode(encoding: Encoding, poses: &[Vec<Trs>], rows_per_layer: u32) -> BoneTexture {
    let rows = poses.len() as u32;
    let entries = poses[0].len() as u32;
    let t_range = poses
        .iter()
        .flatten()
        .map(|p| p.t.abs().max_element())
        .fold(0.0f32, f32::max)
        .max(1e-6);
    let s_range = poses
        .iter()
        .flatten()
        .map(|p| p.s.abs())
        .fold(0.0f32, f32::max)
        .max(1e-6);
    let mut data = Vec::new();
    let f32s = |data: &mut Vec<u8>, v: [f32; 4]| {
        for x in v {
            data.extend_from_slice(&x.to_le_bytes());
        }
    };
    let snorm = |x: f32| -> i16 { (x.clamp(-1.0, 1.0) * 32767.0).round() as i16 };
    for row in poses {
        for p in row {
            let m = p.matrix();
            let r = m.transpose();
            match encoding {
                Encoding::Mat4F32 => {
                    for c in [m.x_axis, m.y_axis, m.z_axis, m.w_axis] {
                        f32s(&mut data, c.into());
                    }
                }
                Encoding::Mat3x4F32 => {
                    for c in [r.x_axis, r.y_axis, r.z_axis] {
                        f32s(&mut data, c.into());
                    }
                }
                Encoding::Mat3x4F16 => {
                    for c in [r.x_axis, r.y_axis, r.z_axis] {
                        for x in c.to_array() {
                            data.extend_from_slice(&f16::from_f32(x).to_bits().to_le_bytes());
                        }
                    }
                }
                Encoding::QuatF32 => {
                    f32s(&mut data, Vec4::from(p.q).into());
                    f32s(&mut data, p.t.extend(p.s).into());
                }
                Encoding::Mat3x4Snorm16 => {
                    // the largest scale bounds every linear entry, so it serves as their range
                    let k = Vec4::new(s_range, s_range, s_range, t_range);
                    for c in [r.x_axis, r.y_axis, r.z_axis] {
                        for x in (c / k).to_array() {
                            data.extend_from_slice(&snorm(x).to_le_bytes());
                        }
                    }
                }
                Encoding::QuatSnorm16 => {
                    let q = Vec4::from(p.q);
                    let ts = (p.t / t_range).extend(p.s / s_range);
                    for x in q.to_array().into_iter().chain(ts.to_array()) {
                        data.extend_from_slice(&snorm(x).to_le_bytes());
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
        translation_range: t_range,
        scale_range: s_range,
        data,
    }
}

/// `asset` with Catmull-Rom rows (docs/design.md §3 "Row interpolation"): its first clip
/// periodic (the taps wrap around its seam), the others not (the end frames repeat).
#[allow(dead_code)]
pub fn with_cubic_rows(mut asset: BakedAsset) -> BakedAsset {
    for (i, c) in asset.clips.iter_mut().enumerate() {
        c.interpolation = throng_asset::RowInterpolation::CatmullRom;
        c.periodic = i == 0;
    }
    asset
}

/// `asset` with degree-3 polynomial pieces (docs/design.md §3 "Row interpolation"): each of
/// its 4-frame clips is one piece through its 4 rows.
#[allow(dead_code)]
pub fn with_piece_rows(mut asset: BakedAsset) -> BakedAsset {
    for c in asset.clips.iter_mut() {
        assert_eq!((c.frames - 1) % 3, 0, "whole degree-3 pieces");
        c.interpolation = throng_asset::RowInterpolation::Pieces;
        c.degree = 3;
    }
    asset
}

fn clip(name: &str, first_row: u32, frames: u32) -> ClipInfo {
    timed_clip(name, first_row, frames, (frames - 1) as f64 / 30.0, None)
}

/// A looping clip of `frames` over `duration` seconds: uniform at 30 fps, or at the listed
/// frame `times` (its fps then the mean rate).
pub fn timed_clip(
    name: &str,
    first_row: u32,
    frames: u32,
    duration: f64,
    times: Option<Vec<f32>>,
) -> ClipInfo {
    let fps = match &times {
        Some(_) => (frames - 1) as f64 / duration,
        None => 30.0,
    };
    ClipInfo {
        additive: None,
        interpolation: Default::default(),
        periodic: false,
        degree: 0,
        times,
        name: name.into(),
        first_row,
        frames,
        fps,
        step: if frames > 1 {
            duration / (frames - 1) as f64
        } else {
            0.0
        },
        duration,
        loop_mode: LoopMode::Loop,
        events: vec![],
        root_motion: None,
        bounds: Aabb::EMPTY,
    }
}

fn settings(encoding: Encoding, k: u32) -> BakeSettings {
    BakeSettings {
        fps: "30".into(),
        requested_encoding: encoding,
        influences: k,
        max_texture_size: 8192,
        root_motion: false,
        motion_root: None,
    }
}

/// `n` unorm16 weights summing to exactly 65535, descending.
fn weights(rng: &mut Rng, n: usize) -> Vec<u16> {
    let raw: Vec<f32> = (0..n).map(|_| rng.range(0.05, 1.0)).collect();
    let sum: f32 = raw.iter().sum();
    let mut w: Vec<u16> = raw
        .iter()
        .map(|x| (x / sum * 65535.0).floor() as u16)
        .collect();
    let rest = 65535 - w.iter().map(|&x| x as u32).sum::<u32>();
    w[0] += rest as u16;
    w.sort_unstable_by(|a, b| b.cmp(a));
    w
}

/// Random poses (rotations, translations within ±0.8, scales 0.8..1.25) for 5 palette entries
/// over 9 rows: rest row 0, clip "a" rows 1–4, clip "b" rows 5–8; 40 random vertices with K
/// influences; the bone texture split into array layers of 3 rows.
pub fn random_asset(encoding: Encoding, k: u32, seed: u64) -> (BakedAsset, Vec<Vec<Trs>>) {
    let mut rng = Rng::new(seed);
    let entries = 5;
    let rows = 9;
    let poses: Vec<Vec<Trs>> = (0..rows)
        .map(|_| {
            (0..entries)
                .map(|_| Trs {
                    q: Quat::from_axis_angle(rng.unit3(), rng.range(-3.0, 3.0)),
                    t: Vec3::new(
                        rng.range(-0.8, 0.8),
                        rng.range(-0.8, 0.8),
                        rng.range(-0.8, 0.8),
                    ),
                    s: rng.range(0.8, 1.25),
                })
                .collect()
        })
        .collect();
    let v = 40;
    let mut positions = vec![];
    let mut normals = vec![];
    let mut tangents = vec![];
    let mut joints = vec![];
    let mut ws = vec![];
    for _ in 0..v {
        positions.push(Vec3::new(
            rng.range(-1.0, 1.0),
            rng.range(0.0, 2.0),
            rng.range(-1.0, 1.0),
        ));
        let n = rng.unit3();
        normals.push(n);
        let t = n.any_orthonormal_vector();
        tangents.push(t.extend(if rng.f() < 0.5 { -1.0 } else { 1.0 }));
        for _ in 0..k {
            joints.push((rng.next_u64() % entries as u64) as u16);
        }
        ws.extend(weights(&mut rng, k as usize));
    }
    let indices: Vec<u32> = (0..v as u32 - 2).flat_map(|i| [i, i + 1, i + 2]).collect();
    let prim = BakedPrimitive {
        tangents: Some(tangents),
        ..skinned_primitive(positions, normals, (k, joints, ws), indices)
    };
    let asset = BakedAsset {
        source_name: format!("random-{}", encoding.as_str()),
        settings: settings(encoding, k),
        palette: (0..entries)
            .map(|i| PaletteEntry {
                node: i,
                name: format!("node{i}"),
                inverse_bind_matrix: Mat4::IDENTITY,
                rigid: false,
            })
            .collect(),
        clips: vec![clip("a", 1, 4), clip("b", 5, 4)],
        row_bounds: vec![],
        bone_texture: encode(encoding, &poses, 3),
        primitives: vec![prim],
        materials: vec![],
        images: vec![],
        anchors: None,
        masks: Vec::new(),
        variants: Vec::new(),
        far_tier: None,
    };
    (asset, poses)
}

/// A tube of height 2 (file units) along +Y, radius 0.25, bound to a chain of 3 joints at
/// y = 0, 2/3, 4/3 that bends about +Z; clip "bend" (rows 1–16, 16 frames) swings it from
/// straight to bent by up to 1.2 rad over all joints. Orange material. Anchors "tip" (the top
/// end, on joint 2) and "mid" (joint 1).
pub fn tube_asset(encoding: Encoding) -> BakedAsset {
    let joints_y = [0.0f32, 2.0 / 3.0, 4.0 / 3.0];
    let frames = 16u32;
    let rows = 1 + frames;
    let pose = |angle: f32| -> Vec<Trs> {
        // World of joint j: chain of rotations about Z at each joint's rest height.
        let mut world = Mat4::IDENTITY;
        let mut out = vec![];
        for (j, &y) in joints_y.iter().enumerate() {
            let parent_y = if j == 0 { 0.0 } else { joints_y[j - 1] };
            let local = Mat4::from_translation(Vec3::new(0.0, y - parent_y, 0.0))
                * Mat4::from_rotation_z(angle / 3.0);
            world *= local;
            let ibm = Mat4::from_translation(Vec3::new(0.0, -y, 0.0));
            let (s, q, t) = (world * ibm).to_scale_rotation_translation();
            out.push(Trs { q, t, s: s.x });
        }
        out
    };
    let mut poses = vec![pose(0.0)];
    for f in 0..frames {
        let a = 1.2 * (std::f32::consts::PI * f as f32 / (frames - 1) as f32).sin();
        poses.push(pose(a));
    }
    // Tube mesh: rings × segments.
    let rings = 25;
    let seg = 16;
    let mut positions = vec![];
    let mut normals = vec![];
    let mut jts = vec![];
    let mut ws = vec![];
    for r in 0..rings {
        let y = 2.0 * r as f32 / (rings - 1) as f32;
        // Smooth weights between neighbouring joints.
        let fj = (y / (2.0 / 3.0) - 0.5).clamp(0.0, 2.0);
        let j0 = fj.floor().min(1.0) as u16;
        let t = (fj - j0 as f32).clamp(0.0, 1.0);
        let w1 = (t * 65535.0).round() as u16;
        let w0 = 65535 - w1;
        for s in 0..seg {
            let a = std::f32::consts::TAU * s as f32 / seg as f32;
            let n = Vec3::new(a.cos(), 0.0, a.sin());
            positions.push(Vec3::new(0.0, y, 0.0) + n * 0.25);
            normals.push(n);
            jts.extend([j0, j0 + 1, 0, 0]);
            ws.extend([w0, w1, 0, 0]);
        }
    }
    let mut indices = vec![];
    for r in 0..rings - 1 {
        for s in 0..seg {
            let a = r * seg + s;
            let b = r * seg + (s + 1) % seg;
            let c = a + seg;
            let d = b + seg;
            indices.extend([a, c, b, b, c, d].map(|x| x as u32));
        }
    }
    let bone_texture = encode(encoding, &poses, 8192);
    // Anchors from the joints' model-space transforms W_j = S_j · IBM_j⁻¹: "tip" at the top of
    // the tube (joint 2, 2 units up), "mid" at joint 1.
    let anchor_at =
        |pose: &[Trs], j: usize, y: f32| pose[j].matrix() * Mat4::from_translation(Vec3::Y * y);
    let mut anchor_data = vec![];
    for pose in &poses {
        for m in [anchor_at(pose, 2, 2.0), anchor_at(pose, 1, joints_y[1])] {
            let t = m.transpose();
            for r in [t.x_axis, t.y_axis, t.z_axis] {
                anchor_data.extend(r.to_array());
            }
        }
    }
    let anchors = AnchorTexture {
        anchors: vec![
            AnchorInfo {
                name: "tip".into(),
                node: 2,
            },
            AnchorInfo {
                name: "mid".into(),
                node: 1,
            },
        ],
        rows,
        data: anchor_data,
    };
    let mut bounds = Aabb::EMPTY;
    for p in &positions {
        bounds.extend(*p);
    }
    // Bent poses stay within the straight tube's height; widen sideways.
    bounds.min.x -= 1.2;
    bounds.max.x += 1.2;
    let mut c = clip("bend", 1, frames);
    c.bounds = bounds;
    BakedAsset {
        source_name: "tube".into(),
        settings: settings(encoding, 4),
        palette: (0..3)
            .map(|i| PaletteEntry {
                node: i,
                name: format!("joint{i}"),
                inverse_bind_matrix: Mat4::from_translation(Vec3::new(0.0, -joints_y[i], 0.0)),
                rigid: false,
            })
            .collect(),
        clips: vec![c],
        row_bounds: vec![bounds; rows as usize],
        bone_texture,
        primitives: vec![BakedPrimitive {
            material: Some(0),
            ..skinned_primitive(positions, normals, (4, jts, ws), indices)
        }],
        materials: vec![BakedMaterial {
            name: Some("orange".into()),
            base_color_factor: [0.9, 0.35, 0.08, 1.0],
            base_color_texture: None,
            texture_transform: TextureTransform::default(),
            metallic_factor: 0.0,
            roughness_factor: 1.0,
            double_sided: false,
        }],
        images: vec![],
        anchors: Some(anchors),
        masks: Vec::new(),
        variants: Vec::new(),
        far_tier: None,
    }
}

/// The one skinned primitive of the synthetic assets: node 0's mesh 0, no tangents, UVs,
/// material, LODs or VAT unless the caller sets them. `skin` is (influences per vertex, joints,
/// weights).
fn skinned_primitive(
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    (influences, joints, weights): (u32, Vec<u16>, Vec<u16>),
    indices: Vec<u32>,
) -> BakedPrimitive {
    BakedPrimitive {
        node_index: 0,
        mesh: 0,
        primitive: 0,
        rigid: false,
        positions,
        normals,
        tangents: None,
        uv0: None::<Vec<Vec2>>,
        influences,
        joints,
        weights,
        indices,
        material: None,
        lods: vec![],
        vat: None,
    }
}

/// The model-space box culling gives an instance showing `record` (docs/design.md §5),
/// computed on the CPU: per active layer the union of the boxes of its row and next row
/// (throng-asset's `layer_rows`, the shaders' twin), each grown by `ROW_PAD` of the asset's
/// diagonal and kept within its clip's box; the rest row's box for a disabled instance.
pub fn culling_box(
    asset: &throng_asset::BakedAsset,
    record: &InstanceRecord,
) -> throng_asset::Aabb {
    let all = asset
        .row_bounds
        .iter()
        .fold(throng_asset::Aabb::EMPTY, |a, b| a.union(b));
    let pad = glam::Vec3::splat(throng_render::ROW_PAD * all.diagonal());
    let rows = throng_asset::decode::layer_rows(&record.layers, &asset.clips).expect("layer rows");
    let clip_of = |row: u32| {
        asset
            .clips
            .iter()
            .find(|c| (c.first_row..c.first_row + c.frames).contains(&row))
            .map_or(all, |c| c.bounds)
    };
    rows.iter().fold(throng_asset::Aabb::EMPTY, |b, l| {
        let r = asset.row_bounds[l.row as usize].union(&asset.row_bounds[l.next as usize]);
        let c = clip_of(l.row);
        b.union(&throng_asset::Aabb {
            min: (r.min - pad).max(c.min),
            max: (r.max + pad).min(c.max),
        })
    })
}

/// Occlusion culling: a tube scaled into a wall in front of a line of tubes straight behind it,
/// seen along the line (wide: the tube asset's row boxes hold its whole bend). The first frame (no history: an empty pyramid) draws every instance in view in the
/// second phase and finds them all visible; the second draws them all first and finds the hidden
/// ones; from the third on only the front tube and the tubes standing aside are drawn. Every
/// frame's picture equals the picture without occlusion culling.
pub fn occlusion_scenario(r: &mut Renderer, tag: &str) {
    use throng_render::{gpu_types::single_layer, RenderOptions};
    let (_, g) = uploaded_tube(r, Encoding::QuatSnorm16);
    let h = g.bounds.max.y - g.bounds.min.y;
    let n = 30u32;
    let mut transforms = vec![InstanceTransform::from_mat4(&Mat4::from_scale(Vec3::new(
        12.0, 3.0, 1.0,
    )))];
    // Every fifth tube stands aside, seen past the wall's edge (at 0.375 rad from the view
    // axis; the view reaches 0.437).
    let eye_z = 4.0 * h;
    transforms.extend((1..n).map(|i| {
        let z = -(i as f32) * 0.8 * h;
        let x = if i % 5 == 0 { 0.41 * (eye_z - z) } else { 0.0 };
        InstanceTransform::from_mat4(&Mat4::from_translation(Vec3::new(x, 0.0, z)))
    }));
    let records: Vec<_> = (0..n).map(|i| single_layer(1 + i % 3, 0.25, 0)).collect();
    let cam = throng_render::Camera {
        eye: Vec3::new(0.0, 0.6 * h, eye_z),
        target: Vec3::new(0.0, 0.6 * h, -10.0 * h),
        up: Vec3::Y,
        fov_y: 40f32.to_radians(),
        near: 0.05 * h,
        far: 100.0 * h,
    };
    let opts = RenderOptions {
        width: 192,
        height: 160,
        camera: Some(cam),
        shadows: false,
        ..Default::default()
    };
    let play = throng_render::Playback::Records(Records::Cpu(&records));
    let crowd = throng_render::Crowd::new(&g, &transforms, play);
    let plain = r
        .render_scene(
            &[crowd],
            &RenderOptions {
                occlusion: false,
                ..opts
            },
        )
        .expect("render without occlusion culling");
    assert_eq!(plain.stats.instances_drawn, n as u64, "all in view");
    save(&plain.image, &format!("tube-occlusion-plain{tag}.png"));
    for frame in 0..4 {
        let f = r.render_scene(&[crowd], &opts).expect("render");
        let st = &f.stats;
        eprintln!(
            "frame {frame}: drawn {} (second phase {})",
            st.instances_drawn, st.second_phase_instances
        );
        assert_eq!(
            differ_count(&f.image, &plain.image),
            0,
            "frame {frame}: occlusion culling changed the picture"
        );
        if frame == 0 {
            // No history: nothing drawn first, everything in view second.
            assert_eq!(st.second_phase_instances, st.instances_drawn);
            assert_eq!(st.instances_drawn, n as u64);
        } else if frame == 1 {
            assert_eq!(st.instances_drawn, n as u64);
            assert_eq!(st.second_phase_instances, 0);
        } else {
            // The front tube and the 5 standing aside; the camera stands still, so the second
            // phase adds nothing.
            assert!(
                st.instances_drawn <= 8,
                "frame {frame}: {} drawn",
                st.instances_drawn
            );
            assert!(st.instances_drawn >= 6, "{} drawn", st.instances_drawn);
            assert_eq!(st.second_phase_instances, 0);
        }
        if frame == 3 {
            save(&f.image, &format!("tube-occlusion{tag}.png"));
        }
    }
    // The camera steps aside: the line behind the wall comes into view in the same frame — drawn
    // by the second phase, the picture again equal to one without occlusion culling.
    let moved = RenderOptions {
        camera: Some(throng_render::Camera {
            eye: cam.eye + Vec3::new(6.0 * h, 0.0, 0.0),
            ..cam
        }),
        ..opts
    };
    let f = r.render_scene(&[crowd], &moved).expect("render");
    let want = r
        .render_scene(
            &[crowd],
            &RenderOptions {
                occlusion: false,
                ..moved
            },
        )
        .expect("render without occlusion culling");
    save(&f.image, &format!("tube-occlusion-moved{tag}.png"));
    eprintln!(
        "moved: drawn {} (second phase {}) of {}",
        f.stats.instances_drawn, f.stats.second_phase_instances, want.stats.instances_drawn
    );
    assert_eq!(differ_count(&f.image, &want.image), 0, "moved camera");
    assert!(f.stats.second_phase_instances >= 10);
}

/// Four instances' records over a two-clip table: a crossfade, two layers in slots 1 and 3 (one
/// on a clip's last row, so its next row clamps to it), a single layer, and a disabled instance
/// (the rest row): what the texture-path and palette-path tests skin.
pub fn test_records() -> Vec<InstanceRecord> {
    let l = |weight, frac, row: u32, clip: u32| Layer {
        weight,
        frac,
        row: row as f32,
        clip,
    };
    vec![
        // Crossfade: clip a at row 2 + 0.3, clip b at row 6 + 0.65.
        InstanceRecord {
            layers: [
                l(0.7, 0.3, 2, 0),
                l(0.3, 0.65, 6, 1),
                Layer::default(),
                Layer::default(),
            ],
        },
        // Two layers in slots 1 and 3, one on a clip's last row (next clamps to it).
        InstanceRecord {
            layers: [
                Layer::default(),
                l(0.45, 0.8, 4, 0),
                Layer::default(),
                l(0.55, 0.25, 7, 1),
            ],
        },
        // Single layer on the rest row's neighbours and a disabled instance (rest row 0).
        throng_render::gpu_types::single_layer(5, 0.5, 1),
        InstanceRecord::default(),
    ]
}

/// `n` foxes on a random layout, playing a seeded mix of clips at random phases.
pub fn crowd_of(
    asset: &throng_asset::BakedAsset,
    n: u32,
    timing: throng_contract::Timing,
) -> (
    Vec<throng_contract::InstanceTransform>,
    throng_runtime::Runtime,
) {
    use throng_runtime::crowd::{assign, layout, new_runtime, spacing, ClipMix, Layout};
    let spacing = spacing(&asset.pose_bounds());
    let transforms = layout(n, Layout::Random, spacing, 7);
    let mix = ClipMix {
        clip: None,
        mix: true,
        stagger: 0.0,
        random_phase: true,
        seed: 11,
    };
    let ids: Vec<u32> = (0..n).collect();
    let durations: Vec<f64> = asset.clips.iter().map(|c| c.duration).collect();
    let assignments = assign(&mix, &ids, &durations);
    let rt =
        new_runtime(timing, &asset.clips, &assignments, &transforms, 1.3, None).expect("runtime");
    (transforms, rt)
}
