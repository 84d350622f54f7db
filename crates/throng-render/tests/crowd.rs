//! Crowd-scale rendering on whatever adapter wgpu finds (lavapipe without a GPU): LOD choice
//! against a CPU computation, draw calls independent of the instance count, shadows cast by
//! instances outside the view and moving with the animation, debug views, and several assets
//! in one frame. PNGs go to CARGO_TARGET_TMPDIR for people to look at.

mod common;

use common::{differ_count, differing, is_orange, renderer, save};

use glam::{Mat4, Vec3, Vec4};
use throng_asset::{BakedAsset, Encoding, Lod};
use throng_render::gpu_types::{single_layer, InstanceRecord};
use throng_render::{
    Camera, Crowd, DebugView, GpuAsset, InstanceTransform, Playback, Records, RenderOptions,
    Renderer, ShadowLod,
};

/// Model-space error (file units) the test gives LOD 1 and LOD 2: meshoptimizer's relative
/// error × the tube's largest extent (2).
const LOD_WORLD_ERROR: [f32; 3] = [0.0, 0.02 * 2.0, 0.1 * 2.0];

/// The bending tube with two simplified LODs: the lower half and the lower quarter of its
/// triangles, with relative errors 0.02 and 0.1.
fn tube_with_lods() -> BakedAsset {
    let mut a = common::tube_asset(Encoding::Mat3x4F32);
    let p = &mut a.primitives[0];
    let tris = p.indices.len() / 3;
    p.lods = vec![
        Lod {
            ratio: 0.5,
            indices: p.indices[..tris / 2 * 3].to_vec(),
            error: 0.02,
        },
        Lod {
            ratio: 0.25,
            indices: p.indices[..tris / 4 * 3].to_vec(),
            error: 0.1,
        },
    ];
    a
}

/// A CPU-timed crowd.
fn cpu_crowd<'a>(
    asset: &'a GpuAsset,
    transforms: &'a [InstanceTransform],
    records: &'a [InstanceRecord],
) -> Crowd<'a> {
    Crowd::new(asset, transforms, Playback::Records(Records::Cpu(records)))
}

fn at(p: Vec3) -> InstanceTransform {
    InstanceTransform::from_mat4(&Mat4::from_translation(p))
}

/// A camera at (0, 1, 10) looking down −Z, 35° vertical field of view.
/// `n` tubes in two files from 5 units in front of the camera's row into the distance, each on
/// one of the clip's first 16 rows.
fn tube_row(n: u32) -> (Vec<InstanceTransform>, Vec<InstanceRecord>) {
    let transforms = (0..n)
        .map(|i| {
            let x = if i % 2 == 0 { -1.0 } else { 1.0 };
            at(Vec3::new(x, 0.0, 5.0 - 2.0 * i as f32))
        })
        .collect();
    let records = (0..n).map(|i| single_layer(1 + i % 16, 0.0, 0)).collect();
    (transforms, records)
}

fn row_camera() -> Camera {
    Camera {
        eye: Vec3::new(0.0, 1.0, 10.0),
        target: Vec3::new(0.0, 1.0, -100.0),
        up: Vec3::Y,
        fov_y: 35f32.to_radians(),
        near: 0.1,
        far: 400.0,
    }
}

/// CPU frustum test of a world box (centre c, half extent e) against clip-from-world `vp`, done
/// independently of the crate's plane extraction: the box is outside when its 8 corners in clip
/// space all fail one of the clip inequalities −w ≤ x ≤ w, −w ≤ y ≤ w, 0 ≤ z ≤ w.
fn box_in_frustum(vp: &Mat4, c: Vec3, e: Vec3) -> bool {
    let corners: Vec<Vec4> = (0..8)
        .map(|i| {
            let s = Vec3::new(
                if i & 1 == 0 { -1.0 } else { 1.0 },
                if i & 2 == 0 { -1.0 } else { 1.0 },
                if i & 4 == 0 { -1.0 } else { 1.0 },
            );
            *vp * (c + e * s).extend(1.0)
        })
        .collect();
    let inside: [fn(Vec4) -> f32; 6] = [
        |k| k.w + k.x,
        |k| k.w - k.x,
        |k| k.w + k.y,
        |k| k.w - k.y,
        |k| k.z,
        |k| k.w - k.z,
    ];
    !inside.iter().any(|f| corners.iter().all(|&k| f(k) < 0.0))
}

