//! `throng export` (docs/export.md), checked the way an engine would read the files: each format
//! is decoded by a decoder written here from that engine's published shader maths — not from
//! throng's code — and must reproduce reference CPU skinning of the source (throng-anim's
//! `ModelSkinner`, what `throng sample` prints) at every exported frame.
//!
//! Decoders and the shader each follows:
//! - OpenVAT: OpenVAT's Godot decoder `OpenVAT-Engine_Tools/GLSL/VertexAnimationPBR-GLSL.gdshader`
//!   (offset `min + tex · (max − min)` added to the vertex as `(x, z, −y)`, one texel row per
//!   frame below `UV2`), with its normal lookup corrected to the row half the texture down in the
//!   same column (the published lookup also moves u). Checked first on OpenVAT's own sample export.
//! - Unreal AnimToTexture: the inverse of the plugin's encoder (`AnimToTextureBPLibrary.cpp`,
//!   `AnimToTextureUtils.cpp`; its material functions are binary assets): vertex mode
//!   `p + MinBBox + tex · SizeBBox` at `uv + (0, f · RowsPerFrame / H)`; bone mode
//!   `Σ w_i (R(axis_i, 2π a_i) (p − P_ref,i) + P_ref,i + Δ_i)` with Rodrigues' rotation, indices
//!   `round(tex · NumBones)` — in Unreal's axes and centimetres (`100 · (x, z, y)` of glTF's).
//! - Godot bone mode and bone-texture-json: throng's own formats, decoded from their documented
//!   layout (docs/export.md), as `throng_bones.gdshader` does.
//!
//! Tolerances: positions within the bake's own error (baked rows against the reference, measured
//! here at the same times) plus one step of the 16-bit remap (the range / 65535 per channel, as a
//! vector) — half floats for EXR: 2^-11 of the range; normals within 1e-2 of the baked normals.

use glam::{Mat3, Mat4, Vec2, Vec3, Vec4};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use throng_anim::{Model, ModelSkinner, Skinning};
use throng_asset::BakedAsset;

// ---------------------------------------------------------------------------------------------
// Readers (libraries only).

struct Texture {
    width: u32,
    height: u32,
    texels: Vec<[f32; 4]>,
}

impl Texture {
    /// Nearest texel at (u, v), v down (glTF, Godot, PNG rows from the top).
    fn nearest(&self, u: f32, v: f32) -> [f32; 4] {
        let x = ((u * self.width as f32).floor() as i64).clamp(0, self.width as i64 - 1);
        let y = ((v * self.height as f32).floor() as i64).clamp(0, self.height as i64 - 1);
        self.texels[(y * self.width as i64 + x) as usize]
    }

    fn fetch(&self, x: u32, y: u32) -> [f32; 4] {
        self.texels[(y * self.width + x) as usize]
    }
}

