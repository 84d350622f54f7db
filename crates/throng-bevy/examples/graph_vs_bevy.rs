//! CPU cost per instance of throng's animation-graph step against Bevy's `AnimationGraph` +
//! `AnimationTransitions` driving the same locomotion (docs/graph.md §7, docs/benchmarks.md).
//!
//! ```sh
//! cargo run --release -p throng-bevy --example graph_vs_bevy -- --instances 10000 --bones 24
//! ```
//!
//! Both sides get the same parameter stream: every instance a `speed` in [0, 3) from a seeded
//! hash, and each frame 1 % of the instances a new one. Frames are 1/60 s; the first
//! `--warm-up` frames are not timed. Both run on `--threads` worker threads (default 1: the cost
//! per instance, not the machine's parallelism).
//!
//! - **throng**: `GraphCrowd::step` over the built-in fox's locomotion graph
//!   (`throng_graph::DEMO_FOX_LOCOMOTION`: idle, a walk/run 1D blend space by `speed`,
//!   crossfades of 0.25–0.4 s), which writes every instance's 64 B CPU-timed record (clip
//!   rows, fractions, weights: what the GPU reads to sample the baked bones); also
//!   `GraphCrowd::step_states`, the state machines alone (no records, no clip events: what a
//!   GPU-timed crowd steps). Setting the parameters is not timed.
//! - **Bevy**: per instance an `AnimationPlayer`, `AnimationTransitions` and an
//!   `AnimationGraphHandle` to one shared graph of four clips (idle, walk, run, sit). Bevy has no
//!   blend space, so the state machine is the game's own system (timed as "drive"): an instance
//!   whose `speed` changed crossfades (0.25 s, `AnimationTransitions::play`) to idle (≤ 0.1),
//!   walk (≤ 2) or run — one clip per state, less than throng's blend. Bevy's `AnimationSystems`
//!   set (advance transitions and animations, `animate_targets`, events) is timed as
//!   "animation". With `--bones B` each instance also has B target entities (a rotation curve
//!   per bone and clip, 31 keys): `animate_targets` then samples and blends bones on the CPU,
//!   which throng leaves to the GPU; with `--bones 0` the players have no targets, so the
//!   animation set is the playback bookkeeping alone, the part throng's step replaces.

use std::time::{Duration, Instant};

use bevy::animation::{animated_field, AnimatedBy, AnimationTargetId};
use bevy::app::{AnimationSystems, TaskPoolOptions, TaskPoolPlugin};
use bevy::prelude::*;
use bevy::time::{TimePlugin, TimeUpdateStrategy};
use clap::Parser;
use throng_asset::{ClipInfo, LoopMode};
use throng_graph::{Graph, GraphCrowd};

#[derive(Parser, Debug, Clone)]
struct Args {
    #[arg(long, default_value_t = 10_000)]
    instances: usize,
    /// Timed frames.
    #[arg(long, default_value_t = 300)]
    frames: usize,
    #[arg(long, default_value_t = 30)]
    warm_up: usize,
    /// Target entities (bones) per Bevy instance; 0 = players without targets.
    #[arg(long, default_value_t = 0)]
    bones: usize,
    #[arg(long, default_value_t = 1)]
    threads: usize,
}

/// (name, seconds): the clips of both sides.
const CLIPS: [(&str, f32); 4] = [("idle", 2.0), ("walk", 1.0), ("run", 0.6), ("sit", 1.5)];

const DT: f64 = 1.0 / 60.0;

/// SplitMix64: the parameter stream both sides get.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn speed_of(key: u64) -> f32 {
    (mix(key) >> 40) as f32 / (1u64 << 24) as f32 * 3.0
}

/// The instances that change in `frame` and their new speeds: 1 % of `n`.
fn changes(n: usize, frame: usize) -> impl Iterator<Item = (usize, f32)> {
    let k = (n / 100).max(1);
    (0..k).map(move |j| {
        let key = ((frame as u64) << 32) | j as u64;
        ((mix(key ^ 0xA5A5) % n as u64) as usize, speed_of(key))
    })
}

