//! Graph crowds stepped on the GPU, the render world's half (`crate::graph_gpu` is the main
//! world's; docs/graph.md "On the GPU"). The step is throng's own program
//! (`throng_contract::wgsl::GRAPH_STEP_PASS`, composed by Bevy's naga_oil with the frame-time
//! lists at this plugin's binding), handed the words of the contract's `graph_step` and
//! `graph_events` modules — the same words, checks and decoding as throng-render's
//! `graph_pass`, which runs on throng's own wgpu.
//!
//! - [`extract_graphs`] places a graph crowd on the GPU once (where [`crate::GraphOn`] and the
//!   adapter say so, the step's pipelines have compiled and the crowd has an instance): its
//!   graph's tables, every instance's state machine (96 B) and parameters uploaded as the
//!   main world's graph crowd holds them. From then on it takes the main world's steps.
//! - [`step_graphs`], before the palette passes: per step, the spawns and despawns repeated on
//!   the state machines and parameters (buffer copies, in order), the parameter changes
//!   uploaded (16 B each), the parameter, clip-event and step dispatches, which write every
//!   instance's record into the crowd's record buffer (the one the culling and palette passes
//!   and the draws read), and a copy of the step's events mapped without waiting.
//! - [`take_graph_events`], after the frame is submitted (and [`step_graphs`] again at the
//!   start of the next): arrived copies are decoded and handed to the main world, which sends
//!   them in its next frame — a frame or two after the step, as soon as the GPU has done it.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy::render::render_asset::RenderAssets;
use bevy::render::render_resource::{
    BindGroup, BindGroupEntries, BindGroupLayoutDescriptor, Buffer, BufferBindingType,
    BufferDescriptor, BufferId, BufferUsages, CachedComputePipelineId, CachedPipelineState,
    CommandEncoder, CommandEncoderDescriptor, ComputePassDescriptor, ComputePipeline,
    ComputePipelineDescriptor, MapMode, PipelineCache, PollType, ShaderStages,
};
use bevy::render::renderer::{RenderAdapterInfo, RenderDevice, RenderQueue};
use bevy::render::Extract;
use bevy::shader::Shader;
use throng_contract::graph_events::{
    buffer_bytes, clips_at, EventCapacity, Kept, StepEvents, CLIP_EVENT_BYTES, EVENTS_HEAD_BYTES,
    STATE_EVENT_BYTES,
};
use throng_contract::graph_step::{ChangeCheck, GraphStepParams, MACHINE_WORDS};
use throng_graph::GraphCrowd;

use super::bindings::{self, binding_defs};
use super::crowd_gpu::CrowdGpus;
use super::gpu_asset::GpuThrongAsset;
use super::layouts::buffer_entry;
use crate::crowd::ThrongCrowd;
use crate::graph::GraphOn;
use crate::graph_gpu::{GpuStep, GraphLink, InstanceOp, Placement};

/// The step program's handle (render world; set by the plugin).
#[derive(Resource, Clone)]
pub struct GraphStepShader(pub Handle<Shader>);

/// The step's entry points, in the order of [`GraphPipelines`]: parameter changes, the clip
/// events' count, place and write, and the step.
const ENTRIES: [&str; 5] = [
    "cs_graph_params",
    "cs_graph_clip_event_counts",
    "cs_graph_clip_event_offsets",
    "cs_graph_clip_events",
    "cs_graph_step",
];

/// The step's pipelines, queued once the first crowd asks for the GPU.
#[derive(Resource, Default)]
pub struct GraphPipelines(Option<[CachedComputePipelineId; 5]>);

/// Steps kept waiting for a crowd whose record buffer or asset is not on the GPU yet (four
/// seconds at 60 frames a second); older ones are dropped.
const MOST_PENDING: usize = 240;

/// Bytes of one state machine.
const MACHINE_BYTES: u64 = (MACHINE_WORDS * 4) as u64;

