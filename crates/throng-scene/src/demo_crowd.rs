//! The demo crowd (`throng demo`): instances on a jittered grid facing random directions, driven
//! by a small deterministic script: for the built-in fox, of its locomotion graph's parameters
//! (speed, sit: throng-graph's [`DEMO_FOX_LOCOMOTION`]); for other characters, of clips,
//! crossfades, blends and speeds in the CPU-timed runtime.
//!
//! Lengths are the asset's file units, times seconds, angles radians. The script is seeded, so
//! every run shows the same crowd. The locomotion graph is a `throng_graph_gpu::GraphRuntime`:
//! it steps on the CPU, or, after [`DemoCrowd::place_graph`] chose the GPU (docs/graph.md "On
//! the GPU"), on the GPU: the script's parameter changes are then all the CPU sends, and the
//! records are drawn where the pass wrote them.

use glam::{Affine3A, Quat, Vec3};
use std::f32::consts::TAU;
use std::time::{Duration, Instant};
use throng_asset::{ClipInfo, LoopMode};
use throng_contract::{InstanceRecord, InstanceTransform};
use throng_graph::{kind, Graph, GraphCrowd, ParamId, StateId, DEMO_FOX_LOCOMOTION};
use throng_graph_gpu::{GraphRuntime, StepOn};

use crate::GraphPlayer;
use throng_runtime::PlaybackControl;
use throng_runtime::{ClipId, CpuRuntime, Handle, PlayOptions, RuntimeError};

/// Seconds a crossfade between two clips of the cycle takes.
const FADE_S: f32 = 0.5;
/// Fraction of instances that blend walk and run (weight changing over time) instead of
/// cycling, and of those that sit down (a one-shot clip that holds its last frame).
const BLEND_SHARE: f64 = 0.12;
const SIT_SHARE: f64 = 0.06;
/// Range of per-instance speed multipliers (authored speed = 1).
const SPEEDS: (f64, f64) = (0.8, 1.25);
/// Seconds between an instance's changes of clip.
const FIRST_CHANGE_S: (f64, f64) = (0.2, 3.0);
const NEXT_CHANGE_S: (f64, f64) = (1.5, 4.0);
/// Grid jitter, as a fraction of the spacing (each axis, ±).
const JITTER: f32 = 0.22;

/// The crowd module's seeded generator (SplitMix64), so the script is the same on every run.
use throng_runtime::crowd::SplitMix64 as Rng;

/// Which clips the script uses, by index into the clip table.
#[derive(Debug, Clone, PartialEq)]
pub struct Roles {
    /// Looping clips visited in order by crossfades (e.g. idle → walk → run → walk → idle).
    pub cycle: Vec<usize>,
    /// Walk and run, blended by weight for some instances.
    pub blend: Option<(usize, usize)>,
    /// A one-shot clip (e.g. sit) some instances play and hold.
    pub one_shot: Option<usize>,
}

