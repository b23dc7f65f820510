//! An allocator for a program to choose: the system's, except that a block of [`LARGE`] bytes
//! or more is a mapping of its own in transparent huge pages (`madvise(MADV_HUGEPAGE)`). The
//! `jobsort` binary sets it (`#[global_allocator]`), as do the examples and benches that time
//! what the binary does.
//!
//! A whole `jobsort sim` of LANL-CM5 touches about 22 MB of fresh memory (the jobs, the
//! schedule, the metrics' vectors): some 5,600 page faults of 4 KiB, each a trap into the
//! kernel that costs more than zeroing its page on a virtual machine. In 2 MiB pages the same
//! memory is a few dozen faults (docs/perf.md, "Huge pages for large blocks"). Where the
//! kernel gives no huge pages (`transparent_hugepage` set to `never`) the advice is ignored
//! and the blocks are ordinary mappings, as the system allocator makes for blocks this size.
//!
//! Which blocks are mapped here is decided by their layout alone (size at least [`LARGE`],
//! alignment at most a page), so `dealloc` and `realloc`, which get the layout the block
//! was made with, know where it came from. The library itself sets no allocator: a program
//! that embeds it keeps its own unless it names this one.

use std::alloc::{GlobalAlloc, Layout, System};

/// Blocks of this size or more are mapped in huge pages.
const LARGE: usize = 1 << 20;
/// A huge page: mappings are made in multiples of it, so that the kernel places them on its
/// boundaries and each 2 MiB of the block can be one page.
const HUGE: usize = 2 << 20;
/// The alignment a mapping has (a page).
const PAGE: usize = 4096;

/// The allocator (a unit: `#[global_allocator] static A: HugeLarge = HugeLarge;`).
pub struct HugeLarge;

fn mapped(size: usize, align: usize) -> bool {
    size >= LARGE && align <= PAGE
}

/// The mapping's length for a block of `size` bytes.
fn length(size: usize) -> usize {
    size.div_ceil(HUGE) * HUGE
}

/// A fresh mapping of `len` bytes (zeroed), advised into huge pages; null when there is none.
unsafe fn map(len: usize) -> *mut u8 {
    // SAFETY: an anonymous private mapping at an address the kernel chooses.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return std::ptr::null_mut();
    }
    advise(p, len);
    p.cast()
}

/// Huge pages for the mapping at `p` (advice: its failure changes nothing but the speed).
fn advise(p: *mut libc::c_void, len: usize) {
    // SAFETY: `p..p + len` is a mapping of ours.
    unsafe { libc::madvise(p, len, libc::MADV_HUGEPAGE) };
}

// SAFETY: blocks are either the system allocator's (every call passed through) or mappings
// of at least the layout's size at page alignment, told apart by the layout as above.
unsafe impl GlobalAlloc for HugeLarge {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if mapped(layout.size(), layout.align()) {
            unsafe { map(length(layout.size())) }
        } else {
            unsafe { System.alloc(layout) }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if mapped(layout.size(), layout.align()) {
            // A fresh anonymous mapping reads as zeros.
            unsafe { map(length(layout.size())) }
        } else {
            unsafe { System.alloc_zeroed(layout) }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if mapped(layout.size(), layout.align()) {
            // SAFETY: the mapping `alloc` or `realloc` made for this layout.
            unsafe { libc::munmap(ptr.cast(), length(layout.size())) };
        } else {
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let align = layout.align();
        match (mapped(layout.size(), align), mapped(new_size, align)) {
            (false, false) => unsafe { System.realloc(ptr, layout, new_size) },
            (true, true) => {
                let (old, new) = (length(layout.size()), length(new_size));
                if old == new {
                    return ptr;
                }
                // SAFETY: our mapping, moved or resized by the kernel (its pages are not
                // copied; its advice goes with it).
                let p = unsafe { libc::mremap(ptr.cast(), old, new, libc::MREMAP_MAYMOVE) };
                if p == libc::MAP_FAILED {
                    return std::ptr::null_mut();
                }
                advise(p, new);
                p.cast()
            }
            // Across the threshold: a new block, the bytes copied, the old one freed.
            _ => {
                // SAFETY: `new_size` is nonzero and within `isize` (realloc's contract).
                let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, align) };
                let p = unsafe { self.alloc(new_layout) };
                if !p.is_null() {
                    unsafe {
                        std::ptr::copy_nonoverlapping(ptr, p, layout.size().min(new_size));
                        self.dealloc(ptr, layout);
                    }
                }
                p
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks below, at and across the threshold keep their bytes through every kind of
    /// `realloc`, and the fresh part of a mapped `alloc_zeroed` reads as zeros.
    #[test]
    fn blocks_keep_their_bytes_across_the_threshold() {
        let a = HugeLarge;
        unsafe {
            let sizes = [
                100,
                LARGE - 1,
                LARGE,
                LARGE + 1,
                3 * LARGE + 5,
                64,
                5 * LARGE,
            ];
            let mut layout = Layout::from_size_align(sizes[0], 8).unwrap();
            let p0 = a.alloc(layout);
            assert!(!p0.is_null());
            std::ptr::write_bytes(p0, 0xa5, layout.size());
            let mut p = p0;
            for &size in &sizes[1..] {
                let kept = layout.size().min(size);
                let q = a.realloc(p, layout, size);
                assert!(!q.is_null());
                for i in (0..kept).step_by(4093).chain([kept - 1]) {
                    assert_eq!(*q.add(i), 0xa5, "byte {i} of {size}");
                }
                std::ptr::write_bytes(q, 0xa5, size);
                layout = Layout::from_size_align(size, 8).unwrap();
                p = q;
            }
            a.dealloc(p, layout);
            let z = Layout::from_size_align(LARGE + 12345, 16).unwrap();
            let p = a.alloc_zeroed(z);
            assert!((0..z.size()).step_by(1000).all(|i| *p.add(i) == 0));
            a.dealloc(p, z);
            // An alignment above a page goes to the system allocator, whatever the size.
            let big = Layout::from_size_align(LARGE, 2 * PAGE).unwrap();
            let p = a.alloc(big);
            assert_eq!(p as usize % (2 * PAGE), 0);
            a.dealloc(p, big);
        }
    }
}
