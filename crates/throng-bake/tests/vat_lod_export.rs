//! VATs, LODs and exports (docs/design.md §3 "VAT", "Meshes", "Exports") on real assets and the
//! built-in character, checked against independent computations: reference LBS of the source
//! (throng-anim, every influence) for VAT fidelity, index-buffer rules for LODs, and the `ktx2`
//! crate's reader for the KTX2 writer.

use throng_asset::{BakedAsset, VatEncoding};
use throng_bake::verify::verify;
use throng_bake::{bake, BakeOptions};

fn import(name: &str) -> Option<throng_anim::Model> {
    let p = throng_testdata::asset(name)?;
    Some(throng_gltf::import(&p).unwrap_or_else(|e| panic!("{name}: {e}")))
}

fn demo() -> throng_anim::Model {
    let bytes = throng_demo::demo_glb();
    throng_gltf::import_slice(&bytes, None, "demo.glb").expect("demo imports")
}

/// The models every test runs on: Fox, CesiumMan, Quaternius_Enemy (when present) and the
/// built-in character.
fn models() -> Vec<(String, throng_anim::Model)> {
    let mut out = vec![("demo.glb".to_string(), demo())];
    for n in ["Fox.glb", "CesiumMan.glb", "Quaternius_Enemy.glb"] {
        if let Some(m) = import(n) {
            out.push((n.to_string(), m));
        }
    }
    out
}

fn opts(name: &str, vat: Option<VatEncoding>, lods: &[f32]) -> BakeOptions {
    BakeOptions {
        source_name: name.into(),
        vat,
        lods: lods.to_vec(),
        ..Default::default()
    }
}

/// Worst VAT error (relative to the bounding diagonal) at sample and mid-sample times over the
/// clips, from `verify`'s `vat-*` rows.
fn vat_error(asset: &BakedAsset, model: &throng_anim::Model, tag: &str) -> (f64, f64) {
    let rows = verify(asset, model).expect("verify");
    let vat: Vec<_> = rows.iter().filter(|r| r.encoding == tag).collect();
    assert_eq!(vat.len(), asset.clips.len(), "one {tag} row per clip");
    let s = vat.iter().map(|r| r.max_rel_samples).fold(0.0, f64::max);
    let m = vat.iter().map(|r| r.max_rel_mid).fold(0.0, f64::max);
    (s, m)
}

/// f32 VATs reproduce reference skinning within 1e-5 of the diagonal at sample times (the gap is
/// the f32 evaluation order and the K-influence cut, which these assets do not exceed); f16 and
/// unorm16 stay within their storage precision: measured worst 3.5e-4 (f16, spacing 2^-11 of
/// the largest coordinate) and 1.1e-5 (unorm16, half a step of 1/65535 of the box per axis) on
/// these four assets; the bars leave under 2× margin.
#[test]
fn vat_matches_reference_skinning() {
    for (name, model) in models() {
        let (a32, _) = bake(&model, &opts(&name, Some(VatEncoding::F32), &[])).expect("bake");
        let (s, m) = vat_error(&a32, &model, "vat-f32");
        println!("{name}: vat-f32 max {s:.2e} at samples, {m:.2e} mid");
        assert!(s <= 1e-5, "{name}: vat-f32 {s:.2e} at sample times");
        // Mid-sample error is the interpolation error, as for the bone texture.
        let bone = verify(&a32, &model).expect("verify");
        let bone_mid = bone
            .iter()
            .filter(|r| !r.encoding.starts_with("vat-"))
            .map(|r| r.max_rel_mid)
            .fold(0.0, f64::max);
        assert!(
            m <= bone_mid * 1.5 + 1e-4,
            "{name}: mid {m} vs bone {bone_mid}"
        );

        for (enc, tag, bar) in [
            (VatEncoding::F16, "vat-f16", 6e-4),
            (VatEncoding::Unorm16, "vat-unorm16", 2e-5),
        ] {
            let (a, _) = bake(&model, &opts(&name, Some(enc), &[])).expect("bake");
            let (s, _) = vat_error(&a, &model, tag);
            println!("{name}: {tag} max {s:.2e} at samples");
            assert!(s <= bar, "{name}: {tag} {s:.2e} > {bar:e}");
        }
    }
}

