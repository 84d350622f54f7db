//! Reading a GPU graph step's events back one frame late without waiting (docs/graph.md "On
//! the GPU"). The events' words, the buffer's layout and their decoding are the contract's
//! (`throng_contract::graph_events`), shared with the Bevy plugin.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

use throng_contract::graph_events::{
    clips_at, Kept, CLIP_EVENT_BYTES, EVENTS_HEAD_BYTES, STATE_EVENT_BYTES,
};
pub use throng_contract::graph_events::{
    ClipEventWords, EventCapacity, StateEventWords, StepEvents, LATE_EVENT_COPIES,
};

use crate::device::Gpu;
use crate::error::RenderError;

/// A step's copy: its staging buffer (of `room`), the step it holds, and once submitted its
/// mapping (0 mapping, 1 mapped, 2 failed) and the submission that copies.
struct Pending {
    staging: wgpu::Buffer,
    room: (u64, u64),
    step: u64,
    mapping: Option<(Arc<AtomicU8>, wgpu::SubmissionIndex)>,
}

/// A step's events copied, after the step, into a buffer mapped without waiting
/// ([`crate::graph_pass::GraphPass::take_events`]): read a frame later, the copy has normally
/// arrived. A copy holds `room` events of each kind; a step that keeps more is read from the
/// events buffer itself (still the step's: the next step has not run), or, where nothing may
/// wait, reported lost beyond the copy's room, which then grows.
///
/// Two ways to take them. *Waiting* (native, the default): a copy not arrived is waited for,
/// and each step drops the copy of the one before if it was not taken. *Never waiting* (a
/// browser's main thread, where a mapping resolves only after the page's task returns and
/// `Device::poll` cannot wait): only copies that have arrived are taken, oldest first; up to
/// [`LATE_EVENT_COPIES`] steps' copies wait, and past that the oldest is dropped (lost).
pub(crate) struct LateEvents {
    /// Copies of steps not taken yet, oldest first.
    pending: VecDeque<Pending>,
    /// Staging buffers free to copy into.
    free: Vec<(wgpu::Buffer, (u64, u64))>,
    /// State and clip events a new copy has room for.
    room: (u64, u64),
    /// Whether [`Self::take`] waits for a copy that has not arrived ([`Self::set_wait`]).
    wait: bool,
}

/// Never waiting, a copy's room starts at the step's capacity up to this many events of each
/// kind (1 MiB of state events, 2 MiB of clip events a copy), since what does not fit is lost
/// rather than read later: a page's crowd whose instances all enter a state in one step keeps
/// every event.
const NEVER_WAITING_ROOM: u32 = 1 << 16;

/// Bytes a late copy of `room` events takes.
fn staging_bytes(room: (u64, u64)) -> u64 {
    EVENTS_HEAD_BYTES + room.0 * STATE_EVENT_BYTES + room.1 * CLIP_EVENT_BYTES
}

fn staging(device: &wgpu::Device, room: (u64, u64)) -> wgpu::Buffer {
    crate::readback::read_buffer(device, "throng graph events, late", staging_bytes(room))
}

/// What one step's copy gave: its events, or what was kept when the lists are longer than the
/// copy's room, with the part of them the copy holds.
enum Copied {
    Whole(StepEvents),
    Longer { kept: Kept, part: StepEvents },
}

impl LateEvents {
    /// Room for a few hundred events to start with; it grows to what steps keep.
    pub(crate) fn new(device: &wgpu::Device, capacity: EventCapacity) -> LateEvents {
        let room = (
            (capacity.state as u64).min(256),
            (capacity.clip as u64).min(256),
        );
        LateEvents {
            pending: VecDeque::new(),
            free: vec![(staging(device, room), room)],
            room,
            wait: true,
        }
    }

    /// Waiting for copies not arrived, or never ([`LateEvents`]); from the next take on.
    /// Switching to waiting keeps only the newest copy (a list past its room is then read from
    /// the events buffer, which holds the newest step's); switching to never waiting widens
    /// new copies' room to `capacity` (up to [`NEVER_WAITING_ROOM`] events of each kind).
    pub(crate) fn set_wait(&mut self, wait: bool, capacity: EventCapacity) {
        if wait == self.wait {
            return;
        }
        self.wait = wait;
        if wait {
            while self.pending.len() > 1 {
                if let Some(older) = self.pending.pop_front() {
                    self.release(older);
                }
            }
        } else {
            let room = (
                self.room
                    .0
                    .max(capacity.state.min(NEVER_WAITING_ROOM) as u64),
                self.room
                    .1
                    .max(capacity.clip.min(NEVER_WAITING_ROOM) as u64),
            );
            if room != self.room {
                self.room = room;
                self.free.clear();
            }
        }
    }

    /// The room new copies start with (events of each kind); it grows as steps need.
    pub(crate) fn set_room(&mut self, room: (u64, u64)) {
        if room != self.room {
            self.room = room;
            self.free.clear();
        }
    }

    /// Drops every step's copy that was not taken (their events are not reported).
    pub(crate) fn drop_pending(&mut self) {
        while let Some(p) = self.pending.pop_front() {
            self.release(p);
        }
    }

    /// A copy's buffer back to the free list (unmapped: allowed mapped, still mapping or
    /// failed, and it cancels a mapping), unless the room has grown past it.
    fn release(&mut self, p: Pending) {
        p.staging.unmap();
        if p.room == self.room {
            self.free.push((p.staging, p.room));
        }
    }

