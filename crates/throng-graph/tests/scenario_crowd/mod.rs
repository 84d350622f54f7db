//! The scenario graph played by a randomised crowd, for the tests that step it and compare or
//! count what the steps do.
#![allow(dead_code)]

use crate::common::{scenario_clips, scenario_graph, Rng};
use throng_graph::{GraphCrowd, Param, ParamKind};

/// A crowd of `n` on the scenario graph, and every parameter of the graph.
pub fn crowd(n: usize) -> (GraphCrowd, Vec<Param>) {
    let g = scenario_graph();
    let crowd = GraphCrowd::new(g.clone(), &scenario_clips(), n).expect("graph crowd");
    let ps = (g.parameters().iter())
        .map(|p| crowd.param_any(p.name()).expect("a declared parameter"))
        .collect();
    (crowd, ps)
}

/// One parameter change: a random parameter of a random instance set to a random value (a
/// float in [0, 3), an int in 0..3, a bool drawn by `bool_of`) or fired. A refused value is
/// an answer, not a failure.
pub fn change(crowd: &mut GraphCrowd, ps: &[Param], rng: &mut Rng, bool_of: fn(&mut Rng) -> bool) {
    let i = rng.below(crowd.len() as u64) as usize;
    let p = ps[rng.below(ps.len() as u64) as usize];
    let _ = match p.kind() {
        ParamKind::Float => crowd.set_float(i, p.typed().unwrap(), rng.unit() as f32 * 3.0),
        ParamKind::Int => crowd.set_int(i, p.typed().unwrap(), rng.below(3) as i32),
        ParamKind::Bool => crowd.set_bool(i, p.typed().unwrap(), bool_of(rng)),
        ParamKind::Trigger => crowd.fire(i, p.typed().unwrap()),
    };
}
