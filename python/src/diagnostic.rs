//! `jobsort.Diagnostic`: one diagnostic of the checker as a Python object. Below both the
//! formula functions and the exceptions, which carry a list of them.

use jobsort::Diagnostic;
use pyo3::prelude::*;

/// One diagnostic: severity, stable code, message, byte span, labelled spans and notes.
#[pyclass(name = "Diagnostic", module = "jobsort", frozen, get_all)]
#[derive(Clone)]
pub struct PyDiagnostic {
    /// `"error"`, `"warning"` or `"note"`.
    severity: &'static str,
    /// Stable code: E01xx syntax, E02xx names/types, E03xx certain failures, W04xx warnings,
    /// N05xx notes, N09xx engine notes.
    code: &'static str,
    message: String,
    /// Byte offsets `(start, end)` into the formula text.
    span: (usize, usize),
    /// Secondary spans with their messages.
    labels: Vec<((usize, usize), String)>,
    notes: Vec<String>,
}

impl From<&Diagnostic> for PyDiagnostic {
    fn from(d: &Diagnostic) -> PyDiagnostic {
        PyDiagnostic {
            severity: match d.severity {
                jobsort::Severity::Error => "error",
                jobsort::Severity::Warning => "warning",
                jobsort::Severity::Note => "note",
            },
            code: d.code,
            message: d.message.clone(),
            span: (d.span.start, d.span.end),
            labels: d
                .labels
                .iter()
                .map(|l| ((l.span.start, l.span.end), l.message.clone()))
                .collect(),
            notes: d.notes.clone(),
        }
    }
}

#[pymethods]
impl PyDiagnostic {
    fn __repr__(&self) -> String {
        format!(
            "Diagnostic(severity={:?}, code={:?}, message={:?}, span={:?})",
            self.severity, self.code, self.message, self.span
        )
    }

    /// `warning[W0401] at 9..14: possible division by zero: ...` (the C example's form).
    fn __str__(&self) -> String {
        format!(
            "{}[{}] at {}..{}: {}",
            self.severity, self.code, self.span.0, self.span.1, self.message
        )
    }
}
