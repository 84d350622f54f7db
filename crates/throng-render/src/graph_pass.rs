//! Animation graphs stepped on the GPU (docs/graph.md "On the GPU"): the graph's tables and
//! every instance's state machine and parameters in buffers, a frame's parameter changes
//! uploaded as a list (∝ changes), and one compute pass that steps every state machine
//! (throng-contract `shaders/graph_step.wgsl`, the twin of throng_graph's CPU step), writes every instance's
//! CPU-timed record and lists the state and clip events it fires (clip events in instance
//! order, placed by a prefix sum on the GPU, so reading them back costs the CPU a copy and a
//! sort of only the instances whose events were found out of order, not a sort of the
//! list). The tables come from `throng_graph::GraphLayout` (this crate does not link
//! throng-graph: the caller passes its words; `throng_graph_gpu::graph_pass` builds the pass
//! from a crowd, and its `GraphRuntime` hides whether the CPU or this pass steps).

use wgpu::util::DeviceExt;

use crate::device::Gpu;
use crate::error::RenderError;
use crate::pipelines::compute_pipeline;
use crate::readback::{map_read, read_buffer};
use crate::shaders::Program;

use crate::graph_events::LateEvents;
pub use crate::graph_events::{
    ClipEventWords, EventCapacity, StateEventWords, StepEvents, LATE_EVENT_COPIES,
};
use throng_contract::graph_events::{Kept, EVENTS_HEAD_BYTES};
use throng_contract::graph_step::{ChangeCheck, MAX_STEP_TICKS};
pub use throng_contract::graph_step::{GraphStepParams, GraphTables, ParamChange, MACHINE_WORDS};

/// A crowd's graph state on the GPU and the pass that steps it.
pub struct GraphPass {
    params_uniform: wgpu::Buffer,
    machines: wgpu::Buffer,
    values: wgpu::Buffer,
    changes: wgpu::Buffer,
    changes_capacity: usize,
    /// The state and clip event counts, the clip events kept, an unused word,
    /// `state_capacity` state events,
    /// `clip_capacity` clip events, then a word per workgroup of 64 instances (where its clip
    /// events start in the list) and a word per instance (how many it has).
    events: wgpu::Buffer,
    graph: wgpu::Buffer,
    clip_table: wgpu::Buffer,
    frame_times: wgpu::Buffer,
    records: wgpu::Buffer,
    layout: wgpu::BindGroupLayout,
    bind: wgpu::BindGroup,
    apply: wgpu::ComputePipeline,
    /// The clip events' three dispatches (count, place, write), `None` for a graph whose
    /// clips have no events.
    clip_events: Option<[wgpu::ComputePipeline; 3]>,
    step: wgpu::ComputePipeline,
    head: GraphStepParams,
    /// Timestamps around a step, where the device has them.
    timer: Option<crate::frame::FrameTimer>,
    /// A frame's changes are checked before they are sent.
    changes_check: ChangeCheck,
    /// Each step's events copied for [`Self::take_events`], once asked for
    /// ([`Self::queue_event_reads`]).
    late: Option<LateEvents>,
    /// Steps queued so far: the number the next step's events are taken with
    /// ([`Self::take_arrived_events`]).
    steps: u64,
}

fn storage(device: &wgpu::Device, label: &str, bytes: &[u8], copy: bool) -> wgpu::Buffer {
    let mut usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
    if copy {
        usage |= wgpu::BufferUsages::COPY_SRC;
    }
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents: bytes,
        usage,
    })
}

