//! The plugin's main-world systems in a headless app (no window, no renderer): spawning and
//! despawning instances with their entities, moving them, playback commands, events arriving
//! once as messages, anchors followed by child entities, batch instances, and the asset loader
//! reading a baked file through Bevy's `AssetServer`. The asset is the built-in fox baked in
//! memory (throng-demo), so no test asset folder is needed.

use std::time::Duration;
use throng_runtime::PlaybackControl;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use throng_asset::BakedAsset;
use throng_bevy::{
    GraphSource, Runtime, ThrongAnchor, ThrongAsset, ThrongCrowd, ThrongEvent, ThrongHandle,
    ThrongInstance, ThrongPlayback, ThrongPlugin, Timing,
};
use throng_runtime::{ClipId, CpuRuntime, PlayOptions};

/// Seconds per frame of every test app.
const DT: f64 = 1.0 / 30.0;
/// The built-in fox's node whose transform is baked as an anchor.
const ANCHOR: &str = "front_foot_l";

fn baked_fox() -> BakedAsset {
    let glb = throng_demo::demo_glb();
    let model = throng_gltf::import_slice(&glb, None, "throng-demo-fox.glb").expect("import");
    let options = throng_bake::BakeOptions {
        source_name: "throng-demo-fox.glb".into(),
        anchors: throng_bake::AnchorSelection::Nodes(vec![ANCHOR.into()]),
        ..Default::default()
    };
    throng_bake::bake(&model, &options).expect("bake").0
}

fn app() -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        TransformPlugin,
        ThrongPlugin,
    ))
    .init_asset::<Image>()
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
        DT,
    )));
    app
}

/// `baked` as a Bevy asset, its images added to the app's `Assets<Image>`.
fn throng_asset_of(app: &mut App, baked: &BakedAsset) -> ThrongAsset {
    let mut images = app.world_mut().resource_mut::<Assets<Image>>();
    throng_bevy::from_baked(baked.clone(), &mut images)
}

/// An app with one crowd of the baked fox; returns the crowd entity.
fn app_with_crowd(timing: Timing) -> (App, Entity, BakedAsset) {
    app_with(|asset| ThrongCrowd::new(asset, timing))
}

/// An app with the crowd `make` gives for the baked fox's asset handle; returns the crowd
/// entity once its runtime exists.
fn app_with(make: impl FnOnce(Handle<ThrongAsset>) -> ThrongCrowd) -> (App, Entity, BakedAsset) {
    let mut app = app();
    let baked = baked_fox();
    let fox = throng_asset_of(&mut app, &baked);
    let asset = app
        .world_mut()
        .resource_mut::<Assets<ThrongAsset>>()
        .add(fox);
    let crowd = app.world_mut().spawn(make(asset)).id();
    app.update();
    assert!(
        crowd_of(&app, crowd).runtime().is_some(),
        "runtime not created"
    );
    (app, crowd, baked)
}

fn crowd_of(app: &App, crowd: Entity) -> &ThrongCrowd {
    app.world()
        .get::<ThrongCrowd>(crowd)
        .expect("crowd component")
}

/// The crowd component, for batch use of its runtime.
fn crowd_mut(app: &mut App, crowd: Entity) -> Mut<'_, ThrongCrowd> {
    app.world_mut()
        .get_mut::<ThrongCrowd>(crowd)
        .expect("crowd")
}

/// The built-in fox's walk (found by name: a renamed clip fails here, not in a later assertion).
fn walk(baked: &BakedAsset) -> usize {
    let names: Vec<_> = baked.clips.iter().map(|c| &c.name).collect();
    baked
        .find_clip("walk")
        .unwrap_or_else(|| panic!("the built-in fox has no clip \"walk\": {names:?}"))
}

/// An instance of `crowd` at `at`, playing `clip`.
fn spawn_playing(app: &mut App, crowd: Entity, clip: usize, at: Transform) -> Entity {
    let mut pb = ThrongPlayback::default();
    pb.play(clip);
    app.world_mut()
        .spawn((ThrongInstance { crowd }, at, pb))
        .id()
}

#[test]
fn spawning_and_despawning_entities_spawns_and_despawns_instances() {
    let (mut app, crowd, _) = app_with_crowd(Timing::Cpu);
    let foxes: Vec<Entity> = (0..10)
        .map(|i| {
            app.world_mut()
                .spawn((
                    ThrongInstance { crowd },
                    Transform::from_xyz(i as f32, 0.0, 0.0),
                ))
                .id()
        })
        .collect();
    app.update();
    assert_eq!(crowd_of(&app, crowd).len(), 10);
    let handles: std::collections::HashSet<_> = foxes
        .iter()
        .map(|&e| app.world().get::<ThrongHandle>(e).expect("handle").0)
        .collect();
    assert_eq!(handles.len(), 10, "every entity has its own instance");
    for &e in &foxes[..3] {
        app.world_mut().despawn(e);
    }
    app.update();
    assert_eq!(crowd_of(&app, crowd).len(), 7);
    // The survivors' instances are still theirs, at their own transforms.
    for (i, &e) in foxes.iter().enumerate().skip(3) {
        let h = app.world().get::<ThrongHandle>(e).expect("handle").0;
        let Some(rt) = crowd_of(&app, crowd).runtime().and_then(Runtime::cpu) else {
            panic!("CPU runtime expected");
        };
        let t = rt.transform(h).expect("live instance");
        assert_eq!(t.rows[0][3], i as f32, "instance of fox {i}");
    }
}

