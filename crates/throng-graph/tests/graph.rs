//! The graph reader's errors, the checks, the Graphviz text, the layer limit, determinism
//! across thread counts, and the example graphs against the assets they name.

mod common;
mod scenario_crowd;

use std::path::PathBuf;
use throng_runtime::PlaybackControl;

use common::{Rng, SCENARIO};
use throng_asset::{ClipInfo, LoopMode};
use throng_graph::file::MotionFile;
use throng_graph::{
    check, kind, to_dot, Graph, GraphBuilder, GraphCrowd, GraphError, GraphFile, Problem,
};
use throng_runtime::ClipId;

fn clips(names: &[(&str, f64)]) -> Vec<ClipInfo> {
    let mut row = 1;
    names
        .iter()
        .map(|&(n, d)| {
            let c = ClipInfo::uniform(n, row, d, 30.0, LoopMode::Loop);
            row += c.frames;
            c
        })
        .collect()
}

fn invalid(text: &str, table: &[ClipInfo]) -> Problem {
    match Graph::from_json(text, "g.json", table) {
        Err(GraphError::Invalid { file, first, .. }) => {
            assert_eq!(file, "g.json");
            first
        }
        other => panic!("expected an invalid graph, got {other:?}"),
    }
}

const TWO_STATES: &str = r#"{"version": 1,
  "parameters": [{"name": "speed", "type": "float"}, {"name": "go", "type": "trigger"},
                 {"name": "on", "type": "bool", "default": true}],
  "states": [{"name": "a", "motion": {"clip": {"name": "A"}}},
             {"name": "b", "motion": {"blend1d": {"parameter": "speed",
                "points": [{"clip": "A", "at": 0}, {"clip": "B", "at": 1}]}}}],
  "transitions": [{"from": "a", "to": "b", "conditions": [{"parameter": "go"}]}]}"#;

#[test]
fn malformed_json_names_the_file() {
    let e = Graph::from_json("{\"version\": 1, \"states\": [", "broken.json", &[]).unwrap_err();
    assert!(matches!(e, GraphError::Json { ref file, .. } if file == "broken.json"));
    assert!(e.to_string().starts_with("broken.json: "), "{e}");
    // an unknown key is an error, not ignored
    let e = Graph::from_json(
        r#"{"version": 1, "states": [], "stats": []}"#,
        "k.json",
        &[],
    )
    .unwrap_err();
    assert!(e.to_string().contains("stats"), "{e}");
    let e = Graph::load(&PathBuf::from("/nonexistent/g.json"), &[]).unwrap_err();
    assert!(matches!(e, GraphError::Io { .. }), "{e}");
}

#[test]
fn missing_clip_names_the_state_and_clip() {
    let p = invalid(TWO_STATES, &clips(&[("A", 1.0)]));
    assert!(
        matches!(&p, Problem::UnknownClip { element, clip, .. } if element == "state \"b\"" && clip == "B"),
        "{p:?}"
    );
    assert!(p.to_string().contains("clips: A"), "{p}");
}