/// Seconds per frame of throng's graph step, with records (`step`) or without
/// (`step_states`).
fn throng_side(a: &Args, records: bool) -> f64 {
    let mut row = 1;
    let table: Vec<ClipInfo> = CLIPS
        .iter()
        .map(|&(name, d)| {
            let mode = if name == "sit" {
                LoopMode::Once
            } else {
                LoopMode::Loop
            };
            let c = ClipInfo::uniform(name, row, d as f64, 30.0, mode);
            row += c.frames;
            c
        })
        .collect();
    let graph = Graph::from_json(
        throng_graph::DEMO_FOX_LOCOMOTION,
        "demo-fox-locomotion.json",
        &table,
    )
    .expect("the built-in graph names these clips");
    let mut crowd = GraphCrowd::new(graph, &table, a.instances).expect("graph crowd");
    let speed = crowd.param("speed").expect("declared");
    crowd
        .set_all(speed, |i| speed_of(i as u64))
        .expect("finite speeds");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(a.threads)
        .build()
        .expect("a thread pool");
    let mut timed = Duration::ZERO;
    pool.install(|| {
        for frame in 0..a.warm_up + a.frames {
            for (i, v) in changes(a.instances, frame) {
                crowd.set_float(i, speed, v).expect("a valid instance");
            }
            let t = Instant::now();
            if records {
                crowd.step(DT);
            } else {
                crowd.step_states(DT);
            }
            if frame >= a.warm_up {
                timed += t.elapsed();
            }
        }
    });
    timed.as_secs_f64() / a.frames as f64
}

#[derive(Component)]
struct Speed(f32);

/// The state the game's system last chose: index into [`Nodes::clips`].
#[derive(Component)]
struct Loco(usize);

#[derive(Resource)]
struct Nodes {
    graph: Handle<AnimationGraph>,
    clips: [AnimationNodeIndex; 4],
}

#[derive(Resource)]
struct Bench {
    players: Vec<Entity>,
    frame: usize,
    warm_up: usize,
    anim_start: Option<Instant>,
    anim: Duration,
    drive: Duration,
}

fn state_for(speed: f32) -> usize {
    if speed <= 0.1 {
        0
    } else if speed <= 2.0 {
        1
    } else {
        2
    }
}

/// The parameter stream (not timed).
fn set_speeds(mut bench: ResMut<Bench>, mut speeds: Query<&mut Speed>) {
    let frame = bench.frame;
    bench.frame += 1;
    let n = bench.players.len();
    for (i, v) in changes(n, frame) {
        if let Ok(mut s) = speeds.get_mut(bench.players[i]) {
            s.0 = v;
        }
    }
}

/// The game's state machine: what throng's graph does, written against Bevy's API.
#[allow(clippy::type_complexity)]
fn drive(
    mut bench: ResMut<Bench>,
    nodes: Res<Nodes>,
    mut q: Query<
        (
            &Speed,
            &mut Loco,
            &mut AnimationPlayer,
            &mut AnimationTransitions,
        ),
        Changed<Speed>,
    >,
) {
    let t = Instant::now();
    for (speed, mut loco, mut player, mut transitions) in &mut q {
        let want = state_for(speed.0);
        if want != loco.0 {
            loco.0 = want;
            transitions
                .play(&mut player, nodes.clips[want], Duration::from_millis(250))
                .repeat();
        }
    }
    if bench.frame > bench.warm_up {
        bench.drive += t.elapsed();
    }
}

fn anim_start(mut bench: ResMut<Bench>) {
    bench.anim_start = Some(Instant::now());
}

fn anim_end(mut bench: ResMut<Bench>) {
    if let Some(t) = bench.anim_start.take() {
        if bench.frame > bench.warm_up {
            bench.anim += t.elapsed();
        }
    }
}

/// A rotation about X swinging with the clip: 31 keys over its duration.
fn bone_curve(d: f32, bone: usize) -> impl bevy::animation::animation_curves::AnimationCurve {
    let keys = (0..31).map(move |k| {
        let t = d * k as f32 / 30.0;
        let a = (t / d * std::f32::consts::TAU + bone as f32).sin() * 0.3;
        (t, Quat::from_rotation_x(a))
    });
    AnimatableCurve::new(
        animated_field!(Transform::rotation),
        AnimatableKeyframeCurve::new(keys).expect("increasing key times"),
    )
}

