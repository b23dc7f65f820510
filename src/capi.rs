//! The C ABI: compile a formula once, evaluate it over arrays of job columns every
//! scheduling cycle, rank the values — from C, C++ or anything that can call C.
//!
//! The header `include/jobsort.h` is generated from this file by cbindgen (see `build.rs`);
//! the library is built as `libjobsort.so` (cdylib) and `libjobsort.a` (staticlib). A
//! complete C program is `examples/c/scheduler.c`.
//!
//! # Handles
//! Three opaque handle types, each created and freed by the library:
//! [`JobsortCatalog`] (the names a formula may use: PBS keywords, PBS built-in resources and
//! custom resources), [`JobsortFormula`] (a compiled formula) and [`JobsortDiagnostics`]
//! (what the checker found). Freeing `NULL` is a no-op. Each handle carries a tag that the
//! entry points check, so passing one kind of handle where another is expected returns
//! [`JobsortStatus::WrongHandle`] instead of misbehaving (a freed or forged pointer is still
//! undefined behaviour, as with any C library).
//!
//! # Errors
//! Every entry point checks its arguments (null pointers, `n = 0`, unknown names, indices out
//! of range, invalid UTF-8, non-finite values) and returns a [`JobsortStatus`] (or `NULL`
//! for the constructors). The detailed message of the most recent failed call on the calling
//! thread is [`jobsort_last_error`] (for example ``jobsort_eval: columns[1] (column
//! `fairshare_perc`) is NULL``); [`jobsort_last_status`] is its code and
//! [`jobsort_error_message`] the fixed description of a code. Each call clears the last error
//! when it starts. A Rust panic never crosses the boundary: it is caught and reported as
//! [`JobsortStatus::Panic`] (the panic hook of the process may still print it to stderr).
//!
//! Formula errors are data: [`jobsort_compile`] hands back a [`JobsortDiagnostics`] list with,
//! for each finding, its severity, stable code (`E0101`), message and byte span in the
//! formula text. Per-job evaluation errors (division by zero, math domain error, ...) are not
//! call failures: the job gets the value 0 (PBS policy) and a non-zero code in the `errors`
//! array, described by [`jobsort_eval_error_message`].
//!
//! # Thread safety
//! A compiled formula is immutable: any number of threads may call [`jobsort_eval`] and the
//! column accessors on the same [`JobsortFormula`] at once (it is `Send + Sync`). A catalog
//! may be read by several concurrent [`jobsort_compile`] calls, but
//! [`jobsort_catalog_add_resource`] must not run concurrently with any other use of that
//! catalog. Diagnostics lists are read-only after creation. The last-error state is per
//! thread. Freeing a handle while another thread uses it is, as always, a bug of the caller.
//!
//! Large job sets are evaluated in parallel on a process-wide thread pool (rayon's global
//! pool; `RAYON_NUM_THREADS` sets its size), started by the first large evaluation and kept
//! until the process exits (a leak checker lists its worker threads as "still reachable" /
//! "possibly lost" at exit; nothing grows per call). As with any library that owns threads,
//! a process that `fork`s after that point must not call jobsort in the child (exec first).
//!
//! # The Rust API it wraps
//! Each C entry point is a thin, checked layer over the Rust API, with the same results bit
//! for bit: [`jobsort_catalog_new`] / [`jobsort_catalog_add_resource`] are
//! [`Catalog::pbs`] / [`Catalog::with_resource`]; [`jobsort_compile`] is [`Formula::compile`]
//! (the diagnostics are [`crate::Diagnostics`]); [`jobsort_eval`] is
//! [`CompiledFormula::evaluate_columns`] (or [`CompiledFormula::evaluate`] over a
//! [`crate::JobTable`]); [`jobsort_rank`] is [`crate::rank::rank`].
//!
//! ```
//! use jobsort::rank::{RankOptions, TieBreak, rank};
//! use jobsort::{Catalog, Formula, JobTable, ResourceType};
//!
//! // The names a formula may use: PBS's keywords and built-in resources, plus custom ones.
//! let catalog = Catalog::pbs().with_resource("gpu_hours", ResourceType::Float);
//!
//! // Errors are data: a stable code, a message and the byte span.
//! let source = "ncpus * gpu_hourz";
//! let errors = Formula::compile(source, &catalog).unwrap_err();
//! let first = errors.iter().find(|d| d.is_error()).unwrap();
//! assert_eq!(&source[first.span.start..first.span.end], "gpu_hourz");
//!
//! // Compile once, keep it across scheduling cycles (it is Send + Sync).
//! let formula = Formula::compile("ncpus + 10 * gpu_hours / walltime", &catalog)?;
//!
//! // Jobs as columns; a column the table lacks reads as 0 (PBS: resource not requested).
//! let mut jobs = JobTable::new(3)
//!     .with_column("ncpus", vec![4.0, 16.0, 1.0])?
//!     .with_column("gpu_hours", vec![2.0, 0.0, 8.0])?
//!     .with_column("walltime", vec![3600.0, 7200.0, 0.0])?;
//! let evaluation = formula.evaluate(&jobs);
//! // Job 2 divides by zero: value 0 (PBS policy) and the error, per job.
//! assert_eq!(evaluation.values[2], 0.0);
//! assert_eq!(evaluation.error(2).map(|e| e.message()), Some("float division by zero"));
//!
//! // Rank: value descending, ties by submission order.
//! let ranked = rank(&evaluation.values, TieBreak::default(), &RankOptions::default());
//! assert_eq!(ranked.iter().map(|r| r.index).collect::<Vec<_>>(), [1, 0, 2]);
//!
//! // Next cycle: update the table in place and evaluate again.
//! jobs.column_mut("walltime").unwrap()[2] = 60.0;
//! let evaluation = formula.evaluate(&jobs);
//! assert_eq!(evaluation.error_count(), 0);
//! assert_eq!(evaluation.values[2], 1.0 + 80.0 / 60.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Example (the C calls, made from Rust)
//! ```
//! use jobsort::capi::*;
//! use std::ffi::{CStr, c_char};
//! use std::ptr;
//!
//! unsafe {
//!     let catalog = jobsort_catalog_new();
//!     let mut diags: *mut JobsortDiagnostics = ptr::null_mut();
//!     let formula = jobsort_compile(c"ncpus * 2 + walltime / 3600".as_ptr(), catalog, &mut diags);
//!     assert!(!formula.is_null());
//!
//!     // Bind the columns once: which input is `ncpus`?
//!     let mut k = 0usize;
//!     assert_eq!(jobsort_column_index(formula, c"ncpus".as_ptr(), &mut k), JobsortStatus::Ok);
//!     let mut count = 0usize;
//!     jobsort_column_count(formula, &mut count);
//!     assert_eq!(count, 2);
//!
//!     let ncpus = [4.0, 1.0, 8.0];
//!     let walltime = [7200.0, 3600.0, 0.0];
//!     let mut columns: [*const f64; 2] = [ptr::null(); 2];
//!     columns[k] = ncpus.as_ptr();
//!     columns[1 - k] = walltime.as_ptr();
//!
//!     let (mut values, mut errors) = ([0.0f64; 3], [0u8; 3]);
//!     let status = jobsort_eval(formula, columns.as_ptr(), 3, values.as_mut_ptr(), errors.as_mut_ptr());
//!     assert_eq!(status, JobsortStatus::Ok);
//!     assert_eq!(values, [10.0, 3.0, 16.0]);
//!     assert_eq!(errors, [0, 0, 0]);
//!
//!     let mut order = [0usize; 3];
//!     jobsort_rank(values.as_ptr(), 3, ptr::null(), order.as_mut_ptr());
//!     assert_eq!(order, [2, 0, 1]);
//!
//!     // Bad arguments are error codes, never crashes.
//!     assert_eq!(jobsort_eval(ptr::null(), columns.as_ptr(), 3, values.as_mut_ptr(), errors.as_mut_ptr()),
//!                JobsortStatus::NullArgument);
//!     let msg = CStr::from_ptr(jobsort_last_error()).to_str().unwrap();
//!     assert_eq!(msg, "jobsort_eval: `formula` is NULL");
//!
//!     jobsort_diagnostics_free(diags);
//!     jobsort_free(formula);
//!     jobsort_catalog_free(catalog);
//! }
//! ```

