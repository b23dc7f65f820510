//! The diagnostics handle: what the checker found in one compilation (severity, stable
//! code, message, byte span), read one field at a time.

use super::args::write_out;
use super::c_text::c_string;
use super::handles::{Handle, Kind, free_handle, handle_ref};
use super::status::{Failure, JobsortStatus, guard, guard_status};
use crate::formula::diag::{Diagnostic, Severity};
use std::ffi::{CString, c_char};
use std::ops::Deref;
use std::sync::Arc;

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

/// The diagnostics of one compilation. Opaque: free with [`jobsort_diagnostics_free`]; a
/// `JobsortDiagnostics *` is a handle (see the module's documentation), never an address to
/// read.
pub struct JobsortDiagnostics {
    items: Vec<DiagnosticC>,
}

impl Handle for JobsortDiagnostics {
    const KIND: Kind = Kind::Diagnostics;
}

impl JobsortDiagnostics {
    /// A list holding `found` as C strings.
    pub(super) fn new(found: &[Diagnostic]) -> JobsortDiagnostics {
        JobsortDiagnostics {
            items: found.iter().map(DiagnosticC::new).collect(),
        }
    }
}

/// One diagnostic, its strings NUL-terminated for C.
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

/// Store the number of diagnostics in `*count`.
///
/// # Safety
/// `diagnostics` may be any value (it is checked); `count` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn jobsort_diagnostics_count(
    diagnostics: *const JobsortDiagnostics,
    count: *mut usize,
) -> JobsortStatus {
    guard_status("jobsort_diagnostics_count", || {
        let d = handle_ref(diagnostics, "diagnostics")?;
        // SAFETY: caller contract.
        unsafe { write_out(count, "count", d.items.len()) }
    })
}

/// Diagnostic `index` of a list, which it keeps alive.
struct At {
    list: Arc<JobsortDiagnostics>,
    index: usize,
}

impl Deref for At {
    type Target = DiagnosticC;
    fn deref(&self) -> &DiagnosticC {
        &self.list.items[self.index]
    }
}

fn diagnostic_at(d: *const JobsortDiagnostics, index: usize) -> Result<At, Failure> {
    let list = handle_ref(d, "diagnostics")?;
    if index >= list.items.len() {
        return Err(Failure::new(
            JobsortStatus::IndexOutOfRange,
            format!(
                "index {index} is out of range (there are {} diagnostics)",
                list.items.len()
            ),
        ));
    }
    Ok(At { list, index })
}

/// Store the severity of diagnostic `index` in `*severity`.
///
/// # Safety
/// `diagnostics` may be any value (it is checked); `severity` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn jobsort_diagnostic_severity(
    diagnostics: *const JobsortDiagnostics,
    index: usize,
    severity: *mut JobsortSeverity,
) -> JobsortStatus {
    guard_status("jobsort_diagnostic_severity", || {
        let d = diagnostic_at(diagnostics, index)?;
        // SAFETY: caller contract; a string lives as long as the list.
        unsafe { write_out(severity, "severity", d.severity) }
    })
}

/// Store the stable code of diagnostic `index` (e.g. `"E0101"`) in `*code`. The string
/// lives as long as the list; do not free it.
///
/// # Safety
/// `diagnostics` may be any value (it is checked); `code` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn jobsort_diagnostic_code(
    diagnostics: *const JobsortDiagnostics,
    index: usize,
    code: *mut *const c_char,
) -> JobsortStatus {
    guard_status("jobsort_diagnostic_code", || {
        let d = diagnostic_at(diagnostics, index)?;
        // SAFETY: caller contract; a string lives as long as the list.
        unsafe { write_out(code, "code", d.code.as_ptr()) }
    })
}

/// Store the message of diagnostic `index` in `*message`. The string lives as long as the
/// list; do not free it.
///
/// # Safety
/// `diagnostics` may be any value (it is checked); `message` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn jobsort_diagnostic_message(
    diagnostics: *const JobsortDiagnostics,
    index: usize,
    message: *mut *const c_char,
) -> JobsortStatus {
    guard_status("jobsort_diagnostic_message", || {
        let d = diagnostic_at(diagnostics, index)?;
        // SAFETY: caller contract; a string lives as long as the list.
        unsafe { write_out(message, "message", d.message.as_ptr()) }
    })
}

/// Store the byte span `[*start, *end)` of diagnostic `index` in the formula text.
///
/// # Safety
/// `diagnostics` may be any value (it is checked); `start` and `end` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn jobsort_diagnostic_span(
    diagnostics: *const JobsortDiagnostics,
    index: usize,
    start: *mut usize,
    end: *mut usize,
) -> JobsortStatus {
    guard_status("jobsort_diagnostic_span", || {
        let d = diagnostic_at(diagnostics, index)?;
        if end.is_null() {
            return Err(Failure::null("end"));
        }
        // SAFETY: caller contract.
        unsafe { write_out(start, "start", d.start) }?;
        unsafe { write_out(end, "end", d.end) }
    })
}

/// Free a diagnostics list. `NULL` is a no-op. Its strings are gone with it; the handle is
/// refused from then on (`JOBSORT_STATUS_WRONG_HANDLE`).
///
/// # Safety
/// None: `diagnostics` may be any value (it is checked).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn jobsort_diagnostics_free(diagnostics: *mut JobsortDiagnostics) {
    guard("jobsort_diagnostics_free", (), || {
        free_handle(diagnostics, "diagnostics")
    })
}
