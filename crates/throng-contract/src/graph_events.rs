//! The events a GPU graph step lists (docs/graph.md "On the GPU"), apart from any GPU API:
//! their words, the layout of the buffer the pass lists them in, what a step's head words say
//! was kept ([`Kept`]) and putting an instance's clip events in the CPU step's order. Every
//! embedding that reads them back (throng-render's `graph_pass`, the Bevy plugin) decodes
//! them here.
//!
//! The buffer: four words (state events fired, clip events fired, clip events kept, unused),
//! `state` state events of [`StateEventWords`], `clip` clip events of [`ClipEventWords`]
//! ([`EventCapacity`]), then a word per workgroup of 64 instances and a word per instance
//! (`shaders/graph_step.wgsl`, `GraphEvents`).

/// A state event the pass fired: instance, state, event name index, kind (0 entry, 1 exit).
pub type StateEventWords = [u32; 4];

/// A clip event the pass fired: instance, clip, event index (into the clip's
/// `ClipInfo::events`), `2 | slot << 4 | k << 8` (the shown state's place, outgoing states
/// first; the clip's index among the state's clips), the step fraction
/// (`graph_time::step_fraction`, 2^-30 of the step) and the crossing's distance from the
/// state's phase at the step's start (2^-64 cycles, three words, lowest first).
pub type ClipEventWords = [u32; 8];

/// How many events of each kind a step keeps (throng-render's `GraphPass::new`): the two
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

/// The events of one step, read back (throng-render's `GraphPass::read_events` and
/// `take_events`, the Bevy plugin's graph crowds).
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
pub const STATE_EVENT_BYTES: u64 = 16;
pub const CLIP_EVENT_BYTES: u64 = 32;
pub const EVENTS_HEAD_BYTES: u64 = 16;

/// The events buffer's bytes for `len` instances and `capacity` (capacities of at least one).
pub fn buffer_bytes(len: usize, capacity: EventCapacity) -> u64 {
    EVENTS_HEAD_BYTES
        + capacity.state as u64 * STATE_EVENT_BYTES
        + capacity.clip as u64 * CLIP_EVENT_BYTES
        + (len as u64).div_ceil(64) * 4
        + len as u64 * 4
}

/// Where the clip event list starts in the buffer.
pub fn clips_at(capacity: EventCapacity) -> u64 {
    EVENTS_HEAD_BYTES + capacity.state as u64 * STATE_EVENT_BYTES
}

/// What a step's head words say: the events kept of each kind, and whether any were lost.
#[derive(Debug, Clone, Copy)]
pub struct Kept {
    pub states: u64,
    pub clips: u64,
    state_lost: bool,
    clip_lost: bool,
}

impl Kept {
    /// From the head's words (missing words read as 0) and the capacities.
    pub fn new(head: &[u32], capacity: EventCapacity) -> Kept {
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
    pub fn within(&self, room: (u64, u64)) -> Kept {
        Kept {
            states: self.states.min(room.0),
            clips: self.clips.min(room.1),
            state_lost: self.state_lost || self.states > room.0,
            clip_lost: self.clip_lost || self.clips > room.1,
        }
    }

    /// The kept parts of the two lists, read from the events buffer with `read` (which takes
    /// the buffer's byte ranges and returns their bytes one after the other), as events.
    pub fn read_lists<E>(
        &self,
        capacity: EventCapacity,
        read: impl FnOnce(&[(u64, u64)]) -> Result<Vec<u8>, E>,
    ) -> Result<StepEvents, E> {
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
    pub fn events(&self, state: &[u8], clip: &[u8]) -> StepEvents {
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
/// (throng-render's `LateEvents::set_wait` off): a step whose copy has not been taken by the time this many
/// newer steps have run is dropped, its events lost. Measured in headless Chromium on
/// SwiftShader's WebGPU (crates/throng-web/tests/browser.rs), a step's copy arrived 1 to 3
/// animation frames later (the browser keeps a few frames in flight); six leaves room for a
/// slower machine.
pub const LATE_EVENT_COPIES: usize = 6;

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
