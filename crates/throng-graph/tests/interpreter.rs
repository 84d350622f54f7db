//! The bulk step against a plain per-instance interpreter written here from docs/graph.md
//! ("Evaluation", "Layers"): one instance at a time, vectors instead of fixed arrays, sharing
//! only the checked graph's data with the library (none of its evaluation code). Randomised
//! scenarios over every state and transition kind: the same clips, clip times and weights
//! (1e-6), the same state events and clip events in the same frames (clip events: the same
//! clip and event, in the same order, times within 1e-9 s; crossings enumerated here cycle by
//! cycle, not by the runtime's rule), and records equal to the contract's time rules applied
//! to the interpreter's layers.

mod common;

use common::{random_change, scenario_clips, scenario_graph, Rng};
use throng_asset::{ClipInfo, LoopMode};
use throng_contract::ClipFrames;
use throng_graph::{
    DurationUnit, EventKind, Graph, GraphCrowd, Interruption, Motion, ParamKind, Test,
};

#[derive(Clone)]
struct Shown {
    state: usize,
    phase: f64,
    share: f32,
    /// Not advanced since it was entered.
    fresh: bool,
}

#[derive(Clone)]
struct Fade {
    transition: usize,
    elapsed: f64,
    length: f64,
}

#[derive(Clone)]
struct Instance {
    params: Vec<f32>,
    state: usize,
    phase: f64,
    left: usize,
    outgoing: Vec<Shown>,
    fade: Option<Fade>,
    fresh: bool,
}

/// (clip, loop mode, clip time, weight)
type Out = (u32, LoopMode, f64, f32);

/// (instance, state, event name index, is entry)
type Ev = (u32, u16, u32, bool);

/// (instance, clip, event index, seconds)
type ClipEv = (u32, u32, u32, f64);

/// The clip events of playing clip `c` (loop mode `mode`) from normalised time `ph0` to `ph1`:
/// positions in frames (`U = normalised time × L`), every crossing of [U0, U1) enumerated
/// cycle by cycle; one-shots (and a zero-length clip) end at L, where an event at L fires
/// when the end is reached (or on a fresh start at the end). By position, then event index.
fn clip_crossings(
    c: &ClipInfo,
    mode: LoopMode,
    ph0: f64,
    ph1: f64,
    fresh: bool,
) -> Vec<(f64, u32)> {
    let l = (c.frames - 1) as f64;
    let (u0, u1) = (ph0 * l, ph1 * l);
    let mut hits = Vec::new();
    for (i, e) in c.events.iter().enumerate() {
        let t = e.time as f64;
        let pos = if l == 0.0 || t <= 0.0 {
            0.0
        } else if t >= c.duration * (1.0 - 1e-6) {
            l
        } else {
            t / c.duration * l
        };
        let i = i as u32;
        if l == 0.0 || matches!(mode, LoopMode::Once | LoopMode::Clamp) {
            let hit = if pos < l {
                u0 <= pos && pos < u1.min(l)
            } else {
                u1 >= l && (u0 < l || (fresh && u0 <= l))
            };
            if hit {
                hits.push((pos, i));
            }
            continue;
        }
        let (period, images) = if mode == LoopMode::PingPong {
            let back = (pos > 0.0 && pos < l).then_some(2.0 * l - pos);
            (2.0 * l, [Some(pos), back])
        } else {
            (l, [Some(pos), None])
        };
        for c0 in images.into_iter().flatten() {
            let first = (u0 / period).floor() as i64 - 1;
            let last = (u1 / period).floor() as i64 + 1;
            for k in first..=last {
                let x = c0 + k as f64 * period;
                if u0 <= x && x < u1 {
                    hits.push((x, i));
                }
            }
        }
    }
    hits.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    hits
}

fn axis_weights(at: &[f32], x: f32) -> Vec<(usize, f32)> {
    let last = at.len() - 1;
    if at.len() == 1 || x <= at[0] {
        return vec![(0, 1.0)];
    }
    if x >= at[last] {
        return vec![(last, 1.0)];
    }
    let i = (0..last).find(|&i| at[i] <= x && x < at[i + 1]).unwrap();
    let w = (x - at[i]) / (at[i + 1] - at[i]);
    vec![(i, 1.0 - w), (i + 1, w)]
}