use crate::catalog::{Catalog, Input, ResourceType};
use crate::formula::diag::{Diagnostic, Severity};
use crate::formula::pymath::EvalError;
use crate::formula::{CompileOptions, CompiledFormula, Engine, Formula};
use crate::rank::{RankOptions, TieBreak, rank};
use std::cell::{Cell, RefCell};
use std::ffi::{CStr, CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr;

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
    /// A value that must be finite is an infinity or NaN.
    NotFinite = 9,
    /// A handle argument is not a live handle of the expected kind.
    WrongHandle = 10,
    /// An internal error (a caught panic); please report it.
    Panic = 11,
}

/// Every status, in code order.
const ALL_STATUSES: [JobsortStatus; 12] = [
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
        }
    }
}

/// Severity of a diagnostic.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JobsortSeverity {
    /// A remark or suggestion.
    Note = 0,
    /// A likely problem; the formula still compiles (unless warnings are denied).
    Warning = 1,
    /// The formula does not compile.
    Error = 2,
}

impl From<Severity> for JobsortSeverity {
    fn from(s: Severity) -> JobsortSeverity {
        match s {
            Severity::Note => JobsortSeverity::Note,
            Severity::Warning => JobsortSeverity::Warning,
            Severity::Error => JobsortSeverity::Error,
        }
    }
}

/// [`jobsort_compile_with`] flag: evaluate with the reference interpreter instead of the JIT
/// (the results are bit-identical; the JIT is faster).
pub const JOBSORT_COMPILE_INTERP: u32 = 1;
/// [`jobsort_compile_with`] flag: PBS compatibility (`--compat pbs`): inputs rounded as PBS
/// passes them, results stored as 32-bit floats.
pub const JOBSORT_COMPILE_COMPAT_PBS: u32 = 2;
/// [`jobsort_compile_with`] flag: warnings are errors (`--deny-warnings`).
pub const JOBSORT_COMPILE_DENY_WARNINGS: u32 = 4;
const ALL_FLAGS: u32 =
    JOBSORT_COMPILE_INTERP | JOBSORT_COMPILE_COMPAT_PBS | JOBSORT_COMPILE_DENY_WARNINGS;

// Tags checked on every use of a handle (and cleared when it is freed).
const CATALOG_TAG: u64 = 0x6a6f_6273_6361_7401; // "jobscat\x01"
const FORMULA_TAG: u64 = 0x6a6f_6273_666f_7201; // "jobsfor\x01"
const DIAGNOSTICS_TAG: u64 = 0x6a6f_6273_6469_6101; // "jobsdia\x01"