/// Shadow LOD on the same row of tubes with shadows: the casters are the same under every rule;
/// `lowest` puts them all at the coarsest LOD (the fewest shadow triangles), `main` at the LOD
/// the view chose, and `texel` at the coarser of the view's and the one whose error covers a
/// shadow-map texel (the light's camera is orthographic: one level for equal tubes), never
/// finer than the view's. `shadow_influences` caps the shadow pass's influences without
/// changing the main pass.
#[test]
fn shadow_lod_rules_pick_their_own_level() {
    let Some(mut r) = renderer() else { return };
    let asset = tube_with_lods();
    let g = r.upload(&asset).expect("upload");
    let n = 80u32;
    let (transforms, records) = tube_row(n);
    let crowd = cpu_crowd(&g, &transforms, &records);
    let opts = |rule| RenderOptions {
        width: 192,
        height: 256,
        camera: Some(row_camera()),
        shadow_lod: rule,
        ..Default::default()
    };
    let sorted = |v: &[Vec<u32>]| {
        let mut all: Vec<u32> = v.iter().flatten().copied().collect();
        all.sort_unstable();
        all
    };
    let main_rule = r.cull_lists(&crowd, &opts(ShadowLod::Main)).expect("cull");
    let lowest = r
        .cull_lists(&crowd, &opts(ShadowLod::Lowest))
        .expect("cull");
    let texel = r.cull_lists(&crowd, &opts(ShadowLod::Texel)).expect("cull");
    let casters = sorted(&main_rule.shadow);
    assert!(casters.len() >= 10, "{casters:?}");
    assert_eq!(sorted(&lowest.shadow), casters);
    assert_eq!(sorted(&texel.shadow), casters);
    // lowest: everything at the coarsest level.
    let last = lowest.shadow.len() - 1;
    assert_eq!(
        lowest.shadow[last].len(),
        casters.len(),
        "{:?}",
        lowest.shadow
    );
    // main: a caster seen by the view has the view's LOD.
    for (l, ids) in main_rule.shadow.iter().enumerate() {
        for i in ids {
            if let Some(v) = main_rule.main.iter().position(|m| m.contains(i)) {
                assert_eq!(v, l, "caster {i}");
            }
        }
    }
    // texel: per caster, the coarser of the view's LOD and one level shared by equal tubes.
    let lod_of = |lists: &[Vec<u32>], i: u32| lists.iter().position(|l| l.contains(&i));
    let texel_lods: Vec<usize> = casters
        .iter()
        .filter_map(|&i| lod_of(&texel.shadow, i))
        .collect();
    let floor = *texel_lods.iter().min().expect("a caster");
    for &i in &casters {
        let (t, m) = (lod_of(&texel.shadow, i), lod_of(&main_rule.shadow, i));
        assert_eq!(t, m.map(|m| m.max(floor)), "caster {i}");
    }
    let used = [floor];
    let mut frame = |o: &RenderOptions| r.render_scene(&[crowd], o).expect("render").stats;
    let (st_main, st_texel, st_low) = (
        frame(&opts(ShadowLod::Main)),
        frame(&opts(ShadowLod::Texel)),
        frame(&opts(ShadowLod::Lowest)),
    );
    eprintln!(
        "shadow triangles: main {}, texel {} (LOD {}), lowest {}",
        st_main.shadow_triangles, st_texel.shadow_triangles, used[0], st_low.shadow_triangles
    );
    assert!(st_low.shadow_triangles < st_main.shadow_triangles);
    assert!(st_low.shadow_triangles <= st_texel.shadow_triangles);
    assert!(st_texel.shadow_triangles <= st_main.shadow_triangles);
    assert_eq!(
        st_main.triangles, st_low.triangles,
        "the main pass is unchanged"
    );
    // Fewer shadow influences: the same lists, a picture that still has its shadows.
    let capped = RenderOptions {
        shadow_influences: 1,
        ..opts(ShadowLod::Texel)
    };
    let img = r.render_scene(&[crowd], &capped).expect("render").image;
    save(&img, "crowd-shadow-influences-1.png");
    assert!(img.pixels().filter(|p| is_orange(p)).count() > 500);
}