    /// Encodes step `step`'s copy of the head and the first `room` events of each list (after
    /// the step's dispatches, in the same encoder).
    pub(crate) fn copy(
        &mut self,
        device: &wgpu::Device,
        enc: &mut wgpu::CommandEncoder,
        events: &wgpu::Buffer,
        capacity: EventCapacity,
        step: u64,
    ) {
        if self.wait {
            self.drop_pending();
        } else {
            while self.pending.len() >= LATE_EVENT_COPIES {
                if let Some(oldest) = self.pending.pop_front() {
                    self.release(oldest);
                }
            }
        }
        let room = self.room;
        self.free.retain(|(_, r)| *r == room);
        let staging = match self.free.pop() {
            Some((b, _)) => b,
            None => staging(device, room),
        };
        let state_bytes = EVENTS_HEAD_BYTES + room.0 * STATE_EVENT_BYTES;
        enc.copy_buffer_to_buffer(events, 0, &staging, 0, state_bytes);
        if room.1 > 0 {
            enc.copy_buffer_to_buffer(
                events,
                clips_at(capacity),
                &staging,
                state_bytes,
                room.1 * CLIP_EVENT_BYTES,
            );
        }
        self.pending.push_back(Pending {
            staging,
            room,
            step,
            mapping: None,
        });
    }

    /// After the copy's submission: maps the newest copy without waiting.
    pub(crate) fn map(&mut self, submission: wgpu::SubmissionIndex) {
        let Some(p) = self.pending.back_mut().filter(|p| p.mapping.is_none()) else {
            return;
        };
        let state = Arc::new(AtomicU8::new(0));
        let done = Arc::clone(&state);
        p.staging
            .slice(..)
            .map_async(wgpu::MapMode::Read, move |r| {
                done.store(if r.is_ok() { 1 } else { 2 }, Ordering::Release);
            });
        p.mapping = Some((state, submission));
    }

    /// The events of the steps whose copies are taken now, oldest first, each with its step
    /// number: waiting, every pending copy (at most one: each step drops the one before);
    /// never waiting, those that have arrived up to the first that has not. A list longer than
    /// its copy's room is read with `read_rest` (the byte ranges of the events buffer it
    /// takes) when waiting, and reported lost past the room when not; either way the room
    /// grows for the next steps. Copies are unmapped on every way out, errors included.
    pub(crate) fn take(
        &mut self,
        gpu: &Gpu,
        capacity: EventCapacity,
        mut read_rest: impl FnMut(&[(u64, u64)]) -> Result<Vec<u8>, RenderError>,
    ) -> Result<Vec<(u64, StepEvents)>, RenderError> {
        let poll = |p| {
            gpu.device
                .poll(p)
                .map_err(|e| RenderError::Readback(e.to_string()))
        };
        let mut out = Vec::new();
        if self.pending.is_empty() {
            return Ok(out);
        }
        poll(wgpu::PollType::Poll)?;
        while let Some(front) = self.pending.front() {
            let Some((state, submission)) = &front.mapping else {
                break; // copied but not submitted: a step that failed; the next drops it
            };
            if state.load(Ordering::Acquire) == 0 {
                if !self.wait {
                    break;
                }
                poll(wgpu::PollType::Wait {
                    submission_index: Some(submission.clone()),
                    timeout: None,
                })?;
            }
            let Some(p) = self.pending.pop_front() else {
                break;
            };
            let copied = read_mapped(&p, capacity);
            let step = p.step;
            self.release(p);
            let events = match copied? {
                Copied::Whole(events) => events,
                Copied::Longer { kept, part } => {
                    self.grow(&gpu.device, kept, capacity);
                    if self.wait {
                        kept.read_lists(capacity, &mut read_rest)?
                    } else {
                        part
                    }
                }
            };
            out.push((step, events));
        }
        Ok(out)
    }

    /// Room for at least 5/4 of what a step kept, to the next power of two, at most the
    /// capacity.
    fn grow(&mut self, device: &wgpu::Device, kept: Kept, capacity: EventCapacity) {
        let grow = |kept: u64, room: u64, most: u32| {
            if kept > room {
                (kept + kept / 4).next_power_of_two().min(most as u64)
            } else {
                room
            }
        };
        let room = (
            grow(kept.states, self.room.0, capacity.state),
            grow(kept.clips, self.room.1, capacity.clip),
        );
        if room != self.room {
            self.room = room;
            self.free.clear();
            self.free.push((staging(device, room), room));
        }
    }
}

/// Reads a mapped copy (the caller unmaps): its events, or what was kept when the lists are
/// longer than the copy's room.
fn read_mapped(p: &Pending, capacity: EventCapacity) -> Result<Copied, RenderError> {
    let mapped = p.mapping.as_ref().map(|(s, _)| s.load(Ordering::Acquire));
    if mapped != Some(1) {
        return Err(RenderError::Readback(
            "mapping a graph step's events for reading failed".into(),
        ));
    }
    let mapped = (p.staging.slice(..).get_mapped_range())
        .map_err(|e| RenderError::Readback(format!("{e:?}")))?;
    let head: Vec<u32> = bytemuck::pod_collect_to_vec(&mapped[..EVENTS_HEAD_BYTES as usize]);
    let kept = Kept::new(&head, capacity);
    let part = kept.within(p.room);
    let state_at = EVENTS_HEAD_BYTES as usize;
    let clip_at = state_at + (p.room.0 * STATE_EVENT_BYTES) as usize;
    let events = part.events(
        &mapped[state_at..state_at + (part.states * STATE_EVENT_BYTES) as usize],
        &mapped[clip_at..clip_at + (part.clips * CLIP_EVENT_BYTES) as usize],
    );
    Ok(if kept.states > p.room.0 || kept.clips > p.room.1 {
        Copied::Longer { kept, part: events }
    } else {
        Copied::Whole(events)
    })
}