/// The layout rule: vertex v of frame-table row f is texel (v mod W, f·R + v div W), with rows
/// spilling into array layers; a narrow max texture size forces R > 1 and several layers, and the
/// decoded VAT still matches the wide one exactly (same f32 values, other places).
#[test]
fn vat_layout_with_several_texture_rows_per_frame() {
    let model = demo();
    let (wide, _) = bake(&model, &opts("demo", Some(VatEncoding::F32), &[])).expect("bake");
    let mut o = opts("demo", Some(VatEncoding::F32), &[]);
    o.encoding = throng_asset::Encoding::QuatSnorm16;
    o.max_texture_size = 64;
    let narrow = match bake(&model, &o) {
        Ok((a, _)) => a,
        // The bone texture itself may not fit 64 texels; then the layout is not testable here.
        Err(throng_bake::BakeError::TextureTooWide { .. }) => return,
        Err(e) => panic!("{e}"),
    };
    for (pw, pn) in wide.primitives.iter().zip(&narrow.primitives) {
        let (vw, vn) = (pw.vat.as_ref().expect("vat"), pn.vat.as_ref().expect("vat"));
        assert_eq!(vn.width, 64.min(vn.vertices));
        assert_eq!(vn.rows_per_frame(), vn.vertices.div_ceil(vn.width));
        assert_eq!(vn.layers(), vn.texture_rows().div_ceil(64));
        for f in [0, vw.rows / 2, vw.rows - 1] {
            for v in (0..vw.vertices).step_by(7) {
                let (x, y) = vn.texel_of(v, f);
                assert_eq!((x, y), (v % 64, f * vn.rows_per_frame() + v / 64));
                let a = throng_asset::vat::fetch_position(vw, 0, v, f).expect("fetch");
                let b = throng_asset::vat::fetch_position(vn, 0, v, f).expect("fetch");
                assert_eq!(a, b);
            }
        }
    }
}

/// VATs and LODs survive the file round trip bit for bit.
#[test]
fn vat_and_lods_round_trip_through_the_file() {
    let model = demo();
    let (asset, _) = bake(
        &model,
        &opts("demo", Some(VatEncoding::Unorm16), &[0.5, 0.25]),
    )
    .expect("bake");
    let bytes = throng_asset::to_glb_bytes(&asset).expect("write");
    let back = throng_asset::from_glb_bytes(&bytes, "demo").expect("read");
    assert_eq!(back, asset);
    assert!(back
        .primitives
        .iter()
        .all(|p| p.vat.is_some() && p.lods.len() == 2));
}

/// LOD index buffers: valid triangle lists into the same vertices, fewer triangles than LOD 0,
/// near the asked ratio (meshoptimizer may stop above it on tight topology; within 2× of the
/// target or 12 triangles), and non-increasing with the ratio.
#[test]
fn lods_are_valid_and_near_their_ratio() {
    let ratios = [0.5, 0.25, 0.1];
    for (name, model) in models() {
        let (asset, _) = bake(&model, &opts(&name, None, &ratios)).expect("bake");
        for (pi, p) in asset.primitives.iter().enumerate() {
            let v = p.vertex_count() as u32;
            let t0 = p.indices.len() / 3;
            assert_eq!(p.lods.len(), ratios.len());
            let mut prev = t0;
            for l in &p.lods {
                let t = l.indices.len() / 3;
                println!(
                    "{name} p{pi}: ratio {} → {t} of {t0} triangles, error {:.2e}",
                    l.ratio, l.error
                );
                assert_eq!(l.indices.len() % 3, 0);
                assert!(l.indices.iter().all(|&i| i < v), "{name} p{pi}: index ≥ V");
                assert!(l.error.is_finite() && l.error >= 0.0);
                if t0 >= 24 {
                    assert!(t < t0, "{name} p{pi}: LOD {} not simplified", l.ratio);
                    let target = t0 as f32 * l.ratio;
                    assert!(
                        (t as f32) <= (2.0 * target).max(target + 12.0),
                        "{name} p{pi}: {t} triangles for ratio {} of {t0}",
                        l.ratio
                    );
                }
                assert!(t <= prev);
                prev = t;
            }
        }
    }
}