#[test]
fn non_finite_thresholds_are_errors() {
    let table = clips(&[("A", 1.0), ("B", 1.0)]);
    // JSON has no NaN: a literal is a parse error naming the file
    let nan = TWO_STATES.replace(r#""at": 1}"#, r#""at": NaN}"#);
    assert!(matches!(
        Graph::from_json(&nan, "g.json", &table),
        Err(GraphError::Json { .. })
    ));
    // a number past f32 is refused too
    let big = TWO_STATES.replace(r#""at": 1}"#, r#""at": 1e39}"#);
    assert!(Graph::from_json(&big, "g.json", &table).is_err());
    // NaN through the file types (a graph made in code): a typed error naming the state
    let mut f = GraphFile::parse(TWO_STATES).unwrap();
    if let MotionFile::Blend1d(b) = &mut f.states[1].motion {
        b.points[1].at = f32::NAN;
    }
    let problems = GraphBuilder::from_file(f).check(&table).unwrap_err();
    assert!(
        matches!(&problems[0], Problem::BadNumber { element, .. } if element == "state \"b\""),
        "{problems:?}"
    );
    // thresholds out of order
    let swapped = TWO_STATES.replace(r#""at": 0}"#, r#""at": 2}"#);
    assert!(matches!(
        invalid(&swapped, &table),
        Problem::BadShape { .. }
    ));
}

#[test]
fn check_reports_each_problem_by_name() {
    let table = clips(&[("A", 1.0), ("B", 1.0)]);
    // type mismatch: a bool places a blend; unknown parameter in a condition
    let bad = TWO_STATES
        .replace(r#""parameter": "speed""#, r#""parameter": "on""#)
        .replace(r#"{"parameter": "go"}"#, r#"{"parameter": "gone"}"#);
    let problems = check(&GraphFile::parse(&bad).unwrap(), &table);
    let text: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
    assert!(
        text.iter()
            .any(|t| t.contains("state \"b\"") && t.contains("\"on\" is a bool")),
        "{text:?}"
    );
    assert!(
        text.iter()
            .any(|t| t.contains("transition 0") && t.contains("\"gone\" is not declared")),
        "{text:?}"
    );
    // no condition and no exit time
    let always = TWO_STATES.replace(
        r#""conditions": [{"parameter": "go"}]"#,
        r#""duration": 0.1"#,
    );
    assert!(
        matches!(invalid(&always, &table), Problem::AlwaysFires { ref element } if element.contains("transition 0"))
    );
    // warnings: unreachable state, a zero-duration cycle
    let warn = r#"{"version": 1, "parameters": [{"name": "x", "type": "bool"}],
      "states": [{"name": "a", "motion": {"clip": {"name": "A"}}},
                 {"name": "b", "motion": {"clip": {"name": "B"}}},
                 {"name": "lost", "motion": {"clip": {"name": "A"}}}],
      "transitions": [{"from": "a", "to": "b", "conditions": [{"parameter": "x"}]},
                      {"from": "b", "to": "a", "exit_time": 0.5}]}"#;
    let problems = check(&GraphFile::parse(warn).unwrap(), &table);
    assert!(problems.iter().all(|p| !p.is_error()), "{problems:?}");
    assert!(problems
        .iter()
        .any(|p| matches!(p, Problem::Unreachable { state, .. } if state == "lost")));
    assert!(problems
        .iter()
        .any(|p| matches!(p, Problem::ZeroCycle { path } if path == "\"a\" -> \"b\" -> \"a\"")));
}

#[test]
fn dot_lists_every_state_and_transition() {
    let f = GraphFile::parse(SCENARIO).unwrap();
    let dot = to_dot(&f);
    assert!(dot.starts_with("digraph animation {"));
    for s in &f.states {
        assert!(
            dot.contains(&format!("\"{}\" [label=", s.name)),
            "{}",
            s.name
        );
    }
    assert_eq!(dot.matches(" -> ").count(), f.transitions.len());
    assert!(dot.contains("\"*\" -> \"attack\""));
    assert_eq!(dot, to_dot(&f), "same input, same text");
}

#[test]
fn unknown_or_wrong_parameters_are_api_errors() {
    let table = clips(&[("A", 1.0), ("B", 1.0)]);
    let g = Graph::from_json(TWO_STATES, "g.json", &table).unwrap();
    let mut crowd = GraphCrowd::new(g, &table, 2).expect("graph crowd");
    let e = crowd.param_any("sped").unwrap_err();
    assert!(
        e.to_string()
            .contains("\"sped\" is not in the graph (parameters: speed, go, on)"),
        "{e}"
    );
    // a parameter asked for as another kind is refused when it is found, so a setter of the
    // wrong kind cannot be called
    assert!(matches!(
        crowd.param::<kind::Trigger>("speed"),
        Err(GraphError::WrongKind { found: "float", .. })
    ));
    let speed = crowd.param::<kind::Float>("speed").unwrap();
    let go = crowd.param::<kind::Trigger>("go").unwrap();
    assert_eq!(crowd.param_any("go").unwrap().typed::<kind::Float>(), None);
    assert!(matches!(
        crowd.set_float(0, speed, f32::NAN),
        Err(GraphError::BadValue { .. })
    ));
    assert!(matches!(
        crowd.set_float(2, speed, 1.0),
        Err(GraphError::NoSuchInstance { .. })
    ));
    // an id of another graph whose index or kind does not fit this one's is refused
    let mut other = GraphBuilder::new();
    other.float("a", 0.0);
    other.float("b", 0.0);
    other.float("c", 0.0);
    let foreign = other.float("d", 0.0);
    assert!(matches!(
        crowd.set_float(0, foreign, 1.0),
        Err(GraphError::UnknownParameter { .. })
    ));
    assert_eq!(crowd.value(0, foreign), None);
    // per-instance getters answer an instance past the crowd with an error, not a panic
    assert!(matches!(
        crowd.layers(2),
        Err(GraphError::NoSuchInstance { .. })
    ));
    assert!(crowd.state(2).is_err() && crowd.transition(2).is_err());
    assert!(crowd.normalized_time(2).is_err() && crowd.commands(2).is_err());
    // the trigger is consumed by the transition it fires
    crowd.fire(1, go).unwrap();
    assert_eq!(crowd.value(1, go), Some(true));
    crowd.step(0.1);
    assert_eq!(
        (
            crowd.state(0).unwrap().index(),
            crowd.state(1).unwrap().index()
        ),
        (0, 1)
    );
    assert_eq!(crowd.value(1, go), Some(false));
}

/// A crowd is given the clip table its graph was checked against; a shorter one, or one whose
/// clips last otherwise, is an error (it used to index past the table in the step).
#[test]
fn a_crowd_refuses_a_clip_table_its_graph_was_not_checked_against() {
    let table = clips(&[("A", 1.0), ("B", 1.0)]);
    let g = Graph::from_json(TWO_STATES, "g.json", &table).unwrap();
    let short = clips(&[("A", 1.0)]);
    let e = GraphCrowd::new(g.clone(), &short, 2)
        .err()
        .expect("a shorter table");
    assert!(
        matches!(
            &e,
            GraphError::OtherClipTable {
                clip: 1,
                clips: 1,
                ..
            }
        ),
        "{e}"
    );
    let longer = clips(&[("A", 1.0), ("B", 2.5)]);
    assert!(GraphCrowd::new(g.clone(), &longer, 2).is_err());
    assert!(GraphCrowd::new(g, &table, 2).is_ok());
}

/// A 2D blend space (four clips shown) crossfading into a 1D blend space (two) needs six
/// layers; the record holds four: the four heaviest stay, in order, renormalised.
#[test]
fn layer_limit_keeps_the_heaviest_four() {
    let table = clips(&[
        ("A", 1.0),
        ("B", 1.0),
        ("C", 1.0),
        ("D", 1.0),
        ("E", 1.0),
        ("F", 1.0),
    ]);
    let g = r#"{"version": 1,
      "parameters": [{"name": "x", "type": "float", "default": 0.5},
                     {"name": "y", "type": "float", "default": 0.5},
                     {"name": "go", "type": "trigger"}],
      "states": [{"name": "grid", "motion": {"blend2d": {"x": "x", "y": "y", "points": [
                    {"clip": "A", "at": [0, 0]}, {"clip": "B", "at": [1, 0]},
                    {"clip": "C", "at": [0, 1]}, {"clip": "D", "at": [1, 1]}]}}},
                 {"name": "line", "motion": {"blend1d": {"parameter": "x", "points": [
                    {"clip": "E", "at": 0}, {"clip": "F", "at": 1}]}}}],
      "transitions": [{"from": "grid", "to": "line", "conditions": [{"parameter": "go"}],
                       "duration": 1.0}]}"#;
    let graph = Graph::from_json(g, "g.json", &table).unwrap();
    let warnings = throng_graph::lint(&graph);
    assert!(warnings
        .iter()
        .any(|p| matches!(p, Problem::TooManyLayers { layers: 6, .. })));
    let mut crowd = GraphCrowd::new(graph, &table, 1).expect("graph crowd");
    assert_eq!(
        crowd.layers(0).unwrap().len,
        4,
        "the grid alone: four corners"
    );
    let go = crowd.param("go").unwrap();
    crowd.fire(0, go).unwrap();
    crowd.step(0.25); // fires; the fade starts at 0
    crowd.step(0.5); // half way
    let set = crowd.layers(0).unwrap();
    // outgoing corners 0.25 × 0.5 = 0.125 each, incoming 0.5 × 0.5 = 0.25 each: the two
    // incoming and the first two corners stay, 0.75 in all
    let got: Vec<(u32, f32)> = set.as_slice().iter().map(|l| (l.clip, l.weight)).collect();
    let want = [
        (0, 0.125 / 0.75),
        (1, 0.125 / 0.75),
        (4, 0.25 / 0.75),
        (5, 0.25 / 0.75),
    ];
    assert_eq!(got.len(), 4);
    for (g, w) in got.iter().zip(want) {
        assert_eq!(g.0, w.0);
        assert!((g.1 - w.1).abs() < 1e-6, "{got:?}");
    }
    let r = crowd.records()[0];
    let sum: f32 = r.layers.iter().map(|l| l.weight).sum();
    assert!((sum - 1.0).abs() < 1e-6);
}

/// The same scenario stepped on 1 and 3 threads gives byte-identical records and events.
#[test]
fn any_thread_count_gives_the_same_records() {
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let (mut crowd, ps) = scenario_crowd::crowd(3 * throng_graph::CHUNK + 17);
            let mut rng = Rng(5);
            let mut out = Vec::new();
            for _ in 0..60 {
                for _ in 0..200 {
                    scenario_crowd::change(&mut crowd, &ps, &mut rng, |r| r.below(2) == 0);
                }
                crowd.step(1.0 / 60.0);
                out.extend_from_slice(bytemuck::cast_slice::<_, u8>(crowd.records()));
                out.extend(crowd.events().iter().flat_map(|e| e.instance.to_le_bytes()));
                for e in crowd.clip_events() {
                    out.extend(e.instance.to_le_bytes());
                    out.extend((e.clip.index() as u32).to_le_bytes());
                    out.extend(e.event.to_le_bytes());
                    out.extend(e.time.to_le_bytes());
                }
            }
            out
        })
    };
    assert!(run(1) == run(3));
}

