//! `GraphCrowd::swap_remove` keeps a graph crowd in a runtime's dense order: removing an
//! instance moves the last one into its index with its state and parameters, so the crowd then
//! steps exactly as a crowd that never had the removed instance (same records, bit for bit, and
//! the same state and clip events by index).

mod common;

use common::{scenario_clips, scenario_graph, Rng};
use throng_graph::{GraphCrowd, Param, ParamKind};

/// Sets a random parameter of a random instance of `n`, on every crowd of `crowds` through its
/// own index map (`None`: that crowd does not hold the instance).
fn random_set(
    rng: &mut Rng,
    ps: &[Param],
    n: usize,
    crowds: &mut [(&mut GraphCrowd, &[Option<usize>])],
) {
    let i = rng.below(n as u64) as usize;
    let p = ps[rng.below(ps.len() as u64) as usize];
    let (f, k, b) = (
        rng.unit() as f32 * 3.0,
        rng.below(3) as i32,
        rng.below(2) == 0,
    );
    for (crowd, map) in crowds.iter_mut() {
        let Some(j) = map[i] else {
            continue;
        };
        let done = match p.kind() {
            ParamKind::Float => crowd.set_float(j, p.typed().unwrap(), f),
            ParamKind::Int => crowd.set_int(j, p.typed().unwrap(), k),
            ParamKind::Bool => crowd.set_bool(j, p.typed().unwrap(), b),
            ParamKind::Trigger => crowd.fire(j, p.typed().unwrap()),
        };
        done.expect("set");
    }
}

#[test]
fn a_removed_instance_leaves_the_crowd_as_if_it_never_was() {
    let (graph, clips) = (scenario_graph(), scenario_clips());
    let ps: Vec<Param> = graph
        .parameters()
        .iter()
        .map(|p| graph.param_any(p.name()).expect("parameter"))
        .collect();
    // a: instances 0..5, later instance 1 removed (4 takes its index);
    // b: only 0, 4, 2, 3 from the start, in the order a has after the removal.
    let mut a = GraphCrowd::new(graph.clone(), &clips, 5).expect("graph crowd");
    let mut b = GraphCrowd::new(graph, &clips, 4).expect("graph crowd");
    let a_map: Vec<Option<usize>> = (0..5).map(Some).collect();
    let b_map = [Some(0), None, Some(2), Some(3), Some(1)];
    let mut rng = Rng(11);
    let dt = 1.0 / 30.0;
    for _ in 0..45 {
        for _ in 0..2 {
            random_set(&mut rng, &ps, 5, &mut [(&mut a, &a_map), (&mut b, &b_map)]);
        }
        a.step(dt);
        b.step(dt);
    }
    a.swap_remove(1);
    assert_eq!(a.len(), 4);
    let after = [Some(0), None, Some(2), Some(3), Some(1)];
    let mut events = 0;
    for frame in 0..90 {
        for _ in 0..2 {
            random_set(&mut rng, &ps, 5, &mut [(&mut a, &after), (&mut b, &b_map)]);
        }
        a.step(dt);
        b.step(dt);
        assert!(
            bytemuck::cast_slice::<_, u8>(a.records())
                == bytemuck::cast_slice::<_, u8>(b.records()),
            "frame {frame}: records differ"
        );
        assert_eq!(a.events(), b.events(), "frame {frame}: state events");
        assert_eq!(
            a.clip_events(),
            b.clip_events(),
            "frame {frame}: clip events"
        );
        events += a.events().len();
    }
    assert!(
        events > 0,
        "the scenario fired no state event after the removal"
    );
    // past the end: nothing happens
    a.swap_remove(9);
    assert_eq!(a.len(), 4);
}
