//! The browser package's `Player` (built natively: the same code the wasm module runs) on the
//! built-in fox, both timings, under random call sequences: spawns with any matrix (short,
//! non-finite), despawns of live, dead and never-issued ids, crowds, clips by name and index,
//! every playback command with edge values, steps of any length, the GPU-timed record writes.
//! Nothing may panic; after every step the clock is finite and the events name real clips.
#![no_main]

#[path = "ops/mod.rs"]
mod ops;

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use throng_asset::BakedAsset;
use throng_runtime::Timing;
use throng_web::{ClipRef, CrowdSpec, Player};

const MAX_INSTANCES: usize = 48;
const MAX_STEPS: usize = 64;

fn fox() -> &'static BakedAsset {
    static FOX: OnceLock<BakedAsset> = OnceLock::new();
    FOX.get_or_init(|| {
        let glb = throng_demo::demo_glb();
        let model = throng_gltf::import_slice(&glb, None, "fox.glb").expect("the built-in fox");
        let options = throng_bake::BakeOptions {
            source_name: "fox.glb".into(),
            sampling: throng_bake::Sampling::Fixed(15.0),
            ..Default::default()
        };
        throng_bake::bake(&model, &options).expect("bakes").0
    })
}

fuzz_target!(|data: &[u8]| {
    let mut b = ops::Bytes::new(data);
    let timing = [Timing::Cpu, Timing::Gpu][b.pick(2)];
    let asset = fox().clone();
    let clips = asset.clips.len();
    let mut player = Player::new(asset, timing);
    let mut ids: Vec<u32> = vec![u32::MAX];
    let mut steps = 0;
    while let Some(op) = b.u8() {
        let id = ids[b.pick(ids.len())];
        match op % 9 {
            0 if player.len() < MAX_INSTANCES => {
                let n = [12, 16, 3, 0][b.pick(4)];
                let mut m = [0.0f32; 16];
                m[0] = 1.0;
                m[5] = 1.0;
                m[10] = 1.0;
                m[15] = 1.0;
                if n > 0 {
                    m[b.pick(n)] = b.value();
                }
                if let Ok(id) = player.spawn(&m[..n]) {
                    ids.push(id);
                }
            }
            1 => {
                let _ = player.despawn(id);
            }
            2 if player.len() < MAX_INSTANCES => {
                let spec = CrowdSpec {
                    count: b.pick(8) as u32,
                    clip: match b.arg() % 4 {
                        0 => None,
                        1 => Some(ClipRef::Index(b.pick(clips + 2))),
                        2 => Some(ClipRef::Name("Walk".into())),
                        _ => Some(ClipRef::Name("walk".into())),
                    },
                    stagger: b.value() as f64,
                    random_phase: b.arg() & 1 == 1,
                    time: b.value() as f64,
                    seed: b.arg() as u64,
                    ..Default::default()
                };
                if let Ok(new) = player.spawn_crowd(&spec) {
                    ids.extend(new);
                }
            }
            3 | 4 => {
                let target = (b.arg() & 1 == 0).then_some(id);
                let _ = player.command(target, b.command(clips));
            }
            5 | 6 => {
                if let Ok(events) = player.step(b.dt()) {
                    for e in &events {
                        let clip = player.asset().clips.get(e.clip as usize);
                        assert!(clip.is_some_and(|c| c.name == e.clip_name), "{e:?}");
                    }
                }
                assert!(throng_runtime::PlaybackControl::time(player.runtime()).is_finite());
                steps += 1;
                if steps >= MAX_STEPS {
                    return;
                }
            }
            7 => {
                let _ = player.take_record_writes();
                let _ = player.placement();
            }
            _ => {
                let m = [b.value(); 12];
                let _ = player.set_transform(id, &m);
                if b.arg() & 7 == 0 {
                    player.clear();
                }
            }
        }
    }
});
