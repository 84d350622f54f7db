//! Bulk evaluation (docs/graph.md "Evaluation"): every instance's parameters and state machine
//! in struct-of-arrays form, one step over all of them in parallel chunks, writing the
//! CPU-timed records.

use crate::clip_events::{ClipEvent, ClipSink, Crossing, Tracks};
use rayon::prelude::*;
use throng_asset::ClipInfo;
use throng_contract::{ClipFrames, FrameRef, InstanceRecord, Layer, RecordChanges, Records};
use throng_runtime::{Clock, SECONDS_PER_TICK};

use crate::error::GraphError;
use crate::file::ParamKind;
use crate::graph::{Graph, Parameter, MAX_INT};
use crate::ids::{kind, Kind, Param, ParamId, StateId};
use crate::machine::{self, GraphEvent, LayerSet, Leaving, Machine, NONE};

/// Instances per parallel task. The split depends only on the instance count, and every
/// chunk's events are appended in chunk order, so any thread count gives the same output.
pub const CHUNK: usize = 4096;

/// A crowd playing one graph: per instance its parameters (one f32 each: ints exact to 2^24,
/// bools and triggers 0 or 1) and state machine, and the CPU-timed record the last step wrote.
pub struct GraphCrowd {
    graph: Graph,
    leaving: Leaving,
    frames: Vec<ClipFrames>,
    /// Per clip of the table, its events and the crossing rule.
    tracks: Tracks,
    /// Some clip the graph names has events.
    any_clip_events: bool,
    /// `len × stride`, instance-major.
    params: Vec<f32>,
    /// Parameters per instance, at least 1 (a graph without parameters keeps one unused slot
    /// so that every array splits into the same chunks).
    stride: usize,
    machines: Vec<Machine>,
    records: Vec<InstanceRecord>,
    chunk_events: Vec<Vec<GraphEvent>>,
    events: Vec<GraphEvent>,
    chunk_clip_events: Vec<Vec<ClipEvent>>,
    /// Per chunk, the crossings of one instance's step (scratch, kept to spare allocations).
    chunk_hits: Vec<Vec<Crossing>>,
    clip_events: Vec<ClipEvent>,
    /// Per instance: a parameter was set since the last step.
    dirty: Vec<bool>,
    chunk_changed: Vec<Vec<u32>>,
    changed: Vec<u32>,
    /// Stepped time in whole ticks (docs/graph.md "Time").
    clock: Clock,
}

impl GraphCrowd {
    /// `len` instances in the graph's entry state with default parameters, records written
    /// for time 0. `clips` is the clip table the graph was checked against; another table
    /// (a clip the graph plays missing, or of another duration) is an error.
    pub fn new(graph: Graph, clips: &[ClipInfo], len: usize) -> Result<GraphCrowd, GraphError> {
        check_clip_table(&graph, clips)?;
        let tracks = Tracks::new(&graph, clips);
        let mut c = GraphCrowd {
            frames: clips
                .iter()
                .map(|c| c.frames_table().with_lookup())
                .collect(),
            any_clip_events: tracks.any(),
            tracks,
            chunk_clip_events: Vec::new(),
            chunk_hits: Vec::new(),
            clip_events: Vec::new(),
            params: Vec::new(),
            machines: Vec::new(),
            records: Vec::new(),
            chunk_events: Vec::new(),
            events: Vec::new(),
            dirty: Vec::new(),
            chunk_changed: Vec::new(),
            changed: Vec::new(),
            clock: Clock::new(),
            stride: graph.parameters.len().max(1),
            leaving: Leaving::new(&graph),
            graph,
        };
        c.resize(len);
        c.write_records();
        Ok(c)
    }

    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// The crowd's graph and its clip table's events as GPU tables (docs/graph.md "On the
    /// GPU").
    pub fn gpu_layout(&self) -> crate::GraphLayout {
        crate::GraphLayout::with_marks(&self.graph, self.tracks.clips())
    }

    pub fn len(&self) -> usize {
        self.machines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.machines.is_empty()
    }

    /// Seconds stepped since creation, in whole clock ticks (2^20 a second: the sub-tick rest
    /// of the steps waits for the next).
    pub fn time(&self) -> f64 {
        self.clock.ticks() as f64 * SECONDS_PER_TICK
    }

    /// Whether `clips` is the clip table the crowd was made with, as far as playing it goes
    /// (the same clips, frame for frame: `ClipInfo::frames_table`).
    pub fn plays_clips(&self, clips: &[ClipInfo]) -> bool {
        clips.len() == self.frames.len()
            && clips
                .iter()
                .zip(&self.frames)
                .all(|(c, f)| c.frames_table() == *f)
    }