/// The clips of a state with their blend weights, zero weights dropped, in point order.
fn clip_weights(g: &Graph, state: usize, params: &[f32]) -> Vec<(u32, f64, f32)> {
    let mut out = Vec::new();
    match g.states()[state].motion() {
        Motion::Clip { clip, .. } => out.push((clip.clip, clip.duration, 1.0)),
        Motion::Blend1d {
            parameter,
            at,
            clips,
        } => {
            for (i, w) in axis_weights(at, params[*parameter]) {
                out.push((clips[i].clip, clips[i].duration, w));
            }
        }
        Motion::Blend2d {
            x,
            y,
            xs,
            ys,
            clips,
        } => {
            for (iy, wy) in axis_weights(ys, params[*y]) {
                for (ix, wx) in axis_weights(xs, params[*x]) {
                    let c = clips[iy * xs.len() + ix];
                    out.push((c.clip, c.duration, wx * wy));
                }
            }
        }
    }
    out.retain(|c| c.2 > 0.0);
    out
}

fn cycle(g: &Graph, state: usize, params: &[f32]) -> f64 {
    let d: f64 = clip_weights(g, state, params)
        .iter()
        .fold(0.0, |acc, c| acc + c.2 as f64 * c.1);
    if d > 0.0 {
        d
    } else {
        1.0
    }
}

fn speed(g: &Graph, state: usize, params: &[f32]) -> f64 {
    let s = &g.states()[state];
    let m = s
        .speed_parameter()
        .map_or(1.0, |k| params[k.index()].max(0.0) as f64);
    s.speed() as f64 * m / cycle(g, state, params)
}

impl Instance {
    fn new(g: &Graph) -> Instance {
        Instance {
            params: g.parameters().iter().map(|p| p.default_value()).collect(),
            state: g.entry().index(),
            phase: 0.0,
            left: g.entry().index(),
            outgoing: Vec::new(),
            fade: None,
            fresh: true,
        }
    }

    fn alpha(&self) -> f32 {
        match &self.fade {
            Some(f) if !self.outgoing.is_empty() => (f.elapsed / f.length).clamp(0.0, 1.0) as f32,
            _ => 1.0,
        }
    }

    /// The clip events of one shown state advancing from `ph0` to `ph1`.
    #[allow(clippy::too_many_arguments)]
    fn played(
        &self,
        g: &Graph,
        table: &[ClipInfo],
        state: usize,
        (ph0, ph1, fresh): (f64, f64, bool),
        (t0, dt): (f64, f64),
        me: u32,
        out: &mut Vec<ClipEv>,
    ) {
        let mode = match g.states()[state].motion() {
            Motion::Clip { loop_mode, .. } => *loop_mode,
            _ => LoopMode::Loop,
        };
        for (clip, _, _) in clip_weights(g, state, &self.params) {
            let c = &table[clip as usize];
            let l = (c.frames - 1) as f64;
            let (u0, u1) = (ph0 * l, ph1 * l);
            for (u, e) in clip_crossings(c, mode, ph0, ph1, fresh) {
                let time = if u1 > u0 {
                    t0 + ((u - u0) / (u1 - u0)).clamp(0.0, 1.0) * dt
                } else {
                    t0
                };
                out.push((me, clip, e, time));
            }
        }
    }