/// A graph playing one clip state fires the same clip events, at the same times, as the
/// runtime playing that clip at the same speed, in every loop mode (docs/graph.md §3).
#[test]
fn clip_events_match_the_runtime_playing_the_same_clip() {
    use throng_runtime::{CpuRuntime, InstanceTransform, PlayOptions};
    for mode in [
        LoopMode::Loop,
        LoopMode::Once,
        LoopMode::Clamp,
        LoopMode::PingPong,
    ] {
        let mut table = clips(&[("A", 1.1)]);
        // at the start, inside, and at the end
        table[0].events = [0.0f32, 0.3, 1.1]
            .iter()
            .map(|&time| throng_asset::ClipEvent {
                time,
                name: format!("e{time}"),
            })
            .collect();
        let name = mode.as_str();
        let text = format!(
            r#"{{"version": 1, "states": [{{"name": "a", "speed": 1.3,
                "motion": {{"clip": {{"name": "A", "loop": "{name}"}}}}}}]}}"#
        );
        let g = Graph::from_json(&text, "one.json", &table).unwrap();
        let mut crowd = GraphCrowd::new(g, &table, 1).expect("graph crowd");
        let mut rt = CpuRuntime::new(&table);
        let h = rt.spawn(InstanceTransform::IDENTITY);
        let opts = PlayOptions {
            speed: 1.3,
            loop_mode: Some(mode),
            start_time: 0.0,
        };
        rt.instance(h).play(ClipId::new(0), opts).unwrap();
        let mut rng = Rng(11);
        let mut fired = 0;
        for frame in 0..400 {
            let dt = 0.005 + rng.unit() * 0.03;
            crowd.step(dt);
            rt.update(dt);
            let got: Vec<_> = crowd
                .clip_events()
                .iter()
                .map(|e| (e.event, e.time))
                .collect();
            let want: Vec<_> = rt.events().iter().map(|e| (e.event, e.time)).collect();
            assert_eq!(
                got.len(),
                want.len(),
                "{name} frame {frame}: {got:?} vs {want:?}"
            );
            for (a, b) in got.iter().zip(&want) {
                assert!(
                    a.0 == b.0 && (a.1 - b.1).abs() < 1e-9,
                    "{name} frame {frame}: {got:?} vs {want:?}"
                );
            }
            fired += got.len();
        }
        // a one-shot fires each event once; the loops about once per lap (~ 1.2 laps a second,
        // a ping-pong's turn events every other lap)
        let once = matches!(mode, LoopMode::Once | LoopMode::Clamp);
        assert!(
            if once { fired == 3 } else { fired > 15 },
            "{name}: {fired}"
        );
    }
}