    /// Whole clock ticks stepped since the crowd was made (`throng_runtime::TICKS_PER_SECOND`
    /// a second): [`Self::time`] exactly.
    pub fn ticks(&self) -> u64 {
        self.clock.ticks()
    }

    /// The crowd's clock (whole ticks and the sub-tick rest carried to the next step): what a
    /// step on the GPU continues from, so both sides step the same ticks.
    pub fn clock(&self) -> Clock {
        self.clock
    }

    /// Grows (new instances in the entry state with default parameters, their records at the
    /// entry state's start) or shrinks the crowd, keeping instance indices.
    pub fn resize(&mut self, len: usize) {
        let old = self.machines.len();
        let np = self.stride;
        self.machines.resize(len, Machine::new(self.graph.entry));
        self.params.truncate(len * np);
        for _ in old..len {
            let start = self.params.len();
            self.params.resize(start + np, 0.0);
            for (k, p) in self.graph.parameters.iter().enumerate() {
                self.params[start + k] = p.default;
            }
        }
        self.records.resize(len, InstanceRecord::default());
        self.chunk_events.resize_with(len.div_ceil(CHUNK), Vec::new);
        self.chunk_clip_events
            .resize_with(len.div_ceil(CHUNK), Vec::new);
        self.chunk_hits.resize_with(len.div_ceil(CHUNK), Vec::new);
        self.chunk_changed
            .resize_with(len.div_ceil(CHUNK), Vec::new);
        // a new instance has a plan to send
        self.dirty.resize(len, true);
        for i in old..len {
            self.records[i] = self.record(i);
        }
    }

    /// Removes instance `i`, the last instance taking its index (as a runtime's despawn moves
    /// its dense arrays), so a front end keeping one graph instance per runtime instance keeps
    /// both in the same order. The last step's [`Self::events`], [`Self::clip_events`] and
    /// [`Self::changed`] keep the indices they had. An index past the crowd changes nothing.
    pub fn swap_remove(&mut self, i: usize) {
        let n = self.machines.len();
        if i >= n {
            return;
        }
        let np = self.stride;
        let last = n - 1;
        if i != last {
            self.params.copy_within(last * np..(last + 1) * np, i * np);
        }
        self.params.truncate(last * np);
        self.machines.swap_remove(i);
        self.records.swap_remove(i);
        self.dirty.swap_remove(i);
        let chunks = last.div_ceil(CHUNK);
        self.chunk_events.truncate(chunks);
        self.chunk_clip_events.truncate(chunks);
        self.chunk_hits.truncate(chunks);
        self.chunk_changed.truncate(chunks);
    }

    /// Parameter `name` of kind `K` ([`Graph::param`]); an unknown name or another kind is
    /// an error.
    pub fn param<K: Kind>(&self, name: &str) -> Result<ParamId<K>, GraphError> {
        self.graph.param(name)
    }

    /// Parameter `name`, its kind known at run time ([`Graph::param_any`]).
    pub fn param_any(&self, name: &str) -> Result<Param, GraphError> {
        self.graph.param_any(name)
    }

    /// The declaration of `p`, checked: an id of another graph whose index or kind does not
    /// match this graph's is an error.
    fn declared(&self, p: Param) -> Result<&Parameter, GraphError> {
        (self.graph.parameters.get(p.index()))
            .filter(|d| d.kind == p.kind())
            .ok_or_else(|| GraphError::UnknownParameter {
                name: format!("#{} ({})", p.index(), p.kind().name()),
                known: self.graph.parameter_names(),
            })
    }

    pub(crate) fn instance(&self, instance: usize) -> Result<usize, GraphError> {
        let len = self.len();
        (instance < len)
            .then_some(instance)
            .ok_or(GraphError::NoSuchInstance {
                index: instance,
                len,
            })
    }

    /// Stores `kept` (already checked for its kind) as parameter `p` of one instance.
    fn store(&mut self, instance: usize, p: Param, kept: f32) -> Result<(), GraphError> {
        self.declared(p)?;
        let i = self.instance(instance)?;
        self.dirty[i] = true;
        self.params[i * self.stride + p.index()] = kept;
        Ok(())
    }

    /// Whether `kept` is a value a parameter of `kind` can hold.
    fn valid(kind: ParamKind, kept: f32) -> bool {
        match kind {
            ParamKind::Float => kept.is_finite(),
            ParamKind::Int => kept.fract() == 0.0 && kept.abs() <= MAX_INT as f32,
            ParamKind::Bool | ParamKind::Trigger => kept == 0.0 || kept == 1.0,
        }
    }

