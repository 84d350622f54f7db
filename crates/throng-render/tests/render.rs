//! Headless renders of a hand-built bending tube crowd on whatever adapter wgpu finds. The
//! texture path must draw what the reference path draws from the CPU decoder's skinned vertices
//! (same camera, same shading), and the picture must show the crowd on its ground.
//! PNGs go to the target dir (CARGO_TARGET_TMPDIR) for people to look at.

mod common;

use common::{cpu_skinned, differ_count, instance_meshes, is_orange, renderer, save};

use glam::{Mat4, Vec3};
use throng_asset::decode::skin_vertices;
use throng_asset::Encoding;
use throng_render::gpu_types::{single_layer, MaterialUniform};
use throng_render::{
    InstanceRecord, InstanceTransform, PropMesh, Records, ReferenceMesh, RenderOptions, Skinning,
};

/// A 256 × 192 picture framed on the crowd's bounds, without the ground (sized from the
/// scene bounds, which the texture and reference paths compute differently).
fn framed_on(g: &throng_render::GpuAsset, transforms: &[InstanceTransform]) -> RenderOptions {
    let scene = throng_render::camera::crowd_bounds(&g.bounds, transforms);
    RenderOptions {
        width: 256,
        height: 192,
        camera: Some(throng_render::Camera::framing(&scene, 256.0 / 192.0)),
        ground: false,
        ..Default::default()
    }
}

fn crowd() -> (Vec<InstanceTransform>, Vec<InstanceRecord>) {
    let mut t = vec![];
    let mut r = vec![];
    for i in 0..5u32 {
        let x = (i as f32 - 2.0) * 1.4;
        t.push(InstanceTransform::from_mat4(
            &(Mat4::from_translation(Vec3::new(x, 0.0, -(i as f32 % 2.0) * 0.8))
                * Mat4::from_rotation_y(0.3 * i as f32)),
        ));
        // Frames 0, 4, 7 (+ 0.5), 11, 15 of the bend clip (rows 1..=16).
        let row = 1 + [0, 4, 7, 11, 15][i as usize];
        r.push(single_layer(row, if i == 2 { 0.5 } else { 0.0 }, 0));
    }
    (t, r)
}

#[test]
fn texture_path_draws_what_the_reference_path_draws() {
    let Some(mut r) = renderer() else { return };
    eprintln!("adapter: {}", r.adapter());
    let (transforms, records) = crowd();
    let opts = RenderOptions {
        width: 256,
        height: 192,
        ..Default::default()
    };
    for (encoding, skinning) in [
        (Encoding::Mat3x4F32, Skinning::Linear),
        (Encoding::QuatSnorm16, Skinning::DualQuat),
    ] {
        let (asset, g) = common::uploaded_tube(&r, encoding);
        let opts = RenderOptions { skinning, ..opts };
        let shown = common::texture(&mut r, &g, &transforms, &records, &opts);
        save(
            &shown,
            &format!("tube-{}-{}.png", encoding.as_str(), skinning.as_str()),
        );
        let total = (opts.width * opts.height) as usize;
        let grey = shown
            .pixels()
            .filter(|p| (p[0] as i32 - p[2] as i32).abs() < 12 && p[0] > 40)
            .count();
        assert!(grey > total / 5, "ground not visible ({grey} grey pixels)");

        // The same crowd skinned on the CPU, one reference mesh per instance.
        let skinned = cpu_skinned(&asset, &records, skinning);
        let meshes = instance_meshes(
            &asset,
            skinned.iter().map(|s| (&s.positions[..], &s.normals[..])),
            &transforms,
        );
        // The reference path frames the camera from the skinned vertices, the texture path from
        // the clip bounds: give both the same camera.
        let aspect = opts.width as f32 / opts.height as f32;
        let scene = throng_render::camera::crowd_bounds(&g.bounds, &transforms);
        let cam = throng_render::Camera::framing(&scene, aspect);
        // The ground is sized from the scene bounds, which differ between the two paths too.
        let opts_cam = RenderOptions {
            camera: Some(cam),
            ground: false,
            ..opts
        };
        let tex = common::texture(&mut r, &g, &transforms, &records, &opts_cam);
        let reference = r
            .render_reference(&meshes, &opts_cam)
            .expect("reference render");
        save(
            &reference,
            &format!(
                "tube-{}-{}-reference.png",
                encoding.as_str(),
                skinning.as_str()
            ),
        );

        let orange = tex.pixels().filter(|p| is_orange(p)).count();
        assert!(orange > total / 50, "only {orange} tube pixels of {total}");
        let bg = tex.pixels().filter(|p| p[2] > p[0] + 30).count();
        assert!(bg > total / 10, "no sky/background visible ({bg} pixels)");
        // Pixels that differ by more than 8/255 in any channel: only along a few edges.
        let differ = differ_count(&tex, &reference);
        eprintln!(
            "{} {}: {orange} tube pixels, {differ} of {total} differ from the reference path",
            encoding.as_str(),
            skinning.as_str()
        );
        assert!(
            differ <= total / 500,
            "{differ} pixels differ from the reference path"
        );
    }
}

