//! Compiling a formula into a handle, freeing it, and the input columns it reads.

use super::args::{str_arg, write_out};
use super::c_text::c_string;
use super::catalog::JobsortCatalog;
use super::diagnostics::JobsortDiagnostics;
use super::handles::{Handle, Kind, free_handle, handle_ref, new_handle};
use super::status::{Failure, JobsortStatus, guard, guard_status};
use crate::catalog::{Catalog, Input};
use crate::formula::diag::{Diagnostic, Severity};
use crate::formula::{CompileOptions, CompiledFormula, Engine, Formula};
use std::ffi::{CString, c_char};
use std::ptr;

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

/// A compiled formula. Opaque: create with [`jobsort_compile`], free with [`jobsort_free`];
/// a `JobsortFormula *` is a handle (see the module's documentation), never an address to
/// read. Immutable and safe to share between threads.
pub struct JobsortFormula {
    pub(super) formula: CompiledFormula,
    /// The input names as C strings, in input order.
    pub(super) columns: Vec<CString>,
}

impl Handle for JobsortFormula {
    const KIND: Kind = Kind::Formula;
}

/// Compile `formula` against `catalog` (`NULL` means PBS's built-in names only) with the
/// default options (JIT engine). Returns the compiled formula, or `NULL` when it has errors
/// (status `JOBSORT_STATUS_INVALID_FORMULA`, the first error in `jobsort_last_error`) or
/// an argument is bad.
///
/// If `diagnostics` is not NULL, `*diagnostics` receives a new list of everything the
/// checker found — the errors on failure, warnings and notes on success (possibly empty) —
/// to free with `jobsort_diagnostics_free`; it is set to NULL when the call fails before
/// checking (a bad argument).
///
/// # Safety
/// `formula` is NULL or NUL-terminated; `catalog` may be any value (it is checked); `diagnostics`
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
        let (default_catalog, handle, read);
        let catalog: &Catalog = if catalog.is_null() {
            default_catalog = Catalog::pbs();
            &default_catalog
        } else {
            handle = handle_ref(catalog, "catalog")?;
            read = handle.read();
            &read
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
            let list = new_handle(JobsortDiagnostics::new(found))?;
            // SAFETY: writable (caller contract).
            unsafe { diagnostics.write(list) };
        }
        match result {
            Ok(formula) => {
                let columns = formula
                    .inputs()
                    .iter()
                    .map(|n| c_string(n.column()))
                    .collect();
                new_handle(JobsortFormula { formula, columns })
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

/// Free a compiled formula. `NULL` is a no-op. From then on the handle is refused
/// (`JOBSORT_STATUS_WRONG_HANDLE`, a second free too); a call another thread is making with
/// it finishes on the whole formula first. Its column names are gone with it.
///
/// # Safety
/// None: `formula` may be any value (it is checked).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn jobsort_free(formula: *mut JobsortFormula) {
    guard("jobsort_free", (), || free_handle(formula, "formula"))
}

// The input columns.

/// Store in `*count` how many input columns the formula reads. `jobsort_eval` expects
/// exactly that many column pointers.
///
/// # Safety
/// `formula` may be any value (it is checked); `count` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn jobsort_column_count(
    formula: *const JobsortFormula,
    count: *mut usize,
) -> JobsortStatus {
    guard_status("jobsort_column_count", || {
        let f = handle_ref(formula, "formula")?;
        // SAFETY: caller contract.
        unsafe { write_out(count, "count", f.columns.len()) }
    })
}

/// Store in `*name` the name of input column `index` (`"ncpus"`, `"fairshare_perc"`, ...).
/// The string lives as long as the formula; do not free it.
///
/// # Safety
/// `formula` may be any value (it is checked); `name` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn jobsort_column_name(
    formula: *const JobsortFormula,
    index: usize,
    name: *mut *const c_char,
) -> JobsortStatus {
    guard_status("jobsort_column_name", || {
        let f = handle_ref(formula, "formula")?;
        let column = f.columns.get(index).ok_or_else(|| {
            Failure::new(
                JobsortStatus::IndexOutOfRange,
                format!(
                    "column index {index} is out of range (the formula reads {} columns)",
                    f.columns.len()
                ),
            )
        })?;
        // SAFETY: caller contract; the string lives as long as the formula.
        unsafe { write_out(name, "name", column.as_ptr()) }
    })
}

/// Store in `*index` the position of column `name` among the formula's inputs, so the host
/// binds its arrays once. Fails with `JOBSORT_STATUS_UNKNOWN_COLUMN` when the formula does
/// not read `name` (the host then need not supply it).
///
/// # Safety
/// `formula` may be any value (it is checked); `name` is NULL or NUL-terminated; `index` is NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn jobsort_column_index(
    formula: *const JobsortFormula,
    name: *const c_char,
    index: *mut usize,
) -> JobsortStatus {
    guard_status("jobsort_column_index", || {
        let f = handle_ref(formula, "formula")?;
        // SAFETY: caller contract.
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
