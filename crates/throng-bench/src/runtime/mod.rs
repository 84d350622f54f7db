//! The runtime's frame-cost harness, both timings (`throng bench runtime`): time per frame —
//! the playback calls that make the frame's changes, then `update` — against a plain parallel
//! fill and the C library's memset of the same record bytes, and (GPU-timed) against the memory
//! traffic the frame's changes cannot avoid, all in the same run.

use bytemuck::Zeroable;
use rayon::prelude::*;
use serde::Serialize;
use std::time::Instant;
use throng_asset::{ClipInfo, LoopMode};
use throng_runtime::{
    Change, ClipId, CpuRuntime, GpuRuntime, Handle, Instance, InstanceRecord, InstanceTransform,
    PlayOptions, PlaybackCommand, PlaybackControl, CHUNK,
};

mod compact_floor;
mod state_floor;
pub mod versus;

/// Which runtime a benchmark measures: the contract's playback timing.
pub use throng_contract::Timing as BenchMode;

#[derive(Debug, Clone)]
pub struct BenchConfig {
    pub instances: usize,
    pub mode: BenchMode,
    /// Fraction of instances that get a crossfade to another clip each frame.
    pub changing: f64,
    /// Timed frames (after as many warm-up frames, at most 30).
    pub frames: usize,
    /// Active layers per instance at rest: 1 (one clip) or 2 (a walk/run blend).
    pub layers: u32,
    /// Frame step, seconds.
    pub dt: f64,
    pub seed: u64,
    /// CPU-timed: every instance kept in its full state (`CpuRuntime::set_compact_state(false)`),
    /// the runtime as it was before the compact state, for comparison.
    pub full_state: bool,
}