/// The step's bind group layout (group 0): throng's bindings 0–7 and the asset's frame-time
/// lists at the plugin's binding.
pub fn graph_step_layout() -> BindGroupLayoutDescriptor {
    let c = ShaderStages::COMPUTE;
    let read = BufferBindingType::Storage { read_only: true };
    let write = BufferBindingType::Storage { read_only: false };
    let entries = [
        buffer_entry(0, c, BufferBindingType::Uniform),
        buffer_entry(1, c, read),
        buffer_entry(2, c, write),
        buffer_entry(3, c, write),
        buffer_entry(4, c, read),
        buffer_entry(5, c, write),
        buffer_entry(6, c, read),
        buffer_entry(7, c, write),
        buffer_entry(bindings::FRAME_TIMES, c, read),
    ];
    BindGroupLayoutDescriptor::new("throng graph step", &entries)
}

/// The step's compute pipeline for entry point `entry`.
pub fn graph_step_pipeline(shader: Handle<Shader>, entry: &str) -> ComputePipelineDescriptor {
    ComputePipelineDescriptor {
        label: Some(format!("throng graph step {entry}").into()),
        layout: vec![graph_step_layout()],
        shader,
        shader_defs: binding_defs(0),
        entry_point: Some(entry.to_string().into()),
        zero_initialize_workgroup_memory: false,
        ..default()
    }
}

/// A step's events copied for reading without waiting: the copy, its room (events of each
/// kind), the lists' capacities at the step, the step's number and its mapping (0 mapping,
/// 1 mapped, 2 failed; `None` before the copy's submission).
struct Copy {
    staging: Buffer,
    room: (u64, u64),
    capacity: EventCapacity,
    number: u64,
    mapping: Option<Arc<AtomicU8>>,
}

/// Copies that may wait at once; past this the oldest is dropped, its events lost.
const WAITING_COPIES: usize = throng_contract::graph_events::LATE_EVENT_COPIES;

/// A copy's room starts at the lists' capacity up to this many events of each kind (1 MiB of
/// state events, 2 MiB of clip events), as throng-render's never-waiting copies do: what does
/// not fit is lost, not read later, so a crowd whose instances all change state in one step
/// keeps every event.
const FIRST_ROOM: u32 = 1 << 16;

/// The room a copy starts with for `capacity`.
fn first_room(capacity: EventCapacity) -> (u64, u64) {
    (
        capacity.state.min(FIRST_ROOM) as u64,
        capacity.clip.min(FIRST_ROOM) as u64,
    )
}

/// One graph crowd on the GPU.
pub struct GraphGpu {
    link: Arc<GraphLink>,
    /// The step's uniform as last written (its `len` the instances now).
    head: GraphStepParams,
    any_clip_events: bool,
    /// Instances the machine, parameter and event buffers hold room for.
    room: u64,
    graph: Buffer,
    uniform: Buffer,
    machines: Buffer,
    values: Buffer,
    changes: Buffer,
    changes_room: u64,
    events: Buffer,
    /// A new instance's state machine, then its parameters (a spawn copies them).
    fresh: Buffer,
    /// One instance's state machine or parameters, on their way in a despawn's move.
    scratch: Buffer,
    /// The bind group and the record and clip-table buffers it binds.
    bind: Option<(BindGroup, [BufferId; 2])>,
    check: ChangeCheck,
    /// Steps the main world queued, not yet run.
    pending: Vec<GpuStep>,
    copies: VecDeque<Copy>,
    /// Staging buffers free to copy into, of `copy_room`.
    free: Vec<Buffer>,
    /// Events of each kind a new copy has room for.
    copy_room: (u64, u64),
    /// A step was refused for the device's limits (reported once).
    refused: bool,
}

fn buffer(device: &RenderDevice, label: &str, size: u64, usage: BufferUsages) -> Buffer {
    device.create_buffer(&BufferDescriptor {
        label: Some(label),
        size: size.max(16).div_ceil(4) * 4,
        usage,
        mapped_at_creation: false,
    })
}

/// Storage a step reads and writes, copied to and from on spawns, despawns and growth.
const STORAGE: BufferUsages = BufferUsages::STORAGE
    .union(BufferUsages::COPY_DST)
    .union(BufferUsages::COPY_SRC);