#[test]
fn moving_an_entity_moves_its_instance() {
    let (mut app, crowd, _) = app_with_crowd(Timing::Gpu);
    let fox = app
        .world_mut()
        .spawn((ThrongInstance { crowd }, Transform::default()))
        .id();
    app.update();
    let h = app.world().get::<ThrongHandle>(fox).expect("handle").0;
    app.world_mut()
        .get_mut::<Transform>(fox)
        .expect("transform")
        .translation = Vec3::new(3.0, 1.0, -2.0);
    app.update();
    let Some(rt) = crowd_of(&app, crowd).runtime().and_then(Runtime::gpu) else {
        panic!("GPU runtime expected");
    };
    let t = rt.transform(h).expect("live instance");
    assert_eq!([t.rows[0][3], t.rows[1][3], t.rows[2][3]], [3.0, 1.0, -2.0]);
    let (lo, hi) = crowd_of(&app, crowd).bounds().expect("bounds");
    assert!(lo.x <= 3.0 && hi.x >= 3.0 && lo.z <= -2.0 && hi.z >= -2.0);
}

#[test]
fn a_moved_parent_moves_a_child_instance() {
    let (mut app, crowd, _) = app_with_crowd(Timing::Cpu);
    let parent = app
        .world_mut()
        .spawn(Transform::from_xyz(10.0, 0.0, 0.0))
        .id();
    let fox = app
        .world_mut()
        .spawn((
            ThrongInstance { crowd },
            Transform::from_xyz(1.0, 0.0, 0.0),
            ChildOf(parent),
        ))
        .id();
    app.update();
    let h = app.world().get::<ThrongHandle>(fox).expect("handle").0;
    let Some(rt) = crowd_of(&app, crowd).runtime().and_then(Runtime::cpu) else {
        panic!("CPU runtime expected");
    };
    assert_eq!(rt.transform(h).expect("live").rows[0][3], 11.0);
}

/// Collects every ThrongEvent message once (the reader's cursor moves past read ones).
#[derive(Resource, Default)]
struct Seen(Vec<ThrongEvent>, Vec<f64>);

fn collect(mut seen: ResMut<Seen>, mut events: MessageReader<ThrongEvent>, time: Res<Time>) {
    seen.0.extend(events.read().cloned());
    seen.1.push(time.delta_secs_f64());
}

#[test]
fn events_arrive_once_as_messages() {
    for timing in [Timing::Cpu, Timing::Gpu] {
        let (mut app, crowd, baked) = app_with_crowd(timing);
        let clip = (0..baked.clips.len())
            .max_by_key(|&c| baked.clips[c].events.len())
            .expect("clips");
        assert!(
            !baked.clips[clip].events.is_empty(),
            "the demo fox has events"
        );
        app.init_resource::<Seen>()
            .add_systems(PostUpdate, collect.after(throng_bevy::ThrongSystems));
        let fox = spawn_playing(&mut app, crowd, clip, Transform::default());
        for _ in 0..90 {
            app.update();
        }
        let seen = &app.world().resource::<Seen>();
        assert!(!seen.0.is_empty(), "{timing:?}: no events in 3 s");
        // Every message names the fox, and no crossing arrives twice.
        let mut keys: Vec<_> = seen
            .0
            .iter()
            .map(|e| {
                assert_eq!(e.entity, Some(fox));
                assert_eq!(e.crowd, crowd);
                (e.clip, e.name.clone(), (e.time * 1e6).round() as i64)
            })
            .collect();
        let n = keys.len();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), n, "{timing:?}: an event arrived twice");
        // As many as a runtime of its own fires over the same steps (the first frames' steps
        // before the instance existed are left out: it was spawned after one update, and
        // played from its spawn).
        let mut rt = CpuRuntime::new(&baked.clips);
        let h = rt.spawn(Default::default());
        rt.instance(h)
            .play(ClipId::new(clip), PlayOptions::default())
            .expect("play");
        let mut expected = 0;
        // Step k of `seen.1` is the frame the fox had existed for k frames (spawned in frame 0).
        for &dt in &seen.1 {
            rt.update(dt);
            expected += rt.events().len();
        }
        assert_eq!(
            n, expected,
            "{timing:?}: messages vs the runtime's own crossings"
        );
    }
}

#[test]
fn commands_given_before_the_asset_loads_are_applied_once_it_has() {
    // As a user does it: load, spawn the crowd and its instances with `play` at once; the
    // asset arrives frames later.
    let mut app = app();
    let baked = baked_fox();
    let asset = app
        .world()
        .resource::<Assets<ThrongAsset>>()
        .reserve_handle();
    let crowd = app
        .world_mut()
        .spawn(ThrongCrowd::new(asset.clone(), Timing::Cpu))
        .id();
    let clip = (walk(&baked) + 1) % baked.clips.len();
    let fox = spawn_playing(&mut app, crowd, clip, Transform::default());
    app.update();
    app.update();
    assert!(
        crowd_of(&app, crowd).runtime().is_none(),
        "asset not loaded yet"
    );
    let fox_asset = throng_asset_of(&mut app, &baked);
    app.world_mut()
        .resource_mut::<Assets<ThrongAsset>>()
        .insert(asset.id(), fox_asset)
        .expect("insert the asset");
    app.update();
    let h = app.world().get::<ThrongHandle>(fox).expect("spawned").0;
    let Some(rt) = crowd_of(&app, crowd).runtime().and_then(Runtime::cpu) else {
        panic!("CPU runtime expected");
    };
    let r = rt.record(h).expect("live");
    assert_eq!(r.layers[0].clip, clip as u32, "the queued play: {r:?}");
    assert!(r.layers[0].weight > 0.0, "{r:?}");
}

