//! The demo fox read back with the `gltf` crate (an independent reader) and checked against
//! the brief: skeleton size, mesh size, skinning weights, bind matrices, clips and their extras,
//! determinism, and the Khronos glTF-Validator.

mod common;

use glam::{Mat4, Quat, Vec3};
use gltf::animation::util::ReadOutputs;
use std::time::Instant;

struct Parsed {
    doc: gltf::Document,
    buffers: Vec<gltf::buffer::Data>,
}

fn parse(bytes: &[u8]) -> Parsed {
    let (doc, buffers, _images) = gltf::import_slice(bytes).expect("demo GLB parses with gltf");
    Parsed { doc, buffers }
}

fn extras_throng(anim: &gltf::Animation) -> serde_json::Value {
    let raw = anim.extras().as_ref().expect("animation has extras");
    let v: serde_json::Value = serde_json::from_str(raw.get()).expect("extras are JSON");
    v["throng"].clone()
}

/// Model-space bind transforms of every node, from the parsed node TRS (parent · local).
fn node_globals(doc: &gltf::Document) -> Vec<Mat4> {
    let n = doc.nodes().count();
    let mut parent = vec![None; n];
    for node in doc.nodes() {
        for c in node.children() {
            parent[c.index()] = Some(node.index());
        }
    }
    let locals: Vec<Mat4> = doc
        .nodes()
        .map(|nd| Mat4::from_cols_array_2d(&nd.transform().matrix()))
        .collect();
    fn global(i: usize, parent: &[Option<usize>], locals: &[Mat4]) -> Mat4 {
        match parent[i] {
            Some(p) => global(p, parent, locals) * locals[i],
            None => locals[i],
        }
    }
    (0..n).map(|i| global(i, &parent, &locals)).collect()
}

#[test]
fn skeleton_mesh_and_weights() {
    let bytes = throng_demo::demo_glb();
    let p = parse(&bytes);
    let skin = p.doc.skins().next().expect("one skin");
    let joints: Vec<usize> = skin.joints().map(|j| j.index()).collect();
    assert!(joints.len() >= 15, "{} joints", joints.len());
    assert_eq!(skin.skeleton().map(|n| n.index()), Some(joints[0]));

    let mesh = p.doc.meshes().next().expect("one mesh");
    let prim = mesh.primitives().next().expect("one primitive");
    let r = prim.reader(|b| Some(&p.buffers[b.index()]));
    let pos: Vec<Vec3> = r
        .read_positions()
        .expect("positions")
        .map(Vec3::from)
        .collect();
    let nrm: Vec<Vec3> = r.read_normals().expect("normals").map(Vec3::from).collect();
    let uv: Vec<[f32; 2]> = r.read_tex_coords(0).expect("uv0").into_f32().collect();
    let jts: Vec<[u16; 4]> = r.read_joints(0).expect("joints").into_u16().collect();
    let wts: Vec<[f32; 4]> = r.read_weights(0).expect("weights").into_f32().collect();
    let idx: Vec<u32> = r.read_indices().expect("indices").into_u32().collect();
    assert!(pos.len() >= 2000, "{} vertices", pos.len());
    for v in [nrm.len(), uv.len(), jts.len(), wts.len()] {
        assert_eq!(v, pos.len());
    }
    assert_eq!(idx.len() % 3, 0);
    assert!(idx.iter().all(|&i| (i as usize) < pos.len()));
    assert!(
        r.read_joints(1).is_none(),
        "at most 4 influences: one JOINTS set"
    );

    let mut blended = 0;
    for (v, (w, j)) in wts.iter().zip(&jts).enumerate() {
        let sum: f32 = w.iter().sum();
        assert!((sum - 1.0).abs() <= 1e-6, "vertex {v}: weights sum {sum}");
        assert!(w.iter().all(|x| *x >= 0.0));
        assert!(j.iter().all(|&k| (k as usize) < joints.len()));
        if w.iter().filter(|x| **x > 0.0).count() > 1 {
            blended += 1;
        }
        assert!(
            (nrm[v].length() - 1.0).abs() < 1e-4,
            "vertex {v}: normal not unit"
        );
    }
    // Joints blend smoothly: a good share of vertices sit in blend zones.
    assert!(blended * 5 > pos.len(), "only {blended} blended vertices");

    // Metres, +Y up, facing +Z: a fox-sized box standing on y = 0, the snout the front-most point.
    let lo = pos.iter().fold(Vec3::INFINITY, |a, b| a.min(*b));
    let hi = pos.iter().fold(Vec3::NEG_INFINITY, |a, b| a.max(*b));
    assert!(lo.y.abs() < 0.02, "feet at y = {}", lo.y);
    assert!((0.6..1.0).contains(&hi.y), "height {}", hi.y);
    assert!(
        (0.9..1.4).contains(&(hi.z - lo.z)),
        "length {}",
        hi.z - lo.z
    );
    let front = pos
        .iter()
        .copied()
        .max_by(|a, b| a.z.total_cmp(&b.z))
        .expect("vertices");
    assert!(front.y > 0.45, "front-most point {front} is not the head");

    // POSITION min/max in the file match the data (the validator checks this too).
    let acc = prim
        .get(&gltf::Semantic::Positions)
        .expect("positions accessor");
    let min: Vec<f32> = serde_json::from_value(acc.min().expect("min")).expect("min array");
    let max: Vec<f32> = serde_json::from_value(acc.max().expect("max")).expect("max array");
    assert_eq!(min, lo.to_array().to_vec());
    assert_eq!(max, hi.to_array().to_vec());

    // Front faces wind counter-clockwise: face normals agree with the vertex normals.
    let mut agree = 0;
    for t in idx.chunks(3) {
        let (a, b, c) = (pos[t[0] as usize], pos[t[1] as usize], pos[t[2] as usize]);
        let n = nrm[t[0] as usize] + nrm[t[1] as usize] + nrm[t[2] as usize];
        if (b - a).cross(c - a).dot(n) > 0.0 {
            agree += 1;
        }
    }
    assert_eq!(agree, idx.len() / 3);

    let material = prim.material();
    let f = material.pbr_metallic_roughness().base_color_factor();
    assert!(
        f[0] > f[1] && f[1] > f[2],
        "base colour {f:?} is not orange"
    );
}

