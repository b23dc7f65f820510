//! `jobsort forecast` and `jobsort why` over a snapshot folder: the queue in the site's
//! priority order ([`jobsort::forecast::formula_order`]), planned forward
//! ([`jobsort::forecast::forecast`]), once with full walltimes and, with a history, once with
//! the run times [`RuntimeModel`] learned from it. Each waiting job is a dict with the field
//! names of the CLI's `--format json` jobs.

use crate::errors::input_error;
use jobsort::forecast::report::Document;
use jobsort::forecast::{self as fc, Fit, Forecast, RuntimeModel};
use jobsort::model::policy::Policy;
use jobsort::model::snapshot::Scheduler;
use jobsort::sim::snapshot::{LoadedSnapshot, SiteConfig, load_snapshot};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde_json::Value;
use std::path::{Path, PathBuf};

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(forecast, m)?)?;
    m.add_function(wrap_pyfunction!(why, m)?)?;
    Ok(())
}

/// What went wrong, before it becomes a Python exception (the work runs without the GIL).
enum Failure {
    /// The caller's argument (a policy name): `ValueError`.
    Usage(String),
    /// A file or a value the library cannot use: `InputError`.
    Input(String),
}

impl From<Failure> for PyErr {
    fn from(f: Failure) -> PyErr {
        match f {
            Failure::Usage(m) => PyValueError::new_err(m),
            Failure::Input(m) => input_error(m),
        }
    }
}

/// The queue, ordered and planned.
struct Queue {
    loaded: LoadedSnapshot,
    order: Vec<usize>,
    /// By pending index.
    values: Vec<Option<f64>>,
    ordered_by: String,
    forecast: Forecast,
    model: Option<(RuntimeModel, Fit)>,
}

/// What ordered the queue, in the words `jobsort forecast` prints (the same cases
/// [`fc::formula_order`] takes).
fn ordered_by(loaded: &LoadedSnapshot, dir: &Path, formula: Option<&str>) -> String {
    let snap = &loaded.snapshot;
    let site_formula = matches!(&loaded.config, SiteConfig::Pbs(site) if site.formula().is_some());
    let jobs_file = match snap.scheduler {
        Scheduler::Pbs => jobsort::pbs::snapshot::QSTAT,
        Scheduler::Slurm => jobsort::slurm::snapshot::SQUEUE,
        Scheduler::Flux => jobsort::flux::snapshot::JOBS,
    };
    match formula {
        Some(f) if dir.join(jobs_file).is_file() => format!("the formula `{f}`"),
        None if site_formula && dir.join(jobs_file).is_file() => {
            "the site's job_sort_formula".to_string()
        }
        _ if !dir.join(jobs_file).is_file() => {
            "capture order (the folder holds no job list)".to_string()
        }
        _ if snap.scheduler == Scheduler::Pbs => fc::pbs_submission_order("formula="),
        _ if fc::captured_order(snap).is_some() => {
            format!("{}'s own priority, as captured", snap.scheduler.name())
        }
        _ => "submission order (the capture shows no priority)".to_string(),
    }
}

/// Load, order and plan, as `jobsort forecast --snapshot DIR` does (see the module docs);
/// with `only`, until that waiting job has its answer, as `jobsort why` does.
fn load(
    dir: &Path,
    formula: Option<&str>,
    history: Option<&Path>,
    policy: Option<Policy>,
    strict: bool,
    only: Option<&str>,
) -> Result<(Queue, Vec<String>), Failure> {
    let loaded = load_snapshot(dir, strict).map_err(|e| Failure::Input(e.to_string()))?;
    let warnings: Vec<String> = loaded
        .disagreements
        .iter()
        .map(|d| format!("{}: {d}", dir.display()))
        .collect();
    let (order, values) =
        fc::formula_order(&loaded, dir, formula).map_err(|e| Failure::Input(e.to_string()))?;
    let model = match history {
        Some(path) => {
            let w = jobsort::workload::load_workload(path)
                .map_err(|e| Failure::Input(format!("history: {e}")))?;
            let m = RuntimeModel::learn(&w);
            if m.jobs == 0 {
                return Err(Failure::Input(format!(
                    "history {}: no finished job with a requested walltime to learn run \
                     times from",
                    path.display()
                )));
            }
            let fit = m.fit(&w);
            Some((m, fit))
        }
        None => None,
    };
    let only: Option<Vec<usize>> = only.map(|id| {
        jobsort::forecast::report::find_waiting(&loaded.snapshot, id)
            .into_iter()
            .collect()
    });
    let planned = fc::forecast(
        &loaded,
        &order,
        policy,
        model.as_ref().map(|(m, _)| m),
        only.as_deref(),
    )
    .map_err(|e| Failure::Input(format!("{}: {e}", dir.display())))?;
    let ordered_by = ordered_by(&loaded, dir, formula);
    Ok((
        Queue {
            loaded,
            order,
            values,
            ordered_by,
            forecast: planned,
            model,
        },
        warnings,
    ))
}

