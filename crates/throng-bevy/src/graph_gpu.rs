//! Graph crowds stepped on the GPU (docs/graph.md "On the GPU"; `render::graph_step` is the
//! render world's half). The main world keeps the graph crowd (`throng_graph::GraphCrowd`)
//! to check and keep the parameters set, but no longer steps it: each frame, in `Last` (after
//! every system that may spawn, despawn or set a parameter), it hands the render world a
//! [`GpuStep`] — the clock ticks stepped, the parameter changes (16 B each) and the spawns and
//! despawns since the last step — and the render world's compute pass steps every state
//! machine and writes the records the palette pass and the draws read. The state and clip
//! events of a step are read back without waiting and sent as messages when they arrive: **a
//! frame or two late** (the render world takes the copy once the GPU has done the step, the
//! main world sends it in its next frame; an event of an instance despawned meanwhile names
//! no entity).
//!
//! The two worlds share a [`GraphLink`] per crowd: the render world places the crowd on the
//! GPU during an extract (from the graph crowd's state machines as they stand, while the main
//! world waits), and from the next main-world frame on the steps go through the link.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use throng_contract::graph_events::StepEvents;
use throng_contract::graph_step::{last_set_wins, ParamChange};
use throng_runtime::{Clock, Handle, Runtime, SECONDS_PER_TICK};

/// Where a graph crowd steps ([`crate::ThrongCrowd::with_graph_on`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GraphOn {
    /// The GPU on a hardware adapter that can run the step (compute shaders, eight storage
    /// buffers a stage), once its pipelines have compiled; the CPU on a software adapter
    /// (lavapipe, llvmpipe, SwiftShader: there the CPU step is faster, its cores not shared
    /// with a rasteriser), without a render app, or for a GPU-timed crowd.
    #[default]
    Auto,
    /// The CPU step (`GraphCrowd::step`), its events in the frame they fire.
    Cpu,
    /// The GPU wherever the device can run the step (a CPU-timed crowd; otherwise the CPU,
    /// with a warning).
    Gpu,
}

/// A spawn or despawn since the last step, in the order the runtime made them (its dense
/// order is the GPU's: the render world repeats them on the state machines and parameters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InstanceOp {
    /// An instance joined at the end, in the entry state with default parameters.
    Push,
    /// The instance at this index left; the last took its index.
    SwapRemove(u32),
}

/// One step for the render world to run.
#[derive(Debug, Clone, Default)]
pub(crate) struct GpuStep {
    /// The step's number (0 for the first on the GPU): its events come back with it.
    pub number: u64,
    /// Spawns and despawns before the step, in order.
    pub ops: Vec<InstanceOp>,
    /// Parameter changes (dense indices after `ops`), one per parameter, sorted.
    pub changes: Vec<ParamChange>,
    pub ticks: u64,
    /// Instances after `ops`.
    pub len: u32,
}

/// Where the render world put a crowd.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Placement {
    /// On the GPU of this adapter.
    Gpu(String),
    /// On the CPU, and why.
    Cpu(String),
}

/// What the two worlds exchange about one graph crowd.
#[derive(Debug, Default)]
pub(crate) struct LinkState {
    /// Set once by the render world.
    pub placement: Option<Placement>,
    /// Steps the main world queued, oldest first.
    pub steps: Vec<GpuStep>,
    /// Steps' events read back, oldest first, with their step numbers.
    pub events: Vec<(u64, StepEvents)>,
    /// Some step's events were lost (dropped, or past the read-back's room).
    pub lost: bool,
}

/// Shared by a crowd's main-world graph and its render-world pass.
#[derive(Debug, Default)]
pub(crate) struct GraphLink {
    /// The crowd steps on the GPU (read by the main world without the lock).
    pub on_gpu: AtomicBool,
    pub state: Mutex<LinkState>,
}

impl GraphLink {
    /// The shared state (a poisoned lock is taken as it stands: it holds plain data).
    pub(crate) fn lock(&self) -> MutexGuard<'_, LinkState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(crate) fn on_gpu(&self) -> bool {
        self.on_gpu.load(Ordering::Acquire)
    }
}

