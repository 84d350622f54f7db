//! Skinned positions from the importer + sampling + reference skinning, checked against an
//! independent computation written here from the raw glTF JSON and binary chunk (f64, its own
//! accessor reader, sampler and hierarchy walk), and against hand-computed values.
//!
//! Tolerances are relative to the bounding diagonal of the skinned vertices (Fox is modelled in
//! centimetres, CesiumMan in metres).

use glam::{DMat4, DQuat, DVec3, Mat4, Vec3};
use serde_json::Value;
use std::path::Path;
use throng_anim::{
    binding_influences, binding_matrices, skin_lbs, MeshBinding, Model, Poser, SkinnedVertices,
};

/// Raw GLB: JSON + binary chunk.
struct RawGlb {
    json: Value,
    bin: Vec<u8>,
}

fn read_glb(path: &Path) -> RawGlb {
    let bytes = std::fs::read(path).expect("read asset");
    assert_eq!(&bytes[0..4], b"glTF");
    let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap()) as usize;
    let json_len = u32_at(12);
    let json: Value = serde_json::from_slice(&bytes[20..20 + json_len]).expect("json");
    let bin_off = 20 + json_len;
    let bin_len = u32_at(bin_off);
    RawGlb {
        json,
        bin: bytes[bin_off + 8..bin_off + 8 + bin_len].to_vec(),
    }
}

impl RawGlb {
    /// The key times and output values of animation sampler `s`.
    fn keys(&self, s: &Value) -> (Vec<f64>, Vec<Vec<f64>>) {
        let times = self
            .accessor(s["input"].as_u64().unwrap() as usize)
            .into_iter()
            .map(|r| r[0])
            .collect();
        (times, self.accessor(s["output"].as_u64().unwrap() as usize))
    }

    /// Reads accessor `i` as rows of f64 (normalised integers scaled per glTF §3.6.2.3).
    fn accessor(&self, i: usize) -> Vec<Vec<f64>> {
        let a = &self.json["accessors"][i];
        let count = a["count"].as_u64().unwrap() as usize;
        let comps = match a["type"].as_str().unwrap() {
            "SCALAR" => 1,
            "VEC2" => 2,
            "VEC3" => 3,
            "VEC4" => 4,
            "MAT4" => 16,
            t => panic!("type {t}"),
        };
        let ct = a["componentType"].as_u64().unwrap();
        let size = match ct {
            5126 | 5125 => 4,
            5123 | 5122 => 2,
            _ => 1,
        };
        let normalized = a["normalized"].as_bool().unwrap_or(false);
        let bv = &self.json["bufferViews"][a["bufferView"].as_u64().unwrap() as usize];
        let base = bv["byteOffset"].as_u64().unwrap_or(0) as usize
            + a["byteOffset"].as_u64().unwrap_or(0) as usize;
        let stride = bv["byteStride"]
            .as_u64()
            .map(|s| s as usize)
            .unwrap_or(size * comps);
        (0..count)
            .map(|e| {
                (0..comps)
                    .map(|c| {
                        let o = base + e * stride + c * size;
                        let b = &self.bin[o..o + size];
                        match ct {
                            5126 => f32::from_le_bytes(b.try_into().unwrap()) as f64,
                            5125 => u32::from_le_bytes(b.try_into().unwrap()) as f64,
                            5123 => {
                                let v = u16::from_le_bytes(b.try_into().unwrap()) as f64;
                                if normalized {
                                    v / 65535.0
                                } else {
                                    v
                                }
                            }
                            5121 => {
                                let v = b[0] as f64;
                                if normalized {
                                    v / 255.0
                                } else {
                                    v
                                }
                            }
                            _ => panic!("component type {ct}"),
                        }
                    })
                    .collect()
            })
            .collect()
    }
}

