//! Frame-cost benchmark of both modes, for `cargo bench` and the `throng bench-runtime`
//! command: time per `update` against a plain parallel fill of the same record bytes.

use crate::{CpuRuntime, GpuRuntime, InstanceRecord, InstanceTransform, PlaybackControl, CHUNK};
use bytemuck::Zeroable;
use rayon::prelude::*;
use serde::Serialize;
use std::time::Instant;
use throng_asset::{Aabb, ClipEvent, ClipInfo, LoopMode};

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
    pub changing: f64,
    pub changes_per_frame: usize,
    pub layers: u32,
    pub frames: usize,
    pub threads: usize,
    /// Mean events fired per frame.
    pub events_per_frame: f64,
    /// GPU mode: mean records written per frame.
    pub dirty_per_frame: f64,
}

/// A clip of `d` seconds of uniform frames at `fps` from frame-table row `first_row`, with an
/// event `e{i}` at each of `events` (seconds) and a unit box as bounds: what the benchmarks and
/// the runtime's tests play.
pub fn synthetic_clip(
    name: &str,
    first_row: u32,
    d: f64,
    fps: f64,
    mode: LoopMode,
    events: &[f32],
) -> ClipInfo {
    let mut c = ClipInfo::uniform(name, first_row, d, fps, mode);
    c.events = events
        .iter()
        .enumerate()
        .map(|(i, &t)| ClipEvent {
            time: t,
            name: format!("e{i}"),
        })
        .collect();
    c.bounds = Aabb {
        min: glam::Vec3::splat(-1.0),
        max: glam::Vec3::splat(1.0),
    };
    c
}

/// A built-in clip table: looping walk (1.0 s), run (0.7 s), idle (2.0 s) and ping-pong sway
/// (1.2 s), plus a one-shot wave (1.5 s) with one event, at 30 fps, no root motion.
pub fn synthetic_clips() -> Vec<ClipInfo> {
    let specs: [(&str, f64, LoopMode, &[f32]); 5] = [
        ("walk", 1.0, LoopMode::Loop, &[]),
        ("run", 0.7, LoopMode::Loop, &[]),
        ("idle", 2.0, LoopMode::Loop, &[]),
        ("sway", 1.2, LoopMode::PingPong, &[]),
        ("wave", 1.5, LoopMode::Once, &[0.75]),
    ];
    let mut row = 1;
    specs
        .iter()
        .map(|&(name, d, mode, ev)| {
            let c = synthetic_clip(name, row, d, 30.0, mode, ev);
            row += c.frames;
            c
        })
        .collect()
}

/// Nanoseconds the threads of this process (from Linux's `/proc/.../schedstat`) or only the
/// calling thread (its CPU-time clock, which unlike schedstat includes the running slice) have
/// spent running on a CPU; `None` where that is not available. On a shared machine wall-clock
/// frame times include waiting for a CPU; this does not.
fn cpu_ns(all_threads: bool) -> Option<u64> {
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
            crate::prefetch::prefetch_write(lines.as_ptr().wrapping_add(j), 64);
        }
        crate::prefetch::prefetch_write(list.as_ptr().wrapping_add(list.len() + 8), 64);
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

