//! A counting allocator for the memory tests: this test binary counts every byte its heap
//! holds, and [`peak_during`] gives the most held at once while a closure runs, above what was
//! held before it. Bytes, not time: the tests that use it assert structure (what is never
//! held), not speed.
//!
//! The counters are the whole process's, so the binary's tests run one at a time: each holds
//! [`alone`] for its whole run (its set-up allocates too), and [`peak_during`] refuses to
//! measure without it.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        // SAFETY: forwarded as given.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded as given.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // Old and new block both live while the bytes move: count the new one first.
        let live = LIVE.fetch_add(new_size, Ordering::Relaxed) + new_size;
        PEAK.fetch_max(live, Ordering::Relaxed);
        // SAFETY: forwarded as given.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

static ALONE: Mutex<()> = Mutex::new(());

thread_local! {
    /// Whether this thread (a test's) holds [`ALONE`].
    static HELD: Cell<bool> = const { Cell::new(false) };
}

/// While alive, no other test of this binary runs (each takes one first).
pub struct Alone(#[allow(dead_code)] MutexGuard<'static, ()>);

impl Drop for Alone {
    fn drop(&mut self) {
        HELD.set(false);
    }
}

/// Wait until no other test of this binary runs; hold the result for the whole test. A test
/// that failed while holding it does not stop the others.
pub fn alone() -> Alone {
    let guard = ALONE.lock().unwrap_or_else(PoisonError::into_inner);
    HELD.set(true);
    Alone(guard)
}

/// The result of `f` and the most heap it held at once beyond what was held before. The
/// calling test must hold [`alone`] on its thread (tests run in parallel threads and share
/// the counters).
pub fn peak_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    assert!(
        HELD.get(),
        "a test that measures the heap holds heap::alone() for its whole run"
    );
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let r = f();
    (r, PEAK.load(Ordering::Relaxed).saturating_sub(before))
}
