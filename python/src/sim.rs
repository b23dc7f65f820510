//! Traces, simulation and replay, driven as `jobsort sim` and `jobsort replay` drive them.

use crate::errors::{FormulaError, input_error};
use crate::formula::{PyFormula, catalog, compile_options};
use jobsort::fairshare::inputs::EntityKind;
use jobsort::rank::Threshold;
use jobsort::sim::limit::LimitsSpec;
use jobsort::sim::record::read_recording;
use jobsort::sim::replay::{reconcile, recorded_metrics, recording_from_trace, verify};
use jobsort::sim::run::{RunOptions, RunResult, simulate_setup};
use jobsort::sim::scheduler::drop_oversized;
use jobsort::sim::setup::{Setup, check_cluster, check_decay};
use jobsort::sim::share::{AutoTree, FairshareConfig};
use jobsort::sim::workload::{MachineHint, Workload};
use jobsort::sim::{Policy, Priority, SimConfig};
use jobsort::{CompiledFormula, Formula};
use numpy::IntoPyArray;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rayon::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyTrace>()?;
    m.add_function(wrap_pyfunction!(load_trace, m)?)?;
    m.add_function(wrap_pyfunction!(simulate_trace, m)?)?;
    m.add_function(wrap_pyfunction!(replay_recording, m)?)?;
    Ok(())
}

/// A loaded workload trace (SWF or a JSON job list, plain or gzip), read once and simulated
/// any number of times.
#[pyclass(name = "Trace", module = "jobsort", frozen)]
pub struct PyTrace {
    workload: Arc<Workload>,
    path: PathBuf,
}

#[pyfunction]
fn load_trace(py: Python<'_>, path: PathBuf) -> PyResult<PyTrace> {
    let workload = py
        .detach(|| jobsort::sim::load_workload(&path))
        .map_err(input_error)?;
    Ok(PyTrace {
        workload: Arc::new(workload),
        path,
    })
}

#[pymethods]
impl PyTrace {
    #[getter]
    fn name(&self) -> &str {
        &self.workload.name
    }
    /// The file it was read from.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }
    /// SHA-256 of the bytes as stored.
    #[getter]
    fn sha256(&self) -> &str {
        &self.workload.sha256
    }
    /// `(nodes, cores)` from the trace header (or `.machines` file); `None` where not given.
    #[getter]
    fn machine(&self) -> (Option<u32>, Option<u32>) {
        (self.workload.machine.nodes, self.workload.machine.cores)
    }
    fn __len__(&self) -> usize {
        self.workload.jobs.len()
    }
    /// The load report: jobs read, kept, dropped by reason, ...
    fn _report<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        report(py, &self.workload, None)
    }
    /// The jobs as columns (id, submit, run, walltime, cores, user, group, queue).
    fn _columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        job_columns(py, &self.workload)
    }
    fn __repr__(&self) -> String {
        format!(
            "Trace({:?}, {} jobs)",
            self.workload.name,
            self.workload.jobs.len()
        )
    }
}

fn report<'py>(
    py: Python<'py>,
    w: &Workload,
    machine: Option<(u32, u32)>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", &w.name)?;
    d.set_item("sha256", &w.sha256)?;
    d.set_item("read", w.report.read)?;
    d.set_item("kept", w.report.kept)?;
    d.set_item("dropped", w.report.dropped.clone())?;
    d.set_item("records_skipped", w.report.records_skipped.clone())?;
    d.set_item("walltime_from_runtime", w.report.walltime_from_runtime)?;
    d.set_item("killed_at_walltime", w.report.killed_at_walltime)?;
    d.set_item("zero_runtime", w.report.zero_runtime)?;
    if let Some((nodes, cores)) = machine {
        d.set_item("nodes", nodes)?;
        d.set_item("cores", cores)?;
    }
    Ok(d)
}