fn read_texture(path: &Path) -> Texture {
    if path.extension().is_some_and(|e| e == "exr") {
        let img = exr::prelude::read_first_rgba_layer_from_file(
            path,
            |res, _| {
                let (w, h) = (res.width(), res.height());
                (w, h, vec![[0f32; 4]; w * h])
            },
            |(w, _, t): &mut (usize, usize, Vec<[f32; 4]>),
             p,
             (r, g, b, a): (f32, f32, f32, f32)| {
                t[p.y() * *w + p.x()] = [r, g, b, a];
            },
        )
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let (w, h, texels) = img.layer_data.channel_data.pixels;
        return Texture {
            width: w as u32,
            height: h as u32,
            texels,
        };
    }
    let img = image::open(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .to_rgba16();
    Texture {
        width: img.width(),
        height: img.height(),
        texels: img
            .pixels()
            .map(|p| p.0.map(|c| c as f32 / 65535.0))
            .collect(),
    }
}

struct MeshPrim {
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    uv1: Vec<Vec2>,
    joints: Vec<[u16; 4]>,
    weights: Vec<[f32; 4]>,
}

fn read_glb(path: &Path) -> Vec<MeshPrim> {
    let (doc, buffers, _) =
        gltf::import(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = Vec::new();
    for mesh in doc.meshes() {
        for p in mesh.primitives() {
            let r = p.reader(|b| Some(&buffers[b.index()]));
            out.push(MeshPrim {
                positions: r.read_positions().unwrap().map(Vec3::from).collect(),
                normals: r.read_normals().unwrap().map(Vec3::from).collect(),
                uv1: r
                    .read_tex_coords(1)
                    .map(|t| t.into_f32().map(Vec2::from).collect())
                    .unwrap_or_default(),
                joints: r
                    .read_joints(0)
                    .map(|j| j.into_u16().collect())
                    .unwrap_or_default(),
                weights: r
                    .read_weights(0)
                    .map(|w| w.into_f32().collect())
                    .unwrap_or_default(),
            });
        }
    }
    out
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

fn v3(v: &Value) -> Vec3 {
    Vec3::new(
        v[0].as_f64().unwrap() as f32,
        v[1].as_f64().unwrap() as f32,
        v[2].as_f64().unwrap() as f32,
    )
}

fn rgb(t: [f32; 4]) -> Vec3 {
    Vec3::new(t[0], t[1], t[2])
}

// ---------------------------------------------------------------------------------------------
// Decoders, one per engine.

/// A decoded frame: positions and normals in glTF's axes and the file's units, mesh vertex order.
struct Decoded {
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
}

/// OpenVAT as its Godot shader reads it.
struct OpenVat {
    tex: Texture,
    min: Vec3,
    max: Vec3,
    mesh: Vec<MeshPrim>,
}

impl OpenVat {
    fn load(texture: &Path, remap: &Path, mesh: &Path) -> OpenVat {
        let j = read_json(remap);
        OpenVat {
            tex: read_texture(texture),
            min: v3(&j["os-remap"]["Min"]),
            max: v3(&j["os-remap"]["Max"]),
            mesh: read_glb(mesh),
        }
    }

    fn frame(&self, f: u32) -> Decoded {
        let h = self.tex.height as f32;
        let mut out = Decoded {
            positions: vec![],
            normals: vec![],
        };
        for p in &self.mesh {
            for (i, uv) in p.uv1.iter().enumerate() {
                let t = rgb(self.tex.nearest(uv.x, uv.y + f as f32 / h));
                let d = self.min + t * (self.max - self.min);
                out.positions
                    .push(p.positions[i] + Vec3::new(d.x, d.z, -d.y));
                let n = rgb(self.tex.nearest(uv.x, uv.y + 0.5 + f as f32 / h)) * 2.0 - 1.0;
                out.normals
                    .push(Vec3::new(n.x, n.z, -n.y).normalize_or_zero());
            }
        }
        out
    }

    /// One step of the remap, as a vector.
    fn step(&self, half: bool) -> f32 {
        let q = if half { 2f32.powi(-11) } else { 1.0 / 65535.0 };
        ((self.max - self.min) * q).length()
    }
}

fn unreal_to_gltf(p: Vec3) -> Vec3 {
    Vec3::new(p.x, p.z, p.y) / 100.0
}

fn gltf_to_unreal(p: Vec3) -> Vec3 {
    Vec3::new(p.x, p.z, p.y) * 100.0
}

/// AnimToTexture vertex mode.
fn ue_vertex(dir: &Path, name: &str, f: u32) -> (Decoded, f32) {
    let j = read_json(&dir.join(format!("{name}-a2t.json")));
    let pos = read_texture(&dir.join(format!("{name}_position.png")));
    let nrm = read_texture(&dir.join(format!("{name}_normal.png")));
    let (min, size) = (v3(&j["MinBBox"]), v3(&j["SizeBBox"]));
    let rpf = j["RowsPerFrame"].as_u64().unwrap() as f32;
    let mut out = Decoded {
        positions: vec![],
        normals: vec![],
    };
    for p in read_glb(&dir.join(format!("{name}.glb"))) {
        for (i, uv) in p.uv1.iter().enumerate() {
            let v = uv.y + f as f32 * rpf / pos.height as f32;
            let ue = gltf_to_unreal(p.positions[i]) + min + rgb(pos.nearest(uv.x, v)) * size;
            out.positions.push(unreal_to_gltf(ue));
            let n = rgb(nrm.nearest(uv.x, v)) * 2.0 - 1.0;
            out.normals
                .push(Vec3::new(n.x, n.z, n.y).normalize_or_zero());
        }
    }
    (out, (size / 65535.0 / 100.0).length())
}

fn rodrigues(axis: Vec3, angle: f32, v: Vec3) -> Vec3 {
    v * angle.cos() + axis.cross(v) * angle.sin() + axis * axis.dot(v) * (1.0 - angle.cos())
}

/// AnimToTexture bone mode.
fn ue_bone(dir: &Path, name: &str, f: u32) -> (Decoded, f32) {
    let j = read_json(&dir.join(format!("{name}-a2t.json")));
    let bpos = read_texture(&dir.join(format!("{name}_bone_position.png")));
    let brot = read_texture(&dir.join(format!("{name}_bone_rotation.png")));
    let wts = read_texture(&dir.join(format!("{name}_bone_weights.png")));
    let (min, size) = (v3(&j["MinBBox"]), v3(&j["SizeBBox"]));
    let bones = j["NumBones"].as_u64().unwrap() as f32;
    let rpf = j["RowsPerFrame"].as_u64().unwrap() as u32;
    let wrpf = j["BoneWeightsRowsPerFrame"].as_u64().unwrap() as f32;
    let bone = |b: u32, frame: u32| {
        let (x, y) = (b % bpos.width, frame * rpf + b / bpos.width);
        (bpos.fetch(x, y), brot.fetch(x, y))
    };
    let mut out = Decoded {
        positions: vec![],
        normals: vec![],
    };
    for p in read_glb(&dir.join(format!("{name}.glb"))) {
        for (i, uv) in p.uv1.iter().enumerate() {
            let idx = wts.nearest(uv.x, uv.y);
            let w = wts.nearest(uv.x, uv.y + wrpf / wts.height as f32);
            let v = gltf_to_unreal(p.positions[i]);
            let n0 = Vec3::new(p.normals[i].x, p.normals[i].z, p.normals[i].y);
            let (mut acc, mut nacc) = (Vec3::ZERO, Vec3::ZERO);
            for c in 0..4 {
                let b = (idx[c] * bones).round() as u32;
                let p_ref = min + rgb(bone(b, 0).0) * size;
                let (dp, rot) = bone(b, f + 1);
                let delta = min + rgb(dp) * size;
                let axis = (rgb(rot) * 2.0 - 1.0).normalize_or_zero();
                let angle = rot[3] * std::f32::consts::TAU;
                acc += w[c] * (rodrigues(axis, angle, v - p_ref) + p_ref + delta);
                nacc += w[c] * rodrigues(axis, angle, n0);
            }
            out.positions.push(unreal_to_gltf(acc));
            out.normals
                .push(Vec3::new(nacc.x, nacc.z, nacc.y).normalize_or_zero());
        }
    }
    (out, (size / 65535.0 / 100.0).length())
}

/// Skin matrix from three affine rows.
fn rows_matrix(r: [Vec4; 3]) -> Mat4 {
    Mat4::from_cols(
        Vec4::new(r[0].x, r[1].x, r[2].x, 0.0),
        Vec4::new(r[0].y, r[1].y, r[2].y, 0.0),
        Vec4::new(r[0].z, r[1].z, r[2].z, 0.0),
        Vec4::new(r[0].w, r[1].w, r[2].w, 1.0),
    )
}

fn lbs(m: &Mat4, p: Vec3, n: Vec3) -> (Vec3, Vec3) {
    let c = Mat3::from_mat4(*m);
    (
        m.transform_point3(p),
        (c.inverse().transpose() * n).normalize_or_zero(),
    )
}

/// bone-texture-json, from its documented layout.
fn bone_json(dir: &Path, name: &str, f: u32) -> Decoded {
    use base64::Engine as _;
    let j = read_json(&dir.join(format!("{name}-bones.json")));
    let b64 = |v: &Value| {
        base64::engine::general_purpose::STANDARD
            .decode(v.as_str().unwrap())
            .unwrap()
    };
    let data: Vec<f32> = b64(&j["boneTexture"]["data"])
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let width = j["boneTexture"]["width"].as_u64().unwrap() as usize;
    let k = j["influences"]["perVertex"].as_u64().unwrap() as usize;
    let u16s = |v: &Value| -> Vec<u16> {
        b64(v)
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect()
    };
    let (joints, weights) = (
        u16s(&j["influences"]["joints"]),
        u16s(&j["influences"]["weights"]),
    );
    let texel = |x: usize| {
        let at = (f as usize * width + x) * 4;
        Vec4::from_slice(&data[at..at + 4])
    };
    let mut out = Decoded {
        positions: vec![],
        normals: vec![],
    };
    let mut vi = 0;
    for p in read_glb(&dir.join(format!("{name}.glb"))) {
        for i in 0..p.positions.len() {
            let mut m = Mat4::ZERO;
            for c in 0..k {
                let e = joints[vi * k + c] as usize;
                m += rows_matrix([texel(3 * e), texel(3 * e + 1), texel(3 * e + 2)])
                    * (weights[vi * k + c] as f32 / 65535.0);
            }
            let (pp, nn) = lbs(&m, p.positions[i], p.normals[i]);
            out.positions.push(pp);
            out.normals.push(nn);
            vi += 1;
        }
    }
    out
}

/// Babylon.js's baked vertex animation, as `bakedVertexAnimation.fx` reads it: the matrix of bone
/// m at frame f is `mat4(texel(4m), texel(4m + 1), texel(4m + 2), texel(4m + 3))` of row f
/// (columns), blended by `matricesWeights` and applied to the bind-space position.
fn babylon(dir: &Path, name: &str, f: u32) -> Decoded {
    use base64::Engine as _;
    let j = read_json(&dir.join(format!("{name}-babylon-vat.json")));
    let raw = base64::engine::general_purpose::STANDARD
        .decode(j["vertexData"].as_str().unwrap())
        .unwrap();
    let data: Vec<f32> = raw
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let width = j["width"].as_u64().unwrap() as usize;
    let texel = |x: usize| {
        let at = (f as usize * width + x) * 4;
        Vec4::from_slice(&data[at..at + 4])
    };
    let matrix = |m: usize| {
        Mat4::from_cols(
            texel(4 * m),
            texel(4 * m + 1),
            texel(4 * m + 2),
            texel(4 * m + 3),
        )
    };
    let mut out = Decoded {
        positions: vec![],
        normals: vec![],
    };
    for p in read_glb(&dir.join(format!("{name}.glb"))) {
        for i in 0..p.positions.len() {
            let mut m = Mat4::ZERO;
            for c in 0..4 {
                m += matrix(p.joints[i][c] as usize) * p.weights[i][c];
            }
            let (pp, nn) = lbs(&m, p.positions[i], p.normals[i]);
            out.positions.push(pp);
            out.normals.push(nn);
        }
    }
    out
}

/// Godot bone mode, as throng_bones.gdshader reads it.
fn godot_bones(dir: &Path, name: &str, f: u32) -> Decoded {
    let bones = read_texture(&dir.join(format!("{name}_bones.exr")));
    let infl = read_texture(&dir.join(format!("{name}_influences.exr")));
    let mut out = Decoded {
        positions: vec![],
        normals: vec![],
    };
    for p in read_glb(&dir.join(format!("{name}_bind.glb"))) {
        for (i, uv) in p.uv1.iter().enumerate() {
            let (x, y) = (
                (uv.x * infl.width as f32) as u32,
                (uv.y * infl.height as f32) as u32,
            );
            let (js, ws) = (infl.fetch(x, y), infl.fetch(x, y + 1));
            let mut m = Mat4::ZERO;
            for c in 0..4 {
                let j = (js[c] + 0.5) as u32;
                let r = |k: u32| Vec4::from(bones.fetch(3 * j + k, f));
                m += rows_matrix([r(0), r(1), r(2)]) * ws[c];
            }
            let (pp, nn) = lbs(&m, p.positions[i], p.normals[i]);
            out.positions.push(pp);
            out.normals.push(nn);
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// The reference and the bake.

fn throng(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(args)
        .output()
        .expect("run throng")
}

/// Runs `throng export` of `input` as `format` into `dir` with `extra` flags, whatever the
/// outcome.
fn run_export(input: &Path, format: &str, dir: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "export",
        input.to_str().unwrap(),
        "--format",
        format,
        "-o",
        dir.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    throng(&args)
}

/// [`run_export`] named "a", which must succeed.
fn export(input: &Path, format: &str, dir: &Path, extra: &[&str]) {
    let out = run_export(input, format, dir, &[&["--name", "a"], extra].concat());
    assert!(
        out.status.success(),
        "throng export {format} {extra:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Source skinned on the CPU at clip `name`'s time t, in the baked primitives' order.
fn reference(model: &Model, asset: &BakedAsset, clip: &str, t: f64) -> Vec<Vec3> {
    let ci = model
        .clips
        .iter()
        .position(|c| c.name == clip)
        .expect("source clip");
    let mut parts = Vec::new();
    ModelSkinner::new(model).skin(model, Some(ci), t as f32, Skinning::Linear, &mut parts);
    asset
        .primitives
        .iter()
        .flat_map(|bp| {
            let part = parts
                .iter()
                .find(|p| {
                    p.node == bp.node_index && p.mesh == bp.mesh && p.primitive == bp.primitive
                })
                .expect("reference part");
            part.vertices.positions.clone()
        })
        .collect()
}

/// The largest distance between the points of `a` and `b` taken pairwise.
fn max_distance(a: &[Vec3], b: &[Vec3]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(a, b)| (*a - *b).length())
        .fold(0.0, f32::max)
}

/// The one layer that shows clip `ci` of `asset` at time t (clamped to the clip).
fn layer_at(asset: &BakedAsset, ci: usize, t: f64) -> throng_asset::Layer {
    let f = asset.clips[ci]
        .frames_table()
        .sample(throng_asset::LoopMode::Clamp, t);
    throng_asset::Layer {
        weight: 1.0,
        frac: f.frac,
        row: f.row as f32,
        clip: ci as u32,
    }
}

/// The baked asset drawn by throng's CPU decoder at clip `ci`'s time t: positions, normals.
fn baked(asset: &BakedAsset, ci: usize, t: f64) -> (Vec<Vec3>, Vec<Vec3>) {
    let layer = layer_at(asset, ci, t);
    let mut p = Vec::new();
    let mut n = Vec::new();
    for i in 0..asset.primitives.len() {
        let s = throng_asset::decode::skin_vertices(
            asset,
            i,
            &[layer],
            throng_asset::decode::Skinning::Linear,
        )
        .unwrap();
        p.extend(s.positions);
        n.extend(s.normals);
    }
    (p, n)
}

/// The exported frames from the folder's throng-export.json: (clip name, global frame, time).
fn frames(dir: &Path) -> Vec<(String, u32, f64)> {
    let j = read_json(&dir.join("throng-export.json"));
    let mut out = Vec::new();
    for c in j["clips"].as_array().unwrap() {
        let (start, n, d) = (
            c["start"].as_u64().unwrap() as u32,
            c["frames"].as_u64().unwrap() as u32,
            c["duration"].as_f64().unwrap(),
        );
        for k in 0..n {
            let t = if n <= 1 {
                0.0
            } else if k + 1 == n {
                d
            } else {
                k as f64 * d / (n - 1) as f64
            };
            out.push((c["name"].as_str().unwrap().to_string(), start + k, t));
        }
    }
    out
}

/// One input, its model and its bake (as the command line bakes it for an export).
struct Case {
    model: Model,
    asset: BakedAsset,
}

fn case(input: PathBuf, clips: &[PathBuf], fps: f64) -> Case {
    let options = throng_scene::SourceOptions {
        clips: clips.to_vec(),
        asset_root: None,
    };
    let model = throng_scene::load_model(&input, &options).expect("load");
    let bake = throng_bake::BakeOptions {
        source_name: throng_scene::file_name(&input),
        sampling: throng_bake::Sampling::Fixed(fps),
        ..Default::default()
    };
    let asset = throng_bake::bake(&model, &bake).expect("bake").0;
    Case { model, asset }
}

/// Checks one decoded export against the reference at every exported frame (or every `stride`-th).
fn check(
    c: &Case,
    dir: &Path,
    what: &str,
    stride: usize,
    step: f32,
    decode: &dyn Fn(u32) -> Decoded,
) {
    check_with(c, dir, what, stride, step, 1e-2, decode)
}

/// [`check`] with a normal tolerance of its own.
fn check_with(
    c: &Case,
    dir: &Path,
    what: &str,
    stride: usize,
    step: f32,
    normal_tol: f32,
    decode: &dyn Fn(u32) -> Decoded,
) {
    let mut worst = (0.0f32, 0.0f32, 0.0f32);
    for (name, f, t) in frames(dir).into_iter().step_by(stride) {
        let ci = c
            .asset
            .clips
            .iter()
            .position(|x| x.name == name)
            .expect("baked clip");
        let reference = reference(&c.model, &c.asset, &name, t);
        let (bp, mut bn) = baked(&c.asset, ci, t);
        if normal_tol == UE_BONE_NORMALS {
            bn = rotated_normals(&c.asset, ci, t);
        }
        let d = decode(f);
        assert_eq!(d.positions.len(), reference.len(), "{what}: vertex count");
        let bake_err = max_distance(&reference, &bp);
        let diag = reference
            .iter()
            .fold(throng_asset::Aabb::EMPTY, |mut b, p| {
                b.extend(*p);
                b
            })
            .diagonal();
        let tol = bake_err + step + 1e-5 * diag;
        for (i, (p, r)) in d.positions.iter().zip(&reference).enumerate() {
            let e = (*p - *r).length();
            assert!(e <= tol, "{what} frame {f} ({name} at {t:.4} s) vertex {i}: {p} vs {r}: error {e} > bake {bake_err} + step {step}");
            worst.0 = worst.0.max(e);
        }
        for (i, (n, b)) in d.normals.iter().zip(&bn).enumerate() {
            if b.length() < 0.5 {
                continue; // a singular skin matrix has no normal
            }
            let e = (*n - *b).length();
            assert!(
                e <= normal_tol,
                "{what} frame {f} vertex {i}: normal {n} vs baked {b}"
            );
            worst.1 = worst.1.max(e);
        }
        worst.2 = worst.2.max(bake_err);
    }
    eprintln!(
        "{what}: worst position error {:.3e} (bake {:.3e}, step {step:.3e}), normal {:.3e}",
        worst.0, worst.2, worst.1
    );
}

/// AnimToTexture's bone mode turns a normal by each influence's rotation and blends the results,
/// where throng (and the other formats) use the inverse transpose of the blended matrix; the two
/// part by up to 0.13 where weights blend bones bent apart (Fox). So bone-mode normals are held
/// to the plugin's own method applied to the baked matrices ([`rotated_normals`]), within the
/// usual 1e-2 (this constant only names that case).
const UE_BONE_NORMALS: f32 = 0.0100001;

/// Normals as AnimToTexture's bone mode makes them, from the baked skin matrices: each of the
/// four largest influences' rotations applied to the bind normal, blended, normalised.
fn rotated_normals(asset: &BakedAsset, ci: usize, t: f64) -> Vec<Vec3> {
    let layer = layer_at(asset, ci, t);
    let rot: Vec<Mat3> = (0..asset.palette.len() as u32)
        .map(|j| {
            let m = throng_asset::decode::masked_skin_matrix(asset, &[layer], j).unwrap();
            let m3 = Mat3::from_mat4(m);
            let unit = m3 * (1.0 / m3.determinant().abs().cbrt());
            Mat3::from_quat(glam::Quat::from_mat3(&unit).normalize())
        })
        .collect();
    let mut out = Vec::new();
    for p in &asset.primitives {
        let k = p.influences as usize;
        for i in 0..p.vertex_count() {
            let w: Vec<f32> = p.weights[i * k..i * k + k.min(4)]
                .iter()
                .map(|&q| q as f32)
                .collect();
            let sum: f32 = w.iter().sum();
            let mut n = Vec3::ZERO;
            for (c, wc) in w.iter().enumerate() {
                n += rot[p.joints[i * k + c] as usize] * p.normals[i] * (wc / sum.max(1.0));
            }
            out.push(n.normalize_or_zero());
        }
    }
    out
}

fn out_dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("export")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.parent().unwrap()).unwrap();
    d
}

fn openvat_of(dir: &Path, ext: &str) -> OpenVat {
    OpenVat::load(
        &dir.join(format!("a_vat.{ext}")),
        &dir.join("a-remap_info.json"),
        &dir.join("a.glb"),
    )
}

// ---------------------------------------------------------------------------------------------

#[test]
fn openvat_decoder_reads_openvats_own_sample() {
    let Some(dir) = throng_testdata::asset("openvat/normalsCube") else {
        return;
    };
    let vat = OpenVat::load(
        &dir.join("normalsCube_packed_vat.png"),
        &dir.join("normalsCube-remap_info.json"),
        &dir.join("M_normalsCube_glTF_yUp.glb"),
    );
    let bind: Vec<Vec3> = vat.mesh.iter().flat_map(|p| p.positions.clone()).collect();
    let f0 = vat.frame(0);
    let e0 = max_distance(&f0.positions, &bind);
    assert!(e0 < 2e-3, "frame 0 is the bind cube: {e0}");
    let bind_n: Vec<Vec3> = vat.mesh.iter().flat_map(|p| p.normals.clone()).collect();
    let en = max_distance(&f0.normals, &bind_n);
    assert!(en < 1e-2, "frame-0 normals are the mesh's: {en}");
    // Rigid over the whole clip: pairwise distances of a few corners kept.
    let pick = [0usize, bind.len() / 3, bind.len() / 2, bind.len() - 1];
    for f in [15u32, 30, 45, 59] {
        let d = vat.frame(f);
        for a in pick {
            for b in pick {
                let (x, y) = (
                    (bind[a] - bind[b]).length(),
                    (d.positions[a] - d.positions[b]).length(),
                );
                assert!(
                    (x - y).abs() < 4e-3,
                    "frame {f}: distance {a}-{b} {x} became {y}"
                );
            }
        }
    }
}

#[test]
fn fox_from_source_in_every_format() {
    let Some(src) = throng_testdata::asset("Fox.glb") else {
        return;
    };
    let c = case(src.clone(), &[], 30.0);
    let d = out_dir("fox-openvat");
    export(&src, "openvat", &d, &[]);
    let vat = openvat_of(&d, "png");
    check(&c, &d, "Fox openvat", 1, vat.step(false), &|f| vat.frame(f));

    let d = out_dir("fox-openvat-exr");
    export(&src, "openvat", &d, &["--exr", "--clip", "Walk"]);
    let vat = openvat_of(&d, "exr");
    check(&c, &d, "Fox openvat exr", 1, vat.step(true), &|f| {
        vat.frame(f)
    });

    let d = out_dir("fox-ue-vertex");
    export(&src, "ue-a2t-vertex", &d, &[]);
    let step = ue_vertex(&d, "a", 0).1;
    check(&c, &d, "Fox ue-a2t-vertex", 3, step, &|f| {
        ue_vertex(&d, "a", f).0
    });

    let d = out_dir("fox-ue-bone");
    export(&src, "ue-a2t-bone", &d, &[]);
    // Rotation steps (2π / 65535 of angle, 2 / 65535 of axis) move a vertex by its lever arm.
    let lever = c.asset.row_bounds[0].diagonal();
    let step = ue_bone(&d, "a", 0).1 * 4.0 + lever * 2e-4;
    check_with(&c, &d, "Fox ue-a2t-bone", 3, step, UE_BONE_NORMALS, &|f| {
        ue_bone(&d, "a", f).0
    });

    let d = out_dir("fox-bone-json");
    export(&src, "bone-texture-json", &d, &[]);
    check(&c, &d, "Fox bone-texture-json", 2, 0.0, &|f| {
        bone_json(&d, "a", f)
    });

    let d = out_dir("fox-godot");
    export(&src, "godot", &d, &["--clip", "Run", "--clip", "Survey"]);
    let vat = openvat_of(&d, "exr");
    check(&c, &d, "Fox godot VAT", 2, vat.step(true), &|f| {
        vat.frame(f)
    });
    check(&c, &d, "Fox godot bones", 2, 0.0, &|f| {
        godot_bones(&d, "a", f)
    });
    for file in [
        "throng_vat.gdshader",
        "throng_bones.gdshader",
        "throng_crowd.gd",
        "a_crowd.tscn",
        "README.md",
        "a_vat.exr.import",
    ] {
        let text = std::fs::read_to_string(d.join(file)).unwrap();
        assert!(
            !text.contains("{{"),
            "{file} has an unfilled template field"
        );
    }

    let d = out_dir("fox-babylon");
    export(&src, "babylon", &d, &[]);
    check(&c, &d, "Fox babylon", 2, 0.0, &|f| babylon(&d, "a", f));
    let settings = read_json(&d.join("a-babylon.json"));
    assert_eq!(settings["clips"][1]["settings"][0], 103, "{settings}");

    // The meshes are valid glTF (the Khronos validator: no errors).
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("export");
    for mesh in [
        d.join("a.glb"),
        root.join("fox-godot/a_bind.glb"),
        root.join("fox-openvat/a.glb"),
    ] {
        if let Some(report) = throng_testdata::validate_gltf(&mesh) {
            assert_eq!(report.errors, 0, "{}: {report:?}", mesh.display());
        }
    }

    let d = out_dir("fox-unity");
    export(&src, "unity", &d, &["--clip", "Walk"]);
    let vat = openvat_of(&d, "png");
    check(&c, &d, "Fox unity", 1, vat.step(false), &|f| vat.frame(f));
    for file in ["ThrongVAT.hlsl", "Editor/ThrongVATImporter.cs", "README.md"] {
        assert!(
            !std::fs::read_to_string(d.join(file))
                .unwrap()
                .contains("{{"),
            "{file}"
        );
    }
}

/// Every format `throng export` writes.
const FORMATS: [&str; 7] = [
    "openvat",
    "ue-a2t-vertex",
    "ue-a2t-bone",
    "godot",
    "bone-texture-json",
    "unity",
    "babylon",
];

/// Exports `input` in every format (with `extra` flags) and checks each with its engine's
/// decoder, every `stride`-th frame.
fn every_format(c: &Case, input: &Path, extra: &[&str], label: &str, stride: usize) {
    let lever = c.asset.row_bounds[0].diagonal();
    for format in FORMATS {
        let d = out_dir(&format!("{label}-{format}"));
        export(input, format, &d, extra);
        let what = format!("{label} {format}");
        match format {
            "openvat" | "unity" => {
                let vat = openvat_of(&d, "png");
                check(c, &d, &what, stride, vat.step(false), &|f| vat.frame(f));
            }
            "godot" => {
                let vat = openvat_of(&d, "exr");
                check(c, &d, &what, stride, vat.step(true), &|f| vat.frame(f));
                check(c, &d, &format!("{what} bones"), stride, 0.0, &|f| {
                    godot_bones(&d, "a", f)
                });
            }
            "ue-a2t-vertex" => {
                let step = ue_vertex(&d, "a", 0).1;
                check(c, &d, &what, stride, step, &|f| ue_vertex(&d, "a", f).0);
            }
            "ue-a2t-bone" => {
                // Rotation steps (2π / 65535 of angle, 2 / 65535 of axis) move a vertex by its lever arm.
                let step = ue_bone(&d, "a", 0).1 * 4.0 + lever * 2e-4;
                check_with(c, &d, &what, stride, step, UE_BONE_NORMALS, &|f| {
                    ue_bone(&d, "a", f).0
                });
            }
            "bone-texture-json" => check(c, &d, &what, stride, 0.0, &|f| bone_json(&d, "a", f)),
            _ => check(c, &d, &what, stride, 0.0, &|f| babylon(&d, "a", f)),
        }
    }
}

/// A baked file as the input: CesiumMan, in every format.
#[test]
fn cesium_man_from_a_baked_file() {
    let Some(src) = throng_testdata::asset("CesiumMan.glb") else {
        return;
    };
    let c = case(src, &[], 30.0);
    let baked = out_dir("cesium-baked").with_extension("glb");
    throng_asset::write(&c.asset, &baked).unwrap();
    every_format(&c, &baked, &[], "CesiumMan", 2);
}

/// An FBX character (Quaternius, 5 influences cut to the bake's 4; two of its clips), a KayKit
/// mannequin of 8 primitives with its clips from another file, and Quaternius' Enemy, whose
/// skin matrices are all scaled by 100 (which AnimToTexture's bone mode keeps in the mesh), each
/// in every format.
#[test]
fn fbx_and_kaykit_characters() {
    let Some(src) = throng_testdata::asset("fbx/quaternius/Male_Casual.fbx") else {
        return;
    };
    let c = case(src.clone(), &[], 30.0);
    let clips = [
        "--clip",
        "HumanArmature|Man_Walk",
        "--clip",
        "HumanArmature|Man_Clapping",
    ];
    every_format(&c, &src, &clips, "Male_Casual", 3);

    let Some(kay) = throng_testdata::asset("kaykit/manny_med_mod.gltf") else {
        return;
    };
    let Some(clip_file) = throng_testdata::asset("kaykit/Med_MovementBasic.glb") else {
        return;
    };
    let c = case(kay.clone(), std::slice::from_ref(&clip_file), 30.0);
    assert!(
        c.asset.primitives.len() >= 8,
        "the mannequin has several primitives"
    );
    let first = c.asset.clips[0].name.clone();
    let second = c.asset.clips[1].name.clone();
    let clips = [
        "--clips",
        clip_file.to_str().unwrap(),
        "--clip",
        &first,
        "--clip",
        &second,
    ];
    every_format(&c, &kay, &clips, "KayKit", 3);

    let Some(enemy) = throng_testdata::asset("Quaternius_Enemy.glb") else {
        return;
    };
    let c = case(enemy.clone(), &[], 30.0);
    every_format(&c, &enemy, &[], "Quaternius_Enemy", 4);
}

/// Layouts and names engines trip on: one vertex past a power of two (a second row group), a
/// character of rigid parts only, clips of one frame, and clip names with spaces and non-ASCII
/// letters.
#[test]
fn wrap_rigid_parts_one_frame_clips_and_names() {
    let Some(fox) = throng_testdata::asset("Fox.glb") else {
        return;
    };
    let c = case(fox, &[], 30.0);
    // Fox cut to its first 1025 vertices: 1024 texels wide, so the last vertex wraps.
    let mut cut = c.asset.clone();
    let keep = 1025usize;
    let p = &mut cut.primitives[0];
    let k = p.influences as usize;
    p.positions.truncate(keep);
    p.normals.truncate(keep);
    if let Some(t) = p.tangents.as_mut() {
        t.truncate(keep);
    }
    if let Some(uv) = p.uv0.as_mut() {
        uv.truncate(keep);
    }
    p.joints.truncate(keep * k);
    p.weights.truncate(keep * k);
    p.indices = p
        .indices
        .chunks_exact(3)
        .filter(|t| t.iter().all(|&i| (i as usize) < keep))
        .flatten()
        .copied()
        .collect();
    p.lods.clear();
    p.vat = None;
    cut.clips[1].name = "Läuft schnell 走る".into();
    let baked = out_dir("fox-cut").with_extension("glb");
    throng_asset::write(&cut, &baked).unwrap();
    let d = out_dir("fox-cut-openvat");
    export(
        &baked,
        "openvat",
        &d,
        &["--clip", "Läuft schnell 走る", "--clip", "0"],
    );
    let remap = read_json(&d.join("a-remap_info.json"));
    let row_groups = remap["throng"]["rowGroups"].as_u64().unwrap() as usize;
    assert!(row_groups >= 2, "{remap}");
    assert_eq!(remap["animations"]["Läuft schnell 走る"]["startFrame"], 1);
    let vat = openvat_of(&d, "png");
    let uv: Vec<Vec2> = vat.mesh[0].uv1.clone();
    let groups: std::collections::BTreeSet<u32> = uv
        .iter()
        .map(|u| (u.y * vat.tex.height as f32) as u32)
        .collect();
    assert_eq!(
        groups.len(),
        row_groups,
        "the vertices wrap into every row group: {groups:?}"
    );
    // Every vertex decodes as the whole fox's does at the same frames.
    let full = out_dir("fox-full-openvat");
    let whole = c.asset.clone();
    let mut renamed = whole;
    renamed.clips[1].name = "Läuft schnell 走る".into();
    let whole_file = out_dir("fox-whole").with_extension("glb");
    throng_asset::write(&renamed, &whole_file).unwrap();
    export(
        &whole_file,
        "openvat",
        &full,
        &["--clip", "Läuft schnell 走る", "--clip", "0"],
    );
    let all = openvat_of(&full, "png");
    let tol = vat.step(false) + all.step(false);
    for f in [0u32, 7, 21, 30] {
        let (a, b) = (vat.frame(f), all.frame(f));
        for i in 0..keep {
            let e = (a.positions[i] - b.positions[i]).length();
            assert!(e <= tol, "frame {f} vertex {i}: {e} > {tol}");
        }
    }
    let d = out_dir("fox-cut-ue");
    export(&baked, "ue-a2t-vertex", &d, &["--clip", "1"]);
    let j = read_json(&d.join("a-a2t.json"));
    assert_eq!(j["Animations"][0]["Name"], "Läuft schnell 走る");

    // Rigid parts only: the milk truck's wheels.
    let Some(truck) = throng_testdata::asset("CesiumMilkTruck.glb") else {
        return;
    };
    let c = case(truck.clone(), &[], 30.0);
    assert!(c.asset.primitives.iter().all(|p| p.rigid));
    let d = out_dir("truck-openvat");
    export(&truck, "openvat", &d, &[]);
    let vat = openvat_of(&d, "png");
    check(
        &c,
        &d,
        "CesiumMilkTruck openvat",
        1,
        vat.step(false),
        &|f| vat.frame(f),
    );
    let d = out_dir("truck-bone-json");
    export(&truck, "bone-texture-json", &d, &[]);
    check(&c, &d, "CesiumMilkTruck bone-texture-json", 1, 0.0, &|f| {
        bone_json(&d, "a", f)
    });

    // One frame per clip (0.1 fps on clips shorter than 10 s).
    let Some(man) = throng_testdata::asset("CesiumMan.glb") else {
        return;
    };
    let c = case(man.clone(), &[], 0.1f32 as f64);
    let d = out_dir("cesium-one-frame");
    export(&man, "godot", &d, &["--fps", "0.1"]);
    assert!(frames(&d).len() == c.asset.clips.len(), "one frame a clip");
    let vat = openvat_of(&d, "exr");
    check(
        &c,
        &d,
        "CesiumMan one frame godot",
        1,
        vat.step(true),
        &|f| vat.frame(f),
    );
    check(&c, &d, "CesiumMan one frame godot bones", 1, 0.0, &|f| {
        godot_bones(&d, "a", f)
    });
}

fn no_leftovers(dir: &Path) {
    assert!(!dir.exists(), "{} was left behind", dir.display());
    let parent = dir.parent().unwrap();
    let tmp: Vec<_> = std::fs::read_dir(parent)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            // Other tests export beside it at the same time: only this folder's staging counts.
            let n = e.file_name().to_string_lossy().into_owned();
            n.contains("export-tmp")
                && n.starts_with(&format!(".{}.", dir.file_name().unwrap().to_string_lossy()))
        })
        .collect();
    assert!(tmp.is_empty(), "staging folders left: {tmp:?}");
}

#[test]
fn bad_exports_fail_cleanly() {
    let Some(fox) = throng_testdata::asset("Fox.glb") else {
        return;
    };
    // A VAT too tall for the device (8192 texels a side, as on many phones; Fox at 1000 fps would
    // need 8192 × 16384): an error with what to change, exit 1, nothing written.
    let d = out_dir("too-large");
    let too_large = ["--fps", "1000", "--max-texture-size", "8192"];
    let out = run_export(&fox, "openvat", &d, &too_large);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("8192") && err.contains("--fps") && err.contains("bone"),
        "{err}"
    );
    no_leftovers(&d);
    // A folder that cannot be made fails before any work.
    let out = run_export(&fox, "openvat", Path::new("/proc/throng/no/such"), &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("cannot export there"), "{err}");
    // A folder of someone else's files is refused and left as it was.
    let d = out_dir("others");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("notes.txt"), "mine").unwrap();
    let out = run_export(&fox, "openvat", &d, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        std::fs::read_to_string(d.join("notes.txt")).unwrap(),
        "mine"
    );
    assert_eq!(std::fs::read_dir(&d).unwrap().count(), 1);
    // An export replaces an earlier export whole.
    let d = out_dir("again");
    for clip in ["Walk", "Run"] {
        export(&fox, "openvat", &d, &["--clip", clip]);
    }
    assert_eq!(frames(&d)[0].0, "Run");
    // Usage: an unknown format and an unknown clip.
    let out = run_export(&fox, "fbx", Path::new("x"), &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("openvat"));
    let d = out_dir("no-clip");
    let out = run_export(&fox, "openvat", &d, &["--clip", "Fly"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Survey"));
    no_leftovers(&d);
    // The same input and settings give the same bytes.
    let (a, b) = (out_dir("same-a"), out_dir("same-b"));
    for d in [&a, &b] {
        let out = run_export(&fox, "godot", d, &["--clip", "Walk", "--name", "f"]);
        assert!(out.status.success());
    }
    for f in [
        "f_vat.exr",
        "f.glb",
        "f_bones.exr",
        "throng_vat.gdshader",
        "f-remap_info.json",
    ] {
        assert_eq!(
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
            "{f} differs"
        );
    }
}

#[test]
fn help_names_every_format() {
    let out = throng(&["export", "--help"]);
    let text = String::from_utf8_lossy(&out.stdout);
    for f in FORMATS {
        assert!(text.contains(f), "{f} missing from:\n{text}");
    }
}