fn assets() -> Option<PathBuf> {
    let dir =
        PathBuf::from(std::env::var("THRONG_ASSETS").unwrap_or("../../../shared/assets".into()));
    if dir.join("Fox.glb").exists() {
        Some(dir)
    } else if std::env::var("CI").is_ok() {
        panic!("Fox.glb not found under THRONG_ASSETS ({})", dir.display());
    } else {
        eprintln!("skipped: Fox.glb not found (set THRONG_ASSETS)");
        None
    }
}

/// The example graph `file` over the clips of `model` baked (as the source `name`), which must
/// lint clean, on a crowd of one; and a clip's index by name, as [`dominant_after`] names clips.
fn example_crowd(
    model: &throng_anim::Model,
    name: &str,
    file: &str,
) -> (GraphCrowd, impl Fn(&str) -> String) {
    let options = throng_bake::BakeOptions {
        source_name: name.into(),
        ..Default::default()
    };
    let table = throng_bake::bake(model, &options).expect("bake").0.clips;
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("graphs")
        .join(file);
    let graph = Graph::load(&path, &table).expect(file);
    assert!(
        throng_graph::lint(&graph).is_empty(),
        "{file}: {:?}",
        throng_graph::lint(&graph)
    );
    let crowd = GraphCrowd::new(graph, &table, 1).expect("graph crowd");
    let idx = move |n: &str| table.iter().position(|c| c.name == n).unwrap().to_string();
    (crowd, idx)
}