/// LOD per instance: 80 tubes in a row from 5 to 160 units from the camera. The GPU's lists
/// per LOD equal the CPU's choice — the coarsest level whose error × (H/2) / tan(fov/2) /
/// distance (nearest point of the box) is ≤ lod_bias pixels — except within 0.1 % of a
/// threshold; every level is used, and the LOD meshes draw.
#[test]
fn lod_choice_matches_cpu_and_lod_meshes_render() {
    let Some(mut r) = renderer() else { return };
    let asset = tube_with_lods();
    let g = r.upload(&asset).expect("upload");
    assert_eq!(g.lod_count(), 3);
    for (got, want) in g.lod_errors.iter().zip(LOD_WORLD_ERROR) {
        assert!((got - want).abs() < 1e-6, "{:?}", g.lod_errors);
    }
    let n = 80u32;
    let (transforms, records) = tube_row(n);
    let cam = row_camera();
    let (w, h) = (192u32, 256u32);
    let opts = RenderOptions {
        width: w,
        height: h,
        camera: Some(cam),
        shadows: false,
        ..Default::default()
    };
    let crowd = cpu_crowd(&g, &transforms, &records);
    let lists = r.cull_lists(&crowd, &opts).expect("cull");
    assert!(lists.shadow.is_empty());
    let vp = cam.view_proj(w as f32 / h as f32);
    let pixels_per_unit = h as f32 * 0.5 / (cam.fov_y * 0.5).tan();
    let mut want: Vec<Vec<u32>> = vec![Vec::new(); 3];
    let mut near_threshold = Vec::new();
    for i in 0..n {
        let bounds = common::culling_box(&asset, &records[i as usize]);
        let t = transforms[i as usize].to_mat4().w_axis.truncate();
        let c = (bounds.min + bounds.max) * 0.5 + t;
        let e = (bounds.max - bounds.min) * 0.5;
        if !box_in_frustum(&vp, c, e) {
            continue;
        }
        let dist = ((c - cam.eye).length() - e.length()).max(1e-6);
        let mut lod = 0;
        for (l, err) in LOD_WORLD_ERROR.iter().enumerate().skip(1) {
            let px = err * pixels_per_unit / dist;
            if (px - 1.0).abs() < 1e-3 {
                near_threshold.push(i);
            }
            if px <= 1.0 {
                lod = l;
            }
        }
        want[lod].push(i);
    }
    let strip = |v: &[Vec<u32>]| -> Vec<Vec<u32>> {
        v.iter()
            .map(|l| {
                l.iter()
                    .copied()
                    .filter(|i| !near_threshold.contains(i))
                    .collect()
            })
            .collect()
    };
    eprintln!(
        "per LOD: {:?}",
        lists.main.iter().map(|l| l.len()).collect::<Vec<_>>()
    );
    assert_eq!(strip(&lists.main), strip(&want));
    assert!(
        want.iter().all(|l| l.len() >= 5),
        "every level used: {want:?}"
    );
    // The frame draws the same split, and the LOD view shows three colours.
    let frame = r.render_scene(&[crowd], &opts).expect("render");
    let per_lod: Vec<u64> = lists.main.iter().map(|l| l.len() as u64).collect();
    assert_eq!(frame.stats.instances_per_lod, per_lod);
    // Triangles per tube: LOD 0 all (768), LOD 1 half, LOD 2 a quarter.
    let full = asset.primitives[0].indices.len() as u64 / 3;
    let tris: u64 = per_lod
        .iter()
        .zip([full, full / 2, full / 4])
        .map(|(n, t)| n * t)
        .sum();
    assert_eq!(frame.stats.triangles, tris);
    save(&frame.image, "crowd-lod.png");
    assert!(frame.image.pixels().filter(|p| is_orange(p)).count() > 500);
    let lod_view = r
        .render_scene(
            &[crowd],
            &RenderOptions {
                debug: Some(DebugView::Lod),
                ..opts
            },
        )
        .expect("render lod view");
    save(&lod_view.image, "crowd-lod-view.png");
    let mut colours: Vec<[u8; 3]> = lod_view
        .image
        .pixels()
        .map(|p| [p[0] / 16, p[1] / 16, p[2] / 16])
        .collect();
    colours.sort_unstable();
    colours.dedup();
    assert!(colours.len() > 6, "LOD view has {} colours", colours.len());
    assert_ne!(lod_view.image, frame.image);
}

