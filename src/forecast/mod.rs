//! "Why is this job not running, and when will it start?": a site's snapshot
//! ([`crate::sim::snapshot`]) run forward by its own scheduler's policy ([`plan`]), once as
//! the scheduler plans (every job runs its whole walltime, nothing new arrives) and once with
//! the run times a model learned from the site's history predicts ([`runtime`]).
//!
//! The order the jobs are taken in is the caller's: the site's priority (PBS's formula as
//! `rank` computes it; Slurm's and Flux's as the capture shows it, [`captured_order`]), or a
//! formula's over the snapshot's own job capture ([`formula_order`]).
//!
//! How good the forecasts are is measured on traces that recorded their schedule
//! ([`history`]): the state at past instants rebuilt from the record, planned forward, and
//! each waiting job's forecast set against the start it had.

pub mod compare;
pub mod history;
pub mod plan;
pub mod report;
pub mod runtime;

pub use plan::{
    Blocked, FullWalltime, JobPlan, Plan, PlanOptions, Runtimes, Short, plan, plan_for,
};
pub use runtime::{Fit, KnownRuntimes, RuntimeModel, RuntimesError};

use crate::catalog::{Catalog, Input, Keyword};
use crate::fairshare::inputs::{EntityKind, TreeSource};
use crate::flux::mf_priority::{QueueFactorSource, fill_queue_factors};
use crate::formula::Formula;
use crate::jobs::JobSet;
use crate::model::policy::Policy;
use crate::model::snapshot::{Scheduler, Snapshot};
use crate::rank::{RankOptions, TieBreak, rank};
use crate::sim::job_rows::{RowsFormat, load_job_rows};
use crate::sim::settings::{sim_policy, site_unknown_shares};
use crate::sim::snapshot::{LoadedSnapshot, SiteConfig};
use crate::slurm::jobs::{SqueueJobs, parse_squeue_json};
use crate::workload::TraceOptions;
use std::path::Path;

/// The dispatch policy the site's configuration in the snapshot gives: slurm.conf's
/// scheduler (`sched/backfill` with its `SchedulerParameters`, `sched/builtin` strict), the
/// PBS site's `strict_ordering` and `backfill_depth` (PBS's defaults without its files), and
/// for Flux its scheduler's default queue policy, `fcfs`: strict order, no backfill
/// (flux-sched `doc/man5/flux-config-sched-fluxion-qmanager.rst`: "The default is
/// \"fcfs\""). Without slurm.conf, Slurm's defaults (`sched/backfill`).
pub fn site_policy(loaded: &LoadedSnapshot) -> Result<Policy, String> {
    match &loaded.config {
        SiteConfig::Pbs(site) => sim_policy(None, None, None, Some(site))
            .map(|(p, _)| p.value)
            .map_err(|e| e.to_string()),
        SiteConfig::Slurm(Some(conf)) => sim_policy(None, None, Some(conf), None)
            .map(|(p, _)| p.value)
            .map_err(|e| e.to_string()),
        SiteConfig::Slurm(None) => Ok(Policy::Slurm(Default::default())),
        SiteConfig::Flux => Ok(Policy::Strict),
    }
}

/// What orders a PBS queue whose snapshot sets no `job_sort_formula` (submission order, PBS's
/// default), in words; `give` says how the caller gives a formula (`--formula`, `formula=`).
pub fn pbs_submission_order(give: &str) -> String {
    format!(
        "submission order (neither qmgr.txt nor sched_config in the snapshot sets \
         job_sort_formula: add the one that does, or give {give})"
    )
}

/// The waiting jobs in the order their captured priority gives (highest first; ties by
/// submission, then capture order), when every one has a priority (Slurm's `priority`,
/// Flux's); `None` when the capture shows none (PBS keeps its formula's values inside the
/// scheduler).
pub fn captured_order(snap: &Snapshot) -> Option<Vec<usize>> {
    if snap.scheduler == Scheduler::Pbs || snap.pending.iter().any(|j| j.priority.is_none()) {
        return None;
    }
    let mut order: Vec<usize> = (0..snap.pending.len()).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (&snap.pending[a], &snap.pending[b]);
        y.priority
            .unwrap_or(0.0)
            .total_cmp(&x.priority.unwrap_or(0.0))
            .then(
                x.submit
                    .unwrap_or(i64::MAX)
                    .cmp(&y.submit.unwrap_or(i64::MAX)),
            )
            .then(a.cmp(&b))
    });
    Some(order)
}

