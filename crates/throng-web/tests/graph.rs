//! Graph crowds in the page (`Crowd.playGraph`, docs/web.md "Graph crowds"), driven through
//! the same `Player` the browser glue calls: a graph played on the page's instances steps as
//! throng-graph's reference step does (records equal exactly, events named and in the same
//! order), parameters are set by name with their kind checked, and what a graph owns is
//! refused while it plays. On lavapipe the same page crowd stepped by the GPU pass draws
//! what the CPU step draws.

use throng_graph::{kind, Graph, GraphCrowd, DEMO_FOX_LOCOMOTION};
use throng_graph_gpu::StepOn;
use throng_render::Renderer;
use throng_runtime::Timing;
use throng_web::error::message_chain;
use throng_web::{CrowdSpec, EventInfo, ParamValue, Player, StateEventInfo};

mod common;
use common::graph_changes;

/// Small enough that a step's clip events (two blended clips' footsteps, every instance in
/// step) fit the GPU's default room for them (as many as instances, at least 64).
const N: u32 = 24;
const DT: f64 = 1.0 / 30.0;

/// The built-in fox as web/build.sh bakes it, baked once for the file's tests.
fn fox() -> throng_asset::BakedAsset {
    static FOX: std::sync::OnceLock<throng_asset::BakedAsset> = std::sync::OnceLock::new();
    FOX.get_or_init(common::bake_fox).clone()
}

/// A page with `N` foxes laid out as `spawnCrowd` lays them out, playing the demo's
/// locomotion graph (idle, walk/run by `speed`, `sit` by a trigger).
fn page(timing: Timing) -> Player {
    let mut player = Player::new(fox(), timing);
    let spec = CrowdSpec {
        count: N,
        ..Default::default()
    };
    player.spawn_crowd(&spec).expect("crowd");
    player
}

/// The reference: throng-graph's own crowd of `N` with the same changes, set by its typed ids.
fn reference(asset: &throng_asset::BakedAsset) -> GraphCrowd {
    let graph = Graph::from_json(DEMO_FOX_LOCOMOTION, "locomotion.json", &asset.clips)
        .expect("the demo graph");
    GraphCrowd::new(graph, &asset.clips, N as usize).expect("crowd")
}

fn set_reference(crowd: &mut GraphCrowd, f: u32) {
    let speed = crowd.param::<kind::Float>("speed").expect("speed");
    let sit = crowd.param::<kind::Trigger>("sit").expect("sit");
    for (id, name, value) in graph_changes(f, N) {
        let ids: Vec<usize> = id.map_or((0..N as usize).collect(), |i| vec![i as usize]);
        for i in ids {
            match (name, value) {
                ("speed", ParamValue::Number(v)) => crowd.set_float(i, speed, v as f32),
                ("sit", ParamValue::Fire) => crowd.fire(i, sit),
                _ => unreachable!("the script's changes"),
            }
            .expect("a valid change");
        }
    }
}

fn set_page(player: &mut Player, f: u32) {
    for (id, name, value) in graph_changes(f, N) {
        player.set_param(id, name, value).expect("a valid change");
    }
}

#[test]
fn a_page_graph_steps_as_the_reference_step_with_named_events() {
    let mut player = page(Timing::Cpu);
    player
        .play_graph(DEMO_FOX_LOCOMOTION, "locomotion.json", None, StepOn::Auto)
        .expect("play the graph");
    let rt = player.graph().expect("a graph plays");
    assert!(!rt.on_gpu(), "a page without a device steps on the CPU");
    let mut crowd = reference(player.asset());
    let clips = player.asset().clips.clone();
    let graph = crowd.graph().clone();
    let ids = player.ids();
    let (mut clip_events, mut state_events) = (0, 0);
    for f in 0..300 {
        set_page(&mut player, f);
        set_reference(&mut crowd, f);
        let events = player.step(DT).expect("step");
        crowd.step(DT);
        let Some(throng_contract::Records::Cpu(records)) = player.records() else {
            panic!("a graph's records are CPU-timed");
        };
        assert_eq!(records, crowd.records(), "frame {f}: records");
        let want: Vec<EventInfo> = (crowd.clip_events().iter())
            .map(|e| {
                let clip = &clips[e.clip.index()];
                EventInfo {
                    instance: ids[e.instance as usize],
                    clip: e.clip.index() as u32,
                    clip_name: clip.name.clone(),
                    event: e.event,
                    name: clip.events[e.event as usize].name.clone(),
                    time: e.time,
                }
            })
            .collect();
        assert_eq!(events, want, "frame {f}: clip events");
        let want: Vec<StateEventInfo> = (crowd.events().iter())
            .map(|e| StateEventInfo {
                instance: ids[e.instance as usize],
                state: graph.state(e.state).expect("state").name().to_string(),
                name: graph.event_name(e.event).expect("event").to_string(),
                kind: match e.kind {
                    throng_graph::EventKind::Enter => "enter",
                    throng_graph::EventKind::Exit => "exit",
                },
            })
            .collect();
        assert_eq!(player.state_events(), want, "frame {f}: state events");
        assert!(
            player.finished().is_empty(),
            "a graph reports no finished layers"
        );
        clip_events += events.len();
        state_events += want.len();
    }
    // the script reaches every state event the graph names, and the walk's footsteps
    assert!(state_events > 20, "only {state_events} state events");
    assert!(clip_events > 100, "only {clip_events} clip events");
    eprintln!("{clip_events} clip events, {state_events} state events");
}

