//! The order a large batch is applied in: its changes bucketed by instance index (a stable
//! counting sort on the index's high bits), so the states a batch touches are visited in
//! ascending memory order instead of at random.
//!
//! Why: on a million instances (64 MB of state) a frame's 10,000 crossfades touch 10,000
//! random lines. Visited in ascending order, successive misses fall on nearby DRAM rows and the
//! hardware prefetchers see a forward stream; measured 0.50 → 0.30 ms per frame for the same
//! changes already sorted (docs/benchmarks.md "Playback runtime"). A comparison sort costs
//! about what it saves; a counting sort into about one bucket per change costs two short
//! sequential passes and keeps most of the gain.
//!
//! What stays the same: the changes of one instance keep their batch order (a bucket keeps
//! batch order, and an instance falls in one bucket), so every state and record is the one the
//! in-order loop leaves; errors are reported by batch index, in batch order. What may differ:
//! the order of the frame's record writes, which is unordered by contract
//! ([`super::GpuRuntime::record_writes`]).

use crate::handle::Handles;
use crate::Change;

/// Bucket counts a bucketed batch may use (powers of two), plus one bucket for dead handles.
/// A batch gets about one bucket per change: with far fewer (256 buckets of 4096 instances for
/// 10,000 changes on 1M) the visits inside a bucket stay random and the order gained nothing
/// measurable; at one per change it gained what a full sort does, for the cost of a counting
/// pass (docs/benchmarks.md "Playback runtime").
const MIN_BUCKET_BITS: u32 = 8;
const MAX_BUCKET_BITS: u32 = 16;

/// Batches shorter than this are applied in batch order: bucketing cannot pay for itself.
pub(super) const MIN_CHANGES: usize = 256;

/// Stores smaller than this (instances) are applied in batch order: 4 MiB of state mostly
/// stays in the caches, where the order does not matter.
pub(super) const MIN_INSTANCES: usize = 1 << 16;

/// Dense index of a change whose handle is dead.
pub(super) const DEAD: u32 = u32::MAX;

/// A batch's order, in buffers kept across batches (a frame allocates nothing once they have
/// grown).
#[derive(Debug, Default, Clone)]
pub(super) struct BatchOrder {
    /// Dense index of each change of the batch ([`DEAD`]: a dead handle).
    pub index: Vec<u32>,
    /// Batch indices in application order.
    pub order: Vec<u32>,
    /// Each bucket's next position in `order` (counts, then running starts).
    start: Vec<u32>,
}

impl BatchOrder {
    /// Looks up every change's instance and orders the batch by bucket (stable). `instances`
    /// is the store's length, > 0.
    pub fn build(&mut self, handles: &Handles, changes: &[Change], instances: usize) {
        // slots of the changes a few ahead, when the handle table must be read
        const AHEAD: usize = 16;
        self.index.clear();
        self.index.reserve(changes.len());
        for (k, c) in changes.iter().enumerate() {
            if let Some(n) = changes.get(k + AHEAD) {
                handles.prefetch(n.handle());
            }
            let i = handles.index(c.handle()).map_or(DEAD, |i| i as u32);
            self.index.push(i);
        }
        // the index's top bits pick the bucket: about one bucket per change
        let want = usize::BITS - changes.len().saturating_sub(1).leading_zeros();
        let bucket_bits = want.clamp(MIN_BUCKET_BITS, MAX_BUCKET_BITS);
        let buckets = 1usize << bucket_bits;
        let bits = usize::BITS - instances.saturating_sub(1).leading_zeros();
        let shift = bits.saturating_sub(bucket_bits);
        let bucket = |i: u32| {
            if i == DEAD {
                buckets
            } else {
                ((i >> shift) as usize).min(buckets - 1)
            }
        };
        let start = &mut self.start;
        start.clear();
        start.resize(buckets + 1, 0);
        for &i in &self.index {
            start[bucket(i)] += 1;
        }
        let mut sum = 0;
        for s in start.iter_mut() {
            let n = *s;
            *s = sum;
            sum += n;
        }
        self.order.clear();
        self.order.resize(changes.len(), 0);
        for (k, &i) in self.index.iter().enumerate() {
            let b = bucket(i);
            if let Some(slot) = self.order.get_mut(start[b] as usize) {
                *slot = k as u32;
            }
            start[b] += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{GpuRuntime, InstanceTransform, PlaybackControl};

    #[test]
    fn the_order_is_stable_by_bucket_and_covers_the_batch() {
        let mut rt = GpuRuntime::new(&crate::testing::synthetic_clips());
        let n = 1 << 17;
        let hs: Vec<_> = (0..n)
            .map(|_| rt.spawn(InstanceTransform::IDENTITY))
            .collect();
        let dead = hs[7];
        rt.despawn(dead).expect("live");
        let picks = [5usize, 100_000, 3, 70_000, 100_001, 7, 5, 131_000, 0];
        let changes: Vec<Change> = picks
            .iter()
            .map(|&k| {
                let c = crate::PlaybackCommand::Crossfade {
                    clip: crate::ClipId::new(1),
                    seconds: 0.25,
                    options: Default::default(),
                };
                Change::new(hs[k], c)
            })
            .collect();
        let mut o = BatchOrder::default();
        o.build(&rt.handles, &changes, rt.len());
        let mut seen = o.order.clone();
        seen.sort_unstable();
        assert_eq!(seen, (0..changes.len() as u32).collect::<Vec<_>>());
        // ascending buckets (9 changes: 256 buckets of 512 of the 2^17 instances); within a
        // bucket, batch order; the dead handle last
        let key = |k: u32| {
            let i = o.index[k as usize];
            (if i == DEAD { u32::MAX } else { i >> 9 }, k)
        };
        assert!(
            o.order.windows(2).all(|w| key(w[0]) < key(w[1])),
            "{:?}",
            o.order
        );
        assert_eq!(o.index[5], DEAD);
    }
}
