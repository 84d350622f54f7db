//! `Runtime`, the one playback type: the same calls give the same records as the runtime of its
//! timing driven directly, its GPU-timed copy of every record stays equal to the records
//! computed from the state, and the changes it hands an upload rebuild every record.

mod common;
use common::*;
use throng_asset::LoopMode;
use throng_runtime::{
    ClipId, CpuRuntime, GpuInstanceRecord, GpuRuntime, Handle, InstanceTransform, PlayOptions,
    PlaybackCommand, PlaybackControl, Records, Runtime, Timing,
};

/// A seeded script of spawns, despawns, commands and updates, run on any runtime; the same
/// seed makes the same calls (the handles each returns are its own).
fn script(rt: &mut impl PlaybackControl, seed: u64) {
    let mut rng = throng_runtime::crowd::SplitMix64(seed);
    let mut live: Vec<Handle> = Vec::new();
    for step in 0..120 {
        let r = rng.next_u64();
        match r % 11 {
            0 | 1 => live.push(rt.spawn(InstanceTransform::IDENTITY)),
            2 if !live.is_empty() => {
                let h = live.swap_remove((r >> 8) as usize % live.len());
                rt.despawn(h).expect("live handle");
            }
            _ if !live.is_empty() => {
                let h = live[(r >> 8) as usize % live.len()];
                let clip = (r >> 20) as usize % 3;
                let command = match (r >> 4) % 7 {
                    0 => PlaybackCommand::Play {
                        clip: ClipId::new(clip),
                        options: PlayOptions::at(0.1 * (step % 7) as f32),
                    },
                    1 => PlaybackCommand::Crossfade {
                        clip: ClipId::new(clip),
                        seconds: 0.25,
                        options: PlayOptions::default(),
                    },
                    2 => PlaybackCommand::Blend {
                        a: ClipId::new(clip),
                        b: ClipId::new((clip + 1) % 3),
                        weight: 0.3,
                    },
                    3 => PlaybackCommand::Speed(1.5),
                    4 => PlaybackCommand::Seek(0.4),
                    5 => PlaybackCommand::Pause,
                    _ => PlaybackCommand::Resume,
                };
                rt.command(h, command).expect("valid command");
            }
            _ => {}
        }
        if step % 3 == 0 {
            rt.update(1.0 / 30.0);
        }
    }
}

fn clips() -> Vec<throng_asset::ClipInfo> {
    table(&[
        (1.0, LoopMode::Loop, &[0.5]),
        (0.7, LoopMode::Once, &[]),
        (2.0, LoopMode::PingPong, &[1.0]),
    ])
}

#[test]
fn cpu_timed_runtime_writes_the_records_of_a_cpu_runtime_driven_directly() {
    let clips = clips();
    for seed in 1..6 {
        let mut facade = Runtime::new(Timing::Cpu, &clips);
        let mut direct = CpuRuntime::new(&clips);
        script(&mut facade, seed);
        script(&mut direct, seed);
        let Records::Cpu(records) = facade.records() else {
            panic!("CPU-timed records expected");
        };
        assert_eq!(records, direct.records(), "seed {seed}");
        assert_eq!(facade.transforms(), direct.transforms());
        assert_eq!(facade.events(), direct.events());
        assert!(facade.record_changes().writes.is_none());
    }
}

#[test]
fn gpu_timed_runtime_keeps_every_record_equal_to_the_state() {
    let clips = clips();
    for seed in 1..6 {
        let mut facade = Runtime::new(Timing::Gpu, &clips);
        let mut direct = GpuRuntime::new(&clips);
        script(&mut facade, seed);
        script(&mut direct, seed);
        let Records::Gpu { records, clock } = facade.records() else {
            panic!("GPU-timed records expected");
        };
        // the kept copy is what the state gives, and what the runtime driven directly gives
        let truth = facade.gpu().expect("GPU-timed").collect_records();
        assert_eq!(records, truth.as_slice(), "seed {seed}");
        assert_eq!(records, direct.collect_records().as_slice(), "seed {seed}");
        assert_eq!(clock, direct.gpu_clock());
        assert_eq!(facade.len(), direct.len());
    }
}

#[test]
fn gpu_timed_changes_frame_by_frame_rebuild_every_record() {
    let clips = clips();
    let mut rt = Runtime::new(Timing::Gpu, &clips);
    // What an upload kept across frames holds: all records once, then only the writes.
    let mut uploaded: Vec<GpuInstanceRecord> = Vec::new();
    let handles = spawn_playing(&mut rt, 40, |i| (i % 3, PlayOptions::at(0.05 * i as f32)));
    for frame in 0..90u32 {
        let h = handles[(frame as usize * 7) % handles.len()];
        match frame % 4 {
            0 => rt
                .instance(h)
                .crossfade(ClipId::new((frame as usize) % 3), 0.2),
            1 => rt.instance(h).speed(1.0 + 0.1 * (frame % 5) as f32),
            2 => rt.instance(h).seek(0.3),
            _ => rt.instance(h).blend(ClipId::new(0), ClipId::new(2), 0.5),
        }
        .expect("valid change");
        // a change alone (no update yet) reaches the kept records
        let Records::Gpu { records, .. } = rt.records() else {
            panic!("GPU-timed records expected");
        };
        let truth = rt.gpu().expect("GPU-timed").collect_records();
        assert_eq!(
            records,
            truth.as_slice(),
            "frame {frame}, before its update"
        );
        rt.update(1.0 / 60.0);
        let changes = rt.record_changes();
        let Records::Gpu { records, .. } = changes.records else {
            panic!("GPU-timed records expected");
        };
        if uploaded.len() != records.len() {
            uploaded = records.to_vec();
        } else {
            for w in changes.writes.expect("GPU-timed writes") {
                uploaded[w.index as usize] = w.record;
            }
        }
        assert_eq!(uploaded, records, "frame {frame}");
        rt.clear_changes();
    }
}

#[test]
fn commands_to_every_instance_and_layer_times() {
    let clips = clips();
    let mut rt = Runtime::new(Timing::Cpu, &clips);
    spawn_playing(&mut rt, 5, |_| (0, PlayOptions::default()));
    rt.command_all(PlaybackCommand::Crossfade {
        clip: ClipId::new(2),
        seconds: 0.5,
        options: PlayOptions::default(),
    })
    .expect("crossfade");
    rt.update(0.25);
    for i in 0..5 {
        let h = rt.handle_at(i).expect("instance");
        let layers = rt.layer_times(h).expect("CPU-timed layer times");
        assert_eq!(layers.len(), 2);
        assert_eq!(layers[1].0, 2);
        assert!((layers[1].1 - 0.5).abs() < 1e-5, "{layers:?}");
    }
    // A bad clip is the runtime's error, whatever the timing.
    let mut gpu = Runtime::new(Timing::Gpu, &clips);
    let h = gpu.spawn(InstanceTransform::IDENTITY);
    assert!(gpu
        .instance(h)
        .play(ClipId::new(9), PlayOptions::default())
        .is_err());
    assert!(gpu.layer_times(h).is_none());
}