/// The event lists' capacities for `room` instances: every state event (two each) and as
/// many clip events as instances, at least 64 (throng-graph-gpu's default).
fn capacity_for(room: u64) -> EventCapacity {
    let room = room.min(u32::MAX as u64 / 2) as usize;
    EventCapacity::for_crowd(room, room.max(64) as u32)
}

impl GraphGpu {
    /// The crowd's graph on the GPU as `crowd` stands; an error (in words) where the tables or
    /// the crowd do not fit what the step takes.
    fn new(
        link: Arc<GraphLink>,
        crowd: &GraphCrowd,
        clips: &[throng_asset::ClipInfo],
        device: &RenderDevice,
        queue: &RenderQueue,
    ) -> Result<GraphGpu, String> {
        let layout = crowd.gpu_layout();
        let tables = layout.tables();
        let len = crowd.len();
        let mut machines = Vec::with_capacity(len * MACHINE_WORDS);
        let mut values = Vec::new();
        for i in 0..len {
            let m = crowd.machine_words(i).map_err(|e| e.to_string())?;
            machines.extend(m);
            values.extend_from_slice(crowd.parameter_values(i).map_err(|e| e.to_string())?);
        }
        throng_contract::graph_step::check(&tables, clips.len(), &machines, &values)?;
        // a new instance: the entry state, default parameters, as the graph crowd makes one
        let one = GraphCrowd::new(crowd.graph().clone(), clips, 1).map_err(|e| e.to_string())?;
        let mut fresh: Vec<u32> = one.machine_words(0).map_err(|e| e.to_string())?.to_vec();
        let fresh_values = one.parameter_values(0).map_err(|e| e.to_string())?;
        fresh.extend(fresh_values.iter().map(|v| v.to_bits()));
        let room = (len as u64).max(64).next_power_of_two();
        let capacity = capacity_for(room);
        let (words, head) =
            throng_contract::graph_step::pack(&tables, len, capacity.state, capacity.clip);
        let stride = head.stride as u64;
        if let Some(why) = past_limits(room, len as u64, head.stride, 0, device) {
            return Err(why);
        }
        let usage = BufferUsages::STORAGE | BufferUsages::COPY_DST;
        let graph = buffer(device, "throng graph tables", words.len() as u64 * 4, usage);
        queue.write_buffer(&graph, 0, bytemuck::cast_slice(&words));
        let uniform = buffer(
            device,
            "throng graph step",
            std::mem::size_of::<GraphStepParams>() as u64,
            BufferUsages::UNIFORM | BufferUsages::COPY_DST,
        );
        let m = buffer(
            device,
            "throng graph machines",
            room * MACHINE_BYTES,
            STORAGE,
        );
        queue.write_buffer(&m, 0, bytemuck::cast_slice(&machines));
        let v = buffer(
            device,
            "throng graph parameters",
            room * stride * 4,
            STORAGE,
        );
        queue.write_buffer(&v, 0, bytemuck::cast_slice(&values));
        let fresh_buffer = buffer(
            device,
            "throng graph new instance",
            fresh.len() as u64 * 4,
            BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
        );
        queue.write_buffer(&fresh_buffer, 0, bytemuck::cast_slice(&fresh));
        let scratch = buffer(
            device,
            "throng graph move",
            MACHINE_BYTES.max(stride * 4),
            BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
        );
        let events = buffer(
            device,
            "throng graph events",
            buffer_bytes(room as usize, capacity),
            STORAGE,
        );
        let changes_room = 256;
        let changes = buffer(device, "throng graph changes", changes_room * 16, usage);
        Ok(GraphGpu {
            link,
            head,
            any_clip_events: throng_contract::graph_step::any_clip_events(&tables),
            room,
            graph,
            uniform,
            machines: m,
            values: v,
            changes,
            changes_room,
            events,
            fresh: fresh_buffer,
            scratch,
            bind: None,
            check: ChangeCheck::default(),
            pending: Vec::new(),
            copies: VecDeque::new(),
            free: Vec::new(),
            copy_room: first_room(capacity),
            refused: false,
        })
    }

