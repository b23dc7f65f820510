//! Job files and fairshare trees, read as `jobsort eval`, `rank` and `fairshare` read them.

use crate::errors::{choice, input_error};
use crate::formula::{PyFormula, catalog};
use jobsort::fairshare::Algorithm;
use jobsort::fairshare::inputs::{EntityKind, Fairshare, TreeSource, TreeSourceError};
use jobsort::fairshare::tree::{Shares, SiblingOrder};
use jobsort::jobs::JobSet;
use jobsort::jobs::load::{JobFormat, load_jobs as load_job_file};
use numpy::{IntoPyArray, PyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::collections::BTreeSet;
use std::path::PathBuf;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyJobs>()?;
    m.add_function(wrap_pyfunction!(load_jobs, m)?)?;
    m.add_function(wrap_pyfunction!(fairshare_rows, m)?)?;
    Ok(())
}

/// Where a fairshare tree comes from: the CLI's `--resource-group [--usage]`,
/// `--fairshare-tree [--algorithm]`, `--unknown-shares`, `--fairshare-lenient`,
/// `--slurm-tie-order`.
#[derive(FromPyObject, Default)]
#[pyo3(from_item_all)]
pub struct TreeSpec {
    resource_group: Option<PathBuf>,
    usage: Option<PathBuf>,
    fairshare_tree: Option<PathBuf>,
    algorithm: Option<String>,
    unknown_shares: i32,
    lenient: bool,
    slurm_tie_order: Option<String>,
}

impl TreeSpec {
    /// The tree and its load warnings (`None` without a tree), as `rank` loads it.
    fn load(&self) -> PyResult<Option<(Fairshare, Vec<String>)>> {
        if self.resource_group.is_some() && self.fairshare_tree.is_some() {
            return Err(PyValueError::new_err(
                "give resource_group (PBS) or fairshare_tree (Slurm, flux), not both",
            ));
        }
        if self.usage.is_some() && self.resource_group.is_none() {
            return Err(PyValueError::new_err("usage needs resource_group"));
        }
        let algorithm = choice(
            "algorithm",
            self.algorithm.as_deref(),
            Algorithm::parse,
            "pbs, slurm-classic, slurm-depth-oblivious, slurm-fairtree or flux",
        )?;
        let source = TreeSource {
            resource_group: self.resource_group.clone(),
            usage: self.usage.clone(),
            fairshare_tree: self.fairshare_tree.clone(),
            algorithm,
            unknown_shares: self.unknown_shares,
            lenient: self.lenient,
            sibling_order: self.slurm_tie_order.as_deref().map(SiblingOrder::parse),
        };
        source.load().map_err(|e| match e {
            TreeSourceError::NotPbs(_) => PyValueError::new_err(format!("algorithm: {e}")),
            TreeSourceError::SiblingOrder(e) => {
                PyValueError::new_err(format!("slurm_tie_order: {e}"))
            }
            TreeSourceError::Load(e) => input_error(e),
        })
    }
}

fn entity_kind(entity: &str) -> PyResult<EntityKind> {
    EntityKind::parse(entity).ok_or_else(|| {
        PyValueError::new_err(format!(
            "entity: `{entity}` is not euser, egroup, account, queue or egroup:euser"
        ))
    })
}

/// Jobs read from a file, with their fairshare keywords filled in when a tree was given.
#[pyclass(name = "Jobs", module = "jobsort", frozen)]
pub struct PyJobs {
    jobs: JobSet,
    fairshare: Option<Fairshare>,
    kind: EntityKind,
    warnings: Vec<String>,
}

