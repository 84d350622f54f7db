//! The events a GPU graph step lists (docs/graph.md "On the GPU"): their words, the layout of
//! the buffer the pass lists them in, putting an instance's clip events in the CPU step's
//! order, and reading a step's lists back one frame late without waiting.
//!
//! The buffer: four words (state events fired, clip events fired, clip events kept, unused),
//! `state` state events of [`StateEventWords`], `clip` clip events of [`ClipEventWords`]
//! ([`EventCapacity`]), then a word per workgroup of 64 instances and a word per instance
//! (throng-contract `shaders/graph_step.wgsl`, `GraphEvents`).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

use crate::device::Gpu;
use crate::error::RenderError;

/// A state event the pass fired: instance, state, event name index, kind (0 entry, 1 exit).
pub type StateEventWords = [u32; 4];

/// A clip event the pass fired: instance, clip, event index (into the clip's
/// `ClipInfo::events`), `2 | slot << 4 | k << 8` (the shown state's place, outgoing states
/// first; the clip's index among the state's clips), the step fraction
/// (`graph_time::step_fraction`, 2^-30 of the step) and the crossing's distance from the
/// state's phase at the step's start (2^-64 cycles, three words, lowest first).
pub type ClipEventWords = [u32; 8];

/// How many events of each kind a step keeps ([`crate::graph_pass::GraphPass::new`]): the two
/// kinds have their own lists, so a burst of clip events never crowds out a state event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventCapacity {
    /// State events (16 B each on the GPU). An instance fires at most an exit and an entry a
    /// step, so twice the crowd never overflows. Past the capacity the list is cut where the
    /// appends reach it, which may keep an instance's exit without its entry.
    pub state: u32,
    /// Clip events (32 B each). Past the capacity the list keeps whole instances' events.
    ///
    /// A capacity of 0 counts as 1 (the pass still searches; a graph whose clips have no
    /// events skips the search whatever the capacity).
    pub clip: u32,
}

impl EventCapacity {
    /// Room for every state event of a crowd of `len` (2 each) and for `clip` clip events.
    pub fn for_crowd(len: usize, clip: u32) -> EventCapacity {
        EventCapacity {
            state: (2 * len).min(u32::MAX as usize) as u32,
            clip,
        }
    }
}

/// The events of one step, read back ([`crate::graph_pass::GraphPass::read_events`],
/// [`crate::graph_pass::GraphPass::take_events`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StepEvents {
    /// State events by instance, an instance's in the order fired.
    pub state: Vec<StateEventWords>,
    /// Clip events by instance, an instance's by step fraction (ties: by the shown state's
    /// place, the clip, the distance, the event index), as throng_graph's CPU step lists them.
    pub clip: Vec<ClipEventWords>,
    /// Some state events fired past the capacity were lost (the list holds the first ones
    /// appended, in no set order).
    pub state_lost: bool,
    /// Some clip events were lost: the list holds those of the first instances whose events
    /// all fit in the capacity, in order (a prefix of the whole list, ending with a whole
    /// instance's).
    pub clip_lost: bool,
}

/// Bytes of a state event and of a clip event in the events buffer, and of its head.
pub(crate) const STATE_EVENT_BYTES: u64 = 16;
pub(crate) const CLIP_EVENT_BYTES: u64 = 32;
pub(crate) const EVENTS_HEAD_BYTES: u64 = 16;

/// The events buffer's bytes for `len` instances and `capacity` (capacities of at least one).
pub(crate) fn buffer_bytes(len: usize, capacity: EventCapacity) -> u64 {
    EVENTS_HEAD_BYTES
        + capacity.state as u64 * STATE_EVENT_BYTES
        + capacity.clip as u64 * CLIP_EVENT_BYTES
        + (len as u64).div_ceil(64) * 4
        + len as u64 * 4
}

/// Where the clip event list starts in the buffer.
pub(crate) fn clips_at(capacity: EventCapacity) -> u64 {
    EVENTS_HEAD_BYTES + capacity.state as u64 * STATE_EVENT_BYTES
}

/// What a step's head words say: the events kept of each kind, and whether any were lost.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Kept {
    pub(crate) states: u64,
    pub(crate) clips: u64,
    state_lost: bool,
    clip_lost: bool,
}

impl Kept {
    /// From the head's words (missing words read as 0) and the capacities.
    pub(crate) fn new(head: &[u32], capacity: EventCapacity) -> Kept {
        let word = |k: usize| head.get(k).copied().unwrap_or(0);
        let (state_fired, clip_fired, clip_kept) = (word(0), word(1), word(2));
        Kept {
            states: state_fired.min(capacity.state) as u64,
            clips: clip_kept.min(clip_fired).min(capacity.clip) as u64,
            state_lost: state_fired > capacity.state,
            clip_lost: clip_fired > capacity.clip,
        }
    }

    /// What of this a copy with room for `room` events of each kind holds: the rest counts
    /// as lost.
    pub(crate) fn within(&self, room: (u64, u64)) -> Kept {
        Kept {
            states: self.states.min(room.0),
            clips: self.clips.min(room.1),
            state_lost: self.state_lost || self.states > room.0,
            clip_lost: self.clip_lost || self.clips > room.1,
        }
    }