#[test]
fn playback_commands_reach_the_runtime() {
    let (mut app, crowd, baked) = app_with_crowd(Timing::Cpu);
    let fox = spawn_playing(&mut app, crowd, walk(&baked), Transform::default());
    app.update();
    let h = app.world().get::<ThrongHandle>(fox).expect("handle").0;
    let other = (walk(&baked) + 1) % baked.clips.len();
    app.world_mut()
        .get_mut::<ThrongPlayback>(fox)
        .expect("playback")
        .crossfade(other, 0.5);
    app.update();
    app.update();
    let record = |app: &App| {
        let Some(rt) = crowd_of(app, crowd).runtime().and_then(Runtime::cpu) else {
            panic!("CPU runtime expected");
        };
        rt.record(h).expect("live")
    };
    let r = record(&app);
    assert!(
        r.layers[0].weight > 0.0 && r.layers[1].weight > 0.0,
        "mid-fade: {r:?}"
    );
    assert_eq!(r.layers[1].clip, other as u32);
    // Paused: the record stands still.
    app.world_mut()
        .get_mut::<ThrongPlayback>(fox)
        .expect("playback")
        .pause();
    app.update();
    let a = record(&app);
    app.update();
    assert_eq!(a, record(&app));
    // Disabled: all weights 0 (the rest pose).
    app.world_mut()
        .get_mut::<ThrongPlayback>(fox)
        .expect("playback")
        .set_enabled(false);
    app.update();
    assert!(record(&app).layers.iter().all(|l| l.weight == 0.0));
    // A bad command is logged and skipped, not a panic.
    app.world_mut()
        .get_mut::<ThrongPlayback>(fox)
        .expect("playback")
        .play(10_000);
    app.update();
}

/// A speed past `MAX_SPEED` (1e30, NaN) queued on an entity is refused, logged and skipped in
/// both timings: the instance plays on exactly as one given no such command; at the limit of
/// the clip and the instance speed a frame returns with at most `MAX_LAPS` laps of events.
#[test]
fn a_speed_past_the_limit_is_refused_in_both_timings() {
    use throng_runtime::{MAX_LAPS, MAX_SPEED};
    for timing in [Timing::Cpu, Timing::Gpu] {
        let (mut app, crowd, baked) = app_with_crowd(timing);
        let clip = walk(&baked);
        let a = spawn_playing(&mut app, crowd, clip, Transform::default());
        let b = spawn_playing(&mut app, crowd, clip, Transform::default());
        app.update();
        for speed in [1e30, f32::NAN, -1.0, MAX_SPEED * 2.0] {
            app.world_mut()
                .get_mut::<ThrongPlayback>(b)
                .expect("playback")
                .set_speed(speed)
                .play_with(clip, PlayOptions::default().with_speed(speed));
            app.update();
        }
        let handle = |e| app.world().get::<ThrongHandle>(e).expect("handle").0;
        let (ha, hb) = (handle(a), handle(b));
        let rt = crowd_of(&app, crowd).runtime().expect("runtime");
        match timing {
            Timing::Cpu => {
                let rt = rt.cpu().expect("CPU-timed");
                assert_eq!(rt.record(ha), rt.record(hb), "{timing:?}");
            }
            Timing::Gpu => {
                let rt = rt.gpu().expect("GPU-timed");
                assert_eq!(rt.record(ha), rt.record(hb), "{timing:?}");
            }
        }
        // both factors at the limit: 10^6 × authored
        app.world_mut()
            .get_mut::<ThrongPlayback>(b)
            .expect("playback")
            .play_with(clip, PlayOptions::default().with_speed(MAX_SPEED))
            .set_speed(MAX_SPEED);
        let per_lap = baked.clips[clip].events.len();
        for _ in 0..3 {
            app.update();
            let rt = crowd_of(&app, crowd).runtime().expect("runtime");
            let n = rt.events().iter().filter(|e| e.instance == hb).count();
            assert!(
                n <= per_lap * (MAX_LAPS as usize + 2),
                "{timing:?}: {n} events in a frame at the limit"
            );
        }
        assert!(
            per_lap > 0 && crowd_of(&app, crowd).len() == 2,
            "{timing:?}"
        );
    }
}

#[test]
fn an_anchor_child_follows_its_anchor() {
    let (mut app, crowd, baked) = app_with_crowd(Timing::Cpu);
    let fox = spawn_playing(
        &mut app,
        crowd,
        walk(&baked),
        Transform::from_xyz(5.0, 0.0, 1.0),
    );
    let hand = app
        .world_mut()
        .spawn((
            ThrongAnchor {
                name: ANCHOR.into(),
            },
            ChildOf(fox),
        ))
        .id();
    // a sword held 0.2 units along the hand's x axis: where the hand is, the same frame
    let grip = Transform::from_xyz(0.2, 0.0, 0.0);
    let sword = app.world_mut().spawn((grip, ChildOf(hand))).id();
    let mut positions = Vec::new();
    for _ in 0..10 {
        app.update();
        let h = app.world().get::<ThrongHandle>(fox).expect("handle").0;
        let c = crowd_of(&app, crowd);
        let anchors = c.baked().and_then(|b| b.anchors.as_ref()).expect("anchors");
        let i = anchors
            .anchors
            .iter()
            .position(|a| a.name == ANCHOR)
            .expect("anchor baked");
        let want = c
            .runtime()
            .expect("runtime")
            .anchor_world(h, anchors, i)
            .expect("anchor");
        let got = app.world().get::<GlobalTransform>(hand).expect("global");
        let got = got.to_matrix().to_cols_array();
        for (a, b) in got.iter().zip(want.to_cols_array()) {
            assert!((a - b).abs() < 1e-4, "{got:?} vs {want:?}");
        }
        let held = app.world().get::<GlobalTransform>(sword).expect("global");
        let want_held = want * glam::Mat4::from_translation(glam::Vec3::new(0.2, 0.0, 0.0));
        let held = held.to_matrix().to_cols_array();
        for (a, b) in held.iter().zip(want_held.to_cols_array()) {
            assert!(
                (a - b).abs() < 1e-4,
                "held: {held:?} vs {want_held:?} (a frame late?)"
            );
        }
        positions.push(got[12..15].to_vec());
    }
    assert!(
        positions.windows(2).any(|w| w[0] != w[1]),
        "the foot moves while walking"
    );
}