/// Load a job file (JSON, JSON lines, CSV, `qstat -f -F json`) as `eval` and `rank` do,
/// and fill the fairshare keywords from the tree when one is given.
// Python's keyword arguments, one each.
#[allow(clippy::too_many_arguments)]
#[pyfunction]
#[pyo3(signature = (path, format, resources, resourcedef, strict, entity, tree))]
fn load_jobs(
    py: Python<'_>,
    path: PathBuf,
    format: &str,
    resources: Vec<(String, String)>,
    resourcedef: Option<PathBuf>,
    strict: bool,
    entity: &str,
    tree: TreeSpec,
) -> PyResult<PyJobs> {
    let catalog = catalog(&resources, resourcedef.as_ref())?;
    let kind = entity_kind(entity)?;
    let format = match format {
        "auto" => JobFormat::Auto,
        "json" => JobFormat::Json,
        "jsonl" => JobFormat::JsonLines,
        "csv" => JobFormat::Csv,
        "qstat" => JobFormat::Qstat,
        other => {
            return Err(PyValueError::new_err(format!(
                "format: `{other}` is not auto, json, jsonl, csv or qstat (SWF traces: \
                 load_trace and simulate)"
            )));
        }
    };
    let mut warnings = Vec::new();
    let file = py
        .detach(|| load_job_file(&path, format, &catalog, None))
        .map_err(input_error)?;
    if let Some(first) = file.unknown.first()
        && strict
    {
        return Err(input_error(format!("{first} (strict)")));
    }
    warnings.extend(file.unknown.iter().map(ToString::to_string));
    let mut jobs = file.jobs;
    if jobs.is_empty() {
        warnings.push(format!("{}: no jobs read", path.display()));
    }
    let fairshare = match tree.load()? {
        None => None,
        Some((mut fs, w)) => {
            warnings.extend(w);
            warnings.extend(fs.fill_jobs(&mut jobs, kind).map_err(input_error)?);
            Some(fs)
        }
    };
    Ok(PyJobs {
        jobs,
        fairshare,
        kind,
        warnings,
    })
}

#[pymethods]
impl PyJobs {
    fn __len__(&self) -> usize {
        self.jobs.len()
    }
    /// Warnings from reading (unknown fields, entities not in the tree, ...).
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }
    #[getter]
    fn ids(&self) -> Vec<String> {
        (0..self.jobs.len())
            .map(|i| self.jobs.id(i).to_string())
            .collect()
    }
    /// Submission order keys (`submit`/`qrank`) when every job has one, else `None` (input
    /// order), as `rank` breaks ties.
    #[getter]
    fn submit<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<f64>>> {
        self.jobs.submits().map(|s| s.to_vec().into_pyarray(py))
    }
    /// Whether a fairshare tree filled the fairshare keywords.
    #[getter]
    fn has_tree(&self) -> bool {
        self.fairshare.is_some()
    }
    /// PBS's fairshare order of each job (0 = most deserving, `compare_path`), the
    /// `fair_share` tie-break of `rank`; `None` for Slurm and flux trees.
    fn fair_share_ranks(&self) -> PyResult<Option<Vec<usize>>> {
        let tree = self.fairshare.as_ref().ok_or_else(|| {
            PyValueError::new_err("fair_share needs a fairshare tree (resource_group=...)")
        })?;
        tree.fair_share_ranks(&self.jobs, self.kind)
            .map_err(input_error)
    }
    /// The formula's inputs that no job has (each reads 0 for every job), for the warning
    /// `evaluate` gives as for a mapping that lacks a column.
    fn _absent(&self, formula: &PyFormula) -> Vec<String> {
        let table = self.jobs.table();
        formula
            .compiled
            .inputs()
            .iter()
            .map(|i| i.column())
            .filter(|name| table.column(name).is_none())
            .map(str::to_string)
            .collect()
    }
    /// The formula's columns built from the jobs as `eval` builds them (a value a job lacks
    /// is 0), evaluated; `(values, error codes)`.
    fn _evaluate<'py>(
        &self,
        py: Python<'py>,
        formula: &PyFormula,
    ) -> (Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<u8>>) {
        let compiled = &formula.compiled;
        let evaluation = py.detach(|| compiled.evaluate(self.jobs.table()));
        (
            evaluation.values.into_pyarray(py),
            evaluation.errors.into_pyarray(py),
        )
    }
    /// Every job as a column dictionary: identity fields and each numeric value (0 where a
    /// job lacks it).
    fn _columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("id", self.ids())?;
        let n = self.jobs.len();
        let text = |f: fn(&JobSet, usize) -> Option<&str>| -> Vec<Option<String>> {
            (0..n)
                .map(|i| f(&self.jobs, i).map(str::to_string))
                .collect()
        };
        d.set_item("user", text(JobSet::user))?;
        d.set_item("group", text(JobSet::group))?;
        d.set_item("account", text(JobSet::account))?;
        d.set_item("queue", text(JobSet::queue))?;
        let submit: Vec<f64> = (0..n)
            .map(|i| self.jobs.submit(i).unwrap_or(f64::NAN))
            .collect();
        d.set_item("submit", submit.into_pyarray(py))?;
        let table = self.jobs.table();
        let names: BTreeSet<&str> = table.column_names().collect();
        for name in names {
            let col: Vec<f64> = table.column(name).map(<[f64]>::to_vec).unwrap_or_default();
            d.set_item(name, col.into_pyarray(py))?;
        }
        Ok(d)
    }
}