#[test]
fn bad_lod_ratio_is_an_error() {
    let err = bake(&demo(), &opts("demo", None, &[1.5])).expect_err("ratio 1.5");
    assert!(err.to_string().contains("LOD ratio"), "{err}");
    // Each LOD must be coarser than the one before: culling picks the coarsest whose error fits.
    for ratios in [[0.5, 0.7], [0.5, 0.5]] {
        let err = bake(&demo(), &opts("demo", None, &ratios)).expect_err("not decreasing");
        assert!(
            err.to_string().contains("must decrease"),
            "{ratios:?}: {err}"
        );
    }
}

/// A ratio asking for fewer triangles than the simplifiers can keep (Fox at 0.01: 5 of 576)
/// still gives a coarse LOD, never the whole mesh (the sloppy simplifier's empty result was
/// once taken as "keep LOD 0"); a LOD far from its ratio is a warning naming the primitive.
#[test]
fn a_tiny_lod_ratio_still_simplifies() {
    let Some(model) = import("Fox.glb") else {
        return;
    };
    let (asset, report) = bake(&model, &opts("Fox.glb", None, &[0.01])).expect("bake");
    let p = &asset.primitives[0];
    let (t0, t) = (p.indices.len() / 3, p.lods[0].indices.len() / 3);
    println!(
        "Fox at 0.01: {t} of {t0} triangles; warnings {:?}",
        report.warnings
    );
    assert!(t > 0 && t <= 24, "{t} of {t0} triangles at ratio 0.01");
    let whole = throng_asset::Lod {
        ratio: 0.1,
        indices: p.indices.clone(),
        error: 0.0,
    };
    let w = throng_bake::lod::shortfalls(3, p.indices.len(), &[whole]);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].starts_with("primitive 3: LOD ratio 0.1"), "{}", w[0]);
}

/// Every exported KTX2 reads back with the `ktx2` crate: format, dimensions, layers, the basic
/// DFD, and level bytes equal to the asset's texture (zero padding after it).
#[test]
fn ktx2_exports_read_back() {
    let model = demo();
    let mut o = opts("demo", Some(VatEncoding::F16), &[]);
    // Force array layers on the bone texture and VAT.
    o.max_texture_size = 64;
    o.encoding = throng_asset::Encoding::QuatSnorm16;
    let (asset, _) = match bake(&model, &o) {
        Ok(x) => x,
        Err(throng_bake::BakeError::TextureTooWide { .. }) => {
            o.max_texture_size = 8192;
            bake(&model, &o).expect("bake")
        }
        Err(e) => panic!("{e}"),
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let manifest = throng_bake::export::export(&asset, dir.path()).expect("export");
    let n_vat = asset.primitives.len() * 2;
    assert_eq!(manifest.textures.len(), 1 + n_vat);
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("manifest.json")).expect("manifest"))
            .expect("json");
    assert_eq!(
        json["textures"].as_array().map(|a| a.len()),
        Some(1 + n_vat)
    );
    // Every clip's frame times, listed or uniform, as the time rules place its rows.
    assert_eq!(manifest.clips.len(), asset.clips.len());
    for (m, c) in manifest.clips.iter().zip(&asset.clips) {
        assert_eq!(
            (m.first_row, m.frames, m.uniform),
            (c.first_row, c.frames, c.times.is_none())
        );
        let want: Vec<f64> = (0..c.frames).map(|k| c.frame_time(k)).collect();
        assert_eq!(m.frame_times, want, "{}", c.name);
        assert_eq!(
            json["clips"][0]["frame_times"].as_array().map(|a| a.len()),
            Some(manifest.clips[0].frames as usize)
        );
    }

    let mut expected: Vec<(&[u8], ktx2::Format)> =
        vec![(&asset.bone_texture.data, ktx2::Format::R16G16B16A16_SINT)];
    for p in &asset.primitives {
        let v = p.vat.as_ref().expect("vat");
        expected.push((&v.positions, ktx2::Format::R16G16B16A16_SFLOAT));
        expected.push((bytemuck::cast_slice(&v.normals), ktx2::Format::R16G16_SINT));
    }
    for (entry, (data, format)) in manifest.textures.iter().zip(expected) {
        let bytes = std::fs::read(dir.path().join(&entry.file)).expect("ktx2");
        let r = ktx2::Reader::new(&bytes[..]).unwrap_or_else(|e| panic!("{}: {e:?}", entry.file));
        let h = r.header();
        assert_eq!(h.format, Some(format), "{}", entry.file);
        assert_eq!(h.pixel_width, entry.width);
        assert_eq!(h.pixel_height, entry.height);
        assert_eq!(h.layer_count.max(1), entry.layers);
        assert_eq!((h.face_count, h.level_count, h.pixel_depth), (1, 1, 0));
        assert!(h.supercompression_scheme.is_none());
        let bpt = if format == ktx2::Format::R16G16_SINT {
            4
        } else {
            8
        };
        assert_eq!(h.type_size, 2);
        // The DFD equals the one the ktx2 crate generates for the format (independent table).
        let dfd = r.basic_dfd().expect("basic DFD");
        let (want, type_size) = ktx2::dfd::Basic::from_format(format).expect("format");
        assert_eq!(*dfd, want, "{}", entry.file);
        assert_eq!(h.type_size, type_size);
        assert_eq!(dfd.bytes_planes[0] as usize, bpt);
        let levels: Vec<_> = r.levels().collect();
        assert_eq!(levels.len(), 1);
        let level = levels[0].data;
        let full = (entry.width * entry.height * entry.layers) as usize * bpt;
        assert_eq!(level.len(), full, "{}", entry.file);
        assert_eq!(&level[..data.len()], data, "{}", entry.file);
        assert!(level[data.len()..].iter().all(|&b| b == 0));
        assert_eq!(r.writer().map(|w| w.starts_with("throng")), Some(true));
        let png = image::open(dir.path().join(&entry.preview)).expect("preview");
        assert_eq!(png.width(), entry.width);
    }
}

