//! Statuses, the per-thread last error, and the guard every entry point runs in: it clears
//! the last error, catches panics and records a failure's status and message.

use super::c_text::c_string;
use std::cell::{Cell, RefCell};
use std::ffi::{CStr, CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// The result of a C ABI call. `JOBSORT_STATUS_OK` (0) is success; every other value is a
/// failure whose details are in [`jobsort_last_error`].
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JobsortStatus {
    /// Success.
    Ok = 0,
    /// A required pointer argument is `NULL`.
    NullArgument = 1,
    /// An argument has an invalid value (unknown flag bits, a malformed resource name, ...).
    InvalidArgument = 2,
    /// A string argument is not valid UTF-8.
    InvalidUtf8 = 3,
    /// The formula did not compile; the diagnostics say why and where.
    InvalidFormula = 4,
    /// The formula reads no column of that name.
    UnknownColumn = 5,
    /// The resource type is not one of long, float, size, time, boolean, string, string_array.
    UnknownResourceType = 6,
    /// `n` is 0: there are no jobs (nothing was written).
    NoJobs = 7,
    /// An index is past the end of its list.
    IndexOutOfRange = 8,
    /// A value that must be finite is an infinity or NaN (a value `jobsort_rank` ranks may be
    /// infinite, never NaN).
    NotFinite = 9,
    /// A handle argument is not a live handle of the expected kind.
    WrongHandle = 10,
    /// An internal error (a caught panic); please report it.
    Panic = 11,
    /// Memory for the call's own working data could not be allocated (nothing was written).
    OutOfMemory = 12,
}

/// Every status, in code order.
const ALL_STATUSES: [JobsortStatus; 13] = [
    JobsortStatus::Ok,
    JobsortStatus::NullArgument,
    JobsortStatus::InvalidArgument,
    JobsortStatus::InvalidUtf8,
    JobsortStatus::InvalidFormula,
    JobsortStatus::UnknownColumn,
    JobsortStatus::UnknownResourceType,
    JobsortStatus::NoJobs,
    JobsortStatus::IndexOutOfRange,
    JobsortStatus::NotFinite,
    JobsortStatus::WrongHandle,
    JobsortStatus::Panic,
    JobsortStatus::OutOfMemory,
];

impl JobsortStatus {
    /// The fixed description of the status.
    pub fn message(self) -> &'static CStr {
        match self {
            JobsortStatus::Ok => c"success",
            JobsortStatus::NullArgument => c"a required pointer argument is NULL",
            JobsortStatus::InvalidArgument => c"an argument has an invalid value",
            JobsortStatus::InvalidUtf8 => c"a string argument is not valid UTF-8",
            JobsortStatus::InvalidFormula => c"the formula has errors (see its diagnostics)",
            JobsortStatus::UnknownColumn => c"the formula reads no column of that name",
            JobsortStatus::UnknownResourceType => c"unknown resource type",
            JobsortStatus::NoJobs => c"n is 0: there are no jobs",
            JobsortStatus::IndexOutOfRange => c"index out of range",
            JobsortStatus::NotFinite => c"a value is not finite",
            JobsortStatus::WrongHandle => c"not a live handle of the expected kind",
            JobsortStatus::Panic => c"internal error (caught panic)",
            JobsortStatus::OutOfMemory => c"out of memory",
        }
    }
}

// The last-error state and the panic guard.

thread_local! {
    static LAST_STATUS: Cell<JobsortStatus> = const { Cell::new(JobsortStatus::Ok) };
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// Why a call failed: a status and the detailed message.
pub(super) struct Failure {
    status: JobsortStatus,
    message: String,
}

impl Failure {
    pub(super) fn new(status: JobsortStatus, message: impl Into<String>) -> Failure {
        Failure {
            status,
            message: message.into(),
        }
    }
    pub(super) fn null(what: &str) -> Failure {
        Failure::new(JobsortStatus::NullArgument, format!("`{what}` is NULL"))
    }
    /// The detailed message (without the function's name).
    #[cfg(test)]
    pub(super) fn message(&self) -> &str {
        &self.message
    }
    /// `what` (the call's own working memory) could not be allocated.
    pub(super) fn out_of_memory(what: &str) -> Failure {
        Failure::new(
            JobsortStatus::OutOfMemory,
            format!("out of memory: cannot allocate {what}"),
        )
    }
}

// The thread-locals are reached with `try_with`: during thread teardown (a call from a TLS
// destructor) they may be gone, and that must not panic outside the guard.

fn clear_last_error() {
    let _ = LAST_STATUS.try_with(|s| s.set(JobsortStatus::Ok));
    let _ = LAST_ERROR.try_with(|e| {
        if let Ok(mut e) = e.try_borrow_mut() {
            *e = CString::default();
        }
    });
}

fn set_last_error(function: &str, failure: &Failure) {
    let _ = LAST_STATUS.try_with(|s| s.set(failure.status));
    let _ = LAST_ERROR.try_with(|e| {
        if let Ok(mut e) = e.try_borrow_mut() {
            *e = c_string(&format!("{function}: {}", failure.message));
        }
    });
}

/// Run `body` for the entry point `function`: clear the last error, catch any panic, record
/// a failure; the failure's status is returned as the error.
fn run<T>(function: &str, body: impl FnOnce() -> Result<T, Failure>) -> Result<T, JobsortStatus> {
    clear_last_error();
    let failure = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(v)) => return Ok(v),
        Ok(Err(f)) => f,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Failure::new(
                JobsortStatus::Panic,
                format!("internal error (caught panic): {what}"),
            )
        }
    };
    // Even formatting the message must not unwind out of an `extern "C"` function.
    if catch_unwind(AssertUnwindSafe(|| set_last_error(function, &failure))).is_err() {
        let _ = LAST_STATUS.try_with(|s| s.set(failure.status));
    }
    Err(failure.status)
}

