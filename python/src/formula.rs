//! Formulas: the catalog, `check`, `compile`, evaluation over numpy columns and ranking.

use crate::diagnostic::PyDiagnostic;
use crate::errors::{JobsortError, formula_error, input_error};
use jobsort::catalog::parse_resource_arg;
use jobsort::formula::check::{CheckOptions, Checked, check, formula_text};
use jobsort::formula::diag::{check_json, render};
use jobsort::rank::{RankOptions, Threshold, TieBreak, rank};
use jobsort::{Catalog, CompileOptions, CompiledFormula, Engine, EvalError, Formula};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyDiagnostic>()?;
    m.add_class::<PyReport>()?;
    m.add_class::<PyFormula>()?;
    m.add_function(wrap_pyfunction!(check_formula, m)?)?;
    m.add_function(wrap_pyfunction!(compile_formula, m)?)?;
    m.add_function(wrap_pyfunction!(rank_values, m)?)?;
    m.add_function(wrap_pyfunction!(error_messages, m)?)?;
    Ok(())
}

/// PBS's catalog plus custom resources: a `resourcedef` file first, then each `(name, type)`
/// (so a resource given by name overrides the file), as the CLI's `--resourcedef` and
/// `--resource` do.
pub fn catalog(resources: &[(String, String)], resourcedef: Option<&PathBuf>) -> PyResult<Catalog> {
    let mut catalog = Catalog::pbs();
    if let Some(path) = resourcedef {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|e| input_error(format!("{name}: cannot read: {e}")))?;
        catalog.add_resourcedef(&text, &name).map_err(input_error)?;
    }
    for (name, ty) in resources {
        let (name, ty) = parse_resource_arg(&format!("{name}:{ty}"))
            .map_err(|e| PyValueError::new_err(format!("resources: {e}")))?;
        catalog.add_resource(&name, ty);
    }
    Ok(catalog)
}

/// `compat`: `None` or `"pbs"`.
fn compat_pbs(compat: Option<&str>) -> PyResult<bool> {
    match compat {
        None => Ok(false),
        Some("pbs") => Ok(true),
        Some(other) => Err(PyValueError::new_err(format!(
            "compat: `{other}` is not a compatibility mode (the one mode is \"pbs\")"
        ))),
    }
}

/// Compile options from the Python keywords.
pub fn compile_options(
    engine: &str,
    compat: Option<&str>,
    deny_warnings: bool,
) -> PyResult<CompileOptions> {
    let engine = match engine {
        "jit" => Engine::Jit,
        "interp" => Engine::Interp,
        other => {
            return Err(PyValueError::new_err(format!(
                "engine: `{other}` is not an engine (\"jit\" or \"interp\")"
            )));
        }
    };
    Ok(CompileOptions {
        engine,
        compat_pbs: compat_pbs(compat)?,
        deny_warnings,
    })
}

/// What `check` found: `valid`, the `diagnostics`, the proven value `range`. `str()` is the
/// text `jobsort check` prints (the rendered diagnostics and the summary line).
#[pyclass(name = "Report", module = "jobsort", frozen)]
pub struct PyReport {
    source: String,
    checked: Checked,
}

#[pymethods]
impl PyReport {
    /// True when there is no error (warnings and notes allowed).
    #[getter]
    fn valid(&self) -> bool {
        self.checked.is_valid()
    }
    #[getter]
    fn diagnostics(&self) -> Vec<PyDiagnostic> {
        self.checked
            .diagnostics
            .iter()
            .map(PyDiagnostic::from)
            .collect()
    }
    /// `(lo, hi)`, the interval every job's value lies in (a side may be infinite); `None` for
    /// an invalid formula.
    #[getter]
    fn range(&self) -> Option<(f64, f64)> {
        self.checked.range
    }
    /// The formula text checked (a qmgr line unquoted).
    #[getter]
    fn source(&self) -> &str {
        &self.source
    }
    /// The `jobsort check --format json` document, as a JSON string.
    fn to_json(&self) -> String {
        check_json(
            self.checked.is_valid(),
            &self.checked.diagnostics,
            self.checked.range,
        )
        .to_string()
    }
    fn __bool__(&self) -> bool {
        self.checked.is_valid()
    }
    fn __str__(&self) -> String {
        let text = render(&self.source, "<formula>", &self.checked.diagnostics, false);
        format!("{text}{}", self.checked.summary())
    }
    fn __repr__(&self) -> String {
        format!(
            "Report(valid={}, diagnostics={}, range={:?})",
            if self.checked.is_valid() {
                "True"
            } else {
                "False"
            },
            self.checked.diagnostics.len(),
            self.checked.range
        )
    }
}