fn job_columns<'py>(py: Python<'py>, w: &Workload) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let jobs = &w.jobs;
    d.set_item("id", jobs.iter().map(|j| j.id.as_str()).collect::<Vec<_>>())?;
    let ints = |f: fn(&jobsort::sim::SimJob) -> i64| jobs.iter().map(f).collect::<Vec<i64>>();
    d.set_item("submit", ints(|j| j.submit).into_pyarray(py))?;
    d.set_item("run", ints(|j| j.effective_run()).into_pyarray(py))?;
    d.set_item("walltime", ints(|j| j.walltime).into_pyarray(py))?;
    let cores: Vec<u64> = jobs.iter().map(|j| j.request.total_cores()).collect();
    d.set_item("cores", cores.into_pyarray(py))?;
    d.set_item(
        "user",
        jobs.iter().map(|j| j.user.as_str()).collect::<Vec<_>>(),
    )?;
    d.set_item(
        "group",
        jobs.iter().map(|j| j.group.as_str()).collect::<Vec<_>>(),
    )?;
    d.set_item(
        "queue",
        jobs.iter().map(|j| j.queue.as_str()).collect::<Vec<_>>(),
    )?;
    Ok(d)
}

/// The settings of `jobsort sim` (its flags, by the same names).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub struct SimSpec {
    policy: String,
    nodes: Option<u32>,
    cores: Option<u32>,
    threshold: Option<f64>,
    resource_group: Option<PathBuf>,
    auto_tree: Option<String>,
    entity: String,
    decay_time: i64,
    decay_factor: f64,
    unknown_shares: u32,
    limits: Option<PathBuf>,
    reject_unknown_users: bool,
    first: Option<usize>,
    starts: bool,
    record: Option<PathBuf>,
    record_queue: bool,
}

fn policy(name: &str) -> PyResult<Policy> {
    Policy::parse(name).ok_or_else(|| {
        PyValueError::new_err(format!("policy: `{name}` is not one of {}", Policy::NAMES))
    })
}

/// Nodes and cores per node: the arguments, else the trace's header; cores default to 1 when
/// only nodes are given (the CLI's `--nodes`/`--cores` rule).
fn machine(
    nodes: Option<u32>,
    cores: Option<u32>,
    hint: MachineHint,
    trace: &str,
) -> PyResult<(u32, u32)> {
    let Some((n, c)) = hint.resolve(nodes, cores) else {
        return Err(input_error(format!(
            "{trace}: no machine size in the trace (no MaxNodes/MaxProcs header, no .machines \
             file): give nodes= and cores="
        )));
    };
    let source = if nodes.is_some() {
        format!("nodes={n}")
    } else {
        format!("{trace}: {n} nodes")
    };
    check_cluster(n, 1).map_err(|e| input_error(format!("{source}: {e}")))?;
    Ok((n, c))
}

impl SimSpec {
    fn fairshare(&self) -> PyResult<Option<FairshareConfig>> {
        check_decay(self.decay_time, self.decay_factor)
            .map_err(|e| PyValueError::new_err(format!("{}: {}", e.field, e.reason)))?;
        let base = match (&self.resource_group, &self.auto_tree) {
            (None, None) => return Ok(None),
            (Some(_), Some(_)) => {
                return Err(PyValueError::new_err(
                    "give resource_group or auto_tree, not both",
                ));
            }
            (None, Some(auto)) => FairshareConfig::auto(match auto.as_str() {
                "user" => AutoTree::User,
                "group" => AutoTree::Group,
                "group:user" => AutoTree::GroupUser,
                other => {
                    return Err(PyValueError::new_err(format!(
                        "auto_tree: `{other}` is not \"user\", \"group\" or \"group:user\""
                    )));
                }
            }),
            (Some(path), None) => FairshareConfig {
                auto_tree: None,
                resource_group: Some(read(path)?),
                entity: EntityKind::parse(&self.entity).ok_or_else(|| {
                    PyValueError::new_err(format!(
                        "entity: `{}` is not euser, egroup, queue or egroup:euser",
                        self.entity
                    ))
                })?,
                ..FairshareConfig::auto(AutoTree::User)
            },
        };
        Ok(Some(FairshareConfig {
            decay_time: self.decay_time,
            decay_factor: self.decay_factor,
            unknown_shares: self.unknown_shares,
            ..base
        }))
    }

