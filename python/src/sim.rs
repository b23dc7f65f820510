//! Traces, simulation and replay, driven as `jobsort sim` and `jobsort replay` drive them.

use crate::errors::{FormulaError, choice, input_error};
use crate::formula::{PyFormula, catalog, compile_options};
use jobsort::fairshare::inputs::EntityKind;
use jobsort::pbs::{NamedText, PbsSite};
use jobsort::rank::Threshold;
use jobsort::sim::limit::LimitsSpec;
use jobsort::sim::record::read_recording;
use jobsort::sim::replay::{reconcile, recorded_metrics, recording_from_trace, verify};
use jobsort::sim::run::{RunOptions, RunResult, simulate_setup};
use jobsort::sim::scheduler::drop_oversized;
use jobsort::sim::settings::{self, Explained, FairshareFlags, SettingsError};
use jobsort::sim::setup::{Setup, check_cluster};
use jobsort::sim::share::{AutoTree, FairshareConfig, drop_zero_share_jobs};
use jobsort::sim::workload::{MachineHint, Workload};
use jobsort::sim::{Policy, Priority, SimConfig};
use jobsort::slurm::conf::SlurmConf;
use jobsort::{CompiledFormula, Formula};
use numpy::IntoPyArray;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rayon::prelude::*;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

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

/// The settings of `jobsort sim` (its flags, by the same names; `None`: not given, so the
/// site's files say, else the default, as `jobsort sim` resolves them: the library's
/// [`jobsort::sim::settings`]).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub struct SimSpec {
    policy: Option<String>,
    nodes: Option<u32>,
    cores: Option<u32>,
    threshold: Option<f64>,
    resource_group: Option<PathBuf>,
    auto_tree: Option<String>,
    entity: Option<String>,
    decay_time: Option<i64>,
    decay_factor: Option<f64>,
    unknown_shares: Option<u32>,
    limits: Option<PathBuf>,
    reject_unknown_users: bool,
    first: Option<usize>,
    starts: bool,
    record: Option<PathBuf>,
    record_queue: bool,
    pbs_home: Option<PathBuf>,
    sched_config: Option<PathBuf>,
    qmgr: Option<PathBuf>,
    slurm_conf: Option<PathBuf>,
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

/// A setting that cannot be used, as Python sees it: the caller's a `ValueError`, a site
/// file's an input error.
fn settings_error(e: SettingsError) -> PyErr {
    match e {
        SettingsError::Usage(m) => PyValueError::new_err(m),
        SettingsError::Invalid(m) => input_error(m),
    }
}

/// The site's files, as `jobsort sim --pbs-home --sched-config --qmgr --slurm-conf` read them.
pub struct Site {
    pub pbs: Option<PbsSite>,
    pub slurm: Option<SlurmConf>,
}

impl SimSpec {
    /// The site's files, read; what PBS would log about them is a Python warning.
    pub fn site(&self, py: Python<'_>) -> PyResult<Site> {
        let named = |p: &PathBuf| -> PyResult<NamedText> {
            Ok(NamedText {
                text: read(p)?,
                name: p.display().to_string(),
            })
        };
        let pbs = if self.pbs_home.is_some() || self.sched_config.is_some() || self.qmgr.is_some() {
            let site = PbsSite::from_texts(
                self.pbs_home.as_deref(),
                self.sched_config.as_ref().map(named).transpose()?,
                self.qmgr.as_ref().map(named).transpose()?,
            )
            .map_err(|e| input_error(e.to_string()))?;
            for n in site.notes() {
                warn(py, &n.to_string())?;
            }
            Some(site)
        } else {
            None
        };
        let slurm = match &self.slurm_conf {
            Some(p) => Some(SlurmConf::load(p).map_err(|e| input_error(e.to_string()))?),
            None => None,
        };
        if pbs.is_some() && slurm.is_some() {
            return Err(PyValueError::new_err(
                "give a PBS site (pbs_home, sched_config, qmgr) or slurm_conf, not both",
            ));
        }
        Ok(Site { pbs, slurm })
    }

    fn fairshare(&self, site: Option<&PbsSite>) -> PyResult<Option<FairshareConfig>> {
        if self.resource_group.is_some() && self.auto_tree.is_some() {
            return Err(PyValueError::new_err(
                "give resource_group or auto_tree, not both",
            ));
        }
        let auto_tree = choice(
            "auto_tree",
            self.auto_tree.as_deref(),
            AutoTree::parse,
            "\"user\", \"group\" or \"group:user\"",
        )?;
        let entity = choice(
            "entity",
            self.entity.as_deref(),
            EntityKind::parse,
            "euser, egroup, queue or egroup:euser",
        )?;
        let resource_group = match &self.resource_group {
            Some(p) => Some((p.display().to_string(), read(p)?)),
            None => None,
        };
        let flags = FairshareFlags {
            style: settings::ArgStyle::Keywords,
            resource_group,
            auto_tree,
            entity,
            decay_time: self.decay_time,
            decay_factor: self.decay_factor,
            unknown_shares: self.unknown_shares,
            usage_res: None,
        };
        flags
            .config(site, &mut Explained::default())
            .map_err(settings_error)
    }