impl Roles {
    /// The built-in fox's `idle`/`walk`/`run`/`sit` when present (names in any case);
    /// otherwise every looping clip in table order (every clip when none loops), the first
    /// one-shot clip, and `walk`/`run` blending when both exist.
    pub fn pick(clips: &[ClipInfo]) -> Roles {
        let find = |n: &str| clips.iter().position(|c| c.name.eq_ignore_ascii_case(n));
        let looping =
            |i: &usize| matches!(clips[*i].loop_mode, LoopMode::Loop | LoopMode::PingPong);
        let one_shot = find("sit").or_else(|| (0..clips.len()).find(|i| !looping(i)));
        let blend = find("walk").zip(find("run"));
        if let (Some(idle), Some((walk, run))) = (find("idle"), blend) {
            return Roles {
                cycle: vec![idle, walk, run, walk],
                blend,
                one_shot,
            };
        }
        let mut cycle: Vec<usize> = (0..clips.len()).filter(looping).collect();
        if cycle.is_empty() {
            cycle = (0..clips.len()).collect();
        }
        Roles {
            cycle,
            blend,
            one_shot: one_shot.filter(|_| clips.len() > 1),
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Act {
    /// Position in the clip cycle.
    Cycle(usize),
    /// Walk/run blend.
    Blend,
    /// Playing or holding the one-shot clip.
    OneShot,
}

#[derive(Debug, Clone, Copy)]
struct Plan {
    act: Act,
    /// Runtime time (seconds) of the next change.
    next: f64,
}

/// What the runtime did, for the timing line.
#[derive(Debug, Clone, Copy, Default)]
pub struct Stats {
    pub steps: u64,
    /// Simulated seconds played.
    pub simulated: f64,
    /// Wall time of the steps: the script's runtime calls plus `update`.
    pub time: Duration,
    pub crossfades: u64,
    pub blends: u64,
    pub events: u64,
}

impl Stats {
    /// Mean milliseconds per step.
    pub fn ms_per_step(&self) -> f64 {
        if self.steps == 0 {
            0.0
        } else {
            self.time.as_secs_f64() * 1e3 / self.steps as f64
        }
    }
}

/// Speeds the graph-driven script chooses (the graph's blend space: walk at 1, run at 3); a
/// share of changes stop instead (speed 0).
const GRAPH_SPEEDS: (f64, f64) = (0.6, 3.0);
const STOP_SHARE: f64 = 0.25;
/// Seconds before a graph-driven instance's first change.
const GRAPH_FIRST_CHANGE_S: (f64, f64) = (0.0, 1.2);

/// The locomotion graph and its two parameters.
struct Locomotion {
    /// The graph runtime, and on the GPU the upload the crowd is drawn from.
    player: GraphPlayer,
    speed: ParamId<kind::Float>,
    sit: ParamId<kind::Trigger>,
    /// Each instance's state after the last step, to count transitions (stepped on the CPU).
    states: Vec<StateId>,
}

/// The runtime (or the locomotion graph) plus the script that drives it.
pub struct DemoCrowd {
    runtime: CpuRuntime,
    graph: Option<Locomotion>,
    /// The clip table (what the graph runtime is made with again when it moves).
    clips: Vec<ClipInfo>,
    handles: Vec<Handle>,
    plans: Vec<Plan>,
    roles: Roles,
    durations: Vec<f64>,
    rng: Rng,
    pub stats: Stats,
}

impl DemoCrowd {
    /// Spawns `n` instances `spacing` apart (file units) on a square grid centred on the
    /// origin, each jittered, turned about +Y by a random angle and given its first clip.
    pub fn new(clips: &[ClipInfo], n: u32, spacing: f32) -> Result<DemoCrowd, RuntimeError> {
        let mut rng = Rng(0x7468_726F_6E67); // "throng"
        let mut runtime = CpuRuntime::new(clips);
        let roles = Roles::pick(clips);
        let cols = (n as f64).sqrt().ceil().max(1.0) as u32;
        let rows = n.div_ceil(cols);
        let mut handles = Vec::with_capacity(n as usize);
        let mut plans = Vec::with_capacity(n as usize);
        for i in 0..n {
            let mut jitter = || (rng.unit() as f32 * 2.0 - 1.0) * JITTER;
            let x = (i % cols) as f32 - (cols - 1) as f32 * 0.5 + jitter();
            let z = (i / cols) as f32 - (rows - 1) as f32 * 0.5 + jitter();
            let yaw = rng.unit() as f32 * TAU;
            let m = Affine3A::from_rotation_translation(
                Quat::from_rotation_y(yaw),
                Vec3::new(x, 0.0, z) * spacing,
            );
            handles.push(runtime.spawn(throng_runtime::InstanceTransform::from_affine(&m)));
            plans.push(Plan {
                act: Act::Cycle(0),
                next: rng.range(FIRST_CHANGE_S),
            });
        }
        let graph = Graph::from_json(DEMO_FOX_LOCOMOTION, "demo-fox-locomotion.json", clips)
            .ok()
            .and_then(|g| {
                let crowd = GraphCrowd::new(g, clips, n as usize).ok()?;
                let rt = GraphRuntime::new(crowd, clips, None, StepOn::Cpu).ok()?;
                Some(Locomotion {
                    speed: rt.param("speed").ok()?,
                    sit: rt.param("sit").ok()?,
                    states: vec![rt.graph().entry(); n as usize],
                    player: GraphPlayer::new(rt),
                })
            });
        let mut crowd = DemoCrowd {
            runtime,
            graph,
            clips: clips.to_vec(),
            handles,
            plans,
            roles,
            durations: clips.iter().map(|c| c.duration).collect(),
            rng,
            stats: Stats::default(),
        };
        if !clips.is_empty() {
            for i in 0..crowd.handles.len() {
                crowd.start(i)?;
            }
        }
        Ok(crowd)
    }

    /// Whether the locomotion graph drives the crowd (the built-in fox's clips), rather than
    /// the clip script.
    pub fn graph_driven(&self) -> bool {
        self.graph.is_some()
    }

    /// Instances in the crowd.
    pub fn len(&self) -> usize {
        self.handles.len()
    }

    pub fn is_empty(&self) -> bool {
        self.handles.is_empty()
    }

    /// A random clip time (seconds) within clip `c`, so instances are out of step.
    fn random_time(&mut self, c: usize) -> f32 {
        (self.rng.unit() * self.durations[c]) as f32
    }

    /// First clip of instance `i`: mostly a random stage of the cycle at a random time and
    /// speed; some blend walk and run, some are part-way through the one-shot.
    fn start(&mut self, i: usize) -> Result<(), RuntimeError> {
        if self.graph.is_some() {
            // Every instance starts idle (the graph's entry) and sets off at its own time, so
            // the blend space's cycles are out of step across the crowd.
            self.plans[i].next = self.rng.range(GRAPH_FIRST_CHANGE_S);
            return Ok(());
        }
        let h = self.handles[i];
        let r = self.rng.unit();
        let speed = self.rng.range(SPEEDS) as f32;
        self.runtime.instance(h).speed(speed)?;
        if let (true, Some((a, b))) = (r < BLEND_SHARE, self.roles.blend) {
            let w = self.rng.range((0.15, 0.85)) as f32;
            self.runtime
                .instance(h)
                .blend(ClipId::new(a), ClipId::new(b), w)?;
            self.plans[i].act = Act::Blend;
            return Ok(());
        }
        if let (true, Some(s)) = (r < BLEND_SHARE + SIT_SHARE, self.roles.one_shot) {
            let start_time = self.random_time(s);
            self.runtime
                .instance(h)
                .play(ClipId::new(s), PlayOptions::at(start_time))?;
            self.plans[i].act = Act::OneShot;
            return Ok(());
        }
        let stage = (self.rng.unit() * self.roles.cycle.len() as f64) as usize;
        let stage = stage.min(self.roles.cycle.len() - 1);
        let c = self.roles.cycle[stage];
        let start_time = self.random_time(c);
        self.runtime
            .instance(h)
            .play(ClipId::new(c), PlayOptions::at(start_time))?;
        self.plans[i].act = Act::Cycle(stage);
        Ok(())
    }

    /// The next change of instance `i`: cycling instances crossfade to the next stage, blending
    /// ones move their walk/run weight, one-shots crossfade back into the cycle.
    fn change(&mut self, i: usize) -> Result<(), RuntimeError> {
        if self.graph.is_some() {
            self.steer(i);
            return Ok(());
        }
        let h = self.handles[i];
        let stage = match self.plans[i].act {
            Act::Blend => {
                if let Some((a, b)) = self.roles.blend {
                    let w = self.rng.unit() as f32;
                    self.runtime
                        .instance(h)
                        .blend(ClipId::new(a), ClipId::new(b), w)?;
                    self.stats.blends += 1;
                }
                return Ok(());
            }
            Act::Cycle(s) if self.roles.cycle.len() > 1 => (s + 1) % self.roles.cycle.len(),
            Act::Cycle(_) => return Ok(()),
            Act::OneShot => 0,
        };
        let c = self.roles.cycle[stage];
        let start_time = self.random_time(c);
        let opts = PlayOptions::at(start_time);
        self.runtime
            .instance(h)
            .crossfade_with(ClipId::new(c), FADE_S, opts)?;
        self.plans[i].act = Act::Cycle(stage);
        self.stats.crossfades += 1;
        Ok(())
    }

    /// Graph-driven: a new speed for instance `i` (stopping for a share of changes), or, for a
    /// share of changes, the sit trigger (the graph sits from idle once the instance stops).
    fn steer(&mut self, i: usize) {
        let r = self.rng.unit();
        let speed = if r < STOP_SHARE {
            0.0
        } else {
            self.rng.range(GRAPH_SPEEDS) as f32
        };
        let sit = r < SIT_SHARE;
        let Some(g) = self.graph.as_mut() else {
            return;
        };
        // The parameters exist and the values are valid: neither call can fail.
        let _ = g.player.rt.set_float(i, g.speed, speed);
        if sit {
            let _ = g.player.rt.fire(i, g.sit);
        }
        self.stats.blends += 1;
    }

    /// Where the locomotion graph steps from now on, as `on` asks for `gpu`
    /// (`throng_graph_gpu::StepOn`: on the GPU the script's parameter changes are all the CPU
    /// sends), continuing from the state the CPU step left. Returns whether it steps on the
    /// GPU and, when `StepOn::Auto` kept the CPU, why; `None` when no graph drives the crowd.
    /// An error (and the graph still on the CPU) where the GPU was asked for and the device
    /// cannot step it; `GraphRuntime::place`.
    pub fn place_graph(
        &mut self,
        gpu: &throng_render::Gpu,
        on: StepOn,
    ) -> Result<Option<(bool, Option<String>)>, throng_graph_gpu::GraphRuntimeError> {
        let Some(g) = self.graph.as_mut() else {
            return Ok(None);
        };
        g.player.place(&self.clips, gpu, on)?;
        let rt = &g.player.rt;
        Ok(Some((rt.on_gpu(), rt.cpu_because().map(str::to_string))))
    }

    /// Whether the locomotion graph steps on the GPU.
    pub fn graph_on_gpu(&self) -> bool {
        self.graph.as_ref().is_some_and(|g| g.player.rt.on_gpu())
    }

    /// GPU graph: hands the records the pass wrote to the crowd's upload (on the GPU) before a
    /// draw; [`Self::gpu_upload`] is then what to draw. Nothing to do otherwise.
    pub fn prepare_draw(&mut self) -> Result<(), throng_graph_gpu::GraphRuntimeError> {
        match self.graph.as_mut() {
            Some(g) => g.player.prepare_draw(self.runtime.transforms(), false),
            None => Ok(()),
        }
    }

    /// The upload a GPU graph crowd is drawn from (after [`Self::prepare_draw`]); `None` when
    /// the records are the CPU's ([`Self::records`]).
    pub fn gpu_upload(&self) -> Option<&throng_render::CrowdUpload> {
        self.graph.as_ref()?.player.upload()
    }

    /// The script's changes that are due.
    fn run_script(&mut self) -> Result<(), RuntimeError> {
        // Simulated seconds so far (the runtime's clock, or the graph crowd's).
        let now = self.stats.simulated;
        if !self.durations.is_empty() {
            for i in 0..self.plans.len() {
                if self.plans[i].next <= now {
                    self.change(i)?;
                    self.plans[i].next = now + self.rng.range(NEXT_CHANGE_S);
                }
            }
        }
        Ok(())
    }

    /// Advances the crowd by `dt` seconds: changes that are due, then one runtime update (or
    /// graph step, on the CPU or the GPU: [`Self::place_graph`]; on the GPU the state events
    /// counted are the step before's, taken without waiting, and transitions are not counted).
    pub fn step(&mut self, dt: f64) -> anyhow::Result<()> {
        let t0 = Instant::now();
        self.run_script()?;
        match self.graph.as_mut() {
            Some(g) => {
                g.player.rt.step(dt)?;
                if let Some(crowd) = g.player.rt.cpu_crowd() {
                    for (i, s) in g.states.iter_mut().enumerate() {
                        if let Ok(now) = crowd.state(i) {
                            self.stats.crossfades += (now != *s) as u64;
                            *s = now;
                        }
                    }
                }
                self.stats.events += g.player.rt.state_events().len() as u64;
            }
            None => {
                self.runtime.update(dt);
                self.stats.events += self.runtime.events().len() as u64;
            }
        }
        self.stats.time += t0.elapsed();
        self.stats.steps += 1;
        self.stats.simulated += dt;
        Ok(())
    }

    /// Per-instance records in the renderer's layout (the runtime's `InstanceRecord` holds the
    /// same four layers); a graph stepped on the GPU reads them back, waiting (the demo draws
    /// those from [`Self::gpu_upload`]).
    pub fn records(&self) -> Vec<InstanceRecord> {
        match &self.graph {
            Some(g) => g.player.rt.read_records().unwrap_or_default(),
            None => self.runtime.records().to_vec(),
        }
    }

    /// Instance transforms (world from model, file units).
    pub fn transforms(&self) -> &[InstanceTransform] {
        self.runtime.transforms()
    }

    /// The crowd's variety (docs/design.md §4 "Appearance"): per instance a tint from a small
    /// palette of fur shades and, on an asset of `parts` ≥ 2 primitives, every third instance
    /// without one of the primitives after the first. Fixed per instance index (a hash, not
    /// the script's random stream, so the playback stays as it was).
    pub fn appearances(&self, parts: usize) -> Vec<throng_contract::Appearance> {
        (0..self.len())
            .map(|i| demo_appearance(i as u64, parts))
            .collect()
    }
}

/// Linear tints of the demo crowd (RGBA8 multipliers of the base colour).
const TINTS: [[u8; 4]; 6] = [
    [255, 255, 255, 255],
    [255, 120, 80, 255],
    [140, 155, 185, 255],
    [95, 75, 65, 255],
    [255, 235, 180, 255],
    [150, 150, 150, 255],
];

/// Instance `i`'s demo appearance on an asset of `parts` primitives (what
/// [`DemoCrowd::appearances`] gives; the render bench's palette-variety path uses it too).
pub fn demo_appearance(i: u64, parts: usize) -> throng_contract::Appearance {
    // SplitMix64's finaliser: a well-spread hash of the index.
    let mut h = i.wrapping_add(0x9E37_79B9_7F4A_7C15);
    h = (h ^ (h >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    h ^= h >> 31;
    let look = throng_contract::Appearance::DEFAULT.with_tint(TINTS[(h % 6) as usize]);
    let switchable = parts.min(throng_contract::MAX_PARTS as usize);
    if switchable >= 2 && (h >> 8).is_multiple_of(3) {
        let hidden = 1 + (h >> 16) as usize % (switchable - 1);
        return look.with_parts(!(1u32 << hidden));
    }
    look
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_variety_tints_all_and_hides_a_part_of_some() {
        let looks: Vec<_> = (0..300).map(|i| demo_appearance(i, 8)).collect();
        for t in TINTS {
            assert!(looks.iter().any(|a| a.tint == t), "tint {t:?} unused");
        }
        let hiding = looks.iter().filter(|a| a.parts != u32::MAX).count();
        assert!((60..140).contains(&hiding), "{hiding} of 300 hide a part");
        assert!(
            looks.iter().all(|a| a.shows_part(0)),
            "the first part stays"
        );
        assert!((0..50).all(|i| demo_appearance(i, 1).parts == u32::MAX));
    }

    #[test]
    fn rng_is_uniform_enough() {
        let mut r = Rng(1);
        let n = 100_000;
        let mean = (0..n).map(|_| r.unit()).sum::<f64>() / n as f64;
        // Standard error of the mean of U(0,1) over 1e5 draws is 0.0009; allow 5 of them.
        assert!((mean - 0.5).abs() < 0.0045, "mean {mean}");
    }

    fn fox_clips() -> Vec<ClipInfo> {
        let bytes = throng_demo::demo_glb();
        let model = throng_gltf::import_slice(&bytes, None, "fox.glb").expect("import the fox");
        let (asset, _) =
            throng_bake::bake(&model, &throng_bake::BakeOptions::default()).expect("bake the fox");
        asset.clips
    }

    #[test]
    fn fox_roles_and_a_mixed_crowd() {
        let clips = fox_clips();
        let idx = |n: &str| clips.iter().position(|c| c.name == n).expect(n);
        let roles = Roles::pick(&clips);
        let (idle, walk, run, sit) = (idx("idle"), idx("walk"), idx("run"), idx("sit"));
        assert_eq!(roles.cycle, vec![idle, walk, run, walk]);
        assert_eq!(roles.blend, Some((walk, run)));
        assert_eq!(roles.one_shot, Some(sit));
        let crowd = DemoCrowd::new(&clips, 300, 1.5).expect("crowd");
        assert!(
            crowd.graph_driven(),
            "the built-in fox plays its locomotion graph"
        );
        check_mixed(crowd, &clips);
    }

    /// Without the clip names the locomotion graph asks for, the clip script drives the crowd.
    #[test]
    fn other_characters_get_the_clip_script() {
        let mut clips = fox_clips();
        for c in &mut clips {
            c.name = c.name.to_uppercase();
        }
        let crowd = DemoCrowd::new(&clips, 300, 1.5).expect("crowd");
        assert!(!crowd.graph_driven());
        check_mixed(crowd, &clips);
    }

    /// After 3 s: many transitions, weights summing to 1 on rows of their clips, every clip
    /// leading somewhere, and the jittered grid.
    fn check_mixed(mut crowd: DemoCrowd, clips: &[ClipInfo]) {
        for _ in 0..90 {
            crowd.step(1.0 / 30.0).expect("step");
        }
        assert!(crowd.stats.crossfades > 100, "{:?}", crowd.stats);
        assert!(crowd.stats.blends > 0, "{:?}", crowd.stats);
        let mut dominant = [0usize; 4];
        for r in crowd.records() {
            let sum: f32 = r.layers.iter().map(|l| l.weight).sum();
            assert!((sum - 1.0).abs() < 1e-5, "weights sum to {sum}: {r:?}");
            for l in r.layers.iter().filter(|l| l.weight > 0.0) {
                let c = &clips[l.clip_index() as usize];
                let (first, last) = (c.first_row as f32, (c.first_row + c.frames - 1) as f32);
                assert!(
                    (first..=last).contains(&l.row),
                    "row {} outside {}",
                    l.row,
                    c.name
                );
            }
            let top = r
                .layers
                .iter()
                .max_by(|a, b| a.weight.total_cmp(&b.weight))
                .expect("4 layers");
            dominant[top.clip_index() as usize] += 1;
        }
        // Every clip leads somewhere in the crowd.
        assert!(dominant.iter().all(|&n| n > 0), "{dominant:?}");
        // Transforms: on the grid (spacing 1.5, jitter ±0.22 of it), unit scale, upright.
        let t = crowd.transforms();
        assert_eq!(t.len(), 300);
        for m in t.iter().map(|t| t.to_mat4()) {
            assert!((m.x_axis.length() - 1.0).abs() < 1e-5 && m.y_axis.y > 0.9999);
            assert!(m.w_axis.y == 0.0 && m.w_axis.x.abs() < 9.0 * 1.5 + 0.5);
        }
    }
}
