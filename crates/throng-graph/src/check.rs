//! Lints of a checked graph (warnings): what loads but is probably a mistake. The errors come
//! from [`crate::GraphBuilder::check`]; [`check`] reports both.

use throng_asset::ClipInfo;
use throng_contract::MAX_LAYERS;

use crate::error::Problem;
use crate::file::GraphFile;
use crate::graph::{Graph, Transition};

/// Every problem of a graph file against a clip table: the errors that stop it loading, or —
/// when it loads — the warnings of [`lint`].
pub fn check(file: &GraphFile, clips: &[ClipInfo]) -> Vec<Problem> {
    match Graph::resolve(file, clips) {
        Ok(g) => lint(&g),
        Err(problems) => problems,
    }
}

/// Warnings: unreachable states, cycles of zero-duration transitions, transitions that need
/// more layers than the record holds.
pub fn lint(g: &Graph) -> Vec<Problem> {
    let mut out = Vec::new();
    unreachable(g, &mut out);
    zero_cycles(g, &mut out);
    layers(g, &mut out);
    out
}

fn unreachable(g: &Graph, out: &mut Vec<Problem>) {
    let n = g.states.len();
    let mut seen = vec![false; n];
    let mut stack = vec![g.entry];
    seen[g.entry] = true;
    while let Some(s) = stack.pop() {
        for t in &g.transitions {
            if (t.from.is_none() || t.from == Some(s)) && !seen[t.to] {
                seen[t.to] = true;
                stack.push(t.to);
            }
        }
    }
    for (s, reached) in seen.iter().enumerate() {
        if !reached {
            out.push(Problem::Unreachable {
                state: g.states[s].name.clone(),
                entry: g.states[g.entry].name.clone(),
            });
        }
    }
}

/// Whether `t` can take an instance from `s` to `t.to` (an any-state transition never fires
/// into the state the instance is in).
fn leaves(t: &Transition, s: usize) -> bool {
    match t.from {
        Some(f) => f == s,
        None => t.to != s,
    }
}

fn zero_cycles(g: &Graph, out: &mut Vec<Problem>) {
    let n = g.states.len();
    let zero: Vec<&Transition> = g.transitions.iter().filter(|t| t.duration == 0.0).collect();
    // colour: 0 unvisited, 1 on the path, 2 done; one cycle reported per back edge
    let mut colour = vec![0u8; n];
    let mut path = Vec::new();
    for start in 0..n {
        if colour[start] == 0 {
            dfs(g, &zero, start, &mut colour, &mut path, out);
        }
    }
}

fn dfs(
    g: &Graph,
    zero: &[&Transition],
    s: usize,
    colour: &mut [u8],
    path: &mut Vec<usize>,
    out: &mut Vec<Problem>,
) {
    colour[s] = 1;
    path.push(s);
    for t in zero.iter().filter(|t| leaves(t, s)) {
        match colour[t.to] {
            0 => dfs(g, zero, t.to, colour, path, out),
            1 => {
                let from = path.iter().position(|&p| p == t.to).unwrap_or(0);
                let mut names: Vec<&str> = path[from..]
                    .iter()
                    .map(|&p| g.states[p].name.as_str())
                    .collect();
                names.push(&g.states[t.to].name);
                out.push(Problem::ZeroCycle {
                    path: names
                        .iter()
                        .map(|n| format!("\"{n}\""))
                        .collect::<Vec<_>>()
                        .join(" -> "),
                });
            }
            _ => {}
        }
    }
    path.pop();
    colour[s] = 2;
}

fn layers(g: &Graph, out: &mut Vec<Problem>) {
    for (i, t) in g.transitions.iter().enumerate() {
        if t.duration == 0.0 {
            continue;
        }
        let from = match t.from {
            Some(f) => g.states[f].motion.max_layers(),
            None => g
                .states
                .iter()
                .enumerate()
                .filter(|&(s, _)| s != t.to)
                .map(|(_, s)| s.motion.max_layers())
                .max()
                .unwrap_or(0),
        };
        let need = from + g.states[t.to].motion.max_layers();
        if need > MAX_LAYERS {
            out.push(Problem::TooManyLayers {
                element: g.transition_label(i),
                layers: need,
                max: MAX_LAYERS,
            });
        }
    }
}