/// Sets `speed` on instance 0 and steps 2 s; returns the clips shown with weight ≥ 0.5.
fn dominant_after(crowd: &mut GraphCrowd, speed: f32) -> Vec<String> {
    let p = crowd.param("speed").unwrap();
    crowd.set_float(0, p, speed).unwrap();
    for _ in 0..120 {
        crowd.step(1.0 / 60.0);
    }
    crowd
        .layers(0)
        .unwrap()
        .as_slice()
        .iter()
        .filter(|l| l.weight >= 0.5)
        .map(|l| l.clip.to_string())
        .collect()
}

#[test]
fn fox_locomotion_example_walks_and_runs_by_speed() {
    let Some(dir) = assets() else { return };
    let model = throng_gltf::import(&dir.join("Fox.glb")).expect("import Fox");
    let (mut crowd, idx) = example_crowd(&model, "Fox.glb", "fox-locomotion.json");
    assert_eq!(dominant_after(&mut crowd, 0.0), [idx("Survey")]);
    assert_eq!(dominant_after(&mut crowd, 1.0), [idx("Walk")]);
    assert_eq!(dominant_after(&mut crowd, 4.0), [idx("Run")]);
    assert_eq!(dominant_after(&mut crowd, 0.0), [idx("Survey")]);
    // the one-shot: the trigger enters "look", which plays Survey once and returns
    let look = crowd.param("look").unwrap();
    crowd.fire(0, look).unwrap();
    crowd.step(1.0 / 60.0);
    assert_eq!(
        crowd.graph().states()[crowd.state(0).unwrap().index()].name(),
        "look"
    );
    let mut back = false;
    for _ in 0..300 {
        crowd.step(1.0 / 60.0);
        back |= crowd.graph().states()[crowd.state(0).unwrap().index()].name() == "idle";
    }
    assert!(back, "the one-shot returns to idle after its clip");
}