#[test]
fn inverse_bind_matrices_invert_the_bind_pose() {
    let p = parse(&throng_demo::demo_glb());
    let skin = p.doc.skins().next().expect("skin");
    let ibms = common::inverse_binds(&skin, &p.buffers);
    let globals = node_globals(&p.doc);
    for (k, joint) in skin.joints().enumerate() {
        let m = ibms[k] * globals[joint.index()];
        // Bind positions are under 1 m, so 1e-5 is well above f32 rounding.
        assert!(
            m.abs_diff_eq(Mat4::IDENTITY, 1e-5),
            "joint {k}: IBM·bind = {m}"
        );
    }
}

struct Channel {
    node: usize,
    times: Vec<f32>,
    rotations: Vec<Quat>,
    translations: Vec<Vec3>,
}

fn channels(p: &Parsed, anim: &gltf::Animation) -> Vec<Channel> {
    anim.channels()
        .map(|ch| {
            assert_eq!(
                ch.sampler().interpolation(),
                gltf::animation::Interpolation::Linear
            );
            let r = ch.reader(|b| Some(&p.buffers[b.index()]));
            let times: Vec<f32> = r.read_inputs().expect("times").collect();
            let (mut rotations, mut translations) = (Vec::new(), Vec::new());
            match r.read_outputs().expect("outputs") {
                ReadOutputs::Rotations(q) => {
                    rotations = q.into_f32().map(Quat::from_array).collect()
                }
                ReadOutputs::Translations(t) => translations = t.map(Vec3::from).collect(),
                _ => panic!("unexpected channel kind"),
            }
            Channel {
                node: ch.target().node().index(),
                times,
                rotations,
                translations,
            }
        })
        .collect()
}

