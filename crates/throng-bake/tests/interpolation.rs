//! Catmull-Rom rows in the bake (docs/design.md §3 "Row interpolation"), measured by `verify`
//! (reference CPU skinning of the source at and halfway between the samples, through the CPU
//! decoder's row taps) on real characters.

use throng_asset::RowInterpolation;
use throng_bake::verify::verify;
use throng_bake::{bake, BakeOptions, MaxError, Sampling};

fn import(name: &str) -> Option<throng_anim::Model> {
    let p = throng_testdata::asset(name)?;
    Some(throng_gltf::import(&p).unwrap_or_else(|e| panic!("{name}: {e}")))
}

/// At one uniform rate below Fox's 24 keys per second, Catmull-Rom rows cut the error
/// between frames against linear rows of the same frames (measured: 0.58–0.69× at 20 fps), the
/// looping clips wrap around their seams, and the file keeps what the bake chose.
#[test]
fn fox_at_20_fps_errs_less_between_frames_with_catmull_rom_rows() {
    let Some(model) = import("Fox.glb") else {
        return;
    };
    let bake_with = |interpolation| {
        let o = BakeOptions {
            source_name: "Fox.glb".into(),
            sampling: Sampling::Fixed(20.0),
            interpolation,
            ..Default::default()
        };
        bake(&model, &o).expect("bake").0
    };
    let linear = bake_with(RowInterpolation::Linear);
    let cubic = bake_with(RowInterpolation::CatmullRom);
    for c in &cubic.clips {
        assert_eq!(c.interpolation, RowInterpolation::CatmullRom, "{}", c.name);
        // Fox's three clips end where they start.
        assert!(c.periodic, "{} is not marked periodic", c.name);
    }
    let bytes = throng_asset::to_glb_bytes(&cubic).expect("write");
    let back = throng_asset::from_glb_bytes(&bytes, "fox-cubic.glb").expect("read");
    assert_eq!(back.clips, cubic.clips);
    let (lin, cub) = (
        verify(&linear, &model).expect("verify"),
        verify(&cubic, &model).expect("verify"),
    );
    for (l, c) in lin.iter().zip(&cub) {
        println!(
            "{:8} between frames: linear {:.3e}, catmull-rom {:.3e} ({:.2}×); at frames {:.2e} / {:.2e}",
            l.clip,
            l.max_rel_mid,
            c.max_rel_mid,
            c.max_rel_mid / l.max_rel_mid,
            l.max_rel_samples,
            c.max_rel_samples
        );
        // The same frames: the same error at them.
        assert_eq!(l.max_rel_samples, c.max_rel_samples, "{}", l.clip);
        assert!(
            c.max_rel_mid < 0.8 * l.max_rel_mid,
            "{}: catmull-rom {:.3e} against linear {:.3e}",
            l.clip,
            c.max_rel_mid,
            l.max_rel_mid
        );
    }
}

/// Under an error budget each clip takes the fewer rows of the two interpolants; whichever it
/// takes, `verify` finds it within the budget at and between the samples.
#[test]
fn a_budgeted_bake_with_catmull_rom_keeps_the_budget_and_takes_cubic_rows_where_fewer() {
    let Some(model) = import("Quaternius_Enemy.glb") else {
        return;
    };
    let budget = 1e-3;
    let o = BakeOptions {
        source_name: "Quaternius_Enemy.glb".into(),
        sampling: Sampling::MaxError(MaxError::Relative(budget)),
        interpolation: RowInterpolation::CatmullRom,
        ..Default::default()
    };
    let (asset, _) = bake(&model, &o).expect("bake");
    let linear = {
        let o = BakeOptions {
            interpolation: RowInterpolation::Linear,
            ..o.clone()
        };
        bake(&model, &o).expect("bake").0
    };
    let cubic: Vec<&str> = asset
        .clips
        .iter()
        .filter(|c| c.interpolation == RowInterpolation::CatmullRom)
        .map(|c| c.name.as_str())
        .collect();
    println!("cubic clips: {cubic:?}");
    assert!(!cubic.is_empty(), "no clip took cubic rows");
    for (c, l) in asset.clips.iter().zip(&linear.clips) {
        assert!(
            c.frames <= l.frames,
            "{}: {} > {} rows",
            c.name,
            c.frames,
            l.frames
        );
        if c.interpolation == RowInterpolation::CatmullRom {
            assert!(c.times.is_none(), "{}: cubic rows on listed frames", c.name);
        }
    }
    for f in verify(&asset, &model).expect("verify") {
        let worst = f.max_rel_samples.max(f.max_rel_mid);
        assert!(worst <= budget, "{}: {worst:.3e} > {budget}", f.clip);
    }
}

/// Polynomial pieces under `--max-error 1e-4`: Fox and CesiumMan keep the budget with less than
/// half the rows of linear segments (measured: 551 → 251 and 245 → 102), `verify` finds every
/// clip within it at and between the samples, and the file keeps each clip's degree.
#[test]
fn polynomial_pieces_meet_1e_4_with_half_the_rows() {
    for name in ["Fox.glb", "CesiumMan.glb"] {
        let Some(model) = import(name) else {
            return;
        };
        let budget = 1e-4;
        let bake_with = |interpolation| {
            let o = BakeOptions {
                source_name: name.into(),
                sampling: Sampling::MaxError(MaxError::Relative(budget)),
                interpolation,
                ..Default::default()
            };
            bake(&model, &o).expect("bake").0
        };
        let (linear, pieces) = (
            bake_with(RowInterpolation::Linear),
            bake_with(RowInterpolation::Pieces),
        );
        let rows = |a: &throng_asset::BakedAsset| a.clips.iter().map(|c| c.frames).sum::<u32>();
        println!(
            "{name}: {} rows linear, {} with pieces",
            rows(&linear),
            rows(&pieces)
        );
        assert!(
            2 * rows(&pieces) <= rows(&linear),
            "{name}: {} rows with pieces against {} linear",
            rows(&pieces),
            rows(&linear)
        );
        assert!(pieces
            .clips
            .iter()
            .any(|c| c.interpolation == RowInterpolation::Pieces && matches!(c.degree, 2 | 3)));
        let bytes = throng_asset::to_glb_bytes(&pieces).expect("write");
        let back = throng_asset::from_glb_bytes(&bytes, "pieces.glb").expect("read");
        assert_eq!(back.clips, pieces.clips);
        for f in verify(&pieces, &model).expect("verify") {
            let worst = f.max_rel_samples.max(f.max_rel_mid);
            println!("{name} {:8} {} {:.3e}", f.clip, f.interpolation, worst);
            assert!(worst <= budget, "{name} {}: {worst:.3e} > {budget}", f.clip);
        }
    }
}