/// The names a formula may use: PBS's keywords and built-in resources, plus custom
/// resources. Opaque; create with [`jobsort_catalog_new`], free with [`jobsort_catalog_free`].
#[repr(C)]
pub struct JobsortCatalog {
    tag: u64,
    catalog: Catalog,
}

/// A compiled formula. Opaque; create with [`jobsort_compile`], free with [`jobsort_free`].
/// Immutable and safe to share between threads.
#[repr(C)]
pub struct JobsortFormula {
    tag: u64,
    formula: CompiledFormula,
    columns: Vec<CString>,
}

/// The diagnostics of one compilation. Opaque; free with [`jobsort_diagnostics_free`].
#[repr(C)]
pub struct JobsortDiagnostics {
    tag: u64,
    items: Vec<DiagnosticC>,
}

struct DiagnosticC {
    severity: JobsortSeverity,
    code: CString,
    message: CString,
    start: usize,
    end: usize,
}

impl DiagnosticC {
    fn new(d: &Diagnostic) -> DiagnosticC {
        DiagnosticC {
            severity: d.severity.into(),
            code: c_string(d.code),
            message: c_string(&d.message),
            start: d.span.start,
            end: d.span.end,
        }
    }
}

impl JobsortFormula {
    /// The compiled formula behind the handle (for Rust code that also uses the C ABI).
    pub fn compiled(&self) -> &CompiledFormula {
        &self.formula
    }
}

impl JobsortCatalog {
    /// The catalog behind the handle.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }
}

/// A string for C: interior NUL bytes (which cannot occur in a formula that got this far,
/// but a message may quote anything) become U+FFFD.
fn c_string(s: &str) -> CString {
    CString::new(s.replace('\0', "\u{fffd}")).unwrap_or_default()
}

// ------------------------------------------------------------------------------------------
// Last-error state and the panic guard.

thread_local! {
    static LAST_STATUS: Cell<JobsortStatus> = const { Cell::new(JobsortStatus::Ok) };
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// Why a call failed: a status and the detailed message.
struct Failure {
    status: JobsortStatus,
    message: String,
}

impl Failure {
    fn new(status: JobsortStatus, message: impl Into<String>) -> Failure {
        Failure {
            status,
            message: message.into(),
        }
    }
    fn null(what: &str) -> Failure {
        Failure::new(JobsortStatus::NullArgument, format!("`{what}` is NULL"))
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
fn guard<T>(function: &str, on_failure: T, body: impl FnOnce() -> Result<T, Failure>) -> T {
    run(function, body).unwrap_or(on_failure)
}

/// [`run`] for entry points that return a status.
fn guard_status(function: &str, body: impl FnOnce() -> Result<(), Failure>) -> JobsortStatus {
    match run(function, body) {
        Ok(()) => JobsortStatus::Ok,
        Err(status) => status,
    }
}

// ------------------------------------------------------------------------------------------
// Argument checking.

/// Check that `p` is a live handle with tag `tag`, reading the tag before any reference to
/// the handle type is formed (so a handle of another kind is never viewed as this one).
///
/// # Safety
/// `p` is NULL or points to a live jobsort handle (every handle type is `repr(C)` with the
/// `u64` tag first, so the read is valid for any of them).
unsafe fn check_handle<T>(p: *const T, tag: u64, what: &str, kind: &str) -> Result<(), Failure> {
    if p.is_null() {
        return Err(Failure::null(what));
    }
    // SAFETY: see above.
    if unsafe { p.cast::<u64>().read() } != tag {
        return Err(wrong_handle(what, kind));
    }
    Ok(())
}

/// # Safety
/// `p` is NULL or points to a live jobsort handle.
unsafe fn catalog_ref<'a>(
    p: *const JobsortCatalog,
    what: &str,
) -> Result<&'a JobsortCatalog, Failure> {
    // SAFETY: caller contract; after the check `p` is a live catalog.
    unsafe {
        check_handle(p, CATALOG_TAG, what, "catalog")?;
        Ok(&*p)
    }
}

/// # Safety
/// As [`catalog_ref`], and no other reference to the catalog is in use.
unsafe fn catalog_mut<'a>(
    p: *mut JobsortCatalog,
    what: &str,
) -> Result<&'a mut JobsortCatalog, Failure> {
    // SAFETY: caller contract; after the check `p` is a live catalog.
    unsafe {
        check_handle(p, CATALOG_TAG, what, "catalog")?;
        Ok(&mut *p)
    }
}

/// # Safety
/// `p` is NULL or points to a live jobsort handle.
unsafe fn formula_ref<'a>(
    p: *const JobsortFormula,
    what: &str,
) -> Result<&'a JobsortFormula, Failure> {
    // SAFETY: caller contract; after the check `p` is a live formula.
    unsafe {
        check_handle(p, FORMULA_TAG, what, "formula")?;
        Ok(&*p)
    }
}

/// # Safety
/// `p` is NULL or points to a live jobsort handle.
unsafe fn diagnostics_ref<'a>(
    p: *const JobsortDiagnostics,
    what: &str,
) -> Result<&'a JobsortDiagnostics, Failure> {
    // SAFETY: caller contract; after the check `p` is a live diagnostics list.
    unsafe {
        check_handle(p, DIAGNOSTICS_TAG, what, "diagnostics")?;
        Ok(&*p)
    }
}

fn wrong_handle(what: &str, kind: &str) -> Failure {
    Failure::new(
        JobsortStatus::WrongHandle,
        format!("`{what}` is not a live jobsort {kind} handle"),
    )
}

