//! `jobsort forecast` and `jobsort why` over a snapshot folder: the queue in the site's
//! priority order ([`jobsort::forecast::formula_order`]), planned forward
//! ([`jobsort::forecast::forecast`]), once with full walltimes and, with a history, once with
//! the run times [`RuntimeModel`] learned from it. Each waiting job is a dict with the field
//! names of the CLI's `--format json` jobs.

use crate::errors::input_error;
use jobsort::forecast::{self as fc, Fit, Forecast, JobPlan, RuntimeModel};
use jobsort::input::units::utc_text;
use jobsort::model::policy::Policy;
use jobsort::model::snapshot::Scheduler;
use jobsort::sim::snapshot::{LoadedSnapshot, SiteConfig, load_snapshot};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde_json::{Value, json};
use std::collections::HashMap;
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
        _ if snap.scheduler == Scheduler::Pbs => "submission order (the snapshot holds no \
                                                  job_sort_formula: add qmgr.txt or \
                                                  sched_config, or give formula=)"
            .to_string(),
        _ if fc::captured_order(snap).is_some() => {
            format!("{}'s own priority, as captured", snap.scheduler.name())
        }
        _ => "submission order (the capture shows no priority)".to_string(),
    }
}

/// Load, order and plan, as `jobsort forecast --snapshot DIR` does (see the module docs).
fn load(
    dir: &Path,
    formula: Option<&str>,
    history: Option<&Path>,
    policy: Option<Policy>,
    strict: bool,
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
    let planned = fc::forecast(&loaded, &order, policy, model.as_ref().map(|(m, _)| m))
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

/// The plan's answer for each pending index.
fn by_index(plan: &fc::Plan) -> HashMap<usize, &JobPlan> {
    plan.jobs.iter().map(|j| (j.index, j)).collect()
}

/// One waiting job, with the field names of `jobsort forecast --format json`'s jobs (less
/// `terms` and `computed_value`, which only the CLI's `rank` computes).
fn job_json(
    q: &Queue,
    index: usize,
    walltime: &HashMap<usize, &JobPlan>,
    model: Option<&HashMap<usize, &JobPlan>>,
) -> Value {
    let s = &q.loaded.snapshot;
    let job = &s.pending[index];
    let w = walltime[&index];
    let m = model.map(|m| m[&index]);
    let ahead = (w.rank > 1).then(|| s.pending[q.order[w.rank - 2]].id.clone());
    let says_plain = match s.scheduler {
        Scheduler::Slurm => job
            .reason
            .as_deref()
            .and_then(jobsort::slurm::reasons::plain),
        _ => None,
    };
    json!({
        "id": job.id,
        "user": job.user,
        "queue": job.queue,
        "rank": w.rank,
        "of": q.order.len(),
        "value": q.values[index],
        "ahead": ahead,
        "blocked": w.blocked,
        "blocked_kind": w.blocked.kind(),
        "plain": w.blocked.plain(q.forecast.walltime.now),
        "scheduler_says": job.reason,
        "scheduler_says_plain": says_plain,
        "planned_at": w.planned_at,
        "start": w.start,
        "end": w.end,
        "nodes": w.nodes,
        "model_start": m.and_then(|m| m.start),
        "model_end": m.and_then(|m| m.end),
        "walltime": job.walltime,
        "submit": job.submit,
    })
}

/// The header of `jobsort forecast --format json`: the snapshot, the policy, the order, the
/// assumption, the model.
fn header_json(q: &Queue) -> Value {
    json!({
        "scheduler": q.loaded.snapshot.scheduler.name(),
        "taken_at": q.forecast.walltime.now,
        "policy": q.forecast.policy.name(),
        "ordered_by": q.ordered_by,
        "assumption": "running jobs use their full walltime and nothing new arrives",
        "model": q.model.as_ref().map(|(m, fit)| json!({
            "what": "each user's median share of the walltime their jobs ran, from history",
            "jobs": m.jobs,
            "users": m.users.len(),
            "overall_ratio": m.overall,
            "fit": fit,
        })),
        "missing": q.loaded.snapshot.missing.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
    })
}

/// The waiting job `id` names (as written, else the id before the server suffix: `1234` for
/// `1234.srv`), or why there is none, in `jobsort why`'s words (the folder named).
fn find_waiting(q: &Queue, dir: &Path, id: &str) -> Result<usize, String> {
    let s = &q.loaded.snapshot;
    let named = |j: &str| j == id || j.split('.').next() == Some(id);
    if let Some(i) = s.pending.iter().position(|j| j.id == id) {
        return Ok(i);
    }
    if let Some(i) = s.pending.iter().position(|j| named(&j.id)) {
        return Ok(i);
    }
    if let Some(r) = s.running.iter().find(|j| named(&j.id)) {
        return Err(format!(
            "job {} is running since {}{}",
            r.id,
            utc_text(r.start),
            r.planned_end()
                .map(|e| format!(", until {} at the latest", utc_text(e)))
                .unwrap_or_default()
        ));
    }
    if let Some((j, st)) = s.other_jobs.iter().find(|(j, _)| named(j)) {
        return Err(format!("job {j} is not waiting: its state is {st}"));
    }
    Err(format!(
        "job {id} is not in the snapshot {} ({} waiting, {} running)",
        dir.display(),
        s.pending.len(),
        s.running.len()
    ))
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
/// order, each a dict (see [`job_json`]). The GIL is released while loading and planning.
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
        )?;
        let walltime = by_index(&q.forecast.walltime);
        let model = q.forecast.model.as_ref().map(by_index);
        let jobs: Vec<Value> = q
            .order
            .iter()
            .map(|&i| job_json(&q, i, &walltime, model.as_ref()))
            .collect();
        Ok((header_json(&q), jobs, warnings))
    })?;
    warn_all(py, &warnings)?;
    let list = PyList::empty(py);
    for j in &jobs {
        list.append(to_py(py, j)?)?;
    }
    Ok((to_py(py, &header)?, list))
}

/// `jobsort why JOBID --snapshot DIR --format json` for one job: its dict (see
/// [`job_json`]) with the header's fields beside (`scheduler`, `taken_at`, `policy`,
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
        )?;
        let i = find_waiting(&q, &snapshot, jobid).map_err(Failure::Input)?;
        let walltime = by_index(&q.forecast.walltime);
        let model = q.forecast.model.as_ref().map(by_index);
        let mut doc = header_json(&q);
        if let (Value::Object(d), Value::Object(j)) =
            (&mut doc, job_json(&q, i, &walltime, model.as_ref()))
        {
            d.extend(j);
        }
        Ok((doc, warnings))
    })?;
    warn_all(py, &warnings)?;
    to_py(py, &doc)
}