#[test]
fn clips_loop_modes_events_and_keys() {
    let p = parse(&throng_demo::demo_glb());
    let mut looping = 0;
    let mut once = 0;
    let names: Vec<String> = p
        .doc
        .animations()
        .filter_map(|a| a.name().map(String::from))
        .collect();
    for want in ["idle", "walk", "run", "sit"] {
        assert!(
            names.iter().any(|n| n == want),
            "no clip {want} in {names:?}"
        );
    }
    for anim in p.doc.animations() {
        let name = anim.name().expect("clip name").to_string();
        let ex = extras_throng(&anim);
        let mode = ex["loop"].as_str().expect("loop mode");
        let events = ex["events"].as_array().expect("events array");
        let chans = channels(&p, &anim);
        let duration = chans
            .iter()
            .map(|c| *c.times.last().expect("keys"))
            .fold(0.0, f32::max);
        for e in events {
            let t = e["time"].as_f64().expect("event time") as f32;
            assert!((0.0..=duration).contains(&t), "{name}: event at {t}");
            assert!(e["name"].as_str().is_some_and(|s| !s.is_empty()));
        }
        assert!(
            chans.iter().any(|c| !c.translations.is_empty()),
            "{name}: no root bob"
        );
        for c in &chans {
            // Keys at 30 fps from t = 0 to the duration.
            for (k, t) in c.times.iter().enumerate() {
                assert!((t - k as f32 / 30.0).abs() < 1e-5, "{name}: key {k} at {t}");
            }
            assert_eq!(*c.times.last().expect("keys"), duration);
            for q in &c.rotations {
                assert!((q.length() - 1.0).abs() < 1e-5);
            }
        }
        match mode {
            "loop" => {
                looping += 1;
                for c in &chans {
                    if let (Some(a), Some(b)) = (c.rotations.first(), c.rotations.last()) {
                        assert_eq!(a, b, "{name}: node {} rotation does not loop", c.node);
                    }
                    if let (Some(a), Some(b)) = (c.translations.first(), c.translations.last()) {
                        assert_eq!(a, b, "{name}: node {} translation does not loop", c.node);
                    }
                }
            }
            "once" => once += 1,
            other => panic!("{name}: loop mode {other}"),
        }
        if name == "walk" || name == "run" {
            let steps = events
                .iter()
                .filter(|e| {
                    e["name"]
                        .as_str()
                        .is_some_and(|s| s.starts_with("footstep"))
                })
                .count();
            assert_eq!(steps, 4, "{name}: one footstep per foot");
        }
    }
    assert!(looping >= 3 && once >= 1, "{looping} looping, {once} once");
}

/// Rotation angle about +X of a node's keys (the legs swing about the lateral axis).
fn pitch(q: Quat) -> f32 {
    let (axis, angle) = q.to_axis_angle();
    angle * axis.x.signum() * axis.x.abs().min(1.0)
}

#[test]
fn walk_gait_has_left_and_right_legs_half_a_cycle_apart() {
    let p = parse(&throng_demo::demo_glb());
    let node = |name: &str| {
        p.doc
            .nodes()
            .find(|n| n.name() == Some(name))
            .expect(name)
            .index()
    };
    for clip in ["walk", "run"] {
        let anim = p
            .doc
            .animations()
            .find(|a| a.name() == Some(clip))
            .expect("clip");
        let chans = channels(&p, &anim);
        let keys = |n: usize| {
            chans
                .iter()
                .find(|c| c.node == n)
                .expect("leg channel")
                .rotations
                .clone()
        };
        let (l, r) = (keys(node("front_upper_l")), keys(node("front_upper_r")));
        let period = l.len() - 1;
        let swing = l
            .iter()
            .map(|q| pitch(*q))
            .fold(0.0f32, |a, b| a.max(b.abs()));
        assert!(swing > 0.2, "{clip}: front legs swing only {swing} rad");
        if clip == "walk" {
            // Left and right front legs: opposite phase (the right one half a cycle later).
            for k in 0..period {
                let a = pitch(l[k]);
                let b = pitch(r[(k + period / 2) % period]);
                assert!((a - b).abs() < 0.02, "walk key {k}: {a} vs {b}");
            }
        }
        // The body bobs.
        let hips = chans
            .iter()
            .find(|c| !c.translations.is_empty())
            .expect("bob");
        let ys: Vec<f32> = hips.translations.iter().map(|t| t.y).collect();
        let range = ys.iter().cloned().fold(f32::MIN, f32::max)
            - ys.iter().cloned().fold(f32::MAX, f32::min);
        assert!(range > 0.005, "{clip}: bob {range} m");
    }
}

#[test]
fn bytes_are_deterministic_and_generation_is_fast() {
    let t = Instant::now();
    let a = throng_demo::demo_glb();
    let elapsed = t.elapsed();
    let b = throng_demo::demo_glb();
    assert!(a == b, "two calls gave different bytes");
    println!(
        "demo_glb: {} bytes in {:.1} ms",
        a.len(),
        elapsed.as_secs_f64() * 1e3
    );
    if !cfg!(debug_assertions) {
        // Budget 50 ms; checked with a wide margin so a loaded CI machine does not flake.
        assert!(elapsed.as_millis() < 500, "generation took {elapsed:?}");
    }
}

#[test]
fn description_matches_the_file() {
    let d = throng_demo::demo_description();
    let bytes = throng_demo::demo_glb();
    let p = parse(&bytes);
    assert_eq!(d.bytes, bytes.len());
    assert_eq!(
        d.joints,
        p.doc.skins().next().expect("skin").joints().count()
    );
    let prim = common::first_primitive(&p.doc);
    assert_eq!(
        d.vertices,
        prim.get(&gltf::Semantic::Positions).expect("pos").count()
    );
    assert_eq!(d.triangles * 3, prim.indices().expect("indices").count());
    let names: Vec<&str> = p.doc.animations().filter_map(|a| a.name()).collect();
    let dnames: Vec<&str> = d.clips.iter().map(|c| c.name).collect();
    assert_eq!(names, dnames);
}

