//! Formulas compared on today's queue: a snapshot's waiting jobs taken in each of several
//! orders (the site's priority, a formula's), each planned forward by the same policy with
//! the same run times ([`plan`]), and the figures `sim --trace` gives a simulated run, over
//! the waiting jobs: how many start within the plan and why the others never do, the waits
//! from submission (mean, median, p95), the mean bounded slowdown
//! ([`metrics::bounded_slowdown`]), when the last one starts, how long the jobs a limit holds
//! now wait (per limit), and each user's and queue's mean-wait change against the first order
//! ([`metrics::WaitChanges`], the one `sim --trace` prints).
//!
//! Nothing new arrives in a plan, so a formula's figures are those of the jobs waiting now:
//! what a change of formula would do to today's queue, not to a month of work.

use super::plan::{Blocked, Plan, PlanOptions, Runtimes, plan};
use crate::model::snapshot::{Hold, Snapshot};
use crate::sim::metrics::{self, WaitChanges};
use crate::sim::snapshot::LoadedSnapshot;
use rayon::prelude::*;

/// The figures of one order's plan, over the snapshot's waiting jobs.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PlanMetrics {
    /// Waiting jobs in the snapshot.
    pub waiting: usize,
    /// Those that start within the plan.
    pub started: usize,
    /// Those that do not, by why ([`not_started`]), most first (ties by why).
    pub not_started: Vec<NotStarted>,
    /// Over the jobs that start: `start − submit`, seconds.
    pub mean_wait: f64,
    pub median_wait: f64,
    pub p95_wait: f64,
    /// Over the jobs that start, with their run in the plan (`end − start`).
    pub mean_bsld: f64,
    /// When the last of them starts (Unix seconds).
    pub last_start: Option<i64>,
    /// The jobs a limit holds at the snapshot's instant, per limit (sorted by its reason).
    pub limits: Vec<LimitWait>,
    /// Jobs whose capture gives no submission time: their wait counts from the snapshot.
    pub no_submit: usize,
}

/// How many waiting jobs a plan does not start for one reason.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct NotStarted {
    /// [`not_started`]'s words.
    pub why: String,
    pub jobs: usize,
}

/// The jobs one limit holds at the snapshot's instant ([`Blocked::Limit`], not a per-job
/// limit) and how long they wait.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LimitWait {
    /// The scheduler's words for the limit (PBS's comment, Slurm's reason name).
    pub reason: String,
    /// In plain words.
    pub plain: String,
    pub jobs: usize,
    /// Those of them that start within the plan.
    pub started: usize,
    /// Their mean wait from submission (seconds), over those that start.
    pub mean_wait: f64,
    /// Their mean time from the snapshot's instant to their start (seconds): what the limit
    /// (and what follows it) still costs them.
    pub mean_left: f64,
}

/// Why a waiting job has no start in a plan, in a few words: what holds it for good
/// (`held`, `dependency`, `begin time`, `limit jobsort does not hold`, `never fits`,
/// `per-job limit: REASON`), else `not within the horizon`.
pub fn not_started(blocked: &Blocked) -> String {
    match blocked {
        Blocked::Hold { hold } => match hold {
            Hold::Held(_) => "held".into(),
            Hold::Dependency(_) => "dependency".into(),
            Hold::BeginTime(_) => "begin time".into(),
            Hold::Limit(_) => "limit jobsort does not hold".into(),
        },
        Blocked::NeverFits { .. } => "never fits".into(),
        Blocked::Limit {
            reason,
            never: true,
            ..
        } => format!("per-job limit: {reason}"),
        _ => "not within the horizon".into(),
    }
}

/// Each waiting job's wait in `plan`, by pending index: `start − submit` (from the
/// snapshot's instant when the capture gives no submission time); `None` when it does not
/// start, or the order left it out.
pub fn waits(snap: &Snapshot, plan: &Plan) -> Vec<Option<f64>> {
    let mut out = vec![None; snap.pending.len()];
    for j in &plan.jobs {
        if let Some(s) = j.start {
            let from = snap.pending[j.index].submit.unwrap_or(plan.now);
            out[j.index] = Some((s - from) as f64);
        }
    }
    out
}