    /// Returns the transition that fired, if one did, and whether it interrupted another.
    /// Clip events go to `clip_events`, by time.
    #[allow(clippy::too_many_arguments)]
    fn step(
        &mut self,
        g: &Graph,
        table: &[ClipInfo],
        t0: f64,
        dt: f64,
        me: u32,
        events: &mut Vec<Ev>,
        clip_events: &mut Vec<ClipEv>,
    ) -> Option<(usize, bool)> {
        let mut mine = Vec::new();
        for k in 0..self.outgoing.len() {
            let o = &self.outgoing[k];
            let ph0 = o.phase;
            let ph1 = ph0 + dt * speed(g, o.state, &self.params);
            self.played(
                g,
                table,
                o.state,
                (ph0, ph1, o.fresh),
                (t0, dt),
                me,
                &mut mine,
            );
            self.outgoing[k].phase = ph1;
            self.outgoing[k].fresh = false;
        }
        let ph0 = self.phase;
        self.phase += dt * speed(g, self.state, &self.params);
        self.played(
            g,
            table,
            self.state,
            (ph0, self.phase, self.fresh),
            (t0, dt),
            me,
            &mut mine,
        );
        self.fresh = false;
        mine.sort_by(|a, b| a.3.total_cmp(&b.3));
        clip_events.extend(mine);
        if let Some(f) = &mut self.fade {
            f.elapsed += dt;
            if f.elapsed >= f.length {
                self.fade = None;
                self.outgoing.clear();
            }
        }
        let rule = self
            .fade
            .as_ref()
            .map(|f| (f.transition, g.transitions()[f.transition].interruption()));
        for (ti, t) in g.transitions().iter().enumerate() {
            if rule.is_some_and(|r| r.0 == ti) {
                continue;
            }
            let leaving = match t.from().map(|s| s.index()) {
                None => {
                    if rule.is_some_and(|r| r.1 == Interruption::None)
                        || t.to().index() == self.state
                    {
                        continue;
                    }
                    self.state
                }
                Some(f) => {
                    let allowed = match rule {
                        None => f == self.state,
                        Some((_, Interruption::None)) => false,
                        Some((_, Interruption::Source)) => f == self.left,
                        Some((_, Interruption::Target)) => f == self.state,
                    };
                    if !allowed {
                        continue;
                    }
                    f
                }
            };
            if let Some(e) = t.exit_time() {
                let phase = if leaving == self.state {
                    Some(self.phase)
                } else {
                    self.outgoing
                        .iter()
                        .find(|o| o.state == leaving)
                        .map(|o| o.phase)
                };
                if !phase.is_some_and(|p| p >= e) {
                    continue;
                }
            }
            let holds = t.conditions().iter().all(|c| {
                let v = self.params[c.parameter];
                match c.test {
                    Test::Greater(k) => v > k,
                    Test::Less(k) => v < k,
                    Test::GreaterEq(k) => v >= k,
                    Test::LessEq(k) => v <= k,
                    Test::Equal(k) => v == k,
                    Test::NotEqual(k) => v != k,
                    Test::IsSet => v != 0.0,
                    Test::IsClear => v == 0.0,
                }
            });
            if !holds {
                continue;
            }
            // fire
            let interrupting = self.fade.is_some();
            for c in t.conditions() {
                if g.parameters()[c.parameter].kind() == ParamKind::Trigger {
                    self.params[c.parameter] = 0.0;
                }
            }
            let length = match t.duration() {
                (d, DurationUnit::Seconds) => d,
                (d, DurationUnit::Normalized) => d * cycle(g, leaving, &self.params),
            };
            if let Some(e) = g.states()[self.state].on_exit() {
                events.push((me, self.state as u16, e.index() as u32, false));
            }
            if let Some(e) = g.states()[t.to().index()].on_enter() {
                events.push((me, t.to().index() as u16, e.index() as u32, true));
            }
            if length > 0.0 {
                let a = self.alpha();
                let mut mix: Vec<Shown> = if self.outgoing.is_empty() {
                    vec![Shown {
                        state: self.state,
                        phase: self.phase,
                        share: 1.0,
                        fresh: self.fresh,
                    }]
                } else {
                    let mut m: Vec<Shown> = self
                        .outgoing
                        .iter()
                        .map(|o| Shown {
                            share: o.share * (1.0 - a),
                            ..o.clone()
                        })
                        .collect();
                    m.push(Shown {
                        state: self.state,
                        phase: self.phase,
                        share: a,
                        fresh: self.fresh,
                    });
                    if m.len() > 2 {
                        // the lightest goes; of equal ones the later
                        let mut lightest = 0;
                        for i in 1..m.len() {
                            if m[i].share <= m[lightest].share {
                                lightest = i;
                            }
                        }
                        m.remove(lightest);
                    }
                    let total = m[0].share + m[1].share;
                    for s in &mut m {
                        s.share = if total > 0.0 { s.share / total } else { 0.5 };
                    }
                    m
                };
                self.outgoing = std::mem::take(&mut mix);
                self.fade = Some(Fade {
                    transition: ti,
                    elapsed: 0.0,
                    length,
                });
            } else {
                self.outgoing.clear();
                self.fade = None;
            }
            self.left = self.state;
            self.state = t.to().index();
            self.phase = t.offset();
            self.fresh = true;
            return Some((ti, interrupting));
        }
        None
    }

