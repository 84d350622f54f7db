//! The row interpolants measured against each other at equal frames (docs/design.md §3 "Row
//! interpolation"): per shared keyframed character and clip, the largest vertex error between
//! uniform samples, as a fraction of the bounding diagonal, for linear and Catmull-Rom rows at
//! the same rates. `cargo test --release -p throng-bake --test interpolants -- --ignored
//! --nocapture` prints the table docs/benchmarks.md keeps.

use throng_bake::budget::{Clusters, Job, Posers, RECHECK_STEPS};
use throng_bake::frames::{clip_duration, frame_count};
use throng_bake::uniform_budget::{check, interpolation_flags, is_periodic};
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
        }
    }
}