    fn bad_value(&self, p: Param, value: String, rule: &'static str) -> GraphError {
        GraphError::BadValue {
            name: (self.graph.parameters.get(p.index()))
                .map_or_else(|| format!("#{}", p.index()), |d| d.name.clone()),
            value,
            rule,
        }
    }

    /// Sets a float parameter of one instance (finite values only).
    pub fn set_float(
        &mut self,
        instance: usize,
        p: ParamId<kind::Float>,
        v: f32,
    ) -> Result<(), GraphError> {
        self.declared(p.erase())?;
        if !v.is_finite() {
            return Err(self.bad_value(p.erase(), v.to_string(), "finite"));
        }
        self.store(instance, p.erase(), v)
    }

    /// Sets an int parameter (magnitude at most 2^24, kept exactly as an f32).
    pub fn set_int(
        &mut self,
        instance: usize,
        p: ParamId<kind::Int>,
        v: i32,
    ) -> Result<(), GraphError> {
        self.declared(p.erase())?;
        if v.unsigned_abs() > MAX_INT as u32 {
            return Err(self.bad_value(p.erase(), v.to_string(), "of magnitude at most 2^24"));
        }
        self.store(instance, p.erase(), v as f32)
    }

    pub fn set_bool(
        &mut self,
        instance: usize,
        p: ParamId<kind::Bool>,
        v: bool,
    ) -> Result<(), GraphError> {
        self.store(instance, p.erase(), f32::from(u8::from(v)))
    }

    /// Sets a trigger; it stays set until a transition with it among its conditions fires.
    pub fn fire(&mut self, instance: usize, p: ParamId<kind::Trigger>) -> Result<(), GraphError> {
        self.store(instance, p.erase(), 1.0)
    }

    /// Clears a trigger that has not fired.
    pub fn reset_trigger(
        &mut self,
        instance: usize,
        p: ParamId<kind::Trigger>,
    ) -> Result<(), GraphError> {
        self.store(instance, p.erase(), 0.0)
    }

    /// A parameter's value; `None` past the crowd or for an id of another graph.
    pub fn value<K: Kind>(&self, instance: usize, p: ParamId<K>) -> Option<K::Value> {
        self.value_any(instance, p.erase()).map(K::decode)
    }

    /// A parameter's value as kept (ints as whole f32s, bools and triggers 0 or 1).
    pub fn value_any(&self, instance: usize, p: Param) -> Option<f32> {
        self.declared(p).ok()?;
        let i = self.instance(instance).ok()?;
        Some(self.params[i * self.stride + p.index()])
    }

    /// Sets parameter `p` of every instance from a function of the instance index, in one
    /// pass (e.g. a game writing speeds from its own arrays), values as kept (ints as whole
    /// f32s, bools and triggers 0 or 1) and checked for the parameter's kind; the first
    /// value that is not valid is an error (the instances before it are set).
    pub fn set_all(
        &mut self,
        p: impl Into<Param>,
        mut value: impl FnMut(usize) -> f32,
    ) -> Result<(), GraphError> {
        let p = p.into();
        self.declared(p)?;
        let np = self.stride;
        for i in 0..self.len() {
            let v = value(i);
            if !Self::valid(p.kind(), v) {
                return Err(self.bad_value(p, v.to_string(), "a valid value of its kind"));
            }
            self.params[i * np + p.index()] = v;
            self.dirty[i] = true;
        }
        Ok(())
    }

    /// Advances every instance by `dt` seconds (negative or non-finite = 0), fires at most one
    /// transition per instance, fires the clip events of the clips shown
    /// ([`Self::clip_events`]) and writes every record. Allocates nothing once the event
    /// lists have grown to a frame's events.
    pub fn step(&mut self, dt: f64) {
        self.advance(dt, true);
    }

    /// [`Self::step`] without writing the records (they keep the last written) and without
    /// clip events: for a crowd played by a GPU-timed runtime through [`crate::drive_gpu`],
    /// which reads the state machines and [`Self::changed`], not the records, and fires the
    /// clip events of the clips it was told to play.
    pub fn step_states(&mut self, dt: f64) {
        self.advance(dt, false);
    }

