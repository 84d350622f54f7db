//! Software prefetch for batches of random instance accesses.
//!
//! Changing 1 % of a million instances touches ~10 000 random places in arrays far larger
//! than the caches; one at a time, each costs a full memory latency. Batch operations look a
//! few items ahead and prefetch, so those latencies overlap.

/// Hints the CPU to bring the cache lines of `bytes` bytes at `p` into cache. Never faults and
/// never reads through the pointer, so any address (even dangling) is fine.
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T, bytes: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let base = p as *const i8;
        let mut off = 0;
        while off < bytes {
            // SAFETY: PREFETCHT0 is a hint: it does not fault on invalid addresses and has no
            // architectural effect, and `wrapping_add` computes the address without
            // dereferencing or asserting it is in bounds.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(base.wrapping_add(off)) };
            off += 64;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (p, bytes);
    }
}

/// Prefetches, with intent to write (PREFETCHW), every cache line overlapped by the `bytes`
/// bytes at `p` — unlike [`prefetch`], also the last line of an object that straddles a line
/// boundary (a 56 B record usually does). Never faults; any address is fine.
#[inline(always)]
pub fn prefetch_write<T>(p: *const T, bytes: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_ET0};
        let first = p as usize & !63;
        let end = (p as usize).wrapping_add(bytes.max(1));
        let base = p as *const i8;
        let mut line = first;
        while line < end {
            // SAFETY: as in `prefetch`: a hint that never faults; the address is computed
            // with `wrapping_add` and never dereferenced.
            unsafe {
                _mm_prefetch::<_MM_HINT_ET0>(base.wrapping_add(line.wrapping_sub(p as usize)))
            };
            line += 64;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (p, bytes);
    }
}

/// Writes a record with non-temporal (streaming) stores where available: the records are
/// written once per frame for the GPU upload and not read back by the CPU, so there is no
/// point reading their old cache lines in first (a plain store costs a line read + write).
/// Call [`stream_fence`] before other threads or the upload read the records.
#[inline(always)]
pub(crate) fn stream_record(dst: &mut crate::InstanceRecord, r: &crate::InstanceRecord) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_loadu_ps, _mm_stream_ps};
        let d = dst as *mut crate::InstanceRecord as *mut f32;
        let s = r as *const crate::InstanceRecord as *const f32;
        for k in 0..4 {
            // SAFETY: `dst` is a valid, exclusive reference to a 64 B record aligned to 16
            // (`#[repr(C, align(16))]`), so each 16 B store at offset 16k is in bounds and
            // aligned as MOVNTPS requires; `r` is a valid 64 B source. SSE is part of the
            // x86-64 baseline.
            unsafe { _mm_stream_ps(d.add(4 * k), _mm_loadu_ps(s.add(4 * k))) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        *dst = *r;
    }
}

/// Streams a record whose layers 2 and 3 are zero, from the two used layers held in
/// registers. (Building the record in memory and streaming it from there made each 16 B load
/// wait on the four 4 B stores that built it — a failed store-to-load forwarding per layer,
/// the largest single cost of the CPU-timed loop.) See [`stream_record`]. Public for the
/// benchmark of the update's memory floor, which must store records the way the update does.
#[inline(always)]
pub fn stream_two_layers(
    dst: &mut crate::InstanceRecord,
    a: throng_contract::Layer,
    b: throng_contract::Layer,
) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_set_ps, _mm_setzero_ps, _mm_stream_ps};
        let d = dst as *mut crate::InstanceRecord as *mut f32;
        // SAFETY: as in `stream_record`: `dst` is an exclusive, 16-aligned 64 B record, so the
        // four 16 B stores at offsets 0, 16, 32, 48 are in bounds and aligned; `_mm_set_ps`
        // takes its lanes high to low (clip, row, frac, weight = the `Layer` field order).
        unsafe {
            _mm_stream_ps(
                d,
                _mm_set_ps(f32::from_bits(a.clip), a.row, a.frac, a.weight),
            );
            _mm_stream_ps(
                d.add(4),
                _mm_set_ps(f32::from_bits(b.clip), b.row, b.frac, b.weight),
            );
            _mm_stream_ps(d.add(8), _mm_setzero_ps());
            _mm_stream_ps(d.add(12), _mm_setzero_ps());
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        *dst = crate::InstanceRecord {
            layers: [
                a,
                b,
                throng_contract::Layer::default(),
                throng_contract::Layer::default(),
            ],
        };
    }
}

/// Orders earlier streaming stores before later stores (SFENCE); a no-op elsewhere.
#[inline(always)]
pub fn stream_fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SFENCE has no memory operands and no preconditions; SSE is x86-64 baseline.
    unsafe {
        core::arch::x86_64::_mm_sfence()
    };
}