/// The waiting jobs in the order of `ids` (a ranking's), then those it does not list in
/// capture order; ids it lists that are not waiting are left out.
pub fn order_of_ids<'a>(snap: &Snapshot, ids: impl IntoIterator<Item = &'a str>) -> Vec<usize> {
    let index: std::collections::HashMap<&str, usize> = snap
        .pending
        .iter()
        .enumerate()
        .map(|(i, j)| (j.id.as_str(), i))
        .collect();
    let mut seen = vec![false; snap.pending.len()];
    let mut order = Vec::with_capacity(snap.pending.len());
    for id in ids {
        if let Some(&i) = index.get(id)
            && !seen[i]
        {
            seen[i] = true;
            order.push(i);
        }
    }
    order.extend((0..snap.pending.len()).filter(|&i| !seen[i]));
    order
}

/// The waiting jobs of `loaded` in the site's priority order, computed by the library from
/// the snapshot folder `dir` it was read from, and each waiting job's value (by pending
/// index; `None` for a job the ranking leaves out: one the scheduler does not sort, such as
/// a held PBS job).
///
/// With a formula (`formula`, else for PBS the site's `job_sort_formula`,
/// [`PbsSite::formula`](crate::pbs::PbsSite::formula)): the folder's job capture
/// (`qstat.json`, `squeue.json`, `jobs.json`) read by the loaders `jobsort rank` reads it
/// with ([`crate::sim::job_rows`] for PBS and Flux, [`parse_squeue_json`] for Slurm, which
/// keep the jobs the scheduler sorts: PBS's queued ones, those `sprio` lists at the
/// snapshot's time), the formula compiled with the scheduler's catalog (PBS's with the
/// custom resources of `qmgr.txt`) and evaluated — PBS's `queue_priority` from the site's
/// queues, its fairshare keywords from the folder's `resource_group` (and `usage`) by the
/// site's `fairshare_entity`; Flux's `queue_factor` as flux-accounting uses it — and ordered
/// by [`rank`] (value descending; ties by submission, then the id's sequence number). The
/// waiting jobs the ranking does not list follow in capture order ([`order_of_ids`]).
///
/// Without a formula: PBS in submission order (PBS's default `job_sort_key` is none);
/// Slurm and Flux by the captured priority ([`captured_order`]), else in submission order,
/// each value the captured priority.
///
/// `jobsort forecast` and `jobsort why` order the queue by running `rank` in the CLI,
/// which adds to this: PBS's `by_queue` and `round_robin` regrouping of the order by queue
/// (from `sched_config`), its `fair_share` tie-break and the jobs
/// `fairshare_enforce_no_shares` never runs put last, each job's terms (the formula's
/// top-level terms, or for Slurm without a formula `sprio`'s factors from a multifactor
/// `slurm.conf`). A PBS site with several queues of different `Priority` under `by_queue`
/// (PBS's shipped `sched_config`) is therefore ordered differently here.
/// Why a formula cannot order a Flux snapshot's queue (`name` says which formula): `flux jobs
/// --json` is read as a history, whose reader keeps the jobs that ran and ended, so a
/// capture's waiting jobs give no formula input. One text for the library and the CLI.
pub fn flux_formula_refusal(jobs_file: &Path, name: &str) -> String {
    format!(
        "{}: no waiting job read to evaluate {name} over: a Flux job list is read as a history \
         (finished jobs only), so a formula cannot order a Flux snapshot yet; without one, \
         Flux's captured priority orders it",
        jobs_file.display()
    )
}