#[test]
fn batch_instances_need_no_entities() {
    let (mut app, crowd, baked) = app_with_crowd(Timing::Gpu);
    {
        let mut c = crowd_mut(&mut app, crowd);
        let rt = c.runtime_mut().expect("runtime");
        for i in 0..1000 {
            let t = glam::Mat4::from_translation(glam::Vec3::new(i as f32, 0.0, 0.0));
            let h = rt.spawn(throng_runtime::InstanceTransform::from_mat4(&t));
            rt.instance(h)
                .play(ClipId::new(walk(&baked)), PlayOptions::default())
                .expect("play");
        }
    }
    app.update();
    let c = crowd_of(&app, crowd);
    assert_eq!(c.len(), 1000);
    let (lo, hi) = c.bounds().expect("bounds");
    assert!(lo.x <= 0.0 && hi.x >= 999.0);
}

#[test]
fn the_loader_reads_a_baked_file_through_the_asset_server() {
    let dir = std::env::temp_dir().join(format!("throng-bevy-loader-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let baked = baked_fox();
    throng_asset::write(&baked, &dir.join("fox.glb")).expect("write baked file");
    std::fs::write(dir.join("broken.glb"), b"not a glb").expect("write");
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin {
            file_path: dir.to_string_lossy().to_string(),
            ..default()
        },
        TransformPlugin,
        ThrongPlugin,
    ))
    .init_asset::<Image>();
    let server = app.world().resource::<AssetServer>().clone();
    let fox: Handle<ThrongAsset> = server.load("fox.glb");
    let broken: Handle<ThrongAsset> = server.load("broken.glb");
    let crowd = app
        .world_mut()
        .spawn(ThrongCrowd::new(fox.clone(), Timing::Cpu))
        .id();
    let start = std::time::Instant::now();
    while app
        .world()
        .resource::<Assets<ThrongAsset>>()
        .get(&fox)
        .is_none()
        || !server.load_state(&broken).is_failed()
    {
        assert!(start.elapsed().as_secs() < 30, "loading timed out");
        app.update();
        std::thread::sleep(Duration::from_millis(5));
    }
    app.update();
    let loaded = app
        .world()
        .resource::<Assets<ThrongAsset>>()
        .get(&fox)
        .expect("loaded");
    assert_eq!(loaded.baked.clips.len(), baked.clips.len());
    assert_eq!(loaded.anchor(ANCHOR), Some(0));
    assert!(crowd_of(&app, crowd).runtime().is_some());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Root motion moves instance entities: Quaternius' Enemy (test asset folder) baked with its
/// root motion extracted, its Death clip (the root travels 0.366 units backwards) played by an
/// entity placed at (2, 0, -1) and turned a quarter about +Y, and by a bare CPU-timed runtime
/// from the same place. After each frame the entity's `GlobalTransform` (written by the
/// plugin, recomposed by Bevy's transform propagation from its `Transform`) equals the bare
/// runtime's instance transform within 1e-5 (Bevy's TRS round trip of each frame's place, ~1e-7
/// a frame), and it did move.
#[test]
fn root_motion_moves_the_instance_entity() {
    const FILE: &str = "Quaternius_Enemy.glb";
    let Some(path) = throng_testdata::asset(FILE) else {
        return;
    };
    let model = throng_gltf::import(&path).expect("import");
    let options = throng_bake::BakeOptions {
        source_name: FILE.into(),
        sampling: throng_bake::Sampling::Fixed(30.0),
        root_motion: throng_bake::RootMotion::Extract { motion_root: None },
        ..Default::default()
    };
    let baked = throng_bake::bake(&model, &options).expect("bake").0;
    let death = baked
        .find_clip("MonsterArmature|Death")
        .expect("Death clip");
    assert!(
        baked.clips[death].root_motion.is_some(),
        "root motion extracted"
    );

    let mut app = app();
    let enemy = throng_asset_of(&mut app, &baked);
    let asset = app
        .world_mut()
        .resource_mut::<Assets<ThrongAsset>>()
        .add(enemy);
    let crowd = app
        .world_mut()
        .spawn(ThrongCrowd::new(asset, Timing::Cpu))
        .id();
    app.update();
    let start = Transform::from_xyz(2.0, 0.0, -1.0)
        .with_rotation(Quat::from_rotation_y(std::f32::consts::FRAC_PI_2));
    let e = spawn_playing(&mut app, crowd, death, start);
    // the bare runtime: the same place, clip and frame times (the entity's instance is spawned
    // and told to play in the app's next update, then advanced by that update's DT)
    let mut bare = CpuRuntime::new(&baked.clips);
    let m = start.to_matrix().to_cols_array();
    let h = bare.spawn(throng_contract::InstanceTransform::from_mat4(
        &glam::Mat4::from_cols_array(&m),
    ));
    bare.instance(h)
        .play(ClipId::new(death), PlayOptions::default())
        .expect("play");
    let first = bare.transform(h).expect("transform");
    for frame in 0..12 {
        app.update();
        bare.update(DT);
        let want = bare.transform(h).expect("transform");
        let g = app.world().get::<GlobalTransform>(e).expect("global");
        let got = throng_bevy::crowd::instance_transform(g);
        let off = (0..3)
            .flat_map(|r| (0..4).map(move |c| (r, c)))
            .map(|(r, c)| (got.rows[r][c] - want.rows[r][c]).abs())
            .fold(0.0f32, f32::max);
        assert!(
            off <= 1e-5,
            "frame {frame}: entity off the runtime by {off}"
        );
    }
    let last = bare.transform(h).expect("transform");
    let travel = (0..3)
        .map(|r| (last.rows[r][3] - first.rows[r][3]).powi(2))
        .sum::<f32>()
        .sqrt();
    assert!(travel > 0.2, "the root travelled only {travel}");
}

/// A [`ThrongProp`] entity follows an anchor of a batch instance (no entity of its own): after
/// each frame its `GlobalTransform` equals what `throng sample --anchor` computes for the baked
/// asset at the same clip time — `throng_asset::decode::blended_anchor_matrix` of the one
/// full-weight layer at that time (the clip table's clamped frame lookup) — placed by the
/// instance transform, within 1e-5 (f32 products of the same rows; the built-in fox is about 1
/// unit long).
#[test]
fn a_prop_entity_follows_an_anchor_of_a_batch_instance() {
    let (mut app, crowd, baked) = app_with_crowd(Timing::Cpu);
    let clip = walk(&baked);
    let place = Transform::from_xyz(-3.0, 0.0, 4.0).with_rotation(Quat::from_rotation_y(0.7));
    let m = place.to_matrix().to_cols_array();
    let placed = glam::Mat4::from_cols_array(&m);
    let handle = {
        let mut c = crowd_mut(&mut app, crowd);
        let rt = c.runtime_mut().expect("runtime");
        let h = rt.spawn(throng_contract::InstanceTransform::from_mat4(&placed));
        rt.instance(h)
            .play(ClipId::new(clip), PlayOptions::default())
            .expect("play");
        h
    };
    let prop = app
        .world_mut()
        .spawn(throng_bevy::ThrongProp {
            crowd,
            instance: handle,
            anchor: ANCHOR.into(),
        })
        .id();
    let index = baked
        .anchors
        .as_ref()
        .and_then(|a| a.anchors.iter().position(|x| x.name == ANCHOR))
        .expect("anchor baked");
    // what the prop holds (a grandchild too), 0.3 units up the prop's y axis, then 0.1 along x
    let held = app
        .world_mut()
        .spawn((Transform::from_xyz(0.0, 0.3, 0.0), ChildOf(prop)))
        .id();
    let tip = app
        .world_mut()
        .spawn((Transform::from_xyz(0.1, 0.0, 0.0), ChildOf(held)))
        .id();
    let info = &baked.clips[clip];
    let mut seen = Vec::new();
    for frame in 1..=12 {
        app.update();
        let time = frame as f64 * DT;
        assert!(time < info.duration, "the test stays before the loop wraps");
        let f = info
            .frames_table()
            .sample(throng_asset::LoopMode::Clamp, time);
        let layer = throng_asset::Layer {
            weight: 1.0,
            frac: f.frac,
            row: f.row as f32,
            clip: clip as u32,
        };
        let model = throng_asset::decode::blended_anchor_matrix(&baked, index, &[layer])
            .expect("decode")
            .expect("anchor");
        let want = (placed * model).to_cols_array();
        let got = app.world().get::<GlobalTransform>(prop).expect("global");
        let got = got.to_matrix().to_cols_array();
        for (a, b) in got.iter().zip(want) {
            assert!((a - b).abs() <= 1e-5, "frame {frame}: {got:?} vs {want:?}");
        }
        // its subtree, this frame (Bevy's propagation ran before the plugin moved the prop)
        let want_tip =
            placed * model * glam::Mat4::from_translation(glam::Vec3::new(0.1, 0.3, 0.0));
        let got_tip = app.world().get::<GlobalTransform>(tip).expect("global");
        let got_tip = got_tip.to_matrix().to_cols_array();
        for (a, b) in got_tip.iter().zip(want_tip.to_cols_array()) {
            assert!(
                (a - b).abs() <= 1e-4,
                "frame {frame}: the held tip {got_tip:?} vs {want_tip:?} (a frame late?)"
            );
        }
        seen.push(got[12..15].to_vec());
    }
    assert!(
        seen.windows(2).any(|w| w[0] != w[1]),
        "the anchor never moved"
    );
}

/// An app with one crowd of the baked fox driven by its locomotion graph.
fn app_with_graph(timing: Timing) -> (App, Entity, BakedAsset) {
    let source = GraphSource::new(
        "demo-fox-locomotion.json",
        throng_graph::DEMO_FOX_LOCOMOTION,
    );
    app_with(|asset| ThrongCrowd::new(asset, timing).with_graph(source))
}

/// The built-in fox's locomotion graph, checked against the baked clips.
fn demo_graph(baked: &BakedAsset) -> throng_graph::Graph {
    throng_graph::Graph::from_json(throng_graph::DEMO_FOX_LOCOMOTION, "g", &baked.clips)
        .expect("graph")
}

/// A crowd driven by the built-in fox's locomotion graph (`ThrongCrowd::with_graph`), four
/// instance entities setting its parameters through `ThrongParams` (idle, walk, run, sit), one
/// despawned half-way. The independent computation is a bare `GraphCrowd` of the same graph
/// given the same parameters at the same indices and the same steps (the despawn as a
/// `swap_remove` of the same index): CPU-timed, the records the plugin uploads equal its
/// records bit for bit every frame, and the `ThrongStateEvent` messages are its state events
/// (the sitting fox's "sitting_down").
#[test]
fn a_graph_crowd_plays_what_its_parameters_say() {
    use throng_bevy::{ThrongParams, ThrongStateEvent};
    let (mut app, crowd, baked) = app_with_graph(Timing::Cpu);
    let graph = demo_graph(&baked);
    let mut bare = throng_graph::GraphCrowd::new(graph, &baked.clips, 0).expect("graph crowd");
    let speed = bare.param("speed").expect("speed");
    let sit = bare.param("sit").expect("sit");
    let speeds = [0.0f32, 1.5, 4.0, 0.0];
    let foxes: Vec<Entity> = speeds
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            let mut params = ThrongParams::default();
            params.set_float("speed", s);
            if i == 3 {
                params.fire("sit");
            }
            app.world_mut()
                .spawn((
                    ThrongInstance { crowd },
                    params,
                    Transform::from_xyz(i as f32, 0.0, 0.0),
                ))
                .id()
        })
        .collect();
    // the bare crowd: instances join before their first step, parameters set at once
    bare.resize(4);
    for (i, &s) in speeds.iter().enumerate() {
        bare.set_float(i, speed, s).expect("speed");
    }
    bare.fire(3, sit).expect("sit");
    let mut state_events = Vec::new();
    for frame in 0..40 {
        if frame == 20 {
            // the walking fox leaves: the last instance (the sitting one) takes its index
            app.world_mut().despawn(foxes[1]);
            bare.swap_remove(1);
        }
        app.update();
        // the app's frame time, whole nanoseconds
        bare.step(Duration::from_secs_f64(DT).as_secs_f64());
        let c = crowd_of(&app, crowd);
        assert!(
            c.record_bytes() == bytemuck::cast_slice::<_, u8>(bare.records()),
            "frame {frame}: uploaded records differ from the bare graph crowd's"
        );
        let sent: Vec<ThrongStateEvent> = app
            .world_mut()
            .resource_mut::<Messages<ThrongStateEvent>>()
            .drain()
            .collect();
        assert_eq!(
            sent.len(),
            bare.events().len(),
            "frame {frame}: state events"
        );
        state_events.extend(sent);
    }
    let sat: Vec<_> = state_events
        .iter()
        .filter(|e| &*e.event_name == "sitting_down")
        .collect();
    assert_eq!(sat.len(), 1, "{state_events:?}");
    assert_eq!(sat[0].entity, Some(foxes[3]));
    assert_eq!(&*sat[0].state_name, "sit");
    assert_eq!(Some(sat[0].state), bare.graph().state_id("sit"));
    assert_eq!(bare.graph().event_name(sat[0].event), Some("sitting_down"));
    assert!(sat[0].enter);
    // the graph writes the records; the runtime only keeps time (its update is skipped),
    // to its tick (2^-20 s)
    let rt = crowd_of(&app, crowd).runtime().expect("runtime");
    assert!(
        (rt.time() - 40.0 * DT).abs() < 1e-5,
        "the runtime's clock stood at {} s",
        rt.time()
    );
    // an unknown parameter is logged and skipped, not a panic
    let mut params = ThrongParams::default();
    params.set_float("sped", 1.0);
    app.world_mut().entity_mut(foxes[0]).insert(params);
    app.update();
}

