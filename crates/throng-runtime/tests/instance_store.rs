//! The runtime is the one store of per-instance data (docs/design.md §4 "One instance store"):
//! appearances and attached data follow every spawn and despawn, whoever calls them, in both
//! timings — checked against a map kept by handle, which knows nothing of dense order.

use std::collections::HashMap;

use throng_runtime::testing::synthetic_clips;
use throng_runtime::{
    Appearance, Handle, InstanceData, InstanceTransform, PerInstance, Runtime, RuntimeError, Timing,
};

/// A label per instance, set from the handle once spawned.
type Labels = PerInstance<u64>;

fn label(h: Handle) -> u64 {
    ((h.slot() as u64) << 32) | h.generation() as u64
}

fn look(k: u64) -> Appearance {
    Appearance {
        tint: [(k % 251) as u8, (k % 13) as u8, 7, 255],
        variant: (k % 3) as u32,
        ..Appearance::DEFAULT
    }
}

/// Random spawns and despawns (some inside `with_data`, where the data is lent out), each new
/// instance given a label and a look by handle; after every step the dense data equals what
/// the map by handle says.
fn run(timing: Timing, seed: u64) {
    let mut rt = Runtime::new(timing, &synthetic_clips());
    for _ in 0..3 {
        rt.spawn(InstanceTransform::IDENTITY);
    }
    assert!(matches!(
        rt.attach(Labels::new(2)),
        Err(RuntimeError::InstanceDataCount {
            got: 2,
            expected: 3
        })
    ));
    rt.attach(Labels::new(3)).expect("one label per instance");
    let mut want: HashMap<Handle, u64> = HashMap::new();
    let set = |rt: &mut Runtime, h: Handle, want: &mut HashMap<Handle, u64>| {
        let (labels, i) = rt.data_of::<Labels>(h).expect("attached");
        *labels.get_mut(i).expect("an entry per instance") = label(h);
        rt.set_appearance(h, look(label(h))).expect("live");
        want.insert(h, label(h));
    };
    for i in 0..3 {
        let h = rt.handle_at(i).expect("spawned");
        set(&mut rt, h, &mut want);
    }
    let mut rng = throng_runtime::crowd::SplitMix64(seed);
    for step in 0..400 {
        let r = rng.next_u64();
        let live: Vec<Handle> = want.keys().copied().collect();
        let pick = |k: u64| live[(k as usize) % live.len().max(1)];
        match r % 5 {
            0 | 1 => {
                let h = rt.spawn(InstanceTransform::IDENTITY);
                set(&mut rt, h, &mut want);
            }
            2 if !live.is_empty() => {
                let h = pick(r >> 8);
                rt.despawn(h).expect("live");
                want.remove(&h);
            }
            3 if !live.is_empty() => {
                // a despawn and a spawn while the labels are lent out reach them on return
                let gone = pick(r >> 8);
                let made = rt
                    .with_data::<Labels, _>(|labels, rt| {
                        let n = labels.values().len();
                        rt.despawn(gone).expect("live");
                        let made = rt.spawn(InstanceTransform::IDENTITY);
                        assert_eq!(labels.values().len(), n, "lent data is not touched");
                        made
                    })
                    .expect("attached");
                want.remove(&gone);
                set(&mut rt, made, &mut want);
            }
            _ => rt.update(1.0 / 60.0),
        }
        let labels = rt.data::<Labels>().expect("attached");
        assert_eq!(labels.values().len(), rt.len(), "step {step}");
        assert_eq!(rt.appearances().len(), rt.len(), "step {step}");
        for (&h, &k) in &want {
            let i = rt.index(h).expect("live");
            assert_eq!(labels.get(i), Some(&k), "step {step}: label of {h:?}");
            assert_eq!(rt.appearance(h), Ok(look(k)), "step {step}: look of {h:?}");
        }
    }
    let gone = rt.handle_at(0).expect("some instance");
    rt.despawn(gone).expect("live");
    assert!(matches!(
        rt.data_of::<Labels>(gone),
        Err(RuntimeError::DeadHandle { .. })
    ));
    assert!(matches!(
        rt.set_appearance(gone, Appearance::DEFAULT),
        Err(RuntimeError::DeadHandle { .. })
    ));
    let labels = rt.detach::<Labels>().expect("attached");
    assert_eq!(labels.instance_count(), rt.len());
    assert!(rt.data::<Labels>().is_none());
    assert!(matches!(
        rt.data_of::<Labels>(rt.handle_at(0).expect("some instance")),
        Err(RuntimeError::NoInstanceData { .. })
    ));
}

