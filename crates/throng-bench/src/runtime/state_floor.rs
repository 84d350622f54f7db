//! The memory floor of a CPU-timed update: the bytes it cannot avoid moving, moved with next to
//! no arithmetic, in the same parallel chunks (`BenchReport::state_floor_ms`).
//!
//! A CPU-timed update of an instance on its fast path reads its 8 B header and, per active
//! layer, its 8 B position and 16 B constants (clip, speed, weight, slow-path mark); it writes
//! each position back and streams the 64 B record. memset writes only the 64 B: at 2 layers the
//! update moves 56 B more read and 16 B more written per instance, which no arithmetic can hide
//! once memory bandwidth is the limit. This loop moves exactly those bytes, so `frame / floor`
//! says how far the update is from what its data layout allows, and `floor / memset` what that
//! layout costs.

use rayon::prelude::*;
use throng_runtime::prefetch::{stream_fence, stream_two_layers};
use throng_runtime::{InstanceRecord, Layer, CHUNK};

/// Arrays shaped as a CPU-timed runtime's fast-path state, allocated once per run.
pub(super) struct StateFloor {
    meta: Vec<u64>,
    pos: Vec<Vec<f64>>,
    cold: Vec<Vec<[u32; 4]>>,
}

impl StateFloor {
    /// State of `n` instances with `layers` active layers (1 or 2).
    pub fn new(n: usize, layers: u32) -> StateFloor {
        let layers = layers.clamp(1, 2) as usize;
        StateFloor {
            meta: (0..n as u64).collect(),
            pos: (0..layers).map(|l| vec![l as f64; n]).collect(),
            cold: (0..layers)
                .map(|l| vec![[l as u32, 1.0f32.to_bits(), 0.5f32.to_bits(), 0]; n])
                .collect(),
        }
    }

    /// One pass over the state writing `records` (the same length); returns milliseconds.
    pub fn run(&mut self, records: &mut [InstanceRecord], dt: f64) -> f64 {
        let t = std::time::Instant::now();
        let meta = &self.meta;
        let (cold0, cold1) = match &self.cold[..] {
            [a] => (a, None),
            [a, b, ..] => (a, Some(b)),
            [] => return 0.0,
        };
        let (pos0, pos1) = match &mut self.pos[..] {
            [a] => (a, None),
            [a, b, ..] => (a, Some(b)),
            [] => return 0.0,
        };
        let mut pos1 = pos1.map(|p| p.as_mut_slice());
        let chunks = records.len().div_ceil(CHUNK);
        // the same chunking as the runtime: each task owns a CHUNK of every array
        let mut tasks = Vec::with_capacity(chunks);
        let mut rest0 = pos0.as_mut_slice();
        for (k, rec) in records.chunks_mut(CHUNK).enumerate() {
            let n = rec.len();
            let (p0, r0) = std::mem::take(&mut rest0).split_at_mut(n);
            rest0 = r0;
            let p1 = pos1.take().map(|p| {
                let (a, b) = p.split_at_mut(n);
                pos1 = Some(b);
                a
            });
            tasks.push((k * CHUNK, rec, p0, p1));
        }
        tasks.into_par_iter().for_each(|(base, rec, p0, mut p1)| {
            let n = rec.len();
            let m = &meta[base..base + n];
            let c0 = &cold0[base..base + n];
            let c1 = cold1.map(|c| &c[base..base + n]);
            for j in 0..n {
                let h = m[j] as u32;
                let a = c0[j];
                p0[j] += dt;
                let mut words = [h, a[0], a[1], a[2], p0[j] as f32 as u32, 0, 0, 0];
                if let (Some(p1), Some(c1)) = (p1.as_deref_mut(), c1) {
                    let b = c1[j];
                    p1[j] += dt;
                    words[5] = b[0] ^ b[1];
                    words[6] = b[2];
                    words[7] = p1[j] as f32 as u32;
                }
                let [l0, l1]: [Layer; 2] = bytemuck::cast(words);
                stream_two_layers(&mut rec[j], l0, l1);
            }
            stream_fence();
        });
        t.elapsed().as_secs_f64() * 1e3
    }
}