/// The number of draw calls recorded is a function of primitives × LODs × passes: the same for
/// 10 and 10,000 instances, culled or not, with one indirect draw per (primitive, LOD, pass) or
/// (where the device has first instances) one multi-draw per (primitive, pass); both draw the
/// same picture.
#[test]
fn draw_calls_do_not_depend_on_instance_count() {
    let Some(mut r) = renderer() else { return };
    let can_multi = r.multi_draw;
    let g = r.upload(&tube_with_lods()).expect("upload");
    let opts = RenderOptions {
        width: 96,
        height: 96,
        camera: Some(row_camera()),
        lod_bias: 3.0,
        ..Default::default()
    };
    let mut draws = Vec::new();
    for n in [10u32, 10_000] {
        // A square field behind the camera's target; most of it out of view.
        let side = (n as f32).sqrt().ceil() as u32;
        let transforms: Vec<_> = (0..n)
            .map(|i| {
                at(Vec3::new(
                    (i % side) as f32 * 3.0 - 1.5 * side as f32,
                    0.0,
                    -((i / side) as f32) * 3.0,
                ))
            })
            .collect();
        let records: Vec<InstanceRecord> =
            (0..n).map(|i| single_layer(1 + i % 16, 0.5, 0)).collect();
        let crowd = cpu_crowd(&g, &transforms, &records);
        r.multi_draw = false;
        let culled = r.render_scene(&[crowd], &opts).expect("culled");
        let direct = r
            .render_scene(
                &[crowd],
                &RenderOptions {
                    cull: false,
                    ..opts
                },
            )
            .expect("direct");
        eprintln!("{n}: {:?} / {:?}", culled.stats, direct.stats);
        assert!(culled.stats.instances_drawn > 0);
        assert_eq!(direct.stats.instances_drawn, n as u64);
        draws.push((
            culled.stats.draws,
            culled.stats.shadow_draws,
            direct.stats.draws,
        ));
        if can_multi {
            r.multi_draw = true;
            let multi = r.render_scene(&[crowd], &opts).expect("multi-draw");
            eprintln!("{n} multi-draw: {:?}", multi.stats);
            // 1 primitive × 3 passes (the main pass's two phases of occlusion culling, the
            // shadow pass) + the ground.
            assert_eq!((multi.stats.draws, multi.stats.shadow_draws), (4, 1));
            assert_eq!(
                multi.stats.instances_per_lod,
                culled.stats.instances_per_lod
            );
            assert_eq!(multi.image, culled.image, "multi-draw changed the picture");
            if n == 10_000 {
                save(&multi.image, "field-multi-draw.png");
                assert!(
                    multi
                        .stats
                        .instances_per_lod
                        .iter()
                        .filter(|&&c| c > 0)
                        .count()
                        >= 2,
                    "{:?}",
                    multi.stats
                );
            }
        }
    }
    // 1 primitive × 3 LODs × 3 passes (two main-pass phases of occlusion culling, shadows) +
    // the ground; without culling 1 × 2 + 1.
    assert_eq!(draws, vec![(10, 3, 3), (10, 3, 3)]);
}

/// A top-down camera over the ground around the origin, looking down −Y.
fn top_camera() -> Camera {
    Camera {
        eye: Vec3::new(0.0, 12.0, 0.0),
        target: Vec3::ZERO,
        up: Vec3::NEG_Z,
        fov_y: 30f32.to_radians(),
        near: 0.5,
        far: 40.0,
    }
}

