//! A step allocates nothing once its event lists have grown to a frame's events: counted by a
//! global allocator over steps of the randomised scenario (every state and transition kind).

mod common;
mod scenario_crowd;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use common::Rng;
use throng_graph::GraphCrowd;

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator unchanged, counting calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is System's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn steps_allocate_nothing_after_warm_up() {
    let n = 20_000;
    let (mut crowd, ps) = scenario_crowd::crowd(n);
    let mut rng = Rng(3);
    let frame = |crowd: &mut GraphCrowd, rng: &mut Rng| {
        for _ in 0..n / 50 {
            // grounded (the only bool) 3 times in 4: instances fall now and then
            scenario_crowd::change(crowd, &ps, rng, |r| r.below(4) != 0);
        }
        crowd.step(1.0 / 60.0);
    };
    // One worker: every allocation counted is the step's own, and there must be none. Two:
    // rayon's work-stealing deques may grow (or shrink and grow again) when a split is
    // stolen, which is rayon's bookkeeping, not the step's: printed, and bounded by one per
    // step so that a per-instance allocation (20,000 a step) still fails.
    for threads in [1, 2] {
        // a pool of its own, started before counting (its start-up allocates, not the step)
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            // warm up: the event and change lists grow to their working size
            for _ in 0..300 {
                frame(&mut crowd, &mut rng);
            }
            let before = ALLOCATIONS.load(Ordering::Relaxed);
            for _ in 0..100 {
                frame(&mut crowd, &mut rng);
            }
            let during = ALLOCATIONS.load(Ordering::Relaxed) - before;
            eprintln!("{during} allocations in 100 steps of {n} instances on {threads} threads");
            let allowed = if threads == 1 { 0 } else { 100 };
            assert!(
                during <= allowed,
                "{during} allocations in 100 steps of {n} instances on {threads} threads"
            );
        });
    }
}