    fn advance(&mut self, dt: f64, records: bool) {
        let t0 = self.time();
        // whole ticks (the rest is carried to the next step); negative or non-finite is 0
        let ticks = self.clock.advance(dt);
        let dt = ticks as f64 * SECONDS_PER_TICK;
        let (g, leaving, frames, np) = (&self.graph, &self.leaving, &self.frames, self.stride);
        let tracks = &self.tracks;
        let with_clip_events = records && self.any_clip_events;
        self.machines
            .par_chunks_mut(CHUNK)
            .zip(self.records.par_chunks_mut(CHUNK))
            .zip(self.params.par_chunks_mut(CHUNK * np))
            .zip(self.dirty.par_chunks_mut(CHUNK))
            .zip(self.chunk_events.par_iter_mut())
            .zip(self.chunk_changed.par_iter_mut())
            .zip(self.chunk_clip_events.par_iter_mut())
            .zip(self.chunk_hits.par_iter_mut())
            .enumerate()
            .for_each(|(c, (((((((ms, rs), ps), ds), ev), ch), cev), hits))| {
                ev.clear();
                ch.clear();
                cev.clear();
                let mut sink = ClipSink {
                    tracks,
                    found: hits,
                    out: cev,
                    t0,
                    dt,
                };
                for (k, (((m, r), p), d)) in ms
                    .iter_mut()
                    .zip(rs.iter_mut())
                    .zip(ps.chunks_exact_mut(np))
                    .zip(ds.iter_mut())
                    .enumerate()
                {
                    let i = (c * CHUNK + k) as u32;
                    let clips = with_clip_events.then_some(&mut sink);
                    if machine::step(g, leaving, m, p, ticks, *d, i, ev, clips) || *d {
                        ch.push(i);
                        *d = false;
                    }
                    if records {
                        stream_record(r, to_record(frames, &machine::compose(g, m, p)));
                    }
                }
                if records {
                    stream_fence();
                }
            });
        self.events.clear();
        for ev in &self.chunk_events {
            self.events.extend_from_slice(ev);
        }
        self.clip_events.clear();
        for ev in &self.chunk_clip_events {
            self.clip_events.extend_from_slice(ev);
        }
        self.changed.clear();
        for ch in &self.chunk_changed {
            self.changed.extend_from_slice(ch);
        }
    }

    fn write_records(&mut self) {
        for i in 0..self.len() {
            self.records[i] = self.record(i);
        }
    }

    fn record(&self, i: usize) -> InstanceRecord {
        to_record(&self.frames, &self.layers_at(i))
    }

    /// The layers of instance `i < len`.
    fn layers_at(&self, i: usize) -> LayerSet {
        let np = self.stride;
        machine::compose(
            &self.graph,
            &self.machines[i],
            &self.params[i * np..(i + 1) * np],
        )
    }

    /// The layers instance `i` shows now (clip, unwrapped clip time, weight).
    pub fn layers(&self, i: usize) -> Result<LayerSet, GraphError> {
        Ok(self.layers_at(self.instance(i)?))
    }

    /// Instance `i`'s current state (the target of a running transition).
    pub fn state(&self, i: usize) -> Result<StateId, GraphError> {
        Ok(StateId(self.machines[self.instance(i)?].cur))
    }

    /// Instance `i`'s running transition (index in [`Graph::transitions`]) and its progress
    /// in [0, 1]; `None` when none runs.
    pub fn transition(&self, i: usize) -> Result<Option<(usize, f32)>, GraphError> {
        let m = &self.machines[self.instance(i)?];
        Ok((m.running != NONE).then(|| (m.running as usize, m.alpha())))
    }

    /// The current state's normalised time (cycles since it was entered, plus the offset;
    /// past 2^30 cycles folded back by 2^29, docs/graph.md "Time").
    pub fn normalized_time(&self, i: usize) -> Result<f64, GraphError> {
        Ok(self.machines[self.instance(i)?].phase(0).to_f64())
    }

    /// Instances whose layers changed in the last step other than by the passing of time: a
    /// transition fired or ended, or a parameter was set (ascending). What a GPU-timed
    /// runtime must be told ([`crate::drive_gpu`]); the CPU-timed records are all rewritten
    /// anyway.
    pub fn changed(&self) -> &[u32] {
        &self.changed
    }

    pub(crate) fn machine(&self, i: usize) -> &Machine {
        &self.machines[i]
    }

    /// Instance `i`'s state machine in the GPU pass's layout
    /// ([`crate::gpu_layout::MACHINE_WORDS`] words, `GraphMachine`), with its flag of a
    /// parameter set since the last step.
    pub fn machine_words(
        &self,
        i: usize,
    ) -> Result<[u32; crate::gpu_layout::MACHINE_WORDS], GraphError> {
        let i = self.instance(i)?;
        Ok(self.machines[i].to_words(self.dirty[i]))
    }

    /// Instance `i`'s parameter values in declaration order (one unused slot for a graph
    /// without parameters): what the GPU pass's parameter buffer holds for it.
    pub fn parameter_values(&self, i: usize) -> Result<&[f32], GraphError> {
        Ok(self.params_of(self.instance(i)?))
    }