    /// The workload as simulated (first N jobs, jobs larger than the machine dropped) and
    /// the configuration, as `jobsort sim` builds them.
    fn prepare(&self, trace: &PyTrace) -> PyResult<(Workload, SimConfig)> {
        let fairshare = self.fairshare()?;
        let policy = policy(&self.policy)?;
        let threshold = self
            .threshold
            .map(Threshold::new)
            .transpose()
            .map_err(|e| PyValueError::new_err(format!("threshold: {e}")))?;
        let mut w = (*trace.workload).clone();
        if let Some(n) = self.first {
            w.truncate(n);
        }
        let (nodes, cores) = machine(self.nodes, self.cores, w.machine, &w.name)?;
        drop_oversized(&mut w, nodes, cores);
        let limits = match &self.limits {
            None => None,
            Some(path) => Some(LimitsSpec {
                name: path.display().to_string(),
                text: read(path)?,
                reject_unknown_users: self.reject_unknown_users,
            }),
        };
        let config = SimConfig {
            policy,
            nodes,
            cores,
            threshold: threshold.map(Threshold::value),
            fairshare,
            limits,
            queue_order: None,
        };
        Ok((w, config))
    }
}

fn read(path: &PathBuf) -> PyResult<String> {
    std::fs::read_to_string(path)
        .map_err(|e| input_error(format!("{}: cannot read: {e}", path.display())))
}

/// Simulate a trace under each formula (none: first come, first served), in parallel, from
/// one setup, as `jobsort sim` does. Returns the trace report and one dict per run.
#[pyfunction]
#[pyo3(signature = (trace, formulas, spec))]
fn simulate_trace<'py>(
    py: Python<'py>,
    trace: &PyTrace,
    formulas: Vec<PyRef<'py, PyFormula>>,
    spec: SimSpec,
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyList>)> {
    let (w, config) = spec.prepare(trace)?;
    if spec.record.is_some() && formulas.len() > 1 {
        return Err(PyValueError::new_err(
            "record= holds one run's recording: give at most one formula",
        ));
    }
    let (record, record_queue) = (spec.record.as_deref(), spec.record_queue);
    let compiled: Vec<Arc<CompiledFormula>> =
        formulas.iter().map(|f| Arc::clone(&f.compiled)).collect();
    let runs: Vec<RunResult> = py
        .detach(|| -> Result<Vec<RunResult>, String> {
            let setup = Setup::new(&config, &w.jobs).map_err(|e| e.to_string())?;
            let specs: Vec<Option<&CompiledFormula>> = if compiled.is_empty() {
                vec![None]
            } else {
                compiled.iter().map(|f| Some(&**f)).collect()
            };
            specs
                .par_iter()
                .map(|f| {
                    simulate_setup(
                        &w,
                        &setup,
                        f.map(|f| f as &dyn Priority),
                        &RunOptions {
                            record,
                            record_queue,
                            ..RunOptions::default()
                        },
                    )
                    .map_err(|e| e.to_string())
                })
                .collect()
        })
        .map_err(input_error)?;
    let out = PyList::empty(py);
    for r in &runs {
        let d = PyDict::new(py);
        d.set_item("formula", r.formula.as_deref())?;
        d.set_item("policy", r.config.policy.name())?;
        d.set_item("jobs", r.jobs)?;
        d.set_item("dropped", r.dropped)?;
        d.set_item("never_started", r.never_started)?;
        d.set_item("rounds", r.outcome.rounds)?;
        d.set_item("eval_errors", r.outcome.eval_errors)?;
        let m = &r.metrics;
        let metrics = PyDict::new(py);
        for (k, v) in [
            ("mean_wait", m.mean_wait),
            ("median_wait", m.median_wait),
            ("p95_wait", m.p95_wait),
            ("mean_bsld", m.mean_bsld),
            ("p95_bsld", m.p95_bsld),
            ("utilization", m.utilization),
            ("makespan", m.makespan),
            ("jain_user_wait", m.jain_user_wait),
        ] {
            metrics.set_item(k, v)?;
        }
        d.set_item("metrics", metrics)?;
        let shares: Vec<(String, f64, f64)> = r
            .shares
            .iter()
            .map(|s| (s.entity.clone(), s.target, s.delivered))
            .collect();
        d.set_item("shares", shares)?;
        if spec.starts {
            let time = |t: &[Option<i64>]| -> Vec<f64> {
                t.iter().map(|s| s.map_or(f64::NAN, |s| s as f64)).collect()
            };
            d.set_item("start", time(&r.outcome.start).into_pyarray(py))?;
            d.set_item("end", time(&r.outcome.end).into_pyarray(py))?;
        }
        out.append(d)?;
    }
    let info = report(py, &w, Some((config.nodes, config.cores)))?;
    if spec.starts {
        info.set_item("jobs", job_columns(py, &w)?)?;
    }
    Ok((info, out))
}