    fn layers(&self, g: &Graph) -> Vec<Out> {
        let a = self.alpha();
        let mut all = Vec::new();
        let mut add = |state: usize, phase: f64, share: f32| {
            let mode = match g.states()[state].motion() {
                Motion::Clip { loop_mode, .. } => *loop_mode,
                _ => LoopMode::Loop,
            };
            let cycle = if mode == LoopMode::Loop {
                phase.rem_euclid(1.0)
            } else {
                phase
            };
            for (clip, d, w) in clip_weights(g, state, &self.params) {
                if share * w > 0.0 {
                    all.push((clip, mode, cycle * d, share * w));
                }
            }
        };
        for o in &self.outgoing {
            add(o.state, o.phase, o.share * (1.0 - a));
        }
        add(self.state, self.phase, a);
        if all.len() <= 4 {
            return all;
        }
        let mut order: Vec<usize> = (0..all.len()).collect();
        // heaviest first, ties to the earlier
        order.sort_by(|&i, &j| all[j].3.total_cmp(&all[i].3).then(i.cmp(&j)));
        let mut keep: Vec<usize> = order[..4].to_vec();
        keep.sort();
        let mut total = 0.0f32;
        for &i in &keep {
            total += all[i].3;
        }
        keep.iter()
            .map(|&i| (all[i].0, all[i].1, all[i].2, all[i].3 / total))
            .collect()
    }
}

/// Clip events seen per clip (index into the scenario's clip table).
type PerClip = Vec<usize>;