/// A batch instance's parameters through `ThrongCrowd::set_param` (the call that works
/// wherever the graph steps; here, without a render world, the CPU): the value reaches the
/// graph crowd, which plays it, and a wrong name, a value of another kind and a handle the
/// runtime no longer holds are errors that set nothing. Without a render app the graph stays
/// on the CPU: it is ready, not on the GPU, and no reason was given (nobody placed it).
#[test]
fn set_param_sets_a_batch_instances_parameter_and_refuses_what_it_cannot_set() {
    use throng_bevy::ParamValue;
    let (mut app, crowd, baked) = app_with_graph(Timing::Cpu);
    let graph = demo_graph(&baked);
    let speed = graph
        .param::<throng_graph::kind::Float>("speed")
        .expect("speed");
    let (a, b) = {
        let mut c = crowd_mut(&mut app, crowd);
        let rt = c.runtime_mut().expect("runtime");
        let a = rt.spawn(throng_contract::InstanceTransform::IDENTITY);
        let b = rt.spawn(throng_contract::InstanceTransform::IDENTITY);
        (a, b)
    };
    app.update();
    {
        let mut c = crowd_mut(&mut app, crowd);
        assert!(c.graph_ready() && !c.graph_on_gpu());
        assert_eq!(c.graph_cpu_because(), None);
        c.set_param(b, "speed", ParamValue::Float(4.0))
            .expect("speed");
        assert!(c.set_param(b, "sped", ParamValue::Float(1.0)).is_err());
        assert!(c.set_param(b, "speed", ParamValue::Bool(true)).is_err());
        c.despawn(a).expect("despawn");
        assert!(matches!(
            c.set_param(a, "speed", ParamValue::Float(1.0)),
            Err(throng_graph::GraphError::NoSuchInstance { .. })
        ));
        let gc = c.graph_crowd().expect("graph crowd on the CPU");
        // b took a's index 0 when a left
        assert_eq!(gc.value(0, speed), Some(4.0));
    }
    for _ in 0..10 {
        app.update();
    }
    let c = crowd_of(&app, crowd);
    let gc = c.graph_crowd().expect("graph crowd");
    let moving = gc.graph().state_id("move").expect("move state");
    assert_eq!(
        gc.state(0).expect("state"),
        moving,
        "the set speed is played"
    );
}

