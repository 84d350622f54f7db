//! An animation graph crowd (throng-graph, docs/graph.md) stepped on the GPU or on the CPU
//! behind one API, as throng-runtime's `Runtime` hides whether playback is CPU- or GPU-timed:
//! a front end makes a [`GraphRuntime`] with [`StepOn::Auto`], sets parameters with the
//! graph's typed ids, calls [`GraphRuntime::step`] once a frame, reads the state and clip
//! events, and hands the records to its crowd's upload ([`GraphRuntime::update_upload`]),
//! whichever side stepped.
//!
//! - **On the CPU** the crowd is `throng_graph::GraphCrowd`, the reference step: events in
//!   the frame they fire, the records written by the CPU and uploaded (64 B an instance).
//! - **On the GPU** it is throng-render's `graph_pass::GraphPass` (docs/graph.md "On the
//!   GPU"): the CPU sends only the frame's parameter changes (16 B each; of several to one
//!   parameter of one instance in a frame the last set wins), the pass steps every state
//!   machine and writes the records on the GPU, and the events of a step are taken in the
//!   next frame without waiting — **one frame late** ([`GraphRuntime::events_frame_late`]).
//!   The states, transitions, clips, weights, phases (in ticks) and events equal the CPU
//!   step's exactly; positions (row + frac) agree within 1e-4 frames (throng-render
//!   `tests/graph_gpu.rs`, and this crate's `tests/graph_runtime.rs` through this API).
//!
//! Why a crate of its own: throng-render does not link throng-graph (or the runtime), and
//! throng-graph does not link a GPU crate; this is the one place both meet, so the choice
//! between them is written once for every front end (the command line's demo, a game).

use std::collections::VecDeque;

use throng_asset::ClipInfo;
use throng_contract::Records;
use throng_contract::{InstanceRecord, InstanceTransform};
use throng_graph::gpu_layout::MachineStanding;
use throng_graph::{kind, ClipEvent, Graph, GraphCrowd, GraphError, GraphEvent, Kind, ParamId};
use throng_render::graph_pass::{EventCapacity, GraphPass, ParamChange};
use throng_render::{CrowdUpload, Gpu, Playback, RenderError};
use throng_runtime::{Clock, SECONDS_PER_TICK};

/// Where a [`GraphRuntime`] is asked to step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StepOn {
    /// The GPU on a hardware adapter with compute shaders and eight storage buffers a stage;
    /// the CPU on a software adapter (lavapipe, llvmpipe: there the CPU step is faster, its
    /// cores not shared with a rasteriser), on a downlevel one, or without a device.
    #[default]
    Auto,
    /// The CPU step (`GraphCrowd::step`), wherever.
    Cpu,
    /// The GPU pass; an error where the device cannot run it.
    Gpu,
}

impl StepOn {
    /// Whether a graph asked to step `self` on `gpu` steps on the GPU — the rule of
    /// [`GraphRuntime::place`], for a front end's line before it moves a crowd — and, when
    /// `Auto` keeps the CPU, why (e.g. "llvmpipe … is a software adapter"). `Gpu` is `true`
    /// whatever the device (placing then fails where the device cannot run the pass). `Auto`
    /// on a device that passes these checks may still keep the CPU where the pass's own
    /// check refuses it ([`GraphRuntime::cpu_because`] then says why).
    pub fn resolve(self, gpu: Option<&Gpu>) -> (bool, Option<String>) {
        match (self, gpu) {
            (StepOn::Cpu, _) => (false, None),
            (StepOn::Gpu, _) => (true, None),
            (StepOn::Auto, None) => (false, Some("no GPU device".into())),
            (StepOn::Auto, Some(gpu)) => {
                if let Some(missing) = gpu.full_path_missing() {
                    (false, Some(format!("the adapter lacks {missing}")))
                } else if gpu.summary.is_software() {
                    // a browser's WebGPU adapter may have no name (Chromium on SwiftShader)
                    let who = match gpu.summary.name.as_str() {
                        "" => format!("the unnamed {} adapter", gpu.summary.backend),
                        name => name.to_string(),
                    };
                    (false, Some(format!("{who} is a software adapter")))
                } else {
                    (true, None)
                }
            }
        }
    }
}