pub fn formula_order(
    loaded: &LoadedSnapshot,
    dir: &Path,
    formula: Option<&str>,
) -> Result<(Vec<usize>, Vec<Option<f64>>), ForecastError> {
    let snap = &loaded.snapshot;
    let n = snap.pending.len();
    let submission = || {
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&i| (snap.pending[i].submit.unwrap_or(i64::MAX), i));
        order
    };
    let site = match &loaded.config {
        SiteConfig::Pbs(site) => Some(site),
        _ => None,
    };
    let (text, name) = match (formula, site.and_then(|s| s.formula())) {
        (Some(f), _) => (f.to_string(), format!("the formula `{f}`")),
        (None, Some(f)) => (f.value.clone(), format!("job_sort_formula at {}", f.origin)),
        (None, None) if snap.scheduler == Scheduler::Pbs => {
            return Ok((submission(), vec![None; n]));
        }
        (None, None) => {
            let order = captured_order(snap).unwrap_or_else(submission);
            return Ok((order, snap.pending.iter().map(|j| j.priority).collect()));
        }
    };
    let (file, catalog_of) = match snap.scheduler {
        Scheduler::Pbs => (crate::pbs::snapshot::QSTAT, crate::catalog::Scheduler::Pbs),
        Scheduler::Slurm => (
            crate::slurm::snapshot::SQUEUE,
            crate::catalog::Scheduler::Slurm,
        ),
        Scheduler::Flux => (crate::flux::snapshot::JOBS, crate::catalog::Scheduler::Flux),
    };
    let path = dir.join(file);
    if !path.is_file() {
        // No job list to evaluate the formula over: the capture's order.
        return Ok(((0..n).collect(), vec![None; n]));
    }
    let order_err = |m: String| ForecastError::Order(m);
    let mut catalog = Catalog::of(catalog_of);
    if let Some(q) = site.and_then(|s| s.qmgr.as_ref()) {
        for (resource, ty) in &q.resources {
            if catalog.resource(resource).is_none() {
                catalog.add_resource(resource, ty.value);
            }
        }
    }
    let compiled = Formula::compile(&text, &catalog).map_err(|d| {
        let first = d.0.iter().find(|d| d.is_error()).or(d.0.first());
        order_err(format!(
            "{name} does not compile: {}",
            first.map_or("", |d| d.message.as_str())
        ))
    })?;
    let columns: Vec<&str> = compiled.inputs().iter().map(Input::column).collect();
    let jobs = match snap.scheduler {
        Scheduler::Pbs => {
            let mut jobs = load_job_rows(
                &path,
                RowsFormat::Auto,
                &catalog,
                Some(&columns),
                &TraceOptions::default(),
            )
            .map_err(|e| order_err(e.to_string()))?
            .file
            .jobs;
            if jobs.has_states() {
                jobs.take_not_ranked();
            }
            if let Some(site) = site {
                pbs_site_columns(&mut jobs, site, dir, &columns)?;
            }
            jobs
        }
        Scheduler::Slurm => {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| order_err(format!("{}: {e}", path.display())))?;
            let flags = match &loaded.config {
                SiteConfig::Slurm(Some(conf)) => conf.priority.flags,
                _ => Default::default(),
            };
            let which = SqueueJobs::Sprio {
                now: snap.taken_at.ok_or(ForecastError::NoTime)?,
                accrue_always: flags.accrue_always,
                calculate_running: flags.calculate_running,
            };
            let read = parse_squeue_json(
                &text,
                &path.display().to_string(),
                &Default::default(),
                which,
            )
            .map_err(|e| order_err(e.to_string()))?;
            let mut rows = read.jobs;
            fairshare_from_factor(&mut rows);
            rows.into_iter().collect()
        }
        Scheduler::Flux => {
            let mut jobs = load_job_rows(
                &path,
                RowsFormat::Auto,
                &catalog,
                None,
                &TraceOptions::default(),
            )
            .map_err(|e| order_err(e.to_string()))?
            .file
            .jobs;
            if jobs.has_states() {
                jobs.take_not_ranked();
            }
            if jobs.is_empty() && n > 0 {
                return Err(order_err(flux_formula_refusal(&path, &name)));
            }
            let mut rows = jobs.rows();
            fairshare_from_factor(&mut rows);
            fill_queue_factors(&mut rows, QueueFactorSource::AssociationLastJob);
            rows.into_iter().collect()
        }
    };
    let evaluation = compiled.evaluate(jobs.table());
    let ties = TieBreak {
        fair_share: None,
        submit: jobs.submits(),
        ids: Some(jobs.ids()),
    };
    let ranked = rank(&evaluation.values, ties, &RankOptions::default());
    let order = order_of_ids(snap, ranked.iter().map(|r| jobs.id(r.index)));
    let by_id: std::collections::HashMap<&str, f64> =
        ranked.iter().map(|r| (jobs.id(r.index), r.value)).collect();
    let values = snap
        .pending
        .iter()
        .map(|j| by_id.get(j.id.as_str()).copied())
        .collect();
    Ok((order, values))
}