/// GPU-timed, a graph crowd tells its runtime what to play (`throng_graph::drive_gpu`) in the
/// frame its state changes: after every frame each instance's GPU-timed record equals that of a
/// bare `GpuRuntime` driven by a bare `GraphCrowd` in the documented order (graph step,
/// runtime update, drive), with the same parameters — and the running fox does run.
#[test]
fn a_gpu_timed_graph_crowd_drives_its_runtime() {
    use throng_bevy::ThrongParams;
    let (mut app, crowd, baked) = app_with_graph(Timing::Gpu);
    let graph = demo_graph(&baked);
    let mut bare_graph =
        throng_graph::GraphCrowd::new(graph, &baked.clips, 3).expect("graph crowd");
    let mut bare = throng_runtime::GpuRuntime::new(&baked.clips);
    let speed = bare_graph.param("speed").expect("speed");
    let speeds = [0.0f32, 1.5, 4.0];
    let mut handles = Vec::new();
    let mut foxes = Vec::new();
    for (i, &s) in speeds.iter().enumerate() {
        let mut params = ThrongParams::default();
        params.set_float("speed", s);
        foxes.push(
            app.world_mut()
                .spawn((ThrongInstance { crowd }, params, Transform::IDENTITY))
                .id(),
        );
        handles.push(bare.spawn(throng_contract::InstanceTransform::IDENTITY));
        bare_graph.set_float(i, speed, s).expect("speed");
    }
    let dt = Duration::from_secs_f64(DT).as_secs_f64();
    let run = baked.find_clip("run").expect("run clip") as u32;
    for frame in 0..30 {
        app.update();
        bare_graph.step(dt);
        bare.update(dt);
        throng_graph::drive_gpu(&bare_graph, &mut bare, &handles).expect("drive");
        let c = crowd_of(&app, crowd);
        let rt = c
            .runtime()
            .and_then(Runtime::gpu)
            .expect("GPU-timed runtime");
        for (i, &e) in foxes.iter().enumerate() {
            let h = app.world().get::<ThrongHandle>(e).expect("handle").0;
            let got = rt.record(h).expect("record");
            let want = bare.record(handles[i]).expect("record");
            assert_eq!(got, want, "frame {frame}, fox {i}");
        }
    }
    let h = app.world().get::<ThrongHandle>(foxes[2]).expect("handle").0;
    let r = crowd_of(&app, crowd)
        .runtime()
        .and_then(Runtime::gpu)
        .expect("runtime")
        .record(h)
        .expect("record");
    assert!(
        r.layers
            .iter()
            .any(|l| l.clip_mode & throng_contract::gpu_timed::CLIP_MASK == run),
        "the fast fox does not run: {r:?}"
    );
}

