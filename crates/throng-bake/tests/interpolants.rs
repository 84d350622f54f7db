//! The row interpolants measured against each other at equal frames (docs/design.md §3 "Row
//! interpolation"): per shared keyframed character and clip, the largest vertex error between
//! uniform samples, as a fraction of the bounding diagonal, for linear and Catmull-Rom rows at
//! the same rates. `cargo test --release -p throng-bake --test interpolants -- --ignored
//! --nocapture` prints the table docs/benchmarks.md keeps.

use glam::{Mat4, Quat, Vec4};
use throng_bake::budget::{Clusters, Job, Posers, RECHECK_STEPS};
use throng_bake::frames::{clip_duration, frame_count};
use throng_bake::uniform_budget::{check, check_by, interpolation_flags, is_periodic};
use throng_bake::{BakeOptions, MaxError};

#[test]
#[ignore = "a measurement (prints a table); minutes on two cores"]
fn catmull_rom_against_linear_at_equal_frames() {
    for name in [
        "Fox.glb",
        "CesiumMan.glb",
        "Quaternius_Enemy.glb",
        "kenney/character.glb",
    ] {
        let Some(path) = throng_testdata::asset(name) else {
            continue;
        };
        let model = throng_gltf::import(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let options = BakeOptions {
            source_name: name.into(),
            ..Default::default()
        };
        let palette = throng_bake::palette::build(&model, name).expect("palette");
        let prims = throng_bake::primitives::build(&model, &palette, &options).expect("prims");
        let clusters = Clusters::new(&prims.reference);
        for (c, clip) in model.clips.iter().enumerate() {
            let d = clip_duration(clip);
            if d <= 0.0 {
                continue;
            }
            let job = Job {
                model: &model,
                palette: &palette,
                clusters: &clusters,
                clip: c,
                duration: d,
                budget: MaxError::Relative(0.0),
            };
            let periodic = is_periodic(&Job {
                budget: MaxError::Relative(1e-5),
                ..job
            });
            let posers = Posers::new(job.poser());
            let mut line = format!("{name:28} {:16} {}", clip.name, periodic as u8);
            for fps in [10.0, 15.0, 20.0, 30.0, 60.0, 120.0] {
                let n = frame_count(d, fps);
                let lin = check(&job, &posers, n, 0, RECHECK_STEPS, false);
                let cr = check(
                    &job,
                    &posers,
                    n,
                    interpolation_flags(true, periodic),
                    RECHECK_STEPS,
                    false,
                );
                line += &format!(" | {fps} fps {:.2e} {:.2e}", lin.rel, cr.rel);
            }
            println!("{line}");
            // Rows on the source's keys: the skin matrices lerped, and blended as dual
            // quaternions (rotation and translation together, scale lerped).
            let keys = throng_bake::frames::key_times(clip, d);
            let lerp = |rows: &[Vec<Mat4>], k: usize, f: f32, out: &mut Vec<Mat4>| {
                out.clear();
                out.extend(
                    rows[k]
                        .iter()
                        .zip(&rows[k + 1])
                        .map(|(a, b)| *a * (1.0 - f) + *b * f),
                );
            };
            let dq = |rows: &[Vec<Mat4>], k: usize, f: f32, out: &mut Vec<Mat4>| {
                out.clear();
                out.extend(rows[k].iter().zip(&rows[k + 1]).map(|(a, b)| dlb(a, b, f)));
            };
            // Per key interval the lowest degree (1 to 3, as many rows) whose polynomial meets
            // 6e-5 (1e-4 less the encoding's share), else 3: the rows a per-interval choice
            // needs.
            let mut rows_needed = 1usize;
            for w in keys.windows(2) {
                let mut deg = 3;
                for m in 1..=3usize {
                    let cut: Vec<f32> = (0..=m)
                        .map(|j| {
                            (w[0] as f64 + (w[1] as f64 - w[0] as f64) * j as f64 / m as f64) as f32
                        })
                        .collect();
                    let poly = |rows: &[Vec<Mat4>], k: usize, f: f32, out: &mut Vec<Mat4>| {
                        let u = (k as f32 + f) / m as f32;
                        let nodes: Vec<f32> = (0..=m).map(|j| j as f32 / m as f32).collect();
                        out.clear();
                        out.resize(rows[0].len(), Mat4::ZERO);
                        for a in 0..=m {
                            let wa: f32 = (0..=m)
                                .filter(|&b| b != a)
                                .map(|b| (u - nodes[b]) / (nodes[a] - nodes[b]))
                                .product();
                            for (o, r) in out.iter_mut().zip(&rows[a]) {
                                *o += *r * wa;
                            }
                        }
                    };
                    if check_by(&job, &posers, &cut, RECHECK_STEPS, false, &poly).rel <= 6e-5 {
                        deg = m;
                        break;
                    }
                }
                rows_needed += deg;
            }
            println!(
                "{name:28} {:16}   per-interval degree for 6e-5: {rows_needed} rows, {:.1}/s, {:.0} B/bone/s at 16 B",
                clip.name,
                rows_needed as f64 / d,
                rows_needed as f64 / d * 16.0
            );
            let lin = check_by(&job, &posers, &keys, RECHECK_STEPS, false, &lerp);
            let dqc = check_by(&job, &posers, &keys, RECHECK_STEPS, false, &dq);
            // Every key interval cut into `m` equal parts; rows at every cut; shown by a
            // Lagrange polynomial of degree m through the interval's m + 1 rows (no smoothing
            // across a key, where LINEAR keys put a corner), or by lerp between neighbours.
            for m in [2usize, 3] {
                let mut cut = vec![keys[0]];
                for w in keys.windows(2) {
                    for j in 1..=m {
                        let t = w[0] as f64 + (w[1] as f64 - w[0] as f64) * j as f64 / m as f64;
                        cut.push(t as f32);
                    }
                }
                let poly = |rows: &[Vec<Mat4>], k: usize, f: f32, out: &mut Vec<Mat4>| {
                    let i = k / m;
                    let u = ((k % m) as f32 + f) / m as f32;
                    let nodes: Vec<f32> = (0..=m).map(|j| j as f32 / m as f32).collect();
                    let w: Vec<f32> = (0..=m)
                        .map(|a| {
                            (0..=m)
                                .filter(|&b| b != a)
                                .map(|b| (u - nodes[b]) / (nodes[a] - nodes[b]))
                                .product()
                        })
                        .collect();
                    out.clear();
                    out.resize(rows[0].len(), Mat4::ZERO);
                    for (a, wa) in w.iter().enumerate() {
                        for (o, r) in out.iter_mut().zip(&rows[i * m + a]) {
                            *o += *r * *wa;
                        }
                    }
                };
                let l = check_by(&job, &posers, &cut, RECHECK_STEPS, false, &lerp);
                let p = check_by(&job, &posers, &cut, RECHECK_STEPS, false, &poly);
                println!(
                    "{name:28} {:16}   {} rows, {m} per key interval ({:.1}/s): lerp {:.2e}, degree-{m} polynomial per interval {:.2e}",
                    clip.name,
                    cut.len(),
                    (cut.len() - 1) as f64 / d,
                    l.rel,
                    p.rel
                );
            }
            println!(
                "{name:28} {:16}   {} rows on keys ({:.1}/s): lerp {:.2e}, dual quaternion {:.2e}",
                clip.name,
                keys.len(),
                (keys.len() - 1) as f64 / d,
                lin.rel,
                dqc.rel
            );
        }
    }
}

/// Dual-quaternion linear blend of two rigid (uniformly scaled) transforms: rotation and
/// translation as one unit dual quaternion (Kavan et al. 2007), scale lerped.
fn dlb(a: &Mat4, b: &Mat4, f: f32) -> Mat4 {
    let (sa, ra, ta) = a.to_scale_rotation_translation();
    let (sb, mut rb, tb) = b.to_scale_rotation_translation();
    if ra.dot(rb) < 0.0 {
        rb = -rb;
    }
    let dual = |r: Quat, t: glam::Vec3| Vec4::from(Quat::from_xyzw(t.x, t.y, t.z, 0.0) * r) * 0.5;
    let real = Vec4::from(ra) * (1.0 - f) + Vec4::from(rb) * f;
    let du = dual(ra, ta) * (1.0 - f) + dual(rb, tb) * f;
    let n = real.length();
    let (real, du) = (Quat::from_vec4(real / n), Quat::from_vec4(du / n));
    let t = Vec4::from(du * real.conjugate()) * 2.0;
    Mat4::from_scale_rotation_translation(sa.lerp(sb, f), real, t.truncate())
}
