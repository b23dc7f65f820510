//! Checking what C hands in (strings, out-pointers, lengths).

use super::status::{Failure, JobsortStatus};
use std::ffi::{CStr, c_char};

/// # Safety
/// `p` is NULL or a NUL-terminated string.
pub(super) unsafe fn str_arg<'a>(p: *const c_char, what: &str) -> Result<&'a str, Failure> {
    if p.is_null() {
        return Err(Failure::null(what));
    }
    // SAFETY: non-null and NUL-terminated (caller contract).
    let bytes = unsafe { CStr::from_ptr(p) };
    bytes.to_str().map_err(|e| {
        Failure::new(
            JobsortStatus::InvalidUtf8,
            format!(
                "`{what}` is not valid UTF-8 (invalid byte at offset {})",
                e.valid_up_to()
            ),
        )
    })
}

/// Write through an out-pointer after checking it.
///
/// # Safety
/// `p` is NULL or valid for a write of `T`.
pub(super) unsafe fn write_out<T>(p: *mut T, what: &str, value: T) -> Result<(), Failure> {
    if p.is_null() {
        return Err(Failure::null(what));
    }
    // SAFETY: non-null and writable (caller contract).
    unsafe { p.write(value) };
    Ok(())
}

pub(super) fn check_len(n: usize) -> Result<(), Failure> {
    if n == 0 {
        return Err(Failure::new(
            JobsortStatus::NoJobs,
            "n is 0: there are no jobs",
        ));
    }
    if n > isize::MAX as usize / size_of::<f64>() {
        return Err(Failure::new(
            JobsortStatus::InvalidArgument,
            format!("n = {n} is too large"),
        ));
    }
    Ok(())
}

/// The bytes `[start, end)` of an array argument, to refuse overlapping ones.
#[derive(Clone, Copy)]
pub(super) struct Bytes {
    start: usize,
    end: usize,
}

impl Bytes {
    /// The `n` elements at `p` (`n * size_of::<T>()` fits: `check_len`).
    pub(super) fn of<T>(p: *const T, n: usize) -> Bytes {
        let start = p as usize;
        Bytes {
            start,
            end: start.saturating_add(n * size_of::<T>()),
        }
    }

    pub(super) fn overlaps(self, other: Bytes) -> bool {
        self.start < other.end && other.start < self.end
    }
}