/// Independent f64 evaluation of animation `anim` at time `t`, then LBS of mesh node `node`.
fn independent_skin(g: &RawGlb, anim: usize, t: f64, node: usize) -> Vec<DVec3> {
    let nodes = g.json["nodes"].as_array().unwrap();
    let mut trs: Vec<(DVec3, DQuat, DVec3)> = nodes
        .iter()
        .map(|n| {
            let v = |k: &str, d: Vec<f64>| -> Vec<f64> {
                n[k].as_array()
                    .map(|a| a.iter().map(|x| x.as_f64().unwrap()).collect())
                    .unwrap_or(d)
            };
            let t = v("translation", vec![0.0; 3]);
            let r = v("rotation", vec![0.0, 0.0, 0.0, 1.0]);
            let s = v("scale", vec![1.0; 3]);
            (
                DVec3::new(t[0], t[1], t[2]),
                DQuat::from_xyzw(r[0], r[1], r[2], r[3]),
                DVec3::new(s[0], s[1], s[2]),
            )
        })
        .collect();
    // Nodes given by a matrix keep it unless a channel animates them.
    let mut matrix: Vec<Option<DMat4>> = nodes
        .iter()
        .map(|n| {
            n["matrix"].as_array().map(|m| {
                DMat4::from_cols_slice(&m.iter().map(|x| x.as_f64().unwrap()).collect::<Vec<_>>())
            })
        })
        .collect();
    let a = &g.json["animations"][anim];
    for ch in a["channels"].as_array().unwrap() {
        let Some(target) = ch["target"]["node"].as_u64() else {
            continue;
        };
        let path = ch["target"]["path"].as_str().unwrap();
        let s = &a["samplers"][ch["sampler"].as_u64().unwrap() as usize];
        assert_eq!(s["interpolation"].as_str().unwrap_or("LINEAR"), "LINEAR");
        let (times, vals) = g.keys(s);
        // Interval by linear scan (the library uses a binary search).
        let (k0, k1, u) = if t <= times[0] {
            (0, 0, 0.0)
        } else if t >= *times.last().unwrap() {
            (times.len() - 1, times.len() - 1, 0.0)
        } else {
            let mut k = 0;
            while times[k + 1] <= t {
                k += 1;
            }
            (k, k + 1, (t - times[k]) / (times[k + 1] - times[k]))
        };
        matrix[target as usize] = None;
        let n = &mut trs[target as usize];
        match path {
            "translation" | "scale" => {
                let a = DVec3::new(vals[k0][0], vals[k0][1], vals[k0][2]);
                let b = DVec3::new(vals[k1][0], vals[k1][1], vals[k1][2]);
                let v = a + (b - a) * u;
                if path == "translation" {
                    n.0 = v
                } else {
                    n.2 = v
                }
            }
            "rotation" => {
                let a = DQuat::from_xyzw(vals[k0][0], vals[k0][1], vals[k0][2], vals[k0][3]);
                let mut b = DQuat::from_xyzw(vals[k1][0], vals[k1][1], vals[k1][2], vals[k1][3]);
                if a.dot(b) < 0.0 {
                    b = -b;
                }
                // Slerp written out: sin((1-u)θ)/sin θ · a + sin(uθ)/sin θ · b.
                let d = a.dot(b).clamp(-1.0, 1.0);
                let th = d.acos();
                let q = if th.abs() < 1e-9 {
                    a
                } else {
                    a * (((1.0 - u) * th).sin() / th.sin()) + b * ((u * th).sin() / th.sin())
                };
                n.1 = q.normalize();
            }
            _ => {}
        }
    }
    // World matrices by walking parents recursively.
    let mut parent = vec![None; nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        for c in n["children"].as_array().into_iter().flatten() {
            parent[c.as_u64().unwrap() as usize] = Some(i);
        }
    }
    let locals: Vec<DMat4> = trs
        .iter()
        .zip(&matrix)
        .map(|(&(t, r, s), m)| m.unwrap_or_else(|| DMat4::from_scale_rotation_translation(s, r, t)))
        .collect();
    fn world(i: usize, parent: &[Option<usize>], locals: &[DMat4]) -> DMat4 {
        match parent[i] {
            Some(p) => world(p, parent, locals) * locals[i],
            None => locals[i],
        }
    }
    let skin = &g.json["skins"][nodes[node]["skin"].as_u64().unwrap() as usize];
    let joints: Vec<usize> = skin["joints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j.as_u64().unwrap() as usize)
        .collect();
    let ibms = g.accessor(skin["inverseBindMatrices"].as_u64().unwrap() as usize);
    let skin_m: Vec<DMat4> = joints
        .iter()
        .zip(&ibms)
        .map(|(&j, ibm)| world(j, &parent, &locals) * DMat4::from_cols_slice(ibm))
        .collect();
    let mesh = &g.json["meshes"][nodes[node]["mesh"].as_u64().unwrap() as usize];
    let mut out = Vec::new();
    for p in mesh["primitives"].as_array().unwrap() {
        let attr = &p["attributes"];
        let pos = g.accessor(attr["POSITION"].as_u64().unwrap() as usize);
        let js = g.accessor(attr["JOINTS_0"].as_u64().unwrap() as usize);
        let ws = g.accessor(attr["WEIGHTS_0"].as_u64().unwrap() as usize);
        for v in 0..pos.len() {
            let p = DVec3::new(pos[v][0], pos[v][1], pos[v][2]);
            let sum: f64 = ws[v].iter().sum();
            let mut acc = DVec3::ZERO;
            for i in 0..4 {
                acc += skin_m[js[v][i] as usize].transform_point3(p) * (ws[v][i] / sum);
            }
            out.push(acc);
        }
    }
    out
}

/// Library result for the binding of `node` at clip `clip`, time `t`.
fn library_skin(model: &Model, clip: usize, t: f32, node: usize) -> Vec<Vec3> {
    let mut poser = Poser::new(model);
    let ms = poser.pose(model, Some(clip), t).to_vec();
    let b = model
        .mesh_bindings()
        .into_iter()
        .find(|b| b.node == node)
        .expect("binding");
    let mut out = Vec::new();
    skin_binding(model, &b, &ms, &mut Vec::new(), &mut out);
    out
}

/// Appends the library's LBS positions of every primitive of binding `b` under the
/// model-space pose `ms` to `out` (`mats`: scratch for the binding's matrices).
fn skin_binding(
    model: &Model,
    b: &MeshBinding,
    ms: &[Mat4],
    mats: &mut Vec<Mat4>,
    out: &mut Vec<Vec3>,
) {
    binding_matrices(model, b, ms, mats);
    for prim in &model.meshes[b.mesh].primitives {
        let (inf, _) = binding_influences(b, prim);
        let mut sv = SkinnedVertices::default();
        skin_lbs(prim, &inf, mats, &mut sv);
        out.extend(sv.positions);
    }
}

fn diagonal(ps: &[DVec3]) -> f64 {
    let (mut lo, mut hi) = (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY));
    for p in ps {
        lo = lo.min(*p);
        hi = hi.max(*p);
    }
    (hi - lo).length()
}