    /// The workload as simulated (first N jobs, jobs larger than the machine dropped) and
    /// the configuration, as `jobsort sim` builds them: each setting given wins, else the
    /// site's files (`site`), else the default.
    fn prepare(
        &self,
        py: Python<'_>,
        trace: &PyTrace,
        site: &Site,
    ) -> PyResult<(Workload, SimConfig)> {
        let fairshare = self.fairshare(site.pbs.as_ref())?;
        let flag_policy = self.policy.as_deref().map(policy).transpose()?;
        let (policy, warnings) =
            settings::sim_policy(flag_policy, None, site.slurm.as_ref(), site.pbs.as_ref())
                .map_err(settings_error)?;
        for w in &warnings {
            warn(py, w)?;
        }
        let threshold = settings::threshold(self.threshold, site.pbs.as_ref())
            .map_err(settings_error)?
            .map(|t| Threshold::new(t.value))
            .transpose()
            .map_err(|e| PyValueError::new_err(format!("threshold: {e}")))?;
        let mut w = (*trace.workload).clone();
        if let Some(n) = self.first {
            w.truncate(n);
        }
        // PBS never runs the jobs of entities with no share (as `jobsort sim`).
        if let (Some(cfg), Some(sc)) = (
            &fairshare,
            site.pbs.as_ref().and_then(|s| s.sched_config.as_ref()),
        ) && sc.never_runs_zero_shares()
        {
            drop_zero_share_jobs(&mut w, cfg).map_err(input_error)?;
        }
        // slurm.conf's nodes, when of one size, give the machine unless nodes=/cores= do.
        if let Some(conf) = &site.slurm
            && (self.nodes.is_none() || self.cores.is_none())
            && let Ok(Some(m)) = conf.machine()
        {
            w.machine = MachineHint {
                nodes: Some(m.nodes),
                cores: Some(m.cpus),
            };
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
            policy: policy.value,
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

/// A Python `UserWarning`.
fn warn(py: Python<'_>, message: &str) -> PyResult<()> {
    let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
    let message = std::ffi::CString::new(message.replace('\0', " ")).unwrap_or_default();
    PyErr::warn(py, &category, &message, 1)
}

/// Run `work` on a thread of its own while this thread waits without the GIL and, every
/// 50 ms, lets Python run its signal handlers: an exception one raises (`KeyboardInterrupt`
/// on Ctrl-C) sets `cancel`, which `work` checks (the simulator does between rounds), and is
/// raised once `work` has returned.
fn interruptible<T: Send>(
    py: Python<'_>,
    cancel: &AtomicBool,
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    /// Says the work is over when dropped, also when it panics.
    struct Done<'a>(&'a (Mutex<bool>, Condvar));
    impl Drop for Done<'_> {
        fn drop(&mut self) {
            *self.0.0.lock().unwrap_or_else(PoisonError::into_inner) = true;
            self.0.1.notify_all();
        }
    }
    let done = (Mutex::new(false), Condvar::new());
    std::thread::scope(|scope| {
        let worker = scope.spawn(|| {
            let _done = Done(&done);
            work()
        });
        let mut raised = None;
        loop {
            let over = py.detach(|| {
                let (lock, changed) = &done;
                let over = lock.lock().unwrap_or_else(PoisonError::into_inner);
                let (over, _) = changed
                    .wait_timeout_while(over, Duration::from_millis(50), |over| !*over)
                    .unwrap_or_else(PoisonError::into_inner);
                *over
            });
            if over {
                break;
            }
            if raised.is_none()
                && let Err(e) = py.check_signals()
            {
                cancel.store(true, Ordering::Relaxed);
                raised = Some(e);
            }
        }
        let value = py
            .detach(|| worker.join())
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        raised.map_or(Ok(value), Err)
    })
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
    let site = spec.site(py)?;
    let (w, config) = spec.prepare(py, trace, &site)?;
    // No formula given: the site's job_sort_formula (qmgr), as `jobsort sim` takes it, in
    // PBS's catalog with the site's custom resources.
    let site_formula = match (&site.pbs, formulas.is_empty()) {
        (Some(pbs), true) => match pbs.formula() {
            Some(f) => {
                let mut catalog = jobsort::Catalog::pbs();
                if let Some(q) = &pbs.qmgr {
                    for (name, ty) in &q.resources {
                        catalog.add_resource(name, ty.value);
                    }
                }
                let name = format!("job_sort_formula at {}", f.origin);
                let compiled = Formula::compile(&f.value, &catalog).map_err(|d| {
                    input_error(format!(
                        "{name}: {}",
                        d.0.first().map_or("", |d| &d.message)
                    ))
                })?;
                Some(Arc::new(compiled))
            }
            None => None,
        },
        _ => None,
    };
    if spec.record.is_some() && formulas.len() > 1 {
        return Err(PyValueError::new_err(
            "record= holds one run's recording: give at most one formula",
        ));
    }
    let (record, record_queue) = (spec.record.as_deref(), spec.record_queue);
    let mut compiled: Vec<Arc<CompiledFormula>> =
        formulas.iter().map(|f| Arc::clone(&f.compiled)).collect();
    compiled.extend(site_formula);
    let cancel = AtomicBool::new(false);
    let runs: Vec<RunResult> = interruptible(py, &cancel, || -> Result<Vec<RunResult>, String> {
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
                        cancel: Some(&cancel),
                        ..RunOptions::default()
                    },
                )
                .map_err(|e| e.to_string())
            })
            .collect()
    })?
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
            ("jain_user_bsld", m.jain_user_bsld),
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