/// Pixels where `a` and `b` differ by more than 8 in any channel.
/// A tall tube just outside the top-down view (the light travels towards −x, −z) is culled
/// from the main pass but kept by the shadow camera, and its shadow darkens the visible ground.
#[test]
fn casters_outside_the_view_still_cast() {
    let Some(mut r) = renderer() else { return };
    let mut asset = common::tube_asset(Encoding::Mat3x4F32);
    // Ten times taller: a long shadow.
    for p in &mut asset.primitives {
        for q in &mut p.positions {
            q.y *= 10.0;
        }
    }
    for c in &mut asset.clips {
        c.bounds.max.y *= 10.0;
    }
    for b in &mut asset.row_bounds {
        b.max.y *= 10.0;
    }
    let g = r.upload(&asset).expect("upload");
    let cam = top_camera();
    // Half width of the view on the ground: 12 · tan(15°) ≈ 3.2; the caster stands at x = 5.4
    // (its box, 1.45 wide each side, ends at x = 3.95) and its shadow reaches 0.4 × 20 = 8 units
    // towards −x.
    let inside = at(Vec3::new(-1.0, 0.0, 0.0));
    let outside = at(Vec3::new(5.4, 0.0, 1.0));
    let rest = single_layer(1, 0.0, 0);
    let opts = RenderOptions {
        width: 160,
        height: 160,
        camera: Some(cam),
        ..Default::default()
    };
    // The ground and the shadow camera follow the scene bounds, so both pictures keep them
    // equal: two far tubes span them, and "without" moves the caster to a spot inside them
    // whose shadow falls far from the view.
    let far = [
        at(Vec3::new(-60.0, 0.0, -60.0)),
        at(Vec3::new(60.0, 0.0, 60.0)),
    ];
    let with = [inside, outside, far[0], far[1]];
    let without = [inside, at(Vec3::new(50.0, 0.0, 50.0)), far[0], far[1]];
    let records = [rest; 4];
    let lists = r
        .cull_lists(&cpu_crowd(&g, &with, &records), &opts)
        .expect("cull");
    let main: Vec<u32> = lists.main.concat();
    let shadow: Vec<u32> = lists.shadow.concat();
    assert_eq!(main, vec![0], "only the inside tube is seen");
    assert!(shadow.contains(&1), "the outside tube casts: {shadow:?}");
    let render = |r: &mut Renderer, t: &[InstanceTransform]| {
        r.render_scene(&[cpu_crowd(&g, t, &records)], &opts)
            .expect("render")
    };
    let a = render(&mut r, &with);
    let b = render(&mut r, &without);
    save(&a.image, "shadow-outside-caster.png");
    save(&b.image, "shadow-outside-caster-absent.png");
    let darker = a
        .image
        .pixels()
        .zip(b.image.pixels())
        .filter(|(p, q)| (p[0] as i32) + 12 < q[0] as i32)
        .count();
    eprintln!("{darker} pixels darkened by the unseen caster");
    assert!(darker > 100, "{darker}");
    assert_eq!(a.stats.instances_drawn, 1);
    assert_eq!(a.stats.shadow_instances, 2);
}