    fn capacity(&self) -> EventCapacity {
        EventCapacity {
            state: self.head.state_capacity,
            clip: self.head.clip_capacity,
        }
    }

    /// Room for `len` instances: larger machine, parameter and event buffers, the old state
    /// copied over in `enc` (before anything else the frame encodes).
    fn grow(&mut self, len: u64, device: &RenderDevice, enc: &mut CommandEncoder) {
        if len <= self.room {
            return;
        }
        let room = len.next_power_of_two();
        let stride = self.head.stride as u64;
        let machines = buffer(
            device,
            "throng graph machines",
            room * MACHINE_BYTES,
            STORAGE,
        );
        let values = buffer(
            device,
            "throng graph parameters",
            room * stride * 4,
            STORAGE,
        );
        let used = self.head.len as u64;
        if used > 0 {
            enc.copy_buffer_to_buffer(&self.machines, 0, &machines, 0, used * MACHINE_BYTES);
            enc.copy_buffer_to_buffer(&self.values, 0, &values, 0, used * stride * 4);
        }
        let capacity = capacity_for(room);
        self.events = buffer(
            device,
            "throng graph events",
            buffer_bytes(room as usize, capacity),
            STORAGE,
        );
        self.head.state_capacity = capacity.state;
        self.head.clip_capacity = capacity.clip;
        (self.machines, self.values, self.room) = (machines, values, room);
        self.bind = None;
        let first = first_room(capacity);
        let copy_room = (first.0.max(self.copy_room.0), first.1.max(self.copy_room.1));
        if copy_room != self.copy_room {
            self.copy_room = copy_room;
            self.free.clear();
        }
    }

    /// Repeats the main world's spawns and despawns on the state machines and parameters, in
    /// order (copies in `enc`, so each sees the one before).
    fn apply_ops(&mut self, ops: &[InstanceOp], enc: &mut CommandEncoder) {
        let vb = self.head.stride as u64 * 4;
        let mut len = self.head.len as u64;
        for &op in ops {
            match op {
                InstanceOp::Push => {
                    if len < self.room {
                        enc.copy_buffer_to_buffer(
                            &self.fresh,
                            0,
                            &self.machines,
                            len * MACHINE_BYTES,
                            MACHINE_BYTES,
                        );
                        enc.copy_buffer_to_buffer(
                            &self.fresh,
                            MACHINE_BYTES,
                            &self.values,
                            len * vb,
                            vb,
                        );
                    }
                    len += 1;
                }
                InstanceOp::SwapRemove(i) => {
                    let (i, last) = (i as u64, len.saturating_sub(1));
                    if i < last && last < self.room {
                        let moves = [(&self.machines, MACHINE_BYTES), (&self.values, vb)];
                        for (b, size) in moves {
                            enc.copy_buffer_to_buffer(b, last * size, &self.scratch, 0, size);
                            enc.copy_buffer_to_buffer(&self.scratch, 0, b, i * size, size);
                        }
                    }
                    len = last;
                }
            }
        }
        self.head.len = len as u32;
    }

    /// The bind group over the crowd's `records` and `asset`'s clip table.
    fn bind_group(
        &mut self,
        records: &Buffer,
        asset: &GpuThrongAsset,
        device: &RenderDevice,
        cache: &PipelineCache,
    ) -> BindGroup {
        let ids = [records.id(), asset.clips.id()];
        if let Some((group, bound)) = &self.bind {
            if *bound == ids {
                return group.clone();
            }
        }
        let layout = cache.get_bind_group_layout(&graph_step_layout());
        let group = device.create_bind_group(
            "throng graph step",
            &layout,
            &BindGroupEntries::with_indices((
                (0, self.uniform.as_entire_binding()),
                (1, self.graph.as_entire_binding()),
                (2, self.machines.as_entire_binding()),
                (3, self.values.as_entire_binding()),
                (4, self.changes.as_entire_binding()),
                (5, self.events.as_entire_binding()),
                (6, asset.clips.as_entire_binding()),
                (7, records.as_entire_binding()),
                (bindings::FRAME_TIMES, asset.frame_times.as_entire_binding()),
            )),
        );
        self.bind = Some((group.clone(), ids));
        group
    }