/// The anchor texture exports as RGBA32Float with the asset's anchor floats, and the bone
/// texture of an f32 encoding as RGBA32Float; both read back with `ktx2`.
#[test]
fn anchor_and_f32_bone_textures_export() {
    let Some(model) = import("Fox.glb") else {
        return;
    };
    let node = model.nodes[model.skins[0].joints[3]].display_name(model.skins[0].joints[3]);
    let o = BakeOptions {
        encoding: throng_asset::Encoding::Mat3x4F32,
        anchors: throng_bake::AnchorSelection::Nodes(vec![node]),
        ..opts("Fox.glb", None, &[])
    };
    let (asset, _) = bake(&model, &o).expect("bake");
    let anchors = asset.anchors.as_ref().expect("anchor texture");
    let dir = tempfile::tempdir().expect("tempdir");
    let manifest = throng_bake::export::export(&asset, dir.path()).expect("export");
    assert_eq!(manifest.textures.len(), 2);
    let want: [&[u8]; 2] = [
        &asset.bone_texture.data,
        bytemuck::cast_slice(&anchors.data),
    ];
    for (entry, data) in manifest.textures.iter().zip(want) {
        let bytes = std::fs::read(dir.path().join(&entry.file)).expect("ktx2");
        let r = ktx2::Reader::new(&bytes[..]).expect("ktx2 parses");
        let h = r.header();
        assert_eq!(h.format, Some(ktx2::Format::R32G32B32A32_SFLOAT));
        assert_eq!(h.type_size, 4);
        assert_eq!((h.pixel_width, h.pixel_height), (entry.width, asset.rows()));
        assert_eq!(h.layer_count, 0);
        let (dfd, _) =
            ktx2::dfd::Basic::from_format(ktx2::Format::R32G32B32A32_SFLOAT).expect("format");
        assert_eq!(r.basic_dfd(), Some(&dfd));
        assert_eq!(r.levels().next().map(|l| l.data), Some(data));
    }
    assert_eq!(manifest.textures[1].width, 3);
}

/// The manifest describes the ranges of `quat-snorm16` only where the texture is
/// `quat-snorm16`: a `mat4-f32` export stores plain floats.
#[test]
fn manifest_names_snorm16_ranges_only_for_quat_snorm16() {
    let model = demo();
    for (encoding, ranges) in [
        (throng_asset::Encoding::Mat4F32, false),
        (throng_asset::Encoding::QuatSnorm16, true),
    ] {
        let mut o = opts("demo", None, &[]);
        o.encoding = encoding;
        let (asset, _) = bake(&model, &o).expect("bake");
        let dir = tempfile::tempdir().expect("tempdir");
        let m = throng_bake::export::export(&asset, dir.path()).expect("export");
        let holds = &m.textures[0].holds;
        assert_eq!(holds.contains("snorm16 ×"), ranges, "{encoding}: {holds}");
        assert!(holds.contains(encoding.as_str()), "{holds}");
    }
}