/// The shadow of a bending tube moves: seen from above, the ground pixels the shadow darkens
/// at the straight pose and at the bent pose are different sets.
#[test]
fn shadow_of_an_animated_instance_moves() {
    let Some(mut r) = renderer() else { return };
    let g = r
        .upload(&common::tube_asset(Encoding::Mat3x4F32))
        .expect("upload");
    // Twice the size: a 4 units tall tube.
    let t = [InstanceTransform::from_mat4(&Mat4::from_scale(
        Vec3::splat(2.0),
    ))];
    let opts = RenderOptions {
        width: 160,
        height: 160,
        camera: Some(top_camera()),
        ..Default::default()
    };
    let frame = |r: &mut Renderer, row: u32, shadows: bool| {
        let rec = [single_layer(row, 0.0, 0)];
        r.render_scene(
            &[cpu_crowd(&g, &t, &rec)],
            &RenderOptions { shadows, ..opts },
        )
        .expect("render")
        .image
    };
    // Rows 1 (straight) and 8 (bent by ~1.2 rad).
    let (on_a, off_a) = (frame(&mut r, 1, true), frame(&mut r, 1, false));
    let (on_b, off_b) = (frame(&mut r, 8, true), frame(&mut r, 8, false));
    save(&on_a, "shadow-straight.png");
    save(&on_b, "shadow-bent.png");
    // Ground only: pixels the tube covers in neither pose.
    let ground = differing(&off_a, &off_b);
    let ground: Vec<bool> = ground
        .iter()
        .zip(off_a.pixels())
        .map(|(d, p)| !d && !is_orange(p))
        .collect();
    let shadow_a = differing(&on_a, &off_a);
    let shadow_b = differing(&on_b, &off_b);
    let count =
        |f: &dyn Fn(usize) -> bool| (0..ground.len()).filter(|&i| ground[i] && f(i)).count();
    let in_a = count(&|i| shadow_a[i]);
    let in_b = count(&|i| shadow_b[i]);
    let moved = count(&|i| shadow_a[i] != shadow_b[i]);
    eprintln!("shadow pixels: straight {in_a}, bent {in_b}, differing {moved}");
    assert!(in_a > 40 && in_b > 40, "{in_a} {in_b}");
    assert!(moved > 30, "{moved}");
}

/// Debug views: each colours the crowd differently from the shaded picture and from the
/// others; the weights heat map of joint 2 (the tube's top) differs from the blend-zone map.
#[test]
fn debug_views_differ() {
    let Some(mut r) = renderer() else { return };
    let g = r.upload(&tube_with_lods()).expect("upload");
    // Two rows: the far one 12 units back, at LOD 1 with lod_bias 4 px.
    let transforms: Vec<_> = (0..8)
        .map(|i| {
            at(Vec3::new(
                (i % 4) as f32 * 1.6 - 2.4,
                0.0,
                -((i / 4) as f32) * 12.0,
            ))
        })
        .collect();
    let records: Vec<InstanceRecord> = (0..8).map(|i| single_layer(1 + i * 2, 0.0, 0)).collect();
    let crowd = cpu_crowd(&g, &transforms, &records);
    let base = RenderOptions {
        width: 192,
        height: 144,
        // Whole tubes: LOD 0 everywhere.
        lod_bias: 0.0,
        ..Default::default()
    };
    let views = [
        (None, None),
        (Some(DebugView::Weights), None),
        (Some(DebugView::Weights), Some(2)),
        (Some(DebugView::Palette), None),
        (Some(DebugView::Row), None),
        (Some(DebugView::Lod), None),
        (Some(DebugView::Normals), None),
    ];
    let images: Vec<image::RgbaImage> = views
        .iter()
        .map(|&(debug, debug_joint)| {
            let img = r
                .render_scene(
                    &[crowd],
                    &RenderOptions {
                        debug,
                        debug_joint,
                        ..base
                    },
                )
                .expect("render")
                .image;
            save(
                &img,
                &format!("debug-{debug:?}-{debug_joint:?}.png").replace([' ', '(', ')'], ""),
            );
            img
        })
        .collect();
    for i in 0..images.len() {
        for j in i + 1..images.len() {
            let d = differ_count(&images[i], &images[j]);
            assert!(
                d > 50,
                "{:?} and {:?} differ in {d} pixels",
                views[i],
                views[j]
            );
        }
    }
}