impl GraphPass {
    /// Uploads the tables, the asset's clip table (the one the graph was checked against),
    /// `machines` (`MACHINE_WORDS` words an instance, from `GraphCrowd::machine_words`) and
    /// `values` (`stride` an instance), and writes every instance's record as its machine
    /// stands; events past `capacity` a step are lost (and reported lost).
    pub fn new(
        gpu: &Gpu,
        tables: GraphTables<'_>,
        clip_table: &throng_contract::GpuClipTable,
        machines: &[u32],
        values: &[f32],
        capacity: EventCapacity,
    ) -> Result<GraphPass, RenderError> {
        let device = &gpu.device;
        throng_contract::graph_step::check(&tables, clip_table.clips.len(), machines, values)
            .map_err(RenderError::BadGraph)?;
        let len = machines.len() / MACHINE_WORDS;
        let limits = device.limits();
        if limits.max_storage_buffers_per_shader_stage < 8
            || limits.max_compute_workgroups_per_dimension == 0
        {
            return Err(RenderError::NeedsCapability {
                what: "the GPU graph step",
                missing: "compute shaders with eight storage buffers",
                reason: ", and this device lacks them".into(),
                instead: "step the graph on the CPU (GraphCrowd::step)",
            });
        }
        // the largest buffer an instance count needs: machines (96 B each), records (64 B)
        let per = (MACHINE_WORDS * 4).max(64) as u64;
        let (state_capacity, clip_capacity) = (capacity.state.max(1), capacity.clip.max(1));
        let event_bytes = throng_contract::graph_events::buffer_bytes(
            len,
            EventCapacity {
                state: state_capacity,
                clip: clip_capacity,
            },
        );
        let limit = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        // the shader indexes the events in u32 words
        let event_limit = limit.min(4 * u32::MAX as u64);
        if event_bytes > event_limit {
            return Err(RenderError::BadGraph(format!(
                "event lists of {state_capacity} state and {clip_capacity} clip events for {len} instances take {event_bytes} bytes, over this device's {event_limit} per buffer; ask for fewer (EventCapacity)"
            )));
        }
        let biggest = len as u64 * per;
        let groups = (len as u64).div_ceil(64);
        if biggest > limit || groups > limits.max_compute_workgroups_per_dimension as u64 {
            let by_groups = limits.max_compute_workgroups_per_dimension as u64 * 64;
            return Err(RenderError::TooManyInstances {
                asset: "graph step".into(),
                instances: len,
                bytes: biggest,
                limit,
                max_instances: (limit / per).min(by_groups),
            });
        }
        let (words, head) =
            throng_contract::graph_step::pack(&tables, len, state_capacity, clip_capacity);
        let graph = storage(
            device,
            "throng graph tables",
            bytemuck::cast_slice(&words),
            false,
        );
        let machines = storage(
            device,
            "throng graph machines",
            bytemuck::cast_slice(machines),
            true,
        );
        let values = storage(
            device,
            "throng graph parameters",
            bytemuck::cast_slice(values),
            true,
        );
        let changes_capacity = 256;
        let changes = storage(
            device,
            "throng graph changes",
            &vec![0u8; changes_capacity * 16],
            false,
        );
        let events = storage(
            device,
            "throng graph events",
            &vec![0u8; event_bytes as usize],
            true,
        );
        if clip_table.clips.is_empty() {
            return Err(RenderError::BadGraph("the clip table is empty".into()));
        }
        let clips = storage(
            device,
            "throng graph clip table",
            bytemuck::cast_slice(&clip_table.clips),
            false,
        );
        let mut times = clip_table.frame_times.words.clone();
        times.push(0);
        let frame_times = storage(
            device,
            "throng graph frame times",
            bytemuck::cast_slice(&times),
            false,
        );
        let records = storage(
            device,
            "throng graph records",
            &vec![0u8; len * std::mem::size_of::<throng_contract::InstanceRecord>()],
            true,
        );
        let params_uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("throng graph step"),
            contents: bytemuck::bytes_of(&head),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        });
        let layout = crate::layouts::graph_step(device);
        let apply = compute_pipeline(device, Program::GraphStep, &layout, "cs_graph_params")?;
        let step = compute_pipeline(device, Program::GraphStep, &layout, "cs_graph_step")?;
        let any_events = throng_contract::graph_step::any_clip_events(&tables);
        let clip_events = if any_events {
            let entry = |name| compute_pipeline(device, Program::GraphStep, &layout, name);
            Some([
                entry("cs_graph_clip_event_counts")?,
                entry("cs_graph_clip_event_offsets")?,
                entry("cs_graph_clip_events")?,
            ])
        } else {
            None
        };
        let compose = compute_pipeline(device, Program::GraphStep, &layout, "cs_graph_records")?;
        let bind = Self::bind_group(
            device,
            &layout,
            [
                &params_uniform,
                &graph,
                &machines,
                &values,
                &changes,
                &events,
                &clips,
                &records,
                &frame_times,
            ],
        );
        // the records of the machines as uploaded, so that a draw before the first step shows
        // them
        let mut enc = device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_bind_group(0, &bind, &[]);
            pass.set_pipeline(&compose);
            pass.dispatch_workgroups(head.len.div_ceil(64), 1, 1);
        }
        gpu.queue.submit([enc.finish()]);
        Ok(GraphPass {
            params_uniform,
            machines,
            values,
            changes,
            changes_capacity,
            events,
            graph,
            clip_table: clips,
            frame_times,
            records,
            layout,
            bind,
            apply,
            clip_events,
            step,
            head,
            timer: crate::frame::FrameTimer::new(device),
            changes_check: ChangeCheck::default(),
            late: None,
            steps: 0,
        })
    }

    fn bind_group(
        device: &wgpu::Device,
        layout: &wgpu::BindGroupLayout,
        buffers: [&wgpu::Buffer; 9],
    ) -> wgpu::BindGroup {
        // bindings 0 to 7, then the frame-time lists at throng::playback's binding
        let entries: Vec<wgpu::BindGroupEntry> = (buffers.iter().enumerate())
            .map(|(k, b)| {
                let binding = if k == 8 {
                    crate::bindings::FRAME_TIMES
                } else {
                    k as u32
                };
                crate::bindings::buffer_entry(binding, b)
            })
            .collect();
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("throng graph step"),
            layout,
            entries: &entries,
        })
    }

    /// Instances.
    pub fn len(&self) -> usize {
        self.head.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.head.len == 0
    }

    /// Applies `changes` (one per parameter at most, finite, inside the crowd: else an error,
    /// and nothing is stepped) and steps every instance by `ticks` clock ticks (2^20 a second;
    /// at most 2^40, the clock's longest step). The state and clip events it fires are read
    /// with [`Self::read_events`] (waiting), or taken in the next frame with
    /// [`Self::take_events`] once [`Self::queue_event_reads`] asked for a copy.
    pub fn step(
        &mut self,
        gpu: &Gpu,
        ticks: u64,
        changes: &[ParamChange],
    ) -> Result<(), RenderError> {
        let device = &gpu.device;
        (self.changes_check)
            .check(changes, self.head.len, self.head.stride)
            .map_err(RenderError::BadGraph)?;
        let limits = device.limits();
        let most = (limits.max_storage_buffer_binding_size / 16)
            .min(limits.max_compute_workgroups_per_dimension as u64 * 64);
        if changes.len() as u64 > most {
            return Err(RenderError::BadGraph(format!(
                "{} parameter changes in one step, over the {most} this device takes; send them over several steps",
                changes.len()
            )));
        }
        if changes.len() > self.changes_capacity {
            self.changes_capacity = changes.len().next_power_of_two();
            self.changes = storage(
                device,
                "throng graph changes",
                &vec![0u8; self.changes_capacity * 16],
                false,
            );
            self.bind = Self::bind_group(
                device,
                &self.layout,
                [
                    &self.params_uniform,
                    &self.graph,
                    &self.machines,
                    &self.values,
                    &self.changes,
                    &self.events,
                    &self.clip_table,
                    &self.records,
                    &self.frame_times,
                ],
            );
        }
        let ticks = ticks.min(MAX_STEP_TICKS);
        self.head = self.head.for_step(ticks, changes.len());
        gpu.queue
            .write_buffer(&self.params_uniform, 0, bytemuck::bytes_of(&self.head));
        if !changes.is_empty() {
            gpu.queue
                .write_buffer(&self.changes, 0, bytemuck::cast_slice(changes));
        }
        // the counts: state and clip events fired, clip events kept
        gpu.queue.write_buffer(&self.events, 0, &[0u8; 12]);
        let mut enc = device.create_command_encoder(&Default::default());
        if let Some(t) = &self.timer {
            t.mark(&mut enc, 0);
        }
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_bind_group(0, &self.bind, &[]);
            if !changes.is_empty() {
                pass.set_pipeline(&self.apply);
                pass.dispatch_workgroups((changes.len() as u32).div_ceil(64), 1, 1);
            }
            // the clip events, from the machines before the step
            if let (Some([count, place, write]), true) = (&self.clip_events, ticks > 0) {
                let groups = self.head.len.div_ceil(64);
                pass.set_pipeline(count);
                pass.dispatch_workgroups(groups, 1, 1);
                pass.set_pipeline(place);
                pass.dispatch_workgroups(1, 1, 1);
                pass.set_pipeline(write);
                pass.dispatch_workgroups(groups, 1, 1);
            }
            pass.set_pipeline(&self.step);
            pass.dispatch_workgroups(self.head.len.div_ceil(64), 1, 1);
        }
        if let Some(t) = &self.timer {
            t.mark(&mut enc, 1);
            t.resolve(&mut enc, false);
        }
        let capacity = self.capacity();
        let number = self.steps;
        if let Some(late) = &mut self.late {
            late.copy(device, &mut enc, &self.events, capacity, number);
        }
        let submission = gpu.queue.submit([enc.finish()]);
        self.steps += 1;
        if let Some(late) = &mut self.late {
            late.map(submission);
        }
        Ok(())
    }

    /// The event lists' capacities.
    fn capacity(&self) -> EventCapacity {
        EventCapacity {
            state: self.head.state_capacity,
            clip: self.head.clip_capacity,
        }
    }

    /// From the next step on (`on`), each step also copies its events for
    /// [`Self::take_events`], to be read a frame later without waiting (docs/graph.md "On the
    /// GPU"); off, a copy not yet taken is dropped.
    pub fn queue_event_reads(&mut self, gpu: &Gpu, on: bool) {
        match (on, &mut self.late) {
            (true, None) => self.late = Some(LateEvents::new(&gpu.device, self.capacity())),
            (false, Some(late)) => {
                late.drop_pending();
                self.late = None;
            }
            _ => {}
        }
    }

    /// The events of the last step, from the copy it queued ([`Self::queue_event_reads`]):
    /// taken in the next frame, before the next step, the copy has normally arrived and
    /// nothing waits (where it has not, this waits for that step). Equal to what
    /// [`Self::read_events`] returns for that step. `None` when there is no copy to take:
    /// none was queued, it was already taken, or the next step dropped it (a step drops the
    /// copy of the one before that was not taken, and nothing reports those events).
    ///
    /// Never waiting ([`Self::never_wait_for_events`]), this returns the newest arrived copy
    /// only: take them all with [`Self::take_arrived_events`].
    pub fn take_events(&mut self, gpu: &Gpu) -> Result<Option<StepEvents>, RenderError> {
        Ok(self.take_arrived_events(gpu)?.pop().map(|(_, e)| e))
    }

    /// Where nothing may wait (`never_wait`: a browser's main thread, whose mappings resolve
    /// only after the page's task returns), the copies are taken only once they have arrived,
    /// with [`Self::take_arrived_events`]: up to [`LATE_EVENT_COPIES`] steps' copies wait,
    /// past that the oldest is dropped, and a step that kept more events than its copy holds
    /// reports those past it lost (`StepEvents::state_lost`, `clip_lost`) while the room grows;
    /// a copy's room starts at the step's capacity (up to 65,536 events of each kind). Off (the
    /// default), a copy not arrived is waited for; turning it off keeps only the newest copy.
    /// Needs [`Self::queue_event_reads`] first.
    pub fn never_wait_for_events(&mut self, never_wait: bool) {
        let capacity = self.capacity();
        if let Some(late) = &mut self.late {
            late.set_wait(!never_wait, capacity);
        }
    }

    /// Room for `state` and `clip` events in the next steps' late copies (what a list keeps
    /// past it is read from the step's buffer when waiting, lost when never waiting; the room
    /// grows after either). For tests of those paths; the pass sizes the room itself.
    #[doc(hidden)]
    pub fn set_late_event_room(&mut self, state: u64, clip: u64) {
        if let Some(late) = &mut self.late {
            late.set_room((state, clip));
        }
    }

    /// The events of every step whose copy is taken now, oldest first, each with its step's
    /// number (0 for the first step this pass ran, [`Self::steps`] counts them): waiting, the
    /// last step's (as [`Self::take_events`]); never waiting
    /// ([`Self::never_wait_for_events`]), those arrived — a step missing from the numbers was
    /// dropped, its events lost. Empty without [`Self::queue_event_reads`].
    pub fn take_arrived_events(
        &mut self,
        gpu: &Gpu,
    ) -> Result<Vec<(u64, StepEvents)>, RenderError> {
        let capacity = self.capacity();
        let Some(late) = &mut self.late else {
            return Ok(Vec::new());
        };
        let events = &self.events;
        late.take(gpu, capacity, |ranges| read_ranges(gpu, events, ranges))
    }

    /// Steps this pass has queued.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Waits for the last step and returns its GPU time in nanoseconds (the parameter changes
    /// and the step, from timestamp queries); `None` where the device has none.
    pub fn last_gpu_ns(&self, gpu: &Gpu) -> Option<u64> {
        self.timer.as_ref()?.read(gpu, false).0
    }

    /// Waits until the GPU has done every step submitted.
    pub fn wait(&self, gpu: &Gpu) -> Result<(), RenderError> {
        gpu.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map(|_| ())
            .map_err(|e| RenderError::Readback(e.to_string()))
    }

    fn read(&self, gpu: &Gpu, buffer: &wgpu::Buffer, size: u64) -> Result<Vec<u8>, RenderError> {
        read_ranges(gpu, buffer, &[(0, size)])
    }

    /// Every instance's state machine (`MACHINE_WORDS` words each).
    pub fn read_machines(&self, gpu: &Gpu) -> Result<Vec<u32>, RenderError> {
        let size = self.len() as u64 * MACHINE_WORDS as u64 * 4;
        Ok(bytemuck::pod_collect_to_vec(&self.read(
            gpu,
            &self.machines,
            size,
        )?))
    }

    /// Instance `i`'s state machine as the last step left it (`MACHINE_WORDS` words; waits for
    /// the GPU, 96 B read): what a tool shows of one instance, e.g. the viewer's Graph panel.
    pub fn read_machine(&self, gpu: &Gpu, i: usize) -> Result<[u32; MACHINE_WORDS], RenderError> {
        if i >= self.len() {
            return Err(RenderError::Readback(format!(
                "instance {i} is past the graph crowd's {} instances",
                self.len()
            )));
        }
        let size = MACHINE_WORDS as u64 * 4;
        let bytes = read_ranges(gpu, &self.machines, &[(i as u64 * size, size)])?;
        let mut words = [0u32; MACHINE_WORDS];
        bytemuck::cast_slice_mut(&mut words).copy_from_slice(&bytes);
        Ok(words)
    }

    /// Every instance's CPU-timed record as the last step wrote it.
    pub fn read_records(
        &self,
        gpu: &Gpu,
    ) -> Result<Vec<throng_contract::InstanceRecord>, RenderError> {
        let size =
            self.len() as u64 * std::mem::size_of::<throng_contract::InstanceRecord>() as u64;
        Ok(bytemuck::pod_collect_to_vec(&self.read(
            gpu,
            &self.records,
            size,
        )?))
    }

    /// The records buffer (`array<InstanceRecord>`, one per instance): what a CPU-timed draw
    /// reads, written on the GPU.
    pub fn records_buffer(&self) -> &wgpu::Buffer {
        &self.records
    }

    /// Hands the records the last step wrote to a CPU-timed crowd's `upload` for drawing
    /// (docs/graph.md "On the GPU"): a copy on the GPU, so only the transforms, when
    /// `transforms_changed`, cross from the CPU. Returns the bytes uploaded from the CPU.
    pub fn update_upload(
        &self,
        gpu: &Gpu,
        upload: &mut crate::CrowdUpload,
        transforms: &[throng_contract::InstanceTransform],
        transforms_changed: bool,
    ) -> Result<u64, RenderError> {
        let len = self.len();
        let (records, bytes) =
            upload.begin_gpu_written(gpu, len, transforms, transforms_changed)?;
        let size = (len * std::mem::size_of::<throng_contract::InstanceRecord>()) as u64;
        if size > 0 {
            let mut enc = gpu.device.create_command_encoder(&Default::default());
            enc.copy_buffer_to_buffer(&self.records, 0, records, 0, size);
            gpu.queue.submit([enc.finish()]);
        }
        Ok(bytes)
    }

    /// Every instance's parameter values (`stride` each).
    pub fn read_values(&self, gpu: &Gpu) -> Result<Vec<f32>, RenderError> {
        let size = self.len() as u64 * self.head.stride as u64 * 4;
        Ok(bytemuck::pod_collect_to_vec(&self.read(
            gpu,
            &self.values,
            size,
        )?))
    }

    /// The state and clip events of the last step (waits for it, and reads twice: the counts,
    /// then the lists). [`Self::take_events`] reads a step's a frame later without waiting.
    pub fn read_events(&self, gpu: &Gpu) -> Result<StepEvents, RenderError> {
        let head: Vec<u32> =
            bytemuck::pod_collect_to_vec(&self.read(gpu, &self.events, EVENTS_HEAD_BYTES)?);
        let capacity = self.capacity();
        // one read of the two lists' kept parts
        Kept::new(&head, capacity)
            .read_lists(capacity, |ranges| read_ranges(gpu, &self.events, ranges))
    }
}

/// The ranges `(offset, size)` of `buffer` (multiples of 4), one after the other (waits).
fn read_ranges(
    gpu: &Gpu,
    buffer: &wgpu::Buffer,
    ranges: &[(u64, u64)],
) -> Result<Vec<u8>, RenderError> {
    let total: u64 = ranges.iter().map(|r| r.1).sum();
    let read = read_buffer(&gpu.device, "throng graph readback", total);
    let mut enc = gpu.device.create_command_encoder(&Default::default());
    let mut at = 0;
    for &(offset, size) in ranges.iter().filter(|r| r.1 > 0) {
        enc.copy_buffer_to_buffer(buffer, offset, &read, at, size);
        at += size;
    }
    gpu.queue.submit([enc.finish()]);
    map_read(gpu, &read)
}