#[test]
fn empty_crowd_draws_only_the_ground_and_mismatched_inputs_are_errors() {
    let Some(mut r) = renderer() else { return };
    let (_, g) = common::uploaded_tube(&r, Encoding::QuatF32);
    let opts = RenderOptions {
        width: 64,
        height: 64,
        ..Default::default()
    };
    let img = common::texture(&mut r, &g, &[], &[], &opts);
    assert!(!img.pixels().any(is_orange));
    let err = r
        .render_texture(&g, &[InstanceTransform::IDENTITY], &[], &opts)
        .expect_err("one transform, no record");
    assert!(err.to_string().contains("instance records"), "{err}");
    let bad = RenderOptions { width: 0, ..opts };
    assert!(r.render_texture(&g, &[], &[], &bad).is_err());
}

/// A base colour texture with a texture transform, drawn by both paths: same pixels, and both
/// checker colours visible.
#[test]
fn textured_material_draws_the_same_on_both_paths() {
    let Some(mut r) = renderer() else { return };
    let mut asset = common::tube_asset(Encoding::Mat4F32);
    // UVs around and along the tube; a 2×2 blue/yellow checker repeated twice around.
    let prim = &mut asset.primitives[0];
    let uvs: Vec<glam::Vec2> = prim
        .positions
        .iter()
        .map(|p| {
            glam::Vec2::new(
                (p.z.atan2(p.x) / std::f32::consts::TAU).rem_euclid(1.0),
                p.y / 2.0,
            )
        })
        .collect();
    prim.uv0 = Some(uvs.clone());
    // 2×2 cells of 8×8 texels, so linear filtering keeps the cells' colours pure inside.
    let mut checker = throng_render::image::RgbaImage::new(16, 16);
    for (x, y, px) in checker.enumerate_pixels_mut() {
        *px = if (x / 8 + y / 8) % 2 == 0 {
            throng_render::image::Rgba([30, 60, 230, 255])
        } else {
            throng_render::image::Rgba([240, 220, 20, 255])
        };
    }
    let mut png = Vec::new();
    checker
        .write_to(
            &mut std::io::Cursor::new(&mut png),
            throng_render::image::ImageFormat::Png,
        )
        .expect("png");
    asset.images.push(throng_asset::BakedImage {
        mime_type: "image/png".into(),
        bytes: png.clone(),
    });
    asset.materials[0].base_color_factor = [1.0; 4];
    asset.materials[0].base_color_texture = Some(0);
    asset.materials[0].texture_transform.scale = [2.0, 3.0];
    let g = r.upload(&asset).expect("upload");
    let (transforms, records) = crowd();
    let opts = framed_on(&g, &transforms);
    let tex = common::texture(&mut r, &g, &transforms, &records, &opts);
    save(&tex, "tube-textured.png");
    let skinned = cpu_skinned(&asset, &records, Skinning::Linear);
    let meshes: Vec<ReferenceMesh> = instance_meshes(
        &asset,
        skinned.iter().map(|s| (&s.positions[..], &s.normals[..])),
        &transforms,
    )
    .into_iter()
    .map(|m| ReferenceMesh {
        mesh: PropMesh {
            uvs: Some(&uvs),
            material: MaterialUniform::new([1.0; 4], &asset.materials[0].texture_transform),
            texture: Some(&png),
            ..m.mesh
        },
        ..m
    })
    .collect();
    let reference = r
        .render_reference(&meshes, &opts)
        .expect("reference render");
    let total = (opts.width * opts.height) as usize;
    let differ = differ_count(&tex, &reference);
    assert!(
        differ <= total / 500,
        "{differ} pixels differ from the reference path"
    );
    let blue = tex
        .pixels()
        .filter(|p| p[2] > 120 && p[2] as i32 > p[0] as i32 + 60)
        .count();
    let yellow = tex
        .pixels()
        .filter(|p| p[0] > 120 && p[1] > 110 && p[2] < 60)
        .count();
    eprintln!("textured: {blue} blue, {yellow} yellow pixels, {differ} differ");
    assert!(
        blue > 150 && yellow > 150,
        "checker not visible: {blue} blue, {yellow} yellow"
    );
}

