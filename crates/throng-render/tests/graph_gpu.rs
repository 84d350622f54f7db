//! Animation graphs stepped on the GPU against the CPU step, exactly (docs/graph.md "On the
//! GPU"), on the default backend (lavapipe in CI).

#[path = "common/graph_gpu.rs"]
mod graph_gpu;

#[test]
fn the_gpu_graph_step_equals_the_cpu_step() {
    let Some(gpu) = throng_render::device::test_gpu() else {
        return;
    };
    graph_gpu::graph_gpu_scenario(&gpu, "default backend");
}

/// What the GPU graph step cannot apply is refused with a typed error naming it, and nothing
/// is stepped: tables whose indices leave them, machines naming a state the graph lacks,
/// non-finite parameter values, a change past the crowd, a parameter set twice in one step,
/// a NaN value.
#[test]
fn the_gpu_graph_step_refuses_what_it_cannot_apply() {
    use throng_graph::{GraphCrowd, GraphLayout};
    use throng_render::graph_pass::{GraphPass, GraphTables};
    use throng_render::RenderError;
    let Some(gpu) = throng_render::device::test_gpu() else {
        return;
    };
    let g = graph_gpu::scenario_graph();
    let clips = graph_gpu::scenario_clips();
    let crowd = GraphCrowd::new(g.clone(), &clips, 10).expect("crowd");
    let layout = GraphLayout::new(&g, &clips);
    let machines: Vec<u32> = (0..10)
        .flat_map(|i| crowd.machine_words(i).unwrap())
        .collect();
    let values: Vec<f32> = (0..10)
        .flat_map(|i| crowd.parameter_values(i).unwrap().to_vec())
        .collect();
    let table = throng_asset::gpu_clip_table(&clips);
    let make = |states: &[u32], machines: &[u32], values: &[f32]| {
        let tables = GraphTables {
            states,
            clips: &layout.clips,
            axes: &layout.axes,
            transitions: &layout.transitions,
            conditions: &layout.conditions,
            lists: &layout.lists,
            clip_events: &layout.clip_events,
            events: &layout.events,
            stride: layout.stride,
            max_speed: layout.max_speed,
        };
        GraphPass::new(
            &gpu,
            tables,
            &table,
            machines,
            values,
            throng_render::graph_pass::EventCapacity {
                state: 64,
                clip: 64,
            },
        )
    };
    let refused = |r: Result<GraphPass, RenderError>, what: &str| match r {
        Err(RenderError::BadGraph(m)) => assert!(m.contains(what), "{m}"),
        Err(e) => panic!("{what}: another error: {e}"),
        Ok(_) => panic!("{what}: accepted"),
    };
    // a state's leaving list past the lists table
    let mut states = layout.states.clone();
    states[15] = 1_000;
    refused(make(&states, &machines, &values), "state 0");
    // a machine in state 999
    let mut bad = machines.clone();
    bad[21] = 999;
    refused(make(&layout.states, &bad, &values), "instance 0");
    let mut nan = values.clone();
    nan[1] = f32::NAN;
    refused(make(&layout.states, &machines, &nan), "is NaN");
    refused(
        make(&layout.states, &machines[..30], &values),
        "machine words",
    );

    let mut pass = make(&layout.states, &machines, &values).expect("a good crowd");
    let before = pass.read_machines(&gpu).expect("machines");
    let stride = layout.stride;
    let fails = |pass: &mut GraphPass, changes: &[[u32; 4]], what: &str| match pass
        .step(&gpu, 17_476, changes)
    {
        Err(RenderError::BadGraph(m)) => assert!(m.contains(what), "{m}"),
        other => panic!("{what}: {other:?}"),
    };
    fails(&mut pass, &[[10, 0, 1f32.to_bits(), 0]], "past the crowd");
    fails(
        &mut pass,
        &[[0, stride, 1f32.to_bits(), 0]],
        "past the crowd",
    );
    fails(&mut pass, &[[3, 0, f32::INFINITY.to_bits(), 0]], "finite");
    let twice = [[3, 0, 1f32.to_bits(), 0], [3, 0, 2f32.to_bits(), 0]];
    fails(&mut pass, &twice, "set twice");
    assert_eq!(
        pass.read_machines(&gpu).expect("machines"),
        before,
        "nothing stepped"
    );
    // the marks of a refused step are cleared: the same change alone is taken
    pass.step(&gpu, 17_476, &twice[..1]).expect("one change");
}

