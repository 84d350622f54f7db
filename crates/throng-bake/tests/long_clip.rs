//! Clip lengths and rates at throng's limits (issue 52). A source whose keys end at
//! `MAX_CLIP_SECONDS` (1e6 s; the readers refuse anything longer) is refused by the bake with a
//! typed error naming the clip and the row limit, quickly and before allocating its frames —
//! by default (the error budget) and at a fixed rate.

use std::time::Instant;
use throng_bake::{bake, BakeError, BakeOptions, Sampling};

fn stretched_fox() -> throng_anim::Model {
    let mut model = throng_gltf::import_slice(&throng_demo::demo_glb(), None, "fox.glb")
        .expect("the demo fox imports");
    let clip = &mut model.clips[0];
    let scale = (throng_anim::model::MAX_CLIP_SECONDS as f32) / clip.duration;
    for c in &mut clip.channels {
        for t in &mut c.times {
            *t *= scale;
        }
    }
    clip.duration = throng_anim::model::MAX_CLIP_SECONDS as f32;
    model
}

#[test]
fn a_clip_of_a_million_seconds_is_refused_by_name_not_aborted() {
    let model = stretched_fox();
    for sampling in [Sampling::default(), Sampling::Fixed(30.0)] {
        let start = Instant::now();
        let options = BakeOptions {
            source_name: "fox.glb".into(),
            sampling,
            ..Default::default()
        };
        let e = bake(&model, &options).expect_err("a 1e6 s clip cannot fit the frame table");
        let msg = e.to_string();
        eprintln!("{sampling:?}: {msg} ({:?})", start.elapsed());
        assert!(matches!(e, BakeError::ClipTooLong { .. }), "{e:?}");
        assert!(msg.contains(&model.clips[0].name), "{msg}");
        assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
    }
}

/// A rate below one frame in the longest clip is refused as an option (no bake writes one, so
/// every baked-file reader can refuse it: throng_asset's `MIN_FPS`).
#[test]
fn a_rate_below_one_frame_in_the_longest_clip_is_refused() {
    let model = throng_gltf::import_slice(&throng_demo::demo_glb(), None, "fox.glb")
        .expect("the demo fox imports");
    for fps in [1e-300, 1e-7] {
        let options = BakeOptions {
            source_name: "fox.glb".into(),
            sampling: Sampling::Fixed(fps),
            ..Default::default()
        };
        let e = bake(&model, &options).expect_err("too slow a rate");
        assert!(matches!(e, BakeError::InvalidOption { .. }), "{e:?}");
        assert!(e.to_string().contains("1e-6"), "{e}");
    }
}