    /// The kept parts of the two lists, read from the events buffer with `read` (which takes
    /// the buffer's byte ranges and returns their bytes one after the other), as events.
    pub(crate) fn read_lists(
        &self,
        capacity: EventCapacity,
        read: impl FnOnce(&[(u64, u64)]) -> Result<Vec<u8>, RenderError>,
    ) -> Result<StepEvents, RenderError> {
        if self.states + self.clips == 0 {
            return Ok(self.events(&[], &[]));
        }
        let state_bytes = self.states * STATE_EVENT_BYTES;
        let bytes = read(&[
            (EVENTS_HEAD_BYTES, state_bytes),
            (clips_at(capacity), self.clips * CLIP_EVENT_BYTES),
        ])?;
        let (state, clip) = bytes.split_at(state_bytes.min(bytes.len() as u64) as usize);
        Ok(self.events(state, clip))
    }

    /// The events from the kept parts of the two lists' bytes, each in the CPU step's order.
    pub(crate) fn events(&self, state: &[u8], clip: &[u8]) -> StepEvents {
        let mut out = StepEvents {
            state: bytemuck::pod_collect_to_vec(state),
            clip: bytemuck::pod_collect_to_vec(clip),
            state_lost: self.state_lost,
            clip_lost: self.clip_lost,
        };
        // instances append in any order; each one's state events are adjacent and in order
        out.state.sort_by_key(|e| e[0]);
        order_each_instance(&mut out.clip);
        out
    }
}

/// A clip event's place in the CPU step's order: instance, step fraction, shown state's place,
/// clip, distance (highest word first), event.
fn clip_event_key(e: &ClipEventWords) -> (u32, u32, u32, u32, [u32; 3], u32) {
    (
        e[0],
        e[4],
        (e[3] >> 4) & 0xf,
        e[3] >> 8,
        [e[7], e[6], e[5]],
        e[2],
    )
}

/// Puts each instance's clip events of `list` (listed by instance on the GPU, an instance's in
/// the order its search found them) in the CPU step's order: one pass, sorting only the
/// instances with two or more events that are out of order.
fn order_each_instance(list: &mut [ClipEventWords]) {
    let mut start = 0;
    while start < list.len() {
        let instance = list[start][0];
        let end = start
            + list[start..]
                .iter()
                .position(|e| e[0] != instance)
                .unwrap_or(list.len() - start);
        let run = &mut list[start..end];
        if !run.is_sorted_by_key(clip_event_key) {
            run.sort_by_key(clip_event_key);
        }
        start = end;
    }
}

/// Steps' copies that can wait at once where nothing waits for them
/// ([`LateEvents::set_wait`] off): a step whose copy has not been taken by the time this many
/// newer steps have run is dropped, its events lost. Measured in headless Chromium on
/// SwiftShader's WebGPU (crates/throng-web/tests/browser.rs), a step's copy arrived 1 to 3
/// animation frames later (the browser keeps a few frames in flight); six leaves room for a
/// slower machine.
pub const LATE_EVENT_COPIES: usize = 6;

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

#[cfg(test)]
mod tests {
    use super::*;

    fn event(instance: u32, fraction: u32, slot: u32, k: u32, event: u32) -> ClipEventWords {
        [
            instance,
            0,
            event,
            2 | slot << 4 | k << 8,
            fraction,
            0,
            0,
            0,
        ]
    }

    #[test]
    fn each_instance_is_put_in_the_cpu_steps_order_and_instances_stay_put() {
        // as the GPU lists them: by instance, an instance's in the order its search found them
        // (outgoing state first, whatever the step fraction)
        let mut list = vec![
            event(3, 900, 0, 0, 0),
            event(3, 100, 1, 0, 1),
            event(3, 100, 0, 1, 0),
            event(5, 7, 0, 0, 2),
            event(8, 50, 1, 0, 0),
            event(8, 60, 0, 0, 0),
        ];
        let mut want = list.clone();
        want.sort_by_key(clip_event_key);
        order_each_instance(&mut list);
        assert_eq!(list, want);
        assert_eq!(
            list.iter().map(|e| (e[0], e[4])).collect::<Vec<_>>(),
            [(3, 100), (3, 100), (3, 900), (5, 7), (8, 50), (8, 60)]
        );
        // ties on the fraction: the shown state's place, then the clip
        assert_eq!((list[0][3] >> 4) & 0xf, 0);
        assert_eq!(list[0][3] >> 8, 1);
    }

    #[test]
    fn the_head_says_what_was_kept_and_lost() {
        let capacity = EventCapacity { state: 4, clip: 10 };
        // fired past the capacity; the clip list kept whole instances' 7
        let k = Kept::new(&[6, 12, 7, 0], capacity);
        assert_eq!(
            (k.states, k.clips, k.state_lost, k.clip_lost),
            (4, 7, true, true)
        );
        // nothing fired; a short head reads as nothing
        let k = Kept::new(&[0, 0, 0, 0], capacity);
        assert_eq!(
            (k.states, k.clips, k.state_lost, k.clip_lost),
            (0, 0, false, false)
        );
        let k = Kept::new(&[], capacity);
        assert_eq!((k.states, k.clips), (0, 0));
        // a lying head never claims more than fired or than the capacity
        let k = Kept::new(&[1, 3, 9, 0], capacity);
        assert_eq!(k.clips, 3);
    }
}