    /// Runs one step: spawns and despawns, changes, the dispatches, the events' copy.
    fn run(&mut self, step: GpuStep, parts: StepParts<'_>) {
        let StepParts {
            records,
            record_room,
            asset,
            pipelines,
            device,
            queue,
            cache,
        } = parts;
        let most = self.head.len as u64
            + step.ops.iter().filter(|o| **o == InstanceOp::Push).count() as u64;
        let most = most.max(step.len as u64);
        let room = most.max(self.room).next_power_of_two();
        if let Some(why) = past_limits(room, most, self.head.stride, step.changes.len(), device) {
            // the crowd stands still from here on: say so once
            if !self.refused {
                self.refused = true;
                error!("throng: a graph crowd on the GPU stops stepping: {why}");
            }
            return;
        }
        let mut enc = device.create_command_encoder(&CommandEncoderDescriptor {
            label: Some("throng graph step"),
        });
        self.grow(most, device, &mut enc);
        self.apply_ops(&step.ops, &mut enc);
        // the main world counts the same spawns and despawns
        self.head.len = step.len.min(self.room as u32);
        let mut changes = step.changes;
        if let Err(e) = self.check.check(&changes, self.head.len, self.head.stride) {
            warn!("throng: a graph step's parameter changes were dropped: {e}");
            changes.clear();
        }
        if changes.len() as u64 > self.changes_room {
            self.changes_room = (changes.len() as u64).next_power_of_two();
            self.changes = buffer(
                device,
                "throng graph changes",
                self.changes_room * 16,
                BufferUsages::STORAGE | BufferUsages::COPY_DST,
            );
            self.bind = None;
        }
        let group = self.bind_group(records, asset, device, cache);
        self.head = self.head.for_step(step.ticks, changes.len());
        // the record buffer holds the runtime's instances at the extract, which are the last
        // step's; an earlier step of more instances (steps piled up) steps those it holds
        let len = self.head.len.min(record_room as u32);
        let uniform = GraphStepParams { len, ..self.head };
        queue.write_buffer(&self.uniform, 0, bytemuck::bytes_of(&uniform));
        if !changes.is_empty() {
            queue.write_buffer(&self.changes, 0, bytemuck::cast_slice(&changes));
        }
        // the counts: state and clip events fired, clip events kept
        queue.write_buffer(&self.events, 0, &[0u8; 12]);
        {
            let mut pass = enc.begin_compute_pass(&ComputePassDescriptor {
                label: Some("throng graph step"),
                timestamp_writes: None,
            });
            pass.set_bind_group(0, &group, &[]);
            let [params, counts, offsets, clip_events, stepping] = pipelines;
            if !changes.is_empty() {
                pass.set_pipeline(params);
                pass.dispatch_workgroups((changes.len() as u32).div_ceil(64), 1, 1);
            }
            let groups = len.div_ceil(64);
            if self.any_clip_events && step.ticks > 0 && len > 0 {
                pass.set_pipeline(counts);
                pass.dispatch_workgroups(groups, 1, 1);
                pass.set_pipeline(offsets);
                pass.dispatch_workgroups(1, 1, 1);
                pass.set_pipeline(clip_events);
                pass.dispatch_workgroups(groups, 1, 1);
            }
            if len > 0 {
                pass.set_pipeline(stepping);
                pass.dispatch_workgroups(groups, 1, 1);
            }
        }
        self.copy_events(step.number, device, &mut enc);
        queue.submit([enc.finish()]);
        if let Some(c) = self.copies.back_mut().filter(|c| c.mapping.is_none()) {
            let state = Arc::new(AtomicU8::new(0));
            let done = Arc::clone(&state);
            c.staging.slice(..).map_async(MapMode::Read, move |r| {
                done.store(if r.is_ok() { 1 } else { 2 }, Ordering::Release);
            });
            c.mapping = Some(state);
        }
    }