#[test]
fn what_a_graph_owns_is_refused_while_it_plays_and_values_are_checked_by_kind() {
    let text = |e: throng_web::WebError| message_chain(&e);
    let mut gpu_timed = page(Timing::Gpu);
    let e = gpu_timed
        .play_graph(DEMO_FOX_LOCOMOTION, "g.json", None, StepOn::Auto)
        .expect_err("a GPU-timed crowd");
    assert!(text(e).contains("timing: \"cpu\""));

    let mut empty = Player::new(fox(), Timing::Cpu);
    let e = empty
        .play_graph(DEMO_FOX_LOCOMOTION, "g.json", None, StepOn::Auto)
        .expect_err("no instances");
    assert!(text(e).contains("before playGraph"));

    let mut player = page(Timing::Cpu);
    let e = player
        .set_param(None, "speed", ParamValue::Number(1.0))
        .expect_err("no graph yet");
    assert!(text(e).contains("call playGraph"));
    let e = player
        .play_graph("{\"version\": 1", "broken.json", None, StepOn::Auto)
        .expect_err("not JSON");
    assert!(text(e).starts_with("broken.json"), "names the file");
    let e = player
        .play_graph(DEMO_FOX_LOCOMOTION, "g.json", None, StepOn::Gpu)
        .expect_err("no renderer to step on");
    assert!(text(e).contains("a headless crowd steps its graph on the CPU"));
    player
        .play_graph(DEMO_FOX_LOCOMOTION, "g.json", None, StepOn::Auto)
        .expect("plays");

    let refused = |r: Result<(), throng_web::WebError>| {
        let t = text(r.expect_err("refused while a graph plays"));
        assert!(t.contains("while a graph plays"), "{t}");
    };
    refused(
        player
            .spawn(&glam::Mat4::IDENTITY.to_cols_array())
            .map(|_| ()),
    );
    refused(player.despawn(0));
    refused(player.command(None, throng_runtime::PlaybackCommand::Pause));
    refused(player.spawn_crowd(&CrowdSpec::default()).map(|_| ()));
    // transforms still move
    let moved = glam::Mat4::from_translation(glam::Vec3::X).to_cols_array();
    player
        .set_transform(3, &moved)
        .expect("a graph's instance moves");

    let e = player
        .set_param(Some(0), "sped", ParamValue::Number(1.0))
        .expect_err("unknown");
    let t = text(e);
    assert!(t.contains("speed"), "lists the parameters: {t}");
    for (name, value) in [
        ("speed", ParamValue::Bool(true)),
        ("speed", ParamValue::Fire),
        ("sit", ParamValue::Number(2.0)),
    ] {
        let e = player
            .set_param(Some(0), name, value)
            .expect_err("another kind");
        assert!(text(e).contains(&format!("parameter {name} is a")));
    }
    let e = player
        .set_param(Some(N + 5), "speed", ParamValue::Number(1.0))
        .expect_err("not alive");
    assert!(text(e).contains("not alive"));
    // clear() ends the graph: the crowd plays clips again
    player.clear();
    assert!(player.graph().is_none());
    player
        .spawn_crowd(&CrowdSpec::default())
        .expect("clips again");
}