/// Runs the benchmark. An empty clip table uses [`synthetic_clips`].
pub fn run(cfg: &BenchConfig, clips: &[ClipInfo]) -> BenchReport {
    let owned;
    let clips = if clips.is_empty() {
        owned = synthetic_clips();
        &owned[..]
    } else {
        clips
    };
    let n = cfg.instances;
    let frames = cfg.frames.max(1);
    let warm = frames.min(30);
    let changes = (cfg.changing.clamp(0.0, 1.0) * n as f64).round() as usize;
    let targets = loop_clips(clips);
    let mut rng = Rng(cfg.seed | 1);
    let a = targets[0];
    let b = targets[1.min(targets.len() - 1)];
    let mut times = Vec::with_capacity(frames);
    let mut update_times = Vec::with_capacity(frames);
    let mut cpu_times = Vec::with_capacity(frames);
    let mut fill_cpu = Vec::with_capacity(frames);
    // the GPU-timed frame runs on the calling thread only
    let parallel = cfg.mode == BenchMode::Cpu;
    let mut events = 0usize;
    let mut dirty = 0usize;

    // the same bytes as the CPU records, filled the plainest way, on the same pool
    let mut fill = vec![InstanceRecord::zeroed(); n];
    let mut fills = Vec::with_capacity(frames);
    let mut memsets = Vec::with_capacity(frames);
    let mut floors = Vec::with_capacity(frames);
    // the floor's array, list and indices (GPU-timed only)
    let mut lines: Vec<[u64; 8]> = Vec::new();
    if cfg.mode == BenchMode::Gpu {
        crate::hugepage::reserve(&mut lines, n);
        lines.resize(n, [0; 8]);
    }
    let mut list: Vec<[u64; 8]> = Vec::with_capacity(changes);
    let mut at: Vec<usize> = Vec::with_capacity(changes);
    let pattern = InstanceRecord::zeroed();

    macro_rules! drive {
        ($rt:expr) => {{
            let rt = &mut $rt;
            let hs: Vec<_> = (0..n)
                .map(|i| {
                    let h = rt.spawn(InstanceTransform::IDENTITY);
                    let phase = (i % 97) as f32 / 97.0;
                    if cfg.layers >= 2 {
                        let _ = rt.blend(h, a, b, 0.5);
                    } else {
                        let _ = rt.play(
                            h,
                            a,
                            crate::PlayOptions::at(phase * clips[a].duration as f32),
                        );
                    }
                    h
                })
                .collect();
            let mut picks = Vec::with_capacity(changes);
            // the GPU-timed batch: rebuilt from `picks` every frame (timed), in a buffer kept
            // across frames as an application would keep it
            let mut batch = Vec::with_capacity(changes);
            for f in 0..warm + frames {
                picks.clear();
                for _ in 0..changes {
                    picks.push((hs[rng.below(n)], targets[rng.below(targets.len())]));
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
                let f0 = cpu_ns(true);
                let tf = Instant::now();
                fill.par_chunks_mut(CHUNK).for_each(|c| c.fill(pattern));
                let fl = tf.elapsed().as_secs_f64() * 1e3;
                let f1 = cpu_ns(true);
                let tm = Instant::now();
                fill.par_chunks_mut(CHUNK).for_each(|c| {
                    let bytes: &mut [u8] = bytemuck::cast_slice_mut(c);
                    // SAFETY: `bytes` is a valid, exclusive byte view of the chunk; any byte
                    // pattern is a valid record (Pod). `write_bytes` of a large run is a call
                    // to the C library's memset.
                    unsafe { std::ptr::write_bytes(bytes.as_mut_ptr(), 0, bytes.len()) };
                });
                let mset = tm.elapsed().as_secs_f64() * 1e3;
                let floor = if lines.is_empty() {
                    0.0
                } else {
                    at.clear();
                    at.extend(picks.iter().filter_map(|&(h, _)| rt.index(h)));
                    memory_floor(&mut lines, &at, &mut list)
                };
                if f >= warm {
                    if let (Some(a), Some(b), Some(x), Some(y)) = (c0, c1, f0, f1) {
                        cpu_times.push(b.saturating_sub(a) as f64 * 1e-6);
                        fill_cpu.push(y.saturating_sub(x) as f64 * 1e-6);
                    }
                    times.push(el);
                    update_times.push(elu);
                    fills.push(fl);
                    memsets.push(mset);
                    floors.push(floor);
                    events += ev;
                    dirty += dd;
                }
            }
        }};
    }
    trait Dirty {
        /// Hands the frame's records to the renderer (here: looks at them) and starts the
        /// next frame's list (timed); returns the records written.
        fn send(&mut self) -> usize;
        fn change_batch(
            &mut self,
            picks: &[(crate::Handle, usize)],
            batch: &mut Vec<crate::Change>,
        );
    }
    impl Dirty for CpuRuntime {
        fn send(&mut self) -> usize {
            0
        }
        fn change_batch(&mut self, picks: &[(crate::Handle, usize)], _: &mut Vec<crate::Change>) {
            for &(h, c) in picks {
                let _ = self.crossfade(h, c, 0.25);
            }
        }
    }
    impl Dirty for GpuRuntime {
        fn send(&mut self) -> usize {
            // the changes themselves keep the list; the renderer uploads it from here
            let d = std::hint::black_box(self.record_writes()).len();
            self.clear_dirty();
            d
        }
        fn change_batch(
            &mut self,
            picks: &[(crate::Handle, usize)],
            batch: &mut Vec<crate::Change>,
        ) {
            batch.clear();
            batch.extend(
                picks
                    .iter()
                    .map(|&(h, c)| crate::Change::Crossfade(h, c, 0.25, Default::default())),
            );
            let _ = self.apply(batch);
        }
    }
    match cfg.mode {
        BenchMode::Cpu => {
            let mut rt = CpuRuntime::new(clips);
            drive!(rt)
        }
        BenchMode::Gpu => {
            let mut rt = GpuRuntime::new(clips);
            drive!(rt)
        }
    }
    std::hint::black_box(&fill);
    let ms = median(&mut times);
    let ms90 = p90(&times);
    let update_ms = median(&mut update_times);
    // schedstat advances at scheduler ticks, so single frames are quantised: use the mean
    let mean = |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
    let cpu_ms = mean(&cpu_times);
    let memset_cpu_ms = mean(&fill_cpu);
    let memset = median(&mut fills);
    let libc_memset = median(&mut memsets);
    let floor = median(&mut floors);
    BenchReport {
        instances: n,
        mode: cfg.mode.as_str(),
        ms_per_frame: ms,
        ms_p90: ms90,
        update_ms,
        cpu_ms_per_frame: cpu_ms,
        memset_cpu_ms,
        ns_per_instance: if n > 0 { ms * 1e6 / n as f64 } else { 0.0 },
        memset_ms: memset,
        ratio_to_memset: if memset > 0.0 { ms / memset } else { 0.0 },
        libc_memset_ms: libc_memset,
        ratio_to_libc_memset: if libc_memset > 0.0 {
            ms / libc_memset
        } else {
            0.0
        },
        memory_floor_ms: floor,
        ratio_to_memory_floor: if floor > 0.0 { ms / floor } else { 0.0 },
        changing: cfg.changing,
        changes_per_frame: changes,
        layers: cfg.layers,
        frames,
        threads: rayon::current_num_threads(),
        events_per_frame: events as f64 / frames as f64,
        dirty_per_frame: dirty as f64 / frames as f64,
    }
}
