//! "Why is this job not running, and when will it start?": a site's snapshot
//! ([`crate::sim::snapshot`]) run forward by its own scheduler's policy ([`plan`]), once as
//! the scheduler plans (every job runs its whole walltime, nothing new arrives) and once with
//! the run times a model learned from the site's history predicts ([`runtime`]).
//!
//! The order the jobs are taken in is the caller's: the site's priority (PBS's formula as
//! `rank` computes it; Slurm's and Flux's as the capture shows it, [`captured_order`]).
//!
//! How good the forecasts are is measured on traces that recorded their schedule
//! ([`history`]): the state at past instants rebuilt from the record, planned forward, and
//! each waiting job's forecast set against the start it had.

pub mod history;
pub mod plan;
pub mod runtime;

pub use plan::{Blocked, FullWalltime, JobPlan, Plan, PlanOptions, Runtimes, Short, plan};
pub use runtime::{Fit, RuntimeModel};

use crate::model::policy::Policy;
use crate::model::snapshot::{Scheduler, Snapshot};
use crate::sim::settings::sim_policy;
use crate::sim::snapshot::{LoadedSnapshot, SiteConfig};

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

/// Both forecasts of a queue.
#[derive(Debug, Clone)]
pub struct Forecast {
    pub policy: Policy,
    /// Every job runs its whole walltime (the scheduler's own assumption).
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
}

/// Forecast the queue of `loaded` taken in `order`: with `policy` (else the site's,
/// [`site_policy`]), and with `model`'s run times beside the walltime forecast.
pub fn forecast(
    loaded: &LoadedSnapshot,
    order: &[usize],
    policy: Option<Policy>,
    model: Option<&RuntimeModel>,
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
    let walltime = plan(snap, order, now, &options, &FullWalltime);
    let model = model.map(|m| plan(snap, order, now, &options, m));
    Ok(Forecast {
        policy,
        walltime,
        model,
    })
}