#[test]
fn demo_fox_example_walks_runs_and_sits() {
    let glb = throng_demo::demo_glb();
    let model = throng_gltf::import_slice(&glb, None, "throng-demo-fox.glb").expect("import");
    let (mut crowd, idx) = example_crowd(&model, "throng-demo-fox.glb", "demo-fox-locomotion.json");
    assert_eq!(dominant_after(&mut crowd, 0.0), [idx("idle")]);
    assert_eq!(dominant_after(&mut crowd, 1.0), [idx("walk")]);
    assert_eq!(dominant_after(&mut crowd, 3.0), [idx("run")]);
    assert_eq!(dominant_after(&mut crowd, 0.0), [idx("idle")]);
    let sit = crowd.param("sit").unwrap();
    crowd.fire(0, sit).unwrap();
    assert_eq!(dominant_after(&mut crowd, 0.0), [idx("sit")]);
    let enter = crowd
        .graph()
        .events()
        .iter()
        .position(|e| e == "sitting_down");
    assert!(enter.is_some());
}

/// Fuzz finding (graph_reader, oom-ee01b9d4): a float default of 5.7e73 became infinity as an
/// f32, so a speed multiplier made the normalised time infinite and the clip events' crossings
/// ran without end. Numbers past f32 are errors now; a finite but runaway speed fires at most
/// `MAX_LAPS` laps of events a step.
#[test]
fn numbers_past_f32_are_errors_and_runaway_speeds_stay_bounded() {
    let mut table = clips(&[("idle", 2.0)]);
    table[0].events = vec![throng_asset::ClipEvent {
        time: 0.5,
        name: "e".into(),
    }];
    let huge = r#"{"version": 1, "parameters": [{"name": "mult", "type": "float",
        "default": 5722222222222222222222222222222222222222222222222222222222222222222222222}],
      "states": [{"name": "idle", "motion": {"clip": {"name": "idle"}},
        "speed_parameter": "mult"}]}"#;
    assert!(matches!(
        invalid(huge, &table),
        Problem::BadNumber {
            what: "the default",
            ..
        }
    ));
    let fast = r#"{"version": 1, "parameters": [{"name": "mult", "type": "float",
        "default": 3e38}],
      "states": [{"name": "idle", "speed": 3e38, "motion": {"clip": {"name": "idle"}},
        "speed_parameter": "mult"}]}"#;
    let g = Graph::from_json(fast, "g.json", &table).expect("finite numbers");
    let mut crowd = GraphCrowd::new(g, &table, 2).expect("graph crowd");
    for _ in 0..4 {
        crowd.step(1.0 / 60.0);
        assert!(crowd.clip_events().len() <= 2 * throng_runtime::MAX_LAPS as usize);
    }
    // a state's speed is read as an f32 already: past it, serde's "number out of range"
    let slow = r#"{"version": 1, "states": [{"name": "idle", "speed": 1e39,
        "motion": {"clip": {"name": "idle"}}}]}"#;
    assert!(matches!(
        Graph::from_json(slow, "g.json", &table),
        Err(GraphError::Json { .. })
    ));
    // NaN is not JSON: the message says so and what to write instead
    let nan = r#"{"version": 1, "states": [{"name": "idle", "speed": NaN,
        "motion": {"clip": {"name": "idle"}}}]}"#;
    let e = Graph::from_json(nan, "g.json", &table).expect_err("NaN is not JSON");
    assert!(e.to_string().contains("JSON has no NaN or Infinity"), "{e}");
    assert!(!Graph::from_json(slow, "g.json", &table)
        .expect_err("out of range")
        .to_string()
        .contains("NaN"));
}