/// Runs `n` instances for `frames` frames through both; returns (layers compared, layer sets
/// that hit the layer limit, state events compared, clip events compared per clip).
fn run_scenario(seed: u64, n: usize, frames: usize) -> (usize, usize, usize, PerClip) {
    let g = scenario_graph();
    let clips = scenario_clips();
    let tables: Vec<ClipFrames> = clips.iter().map(|c| c.frames_table()).collect();
    let mut crowd = GraphCrowd::new(g.clone(), &clips, n).expect("graph crowd");
    let mut plain: Vec<Instance> = (0..n).map(|_| Instance::new(&g)).collect();
    let params: Vec<_> = (g.parameters().iter())
        .map(|p| crowd.param_any(p.name()).unwrap())
        .collect();
    let mut rng = Rng(seed);
    let (mut compared, mut cut, mut events_seen) = (0, 0, 0);
    let mut clip_seen = vec![0usize; clips.len()];
    let mut t0 = 0.0f64;
    let mut seen_states = vec![false; g.states().len()];
    let mut two_outgoing = 0usize;
    let mut fired = vec![0usize; g.transitions().len()];
    let mut interrupted = vec![0usize; g.transitions().len()];
    for frame in 0..frames {
        // ~3 % of instances get a parameter change each frame
        for _ in 0..(n * 3 / 100).max(1) {
            let (i, k, v) = random_change(&mut rng, &g, &params, &mut crowd);
            plain[i].params[k] = v;
        }
        let dt = 1.0 / 120.0 + rng.unit() * (1.0 / 30.0 - 1.0 / 120.0);
        // whole clock ticks (2^20 a second), the crowd's unit of time (docs/graph.md "Time"):
        // the interpreter then steps the same time in f64
        let dt = (dt * 1048576.0).round() / 1048576.0;
        crowd.step(dt);
        let mut want_events = Vec::new();
        let mut want_clip = Vec::new();
        for (i, inst) in plain.iter_mut().enumerate() {
            let me = i as u32;
            let fired_now = inst.step(&g, &clips, t0, dt, me, &mut want_events, &mut want_clip);
            if let Some((t, interrupting)) = fired_now {
                fired[t] += 1;
                interrupted[t] += usize::from(interrupting);
            }
        }
        let got_events: Vec<Ev> = crowd
            .events()
            .iter()
            .map(|e| {
                let (state, event) = (e.state.index() as u16, e.event.index() as u32);
                (e.instance, state, event, e.kind == EventKind::Enter)
            })
            .collect();
        assert_eq!(got_events, want_events, "events differ in frame {frame}");
        events_seen += got_events.len();
        t0 += dt;
        let got_clip = crowd.clip_events();
        assert_eq!(
            got_clip.len(),
            want_clip.len(),
            "frame {frame}: clip events {got_clip:?} vs {want_clip:?}"
        );
        for (a, b) in got_clip.iter().zip(&want_clip) {
            let ctx = format!("frame {frame}: clip event {a:?} vs {b:?}");
            assert_eq!(
                (a.instance, a.clip.index() as u32, a.event),
                (b.0, b.1, b.2),
                "{ctx}"
            );
            assert!((a.time - b.3).abs() <= 1e-9, "{ctx}");
            clip_seen[a.clip.index()] += 1;
        }
        for (i, inst) in plain.iter().enumerate() {
            seen_states[inst.state] = true;
            two_outgoing += (inst.outgoing.len() == 2) as usize;
            assert_eq!(
                crowd.state(i).map(|s| s.index()).ok(),
                Some(inst.state),
                "instance {i} frame {frame}: state"
            );
            let want = inst.layers(&g);
            let got = crowd.layers(i).expect("an instance of the crowd");
            let got = got.as_slice();
            assert_eq!(
                got.len(),
                want.len(),
                "instance {i} frame {frame}: layer count"
            );
            for (l, (a, b)) in got.iter().zip(&want).enumerate() {
                let ctx = format!("instance {i} frame {frame} layer {l}: {a:?} vs {b:?}");
                assert_eq!(a.clip, b.0, "{ctx}");
                assert_eq!(a.loop_mode, b.1, "{ctx}");
                assert!((a.time - b.2).abs() <= 1e-6, "{ctx}");
                assert!((a.weight - b.3).abs() <= 1e-6, "{ctx}");
            }
            let sum: f32 = want.iter().map(|l| l.3).sum();
            assert!(
                (sum - 1.0).abs() < 1e-5,
                "instance {i} frame {frame}: weights sum {sum}"
            );
            if want.len() == 4 {
                cut += 1;
            }
            compared += want.len();
            // the record is the contract's time rules applied to the interpreter's layers
            if i % 97 == 0 {
                let r = crowd.records()[i];
                for (l, w) in want.iter().enumerate() {
                    let ct = tables[w.0 as usize].sample(w.1, w.2);
                    let rl = r.layers[l];
                    assert_eq!(rl.clip_index(), w.0);
                    assert!((rl.weight - w.3).abs() <= 1e-6);
                    // a time on a frame boundary may round either way: compare positions
                    let got_pos = rl.row as f64 + rl.frac as f64;
                    let want_pos = ct.row as f64 + ct.frac as f64;
                    assert!((got_pos - want_pos).abs() < 1e-3, "{rl:?} vs {ct:?}");
                }
                for rl in &r.layers[want.len()..] {
                    assert_eq!(rl.weight, 0.0);
                }
            }
        }
    }
    assert!(
        seen_states.iter().all(|&s| s),
        "every state was visited: {seen_states:?}"
    );
    assert!(two_outgoing > 0, "interruptions happened");
    if n >= 10_000 {
        // every transition fired, and interruptions happened under each rule that allows them
        assert!(
            fired.iter().all(|&f| f > 0),
            "fired per transition: {fired:?}"
        );
        assert!(interrupted.iter().sum::<usize>() > 0, "{interrupted:?}");
        eprintln!("fired per transition {fired:?}, of which interrupting {interrupted:?}");
    }
    eprintln!("{two_outgoing} instance-frames with two outgoing states");
    (compared, cut, events_seen, clip_seen)
}

#[test]
fn bulk_step_matches_the_plain_interpreter() {
    let (layers, cut, events, clip_events) = run_scenario(31, 10_000, 600);
    eprintln!(
        "{layers} layers compared, {cut} four-layer sets, {events} state events, clip events \
         per clip {clip_events:?}"
    );
    assert!(cut > 0, "the layer limit was reached");
    assert!(events > 1000);
    // every clip with events fired some: loops, the one-shot's and the clamp's ends, the
    // ping-pong, the zero-length clip
    let table = scenario_clips();
    for (c, &k) in table.iter().zip(&clip_events) {
        if !c.events.is_empty() {
            assert!(k > 0, "clip {} fired no event: {clip_events:?}", c.name);
        }
    }
}

#[test]
fn second_seed_matches_too() {
    let (layers, _, _, _) = run_scenario(7, 2_000, 300);
    assert!(layers > 0);
}
