//! The diagnostics handle: what the checker found in one compilation (severity, stable
//! code, message, byte span), read one field at a time.

use super::args::write_out;
use super::c_text::c_string;
use super::handles::{Handle, free_handle, handle_ref};
use super::status::{Failure, JobsortStatus, guard, guard_status};
use crate::formula::diag::{Diagnostic, Severity};
use std::ffi::{CString, c_char};

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

/// The diagnostics of one compilation. Opaque; free with [`jobsort_diagnostics_free`].
#[repr(C)]
pub struct JobsortDiagnostics {
    tag: u64,
    items: Vec<DiagnosticC>,
}

// SAFETY: `repr(C)` with the tag first; created only by `Box::into_raw`.
unsafe impl Handle for JobsortDiagnostics {
    const TAG: u64 = 0x6a6f_6273_6469_6101; // "jobsdia\x01"
    const KIND: &'static str = "diagnostics";
}

impl JobsortDiagnostics {
    /// A list holding `found` as C strings.
    pub(super) fn new(found: &[Diagnostic]) -> JobsortDiagnostics {
        JobsortDiagnostics {
            tag: JobsortDiagnostics::TAG,
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
/// `diagnostics` is NULL or a live handle; `count` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn jobsort_diagnostics_count(
    diagnostics: *const JobsortDiagnostics,
    count: *mut usize,
) -> JobsortStatus {
    guard_status("jobsort_diagnostics_count", || {
        // SAFETY: caller contract.
        let d = unsafe { handle_ref(diagnostics, "diagnostics") }?;
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
    let d = unsafe { handle_ref(d, "diagnostics") }?;
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
    // SAFETY: caller contract.
    guard("jobsort_diagnostics_free", (), || unsafe {
        free_handle(diagnostics, "diagnostics")
    })
}