/// Fuzz finding (graph_reader, oom-e1598551): a finite speed multiplier of 8.2e16 carried the
/// normalised time past 2^53 laps within a few steps, where the crossing rule's lap count
/// stopped growing (`k + 1 == k`) and the crossings never ended. Now the multiplier is held to
/// `MAX_SPEED` (500 cycles a second here), a normalised time folds back by 2^29 cycles once it
/// reaches 2^30 (docs/graph.md "Time"), so positions stay far inside f64's exact range; a step
/// fires at most `MAX_LAPS` laps, and a step whose end passes `MAX_CYCLES` none.
#[test]
fn normalised_times_past_max_cycles_fire_no_clip_events() {
    let mut table = clips(&[("idle", 2.0)]);
    table[0].events = [0.0f32, 1.0, 2.0]
        .iter()
        .map(|&time| throng_asset::ClipEvent {
            time,
            name: "e".into(),
        })
        .collect();
    let text = r#"{"version": 1, "parameters": [{"name": "mult", "type": "float",
        "default": 82333589432551871}],
      "states": [{"name": "idle", "motion": {"clip": {"name": "idle"}},
        "speed_parameter": "mult"}]}"#;
    let g = Graph::from_json(text, "g.json", &table).expect("finite numbers");
    let mut crowd = GraphCrowd::new(g, &table, 3).expect("graph crowd");
    for k in 0..64 {
        crowd.step(if k < 32 { 1.0 / 60.0 } else { 1.0e6 });
        assert!(crowd.clip_events().len() <= 3 * 3 * (throng_runtime::MAX_LAPS as usize + 2));
        let t = crowd.normalized_time(0).unwrap();
        assert!(t.is_finite() && t < (1u64 << 30) as f64, "{t}");
    }
    // the long steps folded it: 32 × 1e6 s at 500 cycles a second is 1.6e10 cycles
    assert!(crowd.normalized_time(0).unwrap() >= (1u64 << 29) as f64);
}

/// The builder is the one way to a graph: the demo fox's locomotion graph made in code equals
/// the one read from its JSON file, writes back the same graph, and a mistake made in code is
/// reported by element as in a file.
#[test]
fn a_graph_built_in_code_equals_the_one_read_from_its_file() {
    use throng_graph::{Interruption, LoopMode as Mode};
    let table = clips(&[("idle", 2.0), ("walk", 1.0), ("run", 0.6), ("sit", 1.5)]);
    let mut b = GraphBuilder::new();
    let speed = b.float("speed", 0.0);
    let sit = b.trigger("sit");
    let idle = b.clip_state("idle", "idle").id();
    let moving = (b.blend1d_state("move", speed, &[(1.0, "walk"), (3.0, "run")])).id();
    let sitting = (b.clip_state("sit", "sit"))
        .loop_mode(Mode::Once)
        .on_enter("sitting_down")
        .on_exit("standing_up")
        .id();
    b.entry(idle);
    b.transition(idle, sitting).when(sit.fired()).crossfade(0.3);
    (b.transition(sitting, moving))
        .exit_time(1.0)
        .when(speed.greater(0.1))
        .crossfade(0.4);
    (b.transition(idle, moving))
        .when(speed.greater(0.1))
        .crossfade(0.25)
        .interruption(Interruption::Target);
    (b.transition(moving, idle))
        .when(speed.less_eq(0.1))
        .crossfade(0.3)
        .interruption(Interruption::Target);
    let built = b.build(&table).expect("the demo graph");
    let read = Graph::from_json(throng_graph::DEMO_FOX_LOCOMOTION, "demo.json", &table).unwrap();
    assert_eq!(built, read);
    let again = Graph::from_json(&b.to_json(), "again.json", &table).unwrap();
    assert_eq!(again, read);
    // the ids the builder handed out are the built graph's
    assert_eq!(built.param::<kind::Float>("speed").unwrap(), speed);
    assert_eq!(built.state_id("sit"), Some(sitting));
    let enter = built.states()[sitting.index()].on_enter().unwrap();
    assert_eq!(built.event_name(enter), Some("sitting_down"));
    // a mistake in code: a clip the table lacks and a negative speed, both by element
    let mut bad = GraphBuilder::new();
    bad.clip_state("jump", "Jump").speed(-1.0);
    let problems = bad.check(&table).unwrap_err();
    assert!(
        matches!(&problems[..], [Problem::UnknownClip { element, .. }, Problem::BadNumber { what: "the speed", .. }] if element == "state \"jump\""),
        "{problems:?}"
    );
    let e = bad.build(&table).unwrap_err().to_string();
    assert!(
        e.starts_with("graph builder: state \"jump\": clip \"Jump\""),
        "{e}"
    );
    assert!(e.contains("(and 1 more problem)"), "{e}");
}

