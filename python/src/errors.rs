//! Library errors as Python exceptions: every one carries the library's message (which says
//! where: a byte span, `file:line`, a JSON path); a formula error carries its diagnostics too.

use crate::diagnostic::PyDiagnostic;
use jobsort::Diagnostic;
use jobsort::formula::diag::render;
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(
    _jobsort,
    JobsortError,
    PyValueError,
    "Base class of jobsort's errors (a ValueError: the input was bad)."
);
create_exception!(
    _jobsort,
    FormulaError,
    JobsortError,
    "A formula that does not compile. `diagnostics` lists every diagnostic (code, message, \
     span); `span` is the first error's byte span and `code` its code; str() is the rendered \
     report, as `jobsort check` prints it."
);
create_exception!(
    _jobsort,
    InputError,
    JobsortError,
    "A file or value the library cannot use (a bad job file, trace, tree, recording or \
     setting); the message says where."
);

/// An [`InputError`] with the library's message.
pub fn input_error(e: impl std::fmt::Display) -> PyErr {
    InputError::new_err(e.to_string())
}

/// A keyword argument that names one of a few choices, parsed by `parse`: `None` when not
/// given, a `ValueError` saying what it may be (`expected`) when it names none of them.
pub fn choice<T>(
    keyword: &str,
    value: Option<&str>,
    parse: impl FnOnce(&str) -> Option<T>,
    expected: &str,
) -> PyResult<Option<T>> {
    let Some(v) = value else {
        return Ok(None);
    };
    parse(v).map(Some).ok_or_else(|| {
        pyo3::exceptions::PyValueError::new_err(format!("{keyword}: `{v}` is not {expected}"))
    })
}

/// A [`FormulaError`] for `source`'s diagnostics, rendered without colour as the CLI renders
/// them, with `diagnostics`, `span`, `code` and `message` attributes.
pub fn formula_error(py: Python<'_>, source: &str, diagnostics: &[Diagnostic]) -> PyErr {
    let rendered = render(source, "<formula>", diagnostics, false);
    let err = FormulaError::new_err(rendered.trim_end().to_string());
    let first = diagnostics
        .iter()
        .find(|d| d.is_error())
        .or(diagnostics.first());
    let value = err.value(py);
    let set = || -> PyResult<()> {
        let list: Vec<PyDiagnostic> = diagnostics.iter().map(PyDiagnostic::from).collect();
        value.setattr("diagnostics", list)?;
        value.setattr("source", source)?;
        value.setattr("span", first.map(|d| (d.span.start, d.span.end)))?;
        value.setattr("code", first.map(|d| d.code))?;
        value.setattr("message", first.map(|d| d.message.clone()))?;
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(e) => e,
    }
}