/// `jobsort replay`: verify a recording (with its formula, or `formula` instead), or
/// reconcile `formula` against a recording or against an SWF trace's real schedule. Returns
/// the report as the CLI's `--format json` document (a JSON string).
#[pyfunction]
#[pyo3(signature = (recording, trace, verify_run, formula, policy_name, nodes, cores, per_round, resources, resourcedef, engine, compat))]
#[allow(clippy::too_many_arguments)]
fn replay_recording(
    py: Python<'_>,
    recording: Option<PathBuf>,
    trace: Option<&PyTrace>,
    verify_run: bool,
    formula: Option<&PyFormula>,
    policy_name: &str,
    nodes: Option<u32>,
    cores: Option<u32>,
    per_round: bool,
    resources: Vec<(String, String)>,
    resourcedef: Option<PathBuf>,
    engine: &str,
    compat: Option<&str>,
) -> PyResult<String> {
    let other = formula.map(|f| Arc::clone(&f.compiled));
    let (rec, recorded_waits) = match (&recording, trace) {
        (Some(path), None) => {
            // Plain or gzip (`record="run.jsonl.gz"`), read as it streams.
            let file = std::fs::File::open(path)
                .map_err(|e| input_error(format!("{}: cannot read: {e}", path.display())))?;
            let rec = read_recording(std::io::BufReader::new(file), &path.display().to_string())
                .map_err(input_error)?;
            check_cluster(rec.header.cluster.nodes, 1)
                .map_err(|e| input_error(format!("{}: header cluster: {e}", path.display())))?;
            (rec, None)
        }
        (None, Some(trace)) => {
            if verify_run {
                return Err(PyValueError::new_err(
                    "verify needs a recording made by simulate(record=...) or `jobsort sim \
                     --record`, not a trace",
                ));
            }
            let mut w = (*trace.workload).clone();
            let (n, c) = machine(nodes, cores, w.machine, &w.name)?;
            drop_oversized(&mut w, n, c);
            let config = SimConfig::new(policy(policy_name)?, n, c);
            let m = recorded_metrics(&w, n as u64 * c as u64);
            (recording_from_trace(&w, &config), Some(m))
        }
        _ => {
            return Err(PyValueError::new_err(
                "give a recording or a trace (one of them)",
            ));
        }
    };
    let json = |v: serde_json::Result<serde_json::Value>| {
        v.map_err(|e| PyValueError::new_err(e.to_string()))
    };
    if verify_run || other.is_none() && trace.is_none() {
        // The live scheduler runs `formula`, else the recorded formula.
        let recorded = match rec.header.formula.as_deref() {
            Some(text) => {
                let catalog = catalog(&resources, resourcedef.as_ref())?;
                let options = compile_options(engine, compat, false)?;
                Some(
                    Formula::compile_with(text, &catalog, &options).map_err(|d| {
                        FormulaError::new_err(format!(
                            "the recorded formula `{text}` does not compile here: {}",
                            d.0.first().map(|d| d.message.as_str()).unwrap_or("")
                        ))
                    })?,
                )
            }
            None => None,
        };
        let f: Option<&dyn Priority> = other
            .as_deref()
            .or(recorded.as_ref())
            .map(|f| f as &dyn Priority);
        let report = py.detach(|| verify(&rec, f)).map_err(input_error)?;
        return Ok(json(serde_json::to_value(&report))?.to_string());
    }
    let report = py
        .detach(|| reconcile(&rec, other.as_deref().map(|f| f as &dyn Priority)))
        .map_err(input_error)?;
    let mut v = json(serde_json::to_value(&report))?;
    if let Some(o) = v.as_object_mut() {
        if !per_round {
            o.remove("per_round");
        }
        if let Some(m) = recorded_waits {
            o.insert("recorded_metrics".into(), json(serde_json::to_value(m))?);
        }
    }
    Ok(v.to_string())
}