/// # Safety
/// `p` is NULL or a NUL-terminated string.
unsafe fn str_arg<'a>(p: *const c_char, what: &str) -> Result<&'a str, Failure> {
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
unsafe fn write_out<T>(p: *mut T, what: &str, value: T) -> Result<(), Failure> {
    if p.is_null() {
        return Err(Failure::null(what));
    }
    // SAFETY: non-null and writable (caller contract).
    unsafe { p.write(value) };
    Ok(())
}

fn check_len(n: usize) -> Result<(), Failure> {
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

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

// ------------------------------------------------------------------------------------------
// Version and messages.

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

/// The message of a per-job evaluation error code from [`jobsort_eval`]'s `errors` array
/// (`"float division by zero"`, `"math domain error"`, ...); `""` for 0 (no error) and
/// `"unknown evaluation error code"` for a code jobsort never writes. Static; do not free.
#[unsafe(no_mangle)]
pub extern "C" fn jobsort_eval_error_message(code: u8) -> *const c_char {
    if code == 0 {
        return c"".as_ptr();
    }
    EvalError::from_code(code)
        .map_or(c"unknown evaluation error code", eval_error_c_message)
        .as_ptr()
}

/// [`EvalError::message`] as a static C string (no allocation, so nothing for a leak
/// checker to report; a unit test keeps the two in step).
fn eval_error_c_message(e: EvalError) -> &'static CStr {
    match e {
        EvalError::FloatDivisionByZero => c"float division by zero",
        EvalError::FloatFloorDivisionByZero => c"float floor division by zero",
        EvalError::FloatModulo => c"float modulo",
        EvalError::PowRange => c"(34, 'Numerical result out of range')",
        EvalError::ZeroToNegativePower => c"0.0 cannot be raised to a negative power",
        EvalError::NegativeToFractionalPower => {
            c"negative number cannot be raised to a fractional power"
        }
        EvalError::MathDomain => c"math domain error",
        EvalError::MathRange => c"math range error",
        EvalError::InfinityToInteger => c"cannot convert float infinity to integer",
        EvalError::NanToInteger => c"cannot convert float NaN to integer",
        EvalError::NotFinite => c"formula value is not finite",
    }
}

// ------------------------------------------------------------------------------------------
// Catalog.

/// A new catalog holding PBS's keywords and built-in resources (`ncpus`, `walltime`, `mem`,
/// ...). Returns `NULL` only on an internal error (see [`jobsort_last_error`]).
#[unsafe(no_mangle)]
pub extern "C" fn jobsort_catalog_new() -> *mut JobsortCatalog {
    guard("jobsort_catalog_new", ptr::null_mut(), || {
        Ok(Box::into_raw(Box::new(JobsortCatalog {
            tag: CATALOG_TAG,
            catalog: Catalog::pbs(),
        })))
    })
}

/// Declare (or redeclare) a custom resource `name` of type `type_name` (`"long"`, `"float"`,
/// `"size"`, `"time"`, `"boolean"`, `"string"` or `"string_array"`; only the first four may
/// be used in a formula). `name` must be an identifier (`[A-Za-z_][A-Za-z0-9_]*`).
///
/// # Safety
/// `catalog` is NULL or a live handle; `name` and `type_name` are NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn jobsort_catalog_add_resource(
    catalog: *mut JobsortCatalog,
    name: *const c_char,
    type_name: *const c_char,
) -> JobsortStatus {
    guard_status("jobsort_catalog_add_resource", || {
        // SAFETY: caller contract.
        let catalog = unsafe { catalog_mut(catalog, "catalog") }?;
        let name = unsafe { str_arg(name, "name") }?;
        let type_name = unsafe { str_arg(type_name, "type_name") }?;
        if !is_identifier(name) {
            return Err(Failure::new(
                JobsortStatus::InvalidArgument,
                format!("resource name `{name}` is not an identifier ([A-Za-z_][A-Za-z0-9_]*)"),
            ));
        }
        let ty: ResourceType = type_name
            .parse()
            .map_err(|e| Failure::new(JobsortStatus::UnknownResourceType, format!("{e}")))?;
        catalog.catalog.add_resource(name, ty);
        Ok(())
    })
}

/// Free a catalog. `NULL` is a no-op. Formulas compiled with it stay valid.
///
/// # Safety
/// `catalog` is NULL or a live catalog handle, not used again afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn jobsort_catalog_free(catalog: *mut JobsortCatalog) {
    guard("jobsort_catalog_free", (), || {
        if catalog.is_null() {
            return Ok(());
        }
        // SAFETY: caller contract.
        unsafe { catalog_mut(catalog, "catalog") }?.tag = 0;
        // SAFETY: created by `Box::into_raw` in `jobsort_catalog_new`, freed once.
        drop(unsafe { Box::from_raw(catalog) });
        Ok(())
    })
}

// ------------------------------------------------------------------------------------------
// Compiling.

/// Compile `formula` against `catalog` (`NULL` means PBS's built-in names only) with the
/// default options (JIT engine). Returns the compiled formula, or `NULL` when it has errors
/// (status `JOBSORT_STATUS_INVALID_FORMULA`, the first error in [`jobsort_last_error`]) or
/// an argument is bad.
///
/// If `diagnostics` is not NULL, `*diagnostics` receives a new list of everything the
/// checker found — the errors on failure, warnings and notes on success (possibly empty) —
/// to free with [`jobsort_diagnostics_free`]; it is set to NULL when the call fails before
/// checking (a bad argument).
///
/// # Safety
/// `formula` is NULL or NUL-terminated; `catalog` is NULL or a live handle; `diagnostics`
/// is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn jobsort_compile(
    formula: *const c_char,
    catalog: *const JobsortCatalog,
    diagnostics: *mut *mut JobsortDiagnostics,
) -> *mut JobsortFormula {
    // SAFETY: same contract.
    unsafe { compile_impl("jobsort_compile", formula, catalog, 0, diagnostics) }
}