/// The library's document of the forecast (`forecast::report`): the field names of
/// `jobsort forecast --format json` (less `terms` and `computed_value`, which only the CLI's
/// `rank` computes).
fn document(q: &Queue) -> Document<'_> {
    Document {
        loaded: &q.loaded,
        forecast: &q.forecast,
        order: &q.order,
        ordered_by: &q.ordered_by,
        values: &q.values,
        model: q.model.as_ref().map(|(m, f)| (m, f)),
    }
}

/// The waiting job `id` names, or why there is none, in `jobsort why`'s words
/// (`forecast::report::find_waiting`), the folder named.
fn find_waiting(q: &Queue, dir: &Path, id: &str) -> Result<usize, String> {
    jobsort::forecast::report::find_waiting(&q.loaded.snapshot, id).map_err(|m| {
        match m.strip_prefix(&format!("job {id} is not in the snapshot ")) {
            Some(rest) => format!("job {id} is not in the snapshot {} {rest}", dir.display()),
            None => m,
        }
    })
}

fn policy_arg(policy: Option<&str>) -> Result<Option<Policy>, Failure> {
    policy
        .map(|p| {
            Policy::parse(p).ok_or_else(|| {
                Failure::Usage(format!("policy: `{p}` is not one of {}", Policy::NAMES))
            })
        })
        .transpose()
}

/// A JSON value as Python objects (objects as dicts, arrays as lists, integers as ints).
fn to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any(),
            (None, Some(u)) => u.into_pyobject(py)?.into_any(),
            _ => n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        Value::String(s) => s.into_pyobject(py)?.into_any(),
        Value::Array(a) => {
            let list = PyList::empty(py);
            for x in a {
                list.append(to_py(py, x)?)?;
            }
            list.into_any()
        }
        Value::Object(o) => {
            let d = PyDict::new(py);
            for (k, x) in o {
                d.set_item(k, to_py(py, x)?)?;
            }
            d.into_any()
        }
    })
}

/// Each warning as a Python `UserWarning`.
fn warn_all(py: Python<'_>, warnings: &[String]) -> PyResult<()> {
    let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
    for w in warnings {
        let message = std::ffi::CString::new(w.replace('\0', " ")).unwrap_or_default();
        PyErr::warn(py, &category, &message, 1)?;
    }
    Ok(())
}

/// `jobsort forecast --snapshot DIR --format json`: the header and the waiting jobs in rank
/// order, each a dict (see [`document`]). The GIL is released while loading and planning.
#[pyfunction]
#[pyo3(signature = (snapshot, formula=None, history=None, policy=None, strict=false))]
fn forecast<'py>(
    py: Python<'py>,
    snapshot: PathBuf,
    formula: Option<String>,
    history: Option<PathBuf>,
    policy: Option<&str>,
    strict: bool,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyList>)> {
    let policy = policy_arg(policy)?;
    let (header, jobs, warnings) = py.detach(|| -> Result<_, Failure> {
        let (q, warnings) = load(
            &snapshot,
            formula.as_deref(),
            history.as_deref(),
            policy,
            strict,
            None,
        )?;
        let doc = document(&q);
        let jobs: Vec<Value> = q.order.iter().map(|&i| doc.job(i)).collect();
        Ok((doc.header(), jobs, warnings))
    })?;
    warn_all(py, &warnings)?;
    let list = PyList::empty(py);
    for j in &jobs {
        list.append(to_py(py, j)?)?;
    }
    Ok((to_py(py, &header)?, list))
}

/// `jobsort why JOBID --snapshot DIR --format json` for one job: its dict (see
/// [`document`]) with the header's fields beside (`scheduler`, `taken_at`, `policy`,
/// `ordered_by`, `assumption`, `model`, `missing`). A job that is not waiting is an
/// `InputError` saying what it is (running since when, its state, or not in the snapshot).
#[pyfunction]
#[pyo3(signature = (snapshot, jobid, formula=None, history=None, policy=None, strict=false))]
fn why<'py>(
    py: Python<'py>,
    snapshot: PathBuf,
    jobid: &str,
    formula: Option<String>,
    history: Option<PathBuf>,
    policy: Option<&str>,
    strict: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let policy = policy_arg(policy)?;
    let (doc, warnings) = py.detach(|| -> Result<_, Failure> {
        let (q, warnings) = load(
            &snapshot,
            formula.as_deref(),
            history.as_deref(),
            policy,
            strict,
            Some(jobid),
        )?;
        let i = find_waiting(&q, &snapshot, jobid).map_err(Failure::Input)?;
        let d = document(&q);
        let mut doc = d.header();
        if let (Value::Object(h), Value::Object(j)) = (&mut doc, d.job(i)) {
            h.extend(j);
        }
        Ok((doc, warnings))
    })?;
    warn_all(py, &warnings)?;
    to_py(py, &doc)
}