#[test]
fn khronos_validator_reports_no_errors_or_warnings() {
    let dir = std::env::temp_dir().join(format!("throng-demo-validate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("demo.glb");
    std::fs::write(&file, throng_demo::demo_glb()).expect("write demo.glb");
    let report = throng_testdata::validate_gltf(&file);
    let _ = std::fs::remove_dir_all(&dir);
    let Some(report) = report else { return };
    assert_eq!(report.errors, 0, "validator errors: {:#?}", report.messages);
    assert_eq!(
        report.warnings, 0,
        "validator warnings: {:#?}",
        report.messages
    );
}

/// Skinned vertex positions at key `k` of `clip` (every channel of a demo clip shares its keys),
/// by linear blend skinning from the parsed file: S_j = W_j · IBM_j, p' = Σ w_i S_{j_i} p.
fn skinned_at_key(p: &Parsed, clip: &str, k: usize) -> Vec<Vec3> {
    let anim = p
        .doc
        .animations()
        .find(|a| a.name() == Some(clip))
        .expect("clip");
    let mut trs: Vec<(Vec3, Quat, Vec3)> = p
        .doc
        .nodes()
        .map(|n| {
            let (t, r, s) = n.transform().decomposed();
            (Vec3::from(t), Quat::from_array(r), Vec3::from(s))
        })
        .collect();
    for c in channels(p, &anim) {
        if let Some(q) = c.rotations.get(k) {
            trs[c.node].1 = *q;
        }
        if let Some(t) = c.translations.get(k) {
            trs[c.node].0 = *t;
        }
    }
    let mut parent = vec![None; trs.len()];
    for node in p.doc.nodes() {
        for c in node.children() {
            parent[c.index()] = Some(node.index());
        }
    }
    // Node order is parents first in the demo (checked by this loop's lookups).
    let mut global = vec![Mat4::IDENTITY; trs.len()];
    for i in 0..trs.len() {
        let (t, r, s) = trs[i];
        let local = Mat4::from_scale_rotation_translation(s, r, t);
        global[i] = match parent[i] {
            Some(q) => {
                assert!(q < i, "parent after child");
                global[q] * local
            }
            None => local,
        };
    }
    let skin = p.doc.skins().next().expect("skin");
    let ibms = common::inverse_binds(&skin, &p.buffers);
    let palette: Vec<Mat4> = skin
        .joints()
        .zip(&ibms)
        .map(|(j, ibm)| global[j.index()] * *ibm)
        .collect();
    let prim = common::first_primitive(&p.doc);
    let r = prim.reader(|b| Some(&p.buffers[b.index()]));
    let jts: Vec<[u16; 4]> = r.read_joints(0).expect("joints").into_u16().collect();
    let wts: Vec<[f32; 4]> = r.read_weights(0).expect("weights").into_f32().collect();
    r.read_positions()
        .expect("positions")
        .enumerate()
        .map(|(v, pos)| {
            let mut m = Mat4::ZERO;
            for i in 0..4 {
                m += palette[jts[v][i] as usize] * wts[v][i];
            }
            m.transform_point3(Vec3::from(pos))
        })
        .collect()
}

#[test]
fn paws_meet_the_ground_while_walking_and_never_sink_while_running() {
    let p = parse(&throng_demo::demo_glb());
    let bind = skinned_at_key(&p, "idle", 0);
    let lo = bind.iter().fold(Vec3::INFINITY, |a, b| a.min(*b));
    let hi = bind.iter().fold(Vec3::NEG_INFINITY, |a, b| a.max(*b));
    // 0.7 % of the bounding diagonal (about 1 cm on this 1.4 m diagonal).
    let tol = 0.007 * (hi - lo).length();
    for (clip, keys) in [("walk", 31), ("run", 16)] {
        for k in 0..keys {
            let low = skinned_at_key(&p, clip, k)
                .iter()
                .map(|v| v.y)
                .fold(f32::MAX, f32::min);
            assert!(low > -tol, "{clip} key {k}: a paw sinks to y = {low}");
            if clip == "walk" {
                // Walking always has a paw on the ground.
                assert!(
                    low < tol,
                    "{clip} key {k}: every paw is off the ground (y = {low})"
                );
            }
        }
    }
}