/// [`jobsort_compile`] with option flags: a bitwise or of `JOBSORT_COMPILE_INTERP`,
/// `JOBSORT_COMPILE_COMPAT_PBS` and `JOBSORT_COMPILE_DENY_WARNINGS` (0 = defaults). Unknown
/// bits fail with `JOBSORT_STATUS_INVALID_ARGUMENT`.
///
/// # Safety
/// As [`jobsort_compile`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn jobsort_compile_with(
    formula: *const c_char,
    catalog: *const JobsortCatalog,
    flags: u32,
    diagnostics: *mut *mut JobsortDiagnostics,
) -> *mut JobsortFormula {
    // SAFETY: same contract.
    unsafe { compile_impl("jobsort_compile_with", formula, catalog, flags, diagnostics) }
}

/// # Safety
/// As [`jobsort_compile`].
unsafe fn compile_impl(
    function: &str,
    formula: *const c_char,
    catalog: *const JobsortCatalog,
    flags: u32,
    diagnostics: *mut *mut JobsortDiagnostics,
) -> *mut JobsortFormula {
    if !diagnostics.is_null() {
        // SAFETY: writable (caller contract).
        unsafe { diagnostics.write(ptr::null_mut()) };
    }
    guard(function, ptr::null_mut(), || {
        if flags & !ALL_FLAGS != 0 {
            return Err(Failure::new(
                JobsortStatus::InvalidArgument,
                format!("unknown flag bits {:#x}", flags & !ALL_FLAGS),
            ));
        }
        // SAFETY: caller contract.
        let source = unsafe { str_arg(formula, "formula") }?;
        let default_catalog;
        let catalog = if catalog.is_null() {
            default_catalog = Catalog::pbs();
            &default_catalog
        } else {
            // SAFETY: caller contract.
            &unsafe { catalog_ref(catalog, "catalog") }?.catalog
        };
        let options = CompileOptions {
            engine: if flags & JOBSORT_COMPILE_INTERP != 0 {
                Engine::Interp
            } else {
                Engine::Jit
            },
            compat_pbs: flags & JOBSORT_COMPILE_COMPAT_PBS != 0,
            deny_warnings: flags & JOBSORT_COMPILE_DENY_WARNINGS != 0,
        };
        let result = Formula::compile_with(source, catalog, &options);
        let found: &[Diagnostic] = match &result {
            Ok(f) => f.diagnostics(),
            Err(d) => &d.0,
        };
        if !diagnostics.is_null() {
            let list = JobsortDiagnostics {
                tag: DIAGNOSTICS_TAG,
                items: found.iter().map(DiagnosticC::new).collect(),
            };
            // SAFETY: writable (caller contract).
            unsafe { diagnostics.write(Box::into_raw(Box::new(list))) };
        }
        match result {
            Ok(formula) => {
                let columns = formula
                    .inputs()
                    .iter()
                    .map(|n| c_string(n.column()))
                    .collect();
                Ok(Box::into_raw(Box::new(JobsortFormula {
                    tag: FORMULA_TAG,
                    formula,
                    columns,
                })))
            }
            Err(d) => {
                let first = d.iter().find(|d| d.is_error()).or_else(|| d.iter().next());
                let message = match first {
                    Some(e) => format!(
                        "the formula has errors; first: {}[{}] at bytes {}..{}: {}",
                        match e.severity {
                            Severity::Error => "error",
                            Severity::Warning => "warning",
                            Severity::Note => "note",
                        },
                        e.code,
                        e.span.start,
                        e.span.end,
                        e.message
                    ),
                    None => "the formula has errors".to_string(),
                };
                Err(Failure::new(JobsortStatus::InvalidFormula, message))
            }
        }
    })
}

/// Free a compiled formula. `NULL` is a no-op.
///
/// # Safety
/// `formula` is NULL or a live formula handle that no other thread is using, not used again
/// afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn jobsort_free(formula: *mut JobsortFormula) {
    guard("jobsort_free", (), || {
        if formula.is_null() {
            return Ok(());
        }
        // SAFETY: caller contract; the tag check rejects other handle kinds.
        unsafe { formula_ref(formula, "formula") }?;
        // SAFETY: created by `Box::into_raw` in `compile_impl`, freed once.
        let mut boxed = unsafe { Box::from_raw(formula) };
        boxed.tag = 0;
        drop(boxed);
        Ok(())
    })
}

// ------------------------------------------------------------------------------------------
// Diagnostics.

/// Store the number of diagnostics in `*count`.
///
/// # Safety
/// `diagnostics` is NULL or a live handle; `count` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn jobsort_diagnostics_count(
    diagnostics: *const JobsortDiagnostics,
    count: *mut usize,
) -> JobsortStatus {
    guard_status("jobsort_diagnostics_count", || {
        // SAFETY: caller contract.
        let d = unsafe { diagnostics_ref(diagnostics, "diagnostics") }?;
        unsafe { write_out(count, "count", d.items.len()) }
    })
}