#[pyfunction]
#[pyo3(signature = (text, resources, resourcedef, compat, deny_warnings))]
fn check_formula(
    py: Python<'_>,
    text: &str,
    resources: Vec<(String, String)>,
    resourcedef: Option<PathBuf>,
    compat: Option<&str>,
    deny_warnings: bool,
) -> PyResult<PyReport> {
    let catalog = catalog(&resources, resourcedef.as_ref())?;
    let options = CheckOptions {
        compat_pbs: compat_pbs(compat)?,
        deny_warnings,
    };
    let source = formula_text(text);
    let checked = py.detach(|| check(&source, &catalog, &options));
    Ok(PyReport { source, checked })
}

/// A compiled formula (`Send + Sync`: one per process is shared by every thread).
#[pyclass(name = "Formula", module = "jobsort", frozen)]
pub struct PyFormula {
    pub compiled: Arc<CompiledFormula>,
}

#[pyfunction]
#[pyo3(signature = (text, resources, resourcedef, engine, compat, deny_warnings))]
fn compile_formula(
    py: Python<'_>,
    text: &str,
    resources: Vec<(String, String)>,
    resourcedef: Option<PathBuf>,
    engine: &str,
    compat: Option<&str>,
    deny_warnings: bool,
) -> PyResult<PyFormula> {
    let catalog = catalog(&resources, resourcedef.as_ref())?;
    let options = compile_options(engine, compat, deny_warnings)?;
    let source = formula_text(text);
    match py.detach(|| Formula::compile_with(&source, &catalog, &options)) {
        Ok(compiled) => Ok(PyFormula {
            compiled: Arc::new(compiled),
        }),
        Err(diagnostics) => Err(formula_error(py, &source, &diagnostics.0)),
    }
}

/// What `_evaluate` hands Python: the values, each job's error code, and the jobs in error.
type Evaluated<'py> = (
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<u8>>,
    Vec<usize>,
);

#[pymethods]
impl PyFormula {
    #[getter]
    fn source(&self) -> &str {
        self.compiled.source()
    }
    /// The columns the formula reads, in the order `_evaluate` takes them (canonical names:
    /// the deprecated `fair_share_perc` is `fairshare_perc`).
    #[getter]
    fn inputs(&self) -> Vec<String> {
        self.compiled
            .inputs()
            .iter()
            .map(|i| i.column().to_string())
            .collect()
    }
    /// Warnings and notes of a formula that compiled.
    #[getter]
    fn diagnostics(&self) -> Vec<PyDiagnostic> {
        self.compiled
            .diagnostics()
            .iter()
            .map(PyDiagnostic::from)
            .collect()
    }
    #[getter]
    fn range(&self) -> Option<(f64, f64)> {
        self.compiled.range()
    }
    /// `"jit"` or `"interp"`: the engine that evaluates (`interp` where the JIT cannot run).
    #[getter]
    fn engine(&self) -> &'static str {
        match self.compiled.engine() {
            Engine::Jit => "jit",
            Engine::Interp => "interp",
        }
    }
    #[getter]
    fn compat(&self) -> Option<&'static str> {
        self.compiled.options().compat_pbs.then_some("pbs")
    }

    /// Evaluate `n` jobs over one float64 column per input (`inputs` order), read in place.
    /// Returns the values, the error codes (0 = none) and the address of each column read
    /// (the zero-copy check). The GIL is released while evaluating.
    fn _evaluate<'py>(
        &self,
        py: Python<'py>,
        columns: Vec<PyReadonlyArray1<'py, f64>>,
        n: usize,
    ) -> PyResult<Evaluated<'py>> {
        let slices: Vec<&[f64]> = columns
            .iter()
            .zip(self.compiled.inputs())
            .map(|(c, input)| {
                c.as_slice().map_err(|_| {
                    PyValueError::new_err(format!("column `{}` is not contiguous", input.column()))
                })
            })
            .collect::<PyResult<_>>()?;
        let addresses = slices.iter().map(|s| s.as_ptr() as usize).collect();
        let (values, errors) = (zeros::<f64>(n), zeros::<u8>(n));
        let (mut values, mut errors) = (values?, errors?);
        let compiled = &self.compiled;
        py.detach(|| compiled.evaluate_into(&slices, &mut values, &mut errors))
            .map_err(|e| JobsortError::new_err(e.to_string()))?;
        Ok((values.into_pyarray(py), errors.into_pyarray(py), addresses))
    }

    fn __repr__(&self) -> String {
        format!("Formula({:?})", self.compiled.source())
    }
    fn __str__(&self) -> &str {
        self.compiled.source()
    }
}