/// PBS's columns from the site: `queue_priority` from its queues (unless the jobs give it),
/// and the fairshare keywords from the folder's `resource_group` (and `usage`), each job's
/// entity the site's `fairshare_entity` (else `euser`), as `rank` fills them.
fn pbs_site_columns(
    jobs: &mut JobSet,
    site: &crate::pbs::PbsSite,
    dir: &Path,
    columns: &[&str],
) -> Result<(), ForecastError> {
    let order_err = |m: String| ForecastError::Order(m);
    let queue_priority = Keyword::QueuePriority.name();
    if columns.contains(&queue_priority) && jobs.table().column(queue_priority).is_none() {
        let priorities = site
            .queue_priorities()
            .map_err(|e| order_err(e.to_string()))?;
        if !priorities.is_empty() {
            let column = (0..jobs.len())
                .map(|i| {
                    jobs.queue(i)
                        .and_then(|q| priorities.get(q))
                        .map_or(0.0, |p| p.value)
                })
                .collect();
            jobs.set_column(queue_priority, column)
                .map_err(|e| order_err(e.to_string()))?;
        }
    }
    let rg = dir.join(crate::pbs::snapshot::RESOURCE_GROUP);
    if !rg.is_file() {
        return Ok(());
    }
    let usage = dir.join(crate::pbs::snapshot::USAGE);
    let sc = site.sched_config.as_ref();
    let unknown_shares = site_unknown_shares(sc, i32::MAX)
        .map_err(|e| order_err(e.to_string()))?
        .map_or(0, |s| s.value);
    let source = TreeSource {
        resource_group: Some(rg),
        usage: usage.is_file().then_some(usage),
        fairshare_tree: None,
        algorithm: None,
        unknown_shares,
        lenient: false,
        sibling_order: None,
    };
    if let Some((mut tree, _)) = source.load().map_err(|e| order_err(e.to_string()))? {
        let kind = sc
            .and_then(|c| c.fairshare_entity.as_ref())
            .map_or(EntityKind::Euser, |s| s.value);
        tree.fill_jobs(jobs, kind).map_err(order_err)?;
    }
    Ok(())
}

/// A job's `fairshare_factor` is its `fairshare` factor when it gives no other (`rank`'s rule
/// for Slurm and Flux jobs).
fn fairshare_from_factor(rows: &mut [crate::jobs::Job]) {
    for job in rows {
        if let Some(f) = job.values.get("fairshare_factor").copied() {
            job.values.entry("fairshare".into()).or_insert(f);
        }
    }
}

/// Both forecasts of a queue.
#[derive(Debug, Clone)]
pub struct Forecast {
    pub policy: Policy,
    /// Every job runs its whole walltime (the scheduler's own assumption), or, from
    /// [`forecast_with`], what its run times say.
    pub walltime: Plan,
    /// Run times from the history's model, when one was given.
    pub model: Option<Plan>,
}

/// An error forecasting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ForecastError {
    #[error("the snapshot does not say when it was taken (no timestamp in its captures)")]
    NoTime,
    #[error("the snapshot has no nodes: nothing to place jobs on")]
    NoNodes,
    #[error("{0}")]
    Policy(String),
    /// The queue's order could not be computed: the formula does not compile, or the
    /// snapshot's job capture cannot be read (the message names the file).
    #[error("{0}")]
    Order(String),
}

/// Forecast the queue of `loaded` taken in `order`: with `policy` (else the site's,
/// [`site_policy`]), and with `model`'s run times beside the walltime forecast. With `only`
/// (pending indices), the plans run until those jobs have their answers ([`plan_for`]):
/// `why` for a few jobs.
pub fn forecast(
    loaded: &LoadedSnapshot,
    order: &[usize],
    policy: Option<Policy>,
    model: Option<&RuntimeModel>,
    only: Option<&[usize]>,
) -> Result<Forecast, ForecastError> {
    forecast_with(loaded, order, policy, &FullWalltime, model, only)
}

