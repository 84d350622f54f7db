//! Shared by the test files: the scenario's clip table and graph.
#![allow(dead_code)]

use throng_asset::{ClipEvent, ClipInfo, LoopMode};
use throng_graph::{Graph, GraphCrowd, Param, ParamKind};

/// The clip table the scenario graph names: (name, seconds, loop mode), with clip events.
pub fn scenario_clips() -> Vec<ClipInfo> {
    let spec: [(&str, f64, LoopMode); 11] = [
        ("idle", 2.0, LoopMode::Loop),
        ("walk", 1.0, LoopMode::Loop),
        ("run", 0.6, LoopMode::Loop),
        ("attack", 0.8, LoopMode::Once),
        ("strafe_l", 1.2, LoopMode::Loop),
        ("strafe_r", 1.1, LoopMode::Loop),
        ("back", 0.9, LoopMode::Loop),
        ("fwd", 0.7, LoopMode::Loop),
        ("swim", 1.5, LoopMode::PingPong),
        ("zero", 0.0, LoopMode::Loop),
        ("fall", 0.5, LoopMode::Clamp),
    ];
    // clip events (seconds): footsteps inside loops, at a one-shot's and a clamp's end, on a
    // ping-pong's way out and back, and on a zero-length clip
    let events: [&[f32]; 11] = [
        &[],
        &[0.0, 0.5],
        &[0.3],
        &[0.4, 0.8],
        &[0.6],
        &[],
        &[],
        &[],
        &[0.5],
        &[0.0],
        &[0.0, 0.5],
    ];
    let mut row = 1;
    spec.iter()
        .zip(events)
        .map(|(&(name, d, mode), ev)| {
            let mut c = ClipInfo::uniform(name, row, d, 30.0, mode);
            c.events = ev
                .iter()
                .enumerate()
                .map(|(i, &time)| ClipEvent {
                    time,
                    name: format!("{name}{i}"),
                })
                .collect();
            row += c.frames;
            c
        })
        .collect()
}

pub const SCENARIO: &str = include_str!("../scenario.json");

pub fn scenario_graph() -> Graph {
    Graph::from_json(SCENARIO, "scenario.json", &scenario_clips()).expect("scenario graph")
}

/// SplitMix64: a seeded stream for the randomised scenarios.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// A random value for parameter `k` (of `kind`) of the scenario graph: floats in the ranges
/// the scenario's transitions test, ints 0..=2, bools mostly true, triggers fired.
pub fn random_value(rng: &mut Rng, g: &Graph, k: usize, kind: ParamKind) -> f32 {
    match kind {
        ParamKind::Float => match g.parameters()[k].name() {
            "dir" => (rng.unit() * 2.4 - 1.2) as f32,
            "mult" => (rng.unit() * 2.5 - 0.5) as f32,
            _ => (rng.unit() * 3.5) as f32,
        },
        ParamKind::Int => rng.below(3) as f32,
        ParamKind::Bool => (rng.below(10) > 1) as u8 as f32,
        ParamKind::Trigger => 1.0,
    }
}

/// A random change of the scenario graph's parameters: an instance below `n`, a parameter and
/// a value its kind allows (floats in the ranges the scenario's transitions test), set on
/// `crowd` through the call its kind takes. Returns (instance, parameter index, value).
pub fn random_change(
    rng: &mut Rng,
    g: &Graph,
    params: &[Param],
    crowd: &mut GraphCrowd,
) -> (usize, usize, f32) {
    let n = crowd.len();
    let i = rng.below(n as u64) as usize;
    let k = rng.below(params.len() as u64) as usize;
    let p = params[k];
    let v = random_value(rng, g, k, p.kind());
    match p.kind() {
        ParamKind::Float => crowd.set_float(i, p.typed().unwrap(), v).unwrap(),
        ParamKind::Int => crowd.set_int(i, p.typed().unwrap(), v as i32).unwrap(),
        ParamKind::Bool => crowd.set_bool(i, p.typed().unwrap(), v != 0.0).unwrap(),
        ParamKind::Trigger => crowd.fire(i, p.typed().unwrap()).unwrap(),
    }
    (i, k, v)
}