/// docs/graph.md's loop: a graph crowd attached to a runtime follows its spawns and despawns
/// and is found by handle; after a despawn, the attached crowd steps to the same records as a
/// crowd built from the survivors alone (CPU-timed), and GPU-timed it drives the runtime
/// through `with_data`.
#[test]
fn a_graph_attached_to_a_runtime_follows_its_instances() {
    use throng_graph::drive_gpu;
    use throng_runtime::{InstanceTransform, Runtime, Timing};
    let table = clips(&[("A", 1.0), ("B", 0.5)]);
    let graph = Graph::from_json(TWO_STATES, "g.json", &table).unwrap();
    for timing in [Timing::Cpu, Timing::Gpu] {
        let mut rt = Runtime::new(timing, &table);
        let hs: Vec<_> = (0..4)
            .map(|_| rt.spawn(InstanceTransform::IDENTITY))
            .collect();
        let crowd = GraphCrowd::new(graph.clone(), &table, rt.len()).expect("graph crowd");
        rt.attach(crowd).expect("one per instance");
        let go = graph.param::<kind::Trigger>("go").unwrap();
        let (g, i) = rt.data_of::<GraphCrowd>(hs[3]).expect("attached");
        g.fire(i, go).expect("fire");
        rt.despawn(hs[0]).expect("live"); // hs[3] moves into index 0, with its trigger
        let late = rt.spawn(InstanceTransform::IDENTITY);
        assert_eq!(rt.data::<GraphCrowd>().map(GraphCrowd::len), Some(4));
        let (g, i) = rt.data_of::<GraphCrowd>(hs[3]).expect("attached");
        assert_eq!((i, g.value(i, go)), (0, Some(true)), "{timing:?}");
        let (g, i) = rt.data_of::<GraphCrowd>(late).expect("attached");
        assert_eq!(g.value(i, go), Some(false), "a new instance starts unset");
        let cpu_timed = rt.cpu().is_some();
        for _ in 0..10 {
            match rt.data_mut::<GraphCrowd>() {
                Some(g) if cpu_timed => g.step(0.05),
                Some(g) => g.step_states(0.05),
                None => {}
            }
            match rt.cpu_mut() {
                Some(cpu) => cpu.advance_clock(0.05),
                None => rt.update(0.05),
            }
            if !cpu_timed {
                let handles: Vec<_> = (0..rt.len()).filter_map(|i| rt.handle_at(i)).collect();
                let told = rt.with_data::<GraphCrowd, _>(|g, rt| drive_gpu(g, rt, &handles));
                assert!(matches!(told, Some(Ok(_))), "{told:?}");
            }
        }
        let g = rt.data::<GraphCrowd>().expect("attached");
        let fired = g
            .state(0)
            .ok()
            .and_then(|s| g.graph().state(s))
            .map(|s| s.name());
        assert_eq!(
            fired,
            Some("b"),
            "{timing:?}: the moved instance kept its trigger"
        );
        assert_eq!(g.state(1).ok().map(|s| s.index()), Some(0), "{timing:?}");
    }
}