/// The page's crowd stepped by the GPU pass (as a page with a hardware adapter would, once the
/// browser can take its events; docs/web.md) draws what the CPU step draws, and its events are
/// the CPU step's a frame late.
#[test]
fn a_page_graph_stepped_on_the_gpu_draws_what_the_cpu_step_draws() {
    let Some(gpu) = throng_render::device::test_gpu() else {
        return;
    };
    if gpu.full_path_missing().is_some() {
        return; // the pass needs compute shaders: GL's downlevel adapters step on the CPU
    }
    let mut renderer = Renderer::with_gpu(gpu.clone());
    let mut on_cpu = page(Timing::Cpu);
    let mut on_gpu = page(Timing::Cpu);
    // as a page steps it: never waiting for the events' copy (here the device is polled
    // between frames, as the browser's event loop runs between animation frames)
    let mut no_wait = page(Timing::Cpu);
    let gpu_asset = renderer.upload(on_cpu.asset()).expect("upload");
    on_cpu
        .play_graph(DEMO_FOX_LOCOMOTION, "g.json", Some(&gpu), StepOn::Cpu)
        .expect("CPU");
    for p in [&mut on_gpu, &mut no_wait] {
        p.play_graph(DEMO_FOX_LOCOMOTION, "g.json", Some(&gpu), StepOn::Gpu)
            .expect("GPU");
    }
    no_wait.never_wait_for_graph_events();
    assert!(on_gpu.graph().is_some_and(|g| g.on_gpu()));
    // a graph's instance moved after it started: the GPU's copy of the transforms follows
    let moved = glam::Mat4::from_translation(glam::Vec3::new(0.0, 0.0, 40.0)).to_cols_array();
    let mut late: Vec<EventInfo> = Vec::new();
    for f in 0..90 {
        if f == 10 {
            // a first draw sends the transforms; the move below must send them again
            for p in [&mut on_cpu, &mut on_gpu, &mut no_wait] {
                p.prepare_draw().expect("prepare");
                let opts = p.render_options(160, 90, true);
                renderer
                    .render_scene(&[p.crowd(&gpu_asset)], &opts)
                    .expect("draw");
            }
        }
        if f == 45 {
            for p in [&mut on_cpu, &mut on_gpu, &mut no_wait] {
                p.set_transform(0, &moved).expect("move");
            }
        }
        for p in [&mut on_cpu, &mut on_gpu, &mut no_wait] {
            set_page(p, f);
        }
        let cpu_events = on_cpu.step(DT).expect("CPU step");
        let gpu_events = on_gpu.step(DT).expect("GPU step");
        assert_eq!(
            gpu_events, late,
            "frame {f}: the GPU's events are the last frame's"
        );
        assert!(
            !on_gpu.graph().is_some_and(|g| g.events_lost()),
            "frame {f}"
        );
        let page_events = no_wait.step(DT).expect("page step");
        assert_eq!(page_events, late, "frame {f}: never waiting");
        let states = (no_wait.state_events(), on_gpu.state_events());
        assert_eq!(states.0, states.1, "frame {f}: state events never waiting");
        gpu.device
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("poll");
        late = cpu_events;
    }
    let cpu = on_cpu.graph().expect("graph").read_records().expect("CPU");
    let gpu_records = on_gpu.graph().expect("graph").read_records().expect("GPU");
    for (i, (a, b)) in cpu.iter().zip(&gpu_records).enumerate() {
        for (la, lb) in a.layers.iter().zip(&b.layers) {
            assert_eq!((la.clip, la.weight), (lb.clip, lb.weight), "instance {i}");
            let (pa, pb) = (
                la.row as f64 + la.frac as f64,
                lb.row as f64 + lb.frac as f64,
            );
            assert!((pa - pb).abs() <= 1e-4, "instance {i}: {pa} vs {pb} frames");
        }
    }
    let mut draw = |p: &mut Player| {
        p.prepare_draw().expect("prepare");
        let opts = p.render_options(160, 90, true);
        (renderer.render_scene(&[p.crowd(&gpu_asset)], &opts))
            .expect("draw")
            .image
    };
    let (a, b) = (draw(&mut on_cpu), draw(&mut on_gpu));
    let differ = (a.pixels().zip(b.pixels()))
        .filter(|(x, y)| (x.0.iter().zip(y.0.iter())).any(|(u, v)| u.abs_diff(*v) > 8))
        .count();
    let total = (a.width() * a.height()) as usize;
    let corner = *a.get_pixel(0, 0);
    let foxes = a.pixels().filter(|p| **p != corner).count();
    eprintln!("{differ} of {total} pixels differ by more than 8/255; foxes on {foxes}");
    assert!(foxes * 50 > total, "foxes on only {foxes} pixels");
    assert!(differ * 1000 <= total, "{differ} of {total} pixels differ");
}