/// # Safety
/// `d` is NULL or a live handle.
unsafe fn diagnostic_at<'a>(
    d: *const JobsortDiagnostics,
    index: usize,
) -> Result<&'a DiagnosticC, Failure> {
    // SAFETY: caller contract.
    let d = unsafe { diagnostics_ref(d, "diagnostics") }?;
    d.items.get(index).ok_or_else(|| {
        Failure::new(
            JobsortStatus::IndexOutOfRange,
            format!(
                "index {index} is out of range (there are {} diagnostics)",
                d.items.len()
            ),
        )
    })
}

/// Store the severity of diagnostic `index` in `*severity`.
///
/// # Safety
/// `diagnostics` is NULL or a live handle; `severity` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn jobsort_diagnostic_severity(
    diagnostics: *const JobsortDiagnostics,
    index: usize,
    severity: *mut JobsortSeverity,
) -> JobsortStatus {
    guard_status("jobsort_diagnostic_severity", || {
        // SAFETY: caller contract.
        let d = unsafe { diagnostic_at(diagnostics, index) }?;
        unsafe { write_out(severity, "severity", d.severity) }
    })
}

/// Store the stable code of diagnostic `index` (e.g. `"E0101"`) in `*code`. The string
/// lives as long as the list; do not free it.
///
/// # Safety
/// `diagnostics` is NULL or a live handle; `code` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn jobsort_diagnostic_code(
    diagnostics: *const JobsortDiagnostics,
    index: usize,
    code: *mut *const c_char,
) -> JobsortStatus {
    guard_status("jobsort_diagnostic_code", || {
        // SAFETY: caller contract.
        let d = unsafe { diagnostic_at(diagnostics, index) }?;
        unsafe { write_out(code, "code", d.code.as_ptr()) }
    })
}

/// Store the message of diagnostic `index` in `*message`. The string lives as long as the
/// list; do not free it.
///
/// # Safety
/// `diagnostics` is NULL or a live handle; `message` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn jobsort_diagnostic_message(
    diagnostics: *const JobsortDiagnostics,
    index: usize,
    message: *mut *const c_char,
) -> JobsortStatus {
    guard_status("jobsort_diagnostic_message", || {
        // SAFETY: caller contract.
        let d = unsafe { diagnostic_at(diagnostics, index) }?;
        unsafe { write_out(message, "message", d.message.as_ptr()) }
    })
}

/// Store the byte span `[*start, *end)` of diagnostic `index` in the formula text.
///
/// # Safety
/// `diagnostics` is NULL or a live handle; `start` and `end` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn jobsort_diagnostic_span(
    diagnostics: *const JobsortDiagnostics,
    index: usize,
    start: *mut usize,
    end: *mut usize,
) -> JobsortStatus {
    guard_status("jobsort_diagnostic_span", || {
        // SAFETY: caller contract.
        let d = unsafe { diagnostic_at(diagnostics, index) }?;
        if end.is_null() {
            return Err(Failure::null("end"));
        }
        unsafe { write_out(start, "start", d.start) }?;
        unsafe { write_out(end, "end", d.end) }
    })
}

/// Free a diagnostics list. `NULL` is a no-op.
///
/// # Safety
/// `diagnostics` is NULL or a live diagnostics handle, not used again afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn jobsort_diagnostics_free(diagnostics: *mut JobsortDiagnostics) {
    guard("jobsort_diagnostics_free", (), || {
        if diagnostics.is_null() {
            return Ok(());
        }
        // SAFETY: caller contract; the tag check rejects other handle kinds.
        unsafe { diagnostics_ref(diagnostics, "diagnostics") }?;
        // SAFETY: created by `Box::into_raw` in `compile_impl`, freed once.
        let mut boxed = unsafe { Box::from_raw(diagnostics) };
        boxed.tag = 0;
        drop(boxed);
        Ok(())
    })
}

// ------------------------------------------------------------------------------------------
// Columns.

/// Store in `*count` how many input columns the formula reads. [`jobsort_eval`] expects
/// exactly that many column pointers.
///
/// # Safety
/// `formula` is NULL or a live handle; `count` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn jobsort_column_count(
    formula: *const JobsortFormula,
    count: *mut usize,
) -> JobsortStatus {
    guard_status("jobsort_column_count", || {
        // SAFETY: caller contract.
        let f = unsafe { formula_ref(formula, "formula") }?;
        unsafe { write_out(count, "count", f.columns.len()) }
    })
}

/// Store in `*name` the name of input column `index` (`"ncpus"`, `"fairshare_perc"`, ...).
/// The string lives as long as the formula; do not free it.
///
/// # Safety
/// `formula` is NULL or a live handle; `name` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn jobsort_column_name(
    formula: *const JobsortFormula,
    index: usize,
    name: *mut *const c_char,
) -> JobsortStatus {
    guard_status("jobsort_column_name", || {
        // SAFETY: caller contract.
        let f = unsafe { formula_ref(formula, "formula") }?;
        let column = f.columns.get(index).ok_or_else(|| {
            Failure::new(
                JobsortStatus::IndexOutOfRange,
                format!(
                    "column index {index} is out of range (the formula reads {} columns)",
                    f.columns.len()
                ),
            )
        })?;
        unsafe { write_out(name, "name", column.as_ptr()) }
    })
}