/// `n` zeros, or a `MemoryError` when they cannot be allocated (a job count far beyond the
/// memory is an exception, never an abort of the interpreter).
fn zeros<T: Clone + Default>(n: usize) -> PyResult<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| {
        PyMemoryError::new_err(format!(
            "cannot allocate the results of {n} jobs ({} bytes)",
            n.saturating_mul(size_of::<T>())
        ))
    })?;
    v.resize(n, T::default());
    Ok(v)
}

/// `{code: message}` for every evaluation error (Python's words, as PBS logs them).
#[pyfunction]
fn error_messages() -> Vec<(u8, &'static str, &'static str)> {
    (1..=u8::MAX)
        .filter_map(EvalError::from_code)
        .map(|e| (e.code(), e.message(), e.python_exception()))
        .collect()
}

/// The library's job order over `values`: indices, values and runnable flags in rank order.
#[pyfunction]
#[pyo3(signature = (values, submit, ids, fair_share, threshold, top))]
#[allow(clippy::type_complexity)]
fn rank_values<'py>(
    py: Python<'py>,
    values: PyReadonlyArray1<'py, f64>,
    submit: Option<PyReadonlyArray1<'py, f64>>,
    ids: Option<Vec<String>>,
    fair_share: Option<Vec<usize>>,
    threshold: Option<f64>,
    top: Option<usize>,
) -> PyResult<(
    Bound<'py, PyArray1<usize>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<bool>>,
)> {
    let contiguous = |what: &str| PyValueError::new_err(format!("{what} is not contiguous"));
    let values = values.as_slice().map_err(|_| contiguous("values"))?;
    let submit = match &submit {
        Some(s) => Some(s.as_slice().map_err(|_| contiguous("submit"))?),
        None => None,
    };
    let n = values.len();
    // A NaN has no place in an order (every comparison with it is false): name it rather
    // than rank it somewhere. An `Evaluation`'s failed jobs are 0 with their error.
    if let Some(i) = values.iter().position(|v| v.is_nan()) {
        return Err(PyValueError::new_err(format!(
            "values[{i}] is NaN: a job's value must be a number to be ranked"
        )));
    }
    let check_len = |what: &str, len: usize| {
        if len == n {
            Ok(())
        } else {
            Err(PyValueError::new_err(format!(
                "{what} has {len} entries for {n} values"
            )))
        }
    };
    if let Some(s) = submit {
        check_len("submit", s.len())?;
    }
    if let Some(i) = &ids {
        check_len("ids", i.len())?;
    }
    if let Some(f) = &fair_share {
        check_len("fair_share", f.len())?;
    }
    let threshold = threshold
        .map(Threshold::new)
        .transpose()
        .map_err(|e| PyValueError::new_err(format!("threshold: {e}")))?;
    let ids: Option<jobsort::table::Texts> = ids.map(|v| v.iter().collect());
    let ties = TieBreak {
        fair_share: fair_share.as_deref(),
        submit,
        ids: ids.as_ref(),
    };
    let options = RankOptions { threshold, top };
    let ranked = py.detach(|| rank(values, ties, &options));
    let index: Vec<usize> = ranked.iter().map(|r| r.index).collect();
    let value: Vec<f64> = ranked.iter().map(|r| r.value).collect();
    let runnable: Vec<bool> = ranked.iter().map(|r| r.runnable).collect();
    Ok((
        index.into_pyarray(py),
        value.into_pyarray(py),
        runnable.into_pyarray(py),
    ))
}