/// GPU culling: a long row of tubes seen by a camera framed on the first few. The visible set
/// equals a CPU frustum test of the same boxes, and the culled picture equals the unculled one.
#[test]
fn gpu_culling_keeps_exactly_the_instances_in_view() {
    let Some(mut r) = renderer() else { return };
    let (asset, g) = common::uploaded_tube(&r, Encoding::QuatSnorm16);
    let n = 40u32;
    let transforms: Vec<InstanceTransform> = (0..n)
        .map(|i| {
            InstanceTransform::from_mat4(&Mat4::from_translation(Vec3::new(
                i as f32 * 3.0,
                0.0,
                -((i % 3) as f32),
            )))
        })
        .collect();
    let records: Vec<_> = (0..n).map(|i| single_layer(1 + i % 16, 0.25, 0)).collect();
    // Frame the first 4 instances only.
    let first = throng_render::camera::crowd_bounds(&g.bounds, &transforms[..4]);
    let cam = throng_render::Camera::framing(&first, 1.0);
    let opts = RenderOptions {
        width: 160,
        height: 160,
        camera: Some(cam),
        ..Default::default()
    };
    let play = throng_render::Playback::Records(Records::Cpu(&records));
    let visible = r
        .visible_instances(&g, &transforms, play, &opts)
        .expect("cull");
    // CPU: each instance's rows' bounds moved by its transform, against the same planes.
    let planes = throng_render::camera::frustum_planes(&cam.view_proj(1.0));
    let want: Vec<u32> = (0..n)
        .filter(|&i| {
            let b = throng_render::camera::crowd_bounds(
                &common::culling_box(&asset, &records[i as usize]),
                &transforms[i as usize..i as usize + 1],
            );
            let (c, e) = ((b.min + b.max) * 0.5, (b.max - b.min) * 0.5);
            planes
                .iter()
                .all(|p| p.truncate().dot(c) + p.truncate().abs().dot(e) + p.w >= 0.0)
        })
        .collect();
    eprintln!("visible: {visible:?}");
    assert_eq!(visible, want);
    assert!(
        visible.len() >= 4 && visible.len() < n as usize / 2,
        "{visible:?}"
    );
    let culled = common::texture(&mut r, &g, &transforms, &records, &opts);
    let unculled = RenderOptions {
        cull: false,
        ..opts
    };
    let all = common::texture(&mut r, &g, &transforms, &records, &unculled);
    save(&culled, "tube-culled.png");
    assert!(culled.pixels().any(is_orange));
    assert_eq!(culled, all, "culling changed the picture");
}