/// Store in `*index` the position of column `name` among the formula's inputs, so the host
/// binds its arrays once. Fails with `JOBSORT_STATUS_UNKNOWN_COLUMN` when the formula does
/// not read `name` (the host then need not supply it).
///
/// # Safety
/// `formula` is NULL or a live handle; `name` is NULL or NUL-terminated; `index` is NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn jobsort_column_index(
    formula: *const JobsortFormula,
    name: *const c_char,
    index: *mut usize,
) -> JobsortStatus {
    guard_status("jobsort_column_index", || {
        // SAFETY: caller contract.
        let f = unsafe { formula_ref(formula, "formula") }?;
        let name = unsafe { str_arg(name, "name") }?;
        let position = f
            .formula
            .inputs()
            .iter()
            .position(|c| c == name)
            .ok_or_else(|| {
                let reads = f
                    .formula
                    .inputs()
                    .iter()
                    .map(Input::column)
                    .collect::<Vec<_>>()
                    .join(", ");
                Failure::new(
                    JobsortStatus::UnknownColumn,
                    if reads.is_empty() {
                        format!("the formula reads no column `{name}` (it reads none)")
                    } else {
                        format!("the formula reads no column `{name}` (it reads: {reads})")
                    },
                )
            })?;
        unsafe { write_out(index, "index", position) }
    })
}

// ------------------------------------------------------------------------------------------
// Evaluating and ranking.

/// Evaluate the formula for `n` jobs. `columns` holds one pointer per input column (see
/// [`jobsort_column_count`] / [`jobsort_column_index`]), each to `n` doubles: `columns[k][i]`
/// is input `k` of job `i` (resources in PBS units: seconds, kilobytes; a job that did not
/// request a resource has 0). `columns` may be NULL only when the formula reads no column.
///
/// Writes `out[i]`, the value of job `i`, and `errors[i]`, 0 or the code of the error its
/// evaluation raised (then `out[i]` is 0, PBS's policy; see
/// [`jobsort_eval_error_message`]). Per-job errors do not make the call fail. `n = 0` fails
/// with `JOBSORT_STATUS_NO_JOBS` and writes nothing. The results are bit-identical to the
/// Rust API's `CompiledFormula::evaluate_columns`.
///
/// # Safety
/// `formula` is NULL or a live handle; `columns` is NULL or points to as many pointers as
/// the formula has columns, each NULL or valid for `n` reads; `out` and `errors` are NULL
/// or valid for `n` writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn jobsort_eval(
    formula: *const JobsortFormula,
    columns: *const *const f64,
    n: usize,
    out: *mut f64,
    errors: *mut u8,
) -> JobsortStatus {
    guard_status("jobsort_eval", || {
        // SAFETY: caller contract.
        let f = unsafe { formula_ref(formula, "formula") }?;
        let k = f.columns.len();
        if k > 0 && columns.is_null() {
            return Err(Failure::null("columns"));
        }
        if out.is_null() {
            return Err(Failure::null("out"));
        }
        if errors.is_null() {
            return Err(Failure::null("errors"));
        }
        check_len(n)?;
        let pointers: &[*const f64] = if k == 0 {
            &[]
        } else {
            // SAFETY: `columns` holds `k` pointers (caller contract).
            unsafe { std::slice::from_raw_parts(columns, k) }
        };
        let mut slices: Vec<&[f64]> = Vec::with_capacity(k);
        for (j, &p) in pointers.iter().enumerate() {
            if p.is_null() {
                return Err(Failure::new(
                    JobsortStatus::NullArgument,
                    format!("columns[{j}] (column `{}`) is NULL", f.formula.inputs()[j]),
                ));
            }
            // SAFETY: each column pointer is valid for `n` reads (caller contract).
            slices.push(unsafe { std::slice::from_raw_parts(p, n) });
        }
        let evaluation = f.formula.evaluate_columns(&slices, n);
        // SAFETY: `out` and `errors` are valid for `n` writes (caller contract).
        let (out, errors) = unsafe {
            (
                std::slice::from_raw_parts_mut(out, n),
                std::slice::from_raw_parts_mut(errors, n),
            )
        };
        out.copy_from_slice(&evaluation.values);
        errors.copy_from_slice(&evaluation.errors);
        Ok(())
    })
}