/// [`run`] for entry points that return a value (`on_failure` when the call failed).
pub(super) fn guard<T>(
    function: &str,
    on_failure: T,
    body: impl FnOnce() -> Result<T, Failure>,
) -> T {
    run(function, body).unwrap_or(on_failure)
}

/// [`run`] for entry points that return a status.
pub(super) fn guard_status(
    function: &str,
    body: impl FnOnce() -> Result<(), Failure>,
) -> JobsortStatus {
    match run(function, body) {
        Ok(()) => JobsortStatus::Ok,
        Err(status) => status,
    }
}

/// The library version, e.g. `"0.1.0"` (a static string; do not free).
#[unsafe(no_mangle)]
pub extern "C" fn jobsort_version() -> *const c_char {
    const VERSION: &CStr =
        match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
            Ok(v) => v,
            Err(_) => c"unknown",
        };
    VERSION.as_ptr()
}

/// The fixed description of a status code (a static string; do not free). An unknown code
/// gives `"unknown status code"`.
#[unsafe(no_mangle)]
pub extern "C" fn jobsort_error_message(status: i32) -> *const c_char {
    ALL_STATUSES
        .iter()
        .find(|s| **s as i32 == status)
        .map_or(c"unknown status code", |s| s.message())
        .as_ptr()
}

/// The detailed message of the most recent failed jobsort call on this thread, naming the
/// function and the argument (e.g. ``"jobsort_eval: `out` is NULL"``), or `""` when the most
/// recent call succeeded. Valid until the next jobsort call on this thread; do not free.
#[unsafe(no_mangle)]
pub extern "C" fn jobsort_last_error() -> *const c_char {
    LAST_ERROR
        .try_with(|e| e.try_borrow().map(|e| e.as_ptr()).ok())
        .ok()
        .flatten()
        .unwrap_or(c"".as_ptr())
}

/// The status of the most recent jobsort call on this thread (`JOBSORT_STATUS_OK` when it
/// succeeded). Useful after a constructor returned `NULL`.
#[unsafe(no_mangle)]
pub extern "C" fn jobsort_last_status() -> JobsortStatus {
    LAST_STATUS.try_with(Cell::get).unwrap_or(JobsortStatus::Ok)
}

/// The last error of this thread, for the unit tests of every entry point.
#[cfg(test)]
pub(super) fn last_error() -> String {
    // SAFETY: the pointer is valid until the next call on this thread.
    unsafe { CStr::from_ptr(jobsort_last_error()) }
        .to_string_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_has_a_distinct_code_and_message() {
        for (i, s) in ALL_STATUSES.iter().enumerate() {
            assert_eq!(*s as i32, i as i32);
            // SAFETY: static strings.
            let m = unsafe { CStr::from_ptr(jobsort_error_message(i as i32)) };
            assert_eq!(m, s.message());
        }
        // SAFETY: static string.
        let unknown = unsafe { CStr::from_ptr(jobsort_error_message(-1)) };
        assert_eq!(unknown, c"unknown status code");
        // SAFETY: static string.
        let past_the_last = unsafe { CStr::from_ptr(jobsort_error_message(13)) };
        assert_eq!(past_the_last, c"unknown status code");
    }

    #[test]
    fn version_is_the_crate_version() {
        // SAFETY: static string.
        let v = unsafe { CStr::from_ptr(jobsort_version()) };
        assert_eq!(v.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
    }

    #[test]
    fn panics_become_a_status() {
        let s = guard_status("jobsort_test", || panic!("boom"));
        assert_eq!(s, JobsortStatus::Panic);
        assert_eq!(
            last_error(),
            "jobsort_test: internal error (caught panic): boom"
        );
        assert_eq!(guard_status("jobsort_test", || Ok(())), JobsortStatus::Ok);
        assert_eq!(last_error(), "");
    }

    #[test]
    fn out_of_memory_is_a_status_with_a_message() {
        let s = guard_status("jobsort_test", || {
            Err(Failure::out_of_memory("the column list"))
        });
        assert_eq!(s, JobsortStatus::OutOfMemory);
        assert_eq!(jobsort_last_status(), JobsortStatus::OutOfMemory);
        assert_eq!(
            last_error(),
            "jobsort_test: out of memory: cannot allocate the column list"
        );
    }
}