/// A list that fills keeps the first events appended and reports the loss; the other kind's
/// list is unaffected; a clip with more events than the GPU step takes is refused.
#[test]
fn the_gpu_graph_step_reports_lost_events() {
    use throng_graph::GraphCrowd;
    use throng_render::graph_pass::EventCapacity;
    use throng_render::RenderError;
    let Some(gpu) = throng_render::device::test_gpu() else {
        return;
    };
    let clips = graph_gpu::scenario_clips();
    let n = 200;
    let g = graph_gpu::scenario_graph();
    let mut crowd = GraphCrowd::new(g.clone(), &clips, n).expect("crowd");
    // a spread of states: random parameters over a second of play
    let params: Vec<_> = (g.parameters().iter())
        .map(|p| crowd.param_any(p.name()).unwrap())
        .collect();
    let mut rng = graph_gpu::Rng(5);
    for _ in 0..30 {
        for _ in 0..n {
            graph_gpu::random_change(&mut rng, &g, &params, &mut crowd);
        }
        // whole ticks, so the crowd's clock carries nothing into the compared step
        crowd.step(34_953.0 / 1_048_576.0);
    }
    let small = EventCapacity {
        state: 2 * n as u32,
        clip: 3,
    };
    let mut pass = graph_gpu::pass_for(&gpu, &crowd, &clips, small);
    // two seconds: every walking instance crosses its footsteps
    let ticks = 2 * 1_048_576;
    crowd.step(ticks as f64 / 1_048_576.0);
    pass.step(&gpu, ticks, &[]).expect("step");
    let got = pass.read_events(&gpu).expect("events");
    let want: Vec<[u32; 4]> = (crowd.clip_events().iter())
        .map(|e| [e.instance, e.clip.index() as u32, e.event, e.step_fraction])
        .collect();
    assert!(want.len() > 3, "{} clip events", want.len());
    assert!(got.clip_lost && !got.state_lost, "{got:?}");
    // listed in instance order on the GPU, whole instances kept: the first of the CPU's list
    let kept: Vec<[u32; 4]> = (got.clip.iter())
        .map(|w| [w[0], w[1], w[2], w[4]])
        .collect();
    assert!(!kept.is_empty() && kept.len() <= 3, "{kept:?}");
    assert_eq!(kept, want[..kept.len()]);
    assert_ne!(
        want[kept.len()][0],
        kept[kept.len() - 1][0],
        "an instance cut short"
    );
    assert_eq!(got.state.len(), crowd.events().len());

    // 300 events on one clip: over the GPU step's bound
    let mut busy = clips.clone();
    busy[1].events = (0..300)
        .map(|k| throng_asset::ClipEvent {
            time: k as f32 / 300.0,
            name: format!("e{k}"),
        })
        .collect();
    let crowd = GraphCrowd::new(graph_gpu::scenario_graph(), &busy, 4).expect("crowd");
    match graph_gpu::try_pass_for(&gpu, &crowd, &busy, small) {
        Err(RenderError::BadGraph(m)) => assert!(m.contains("300 events"), "{m}"),
        Err(e) => panic!("another error: {e}"),
        Ok(_) => panic!("accepted"),
    }
    // event lists larger than a buffer may be: refused, naming the capacity
    let huge = EventCapacity {
        state: u32::MAX,
        clip: u32::MAX,
    };
    let crowd = GraphCrowd::new(graph_gpu::scenario_graph(), &clips, 4).expect("crowd");
    match graph_gpu::try_pass_for(&gpu, &crowd, &clips, huge) {
        Err(RenderError::BadGraph(m)) => assert!(m.contains("EventCapacity"), "{m}"),
        Err(e) => panic!("another error: {e}"),
        Ok(_) => panic!("accepted"),
    }
}

/// The pass of `n` instances of the scenario graph after a random parameter change each, with
/// room for 4,096 clip events a step.
fn scenario_pass(gpu: &throng_render::Gpu, n: usize) -> throng_render::graph_pass::GraphPass {
    use throng_graph::GraphCrowd;
    use throng_render::graph_pass::EventCapacity;
    let clips = graph_gpu::scenario_clips();
    let g = graph_gpu::scenario_graph();
    let mut crowd = GraphCrowd::new(g.clone(), &clips, n).expect("crowd");
    let params: Vec<_> = (g.parameters().iter())
        .map(|p| crowd.param_any(p.name()).unwrap())
        .collect();
    let mut rng = graph_gpu::Rng(11);
    for _ in 0..n {
        graph_gpu::random_change(&mut rng, &g, &params, &mut crowd);
    }
    graph_gpu::pass_for(gpu, &crowd, &clips, EventCapacity::for_crowd(n, 4096))
}