fn setup(app: &mut App, a: &Args) {
    let targets: Vec<AnimationTargetId> = (0..a.bones)
        .map(|b| AnimationTargetId::from_name(&Name::new(format!("bone{b}"))))
        .collect();
    let world = app.world_mut();
    let handles: Vec<Handle<AnimationClip>> = {
        let mut clips = world.resource_mut::<Assets<AnimationClip>>();
        CLIPS
            .iter()
            .map(|&(_, d)| {
                let mut c = AnimationClip::default();
                c.set_duration(d);
                for (b, &id) in targets.iter().enumerate() {
                    c.add_curve_to_target(id, bone_curve(d, b));
                }
                clips.add(c)
            })
            .collect()
    };
    let mut graph = AnimationGraph::new();
    let root = graph.root;
    let clips: Vec<AnimationNodeIndex> = handles
        .into_iter()
        .map(|h| graph.add_clip(h, 1.0, root))
        .collect();
    let clips: [AnimationNodeIndex; 4] = clips.try_into().expect("four clips");
    let graph = world.resource_mut::<Assets<AnimationGraph>>().add(graph);
    let mut players = Vec::with_capacity(a.instances);
    for i in 0..a.instances {
        let speed = speed_of(i as u64);
        let state = state_for(speed);
        let mut player = AnimationPlayer::default();
        let mut transitions = AnimationTransitions::new();
        transitions
            .play(&mut player, clips[state], Duration::ZERO)
            .repeat();
        let e = world
            .spawn((
                player,
                transitions,
                AnimationGraphHandle(graph.clone()),
                Speed(speed),
                Loco(state),
            ))
            .id();
        for &id in &targets {
            world.spawn((id, AnimatedBy(e), Transform::default()));
        }
        players.push(e);
    }
    world.insert_resource(Nodes { graph, clips });
    world.insert_resource(Bench {
        players,
        frame: 0,
        warm_up: a.warm_up,
        anim_start: None,
        anim: Duration::ZERO,
        drive: Duration::ZERO,
    });
}

/// Seconds per frame of Bevy's (game state machine, animation systems).
fn bevy_side(a: &Args) -> (f64, f64) {
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin {
            task_pool_options: TaskPoolOptions::with_num_threads(a.threads),
        },
        TimePlugin,
        AssetPlugin::default(),
        bevy::animation::AnimationPlugin,
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
        DT,
    )))
    .add_systems(Update, (set_speeds, drive).chain())
    .add_systems(
        PostUpdate,
        (
            anim_start.before(AnimationSystems),
            anim_end.after(AnimationSystems),
        ),
    );
    setup(&mut app, a);
    app.finish();
    app.cleanup();
    for _ in 0..a.warm_up + a.frames + 1 {
        app.update();
    }
    let b = app.world().resource::<Bench>();
    let _ = &app.world().resource::<Nodes>().graph;
    let per = |d: Duration| d.as_secs_f64() / a.frames as f64;
    (per(b.drive), per(b.anim))
}

fn main() {
    let a = Args::parse();
    let throng = throng_side(&a, true);
    let states = throng_side(&a, false);
    let (drive, anim) = bevy_side(&a);
    let n = a.instances as f64;
    let ns = |s: f64| s * 1e9 / n;
    let bevy = drive + anim;
    println!(
        "instances {}  bones {}  threads {}  frames {} (+{} warm-up)",
        a.instances, a.bones, a.threads, a.frames, a.warm_up
    );
    println!(
        "throng GraphCrowd::step        {:8.1} ns/instance",
        ns(throng)
    );
    println!(
        "throng step_states (no records){:8.1} ns/instance",
        ns(states)
    );
    println!(
        "bevy game state machine        {:8.1} ns/instance",
        ns(drive)
    );
    println!(
        "bevy AnimationSystems          {:8.1} ns/instance",
        ns(anim)
    );
    println!(
        "bevy total / throng            {:8.2}x",
        if throng > 0.0 { bevy / throng } else { 0.0 }
    );
}