/// Whether an asset's VATs can be drawn (`throng_bevy::render::vat::check_vats`): the built-in
/// fox baked with f16 VATs fits a device of 8,192 texels and 256 layers; each unusable case is
/// named — a primitive without a VAT, a VAT of another vertex count than its mesh, a VAT wider
/// than the device, one needing more array layers than the device has.
#[test]
fn vats_are_checked_against_the_mesh_and_the_device() {
    use throng_bevy::render::vat::{check_vats, VatUnusable};
    let glb = throng_demo::demo_glb();
    let model = throng_gltf::import_slice(&glb, None, "throng-demo-fox.glb").expect("import");
    let options = throng_bake::BakeOptions {
        source_name: "throng-demo-fox.glb".into(),
        vat: Some(throng_asset::VatEncoding::F16),
        ..Default::default()
    };
    let baked = throng_bake::bake(&model, &options).expect("bake").0;
    assert_eq!(check_vats(&baked, 8192, 256), Ok(()));
    let vat = baked.primitives[0].vat.as_ref().expect("a VAT");
    let (width, rows) = (vat.width, vat.texture_rows());
    assert_eq!(
        check_vats(&baked, width - 1, 256),
        Err(VatUnusable::Width {
            primitive: 0,
            width,
            max: width - 1
        })
    );
    // Layers of at most `width` rows (the side limit), 2 at least (wgpu's GL backend).
    let layers = rows
        .div_ceil(vat.rows_per_layer.min(width).min(rows))
        .max(2);
    assert_eq!(
        check_vats(&baked, width, 1),
        Err(VatUnusable::Layers {
            primitive: 0,
            layers,
            max: 1
        })
    );
    let mut short = baked.clone();
    if let Some(v) = short.primitives[0].vat.as_mut() {
        v.vertices -= 1;
    }
    assert!(matches!(
        check_vats(&short, 8192, 256),
        Err(VatUnusable::Vertices { primitive: 0, .. })
    ));
    let mut none = baked;
    none.primitives[0].vat = None;
    assert_eq!(
        check_vats(&none, 8192, 256),
        Err(VatUnusable::Missing { primitive: 0 })
    );
}

/// The appearance of instance entity `e` as its crowd holds it (at the entity's dense index).
fn appearance_of(app: &App, crowd: Entity, e: Entity) -> throng_bevy::Appearance {
    let c = crowd_of(app, crowd);
    let h = app.world().get::<ThrongHandle>(e).expect("handle").0;
    let i = c.runtime().and_then(|rt| rt.index(h)).expect("live");
    c.appearances().get(i).expect("appearance")
}

#[test]
fn an_appearance_component_sets_exactly_its_instance() {
    use throng_bevy::{Appearance, ThrongAppearance};
    let (mut app, crowd, _) = app_with_crowd(Timing::Cpu);
    let look = |i: u8| {
        ThrongAppearance::default()
            .with_tint([i * 40, 255, 255 - i, 255])
            .with_parts(!(1 << i))
    };
    let foxes: Vec<Entity> = (0..6u8)
        .map(|i| {
            let mut e = app.world_mut().spawn((
                ThrongInstance { crowd },
                Transform::from_xyz(i as f32, 0.0, 0.0),
            ));
            // the last one has no component: the default appearance
            if i < 5 {
                e.insert(look(i));
            }
            e.id()
        })
        .collect();
    app.update();
    let expect = |app: &App, foxes: &[Entity], batch: usize| {
        for &e in foxes {
            let want = app
                .world()
                .get::<ThrongAppearance>(e)
                .map_or(Appearance::DEFAULT, |&a| a.into());
            assert_eq!(appearance_of(app, crowd, e), want, "{e}");
        }
        assert_eq!(
            crowd_of(app, crowd).appearances().len(),
            foxes.len() + batch
        );
    };
    expect(&app, &foxes, 0);
    assert!(
        crowd_of(&app, crowd)
            .appearances()
            .changes()
            .changed
            .is_none(),
        "a spawn uploads every appearance"
    );

    // one component changed: that instance's appearance and nothing else changes
    let before = crowd_of(&app, crowd).appearances().values().to_vec();
    app.world_mut()
        .get_mut::<ThrongAppearance>(foxes[2])
        .expect("component")
        .tint = [1, 2, 3, 4];
    app.update();
    let h = app.world().get::<ThrongHandle>(foxes[2]).expect("handle").0;
    let i = crowd_of(&app, crowd)
        .runtime()
        .and_then(|rt| rt.index(h))
        .expect("live");
    let after = crowd_of(&app, crowd).appearances().values().to_vec();
    for (k, (b, a)) in before.iter().zip(&after).enumerate() {
        if k == i {
            assert_eq!(a.tint, [1, 2, 3, 4]);
            assert_eq!(a.parts, b.parts);
        } else {
            assert_eq!(a, b, "instance {k}");
        }
    }
    assert_eq!(
        crowd_of(&app, crowd).appearances().changes().changed,
        Some(&[i as u32][..]),
        "only the changed instance is uploaded"
    );
    // the next frame without changes uploads nothing
    app.update();
    assert_eq!(
        crowd_of(&app, crowd).appearances().changes().changed,
        Some(&[][..])
    );

    // despawns move the runtime's last instance into the freed index, and its appearance too
    app.world_mut().despawn(foxes[0]);
    app.world_mut().despawn(foxes[3]);
    app.update();
    let rest: Vec<Entity> = foxes
        .iter()
        .copied()
        .filter(|&e| e != foxes[0] && e != foxes[3])
        .collect();
    expect(&app, &rest, 0);

    // batch instances: defaults, set through the crowd
    let batch = {
        let mut c = crowd_mut(&mut app, crowd);
        let rt = c.runtime_mut().expect("runtime");
        let h = rt.spawn(Default::default());
        assert_eq!(rt.appearance(h), Ok(Appearance::DEFAULT));
        let tinted = Appearance {
            tint: [9, 9, 9, 255],
            ..Appearance::DEFAULT
        };
        c.set_appearance(h, tinted).expect("live");
        h
    };
    app.update();
    let c = crowd_of(&app, crowd);
    let i = c.runtime().and_then(|rt| rt.index(batch)).expect("live");
    assert_eq!(c.appearances().get(i).map(|a| a.tint), Some([9, 9, 9, 255]));
    expect(&app, &rest, 1);
    // a batch despawn on the runtime itself (not through the crowd) keeps the entities'
    // appearances in place: the runtime moves them with its instances
    app.world_mut()
        .get_mut::<ThrongCrowd>(crowd)
        .expect("crowd")
        .runtime_mut()
        .expect("runtime")
        .despawn(batch)
        .expect("despawn");
    app.update();
    expect(&app, &rest, 0);
}