/// The normals debug view writes the world-space normal as colour (`n · 0.5 + 0.5`, unlit,
/// into the sRGB target): decoded from the PNG (sRGB → linear, × 2 − 1), every pixel that is
/// not background is a unit vector (length within 0.06: 8-bit sRGB steps near 0.5 are ~0.004
/// wide, interpolated normals are renormalised per fragment) facing the camera (the framing
/// camera looks from direction (0.45, 0.35, 1); a front face's normal is within 90° of the
/// direction to the eye, which is within ~25° of that one here: n · dir > −0.45), and the
/// texture and palette paths draw the same picture (at most 0.5 % of pixels differ by more
/// than 8 levels). Measured: 749 pixels covered, worst |length − 1| 0.011, 0 pixels differ.
#[test]
fn the_normals_view_writes_unit_normals_on_the_texture_and_palette_paths() {
    let Some(mut r) = renderer() else { return };
    let g = r.upload(&tube_with_lods()).expect("upload");
    let transforms: Vec<_> = (0..4)
        .map(|i| at(Vec3::new(i as f32 * 1.6 - 2.4, 0.0, 0.0)))
        .collect();
    let records: Vec<InstanceRecord> = (0..4).map(|i| single_layer(1 + i * 3, 0.0, 0)).collect();
    let crowd = cpu_crowd(&g, &transforms, &records);
    let background = [0.0, 0.0, 0.0, 1.0];
    let draw = |r: &mut Renderer, path: throng_render::SkinPath| {
        r.render_scene(
            &[crowd],
            &RenderOptions {
                width: 160,
                height: 120,
                path,
                ground: false,
                shadows: false,
                lod_bias: 0.0,
                debug: Some(DebugView::Normals),
                background,
                ..Default::default()
            },
        )
        .expect("render")
        .image
    };
    let texture = draw(&mut r, throng_render::SkinPath::Texture);
    let palette = draw(&mut r, throng_render::SkinPath::Palette);
    save(&texture, "normals-texture.png");
    let linear = |v: u8| {
        let c = v as f32 / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    let (mut covered, mut off_length, mut facing_away) = (0, 0, 0);
    let mut worst = 0.0f32;
    for p in texture.pixels() {
        if p.0[..3] == [0, 0, 0] {
            continue;
        }
        covered += 1;
        let n = Vec3::from_array([0, 1, 2].map(|c| linear(p.0[c]) * 2.0 - 1.0));
        let err = (n.length() - 1.0).abs();
        worst = worst.max(err);
        off_length += (err > 0.06) as usize;
        facing_away += (n.dot(Vec3::new(0.45, 0.35, 1.0).normalize()) < -0.45) as usize;
    }
    let paths = differ_count(&texture, &palette);
    eprintln!(
        "normals view: {covered} pixels covered, worst |length - 1| {worst:.4}, {off_length} off by more than 0.06, {facing_away} facing away; texture vs palette path: {paths} differ"
    );
    assert!(covered > 500, "the tubes cover only {covered} pixels");
    assert_eq!(off_length, 0, "pixels that are not unit normals");
    assert_eq!(facing_away, 0, "normals facing away from the camera");
    assert!(
        paths * 200 <= (160 * 120),
        "the texture and palette paths' normals differ in {paths} pixels"
    );
}

/// Two assets in one frame: each crowd is drawn with its own material, the draw calls add up.
#[test]
fn several_assets_in_one_frame() {
    let Some(mut r) = renderer() else { return };
    let orange = r.upload(&tube_with_lods()).expect("upload");
    let mut blue_asset = common::tube_asset(Encoding::QuatSnorm16);
    for m in &mut blue_asset.materials {
        m.base_color_factor = [0.1, 0.2, 0.9, 1.0];
    }
    let blue = r.upload(&blue_asset).expect("upload");
    let ta: Vec<_> = (0..3)
        .map(|i| at(Vec3::new(i as f32 * 1.5 - 3.0, 0.0, 0.0)))
        .collect();
    let tb: Vec<_> = (0..3)
        .map(|i| at(Vec3::new(i as f32 * 1.5 + 1.0, 0.0, 0.0)))
        .collect();
    let ra: Vec<InstanceRecord> = (0..3).map(|i| single_layer(1 + i * 5, 0.0, 0)).collect();
    let rb = ra.clone();
    let crowds = [cpu_crowd(&orange, &ta, &ra), cpu_crowd(&blue, &tb, &rb)];
    let opts = RenderOptions {
        width: 160,
        height: 128,
        ..Default::default()
    };
    let both = r.render_scene(&crowds, &opts).expect("render");
    save(&both.image, "two-assets.png");
    let oranges = both.image.pixels().filter(|p| is_orange(p)).count();
    let blues = both
        .image
        .pixels()
        .filter(|p| p[2] as i32 > p[0] as i32 + 60 && p[2] > 90)
        .count();
    eprintln!("{oranges} orange, {blues} blue pixels; {:?}", both.stats);
    assert!(oranges > 100 && blues > 100);
    assert_eq!(both.stats.instances_drawn, 6);
    // Orange: 3 LODs (one multi-draw where the device allows) × 3 passes (the main pass's two
    // phases of occlusion culling, the shadow pass); blue: 1 LOD × 3 passes; ground 1.
    let orange_draws = if r.multi_draw { 3 } else { 9 };
    assert_eq!(both.stats.draws, orange_draws + 3 + 1);
}

/// `lod_influences`: with one influence per vertex the texture path draws what CPU skinning
/// of the same asset draws with each vertex bound to its first stored (strongest) influence
/// alone, and not what all influences give.
#[test]
fn fewer_influences_match_cpu_skinning_of_the_strongest() {
    use throng_asset::decode::Skinning;
    let Some(mut r) = renderer() else { return };
    let mut asset = common::tube_asset(Encoding::Mat3x4F32);
    // Influences in the bake's order: descending weight per vertex.
    for p in &mut asset.primitives {
        let k = p.influences as usize;
        for (j, w) in p
            .joints
            .chunks_exact_mut(k)
            .zip(p.weights.chunks_exact_mut(k))
        {
            let mut pairs: Vec<(u16, u16)> = j.iter().copied().zip(w.iter().copied()).collect();
            pairs.sort_by_key(|p| std::cmp::Reverse(p.1));
            for (i, (jj, ww)) in pairs.into_iter().enumerate() {
                j[i] = jj;
                w[i] = ww;
            }
        }
    }
    let g = r.upload(&asset).expect("upload");
    // The same asset with every vertex's weight moved onto its strongest influence.
    let mut rigid = asset.clone();
    for p in &mut rigid.primitives {
        let k = p.influences as usize;
        for w in p.weights.chunks_exact_mut(k) {
            w.fill(0);
            w[0] = 65535;
        }
    }
    let transforms: Vec<_> = (0..3)
        .map(|i| at(Vec3::new(i as f32 * 1.6 - 1.6, 0.0, 0.0)))
        .collect();
    let records: Vec<InstanceRecord> = [6u32, 9, 12]
        .iter()
        .map(|&row| single_layer(row, 0.0, 0))
        .collect();
    let scene = throng_render::camera::crowd_bounds(&g.bounds, &transforms);
    let opts = RenderOptions {
        width: 192,
        height: 144,
        camera: Some(Camera::framing(&scene, 192.0 / 144.0)),
        ground: false,
        shadows: false,
        lod_influences: [1; 4],
        ..Default::default()
    };
    let one = common::texture(&mut r, &g, &transforms, &records, &opts);
    let every_influence = RenderOptions {
        lod_influences: [0; 4],
        ..opts
    };
    let all = common::texture(&mut r, &g, &transforms, &records, &every_influence);
    // Indices and colour from `asset`: `rigid` differs from it in the weights only.
    let skinned = common::cpu_skinned(&rigid, &records, Skinning::Linear);
    let meshes = common::instance_meshes(
        &asset,
        skinned.iter().map(|s| (&s.positions[..], &s.normals[..])),
        &transforms,
    );
    let reference = r.render_reference(&meshes, &opts).expect("reference");
    save(&one, "influences-1.png");
    save(&reference, "influences-1-reference.png");
    let total = one.pixels().len();
    let vs_reference = differ_count(&one, &reference);
    let vs_all = differ_count(&one, &all);
    eprintln!("1 influence: {vs_reference} pixels differ from the CPU, {vs_all} from 2 influences");
    // Same tolerance as the texture-vs-reference test: a few edge pixels.
    assert!(vs_reference <= total / 500, "{vs_reference}");
    // The rigid binding creases the bends: a visible change, if a small one at this size.
    assert!(vs_all > total / 1000, "{vs_all}");
}