/// One row per node of a fairshare tree, in the CLI's order (`pbsfs -p` for PBS, pre-order
/// for share trees), with the three formula keywords each entity gets.
#[pyfunction]
#[pyo3(signature = (tree,))]
fn fairshare_rows<'py>(
    py: Python<'py>,
    tree: TreeSpec,
) -> PyResult<(Bound<'py, PyDict>, Vec<String>, &'static str)> {
    let (fs, warnings) = tree.load()?.ok_or_else(|| {
        PyValueError::new_err("give resource_group (PBS) or fairshare_tree (Slurm, flux)")
    })?;
    let mut name = Vec::new();
    let mut parent: Vec<Option<String>> = Vec::new();
    let mut user: Vec<Option<String>> = Vec::new();
    let mut shares: Vec<Option<f64>> = Vec::new();
    let mut usage = Vec::new();
    let mut perc = Vec::new();
    let mut tree_usage = Vec::new();
    let mut factor = Vec::new();
    let d = PyDict::new(py);
    let algorithm = match &fs {
        Fairshare::Pbs(t) => {
            let mut id = Vec::new();
            for (i, _) in t.preorder() {
                let n = t.node(i);
                let v = t.values(i);
                name.push(n.name.clone());
                id.push(n.cresgroup);
                parent.push(n.parent.map(|p| {
                    if p == 0 {
                        "root".to_string()
                    } else {
                        t.node(p).name.clone()
                    }
                }));
                user.push(None);
                shares.push(Some(n.shares as f64));
                usage.push(n.usage);
                perc.push(v.fairshare_perc);
                tree_usage.push(v.fairshare_tree_usage);
                factor.push(v.fairshare_factor);
            }
            d.set_item("id", id.into_pyarray(py))?;
            Algorithm::Pbs
        }
        Fairshare::Shares {
            tree,
            algorithm,
            values,
        } => {
            for i in tree.preorder() {
                let n = &tree.nodes[i];
                let v = &values[i];
                name.push(n.name.clone());
                parent.push(n.parent.map(|p| tree.nodes[p].name.clone()));
                user.push(n.is_user.then(|| n.entity.clone()));
                shares.push(match n.shares {
                    Shares::Value(x) => Some(x),
                    Shares::Parent => None,
                });
                usage.push(n.usage);
                let nan = |x: Option<f64>| x.unwrap_or(f64::NAN);
                perc.push(nan(v.fairshare_perc));
                tree_usage.push(nan(v.fairshare_tree_usage));
                factor.push(nan(v.fairshare_factor));
            }
            *algorithm
        }
    };
    d.set_item("name", name)?;
    d.set_item("parent", parent)?;
    if algorithm != Algorithm::Pbs {
        d.set_item("user", user)?;
    }
    d.set_item("shares", shares)?;
    d.set_item("usage", usage.into_pyarray(py))?;
    d.set_item("fairshare_perc", perc.into_pyarray(py))?;
    d.set_item("fairshare_tree_usage", tree_usage.into_pyarray(py))?;
    d.set_item("fairshare_factor", factor.into_pyarray(py))?;
    Ok((d, warnings, algorithm.name()))
}