/// Adds a VAT to every primitive of `asset`: the CPU decoder's skinned positions and normals at
/// every frame-table row, `width` texels per row, array layers of `rows_per_layer` rows.
fn add_vat(
    asset: &mut throng_asset::BakedAsset,
    encoding: throng_asset::VatEncoding,
    width: u32,
    rows_per_layer: u32,
) {
    use throng_asset::{Vat, VatEncoding};
    let rows = asset.rows();
    for pi in 0..asset.primitives.len() {
        let v = asset.primitives[pi].vertex_count() as u32;
        let mut frames = vec![];
        for f in 0..rows {
            let rec = if f == 0 {
                InstanceRecord::default()
            } else {
                let clip = asset
                    .clips
                    .iter()
                    .position(|c| f >= c.first_row && f < c.first_row + c.frames)
                    .unwrap_or(0);
                single_layer(f, 0.0, clip as u32)
            };
            frames.push(skin_vertices(asset, pi, &rec.layers, Skinning::Linear).expect("cpu skin"));
        }
        let mut b = throng_asset::Aabb::EMPTY;
        frames
            .iter()
            .flat_map(|f| &f.positions)
            .for_each(|p| b.extend(*p));
        let mut vat = Vat {
            encoding,
            width,
            vertices: v,
            rows,
            rows_per_layer,
            min: b.min,
            max: b.max,
            positions: vec![],
            normals: vec![],
        };
        let texels = (vat.texture_rows() * width) as usize;
        vat.positions = vec![0; texels * encoding.bytes_per_texel() as usize];
        vat.normals = vec![0; texels * 2];
        for (f, sk) in frames.iter().enumerate() {
            for vi in 0..v {
                let (x, y) = vat.texel_of(vi, f as u32);
                let t = (y * width + x) as usize;
                let p = sk.positions[vi as usize];
                let bytes: Vec<u8> = match encoding {
                    VatEncoding::F32 => p
                        .extend(1.0)
                        .to_array()
                        .iter()
                        .flat_map(|c| c.to_le_bytes())
                        .collect(),
                    VatEncoding::F16 => p
                        .extend(1.0)
                        .to_array()
                        .iter()
                        .flat_map(|c| half::f16::from_f32(*c).to_le_bytes())
                        .collect(),
                    VatEncoding::Unorm16 => {
                        let q = ((p - b.min) / (b.max - b.min) * 65535.0).round();
                        [q.x, q.y, q.z, 0.0]
                            .iter()
                            .flat_map(|c| (*c as u16).to_le_bytes())
                            .collect()
                    }
                };
                let bpt = encoding.bytes_per_texel() as usize;
                vat.positions[t * bpt..(t + 1) * bpt].copy_from_slice(&bytes);
                let q = throng_asset::vat::oct_encode(sk.normals[vi as usize]);
                vat.normals[2 * t] = q[0];
                vat.normals[2 * t + 1] = q[1];
            }
        }
        asset.primitives[pi].vat = Some(vat);
    }
}

/// The VAT path draws what the reference path draws from throng-asset's VAT decoder, for every
/// VAT encoding, with VATs spread over several texture rows per frame and several array layers.
#[test]
fn vat_path_draws_what_the_vat_decoder_gives() {
    let Some(mut r) = renderer() else { return };
    let (transforms, records) = crowd();
    for encoding in throng_asset::VatEncoding::ALL {
        let mut asset = common::tube_asset(Encoding::QuatF32);
        add_vat(&mut asset, encoding, 37, 64);
        let g = r.upload(&asset).expect("upload");
        let opts = RenderOptions {
            path: throng_render::SkinPath::Vat,
            ..framed_on(&g, &transforms)
        };
        let img = common::texture(&mut r, &g, &transforms, &records, &opts);
        save(&img, &format!("tube-vat-{}.png", encoding.as_str()));
        let decoded: Vec<_> = records
            .iter()
            .map(|rec| throng_asset::vat::vat_vertices(&asset, 0, &rec.layers).expect("vat decode"))
            .collect();
        let meshes = instance_meshes(
            &asset,
            decoded.iter().map(|(p, n)| (&p[..], &n[..])),
            &transforms,
        );
        let reference = r.render_reference(&meshes, &opts).expect("reference");
        let total = (opts.width * opts.height) as usize;
        let differ = differ_count(&img, &reference);
        let orange = img.pixels().filter(|p| is_orange(p)).count();
        eprintln!(
            "vat {}: {orange} tube pixels, {differ} differ from the decoder",
            encoding.as_str()
        );
        assert!(orange > total / 50, "only {orange} tube pixels");
        assert!(
            differ <= total / 500,
            "{differ} pixels differ from the VAT decoder's vertices"
        );
    }
}

/// Occlusion culling on the default backend (`common::occlusion_scenario`; `occlusion_gl.rs`
/// runs it on GL).
#[test]
fn occlusion_culling_draws_fewer_instances_and_the_same_picture() {
    let Some(mut r) = renderer() else { return };
    common::occlusion_scenario(&mut r, "");
}