/// Prop masks (`ThrongPropBit`): an anchor child of an instance entity and a `ThrongProp`
/// following a batch instance are hidden while their instance's `props` bit is clear and shown
/// (`Inherited`) while it is set, within the frame the mask changes, and the component is
/// written only when its value differs; followers without a bit are never touched, and bits
/// from 32 on are always shown.
#[test]
fn prop_masks_show_and_hide_prop_entities() {
    use throng_bevy::{ThrongAppearance, ThrongProp, ThrongPropBit};
    let (mut app, crowd, baked) = app_with_crowd(Timing::Cpu);
    let fox = spawn_playing(&mut app, crowd, walk(&baked), Transform::IDENTITY);
    app.world_mut()
        .entity_mut(fox)
        .insert(ThrongAppearance::default().with_props(!0b10));
    let mut anchor = |bit: Option<u32>| {
        let mut e = app
            .world_mut()
            .spawn((ThrongAnchor::new(ANCHOR), ChildOf(fox)));
        if let Some(b) = bit {
            e.insert(ThrongPropBit(b));
        }
        e.id()
    };
    let hat = anchor(Some(1));
    let shield = anchor(Some(0));
    let plain = anchor(None);
    let far = anchor(Some(40));
    let handle = {
        let mut c = crowd_mut(&mut app, crowd);
        let rt = c.runtime_mut().expect("runtime");
        rt.spawn(throng_contract::InstanceTransform::IDENTITY)
    };
    let sword = app
        .world_mut()
        .spawn((
            ThrongProp {
                crowd,
                instance: handle,
                anchor: ANCHOR.into(),
            },
            ThrongPropBit(3),
        ))
        .id();
    // the application hides the plain follower itself: the plugin leaves it so
    app.world_mut().entity_mut(plain).insert(Visibility::Hidden);
    app.update();
    let vis = |app: &App, e: Entity| app.world().get::<Visibility>(e).copied();
    assert_eq!(vis(&app, hat), Some(Visibility::Hidden), "bit 1 clear");
    assert_eq!(vis(&app, shield), Some(Visibility::Inherited), "bit 0 set");
    assert_eq!(
        vis(&app, plain),
        Some(Visibility::Hidden),
        "no bit: untouched"
    );
    assert_eq!(
        vis(&app, far),
        Some(Visibility::Inherited),
        "bit 40: always"
    );
    assert_eq!(
        vis(&app, sword),
        Some(Visibility::Inherited),
        "default mask"
    );

    // toggling the masks: the entity instance's through its component, the batch
    // instance's through the crowd
    app.world_mut()
        .get_mut::<ThrongAppearance>(fox)
        .expect("component")
        .props = 0b10;
    {
        let mut c = crowd_mut(&mut app, crowd);
        let props = c.runtime().and_then(|rt| rt.appearance(handle).ok());
        let a = throng_bevy::Appearance {
            props: !0b1000,
            ..props.expect("live")
        };
        c.set_appearance(handle, a).expect("set");
    }
    app.update();
    assert_eq!(vis(&app, hat), Some(Visibility::Inherited));
    assert_eq!(vis(&app, shield), Some(Visibility::Hidden));
    assert_eq!(vis(&app, plain), Some(Visibility::Hidden));
    assert_eq!(vis(&app, far), Some(Visibility::Inherited));
    assert_eq!(vis(&app, sword), Some(Visibility::Hidden));

    // written only when it differs: a frame without a change leaves the component unchanged
    // for Bevy's change detection
    let tick = |app: &App, e: Entity| {
        app.world()
            .entity(e)
            .get_ref::<Visibility>()
            .expect("visibility")
            .last_changed()
    };
    let before = [hat, shield, sword].map(|e| tick(&app, e));
    app.update();
    assert_eq!([hat, shield, sword].map(|e| tick(&app, e)), before);
    // the bit's entities are the mask's: another value is set back
    app.world_mut().entity_mut(hat).insert(Visibility::Visible);
    app.update();
    assert_eq!(vis(&app, hat), Some(Visibility::Inherited));
}