/// [`forecast`] with the first plan's jobs ending when `first` says (known run times,
/// [`KnownRuntimes`]) instead of at their walltimes; the scheduler still plans with walltimes.
pub fn forecast_with(
    loaded: &LoadedSnapshot,
    order: &[usize],
    policy: Option<Policy>,
    first: &dyn Runtimes,
    model: Option<&RuntimeModel>,
    only: Option<&[usize]>,
) -> Result<Forecast, ForecastError> {
    let snap = &loaded.snapshot;
    let now = snap.taken_at.ok_or(ForecastError::NoTime)?;
    if snap.nodes.is_empty() {
        return Err(ForecastError::NoNodes);
    }
    let policy = match policy {
        Some(p) => p,
        None => site_policy(loaded).map_err(ForecastError::Policy)?,
    };
    let options = PlanOptions {
        policy,
        ..PlanOptions::default()
    };
    let limits = &loaded.limits;
    let walltime = plan_for(snap, limits, order, now, &options, first, only);
    let model = model.map(|m| plan_for(snap, limits, order, now, &options, m, only));
    Ok(Forecast {
        policy,
        walltime,
        model,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::snapshot::load_snapshot;

    fn why(scheduler: &str) -> (LoadedSnapshot, std::path::PathBuf) {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/why")
            .join(scheduler);
        (load_snapshot(&dir, false).expect("the snapshot loads"), dir)
    }

    fn ids(loaded: &LoadedSnapshot, order: &[usize]) -> Vec<String> {
        order
            .iter()
            .map(|&i| loaded.snapshot.pending[i].id.clone())
            .collect()
    }

    /// The site's `job_sort_formula` (`ncpus * 2 + walltime / 3600`, qmgr.txt) over qstat.json:
    /// 301 (16 cpus, 2 h) 34, 302 9, 303 4.33; the held 304 is not sorted by PBS, so it has
    /// no value and comes last.
    #[test]
    fn pbs_site_formula_orders_the_queued_jobs() {
        let (loaded, dir) = why("pbs");
        let (order, values) = formula_order(&loaded, &dir, None).unwrap();
        assert_eq!(
            ids(&loaded, &order),
            ["301.srv", "302.srv", "303.srv", "304.srv"]
        );
        let by_id: Vec<(String, Option<f64>)> = loaded
            .snapshot
            .pending
            .iter()
            .zip(&values)
            .map(|(j, v)| (j.id.clone(), *v))
            .collect();
        let value = |id: &str| by_id.iter().find(|(j, _)| j == id).unwrap().1;
        assert_eq!(value("301.srv"), Some(34.0));
        assert_eq!(value("302.srv"), Some(9.0));
        assert!((value("303.srv").unwrap() - 13.0 / 3.0).abs() < 1e-12);
        assert_eq!(value("304.srv"), None);
    }

    /// A formula given wins over the site's, and one that does not compile says which.
    #[test]
    fn a_formula_given_orders_and_a_bad_one_is_an_error() {
        let (loaded, dir) = why("pbs");
        let (order, _) = formula_order(&loaded, &dir, Some("-walltime")).unwrap();
        let got = ids(&loaded, &order);
        assert_eq!(got.last().map(String::as_str), Some("304.srv"));
        assert_eq!(got[0], "303.srv", "the shortest walltime first: {got:?}");
        let e = formula_order(&loaded, &dir, Some("ncpus +")).unwrap_err();
        assert!(e.to_string().contains("`ncpus +` does not compile"), "{e}");
    }

    /// Slurm and Flux without a formula: the captured priority; with one, it orders them.
    #[test]
    fn slurm_and_flux_without_a_formula_take_the_captured_priority() {
        for s in ["slurm", "flux"] {
            let (loaded, dir) = why(s);
            let (order, values) = formula_order(&loaded, &dir, None).unwrap();
            assert_eq!(Some(order), captured_order(&loaded.snapshot), "{s}");
            let captured: Vec<Option<f64>> =
                loaded.snapshot.pending.iter().map(|j| j.priority).collect();
            assert_eq!(values, captured, "{s}");
        }
        // A formula over squeue.json: the jobs sprio lists at the snapshot's time (not the
        // held 24, priority 0), equal values by submission.
        let (loaded, dir) = why("slurm");
        let (order, values) = formula_order(&loaded, &dir, Some("-nice")).unwrap();
        assert_eq!(ids(&loaded, &order), ["21", "22", "23", "25", "24"]);
        let held = loaded.snapshot.pending.iter().position(|j| j.id == "24");
        assert_eq!(values[held.unwrap()], None);
        // Flux's job list gives no waiting job as formula input: said, not a silent order.
        let (loaded, dir) = why("flux");
        let e = formula_order(&loaded, &dir, Some("urgency")).unwrap_err();
        assert!(
            e.to_string().contains("jobs.json: no waiting job read"),
            "{e}"
        );
    }
}