/// Attached to a graph crowd's runtime (so it follows every spawn and despawn, whoever makes
/// them): once the crowd steps on the GPU it logs them, and the parameter changes since the
/// last step, moving a change's instance as a despawn moves it.
pub(crate) struct GpuLog {
    link: Arc<GraphLink>,
    len: usize,
    pub(crate) ops: Vec<InstanceOp>,
    pub(crate) changes: Vec<ParamChange>,
}

impl GpuLog {
    pub(crate) fn new(link: Arc<GraphLink>, len: usize) -> GpuLog {
        GpuLog {
            link,
            len,
            ops: Vec::new(),
            changes: Vec::new(),
        }
    }
}

impl GpuLog {
    /// A parameter change for the next step, once the crowd steps on the GPU.
    pub(crate) fn log_change(&mut self, change: ParamChange) {
        if self.link.on_gpu() {
            self.changes.push(change);
        }
    }
}

impl throng_runtime::InstanceData for GpuLog {
    fn push_instance(&mut self) {
        self.len += 1;
        if self.link.on_gpu() {
            self.ops.push(InstanceOp::Push);
        }
    }

    fn swap_remove_instance(&mut self, index: usize) {
        let last = self.len.saturating_sub(1) as u32;
        self.len = self.len.saturating_sub(1);
        if !self.link.on_gpu() {
            return;
        }
        let index = index as u32;
        self.ops.push(InstanceOp::SwapRemove(index));
        // a change of the instance that left goes with it; the last instance's moves
        self.changes.retain(|c| c[0] != index);
        for c in &mut self.changes {
            if c[0] == last {
                c[0] = index;
            }
        }
    }

    fn instance_count(&self) -> usize {
        self.len
    }
}

/// A step handed to the render world whose events have not come back: its start and length
/// (seconds, whole ticks) and the runtime's handles in dense order at the step (shared
/// between steps while no instance spawns or despawns).
struct Queued {
    number: u64,
    t0: f64,
    dt: f64,
    handles: Arc<Vec<Handle>>,
}

/// A step's events as they came back: its start and length (seconds) and the handles its
/// instance indices name.
pub(crate) struct Arrived {
    pub events: StepEvents,
    pub t0: f64,
    pub dt: f64,
    pub handles: Arc<Vec<Handle>>,
}

/// Steps whose events are still awaited; past this the oldest are given up (reported lost).
const AWAITED_STEPS: usize = 8;

/// The main world's side of a graph crowd on the GPU.
pub(crate) struct MainGpu {
    clock: Clock,
    steps: u64,
    queued: VecDeque<Queued>,
    handles: Arc<Vec<Handle>>,
}

impl MainGpu {
    /// Continuing from the graph crowd's clock, so both sides step the same ticks.
    pub(crate) fn new(clock: Clock, rt: &Runtime) -> MainGpu {
        MainGpu {
            clock,
            steps: 0,
            queued: VecDeque::new(),
            handles: Arc::new(dense_handles(rt)),
        }
    }

    /// Queues this frame's step of `dt` seconds for the render world: the log's spawns,
    /// despawns and changes (of several to one parameter the last set wins).
    pub(crate) fn step(&mut self, rt: &mut Runtime, link: &GraphLink, dt: f64) {
        let Some(log) = rt.data_mut::<GpuLog>() else {
            return;
        };
        let ops = std::mem::take(&mut log.ops);
        let mut changes = std::mem::take(&mut log.changes);
        last_set_wins(&mut changes);
        if !ops.is_empty() {
            self.handles = Arc::new(dense_handles(rt));
        }
        let t0 = self.clock.ticks() as f64 * SECONDS_PER_TICK;
        let ticks = self.clock.advance(dt);
        let step = GpuStep {
            number: self.steps,
            ops,
            changes,
            ticks,
            len: rt.len() as u32,
        };
        self.queued.push_back(Queued {
            number: self.steps,
            t0,
            dt: ticks as f64 * SECONDS_PER_TICK,
            handles: Arc::clone(&self.handles),
        });
        self.steps += 1;
        let mut state = link.lock();
        state.steps.push(step);
        if self.queued.len() > AWAITED_STEPS {
            self.queued.pop_front();
            state.lost = true;
        }
    }