/// The line a front end prints once it knows where a graph steps (`StepOn::resolve`, or a
/// placed runtime's `on_gpu` and `cpu_because`): on the GPU, of `adapter` where named, or on
/// the CPU and why, with the front end's `flag` that asks for the other side, e.g. "graph:
/// stepped on the CPU (llvmpipe is a software adapter; --graph-on gpu steps it on the GPU)".
pub fn where_it_steps(
    on_gpu: bool,
    cpu_because: Option<&str>,
    adapter: Option<&str>,
    flag: &str,
) -> String {
    match (on_gpu, cpu_because) {
        (true, _) => {
            let of = adapter.map(|a| format!(" of {a}")).unwrap_or_default();
            format!(
                "graph: stepped on the GPU{of} (the CPU sends only parameter changes; {flag} cpu \
                 steps it on the CPU)"
            )
        }
        (false, Some(why)) => {
            format!("graph: stepped on the CPU ({why}; {flag} gpu steps it on the GPU)")
        }
        (false, None) => format!("graph: stepped on the CPU ({flag} gpu steps it on the GPU)"),
    }
}

/// What a [`GraphRuntime`] call can fail with.
#[derive(Debug, thiserror::Error)]
pub enum GraphRuntimeError {
    /// A parameter id whose index or kind this graph does not have, an instance past the
    /// crowd, a value its kind cannot hold (nothing was set).
    #[error(transparent)]
    Graph(#[from] GraphError),
    /// The GPU pass refused or failed (a device without what it needs, a lost device).
    #[error(transparent)]
    Render(#[from] RenderError),
    /// Stepping on the GPU (`StepOn::Gpu`) or uploading records was asked of a runtime given
    /// no device.
    #[error("no GPU device was given to the graph runtime (GraphRuntime::new or place), and stepping on the GPU (StepOn::Gpu) or uploading its records needs one; pass the device it draws with")]
    NoDevice,
    /// A runtime on the GPU was asked to step on the CPU.
    #[error("the graph steps on the GPU, where its states are the pass's; it cannot move back to the CPU (StepOn::Cpu): make a GraphRuntime on the CPU from a new GraphCrowd")]
    OnGpu,
    /// The clip table given is not the one the crowd was made with.
    #[error("the clip table given to the graph runtime is not the one its GraphCrowd was made with (another count of clips, or clips of other frames); pass the same asset's clips")]
    OtherClips,
}

/// The events a step on the GPU keeps by default ([`GraphRuntime::place`]): every state event
/// of `n` instances (two each) and as many clip events as instances, at least 64.
pub fn default_capacity(n: usize) -> EventCapacity {
    EventCapacity::for_crowd(n, n.max(64).min(u32::MAX as usize) as u32)
}

/// The GPU side: the pass, the frame's parameter changes, the clock.
struct OnGpu {
    pass: GraphPass,
    /// Parameter changes since the last step, in the order set.
    changes: Vec<ParamChange>,
    clock: Clock,
    /// Whole ticks the crowd had stepped on the CPU before it moved here.
    start_ticks: u64,
    /// The steps whose events are still to be taken: the pass's step number, the step's start
    /// and length (seconds). One (the last step's) unless events are never waited for.
    queued: VecDeque<(u64, f64, f64)>,
    /// Events of a step were dropped since the lists were last filled.
    dropped: bool,
}

/// Steps whose events a runtime that never waits keeps waiting for: the pass's copies (one of
/// them the step just queued's).
const QUEUED_STEPS: usize = throng_render::graph_pass::LATE_EVENT_COPIES;

/// A graph crowd stepped on the GPU or the CPU (see the crate docs). Instances are
/// `0..len()`, as in the `GraphCrowd` it was made from.
pub struct GraphRuntime {
    /// The CPU step; on the GPU it only checks and keeps the parameters set (what was set
    /// last, not what a transition consumed): it is not stepped.
    crowd: GraphCrowd,
    /// The device given to [`GraphRuntime::new`]: the one it steps on (on the GPU) and
    /// uploads records with.
    device: Option<Gpu>,
    gpu: Option<OnGpu>,
    /// Why `StepOn::Auto` chose the CPU, for a front end's line.
    cpu_because: Option<String>,
    /// On the GPU: the events of the step before the last, taken by the last.
    state_events: Vec<GraphEvent>,
    clip_events: Vec<ClipEvent>,
    lost: bool,
}

/// The GPU pass for `crowd` as it stands: its graph's tables, state machines and parameters
/// uploaded with the clip table of `clips` (the clips the crowd was made with), its records
/// written; a step keeps up to `capacity` events of each kind (docs/graph.md "On the GPU").
pub fn graph_pass(
    gpu: &Gpu,
    crowd: &GraphCrowd,
    clips: &[ClipInfo],
    capacity: EventCapacity,
) -> Result<GraphPass, RenderError> {
    let layout = crowd.gpu_layout();
    let mut machines = Vec::with_capacity(crowd.len() * throng_graph::gpu_layout::MACHINE_WORDS);
    let mut values = Vec::new();
    for i in 0..crowd.len() {
        // every index below len is an instance: these cannot fail
        if let (Ok(m), Ok(v)) = (crowd.machine_words(i), crowd.parameter_values(i)) {
            machines.extend(m);
            values.extend_from_slice(v);
        }
    }
    let table = throng_asset::gpu_clip_table(clips);
    GraphPass::new(gpu, layout.tables(), &table, &machines, &values, capacity)
}

impl GraphRuntime {
    /// `crowd`, as it stands (a crowd stepped on the CPU for a while moves with its states,
    /// parameters and time), stepped where `on` asks ([`Self::place`]). `clips` is the clip
    /// table the crowd was made with (`GraphCrowd::new`); `gpu` the device to step on and to
    /// upload records with (`None`: the CPU, unless `StepOn::Gpu` asks for the GPU, an error).
    pub fn new(
        crowd: GraphCrowd,
        clips: &[ClipInfo],
        gpu: Option<&Gpu>,
        on: StepOn,
    ) -> Result<GraphRuntime, GraphRuntimeError> {
        let mut rt = GraphRuntime {
            crowd,
            device: None,
            gpu: None,
            cpu_because: None,
            state_events: Vec::new(),
            clip_events: Vec::new(),
            lost: false,
        };
        rt.place(clips, gpu, on)?;
        Ok(rt)
    }

    /// Where the crowd steps from the next step on, as `on` asks for `gpu` (see
    /// [`StepOn`]): a runtime stepped on the CPU moves to the GPU with its states as they
    /// stand; on an error it stays as it was (device and all). A runtime on the GPU stays
    /// there, on its device, whatever `gpu` and `on` say (its states are the pass's): asking
    /// it for the CPU is an error. `clips` must be the table the crowd was made with (else
    /// `OtherClips`). On the GPU a step keeps the state events of every instance (two each)
    /// and as many clip events as instances (at least 64): a long frame in a crowd dense with
    /// clip events can overflow that, and [`Self::events_lost`] then says so; to keep more,
    /// [`Self::place_with_capacity`].
    pub fn place(
        &mut self,
        clips: &[ClipInfo],
        gpu: Option<&Gpu>,
        on: StepOn,
    ) -> Result<(), GraphRuntimeError> {
        let capacity = default_capacity(self.crowd.len());
        self.place_with_capacity(clips, gpu, on, capacity)
    }

    /// [`Self::place`] keeping up to `capacity` events of each kind a step on the GPU (16 B a
    /// state event, 32 B a clip event of device memory).
    pub fn place_with_capacity(
        &mut self,
        clips: &[ClipInfo],
        gpu: Option<&Gpu>,
        on: StepOn,
        capacity: EventCapacity,
    ) -> Result<(), GraphRuntimeError> {
        if self.gpu.is_some() {
            return match on {
                StepOn::Cpu => Err(GraphRuntimeError::OnGpu),
                StepOn::Auto | StepOn::Gpu => Ok(()),
            };
        }
        if !self.crowd.plays_clips(clips) {
            return Err(GraphRuntimeError::OtherClips);
        }
        let (on_gpu, because) = on.resolve(gpu);
        let gpu = match (on_gpu, gpu) {
            (false, _) => {
                self.device = gpu.cloned();
                self.cpu_because = because;
                return Ok(());
            }
            (true, None) => return Err(GraphRuntimeError::NoDevice),
            (true, Some(gpu)) => gpu,
        };
        let mut pass = match graph_pass(gpu, &self.crowd, clips, capacity) {
            Ok(pass) => pass,
            Err(e @ RenderError::NeedsCapability { .. }) if on == StepOn::Auto => {
                self.device = Some(gpu.clone());
                self.cpu_because = Some(e.to_string());
                return Ok(());
            }
            Err(e) => return Err(e.into()),
        };
        // a step's events are taken in the next frame, so a frame never waits for the GPU
        pass.queue_event_reads(gpu, true);
        self.device = Some(gpu.clone());
        self.cpu_because = None;
        self.gpu = Some(OnGpu {
            pass,
            changes: Vec::new(),
            clock: Clock::new(),
            start_ticks: self.crowd.ticks(),
            queued: VecDeque::new(),
            dropped: false,
        });
        // the events listed were the CPU step's; the GPU's come with its first step
        self.state_events.clear();
        self.clip_events.clear();
        Ok(())
    }

    /// Whether the GPU steps the crowd.
    pub fn on_gpu(&self) -> bool {
        self.gpu.is_some()
    }

    /// Why [`StepOn::Auto`] chose the CPU (e.g. "llvmpipe is a software adapter"); `None`
    /// when it steps on the GPU or the CPU was asked for.
    pub fn cpu_because(&self) -> Option<&str> {
        self.cpu_because.as_deref()
    }

    /// The graph the crowd plays (parameter and state names, event names).
    pub fn graph(&self) -> &Graph {
        self.crowd.graph()
    }

    /// Parameter `name` of kind `K`; an unknown name or another kind is an error.
    pub fn param<K: Kind>(&self, name: &str) -> Result<ParamId<K>, GraphError> {
        self.crowd.param(name)
    }

    /// Instances.
    pub fn len(&self) -> usize {
        self.crowd.len()
    }

    /// Whether the crowd has no instances.
    pub fn is_empty(&self) -> bool {
        self.crowd.is_empty()
    }

    /// Seconds stepped, in whole clock ticks (2^20 a second), as `GraphCrowd::time`.
    pub fn time(&self) -> f64 {
        match &self.gpu {
            Some(g) => (g.start_ticks + g.clock.ticks()) as f64 * SECONDS_PER_TICK,
            None => self.crowd.time(),
        }
    }

    /// Where instance `i`'s state machine stands after the last step: its state and running
    /// transition, as `GraphCrowd::state` and `transition` report them. On the GPU this reads
    /// the instance's machine back (96 B, waiting for the GPU): for a tool that shows one
    /// instance (the viewer's Graph panel), not for every instance every frame.
    pub fn standing(&self, i: usize) -> Result<MachineStanding, GraphRuntimeError> {
        let Some(g) = &self.gpu else {
            let (state, transition) = (self.crowd.state(i)?, self.crowd.transition(i)?);
            return Ok(MachineStanding { state, transition });
        };
        // the CPU crowd still knows how many instances there are
        self.crowd.state(i)?;
        let gpu = self.device.as_ref().ok_or(GraphRuntimeError::NoDevice)?;
        let words = g.pass.read_machine(gpu, i)?;
        self.graph().standing_of_words(&words).ok_or_else(|| {
            GraphRuntimeError::Render(RenderError::Readback(format!(
                "instance {i}'s machine names no state or transition of the graph: {words:?}"
            )))
        })
    }

    /// The CPU crowd, when the CPU steps it (`None` on the GPU, where its states are the
    /// pass's: [`Self::gpu_pass`]).
    pub fn cpu_crowd(&self) -> Option<&GraphCrowd> {
        self.gpu.is_none().then_some(&self.crowd)
    }

    /// The GPU pass, when the GPU steps the crowd (its GPU time, read-backs for tools).
    pub fn gpu_pass(&self) -> Option<&GraphPass> {
        self.gpu.as_ref().map(|g| &g.pass)
    }

    /// After a parameter was set on the CPU crowd (which checked it), the GPU's change: the
    /// value as the crowd keeps it.
    fn sent(&mut self, instance: usize, p: throng_graph::Param) {
        if let Some(g) = &mut self.gpu {
            let kept = self.crowd.value_any(instance, p).unwrap_or(0.0);
            g.changes
                .push([instance as u32, p.index() as u32, kept.to_bits(), 0]);
        }
    }

    /// Sets a float parameter of one instance (finite values only), for the next step.
    pub fn set_float(
        &mut self,
        instance: usize,
        p: ParamId<kind::Float>,
        v: f32,
    ) -> Result<(), GraphError> {
        self.crowd.set_float(instance, p, v)?;
        self.sent(instance, p.erase());
        Ok(())
    }

    /// Sets an int parameter (magnitude at most 2^24).
    pub fn set_int(
        &mut self,
        instance: usize,
        p: ParamId<kind::Int>,
        v: i32,
    ) -> Result<(), GraphError> {
        self.crowd.set_int(instance, p, v)?;
        self.sent(instance, p.erase());
        Ok(())
    }

    /// Sets a bool parameter.
    pub fn set_bool(
        &mut self,
        instance: usize,
        p: ParamId<kind::Bool>,
        v: bool,
    ) -> Result<(), GraphError> {
        self.crowd.set_bool(instance, p, v)?;
        self.sent(instance, p.erase());
        Ok(())
    }

    /// Sets a trigger; it stays set until a transition with it among its conditions fires.
    pub fn fire(&mut self, instance: usize, p: ParamId<kind::Trigger>) -> Result<(), GraphError> {
        self.crowd.fire(instance, p)?;
        self.sent(instance, p.erase());
        Ok(())
    }

    /// Clears a trigger that has not fired.
    pub fn reset_trigger(
        &mut self,
        instance: usize,
        p: ParamId<kind::Trigger>,
    ) -> Result<(), GraphError> {
        self.crowd.reset_trigger(instance, p)?;
        self.sent(instance, p.erase());
        Ok(())
    }

    /// Sets parameter `p` of every instance from a function of the instance index, values as
    /// kept (ints as whole f32s, bools and triggers 0 or 1), as `GraphCrowd::set_all`: the
    /// first value its kind cannot hold is an error, the instances before it set.
    pub fn set_all(
        &mut self,
        p: impl Into<throng_graph::Param>,
        mut value: impl FnMut(usize) -> f32,
    ) -> Result<(), GraphError> {
        let p = p.into();
        let mut asked = 0usize;
        let set = self.crowd.set_all(p, |i| {
            asked += 1;
            value(i)
        });
        if self.gpu.is_some() {
            // only what was set: past a refused value the crowd's kept values are not what
            // the GPU holds (a trigger the GPU consumed is still set there)
            let set_len = if set.is_ok() {
                asked
            } else {
                asked.saturating_sub(1)
            };
            for i in 0..set_len {
                self.sent(i, p);
            }
        }
        set
    }

    /// Steps every instance by `dt` seconds (in whole clock ticks, the rest carried; negative
    /// or non-finite is 0) with the parameters set since the last step. On the GPU it first
    /// takes the last step's events ([`Self::state_events`]), then sends the changes and
    /// queues the pass; it waits for nothing the GPU is doing. On an error nothing was
    /// stepped (the time stays), and the changes set since the last step are dropped.
    pub fn step(&mut self, dt: f64) -> Result<(), GraphRuntimeError> {
        let Some(g) = &mut self.gpu else {
            // the events are the crowd's own lists, not copied
            self.crowd.step(dt);
            return Ok(());
        };
        let mut changes = std::mem::take(&mut g.changes);
        // of several changes to one parameter of one instance the last set wins: the pass
        // applies a frame's changes in parallel and takes one each
        throng_contract::graph_step::last_set_wins(&mut changes);
        let stepped = self.take_last_events().and_then(|()| {
            let (Some(g), Some(gpu)) = (&mut self.gpu, &self.device) else {
                return Ok(());
            };
            let t0 = (g.start_ticks + g.clock.ticks()) as f64 * SECONDS_PER_TICK;
            let mut clock = g.clock;
            let ticks = clock.advance(dt);
            let number = g.pass.steps();
            g.pass.step(gpu, ticks, &changes)?;
            g.clock = clock;
            g.queued
                .push_back((number, t0, ticks as f64 * SECONDS_PER_TICK));
            while g.queued.len() > QUEUED_STEPS {
                // the pass has dropped its copy
                g.queued.pop_front();
                g.dropped = true;
            }
            Ok(())
        });
        if let Some(g) = &mut self.gpu {
            // the list's room is kept for the next frame's changes
            changes.clear();
            g.changes = changes;
        }
        stepped
    }

    /// On the GPU: lists the events of the last step now ([`Self::state_events`],
    /// [`Self::clip_events`]), waiting for it if it has not finished — for a last frame, or a
    /// tool that needs them in the frame they fired; the next step then lists none before its
    /// own. Never waiting ([`Self::never_wait_for_events`]) it lists those that have arrived.
    /// On the CPU the events are already the last step's: nothing to do.
    pub fn finish_events(&mut self) -> Result<(), GraphRuntimeError> {
        self.take_last_events()
    }

    /// On the GPU: the events of the step queued last (if not taken yet) into the lists.
    fn take_last_events(&mut self) -> Result<(), GraphRuntimeError> {
        let (Some(g), Some(gpu)) = (&mut self.gpu, &self.device) else {
            return Ok(());
        };
        self.state_events.clear();
        self.clip_events.clear();
        self.lost = std::mem::take(&mut g.dropped);
        if g.queued.is_empty() {
            return Ok(());
        }
        let graph = self.crowd.graph();
        for (number, events) in g.pass.take_arrived_events(gpu)? {
            // steps before this one that were not taken were dropped by the pass
            while g.queued.front().is_some_and(|q| q.0 < number) {
                g.queued.pop_front();
                self.lost = true;
            }
            let Some(&(_, t0, dt)) = g.queued.front().filter(|q| q.0 == number) else {
                // a step this runtime no longer waits for: its time is not known
                self.lost = true;
                continue;
            };
            g.queued.pop_front();
            self.state_events
                .extend((events.state.iter()).filter_map(|&w| graph.state_event_of_words(w)));
            self.clip_events
                .extend((events.clip.iter()).map(|&w| ClipEvent::of_words(w, t0, dt)));
            self.lost |= events.state_lost || events.clip_lost;
        }
        Ok(())
    }

    /// On the GPU, from the next step on (`never_wait`): events are taken only once their copy
    /// has arrived, so nothing ever waits on the device — for a browser's main thread, where
    /// a mapping resolves only after the page's task returns. A step's events are then listed
    /// by the first step (or [`Self::finish_events`]) after they arrive: usually the next
    /// frame, later when the GPU is slow; up to `LATE_EVENT_COPIES` (6) steps wait, older ones
    /// are dropped and [`Self::events_lost`] says so, as it does for events past a copy's room
    /// (which then grows). Off (the default), a copy not arrived by the next step is waited
    /// for. Nothing to do on the CPU.
    pub fn never_wait_for_events(&mut self, never_wait: bool) {
        if let Some(g) = &mut self.gpu {
            g.pass.never_wait_for_events(never_wait);
        }
    }

    /// Whether [`Self::state_events`] and [`Self::clip_events`] are earlier steps' rather than
    /// the last (the CPU's): on the GPU they are taken without waiting — the step before the
    /// last's, or never waiting ([`Self::never_wait_for_events`]) those of every step whose
    /// copy has arrived since, in order.
    pub fn events_frame_late(&self) -> bool {
        self.gpu.is_some()
    }

    /// The state events of the last step ([`Self::events_frame_late`]: of earlier ones), an
    /// instance's in the order fired; the CPU step's list, equal on the GPU.
    pub fn state_events(&self) -> &[GraphEvent] {
        match self.gpu {
            Some(_) => &self.state_events,
            None => self.crowd.events(),
        }
    }

    /// The clip events of the last step (or earlier ones, [`Self::events_frame_late`]), by
    /// instance, an instance's by time; the CPU step's list, equal on the GPU.
    pub fn clip_events(&self) -> &[ClipEvent] {
        match self.gpu {
            Some(_) => &self.clip_events,
            None => self.crowd.clip_events(),
        }
    }

    /// Whether events of that step were lost past the GPU's room for them (never on the CPU).
    pub fn events_lost(&self) -> bool {
        self.lost
    }

    /// Hands the records of the last step to `upload` (CPU-timed, made on the device given to
    /// [`Self::new`]) for drawing, whichever side wrote them: on the CPU every record is sent
    /// (64 B each); on the GPU the records are copied on the device. Writes the transforms
    /// (one per instance) when `transforms_changed`. Returns the bytes sent from the CPU; an
    /// error without a device.
    pub fn update_upload(
        &self,
        upload: &mut CrowdUpload,
        transforms: &[InstanceTransform],
        transforms_changed: bool,
    ) -> Result<u64, GraphRuntimeError> {
        let gpu = self.device.as_ref().ok_or(GraphRuntimeError::NoDevice)?;
        Ok(match &self.gpu {
            Some(g) => g
                .pass
                .update_upload(gpu, upload, transforms, transforms_changed)?,
            None => upload.update_cpu_timed(
                gpu,
                self.crowd.records(),
                transforms,
                transforms_changed,
            )?,
        })
    }

    /// Every instance's record as the last step wrote it: the CPU's, or read back from the
    /// GPU (waiting for it: for tools and tests, not a frame).
    pub fn read_records(&self) -> Result<Vec<InstanceRecord>, GraphRuntimeError> {
        Ok(match (&self.gpu, &self.device) {
            (Some(g), Some(gpu)) => g.pass.read_records(gpu)?,
            _ => self.crowd.records().to_vec(),
        })
    }
}

/// A [`GraphRuntime`] as a front end draws it (`throng demo`, `throng render --graph`, the
/// browser package): stepped where [`GraphPlayer::place`] put it, and once on the GPU the
/// upload its records are copied into for drawing (the transforms sent with the first copy).
pub struct GraphPlayer {
    pub rt: GraphRuntime,
    /// On the GPU: the upload, and whether the transforms were sent.
    upload: Option<(CrowdUpload, bool)>,
}

impl GraphPlayer {
    pub fn new(rt: GraphRuntime) -> GraphPlayer {
        GraphPlayer { rt, upload: None }
    }

    /// Steps the graph where `on` asks for `gpu` from now on (`GraphRuntime::place`; `clips`:
    /// the clip table its crowd was made with), with an upload to draw from on the GPU.
    pub fn place(
        &mut self,
        clips: &[ClipInfo],
        gpu: &Gpu,
        on: StepOn,
    ) -> Result<(), GraphRuntimeError> {
        let capacity = default_capacity(self.rt.len());
        self.place_with_capacity(clips, gpu, on, capacity)
    }

    /// [`Self::place`] keeping up to `capacity` events of each kind a step on the GPU
    /// (`GraphRuntime::place_with_capacity`).
    pub fn place_with_capacity(
        &mut self,
        clips: &[ClipInfo],
        gpu: &Gpu,
        on: StepOn,
        capacity: EventCapacity,
    ) -> Result<(), GraphRuntimeError> {
        self.rt
            .place_with_capacity(clips, Some(gpu), on, capacity)?;
        if self.rt.on_gpu() && self.upload.is_none() {
            let upload = CrowdUpload::new(&gpu.device, throng_contract::Timing::Cpu);
            self.upload = Some((upload, false));
        }
        Ok(())
    }

    /// On the GPU: hands the records the last step wrote to the upload (a copy on the device;
    /// `transforms`, one per instance, sent with the first and when `moved`). Nothing to do on
    /// the CPU.
    pub fn prepare_draw(
        &mut self,
        transforms: &[InstanceTransform],
        moved: bool,
    ) -> Result<(), GraphRuntimeError> {
        if let Some((upload, placed)) = &mut self.upload {
            self.rt
                .update_upload(upload, transforms, moved || !*placed)?;
            *placed = true;
        }
        Ok(())
    }

    /// The upload a graph stepped on the GPU is drawn from (after [`Self::prepare_draw`]);
    /// `None` on the CPU, where the records are the crowd's.
    pub fn upload(&self) -> Option<&CrowdUpload> {
        self.upload.as_ref().map(|(u, _)| u)
    }

    /// What the renderer draws the crowd from (after [`Self::prepare_draw`]): the upload the
    /// GPU step's records were copied into, or the CPU step's records.
    pub fn playback(&self) -> Playback<'_> {
        match (&self.upload, self.rt.cpu_crowd()) {
            (Some((upload, _)), _) => Playback::Uploaded(upload),
            (None, Some(crowd)) => Playback::Records(Records::Cpu(crowd.records())),
            (None, None) => Playback::Records(Records::Cpu(&[])),
        }
    }
}
