//! Code memory that is recycled, never unmapped (x86-64 Linux).
//!
//! Cranelift's default provider `munmap`s a module's pages in `free_memory`, so the next
//! kernel is usually mapped at the very same virtual address on a *new* physical page. A
//! stale instruction translation for that address (the CPU or, under nested virtualisation,
//! the hypervisor missing a TLB shootdown) then runs the previous kernel's bytes — which, for
//! two formulas of the same shape, computes the other formula's value (the once-seen flake:
//! `(1 % 1.5) or 0` giving 0, the value of `(1 // 1.5) or 0` or `(0 % 1.5) or 0`, both
//! compiled just before it while proptest shrank). Recycling keeps every code address bound
//! to the same physical page for the life of the process: a page is only rewritten (after
//! `mprotect` RW, then RX again, which x86 keeps coherent for the same address space) once
//! the kernel that used it is gone. Memory stays bounded by the peak of live kernels; it also
//! saves the `mmap`/`munmap` and page faults of every compile.

use cranelift_jit::{BranchProtection, JITMemoryKind, JITMemoryProvider};
use cranelift_module::{ModuleError, ModuleResult};
use libc::{MAP_ANONYMOUS, MAP_FAILED, MAP_PRIVATE, PROT_EXEC, PROT_READ, PROT_WRITE, c_int};
use std::io;
use std::sync::Mutex;

const PAGE: usize = 4096;

/// A page-aligned run of pages: `(address, length)`.
#[derive(Clone, Copy)]
struct Chunk(usize, usize);

/// Chunks whose kernels are gone, ready for reuse (never returned to the OS).
static FREE: Mutex<Vec<Chunk>> = Mutex::new(Vec::new());

fn protect(c: Chunk, prot: c_int) -> io::Result<()> {
    // SAFETY: `c` is a whole-page range this pool mapped and owns exclusively.
    if unsafe { libc::mprotect(c.0 as *mut libc::c_void, c.1, prot) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// The memory of one `JITModule`: chunks taken from the pool (or freshly mapped).
#[derive(Default)]
pub(super) struct PooledMemory {
    chunks: Vec<Chunk>,
    /// Bytes used in the last chunk.
    used: usize,
    /// Chunks `..finalized` are read+execute already.
    finalized: usize,
}

impl PooledMemory {
    fn take_chunk(&mut self, size: usize) -> io::Result<Chunk> {
        let len = size.div_ceil(PAGE).max(1) * PAGE;
        let reused = {
            let mut free = FREE.lock().unwrap_or_else(|p| p.into_inner());
            free.iter()
                .position(|c| c.1 >= len)
                .map(|k| free.swap_remove(k))
        };
        let chunk = match reused {
            Some(c) => {
                if let Err(e) = protect(c, PROT_READ | PROT_WRITE) {
                    FREE.lock().unwrap_or_else(|p| p.into_inner()).push(c);
                    return Err(e);
                }
                c
            }
            None => {
                // SAFETY: a fresh private anonymous mapping; no existing memory is touched.
                let p = unsafe {
                    libc::mmap(
                        std::ptr::null_mut(),
                        len,
                        PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS,
                        -1,
                        0,
                    )
                };
                if p == MAP_FAILED || p.is_null() {
                    return Err(io::Error::last_os_error());
                }
                Chunk(p as usize, len)
            }
        };
        self.chunks.push(chunk);
        self.used = 0;
        Ok(chunk)
    }

    fn release(&mut self) {
        let mut free = FREE.lock().unwrap_or_else(|p| p.into_inner());
        free.append(&mut self.chunks);
        self.used = 0;
        self.finalized = 0;
    }
}

impl JITMemoryProvider for PooledMemory {
    fn allocate(&mut self, size: usize, align: u64, kind: JITMemoryKind) -> io::Result<*mut u8> {
        if matches!(kind, JITMemoryKind::Writable) {
            // Kernels define no data objects; writable memory would become read-only.
            return Err(io::Error::other("the formula JIT has no writable data"));
        }
        let align = usize::try_from(align).unwrap_or(usize::MAX);
        if align == 0 || !align.is_power_of_two() || align > PAGE {
            return Err(io::Error::other("unsupported alignment"));
        }
        let open = self.chunks.len() > self.finalized;
        if let (true, Some(&c)) = (open, self.chunks.last()) {
            let at = self.used.div_ceil(align) * align;
            if at + size <= c.1 {
                self.used = at + size;
                return Ok((c.0 + at) as *mut u8);
            }
        }
        let c = self.take_chunk(size)?;
        self.used = size;
        Ok(c.0 as *mut u8)
    }

    unsafe fn free_memory(&mut self) {
        self.release();
    }

    fn finalize(&mut self, _: BranchProtection) -> ModuleResult<()> {
        for &c in &self.chunks[self.finalized..] {
            protect(c, PROT_READ | PROT_EXEC).map_err(|err| ModuleError::Allocation { err })?;
        }
        self.finalized = self.chunks.len();
        Ok(())
    }
}

impl Drop for PooledMemory {
    /// Only reached without `free_memory` when compilation failed, before any code could
    /// run; the chunks are then safe to recycle.
    fn drop(&mut self) {
        self.release();
    }
}