fn check_against_independent(file: &str) {
    let Some(path) = throng_testdata::asset(file) else {
        return;
    };
    let g = read_glb(&path);
    let model = throng_gltf::import(&path).expect("import");
    let skinned_node = g.json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .position(|n| n.get("skin").is_some())
        .unwrap();
    for (ci, clip) in model.clips.iter().enumerate() {
        let d = clip.duration as f64;
        for t in [0.0, d * 0.37, d * 0.81] {
            let want = independent_skin(&g, ci, t, skinned_node);
            let got = library_skin(&model, ci, t as f32, skinned_node);
            assert_eq!(want.len(), got.len());
            let diag = diagonal(&want);
            let worst = want
                .iter()
                .zip(&got)
                .map(|(a, b)| (*a - b.as_dvec3()).length())
                .fold(0.0, f64::max);
            // 1e-6 of the diagonal: f32 evaluation against f64 truth.
            assert!(
                worst <= 1e-6 * diag,
                "{file} clip {} t={t:.4}: error {worst:e} > 1e-6 × diagonal {diag}",
                clip.name
            );
        }
    }
}

#[test]
fn cesium_man_matches_independent_skinning() {
    check_against_independent("CesiumMan.glb");
}

#[test]
fn fox_matches_independent_skinning() {
    check_against_independent("Fox.glb");
}