    /// Encodes step `number`'s copy of the events' head and the first `copy_room` events of
    /// each list.
    fn copy_events(&mut self, number: u64, device: &RenderDevice, enc: &mut CommandEncoder) {
        while self.copies.len() >= WAITING_COPIES {
            if let Some(oldest) = self.copies.pop_front() {
                self.release(oldest);
                self.link.lock().lost = true;
            }
        }
        let room = self.copy_room;
        let state_bytes = EVENTS_HEAD_BYTES + room.0 * STATE_EVENT_BYTES;
        let staging = self.free.pop().unwrap_or_else(|| {
            buffer(
                device,
                "throng graph events, read back",
                state_bytes + room.1 * CLIP_EVENT_BYTES,
                BufferUsages::MAP_READ | BufferUsages::COPY_DST,
            )
        });
        enc.copy_buffer_to_buffer(&self.events, 0, &staging, 0, state_bytes);
        let capacity = self.capacity();
        if room.1 > 0 {
            enc.copy_buffer_to_buffer(
                &self.events,
                clips_at(capacity),
                &staging,
                state_bytes,
                room.1 * CLIP_EVENT_BYTES,
            );
        }
        self.copies.push_back(Copy {
            staging,
            room,
            capacity,
            number,
            mapping: None,
        });
    }

    /// A copy's buffer back to the free list (unmapped, which also cancels a mapping under way),
    /// unless the room has grown past it.
    fn release(&mut self, c: Copy) {
        c.staging.unmap();
        if c.room == self.copy_room {
            self.free.push(c.staging);
        }
    }

    /// Hands the main world the events of every copy that has arrived, oldest first (up to the
    /// first still on its way); a list past its copy's room is reported lost and the room
    /// grows for the next steps.
    fn take_arrived(&mut self) {
        let mut arrived = Vec::new();
        let mut lost = false;
        while let Some(front) = self.copies.front() {
            let state = front.mapping.as_ref().map(|s| s.load(Ordering::Acquire));
            if state.is_none_or(|s| s == 0) {
                break;
            }
            let Some(c) = self.copies.pop_front() else {
                break;
            };
            if state == Some(1) {
                let (events, kept) = {
                    let mapped = c.staging.slice(..).get_mapped_range();
                    read_copy(&mapped, c.room, c.capacity)
                };
                if kept.states > c.room.0 || kept.clips > c.room.1 {
                    let grow = |kept: u64, room: u64, most: u32| {
                        if kept > room {
                            (kept + kept / 4)
                                .next_power_of_two()
                                .min(most as u64)
                                .max(room)
                        } else {
                            room
                        }
                    };
                    let room = (
                        grow(kept.states, self.copy_room.0, c.capacity.state),
                        grow(kept.clips, self.copy_room.1, c.capacity.clip),
                    );
                    if room != self.copy_room {
                        self.copy_room = room;
                        self.free.clear();
                    }
                }
                lost |= events.state_lost || events.clip_lost;
                arrived.push((c.number, events));
            } else {
                lost = true;
            }
            self.release(c);
        }
        if !arrived.is_empty() || lost {
            let mut state = self.link.lock();
            state.events.extend(arrived);
            state.lost |= lost;
        }
    }
}

