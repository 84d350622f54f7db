//! `Graph::standing_of_words` (what a front end shows of a machine a GPU step wrote) reads a
//! machine's words as `GraphCrowd::state` and `GraphCrowd::transition` report the machine:
//! the scenario graph under random parameter changes, every instance, every frame.

mod common;

use common::{random_change, scenario_clips, scenario_graph, Rng};
use throng_graph::gpu_layout::MachineStanding;
use throng_graph::GraphCrowd;

#[test]
fn a_machines_words_stand_where_the_crowd_says() {
    let (g, clips) = (scenario_graph(), scenario_clips());
    let n = 64;
    let mut crowd = GraphCrowd::new(g.clone(), &clips, n).expect("graph crowd");
    let params: Vec<_> = (g.parameters().iter())
        .map(|p| crowd.param_any(p.name()).unwrap())
        .collect();
    let mut rng = Rng(7);
    let (mut running, mut states) = (0usize, vec![false; g.states().len()]);
    for frame in 0..400 {
        for _ in 0..4 {
            random_change(&mut rng, &g, &params, &mut crowd);
        }
        crowd.step(1.0 / 60.0);
        for i in 0..n {
            let want = MachineStanding {
                state: crowd.state(i).unwrap(),
                transition: crowd.transition(i).unwrap(),
            };
            let got = g.standing_of_words(&crowd.machine_words(i).unwrap());
            assert_eq!(got, Some(want), "frame {frame}, instance {i}");
            running += usize::from(want.transition.is_some());
            states[want.state.index()] = true;
        }
    }
    // the check saw transitions under way and most states
    assert!(running > 1_000, "{running} instance-frames in a transition");
    let seen = states.iter().filter(|&&s| s).count();
    assert!(
        seen * 2 > states.len(),
        "{seen} of {} states seen",
        states.len()
    );
}
