//! Large instance arrays on transparent huge pages (Linux), for random access.
//!
//! A frame's changes touch ~10 000 random instances of arrays of 10–130 MB. With 4 KiB pages
//! every one of those accesses also misses the TLB (a few thousand entries cover only a few
//! MB) and pays a page walk — under virtualisation a two-level one. 2 MiB pages let the TLB
//! cover the whole store: measured ~20 % off a batch of 10 000 crossfades on 1M instances.
//! Linux backs a region with huge pages at first touch if it is advised so (`MADV_HUGEPAGE`,
//! needed where `/sys/kernel/mm/transparent_hugepage/enabled` is `madvise`), so the arrays
//! grow through [`reserve`]: a fresh allocation is advised before anything is written to it.
//! Elsewhere (and for small arrays) this is a plain `Vec::reserve`.

/// Arrays smaller than this stay on ordinary pages (bytes).
const MIN_BYTES: usize = 4 << 20;

/// Reserves room for `additional` more items; a large array grows (to at least twice its
/// capacity) into a fresh allocation advised for huge pages.
pub fn reserve<T: Copy>(v: &mut Vec<T>, additional: usize) {
    if v.capacity() - v.len() >= additional {
        return;
    }
    let want = (v.len() + additional).max(2 * v.capacity()).max(64);
    if want.saturating_mul(std::mem::size_of::<T>()) < MIN_BYTES {
        v.reserve(want - v.len());
        return;
    }
    let mut fresh: Vec<T> = Vec::with_capacity(want);
    advise(&fresh);
    fresh.extend_from_slice(v);
    *v = fresh;
}

/// Advises the 2 MiB-aligned interior of `v`'s allocation for huge pages (no-op elsewhere).
fn advise<T>(v: &Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = v.as_ptr() as usize;
        let bytes = v.capacity() * std::mem::size_of::<T>();
        let first = start.next_multiple_of(HUGE);
        let end = (start + bytes) & !(HUGE - 1);
        if end > first {
            // SAFETY: the range lies inside `v`'s live allocation; MADV_HUGEPAGE changes only
            // how the kernel backs those pages, never their contents or validity. A failure
            // (e.g. THP disabled) leaves ordinary pages, which is fine.
            unsafe {
                libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = v;
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn reserve_keeps_contents_and_grows() {
        let mut v: Vec<u64> = (0..1000).collect();
        super::reserve(&mut v, 1 << 20);
        assert!(v.capacity() >= 1000 + (1 << 20));
        assert_eq!(v, (0..1000).collect::<Vec<u64>>());
        let cap = v.capacity();
        super::reserve(&mut v, 10);
        assert_eq!(v.capacity(), cap, "room left: no reallocation");
        let mut w: Vec<u8> = vec![1, 2, 3];
        super::reserve(&mut w, 1);
        assert_eq!(w, vec![1, 2, 3]);
    }
}