    pub(crate) fn params_of(&self, i: usize) -> &[f32] {
        &self.params[i * self.stride..(i + 1) * self.stride]
    }

    /// State events of the last step, by instance (in chunk order, instances ascending).
    pub fn events(&self) -> &[GraphEvent] {
        &self.events
    }

    /// Clip events of the last [`Self::step`] (docs/graph.md §3): every clip of nonzero weight
    /// of every state shown fires each event once per crossing, by the runtime's rule on the
    /// integer phase (`throng_contract::graph_time::event_series`, which the GPU step repeats).
    /// By instance (ascending), each instance's by step fraction (ties: outgoing states first,
    /// the clip's index in its state, the distance, the event). Empty after
    /// [`Self::step_states`].
    pub fn clip_events(&self) -> &[ClipEvent] {
        &self.clip_events
    }

    /// The CPU-timed records the last step wrote, one per instance.
    pub fn records(&self) -> &[InstanceRecord] {
        &self.records
    }

    /// The records as the renderer reads a runtime's (`Runtime::record_changes`): CPU-timed,
    /// every record.
    pub fn record_changes(&self) -> RecordChanges<'_> {
        RecordChanges {
            records: Records::Cpu(&self.records),
            writes: None,
        }
    }
}

/// A graph crowd attached to a runtime ([`throng_runtime::Runtime::attach`]) follows its
/// spawns (a new instance in the entry state with default parameters) and despawns (the
/// runtime's swap-remove, [`GraphCrowd::swap_remove`]) by itself; its instance indices are
/// the runtime's dense indices ([`throng_runtime::Runtime::data_of`] gives a handle's).
impl throng_runtime::InstanceData for GraphCrowd {
    fn push_instance(&mut self) {
        self.resize(self.len() + 1);
    }

    fn swap_remove_instance(&mut self, index: usize) {
        self.swap_remove(index);
    }

    fn instance_count(&self) -> usize {
        self.len()
    }
}

/// Whether `clips` is (as far as the graph can tell) the table it was checked against: every
/// clip a state plays is in it with the duration the graph was built with.
fn check_clip_table(graph: &Graph, clips: &[ClipInfo]) -> Result<(), GraphError> {
    for s in &graph.states {
        for c in s.motion.clips() {
            let found = clips.get(c.clip as usize);
            if found.is_none_or(|f| f.duration != c.duration) {
                return Err(GraphError::OtherClipTable {
                    state: s.name.clone(),
                    clip: c.clip as usize,
                    clips: clips.len(),
                });
            }
        }
    }
    Ok(())
}

/// The record of a layer set: each layer's clip time mapped to a row by the contract's time
/// rules; unused layers zero.
fn to_record(frames: &[ClipFrames], set: &LayerSet) -> InstanceRecord {
    let mut r = InstanceRecord::default();
    for (slot, l) in r.layers.iter_mut().zip(set.as_slice()) {
        // `ClipFrames::sample`'s row and fraction, without the clip time and phase it also
        // computes (a second search of a listed clip's frame times) that a record does not hold
        let f = &frames[l.clip as usize];
        let p = f.span.reduce(l.loop_mode, f.position(l.time));
        let frame: FrameRef = f.frame(f.span.shown(p).0);
        *slot = Layer::new(l.weight, frame, l.clip);
    }
    r
}

/// Writes a record with non-temporal stores where the CPU has them (x86-64): every record is
/// rewritten each step and not read back by the step, so streaming it past the caches spares
/// reading each line first (the runtime's CPU-timed update does the same). Elsewhere a plain
/// store.
#[inline(always)]
fn stream_record(dst: &mut InstanceRecord, r: InstanceRecord) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_loadu_ps, _mm_stream_ps};
        let src = &r as *const InstanceRecord as *const f32;
        let out = dst as *mut InstanceRecord as *mut f32;
        // SAFETY: SSE is part of the x86-64 baseline; InstanceRecord is 64 B, 16-byte aligned
        // (repr(C, align(16))), so the four 16 B stores cover it exactly at aligned addresses,
        // and both pointers come from references to whole records.
        unsafe {
            for k in 0..4 {
                _mm_stream_ps(out.add(4 * k), _mm_loadu_ps(src.add(4 * k)));
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        *dst = r;
    }
}

/// Orders the streamed stores before anything later (the end of a chunk's task).
#[inline(always)]
fn stream_fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE baseline; a fence has no operands.
    unsafe {
        core::arch::x86_64::_mm_sfence();
    }
}