/// Positions of every binding at `clip`/`t` (rest pose when `clip` is None), flattened.
fn all_positions(model: &Model, clip: Option<usize>, t: f32) -> Vec<Vec3> {
    let mut poser = Poser::new(model);
    let ms = poser.pose(model, clip, t).to_vec();
    let mut mats = Vec::new();
    let mut out = Vec::new();
    for b in model.mesh_bindings() {
        skin_binding(model, &b, &ms, &mut mats, &mut out);
    }
    out
}

fn max_diff(a: &[Vec3], b: &[Vec3]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (*x - *y).length())
        .fold(0.0, f32::max)
}

fn diag32(ps: &[Vec3]) -> f32 {
    diagonal(&ps.iter().map(|p| p.as_dvec3()).collect::<Vec<_>>()) as f32
}

#[test]
fn skin_types_give_identical_positions() {
    let Some(dir) = throng_testdata::assets_dir() else {
        return;
    };
    let load = |i: usize| {
        throng_gltf::import(&dir.join(format!("asset-generator/Animation_SkinType_0{i}.gltf")))
            .expect("import")
    };
    let base = load(0);
    let want = all_positions(&base, base.clips.first().map(|_| 0), 0.5);
    assert!(!want.is_empty());
    for i in 1..4 {
        let m = load(i);
        let got = all_positions(&m, m.clips.first().map(|_| 0), 0.5);
        // u8/u16-normalised weights quantise to 1/255: 0.5/255 of the diagonal bounds the difference.
        let tol = diag32(&want) * 0.5 / 255.0;
        assert!(max_diff(&want, &got) <= tol, "SkinType_0{i}");
    }
}

#[test]
fn eight_influence_files_match_their_originals() {
    let Some(dir) = throng_testdata::assets_dir() else {
        return;
    };
    for (orig, derived) in [
        ("SimpleSkin.gltf", "derived/SimpleSkin_8infl.gltf"),
        ("RiggedFigure.glb", "derived/RiggedFigure_8infl.glb"),
    ] {
        let a = throng_gltf::import(&dir.join(orig)).expect("import original");
        let b = throng_gltf::import(&dir.join(derived)).expect("import derived");
        assert!(b
            .meshes
            .iter()
            .flat_map(|m| &m.primitives)
            .any(|p| p.joint_sets.len() >= 2));
        for ci in 0..a.clips.len() {
            let d = a.clips[ci].duration;
            for t in [0.0, d * 0.5, d] {
                let pa = all_positions(&a, Some(ci), t);
                let pb = all_positions(&b, Some(ci), t);
                let tol = 1e-6 * diag32(&pa);
                assert!(max_diff(&pa, &pb) <= tol, "{derived} t={t}");
            }
        }
    }
}

#[test]
fn skinned_node_transforms_are_ignored() {
    let Some(dir) = throng_testdata::assets_dir() else {
        return;
    };
    let mut m = throng_gltf::import(&dir.join("asset-generator/Animation_Skin_02.gltf")).unwrap();
    let before = all_positions(&m, None, 0.0);
    // Changing the skinned node's and its parents' transforms must not move the skin.
    for b in m.mesh_bindings() {
        let mut n = Some(b.node);
        while let Some(i) = n {
            if !m.joint_nodes()[i] {
                m.nodes[i].local = throng_anim::LocalTransform::Matrix(
                    glam::Mat4::from_translation(Vec3::new(5.0, -3.0, 2.0)),
                );
            }
            n = m.nodes[i].parent;
        }
    }
    let after = all_positions(&m, None, 0.0);
    assert!(max_diff(&before, &after) <= 1e-6 * diag32(&before));
}