/// The figures of `plan`, a plan of `snap`'s waiting jobs.
pub fn plan_metrics(snap: &Snapshot, plan: &Plan) -> PlanMetrics {
    let waits = waits(snap, plan);
    let mut started_waits = Vec::new();
    let mut bslds = Vec::new();
    let mut not: Vec<NotStarted> = Vec::new();
    let mut limits: Vec<(LimitWait, f64, f64)> = Vec::new();
    let mut last_start = None::<i64>;
    for j in &plan.jobs {
        let wait = waits[j.index];
        match (j.start, j.end, wait) {
            (Some(s), Some(e), Some(w)) => {
                started_waits.push(w);
                bslds.push(metrics::bounded_slowdown(w, (e - s) as f64));
                last_start = Some(last_start.map_or(s, |l| l.max(s)));
            }
            _ => {
                let why = not_started(&j.blocked);
                match not.iter_mut().find(|n| n.why == why) {
                    Some(n) => n.jobs += 1,
                    None => not.push(NotStarted { why, jobs: 1 }),
                }
            }
        }
        if let Blocked::Limit {
            reason,
            plain,
            never: false,
            ..
        } = &j.blocked
        {
            let k = match limits.iter().position(|(l, ..)| l.reason == *reason) {
                Some(k) => k,
                None => {
                    limits.push((
                        LimitWait {
                            reason: reason.clone(),
                            plain: plain.clone(),
                            jobs: 0,
                            started: 0,
                            mean_wait: 0.0,
                            mean_left: 0.0,
                        },
                        0.0,
                        0.0,
                    ));
                    limits.len() - 1
                }
            };
            let (l, wait_sum, left_sum) = &mut limits[k];
            l.jobs += 1;
            if let (Some(s), Some(w)) = (j.start, wait) {
                l.started += 1;
                *wait_sum += w;
                *left_sum += (s - plan.now) as f64;
            }
        }
    }
    not.sort_by(|a, b| b.jobs.cmp(&a.jobs).then_with(|| a.why.cmp(&b.why)));
    limits.sort_by(|a, b| a.0.reason.cmp(&b.0.reason));
    let limits = limits
        .into_iter()
        .map(|(mut l, w, left)| {
            if l.started > 0 {
                l.mean_wait = w / l.started as f64;
                l.mean_left = left / l.started as f64;
            }
            l
        })
        .collect();
    let mean = |v: &[f64]| {
        if v.is_empty() {
            0.0
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    let mean_wait = mean(&started_waits);
    let mean_bsld = mean(&bslds);
    let [median_wait, p95_wait] = metrics::percentiles_select(&mut started_waits, [0.5, 0.95]);
    PlanMetrics {
        waiting: snap.pending.len(),
        started: bslds.len(),
        not_started: not,
        mean_wait,
        median_wait,
        p95_wait,
        mean_bsld,
        last_start,
        limits,
        no_submit: snap.pending.iter().filter(|j| j.submit.is_none()).count(),
    }
}

/// One order's plan and its figures.
#[derive(Debug, Clone)]
pub struct Compared {
    pub plan: Plan,
    pub metrics: PlanMetrics,
    /// Each waiting job's wait, by pending index ([`waits`]).
    pub waits: Vec<Option<f64>>,
}

/// Plan `loaded`'s queue in each of `orders` (indices into its waiting jobs, in priority
/// order) with `options` and `runtimes`, from the snapshot's instant `now`; the figures of
/// each, and each user's and queue's mean-wait change against the first order's. A waiting
/// job's user and queue are the capture's (`-` when it gives none; the queues of a job
/// submitted to several, joined by `,`).
pub fn compare(
    loaded: &LoadedSnapshot,
    orders: &[Vec<usize>],
    now: i64,
    options: &PlanOptions,
    runtimes: &(dyn Runtimes + Sync),
) -> (Vec<Compared>, WaitChanges) {
    let snap = &loaded.snapshot;
    let runs: Vec<Compared> = orders
        .par_iter()
        .map(|order| {
            let plan = plan(snap, &loaded.limits, order, now, options, runtimes);
            let metrics = plan_metrics(snap, &plan);
            let waits = waits(snap, &plan);
            Compared {
                plan,
                metrics,
                waits,
            }
        })
        .collect();
    let queue_names: Vec<String> = snap
        .pending
        .iter()
        .map(|j| {
            if j.queue.is_empty() {
                "-".to_string()
            } else {
                j.queue.join(",")
            }
        })
        .collect();
    let (user_of, users) = metrics::number_names(
        snap.pending
            .iter()
            .map(|j| j.user.as_deref().unwrap_or("-")),
    );
    let (queue_of, queues) = metrics::number_names(queue_names.iter().map(String::as_str));
    let waits: Vec<Vec<Option<f64>>> = runs.iter().map(|r| r.waits.clone()).collect();
    let changes = WaitChanges::new(&waits, (&user_of, &users), (&queue_of, &queues));
    (runs, changes)
}