/// Events taken a frame late (`queue_event_reads`, `take_events`): each step's once, equal to
/// what `read_events` gives for it; a step drops the last step's copy that was not taken;
/// nothing before a step, after a take, or once turned off.
#[test]
fn the_gpu_graph_steps_events_are_taken_once_a_frame_late() {
    let Some(gpu) = throng_render::device::test_gpu() else {
        return;
    };
    let mut pass = scenario_pass(&gpu, 300);
    // half a second a step: every walking instance crosses a footstep
    let ticks = 1 << 19;

    // not asked for: nothing to take
    pass.step(&gpu, ticks, &[]).expect("step");
    assert_eq!(pass.take_events(&gpu).expect("take"), None);

    pass.queue_event_reads(&gpu, true);
    assert_eq!(pass.take_events(&gpu).expect("take"), None, "before a step");
    let mut lists = Vec::new();
    for _ in 0..3 {
        pass.step(&gpu, ticks, &[]).expect("step");
        let now = pass.read_events(&gpu).expect("read");
        assert!(!now.clip.is_empty(), "the scenario fires clip events");
        assert_eq!(pass.take_events(&gpu).expect("take"), Some(now.clone()));
        assert_eq!(pass.take_events(&gpu).expect("take"), None, "taken once");
        lists.push(now);
    }
    assert_ne!(lists[0], lists[1], "steps fire different events");

    // not taken: the next step drops it, and its own is what is taken
    pass.step(&gpu, ticks, &[]).expect("step");
    pass.step(&gpu, ticks, &[]).expect("step");
    let last = pass.read_events(&gpu).expect("read");
    assert_eq!(pass.take_events(&gpu).expect("take"), Some(last));

    // turned off: a pending copy is dropped, and steps queue none
    pass.step(&gpu, ticks, &[]).expect("step");
    pass.queue_event_reads(&gpu, false);
    assert_eq!(pass.take_events(&gpu).expect("take"), None);
    pass.step(&gpu, ticks, &[]).expect("step");
    assert_eq!(pass.take_events(&gpu).expect("take"), None);
}

/// Never waiting (`never_wait_for_events`, a browser's way, where a mapping resolves only after
/// the page's task returns): copies are taken once they have arrived, every waiting step's,
/// oldest first and numbered; switching back to waiting keeps the newest copy only; past `LATE_EVENT_COPIES` waiting copies the oldest is dropped; a step that
/// keeps more events than its copy holds returns the part it holds with the rest reported
/// lost, and the room grows so the next such step comes whole.
#[test]
fn never_waiting_takes_the_arrived_copies_in_order_and_reports_what_it_lost() {
    let Some(gpu) = throng_render::device::test_gpu() else {
        return;
    };
    let mut pass = scenario_pass(&gpu, 1000);
    let ticks = 1 << 19;
    // from the start the crowd fires no clip events yet: a step first
    pass.step(&gpu, ticks, &[]).expect("step");
    pass.queue_event_reads(&gpu, true);
    pass.never_wait_for_events(true);
    // never waiting a copy has room for the step's capacity; smaller here, to see a list
    // longer than its copy
    pass.set_late_event_room(256, 256);
    let step = |pass: &mut throng_render::graph_pass::GraphPass| {
        pass.step(&gpu, ticks, &[]).expect("step");
        (pass.steps() - 1, pass.read_events(&gpu).expect("read"))
    };

    // the first step keeps more clip events than a new copy's room (256): the part it holds,
    // the rest reported lost
    let (first, whole) = step(&mut pass);
    assert!(whole.clip.len() > 256, "{} clip events", whole.clip.len());
    pass.wait(&gpu).expect("wait");
    let taken = pass.take_arrived_events(&gpu).expect("take");
    assert_eq!(taken.len(), 1);
    let (number, part) = &taken[0];
    assert_eq!(*number, first);
    assert!(
        part.clip_lost && part.clip.len() == 256,
        "{}",
        part.clip.len()
    );
    // the copy holds a prefix of the list in instance order: whole instances up to the last
    let last = part.clip[255][0];
    let whole_instances = part.clip.iter().position(|e| e[0] == last).unwrap_or(0);
    assert!(whole_instances > 0);
    assert_eq!(part.clip[..whole_instances], whole.clip[..whole_instances]);
    assert!(
        !part.state_lost && part.state == whole.state,
        "the state events fit the copy"
    );
    // the room grows to what steps keep (the next steps keep more state events than 256)
    for _ in 0..3 {
        let (number, whole) = step(&mut pass);
        pass.wait(&gpu).expect("wait");
        let taken = pass.take_arrived_events(&gpu).expect("take");
        assert_eq!(taken.len(), 1);
        assert_eq!(taken[0].0, number);
        let part = &taken[0].1;
        if !part.state_lost && !part.clip_lost {
            assert_eq!(*part, whole);
        }
    }

    // two steps not taken in between come whole, oldest first
    let a = step(&mut pass);
    let b = step(&mut pass);
    pass.wait(&gpu).expect("wait");
    let taken = pass.take_arrived_events(&gpu).expect("take");
    assert_eq!(taken, vec![a, b]);
    assert!(
        pass.take_arrived_events(&gpu).expect("again").is_empty(),
        "taken once"
    );

    // two more steps than copies wait, none taken: the newest copies wait, the two oldest were
    // dropped
    let copies = throng_render::graph_pass::LATE_EVENT_COPIES;
    let steps: Vec<_> = (0..copies + 2).map(|_| step(&mut pass)).collect();
    pass.wait(&gpu).expect("wait");
    let taken = pass.take_arrived_events(&gpu).expect("take");
    assert_eq!(taken, steps[2..].to_vec());

    // back to waiting with three steps' copies pending: only the newest is taken
    let steps: Vec<_> = (0..3).map(|_| step(&mut pass)).collect();
    pass.never_wait_for_events(false);
    let taken = pass.take_arrived_events(&gpu).expect("take");
    assert_eq!(taken, steps[2..].to_vec());
}