#[test]
fn missing_inverse_bind_matrices_are_identity() {
    let Some(dir) = throng_testdata::assets_dir() else {
        return;
    };
    let m = throng_gltf::import(&dir.join("asset-generator/Animation_Skin_04.gltf")).unwrap();
    assert!(!m.skins.is_empty());
    for s in &m.skins {
        assert!(s
            .inverse_bind_matrices
            .iter()
            .all(|x| *x == glam::Mat4::IDENTITY));
        assert_eq!(s.inverse_bind_matrices.len(), s.joints.len());
    }
}

/// InterpolationTest.glb: STEP holds the previous key, LINEAR is exact at mid-interval,
/// CUBICSPLINE equals the Hermite value computed by hand from the raw keys, rotations stay unit.
#[test]
fn interpolation_test_values() {
    let Some(path) = throng_testdata::asset("InterpolationTest.glb") else {
        return;
    };
    let g = read_glb(&path);
    let model = throng_gltf::import(&path).unwrap();
    let anims = g.json["animations"].as_array().unwrap();
    let mut checked = 0;
    for (ai, a) in anims.iter().enumerate() {
        let ch = &a["channels"][0];
        let node = ch["target"]["node"].as_u64().unwrap() as usize;
        let path_s = ch["target"]["path"].as_str().unwrap();
        let s = &a["samplers"][ch["sampler"].as_u64().unwrap() as usize];
        let interp = s["interpolation"].as_str().unwrap_or("LINEAR");
        let (times, vals) = g.keys(s);
        let mut poser = Poser::new(&model);
        for k in 0..times.len() - 1 {
            let (t0, t1) = (times[k], times[k + 1]);
            let tm = 0.5 * (t0 + t1);
            let ms = poser.pose(&model, Some(ai), tm as f32).to_vec();
            let parent = model.nodes[node]
                .parent
                .map(|p| ms[p])
                .unwrap_or(glam::Mat4::IDENTITY);
            let local = parent.inverse() * ms[node];
            let (sc, rot, tr) = local.to_scale_rotation_translation();
            let got: Vec<f64> = match path_s {
                "translation" => tr.to_array().map(|x| x as f64).to_vec(),
                "scale" => sc.to_array().map(|x| x as f64).to_vec(),
                _ => {
                    assert!((rot.length() - 1.0).abs() < 1e-5);
                    rot.to_array().map(|x| x as f64).to_vec()
                }
            };
            let want: Vec<f64> = match interp {
                "STEP" => vals[k].clone(),
                "LINEAR" if path_s != "rotation" => (0..vals[k].len())
                    .map(|c| 0.5 * (vals[k][c] + vals[k + 1][c]))
                    .collect(),
                "CUBICSPLINE" => {
                    // s = 0.5: h00 = h01 = 0.5, h10 = 0.125, h11 = -0.125.
                    let dt = t1 - t0;
                    let (v0, b0) = (&vals[3 * k + 1], &vals[3 * k + 2]);
                    let (a1, v1) = (&vals[3 * (k + 1)], &vals[3 * (k + 1) + 1]);
                    let mut w: Vec<f64> = (0..v0.len())
                        .map(|c| {
                            0.5 * v0[c] + 0.125 * dt * b0[c] + 0.5 * v1[c] - 0.125 * dt * a1[c]
                        })
                        .collect();
                    if path_s == "rotation" {
                        let n = w.iter().map(|x| x * x).sum::<f64>().sqrt();
                        w.iter_mut().for_each(|x| *x /= n);
                    }
                    w
                }
                _ => continue, // linear rotations: slerp, covered by unit tests
            };
            let sign = if path_s == "rotation"
                && got.iter().zip(&want).map(|(a, b)| a * b).sum::<f64>() < 0.0
            {
                -1.0
            } else {
                1.0
            };
            for c in 0..want.len() {
                assert!(
                    (got[c] * sign - want[c]).abs() < 1e-4,
                    "animation {ai} ({interp} {path_s}) key {k}: {got:?} vs {want:?}"
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 6, "checked {checked} intervals");
}
