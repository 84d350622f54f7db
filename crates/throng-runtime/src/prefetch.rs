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