    /// The events that came back since the last call, oldest first; whether any were lost.
    pub(crate) fn arrived(&mut self, link: &GraphLink) -> (Vec<Arrived>, bool) {
        let (events, mut lost) = {
            let mut state = link.lock();
            (
                std::mem::take(&mut state.events),
                std::mem::take(&mut state.lost),
            )
        };
        let mut out = Vec::with_capacity(events.len());
        for (number, e) in events {
            while self.queued.front().is_some_and(|q| q.number < number) {
                // a step whose events never came
                self.queued.pop_front();
                lost = true;
            }
            match self.queued.front() {
                Some(q) if q.number == number => {
                    out.push(Arrived {
                        events: e,
                        t0: q.t0,
                        dt: q.dt,
                        handles: Arc::clone(&q.handles),
                    });
                    self.queued.pop_front();
                }
                _ => lost = true,
            }
        }
        (out, lost)
    }
}

fn dense_handles(rt: &Runtime) -> Vec<Handle> {
    (0..rt.len()).filter_map(|i| rt.handle_at(i)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use throng_runtime::InstanceData;

    /// Before the crowd is on the GPU nothing is logged; after, spawns and despawns are, in
    /// order, and a despawn drops the leaver's changes and moves the last instance's to the
    /// index it takes, as the runtime moves the instance.
    #[test]
    fn the_log_follows_spawns_and_despawns_and_moves_changes_with_their_instances() {
        let link = Arc::new(GraphLink::default());
        let mut log = GpuLog::new(Arc::clone(&link), 4);
        log.log_change([0, 0, 1, 0]);
        log.push_instance();
        assert!(log.ops.is_empty() && log.changes.is_empty());
        assert_eq!(log.instance_count(), 5);
        link.on_gpu.store(true, Ordering::Release);
        log.log_change([1, 0, 10, 0]);
        log.log_change([4, 0, 40, 0]);
        log.log_change([2, 1, 21, 0]);
        // instance 1 leaves; the last (4) takes its index
        log.swap_remove_instance(1);
        assert_eq!(log.ops, [InstanceOp::SwapRemove(1)]);
        assert_eq!(log.changes, [[1, 0, 40, 0], [2, 1, 21, 0]]);
        // the last leaves: nothing moves
        log.swap_remove_instance(3);
        log.push_instance();
        assert_eq!(
            log.ops,
            [
                InstanceOp::SwapRemove(1),
                InstanceOp::SwapRemove(3),
                InstanceOp::Push
            ]
        );
        assert_eq!(log.changes, [[1, 0, 40, 0], [2, 1, 21, 0]]);
        assert_eq!(log.instance_count(), 4);
    }

    /// Events come back with their step's number; a step whose events never came is reported
    /// lost, and an arrived step is matched to its own time and handles.
    #[test]
    fn arrived_events_are_matched_to_their_steps() {
        let link = GraphLink::default();
        let mut rt = Runtime::new(throng_contract::Timing::Cpu, &[]);
        let h = rt.spawn(Default::default());
        rt.attach(GpuLog::new(Arc::new(GraphLink::default()), 1))
            .expect("attach");
        let mut gpu = MainGpu::new(Clock::new(), &rt);
        for _ in 0..3 {
            gpu.step(&mut rt, &link, 0.5);
        }
        assert_eq!(link.lock().steps.len(), 3);
        assert_eq!(link.lock().steps[2].ticks, 1 << 19);
        // step 0's copy was dropped; step 2 has not arrived
        link.lock().events.push((1, StepEvents::default()));
        let (arrived, lost) = gpu.arrived(&link);
        assert!(lost);
        assert_eq!(arrived.len(), 1);
        let a = &arrived[0];
        assert_eq!((a.t0, a.dt), (0.5, 0.5));
        assert_eq!(a.handles.as_slice(), [h]);
        link.lock().events.push((2, StepEvents::default()));
        let (arrived, lost) = gpu.arrived(&link);
        assert!(!lost);
        assert_eq!(arrived[0].t0, 1.0);
    }
}
