//! Clips of an animation-only file drive another file's skeleton by node name (docs/cases.md 18).

use throng_anim::model::Model;
use throng_gltf::{import, import_clips_from};

#[test]
fn kaykit_clips_bind_to_mannequin_by_name() {
    let (Some(model_path), Some(anim_path)) = (
        throng_testdata::asset("kaykit/manny_med_mod.gltf"),
        throng_testdata::asset("kaykit/Med_MovementBasic.glb"),
    ) else {
        return;
    };
    let mut model = import(&model_path).unwrap();
    let anims = import(&anim_path).unwrap();
    assert!(model.clips.is_empty());
    let warnings = import_clips_from(&mut model, &anims, "Med_MovementBasic.glb");
    assert_eq!(model.clips.len(), 11);

    // Independent check: every kept channel targets the model node whose name equals the
    // animation file's target name, and nothing else was dropped.
    let name = |m: &Model, n: usize| m.nodes[n].name.clone();
    let mut dropped = std::collections::BTreeSet::new();
    for (src, dst) in anims.clips.iter().zip(&model.clips) {
        assert_eq!(src.name, dst.name);
        assert_eq!(src.duration, dst.duration);
        let mut kept = dst.channels.iter();
        for ch in &src.channels {
            let target = name(&anims, ch.node);
            let matches = model.nodes.iter().any(|n| n.name == target);
            if matches {
                let k = kept.next().expect("a matched channel was dropped");
                assert_eq!(name(&model, k.node), target);
                assert_eq!(k.times, ch.times);
                assert_eq!(k.values, ch.values);
            } else {
                dropped.insert(target.unwrap_or_default());
            }
        }
        assert!(kept.next().is_none());
    }
    if dropped.is_empty() {
        assert!(warnings.is_empty(), "{warnings:?}");
    } else {
        let w = warnings
            .iter()
            .find(|w| w.contains("no node of the same name"))
            .expect("a warning listing unmatched nodes");
        for d in &dropped {
            assert!(w.contains(d.as_str()), "{w} should list {d}");
        }
    }
    // The mannequin's skin joints are all driven by some clip.
    let animated = model.animated_nodes();
    let driven = model.skins[0]
        .joints
        .iter()
        .filter(|&&j| animated[j])
        .count();
    assert_eq!(driven, 21);
    // The README: the animation file has 2 extra joints (the hand slots).
    let want: std::collections::BTreeSet<String> =
        ["handslot.l", "handslot.r"].map(String::from).into();
    assert_eq!(dropped, want);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
}
