//! Wake-up schedule of the GPU-timed mode: a timing wheel for the next ~16 s plus a min-heap for
//! wakes further ahead (events of long or slow clips).
//!
//! Why not one `BinaryHeap`: with a million instances every push of a near-term wake (a
//! crossfade's end) sifts up ~20 levels of a 16 MB heap, a cache miss per level. The wheel makes
//! near-term pushes a `Vec::push` into a bucket and lets `pop_due` touch only due buckets, so a
//! frame costs O(changes + wakes due). Entries superseded by an earlier wake stay until due
//! and are skipped then; the owner compacts the far heap when it grows past the instances.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// (tick, slot, generation).
pub(crate) type Entry = (u64, u32, u32);

/// Ticks per bucket: 2^14 ticks ≈ 15.6 ms, about one frame.
const SHIFT: u32 = 14;
/// Buckets in the wheel: 1024 × 15.6 ms ≈ 16 s ahead.
const BUCKETS: u64 = 1024;

#[derive(Debug, Clone)]
pub(crate) struct Schedule {
    buckets: Vec<Vec<Entry>>,
    /// Absolute bucket number (tick >> SHIFT) of the earliest bucket not yet drained.
    cur: u64,
    far: BinaryHeap<Reverse<Entry>>,
}

impl Default for Schedule {
    fn default() -> Self {
        Schedule {
            buckets: vec![Vec::new(); BUCKETS as usize],
            cur: 0,
            far: BinaryHeap::new(),
        }
    }
}

impl Schedule {
    pub fn push(&mut self, e: Entry) {
        let b = (e.0 >> SHIFT).max(self.cur);
        if b < self.cur + BUCKETS {
            self.buckets[(b % BUCKETS) as usize].push(e);
        } else {
            self.far.push(Reverse(e));
        }
    }

    /// Moves every entry with tick ≤ now into `out` (in no particular order).
    pub fn pop_due(&mut self, now: u64, out: &mut Vec<Entry>) {
        let last = now >> SHIFT;
        while self.cur <= last {
            // far entries that entered the wheel's window
            while let Some(&Reverse(e)) = self.far.peek() {
                if (e.0 >> SHIFT) >= self.cur + BUCKETS {
                    break;
                }
                self.far.pop();
                let b = (e.0 >> SHIFT).max(self.cur);
                self.buckets[(b % BUCKETS) as usize].push(e);
            }
            if last - self.cur >= BUCKETS {
                // A step past the whole window: everything in the wheel is due. Jump to the
                // next far entry's bucket (or to now) instead of walking every empty bucket
                // between, which a step of days would take millions of turns to do.
                for bucket in &mut self.buckets {
                    out.append(bucket);
                }
                let next_far = self.far.peek().map(|Reverse(e)| e.0 >> SHIFT);
                // far entries lie at or past cur + BUCKETS (the loop above moved the others)
                self.cur = next_far.map_or(last, |f| f.min(last)).max(self.cur + 1);
                continue;
            }
            let bucket = &mut self.buckets[(self.cur % BUCKETS) as usize];
            if self.cur < last {
                out.append(bucket);
                self.cur += 1;
            } else {
                bucket.retain(|e| {
                    if e.0 <= now {
                        out.push(*e);
                        false
                    } else {
                        true
                    }
                });
                break;
            }
        }
    }

    /// Entries in the far heap (live or stale).
    pub fn far_len(&self) -> usize {
        self.far.len()
    }

    /// Drops far entries that are no longer live.
    pub fn retain_far(&mut self, mut keep: impl FnMut(&Entry) -> bool) {
        self.far.retain(|Reverse(e)| keep(e));
    }
}