/// A mapped copy's events (what of the lists fits its `room`, the rest reported lost) and what
/// the step kept.
fn read_copy(mapped: &[u8], room: (u64, u64), capacity: EventCapacity) -> (StepEvents, Kept) {
    let word = |k: usize| {
        mapped
            .get(k * 4..k * 4 + 4)
            .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let head = [word(0), word(1), word(2), word(3)];
    let kept = Kept::new(&head, capacity);
    let part = kept.within(room);
    let state_at = EVENTS_HEAD_BYTES as usize;
    let clip_at = state_at + (room.0 * STATE_EVENT_BYTES) as usize;
    let slice = |at: usize, bytes: u64| mapped.get(at..at + bytes as usize).unwrap_or(&[]);
    let events = part.events(
        slice(state_at, part.states * STATE_EVENT_BYTES),
        slice(clip_at, part.clips * CLIP_EVENT_BYTES),
    );
    (events, kept)
}

/// What [`GraphGpu::run`] needs of the frame.
struct StepParts<'a> {
    records: &'a Buffer,
    /// Records the buffer holds room for.
    record_room: u64,
    asset: &'a GpuThrongAsset,
    pipelines: [&'a ComputePipeline; 5],
    device: &'a RenderDevice,
    queue: &'a RenderQueue,
    cache: &'a PipelineCache,
}

/// Why `len` instances (buffers of `room`, `stride` parameters each) and `changes` parameter
/// changes in one step cannot run on this device — its buffers past a binding, its dispatches
/// past a dimension — checked when a crowd is placed and before every step; `None` where they
/// can.
fn past_limits(
    room: u64,
    len: u64,
    stride: u32,
    changes: usize,
    device: &RenderDevice,
) -> Option<String> {
    let limits = device.limits();
    let per = MACHINE_BYTES.max(64).max(stride as u64 * 4);
    let binding = limits
        .max_storage_buffer_binding_size
        .min(limits.max_buffer_size);
    let events = buffer_bytes(room as usize, capacity_for(room));
    let groups = limits.max_compute_workgroups_per_dimension as u64 * 64;
    if room * per > binding || events > binding {
        Some(format!(
            "{len} instances need {} B of state machines, records or events, over the device's {binding} B a binding",
            (room * per).max(events)
        ))
    } else if len > groups || changes as u64 > groups {
        Some(format!(
            "{len} instances or {changes} parameter changes in one step are over the {groups} the device dispatches"
        ))
    } else {
        None
    }
}

/// Every graph crowd on the GPU, by main-world crowd entity.
#[derive(Resource, Default)]
pub struct GraphGpus(pub HashMap<Entity, GraphGpu>);

/// Where the step cannot run on this device, why (`None` where it can).
fn device_lacks(device: &RenderDevice) -> Option<String> {
    let limits = device.limits();
    (limits.max_storage_buffers_per_shader_stage < 8
        || limits.max_compute_workgroups_per_dimension == 0)
        .then(|| "the device lacks compute shaders with eight storage buffers".to_string())
}

/// Places each graph crowd asking for the GPU once it can (see the module docs), and takes the
/// steps the main world queued for those placed.
#[allow(clippy::too_many_arguments)]
pub(crate) fn extract_graphs(
    crowds: Extract<Query<(Entity, &ThrongCrowd)>>,
    mut graphs: ResMut<GraphGpus>,
    mut pipelines: ResMut<GraphPipelines>,
    shader: Option<Res<GraphStepShader>>,
    cache: Res<PipelineCache>,
    adapter: Res<RenderAdapterInfo>,
    device: Res<RenderDevice>,
    queue: Res<RenderQueue>,
) {
    let mut seen = Vec::new();
    for (main, crowd) in &crowds {
        let Some(g) = crowd.graph.as_ref() else {
            continue;
        };
        if g.on_gpu() {
            let mut state = g.link.lock();
            match graphs.0.get_mut(&main) {
                Some(gg) => {
                    gg.pending.append(&mut state.steps);
                    if gg.pending.len() > MOST_PENDING {
                        // the crowd's GPU data has been missing for seconds: keep memory
                        // bounded; the steps dropped are time the crowd does not play
                        let over = gg.pending.len() - MOST_PENDING;
                        gg.pending.drain(..over);
                        state.lost = true;
                    }
                    seen.push(main);
                }
                // placed by a render world that no longer holds it: nothing runs its steps
                None => state.steps.clear(),
            }
            continue;
        }
        if g.link.lock().placement.is_some() {
            continue;
        }
        let (Some(rt), Some(baked)) = (crowd.runtime(), crowd.baked()) else {
            continue;
        };
        let Some(gc) = rt.data::<GraphCrowd>() else {
            continue;
        };
        let software =
            throng_contract::software_adapter(&adapter.name, &format!("{:?}", adapter.device_type));
        let on = crowd.graph_on();
        let cpu_because = match on {
            GraphOn::Cpu => Some("asked for".to_string()),
            _ if rt.cpu().is_none() => {
                Some("a GPU-timed crowd's graph steps on the CPU and drives its runtime".into())
            }
            GraphOn::Auto if software => Some(format!("{} is a software adapter", adapter.name)),
            _ => device_lacks(&device),
        };
        let because = match cpu_because {
            Some(why) => Some(why),
            None => {
                let Some(shader) = &shader else {
                    continue;
                };
                let ids = *pipelines.0.get_or_insert_with(|| {
                    ENTRIES.map(|e| {
                        cache.queue_compute_pipeline(graph_step_pipeline(shader.0.clone(), e))
                    })
                });
                let failed =
                    ids.iter()
                        .find_map(|&id| match cache.get_compute_pipeline_state(id) {
                            CachedPipelineState::Err(e) => {
                                Some(format!("its pipeline failed: {e}"))
                            }
                            _ => None,
                        });
                if failed.is_none()
                    && (gc.is_empty()
                        || ids
                            .iter()
                            .any(|&id| cache.get_compute_pipeline(id).is_none()))
                {
                    // not yet: the pipelines compile, or no instance has joined
                    continue;
                }
                match failed {
                    Some(why) => Some(why),
                    None => {
                        match GraphGpu::new(Arc::clone(&g.link), gc, &baked.clips, &device, &queue)
                        {
                            Ok(gg) => {
                                graphs.0.insert(main, gg);
                                seen.push(main);
                                None
                            }
                            Err(why) => Some(why),
                        }
                    }
                }
            }
        };
        let mut state = g.link.lock();
        match because {
            None => {
                info!(
                    "throng: the graph {} steps on the GPU of {} (the CPU sends only parameter changes, spawns and despawns)",
                    g.source.name, adapter.name
                );
                state.placement = Some(Placement::Gpu(adapter.name.clone()));
                g.link.on_gpu.store(true, Ordering::Release);
            }
            Some(why) => {
                if on == GraphOn::Gpu {
                    warn!(
                        "throng: the graph {} steps on the CPU, not on the GPU asked for: {why}",
                        g.source.name
                    );
                } else {
                    info!(
                        "throng: the graph {} steps on the CPU ({why})",
                        g.source.name
                    );
                }
                state.placement = Some(Placement::Cpu(why));
            }
        }
    }
    graphs.0.retain(|main, _| seen.contains(main));
}

/// After the frame is submitted: hands the main world the events whose copies have arrived
/// (polling the device, never waiting), so that its next frame sends them.
pub(crate) fn take_graph_events(mut graphs: ResMut<GraphGpus>, device: Res<RenderDevice>) {
    if graphs.0.is_empty() {
        return;
    }
    let _ = device.poll(PollType::Poll);
    for gg in graphs.0.values_mut() {
        gg.take_arrived();
    }
}

/// Runs every graph crowd's queued steps (see the module docs), before the palette passes;
/// first hands the main world the events that arrived.
pub(crate) fn step_graphs(
    mut graphs: ResMut<GraphGpus>,
    gpus: Res<CrowdGpus>,
    assets: Res<RenderAssets<GpuThrongAsset>>,
    pipelines: Res<GraphPipelines>,
    cache: Res<PipelineCache>,
    device: Res<RenderDevice>,
    queue: Res<RenderQueue>,
) {
    if graphs.0.is_empty() {
        return;
    }
    // mappings resolve when the device is polled; this never waits
    let _ = device.poll(PollType::Poll);
    let Some(ids) = pipelines.0 else {
        return;
    };
    let found = ids.map(|id| cache.get_compute_pipeline(id));
    for (main, gg) in graphs.0.iter_mut() {
        gg.take_arrived();
        let [Some(a), Some(b), Some(c), Some(d), Some(e)] = found else {
            continue;
        };
        let Some(cg) = gpus.0.get(main) else {
            continue;
        };
        let (Some(records), Some(asset)) = (&cg.buffers.records, assets.get(cg.asset)) else {
            continue;
        };
        for step in std::mem::take(&mut gg.pending) {
            let parts = StepParts {
                records,
                record_room: cg.buffers.capacity,
                asset,
                pipelines: [a, b, c, d, e],
                device: &device,
                queue: &queue,
                cache: &cache,
            };
            gg.run(step, parts);
        }
    }
}
