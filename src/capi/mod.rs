//! The C ABI: compile a formula once, evaluate it over arrays of job columns every
//! scheduling cycle, rank the values — from C, C++ or anything that can call C.
//!
//! The header `include/jobsort.h` is generated from this module by cbindgen (see `build.rs`);
//! the library is built as `libjobsort.so` (cdylib) and `libjobsort.a` (staticlib). A
//! complete C program is `examples/c/scheduler.c`.
//!
//! # Handles
//! Three opaque handle types, each created and freed by the library:
//! [`JobsortCatalog`] (the names a formula may use: PBS keywords, PBS built-in resources and
//! custom resources), [`JobsortFormula`] (a compiled formula) and [`JobsortDiagnostics`]
//! (what the checker found). Freeing `NULL` is a no-op. A handle is not an address: it names
//! a slot of the library's handle table, the slot's generation and the kind of object, and
//! every entry point looks it up there, never reading memory through it. So a handle of
//! another kind, a freed handle (even once a new object took its slot: freeing advances the
//! slot's generation, and no handle value is ever issued twice), a second free, or any
//! other value returns [`JobsortStatus::WrongHandle`] instead of misbehaving, and the
//! message says which (``... is not a live jobsort formula handle: it was freed``). The
//! lookup is a lock, a bounds check and a reference count: a few tens of nanoseconds per
//! call (`examples/c/call_cost.c` measures it).
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
//! column accessors on the same [`JobsortFormula`] at once. A catalog may be used by
//! concurrent calls ([`jobsort_catalog_add_resource`] waits for the compilations reading
//! it, and they for it). Diagnostics lists are read-only after creation. The last-error
//! state is per thread. A call holds the object it was handed until it returns, so freeing a
//! handle while another thread is in a call with it is safe: that call finishes on the
//! whole object, and later calls are refused (the strings the accessors hand out stay valid
//! only until the free, as documented for each).
//!
//! Large job sets are evaluated in parallel on a process-wide thread pool (rayon's global
//! pool; `RAYON_NUM_THREADS` sets its size), started by the first large evaluation and kept
//! until the process exits (a leak checker lists its worker threads as "still reachable" /
//! "possibly lost" at exit; nothing grows per call). As with any library that owns threads,
//! a process that `fork`s after that point must not call jobsort in the child (exec first).
//!
//! # Memory
//! [`jobsort_eval`], the call a scheduler makes every cycle, allocates nothing in proportion
//! to `n`: values and error codes go straight into `out` and `errors`. Its own allocations
//! are the list of column pointers (one per input; [`JobsortStatus::OutOfMemory`] if even
//! that fails) and, for a formula compiled with [`JOBSORT_COMPILE_COMPAT_PBS`], the rounded
//! inputs of at most 2^20 jobs at a time (8 MiB per column). The other calls that allocate
//! are [`jobsort_rank`] (working memory of a few tens of bytes per job),
//! [`jobsort_compile`] / [`jobsort_compile_with`] (the formula, its code and diagnostics),
//! [`jobsort_catalog_new`] / [`jobsort_catalog_add_resource`] (the catalog), and a failing
//! call (its last-error message); there Rust's policy applies and a failed allocation
//! aborts the process. The column, diagnostic and message accessors allocate nothing. The
//! handle table keeps a slot (a few tens of bytes) per handle live at once, reused after a
//! free, until the process exits.
//!
//! # The Rust API it wraps
//! Each C entry point is a thin, checked layer over the Rust API, with the same results bit
//! for bit: [`jobsort_catalog_new`] / [`jobsort_catalog_add_resource`] are
//! [`Catalog::pbs`](crate::Catalog::pbs) / [`Catalog::with_resource`](crate::Catalog::with_resource);
//! [`jobsort_compile`] is [`Formula::compile`](crate::Formula::compile) (the diagnostics are
//! [`crate::Diagnostics`]); [`jobsort_eval`] is
//! [`CompiledFormula::evaluate_into`](crate::CompiledFormula::evaluate_into), which gives
//! what [`CompiledFormula::evaluate_columns`](crate::CompiledFormula::evaluate_columns) (or
//! [`CompiledFormula::evaluate`](crate::CompiledFormula::evaluate) over a
//! [`crate::JobTable`]) returns; [`jobsort_rank`] is [`crate::rank::rank`].
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

mod args;
mod c_text;
mod catalog;
mod compile;
mod diagnostics;
mod eval;
mod handles;
mod rank;
mod status;

pub use catalog::{
    JobsortCatalog, jobsort_catalog_add_resource, jobsort_catalog_free, jobsort_catalog_new,
};
pub use compile::{
    JOBSORT_COMPILE_COMPAT_PBS, JOBSORT_COMPILE_DENY_WARNINGS, JOBSORT_COMPILE_INTERP,
    JobsortFormula, jobsort_column_count, jobsort_column_index, jobsort_column_name,
    jobsort_compile, jobsort_compile_with, jobsort_free,
};
pub use diagnostics::{
    JobsortDiagnostics, JobsortSeverity, jobsort_diagnostic_code, jobsort_diagnostic_message,
    jobsort_diagnostic_severity, jobsort_diagnostic_span, jobsort_diagnostics_count,
    jobsort_diagnostics_free,
};
pub use eval::{jobsort_eval, jobsort_eval_error_message};
pub use rank::jobsort_rank;
pub use status::{
    JobsortStatus, jobsort_error_message, jobsort_last_error, jobsort_last_status, jobsort_version,
};