/// Rank `n` jobs by value: writes into `order` the job indices from the highest value to the
/// lowest, ties broken by submission order — `submit[i]` ascending when `submit` is not NULL
/// (e.g. submission times or PBS `qrank`), else input order — then by input order. This is
/// the order PBS's `job_sort_formula` sort gives. Values must be finite (as [`jobsort_eval`]
/// guarantees); `-0.0` equals `0.0`.
///
/// # Safety
/// `values` (and `submit`, unless NULL) are NULL or valid for `n` reads; `order` is NULL or
/// valid for `n` writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn jobsort_rank(
    values: *const f64,
    n: usize,
    submit: *const f64,
    order: *mut usize,
) -> JobsortStatus {
    guard_status("jobsort_rank", || {
        if values.is_null() {
            return Err(Failure::null("values"));
        }
        if order.is_null() {
            return Err(Failure::null("order"));
        }
        check_len(n)?;
        // SAFETY: valid for `n` reads (caller contract).
        let values = unsafe { std::slice::from_raw_parts(values, n) };
        let submit = if submit.is_null() {
            None
        } else {
            // SAFETY: valid for `n` reads (caller contract).
            Some(unsafe { std::slice::from_raw_parts(submit, n) })
        };
        for (what, column) in [("values", Some(values)), ("submit", submit)] {
            if let Some(i) = column.and_then(|c| c.iter().position(|v| !v.is_finite())) {
                return Err(Failure::new(
                    JobsortStatus::NotFinite,
                    format!(
                        "{what}[{i}] is not finite ({})",
                        column.map_or(0.0, |c| c[i])
                    ),
                ));
            }
        }
        let ranked = rank(
            values,
            TieBreak {
                submit,
                ..TieBreak::default()
            },
            &RankOptions::default(),
        );
        // SAFETY: valid for `n` writes (caller contract).
        let order = unsafe { std::slice::from_raw_parts_mut(order, n) };
        for (slot, r) in order.iter_mut().zip(&ranked) {
            *slot = r.index;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn last_error() -> String {
        // SAFETY: the pointer is valid until the next call on this thread.
        unsafe { CStr::from_ptr(jobsort_last_error()) }
            .to_string_lossy()
            .into_owned()
    }

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
    }

    #[test]
    fn eval_error_messages_follow_the_codes() {
        for e in EvalError::ALL {
            // SAFETY: static strings.
            let m = unsafe { CStr::from_ptr(jobsort_eval_error_message(e.code())) };
            assert_eq!(m.to_str().unwrap(), e.message());
        }
        // SAFETY: static strings.
        unsafe {
            assert_eq!(CStr::from_ptr(jobsort_eval_error_message(0)), c"");
            assert_eq!(
                CStr::from_ptr(jobsort_eval_error_message(200)),
                c"unknown evaluation error code"
            );
        }
    }

    #[test]
    fn version_is_the_crate_version() {
        // SAFETY: static string.
        let v = unsafe { CStr::from_ptr(jobsort_version()) };
        assert_eq!(v.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
    }

    #[test]
    fn catalog_arguments_are_checked() {
        let c = jobsort_catalog_new();
        assert!(!c.is_null());
        // SAFETY: live handle, NUL-terminated strings, NULLs checked by the callee.
        unsafe {
            assert_eq!(
                jobsort_catalog_add_resource(c, c"foo".as_ptr(), c"float".as_ptr()),
                JobsortStatus::Ok
            );
            assert_eq!(last_error(), "");
            assert_eq!(
                (*c).catalog().resource_type("foo"),
                Some(ResourceType::Float)
            );
            assert_eq!(
                jobsort_catalog_add_resource(c, c"foo".as_ptr(), c"complex".as_ptr()),
                JobsortStatus::UnknownResourceType
            );
            assert!(
                last_error()
                    .starts_with("jobsort_catalog_add_resource: unknown resource type `complex`")
            );
            assert_eq!(
                jobsort_catalog_add_resource(c, c"1x".as_ptr(), c"long".as_ptr()),
                JobsortStatus::InvalidArgument
            );
            assert_eq!(
                jobsort_catalog_add_resource(c, ptr::null(), c"long".as_ptr()),
                JobsortStatus::NullArgument
            );
            assert_eq!(last_error(), "jobsort_catalog_add_resource: `name` is NULL");
            assert_eq!(jobsort_last_status(), JobsortStatus::NullArgument);
            let bad_utf8 = [b'a', 0xff, 0];
            assert_eq!(
                jobsort_catalog_add_resource(c, bad_utf8.as_ptr().cast(), c"long".as_ptr()),
                JobsortStatus::InvalidUtf8
            );
            assert_eq!(
                last_error(),
                "jobsort_catalog_add_resource: `name` is not valid UTF-8 (invalid byte at offset 1)"
            );
            // A catalog is not a formula.
            let mut count = 0;
            assert_eq!(
                jobsort_column_count(c.cast(), &mut count),
                JobsortStatus::WrongHandle
            );
            assert_eq!(
                last_error(),
                "jobsort_column_count: `formula` is not a live jobsort formula handle"
            );
            jobsort_free(c.cast());
            assert_eq!(jobsort_last_status(), JobsortStatus::WrongHandle);
            jobsort_catalog_free(c);
            jobsort_catalog_free(ptr::null_mut());
            jobsort_free(ptr::null_mut());
            jobsort_diagnostics_free(ptr::null_mut());
        }
    }

    #[test]
    fn rank_checks_and_orders() {
        let values = [1.0, 3.0, 1.0, -0.0, 0.0];
        let mut order = [9usize; 5];
        // SAFETY: arrays of length 5.
        unsafe {
            assert_eq!(
                jobsort_rank(values.as_ptr(), 5, ptr::null(), order.as_mut_ptr()),
                JobsortStatus::Ok
            );
            assert_eq!(order, [1, 0, 2, 3, 4]);
            let submit = [5.0, 0.0, 4.0, 2.0, 1.0];
            assert_eq!(
                jobsort_rank(values.as_ptr(), 5, submit.as_ptr(), order.as_mut_ptr()),
                JobsortStatus::Ok
            );
            assert_eq!(order, [1, 2, 0, 4, 3]);
            assert_eq!(
                jobsort_rank(values.as_ptr(), 0, ptr::null(), order.as_mut_ptr()),
                JobsortStatus::NoJobs
            );
            assert_eq!(
                jobsort_rank(ptr::null(), 5, ptr::null(), order.as_mut_ptr()),
                JobsortStatus::NullArgument
            );
            assert_eq!(
                jobsort_rank(values.as_ptr(), 5, ptr::null(), ptr::null_mut()),
                JobsortStatus::NullArgument
            );
            let nan = [1.0, f64::NAN];
            assert_eq!(
                jobsort_rank(nan.as_ptr(), 2, ptr::null(), order.as_mut_ptr()),
                JobsortStatus::NotFinite
            );
            assert_eq!(last_error(), "jobsort_rank: values[1] is not finite (NaN)");
        }
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
}