#[test]
fn attached_data_and_appearances_follow_every_spawn_and_despawn_cpu_timed() {
    run(Timing::Cpu, 3);
}

#[test]
fn attached_data_and_appearances_follow_every_spawn_and_despawn_gpu_timed() {
    run(Timing::Gpu, 4);
}

/// Clips are found by name once (a wrong name lists the clips and suggests a match but for
/// letter case), and an instance's calls chain, stopping at the first refused one with the
/// calls before it applied.
#[test]
fn clips_are_found_by_name_and_calls_chain_until_one_is_refused() {
    use throng_runtime::{ClipId, PlayOptions};
    for timing in [Timing::Cpu, Timing::Gpu] {
        let mut rt = Runtime::new(timing, &synthetic_clips());
        let run = rt.clip("run").expect("a clip of the table");
        assert_eq!(run, ClipId::new(1));
        let e = rt.clip("Run").unwrap_err().to_string();
        assert!(
            e.contains(r#"no clip is called "Run" (did you mean "run"?) (clips: walk, run, idle, sway, wave)"#),
            "{e}"
        );
        let h = rt.spawn(InstanceTransform::IDENTITY);
        let walk = rt.clip("walk").expect("walk");
        rt.instance(h)
            .play(walk, PlayOptions::default())
            .expect("play");
        rt.update(0.25);
        let refused = rt
            .instance(h)
            .crossfade(run, 0.3)
            .and_then(|i| i.speed(2e9))
            .and_then(|i| i.pause());
        assert!(
            matches!(refused, Err(RuntimeError::BadSpeed(_))),
            "{refused:?}"
        );
        // the crossfade applied, the pause after the refused speed did not
        rt.update(0.1);
        let mut twin = Runtime::new(timing, &synthetic_clips());
        let t = twin.spawn(InstanceTransform::IDENTITY);
        twin.instance(t)
            .play(walk, PlayOptions::default())
            .expect("play");
        twin.update(0.25);
        twin.instance(t).crossfade(run, 0.3).expect("crossfade");
        twin.update(0.1);
        assert_eq!(
            format!("{:?}", rt.records()),
            format!("{:?}", twin.records()),
            "{timing:?}"
        );
        assert!(matches!(
            rt.instance(h).play(ClipId::new(99), PlayOptions::default()),
            Err(RuntimeError::NoSuchClip { clip: 99, clips: 5 })
        ));
    }
}

/// Data of the lent type attached while it is lent replaces it (no second copy).
#[test]
fn data_attached_while_its_type_is_lent_replaces_the_lent_one() {
    let mut rt = Runtime::new(Timing::Cpu, &synthetic_clips());
    let h = rt.spawn(InstanceTransform::IDENTITY);
    rt.attach(Labels::new(1)).expect("one per instance");
    rt.with_data::<Labels, _>(|_, rt| {
        let mut fresh = Labels::new(1);
        *fresh.get_mut(0).expect("one") = 7;
        rt.attach(fresh).expect("one per instance");
        rt.spawn(InstanceTransform::IDENTITY);
    });
    let labels = rt.data::<Labels>().expect("attached");
    assert_eq!(labels.values(), &[7, 0][..]);
    assert_eq!(rt.detach::<Labels>().map(|l| l.instance_count()), Some(2));
    assert!(rt.detach::<Labels>().is_none(), "one copy only");
    assert!(rt.index(h).is_some());
}