impl Default for BenchConfig {
    fn default() -> Self {
        BenchConfig {
            instances: 1_000_000,
            mode: BenchMode::Cpu,
            changing: 0.0,
            frames: 60,
            layers: 2,
            dt: 1.0 / 60.0,
            seed: 0x7468_726f_6e67,
            full_state: false,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct BenchReport {
    pub instances: usize,
    pub mode: &'static str,
    /// Median frame time (the playback calls making this frame's changes + `update`; GPU-timed
    /// also handing the frame's record writes over and clearing them), ms.
    pub ms_per_frame: f64,
    /// 90th percentile frame time, milliseconds.
    pub ms_p90: f64,
    /// Median time of `update` alone (without the playback calls that make the changes), ms.
    pub update_ms: f64,
    /// Mean on-CPU time of a frame summed over the threads that ran it (ms). On a shared
    /// machine the wall-clock numbers include time spent waiting for a CPU; this does not.
    /// CPU-timed: all threads of the process, from Linux `/proc/*/schedstat`, which advances
    /// at scheduler ticks (hence a mean over many frames); GPU-timed: the calling thread, from
    /// its CPU-time clock (exact to the nanosecond).
    pub cpu_ms_per_frame: Option<f64>,
    /// The same for the fill (all threads), ms.
    pub memset_cpu_ms: Option<f64>,
    /// `ms_per_frame` per instance, nanoseconds.
    pub ns_per_instance: f64,
    /// Median time of a parallel fill of `instances × 64 B` in the same run, milliseconds.
    pub memset_ms: f64,
    /// `ms_per_frame / memset_ms`.
    pub ratio_to_memset: f64,
    /// Median time of the C library's `memset` of the same bytes, in the same parallel
    /// chunks, in the same run (ms): unlike the fill above it may write whole lines without
    /// reading them first.
    pub libc_memset_ms: f64,
    /// `ms_per_frame / libc_memset_ms`.
    pub ratio_to_libc_memset: f64,
    /// GPU-timed: median time of the memory traffic a frame's changes cannot avoid, in the
    /// same run and from the same cold caches (after the fills): one prefetched
    /// read-modify-write of a random 64 B line of an `instances × 64 B` array per change,
    /// and a 64 B entry appended to a sequential list (ms); 0 in CPU-timed mode.
    pub memory_floor_ms: f64,
    /// `ms_per_frame / memory_floor_ms` (0 without a floor).
    pub ratio_to_memory_floor: f64,
    /// CPU-timed: median time of the memory traffic an update cannot avoid with the runtime's
    /// state layout, in the same run and the same parallel chunks: per instance its 8 B header
    /// and per active layer an 8 B position and 16 B of constants read, the positions written
    /// back and the 64 B record streamed, with next to no arithmetic (ms); 0 GPU-timed.
    pub state_floor_ms: f64,
    /// `ms_per_frame / state_floor_ms` (0 without a floor).
    pub ratio_to_state_floor: f64,
    /// CPU-timed with two layers: median time of a sketch of a 16 B read-only state's update
    /// (`compact_floor.rs`: each layer's phase at an epoch and a shared layer set, positions
    /// worked out in integers from the ticks elapsed, the 64 B record streamed), in the same
    /// run (ms); 0 otherwise. The runtime's compact state without its API and checks: its
    /// floor.
    pub compact_floor_ms: f64,
    pub changing: f64,
    pub changes_per_frame: usize,
    pub layers: u32,
    pub frames: usize,
    pub threads: usize,
    /// Mean events fired per frame.
    pub events_per_frame: f64,
    /// GPU mode: mean records written per frame.
    pub dirty_per_frame: f64,
    /// CPU-timed: whether the compact state was turned off (`BenchConfig::full_state`).
    pub full_state: bool,
    /// CPU-timed: instances in the compact state after the last frame, and the layer sets they
    /// share (`CpuRuntime::compact_counts`).
    pub compact_instances: usize,
    pub compact_sets: usize,
}

/// Nanoseconds the threads of this process (from Linux's `/proc/.../schedstat`) or only the
/// calling thread (its CPU-time clock, which unlike schedstat includes the running slice) have
/// spent running on a CPU; `None` where that is not available. On a shared machine wall-clock
/// frame times include waiting for a CPU; this does not.
pub(crate) fn cpu_ns(all_threads: bool) -> Option<u64> {
    #[cfg(target_os = "linux")]
    if !all_threads {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec; the call only writes it.
        let r = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        return (r == 0).then(|| ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64);
    }
    fn one(path: &std::path::Path) -> Option<u64> {
        std::fs::read_to_string(path)
            .ok()?
            .split_whitespace()
            .next()?
            .parse()
            .ok()
    }
    if !all_threads {
        return one(std::path::Path::new("/proc/thread-self/schedstat"));
    }
    let mut sum = 0;
    for e in std::fs::read_dir("/proc/self/task").ok()?.flatten() {
        sum += one(&e.path().join("schedstat")).unwrap_or(0);
    }
    Some(sum)
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        ((self.next() >> 11) as f64 / (1u64 << 53) as f64 * n as f64) as usize % n.max(1)
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    if v.is_empty() {
        0.0
    } else {
        v[v.len() / 2]
    }
}

fn p90(v: &[f64]) -> f64 {
    // v sorted
    if v.is_empty() {
        0.0
    } else {
        v[((v.len() * 9) / 10).min(v.len() - 1)]
    }
}

/// The memory traffic of a frame's GPU-timed changes and nothing else (see
/// `BenchReport::memory_floor_ms`): per index a prefetched read-modify-write of its line and
/// the line appended to `list`, as a change updates its state and writes its record. Returns
/// milliseconds.
fn memory_floor(lines: &mut [[u64; 8]], at: &[usize], list: &mut Vec<[u64; 8]>) -> f64 {
    const AHEAD: usize = 16;
    list.clear();
    let t = Instant::now();
    for (k, &i) in at.iter().enumerate() {
        if let Some(&j) = at.get(k + AHEAD) {
            throng_runtime::prefetch::prefetch_write(lines.as_ptr().wrapping_add(j), 64);
        }
        throng_runtime::prefetch::prefetch_write(list.as_ptr().wrapping_add(list.len() + 8), 64);
        let l = &mut lines[i];
        l[0] = l[0].wrapping_add(1);
        l[3] ^= k as u64;
        list.push(*l);
    }
    std::hint::black_box(&list);
    t.elapsed().as_secs_f64() * 1e3
}

/// Looping clips of a table (the bench's crossfade targets), or all clips if none loop.
fn loop_clips(clips: &[ClipInfo]) -> Vec<usize> {
    let v: Vec<usize> = (0..clips.len())
        .filter(|&c| clips[c].loop_mode == LoopMode::Loop && clips[c].frames > 1)
        .collect();
    if v.is_empty() {
        (0..clips.len()).collect()
    } else {
        v
    }
}

/// The run's shape: instances, frames, changes per frame and the clips they play.
struct Plan {
    n: usize,
    /// Timed frames, after `warm` warm-up frames.
    frames: usize,
    warm: usize,
    changes: usize,
    /// The crossfade targets; every instance starts on `a` (blended with `b` at 2 layers).
    targets: Vec<usize>,
    a: usize,
    b: usize,
}

impl Plan {
    fn new(cfg: &BenchConfig, clips: &[ClipInfo]) -> Plan {
        let n = cfg.instances;
        let frames = cfg.frames.max(1);
        let targets = loop_clips(clips);
        let a = targets[0];
        let b = targets[1.min(targets.len() - 1)];
        Plan {
            n,
            frames,
            warm: frames.min(30),
            changes: (cfg.changing.clamp(0.0, 1.0) * n as f64).round() as usize,
            targets,
            a,
            b,
        }
    }
}

/// What the timed frames measured (the warm-up frames are not kept).
#[derive(Default)]
struct Samples {
    /// Wall time of each frame (changes + update + handing the records over), ms.
    frame: Vec<f64>,
    /// Wall time of `update` alone, ms.
    update: Vec<f64>,
    /// On-CPU time of each frame and of each fill (where the OS gives it), ms.
    cpu: Vec<f64>,
    fill_cpu: Vec<f64>,
    /// The baselines of each frame, ms.
    fill: Vec<f64>,
    memset: Vec<f64>,
    floor: Vec<f64>,
    state_floor: Vec<f64>,
    compact_floor: Vec<f64>,
    events: usize,
    dirty: usize,
}

/// The baselines measured beside every frame, in memory allocated before the runtime's: the
/// same bytes as the CPU records filled the plainest way (and by memset), on the same pool,
/// and (GPU-timed) the memory floor's array, list and indices.
struct Baselines {
    fill: Vec<InstanceRecord>,
    lines: Vec<[u64; 8]>,
    list: Vec<[u64; 8]>,
    at: Vec<usize>,
    /// CPU-timed: the runtime's fast-path state, shaped alike.
    state: Option<state_floor::StateFloor>,
    /// CPU-timed with two layers: the 16 B state sketch.
    compact: Option<compact_floor::CompactFloor>,
}

impl Baselines {
    fn new(cfg: &BenchConfig, plan: &Plan) -> Baselines {
        let n = plan.n;
        let fill = vec![InstanceRecord::zeroed(); n];
        let mut lines: Vec<[u64; 8]> = Vec::new();
        if cfg.mode == BenchMode::Gpu {
            throng_runtime::hugepage::reserve(&mut lines, n);
            lines.resize(n, [0; 8]);
        }
        Baselines {
            fill,
            lines,
            list: Vec::with_capacity(plan.changes),
            at: Vec::with_capacity(plan.changes),
            state: (cfg.mode == BenchMode::Cpu)
                .then(|| state_floor::StateFloor::new(n, cfg.layers)),
            compact: (cfg.mode == BenchMode::Cpu && cfg.layers >= 2)
                .then(|| compact_floor::CompactFloor::new(n)),
        }
    }

    /// A parallel fill of the records: wall ms and the process's CPU ns before and after.
    fn fill(&mut self) -> (f64, Option<u64>, Option<u64>) {
        let pattern = InstanceRecord::zeroed();
        let f0 = cpu_ns(true);
        let tf = Instant::now();
        self.fill
            .par_chunks_mut(CHUNK)
            .for_each(|c| c.fill(pattern));
        let fl = tf.elapsed().as_secs_f64() * 1e3;
        (fl, f0, cpu_ns(true))
    }

    /// The C library's memset of the same bytes in the same chunks, ms.
    fn memset(&mut self) -> f64 {
        let tm = Instant::now();
        self.fill.par_chunks_mut(CHUNK).for_each(|c| {
            let bytes: &mut [u8] = bytemuck::cast_slice_mut(c);
            // SAFETY: `bytes` is a valid, exclusive byte view of the chunk; any byte
            // pattern is a valid record (Pod). `write_bytes` of a large run is a call
            // to the C library's memset.
            unsafe { std::ptr::write_bytes(bytes.as_mut_ptr(), 0, bytes.len()) };
        });
        tm.elapsed().as_secs_f64() * 1e3
    }

    /// CPU-timed: the memory floor of an update with the runtime's state layout, ms (0
    /// GPU-timed).
    fn state_floor(&mut self, dt: f64) -> f64 {
        match &mut self.state {
            Some(st) => st.run(&mut self.fill, dt),
            None => 0.0,
        }
    }

    /// CPU-timed with two layers: the 16 B state sketch's update, ms (0 otherwise).
    fn compact_floor(&mut self, dt: f64) -> f64 {
        match &mut self.compact {
            Some(c) => c.run(&mut self.fill, dt),
            None => 0.0,
        }
    }

    /// GPU-timed: the memory floor of the frame's changes `picks`, ms (0 CPU-timed).
    fn floor(&mut self, rt: &impl PlaybackControl, picks: &[(Handle, usize)]) -> f64 {
        if self.lines.is_empty() {
            return 0.0;
        }
        self.at.clear();
        self.at
            .extend(picks.iter().filter_map(|&(h, _)| rt.index(h)));
        memory_floor(&mut self.lines, &self.at, &mut self.list)
    }
}

/// A runtime the harness drives: its frame's changes made in one batch, and the frame's
/// records handed over.
trait Driven: PlaybackControl {
    /// Hands the frame's records to the renderer (here: looks at them) and starts the
    /// next frame's list (timed); returns the records written.
    fn send(&mut self) -> usize;
    fn change_batch(&mut self, picks: &[(Handle, usize)], batch: &mut Vec<Change>);
}

impl Driven for CpuRuntime {
    fn send(&mut self) -> usize {
        0
    }
    fn change_batch(&mut self, picks: &[(Handle, usize)], _: &mut Vec<Change>) {
        for &(h, c) in picks {
            let _ = self.instance(h).crossfade(ClipId::new(c), 0.25);
        }
    }
}

impl Driven for GpuRuntime {
    fn send(&mut self) -> usize {
        // the changes themselves keep the list; the renderer uploads it from here
        let d = std::hint::black_box(self.record_writes()).len();
        self.clear_dirty();
        d
    }
    fn change_batch(&mut self, picks: &[(Handle, usize)], batch: &mut Vec<Change>) {
        batch.clear();
        batch.extend(picks.iter().map(|&(h, c)| {
            Change::new(
                h,
                PlaybackCommand::Crossfade {
                    clip: ClipId::new(c),
                    seconds: 0.25,
                    options: Default::default(),
                },
            )
        }));
        let _ = self.apply(batch);
    }
}

/// Spawns the plan's instances: each blends `a` and `b` (2 layers) or plays `a` from its own
/// phase (1 layer).
fn spawn(rt: &mut impl Driven, cfg: &BenchConfig, clips: &[ClipInfo], plan: &Plan) -> Vec<Handle> {
    (0..plan.n)
        .map(|i| {
            let h = rt.spawn(InstanceTransform::IDENTITY);
            let phase = (i % 97) as f32 / 97.0;
            if cfg.layers >= 2 {
                let _ = Instance::of(rt, h).blend(ClipId::new(plan.a), ClipId::new(plan.b), 0.5);
            } else {
                let _ = Instance::of(rt, h).play(
                    ClipId::new(plan.a),
                    PlayOptions::at(phase * clips[plan.a].duration as f32),
                );
            }
            h
        })
        .collect()
}

/// Runs the warm-up and timed frames on `rt`, each followed by the baselines.
fn drive(
    rt: &mut impl Driven,
    (cfg, clips, plan): (&BenchConfig, &[ClipInfo], &Plan),
    rng: &mut Rng,
    base: &mut Baselines,
) -> Samples {
    let hs = spawn(rt, cfg, clips, plan);
    let (n, changes) = (plan.n, plan.changes);
    // the GPU-timed frame runs on the calling thread only
    let parallel = cfg.mode == BenchMode::Cpu;
    let mut s = Samples::default();
    let mut picks = Vec::with_capacity(changes);
    // the GPU-timed batch: rebuilt from `picks` every frame (timed), in a buffer kept
    // across frames as an application would keep it
    let mut batch = Vec::with_capacity(changes);
    for f in 0..plan.warm + plan.frames {
        picks.clear();
        for _ in 0..changes {
            picks.push((
                hs[rng.below(n)],
                plan.targets[rng.below(plan.targets.len())],
            ));
        }
        let c0 = cpu_ns(parallel);
        let t = Instant::now();
        rt.change_batch(&picks, &mut batch);
        let tu = Instant::now();
        rt.update(cfg.dt);
        let elu = tu.elapsed().as_secs_f64() * 1e3;
        let ev = rt.events().len();
        let dd = rt.send();
        let el = t.elapsed().as_secs_f64() * 1e3;
        let c1 = cpu_ns(parallel);
        let (fl, f0, f1) = base.fill();
        let mset = base.memset();
        let floor = base.floor(rt, &picks);
        let state_floor = base.state_floor(cfg.dt);
        let compact_floor = base.compact_floor(cfg.dt);
        if f >= plan.warm {
            if let (Some(a), Some(b), Some(x), Some(y)) = (c0, c1, f0, f1) {
                s.cpu.push(b.saturating_sub(a) as f64 * 1e-6);
                s.fill_cpu.push(y.saturating_sub(x) as f64 * 1e-6);
            }
            s.frame.push(el);
            s.update.push(elu);
            s.fill.push(fl);
            s.memset.push(mset);
            s.floor.push(floor);
            s.state_floor.push(state_floor);
            s.compact_floor.push(compact_floor);
            s.events += ev;
            s.dirty += dd;
        }
    }
    s
}

/// Runs the benchmark. An empty clip table uses [`throng_runtime::testing::synthetic_clips`].
pub fn run(cfg: &BenchConfig, clips: &[ClipInfo]) -> BenchReport {
    let owned;
    let clips = if clips.is_empty() {
        owned = throng_runtime::testing::synthetic_clips();
        &owned[..]
    } else {
        clips
    };
    let plan = Plan::new(cfg, clips);
    let mut rng = Rng(cfg.seed | 1);
    let mut base = Baselines::new(cfg, &plan);
    let shape = (cfg, clips, &plan);
    let (samples, compact) = match cfg.mode {
        BenchMode::Cpu => {
            let mut rt = CpuRuntime::new(clips);
            rt.set_compact_state(!cfg.full_state);
            let s = drive(&mut rt, shape, &mut rng, &mut base);
            (s, rt.compact_counts())
        }
        BenchMode::Gpu => (
            drive(&mut GpuRuntime::new(clips), shape, &mut rng, &mut base),
            (0, 0),
        ),
    };
    std::hint::black_box(&base.fill);
    let mut r = report(cfg, &plan, samples);
    (r.compact_instances, r.compact_sets) = compact;
    r
}

/// The report of the timed frames' samples.
fn report(cfg: &BenchConfig, plan: &Plan, mut s: Samples) -> BenchReport {
    let (n, frames) = (plan.n, plan.frames);
    let ms = median(&mut s.frame);
    let ms90 = p90(&s.frame);
    let update_ms = median(&mut s.update);
    // schedstat advances at scheduler ticks, so single frames are quantised: use the mean
    let mean = |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
    let memset = median(&mut s.fill);
    let libc_memset = median(&mut s.memset);
    let floor = median(&mut s.floor);
    let state_floor = median(&mut s.state_floor);
    let compact_floor = median(&mut s.compact_floor);
    let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
    BenchReport {
        instances: n,
        mode: cfg.mode.as_str(),
        ms_per_frame: ms,
        ms_p90: ms90,
        update_ms,
        cpu_ms_per_frame: mean(&s.cpu),
        memset_cpu_ms: mean(&s.fill_cpu),
        ns_per_instance: if n > 0 { ms * 1e6 / n as f64 } else { 0.0 },
        memset_ms: memset,
        ratio_to_memset: ratio(ms, memset),
        libc_memset_ms: libc_memset,
        ratio_to_libc_memset: ratio(ms, libc_memset),
        memory_floor_ms: floor,
        ratio_to_memory_floor: ratio(ms, floor),
        state_floor_ms: state_floor,
        ratio_to_state_floor: ratio(ms, state_floor),
        compact_floor_ms: compact_floor,
        changing: cfg.changing,
        changes_per_frame: plan.changes,
        layers: cfg.layers,
        frames,
        threads: rayon::current_num_threads(),
        events_per_frame: s.events as f64 / frames as f64,
        dirty_per_frame: s.dirty as f64 / frames as f64,
        full_state: cfg.full_state,
        compact_instances: 0,
        compact_sets: 0,
    }
}
